//! Running the SMs' cycles on several threads.
//!
//! Each core cycle has two phases ([`crate::gpu`]): every SM runs its cycle
//! from what the last cycle left (it reads the crossbars and writes only its
//! own state, request pool, port and wake, [`crate::sm::port`]), then the GPU
//! applies the SMs' ports in SM order. Only the first phase is split across
//! threads, so the result does not depend on how many there are. The L2 and
//! DRAM edges of the same instant, after the DRAM edges between the last
//! core edge and this one (`Gpu::defers_dram`), may run on one of the
//! threads meanwhile (`Gpu::memory_may_run_beside`); the SMs are then cut
//! into shares that whichever thread is free takes ([`Shares`]).
//!
//! Natively the threads are a rayon pool that the simulating thread joins
//! (`use_current_thread`): the per-cycle split (a parallel iterator over the
//! SMs, or a scope whose shares the threads take while one runs the memory
//! side) is then shared among workers that are already running, where
//! handing each cycle to a pool from outside it would put the simulating
//! thread to sleep and wake it again every cycle; between phases a worker
//! spins for the next (`pool`). A thread can belong to one such pool, so each
//! thread keeps the last pool it built and reuses it for its next run of that
//! size.
//!
//! In WebAssembly there are threads only in the threaded build (atomics and
//! shared memory, a nightly standard library; ARCHITECTURE.md): there rayon's
//! global pool runs on Web Workers that the page's worker started
//! (`enable_web_pool`), and the simulating thread, which holds the
//! workload's JavaScript objects and cannot move into the pool, runs one
//! share of each phase itself while the workers run the others. The
//! single-thread build runs the SMs on one thread.
//!
//! Splitting pays only when the SMs' phase is long enough to cover the
//! hand-over: on a memory-bound run the pool's idle thread falls asleep
//! during the memory side's serial phase and is woken by the next split,
//! which costs what the split saves. So every [`EPOCH_CYCLES`] cycles the
//! SMs' phase, with the L2 and DRAM edges before it, is run for
//! [`TRIAL_CYCLES`] cycles on this thread alone and as many on the pool,
//! each way timed after its first [`WARM_UP_CYCLES`], and the rest of the
//! epoch runs the faster way. The
//! choice depends on the host's timing, but the results do not: they are
//! the same on any number of threads.

use crate::request::RequestPool;
use crate::sm::Sm;
use crate::sm::port::{SmPort, SmWake};

/// SMs a thread takes at once: fewer would cost more in hand-overs than the
/// balance gains.
#[cfg(not(target_arch = "wasm32"))]
const SMS_PER_TASK: usize = 4;

/// Cycles between trials of the two ways of running the SMs' phase.
const EPOCH_CYCLES: u32 = 4096;

/// Cycles each way is timed for in a trial.
const TRIAL_CYCLES: u32 = 32;

/// Cycles at the start of each way of a trial that are run but not timed.
/// The pool's threads fall asleep while the SMs run on this thread (the
/// trial's first way, and an epoch on one thread before it), and the first
/// pooled phase waits for one to wake, some tens of microseconds: timed, it
/// made the pool look slower than it runs.
const WARM_UP_CYCLES: u32 = 2;

/// How the SMs' cycles are run: on this thread alone, or on a pool.
#[derive(Default)]
pub(crate) struct SmThreads {
    pool: Option<pool::Pool>,
    choice: Choice,
}

/// Which way the SMs' phase runs in the current epoch, and the trial's
/// times in seconds.
#[derive(Default)]
struct Choice {
    /// Cycles into the epoch.
    cycle: u32,
    on_pool: bool,
    alone: f64,
    pooled: f64,
}

impl Choice {
    /// Whether this cycle's SMs' phase runs on the pool, and whether it is timed.
    fn next(&mut self) -> (bool, bool) {
        let phase = self.cycle;
        self.cycle = (self.cycle + 1) % EPOCH_CYCLES;
        match phase {
            p if p < TRIAL_CYCLES => (false, p >= WARM_UP_CYCLES),
            p if p < 2 * TRIAL_CYCLES => (true, p - TRIAL_CYCLES >= WARM_UP_CYCLES),
            _ => (self.on_pool, false),
        }
    }

