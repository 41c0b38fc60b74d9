//! The cycle-level, trace-driven GPU timing model.
//!
//! It models kernel and CTA scheduling (a central scheduler with a kernel
//! queue and per-SM resources, as SST-GPU splits it), instruction fetch
//! through the L1 instruction cache into two-entry instruction buffers, SM
//! sub-cores with their warp schedulers (LRR, GTO, oldest-first, warp
//! limiting), scoreboards and execution units, the LD/ST unit with the
//! sub-warp sectored coalescer, shared memory bank conflicts, the L1 data
//! cache with MSHRs and miss queue, request and reply crossbars, L2 slices
//! with their queues and MSHRs, and DRAM channels with banks, row buffers and
//! FR-FCFS scheduling, in the style of GPGPU-Sim 4.0 as the Accel-Sim paper
//! describes it. The result is a [`SimReport`].
//!
//! Central design decision: the whole GPU is one owned tree of plain structs in
//! flat vectors indexed by ids, advanced in one fixed, documented per-cycle
//! order with integer arithmetic only, so a run gives the same cycle count
//! natively and in WebAssembly. What it computes reads no clock: only the
//! threads' timing trials (`threads.rs`) look at one, to choose how a phase
//! runs, never what it gives. It knows nothing of the browser.
//!
//! ```
//! use warplab_sim::{SimOptions, simulate, source::{Command, WorkloadSource}};
//!
//! struct Nothing;
//! impl WorkloadSource for Nothing {
//!     fn next_command(&mut self) -> Option<Result<Command, String>> {
//!         None
//!     }
//! }
//! let config = warplab_config::preset("QV100").unwrap().config().unwrap();
//! let report = simulate(&config, SimOptions::default(), &mut Nothing);
//! assert_eq!(report.warp_insts, 0);
//! ```
#![deny(missing_docs)]

pub use warplab_uarch::bitset;
pub use warplab_uarch::dram;
pub mod events;
pub mod fifo;
mod gpu;
mod gpu_sampling;
pub mod interconnect;
pub mod memory_partition;
pub mod mshr;
pub mod network;
pub mod per_pc;
pub use warplab_uarch::ops;
pub mod report;
mod report_builder;
pub mod request;
pub mod sampling;
mod sm;
pub mod snapshot;
mod snapshot_builder;
pub use warplab_trace::source;
mod threads;
pub mod time;

pub use events::{Event, EventBatch, EventKind, EventWindow, Queue};
pub use gpu::Gpu;
pub use report::SimReport;
pub use snapshot::Snapshot;
#[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
pub use threads::enable_web_pool;
pub use time::Cycle;

use source::WorkloadSource;

/// Choices about a run that are not part of the GPU's configuration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SimOptions {
    /// Host-to-device copies fill the L2 (DESIGN §2a: off by default).
    pub memcpy_warms_l2: bool,
    /// Stop after this many core cycles (0: no limit); the report says so.
    pub max_cycles: u64,
    /// Tick every busy SM, L2 slice and DRAM channel every cycle, have the
    /// CTA scheduler visit every SM, and never jump the clock. The results
    /// are identical either way (a test checks it); only the speed differs.
    pub tick_every_cycle: bool,
    /// Sampled simulation (Photon): off by default.
    pub sampling: sampling::SamplingOptions,
    /// Threads the SMs' cycles run on (0 and 1: the calling thread only).
    /// The results are identical on any number (a test checks it); only the
    /// speed differs. WebAssembly runs on one but in the threaded build once
    /// the page's worker has started its pool (`enable_web_pool`).
    pub threads: u32,
    /// Count issues and sample stalls per PC (`per_pc.rs`); off by default,
    /// and then nothing is counted and the run is as it was.
    pub per_pc: bool,
}

/// How far a run got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Core cycles simulated.
    pub cycle: Cycle,
    /// Warp instructions issued so far.
    pub warp_insts: u64,
    /// Whether the workload has finished.
    pub finished: bool,
}

/// Where [`Simulation::run_until`] stops: at a core cycle, or once a number
/// of events have been recorded, whichever comes first (and always at the
/// end of the workload).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Until {
    /// Stop at this core cycle.
    pub cycle: Cycle,
    /// Stop at the end of the first core cycle after which this many more
    /// events have been recorded (kept or dropped).
    pub events: Option<u64>,
}

