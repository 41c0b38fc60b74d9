//! Running the SMs' cycles on several threads.
//!
//! Each core cycle has two phases ([`crate::gpu`]): every SM runs its cycle
//! from what the last cycle left (it reads the crossbars and writes only its
//! own state, request pool and port, [`crate::sm::port`]), then the GPU
//! applies the SMs' ports in SM order. Only the first phase is split across
//! threads, so the result does not depend on how many there are.
//!
//! The threads are a rayon pool that the simulating thread joins
//! (`use_current_thread`): the per-cycle split is then a `join` among workers
//! that are already running, a few microseconds, where handing each cycle to
//! a pool from outside it would put the simulating thread to sleep and wake it
//! again every cycle. A thread can belong to one such pool, so each thread
//! keeps the last pool it built and reuses it for its next run of that size.
//! WebAssembly has no threads without a nightly standard library (see
//! ARCHITECTURE.md), so there the SMs always run on one thread.
//!
//! Splitting pays only when the SMs' phase is long enough to cover the
//! hand-over: on a memory-bound run the pool's idle thread falls asleep
//! during the memory side's serial phase and is woken by the next split,
//! which costs what the split saves. So every [`EPOCH_CYCLES`] cycles the
//! SMs' phase is timed for [`TRIAL_CYCLES`] cycles on this thread alone and
//! as many on the pool, and the rest of the epoch runs the faster way. The
//! choice depends on the host's timing, but the results do not: they are
//! the same on any number of threads.

use crate::request::RequestPool;
use crate::sm::Sm;
use crate::sm::port::SmPort;

/// SMs a thread takes at once: fewer would cost more in hand-overs than the
/// balance gains.
#[cfg(not(target_arch = "wasm32"))]
const SMS_PER_TASK: usize = 4;

/// Cycles between trials of the two ways of running the SMs' phase.
#[cfg(not(target_arch = "wasm32"))]
const EPOCH_CYCLES: u32 = 4096;

/// Cycles each way is timed for in a trial.
#[cfg(not(target_arch = "wasm32"))]
const TRIAL_CYCLES: u32 = 32;

/// How the SMs' cycles are run: on this thread alone, or on a pool.
#[derive(Default)]
pub(crate) struct SmThreads {
    #[cfg(not(target_arch = "wasm32"))]
    pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    #[cfg(not(target_arch = "wasm32"))]
    choice: Choice,
}

/// Which way the SMs' phase runs in the current epoch, and the trial's times.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Default)]
struct Choice {
    /// Cycles into the epoch.
    cycle: u32,
    on_pool: bool,
    alone: std::time::Duration,
    pooled: std::time::Duration,
}

#[cfg(not(target_arch = "wasm32"))]
impl Choice {
    /// Whether this cycle's SMs' phase runs on the pool, and whether it is timed.
    fn next(&mut self) -> (bool, bool) {
        let phase = self.cycle;
        self.cycle = (self.cycle + 1) % EPOCH_CYCLES;
        match phase {
            p if p < TRIAL_CYCLES => (false, true),
            p if p < 2 * TRIAL_CYCLES => (true, true),
            _ => (self.on_pool, false),
        }
    }

    /// Adds a timed cycle; after the trial's last, picks the faster way.
    fn record(&mut self, on_pool: bool, took: std::time::Duration) {
        if on_pool {
            self.pooled += took;
        } else {
            self.alone += took;
        }
        if self.cycle == 2 * TRIAL_CYCLES {
            self.on_pool = self.pooled < self.alone;
            (self.alone, self.pooled) = Default::default();
        }
    }
}

impl SmThreads {
    /// Up to `threads` threads (0 and 1: this thread only). If no pool can be
    /// made, the SMs run on this thread; the results are the same.
    pub(crate) fn new(threads: u32) -> Self {
        #[cfg(not(target_arch = "wasm32"))]
        {
            Self { pool: (threads > 1).then(|| pool::shared(threads as usize)).flatten(), choice: Choice::default() }
        }
        #[cfg(target_arch = "wasm32")]
        {
            let _ = threads;
            Self {}
        }
    }

    /// Runs `tick` on every SM with its request pool and port.
    pub(crate) fn for_each_sm<F>(&mut self, sms: &mut [Sm], pools: &mut [RequestPool], ports: &mut [SmPort], tick: F)
    where
        F: Fn(&mut Sm, &mut RequestPool, &mut SmPort) + Sync,
    {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(pool) = &self.pool {
            let (on_pool, timed) = self.choice.next();
            let start = timed.then(std::time::Instant::now);
            if on_pool {
                use rayon::prelude::*;
                pool.install(|| {
                    sms.par_iter_mut()
                        .zip(pools.par_iter_mut())
                        .zip(ports.par_iter_mut())
                        .with_min_len(SMS_PER_TASK)
                        .for_each(|((sm, requests), port)| tick(sm, requests, port));
                });
            } else {
                tick_alone(sms, pools, ports, &tick);
            }
            if let Some(start) = start {
                self.choice.record(on_pool, start.elapsed());
            }
            return;
        }
        tick_alone(sms, pools, ports, &tick);
    }
}

/// Runs `tick` on every SM in turn, on this thread.
fn tick_alone<F>(sms: &mut [Sm], pools: &mut [RequestPool], ports: &mut [SmPort], tick: &F)
where
    F: Fn(&mut Sm, &mut RequestPool, &mut SmPort),
{
    for ((sm, requests), port) in sms.iter_mut().zip(pools).zip(ports) {
        tick(sm, requests, port);
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod pool {
    use std::cell::RefCell;
    use std::sync::Arc;

    use rayon::ThreadPool;

    thread_local! {
        /// The pool this thread joined, kept for its next run.
        static JOINED: RefCell<Option<Arc<ThreadPool>>> = const { RefCell::new(None) };
    }

    /// A pool of `threads` threads that this thread belongs to, or, if this
    /// thread already belongs to a pool of another size that a run still
    /// uses, one it hands its cycles to; `None` if no thread can be started.
    pub(super) fn shared(threads: usize) -> Option<Arc<ThreadPool>> {
        JOINED.with(|joined| {
            let mut joined = joined.borrow_mut();
            if let Some(pool) = joined.as_ref().filter(|pool| pool.current_num_threads() == threads) {
                return Some(Arc::clone(pool));
            }
            // This thread leaves its old pool once no run uses it.
            if joined.as_ref().is_some_and(|pool| Arc::strong_count(pool) == 1) {
                *joined = None;
            }
            if joined.is_none() {
                let built = rayon::ThreadPoolBuilder::new().num_threads(threads).use_current_thread().build();
                if let Ok(pool) = built {
                    *joined = Some(Arc::new(pool));
                    return joined.clone();
                }
            }
            rayon::ThreadPoolBuilder::new().num_threads(threads).build().ok().map(Arc::new)
        })
    }
}