    /// Adds a timed cycle; after the trial's last, picks the faster way.
    fn record(&mut self, on_pool: bool, took: f64) {
        if on_pool {
            self.pooled += took;
        } else {
            self.alone += took;
        }
        if self.cycle == 2 * TRIAL_CYCLES {
            self.on_pool = self.pooled < self.alone;
            (self.alone, self.pooled) = (0.0, 0.0);
        }
    }
}

/// How one core cycle's SMs' phase runs: on the pool or not, and the
/// start of its timing if it is a trial's.
pub(crate) struct Phase {
    on_pool: bool,
    start: Option<f64>,
}

impl Phase {
    /// Whether the SMs run on the pool this cycle.
    pub(crate) fn on_pool(&self) -> bool {
        self.on_pool
    }
}

impl SmThreads {
    /// Up to `threads` threads (0 and 1: this thread only). If no pool can be
    /// made, the SMs run on this thread; the results are the same.
    pub(crate) fn new(threads: u32) -> Self {
        Self { pool: (threads > 1).then(|| pool::Pool::new(threads as usize)).flatten(), choice: Choice::default() }
    }

    /// Whether the SMs may run on several threads.
    pub(crate) fn has_pool(&self) -> bool {
        self.pool.is_some()
    }

    /// Begins a core cycle's timed part: the L2 and DRAM edges of its instant
    /// and the SMs' phase, which run together on the pool ([`Self::for_each_sm`]).
    pub(crate) fn begin(&mut self) -> Phase {
        if self.pool.is_none() {
            return Phase { on_pool: false, start: None };
        }
        let (on_pool, timed) = self.choice.next();
        Phase { on_pool, start: timed.then(pool::now_s) }
    }

    /// Ends what [`Self::begin`] began, timing it if it was a trial's.
    pub(crate) fn end(&mut self, phase: Phase) {
        if let Some(start) = phase.start {
            self.choice.record(phase.on_pool, pool::now_s() - start);
        }
    }

    /// Runs `tick` on every SM of `all` with its request pool, port and
    /// wake, on the pool if `phase` says so, and `beside` (on the pool only)
    /// while they run.
    pub(crate) fn for_each_sm<F, B>(&self, phase: &Phase, all: Share<'_>, tick: F, beside: Option<B>)
    where
        F: SmTick,
        B: FnOnce() + Send,
    {
        match &self.pool {
            Some(pool) if phase.on_pool => pool.run(all, &tick, beside),
            _ => {
                if let Some(beside) = beside {
                    beside();
                }
                tick_alone(all, &tick);
            }
        }
    }
}

/// Runs `tick` on every SM of `share` that is due, in turn, on this thread.
/// The wakes are read first, from their own flat array: most SMs of a
/// memory-bound run are not due in most cycles, and passing one over then
/// touches nothing else of it.
fn tick_alone<F: SmTick>((sms, pools, ports, wakes): Share<'_>, tick: &F) {
    for (s, wake) in wakes.iter_mut().enumerate() {
        if tick.is_due(wake) {
            tick.tick(&mut sms[s], &mut pools[s], &mut ports[s], wake);
        }
    }
}

/// What runs one SM's cycle.
pub(crate) trait SmTick: Sync {
    /// Whether the SM whose wake is `wake` has anything to do this cycle.
    fn is_due(&self, wake: &SmWake) -> bool;