impl Until {
    /// Stop after `events` more events, or at `cycle` if they do not come.
    pub fn events(events: u64, cycle: Cycle) -> Self {
        Self { cycle, events: Some(events) }
    }
}

impl From<Cycle> for Until {
    fn from(cycle: Cycle) -> Self {
        Self { cycle, events: None }
    }
}

/// A run in progress: a GPU and the workload it is running, advanced in
/// slices by [`Simulation::run_until`], so a driver (the CLI's progress
/// display, the browser worker) can report, pause, step and cancel between
/// slices. Events are recorded for the window set with
/// [`Simulation::set_event_window`].
pub struct Simulation<'w> {
    gpu: Gpu,
    workload: Box<dyn WorkloadSource + 'w>,
}

impl<'w> Simulation<'w> {
    /// A run of `workload` on a GPU of `config`.
    pub fn new(config: &warplab_config::GpuConfig, options: SimOptions, workload: impl WorkloadSource + 'w) -> Self {
        Self { gpu: Gpu::new(config, options), workload: Box::new(workload) }
    }

    /// Simulates until `until` (a [`Cycle`], or [`Until::events`]) or the end
    /// of the workload, whichever comes first.
    pub fn run_until(&mut self, until: impl Into<Until>) -> Progress {
        let until = until.into();
        let limit = self.gpu.options.max_cycles;
        let end = if limit == 0 { until.cycle.0 } else { until.cycle.0.min(limit) };
        let wanted = until.events.map(|n| self.gpu.log.recorded().saturating_add(n));
        while !self.gpu.finished() && self.gpu.cycle().0 < end {
            if !self.gpu.step(self.workload.as_mut()) || self.gpu.finished() {
                continue;
            }
            self.gpu.check_liveness(self.gpu.cycle().0);
            if self.gpu.finished() {
                break;
            }
            if wanted.is_some_and(|n| self.gpu.log.recorded() >= n) {
                break;
            }
            // While recording, every cycle is visited so no change is skipped.
            if self.gpu.options.tick_every_cycle || self.gpu.log.on {
                continue;
            }
            let now = self.gpu.cycle().0;
            match self.gpu.quiet_until(now) {
                Some(u64::MAX) => {
                    self.gpu.deadlocked(now, "every warp waits for an event that cannot come (deadlock)");
                    break;
                }
                Some(next) => self.gpu.skip_to(next.min(end).min(self.gpu.log.jump_limit(now))),
                None => {}
            }
        }
        self.gpu.settle();
        self.progress()
    }

    /// Where the run is.
    pub fn progress(&self) -> Progress {
        let warp_insts = self.gpu.warp_insts();
        let limit = self.gpu.options.max_cycles;
        let stopped = limit != 0 && self.gpu.cycle().0 >= limit;
        Progress { cycle: self.gpu.cycle(), warp_insts, finished: self.gpu.finished() || stopped }
    }

    /// The report of what has run so far.
    pub fn report(&self) -> SimReport {
        self.gpu.report()
    }

    /// The per-PC figures so far (`per_pc.rs`), if the run counts them.
    pub fn per_pc(&self) -> Option<Vec<per_pc::PcStalls>> {
        self.gpu.per_pc()
    }

    /// The whole GPU now: warp states, resident CTAs, MSHRs and queues.
    pub fn snapshot(&self) -> Snapshot {
        self.gpu.snapshot()
    }

    /// Records events in `window` from now on (`None`: stop recording). Events
    /// held so far stay until taken.
    pub fn set_event_window(&mut self, window: Option<EventWindow>) {
        self.gpu.log.set_window(window);
    }

    /// The events recorded since the last call.
    pub fn take_events(&mut self) -> EventBatch {
        self.gpu.log.take()
    }
}

/// Runs `workload` to its end on a GPU of `config`.
pub fn simulate(
    config: &warplab_config::GpuConfig,
    options: SimOptions,
    workload: &mut dyn WorkloadSource,
) -> SimReport {
    let mut simulation = Simulation::new(config, options, workload);
    simulation.run_until(Cycle(u64::MAX));
    simulation.report()
}
