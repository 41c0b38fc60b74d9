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

use crate::request::RequestPool;
use crate::sm::Sm;
use crate::sm::port::SmPort;

/// SMs a thread takes at once: fewer would cost more in hand-overs than the
/// balance gains.
#[cfg(not(target_arch = "wasm32"))]
const SMS_PER_TASK: usize = 4;

/// How the SMs' cycles are run: on this thread alone, or on a pool.
#[derive(Default)]
pub(crate) struct SmThreads {
    #[cfg(not(target_arch = "wasm32"))]
    pool: Option<std::sync::Arc<rayon::ThreadPool>>,
}

impl SmThreads {
    /// Up to `threads` threads (0 and 1: this thread only). If no pool can be
    /// made, the SMs run on this thread; the results are the same.
    pub(crate) fn new(threads: u32) -> Self {
        #[cfg(not(target_arch = "wasm32"))]
        {
            Self { pool: (threads > 1).then(|| pool::shared(threads as usize)).flatten() }
        }
        #[cfg(target_arch = "wasm32")]
        {
            let _ = threads;
            Self {}
        }
    }

    /// Runs `tick` on every SM with its request pool and port.
    pub(crate) fn for_each_sm<F>(&self, sms: &mut [Sm], pools: &mut [RequestPool], ports: &mut [SmPort], tick: F)
    where
        F: Fn(&mut Sm, &mut RequestPool, &mut SmPort) + Sync,
    {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(pool) = &self.pool {
            use rayon::prelude::*;
            pool.install(|| {
                sms.par_iter_mut()
                    .zip(pools.par_iter_mut())
                    .zip(ports.par_iter_mut())
                    .with_min_len(SMS_PER_TASK)
                    .for_each(|((sm, requests), port)| tick(sm, requests, port));
            });
            return;
        }
        for ((sm, requests), port) in sms.iter_mut().zip(pools).zip(ports) {
            tick(sm, requests, port);
        }
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