    /// The cycle of a due SM: its state, request pool, port and wake.
    fn tick(&self, sm: &mut Sm, requests: &mut RequestPool, port: &mut SmPort, wake: &mut SmWake);
}

/// Runs `tick` on every SM of `share`, split across rayon's current pool in
/// tasks of [`SMS_PER_TASK`] SMs.
#[cfg(not(target_arch = "wasm32"))]
fn tick_split<F: SmTick>((sms, pools, ports, wakes): Share<'_>, tick: &F) {
    use rayon::prelude::*;
    sms.par_iter_mut()
        .zip(pools.par_iter_mut())
        .zip(ports.par_iter_mut())
        .zip(wakes.par_iter_mut())
        .with_min_len(SMS_PER_TASK)
        .for_each(|(((sm, requests), port), wake)| {
            if tick.is_due(wake) {
                tick.tick(sm, requests, port, wake);
            }
        });
}

/// One share of the SMs: their states, request pools, ports and wakes.
pub(crate) type Share<'a> = (&'a mut [Sm], &'a mut [RequestPool], &'a mut [SmPort], &'a mut [SmWake]);

/// `share` cut into pieces of `size` SMs.
#[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
fn chunks<'a>((sms, pools, ports, wakes): Share<'a>, size: usize) -> impl Iterator<Item = Share<'a>> {
    sms.chunks_mut(size)
        .zip(pools.chunks_mut(size))
        .zip(ports.chunks_mut(size))
        .zip(wakes.chunks_mut(size))
        .map(|(((sms, pools), ports), wakes)| (sms, pools, ports, wakes))
}

#[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
pub use pool::enable_web_pool;

/// Most shares a phase run beside the memory side is cut into.
#[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
const MAX_SHARES: usize = 16;

/// The SMs of a phase that runs beside the memory side, cut into shares
/// that whichever thread is free takes, the thread that runs the memory side
/// from the last share down once it is done, the others from the first up.
/// How long the memory side takes against the SMs differs from run to run
/// and cycle to cycle (none on `maxflops`, most of the cycle on `strided`),
/// so a fixed split would leave one thread waiting for the other; each share
/// is taken once, under its own lock, which no other thread holds but for
/// the moment it looks.
#[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
struct Shares<'a> {
    shares: [std::sync::Mutex<Option<Share<'a>>>; MAX_SHARES],
    /// Shares the SMs were cut into, at the front of `shares`.
    cut: usize,
}

#[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
impl<'a> Shares<'a> {
    /// The SMs in about `wanted` shares of at least [`SMS_PER_SHARE`] SMs.
    fn cut(share: Share<'a>, wanted: usize) -> Self {
        let n = share.0.len();
        let size = n.div_ceil(wanted.clamp(1, MAX_SHARES)).max(SMS_PER_SHARE);
        let cut = n.div_ceil(size).min(MAX_SHARES);
        let mut pieces = chunks(share, size);
        let shares = std::array::from_fn(|_| std::sync::Mutex::new(pieces.next()));
        Self { shares, cut }
    }

    /// Runs `tick` on every SM of the shares no thread has taken yet, from
    /// the last share down or from the first up.
    fn work<F: SmTick>(&self, tick: &F, from_last: bool) {
        for k in 0..self.cut {
            let k = if from_last { self.cut - 1 - k } else { k };
            let taken = self.shares[k].lock().map(|mut share| share.take()).unwrap_or(None);
            if let Some(share) = taken {
                tick_alone(share, tick);
            }
        }
    }
}

/// Fewest SMs in a share of [`Shares`]: fewer would cost more in taking
/// shares than the balance gains.
#[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
const SMS_PER_SHARE: usize = 4;

/// The longest a pool's thread spins, in seconds: a worker for the next SMs'
/// phase before it goes back to rayon's idle loop, and in WebAssembly the
/// simulating thread for the workers' shares before it falls back to the
/// scope's blocking wait. Longer than the serial part of a busy cycle (about
/// 26 µs on QV100 `vecadd` natively), short enough that a run which stops
/// splitting (an epoch on one thread, a clock jump) or shares the cores with
/// another keeps a core busy for little. 200 µs measured no faster, and a
/// spin that yielded the core between checks slower.
#[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
const SPIN_LIMIT_S: f64 = 50e-6;

/// Busy-waits until `done` holds, or for [`SPIN_LIMIT_S`] on the pool's clock.
#[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
fn spin_until(done: impl Fn() -> bool) {
    let start = pool::now_s();
    loop {
        for _ in 0..64 {
            if done() {
                return;
            }
            std::hint::spin_loop();
        }
        if pool::now_s() - start >= SPIN_LIMIT_S {
            return;
        }
    }
}

/// The native pool: one the simulating thread belongs to.
///
/// Between two cycles' SMs' phases the simulating thread runs the rest of the
/// GPU alone, for some tens of microseconds. A worker left idle then waits
/// in rayon's idle loop (`sched_yield`), and noticing the next cycle's share
/// cost it more than the share saved: on QV100 `vecadd` a cycle's SMs' phase
/// took a median 60 µs on two threads against 46 µs on one
/// (docs/performance.md). So after each pooled phase a spinning job keeps
/// one worker busy-waiting, for at most [`SPIN_LIMIT_S`], for the next phase
/// to begin; the next phase releases it as soon as its second half is
/// queued, and it takes that half at once. The spinner reads nothing of the
/// simulation: the results do not depend on it.
#[cfg(not(target_arch = "wasm32"))]
mod pool {
    use std::cell::RefCell;
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
    use std::sync::{Arc, OnceLock};
    use std::time::Instant;

    use rayon::ThreadPool;

    use super::{Share, Shares, SmTick, spin_until, tick_alone, tick_split};

    thread_local! {
        /// The pool this thread joined, kept for its next run.
        static JOINED: RefCell<Option<Arc<ThreadPool>>> = const { RefCell::new(None) };
    }

    /// A rayon pool of the SMs' phase.
    pub(super) struct Pool {
        pool: Arc<ThreadPool>,
        /// Phases run so far, which a spinning worker watches.
        phases: Arc<AtomicU64>,
    }

    impl Pool {
        /// A pool of `threads` threads that this thread belongs to, or, if
        /// this thread already belongs to a pool of another size that a run
        /// still uses, one it hands its cycles to; `None` if no thread can
        /// be started.
        pub(super) fn new(threads: usize) -> Option<Pool> {
            JOINED.with(|joined| {
                let mut joined = joined.borrow_mut();
                if let Some(pool) = joined.as_ref().filter(|pool| pool.current_num_threads() == threads) {
                    return Some(Pool::of(Arc::clone(pool)));
                }
                // This thread leaves its old pool once no run uses it.
                if joined.as_ref().is_some_and(|pool| Arc::strong_count(pool) == 1) {
                    *joined = None;
                }
                if joined.is_none() {
                    let built = rayon::ThreadPoolBuilder::new().num_threads(threads).use_current_thread().build();
                    if let Ok(pool) = built {
                        *joined = Some(Arc::new(pool));
                        return joined.clone().map(Pool::of);
                    }
                }
                rayon::ThreadPoolBuilder::new().num_threads(threads).build().ok().map(|pool| Pool::of(Arc::new(pool)))
            })
        }

        /// `pool` with a phase count of its own for this run's spinners.
        fn of(pool: Arc<ThreadPool>) -> Pool {
            Pool { pool, phases: Arc::new(AtomicU64::new(0)) }
        }

        /// Runs `tick` on every SM on this pool, and `beside` if given, then
        /// leaves a worker spinning for the next phase.
        pub(super) fn run<F: SmTick, B: FnOnce() + Send>(&self, share: Share<'_>, tick: &F, beside: Option<B>) {
            match beside {
                Some(beside) => self.run_beside(share, tick, beside),
                None => self.run_halves(share, tick),
            }
            let phases = Arc::clone(&self.phases);
            let seen = phases.load(Ordering::Acquire);
            self.pool.spawn(move || spin_until(|| phases.load(Ordering::Acquire) != seen));
        }

        /// `beside` here while the pool's other threads take the SMs'
        /// shares (the spinning one released as soon as they are cut), then
        /// the shares they have not taken yet ([`Shares`]).
        fn run_beside<F: SmTick, B: FnOnce() + Send>(&self, share: Share<'_>, tick: &F, beside: B) {
            let threads = self.pool.current_num_threads();
            let shares = Shares::cut(share, 4 * threads);
            let (started, finished) = (AtomicUsize::new(0), AtomicUsize::new(0));
            self.pool.install(|| {
                rayon::in_place_scope(|scope| {
                    for _ in 1..threads {
                        scope.spawn(|_| {
                            started.fetch_add(1, Ordering::Relaxed);
                            shares.work(tick, false);
                            finished.fetch_add(1, Ordering::Release);
                        });
                    }
                    self.phases.fetch_add(1, Ordering::Release);
                    beside();
                    shares.work(tick, true);
                    // Spin while a worker finishes its last share: waiting on
                    // the scope's latch put this thread to sleep in rayon's
                    // idle loop, and woke it late. A job no worker started
                    // is left to the latch, which runs it here.
                    let started = started.load(Ordering::Relaxed);
                    spin_until(|| finished.load(Ordering::Acquire) == started);
                })
            });
        }

        /// The SMs' first half here, the second on whichever worker takes it
        /// (the spinning one, released once that half is queued), each half
        /// split further on a larger pool.
        fn run_halves<F: SmTick>(&self, all: Share<'_>, tick: &F) {
            let half = all.0.len().div_ceil(2).max(1);
            let mut halves = super::chunks(all, half);
            let (Some(first), second) = (halves.next(), halves.next()) else { return };
            let run = |share: Share<'_>| {
                if self.pool.current_num_threads() > 2 {
                    tick_split(share, tick);
                } else {
                    tick_alone(share, tick);
                }
            };
            self.pool.install(|| {
                rayon::join(
                    || {
                        self.phases.fetch_add(1, Ordering::Release);
                        run(first);
                    },
                    || second.map(run),
                )
            });
        }
    }

    /// Seconds on the host's monotonic clock.
    pub(super) fn now_s() -> f64 {
        static ORIGIN: OnceLock<Instant> = OnceLock::new();
        ORIGIN.get_or_init(Instant::now).elapsed().as_secs_f64()
    }
}

/// The threaded WebAssembly build's pool: rayon's global one, on Web
/// Workers, once the page's worker has started it.
///
/// The simulating thread holds the workload's JavaScript objects (a trace is
/// read from a `Blob` a slice at a time), so it cannot run inside the pool
/// the way the native simulating thread does. Handing each phase to the
/// pool from outside put it to sleep and woke it again every cycle
/// (`Atomics.wait` both ways), which cost what the split saved: the page's
/// `vecadd` ran ×1.03 faster on two threads (docs/performance.md). So the
/// simulating thread runs the first share of the SMs itself, in a scope whose
/// other shares the pool's workers take, and waits for them by spinning on a
/// count of finished shares, not by sleeping; after a pooled phase each worker
/// is left spinning for the next, as natively (a pool of the host's cores
/// less one, `warplab_web::threads`).
#[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
mod pool {
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
    use std::sync::{Arc, OnceLock};

    use super::{Share, Shares, SmTick, spin_until, tick_alone};

    /// The host's clock in milliseconds (`performance.now`), given with the pool.
    static CLOCK_MS: OnceLock<fn() -> f64> = OnceLock::new();

    /// Says that rayon's global pool is running (wasm-bindgen-rayon's
    /// `initThreadPool` has resolved) and how to read the host's clock.
    /// Until then every run keeps its SMs on the simulating thread: touching
    /// rayon before the pool exists would make it try to start threads the
    /// way it does natively, which WebAssembly cannot.
    pub fn enable_web_pool(clock_ms: fn() -> f64) {
        let _ = CLOCK_MS.set(clock_ms);
    }

    /// Rayon's global pool and the simulating thread, sharing each phase.
    pub(super) struct Pool {
        /// The pool's workers (the simulating thread is not one).
        workers: usize,
        /// Phases run so far, which a spinning worker watches.
        phases: Arc<AtomicU64>,
    }

    impl Pool {
        /// The global pool if it runs.
        pub(super) fn new(_threads: usize) -> Option<Pool> {
            CLOCK_MS.get()?;
            Some(Pool { workers: rayon::current_num_threads(), phases: Arc::new(AtomicU64::new(0)) })
        }

        /// Runs `tick` on every SM, and `beside` if given, then leaves every
        /// worker spinning for the next phase.
        pub(super) fn run<F: SmTick, B: FnOnce() + Send>(&self, share: Share<'_>, tick: &F, beside: Option<B>) {
            match beside {
                Some(beside) => self.run_beside(share, tick, beside),
                None => self.run_shares(share, tick),
            }
            for _ in 0..self.workers {
                let phases = Arc::clone(&self.phases);
                let seen = phases.load(Ordering::Acquire);
                rayon::spawn(move || spin_until(|| phases.load(Ordering::Acquire) != seen));
            }
        }

        /// `beside` here while the workers take the SMs' shares (queued
        /// before the phase count moves on, which releases the spinning
        /// workers), then the shares they have not taken yet ([`Shares`]).
        fn run_beside<F: SmTick, B: FnOnce() + Send>(&self, share: Share<'_>, tick: &F, beside: B) {
            let shares = Shares::cut(share, 4 * (self.workers + 1));
            let finished = AtomicUsize::new(0);
            rayon::in_place_scope(|scope| {
                for _ in 0..self.workers {
                    let (shares, finished) = (&shares, &finished);
                    scope.spawn(move |_| {
                        shares.work(tick, false);
                        finished.fetch_add(1, Ordering::Release);
                    });
                }
                self.phases.fetch_add(1, Ordering::Release);
                beside();
                shares.work(tick, true);
                spin_until(|| finished.load(Ordering::Acquire) == self.workers);
            });
        }

        /// The SMs cut into one share per thread, the first run here, the
        /// others queued on the pool before the phase count moves on.
        fn run_shares<F: SmTick>(&self, all: Share<'_>, tick: &F) {
            let size = all.0.len().div_ceil(self.workers + 1).max(1);
            let mut shares = super::chunks(all, size);
            let Some(own) = shares.next() else { return };
            let finished = AtomicUsize::new(0);
            rayon::in_place_scope(|scope| {
                let mut queued = 0;
                for share in shares {
                    let finished = &finished;
                    scope.spawn(move |_| {
                        tick_alone(share, tick);
                        finished.fetch_add(1, Ordering::Release);
                    });
                    queued += 1;
                }
                self.phases.fetch_add(1, Ordering::Release);
                tick_alone(own, tick);
                spin_until(|| finished.load(Ordering::Acquire) == queued);
            });
        }
    }

    /// Seconds on the host's clock.
    pub(super) fn now_s() -> f64 {
        CLOCK_MS.get().map_or(0.0, |clock| clock() / 1000.0)
    }
}

/// The single-thread WebAssembly build: no pool.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
mod pool {
    use super::{Share, SmTick};

    /// Never made: there are no threads.
    pub(super) enum Pool {}

    impl Pool {
        pub(super) fn new(_threads: usize) -> Option<Pool> {
            None
        }

        pub(super) fn run<F: SmTick, B>(&self, _: Share<'_>, _: &F, _: Option<B>) {
            match *self {}
        }
    }

    pub(super) fn now_s() -> f64 {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs one trial through `choice`, a cycle taking `took(on_pool, n)`
    /// seconds, `n` counting the cycles of its way.
    fn trial(choice: &mut Choice, took: impl Fn(bool, u32) -> f64) {
        for _ in 0..2 * TRIAL_CYCLES {
            let n = choice.cycle % TRIAL_CYCLES;
            let (on_pool, timed) = choice.next();
            if timed {
                choice.record(on_pool, took(on_pool, n));
            }
        }
    }

    #[test]
    fn the_pools_wake_from_sleep_does_not_count_against_it() {
        let mut choice = Choice::default();
        // The first pooled phase waits 60 µs for a sleeping thread; after
        // it, a pooled phase takes half the time of one alone.
        trial(&mut choice, |on_pool, n| match (on_pool, n) {
            (true, 0) => 60e-6,
            (true, _) => 1e-6,
            (false, _) => 2e-6,
        });
        assert!(choice.on_pool);
    }

    #[test]
    fn the_faster_way_runs_the_rest_of_the_epoch_untimed() {
        for pool_is_faster in [false, true] {
            let mut choice = Choice::default();
            let (fast, slow) = (1e-6, 2e-6);
            trial(&mut choice, |on_pool, _| if on_pool == pool_is_faster { fast } else { slow });
            for _ in 2 * TRIAL_CYCLES..EPOCH_CYCLES {
                assert_eq!(choice.next(), (pool_is_faster, false));
            }
            assert_eq!(choice.cycle, 0, "the next trial starts");
        }
    }
}
