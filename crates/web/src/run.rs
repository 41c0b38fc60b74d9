//! A simulation running in the worker: advanced in slices between which the
//! worker reads the page's messages, so pause, step, seek, speed and cancel
//! take effect at the next slice boundary.
//!
//! Two ways of playing. At full speed a slice is sized to take about
//! [`SLICE_BUDGET_MS`] of the worker's time and nothing is recorded, so the
//! run goes as fast as the batch path. At a chosen speed (cycles per second)
//! each frame advances that many cycles per second of wall time and records
//! the events of the watched SM, which the page lists; steps always record.

use std::time::Duration;

use warplab_lab::follow::loads::{SharedLoadBook, booked};
use warplab_lab::{
    Cycle, Event, EventKind, EventWindow, GpuConfig, Queue, SimOptions, Simulation, Until, WorkloadSource,
};

use crate::agent::{RunControl, RunStatus, RunUpdate, WorkerOutput};
use crate::run_follow::{FOLLOW_CHUNK_CYCLES, FollowRun};

/// Worker time one full-speed slice aims to take: short enough that a
/// message waits at most this long, long enough that yielding costs little.
const SLICE_BUDGET_MS: f64 = 30.0;

/// The least time between two updates of a run at full speed. Each update
/// costs the page's thread a frame (about 18 ms of script, layout and
/// compositing in headless Chromium on the 2-core machine, measured), which
/// at one per slice kept a core half busy and left none to the threaded
/// build's pool (docs/performance.md); ten a second still animate.
const FULL_SPEED_UPDATE_MS: f64 = 100.0;

/// The same for a run on several threads. The threaded build's pool takes
/// every core (`threads.rs`), so each frame the page draws is taken from
/// the run's threads, and with one thread held up the others wait for it at
/// the end of every cycle's phase. Ten frames a second took the page's
/// thread about 2.5 s of a 9-s `vecadd:size=4096` run; four a second ran
/// that run about an eighth faster in the isolated page
/// (docs/performance.md) and still show it move.
const FULL_SPEED_UPDATE_MS_ON_THREADS: f64 = 250.0;

/// The fewest cycles in a full-speed slice, and the first slice's. A run's
/// first cycles are its slowest in the browser (its code is compiled as it
/// is first called and optimised later): the default page's first slice of
/// 2,000 cycles took a second, during which a click waited, where its first
/// 100 take about a third of one. The next slices grow from it, at most
/// doubling each time ([`WorkerRun::adapt_slice`]).
const MIN_SLICE_CYCLES: u64 = 100;

/// Time between frames when playing at a chosen speed.
const FRAME: Duration = Duration::from_millis(50);

/// Events sent with each update, the newest; the page lists them.
pub const RECENT_EVENTS: usize = 200;

/// Events held between two updates; more are counted as dropped.
const HELD_EVENTS: usize = 20_000;

/// A step by events stops after this many cycles if the watched SM does
/// nothing (e.g. it has finished).
const EVENT_STEP_LIMIT: u64 = 100_000;

/// The simulation and how it is being played.
pub struct WorkerRun {
    simulation: Simulation<'static>,
    /// Warp instructions the whole workload has (the progress bar's 100%).
    total_warp_insts: u64,
    playing: bool,
    /// Cycles per second of wall time; 0: as fast as possible.
    speed: u64,
    /// The SM whose events are recorded.
    watch: u32,
    /// A seek's target: play at full speed to it, then pause.
    seek_to: Option<u64>,
    /// Full speed: cycles per slice, adapted to [`SLICE_BUDGET_MS`].
    slice_cycles: u64,
    /// The SM whose events the simulation records, if any.
    recording: Option<u32>,
    dropped_events: u64,
    /// The watched SM's events taken from the simulation since the last
    /// update, newest last, at most [`RECENT_EVENTS`].
    pending_events: Vec<Event>,
    /// The GPU, for a follow's address map.
    config: GpuConfig,
    /// The request followed last.
    follow: Option<FollowRun>,
    /// The global loads of the CTAs the run took, for following a chosen one.
    loads: SharedLoadBook,
    /// When the last full-speed slice sent an update, on the worker's clock.
    updated_ms: f64,
    /// The least time between two full-speed updates.
    update_every_ms: f64,
}

impl WorkerRun {
    /// A run of `workload` on `config`, playing at `speed` and watching SM `watch`.
    pub fn new(
        config: &GpuConfig,
        options: SimOptions,
        workload: Box<dyn WorkloadSource>,
        total_warp_insts: u64,
        speed: u64,
        watch: u32,
    ) -> Self {
        let loads = SharedLoadBook::default();
        let update_every_ms = if options.threads > 1 { FULL_SPEED_UPDATE_MS_ON_THREADS } else { FULL_SPEED_UPDATE_MS };
        let workload = booked(workload, SharedLoadBook::clone(&loads), config.cores.warp_size);
        let mut run = Self {
            simulation: Simulation::new(config, options, workload),
            total_warp_insts,
            playing: true,
            speed,
            watch,
            seek_to: None,
            slice_cycles: MIN_SLICE_CYCLES,
            recording: None,
            dropped_events: 0,
            pending_events: Vec::new(),
            config: config.clone(),
            follow: None,
            loads,
            updated_ms: f64::NEG_INFINITY,
            update_every_ms,
        };
        run.sync_recording();
        run
    }

    /// Whether the run wants slices (it is playing and not finished).
    pub fn playing(&self) -> bool {
        self.playing && !self.simulation.progress().finished
    }

    /// How long the worker waits for messages before the next slice.
    pub fn frame_delay(&self) -> Duration {
        if self.full_speed() { Duration::ZERO } else { FRAME }
    }

    fn full_speed(&self) -> bool {
        self.speed == 0 || self.seek_to.is_some() || self.following()
    }

    fn following(&self) -> bool {
        self.follow.as_ref().is_some_and(FollowRun::active)
    }

    /// Records the watched SM's events exactly while the run is paused (for
    /// steps), plays at a chosen speed or follows a request; at full speed or
    /// seeking, nothing.
    /// The window is set only when that changes, since setting it restarts
    /// the comparison of warp states (every warp would be reported again).
    fn sync_recording(&mut self) {
        let wanted = (!self.playing || self.following() || !self.full_speed()).then_some(self.watch);
        if wanted != self.recording {
            self.recording = wanted;
            let window = wanted.map(|sm| EventWindow { cycles: 0..u64::MAX, sms: sm..sm + 1, max_events: HELD_EVENTS });
            self.simulation.set_event_window(window);
        }
    }

    /// Runs one slice and reports it.
    pub fn advance(&mut self, now_ms: impl Fn() -> f64) -> Vec<WorkerOutput> {
        let cycle = self.simulation.progress().cycle.0;
        if self.following() {
            self.follow_slice(now_ms);
        } else if self.full_speed() {
            let target = self.seek_to.map_or(u64::MAX, |t| t.max(cycle + 1)).min(cycle + self.slice_cycles);
            let started = now_ms();
            self.simulation.run_until(Cycle(target));
            let ended = now_ms();
            self.adapt_slice(ended - started);
            if self.seek_to.is_some_and(|t| self.simulation.progress().cycle.0 >= t) {
                self.seek_to = None;
                self.playing = false;
                self.sync_recording();
            }
            if self.playing() && ended - self.updated_ms < self.update_every_ms {
                return Vec::new();
            }
            self.updated_ms = ended;
        } else {
            let per_frame = (self.speed * FRAME.as_millis() as u64 / 1000).max(1);
            self.simulation.run_until(Cycle(cycle + per_frame));
        }
        self.outputs()
    }

    /// Plays a followed request's way in short chunks for about the slice
    /// budget, reading each chunk's events; pauses once the follow ends.
    fn follow_slice(&mut self, now_ms: impl Fn() -> f64) {
        let started = now_ms();
        while self.following() && !self.simulation.progress().finished && now_ms() - started < SLICE_BUDGET_MS {
            self.simulation.run_until(Cycle(self.cycle() + FOLLOW_CHUNK_CYCLES));
            self.collect_events();
        }
        if self.simulation.progress().finished
            && let Some(follow) = &mut self.follow
        {
            follow.stop();
        }
        if !self.following() {
            self.playing = false;
            self.sync_recording();
        }
    }

    /// Scales the next full-speed slice so it takes about the budget.
    fn adapt_slice(&mut self, took_ms: f64) {
        let factor = if took_ms > 0.0 { (SLICE_BUDGET_MS / took_ms).clamp(0.5, 2.0) } else { 2.0 };
        self.slice_cycles = ((self.slice_cycles as f64 * factor) as u64).clamp(MIN_SLICE_CYCLES, 10_000_000);
    }

    /// Applies a control message and reports where the run is.
    pub fn control(&mut self, control: RunControl) -> Vec<WorkerOutput> {
        match control {
            RunControl::Pause => self.playing = false,
            RunControl::Resume => self.playing = true,
            RunControl::StepCycle => self.step(Until::from(Cycle(self.cycle() + 1))),
            RunControl::StepEvent => self.step(Until::events(1, Cycle(self.cycle() + EVENT_STEP_LIMIT))),
            RunControl::Seek(cycle) => {
                self.seek_to = Some(cycle);
                self.playing = true;
                self.follow = None;
            }
            RunControl::Speed(speed) => self.speed = speed,
            RunControl::Watch(sm) => {
                self.watch = sm;
                self.follow = None;
            }
            RunControl::Follow(pc) => {
                self.follow = Some(FollowRun::new(&self.config, self.watch, self.cycle(), pc, &self.loads));
                self.seek_to = None;
                self.playing = true;
            }
            // The worker drops the run itself and acknowledges the cancel
            // (`agent.rs`), so a cancel never reaches here.
            RunControl::Cancel => return Vec::new(),
        }
        self.sync_recording();
        // A seek and a new speed show in the slices that follow.
        if matches!(control, RunControl::Seek(_) | RunControl::Speed(_)) { Vec::new() } else { self.outputs() }
    }

    fn cycle(&self) -> u64 {
        self.simulation.progress().cycle.0
    }

    fn step(&mut self, until: Until) {
        self.playing = false;
        self.seek_to = None;
        self.sync_recording();
        self.simulation.run_until(until);
    }

    /// Takes the events recorded so far: a follow reads them all, the page
    /// gets the watched SM's newest.
    fn collect_events(&mut self) {
        let batch = self.simulation.take_events();
        self.dropped_events += batch.dropped;
        let cycle = self.cycle();
        if let Some(follow) = &mut self.follow {
            let snapshot = follow.wants_snapshot().then(|| self.simulation.snapshot());
            follow.observe(&batch.events, cycle, snapshot.as_ref());
        }
        let events = &mut self.pending_events;
        events.extend(batch.events.into_iter().filter(|event| concerns(event, self.watch)));
        if events.len() > RECENT_EVENTS {
            self.dropped_events += (events.len() - RECENT_EVENTS) as u64;
            events.drain(..events.len() - RECENT_EVENTS);
        }
    }

    /// The update for the page, and the report when the run ended or paused.
    fn outputs(&mut self) -> Vec<WorkerOutput> {
        self.collect_events();
        let progress = self.simulation.progress();
        let events = std::mem::take(&mut self.pending_events);
        let status = match (progress.finished, self.playing) {
            (true, _) => RunStatus::Finished,
            (false, true) => RunStatus::Running,
            (false, false) => RunStatus::Paused,
        };
        let update = RunUpdate {
            status,
            cycle: progress.cycle.0,
            warp_insts: progress.warp_insts,
            total_warp_insts: self.total_warp_insts,
            snapshot: Box::new(self.simulation.snapshot()),
            events,
            dropped_events: self.dropped_events,
            speed: self.speed,
            watch: self.watch,
            follow: self.follow.as_ref().map(FollowRun::followed),
            loads: self.loads.borrow().loads().to_vec(),
        };
        let mut outputs = vec![WorkerOutput::RunUpdated(Box::new(update))];
        if status != RunStatus::Running {
            outputs.push(WorkerOutput::RunReport(Box::new(self.simulation.report())));
            // Counted only when the run asked (an authored kernel's).
            outputs.extend(self.simulation.per_pc().map(WorkerOutput::PerPc));
        }
        outputs
    }
}

/// Whether `event` belongs in the watched SM's list: its own events, and its
/// requests in the crossbars and the L2. DRAM events are left out: an L2
/// fill names its slice as its source, which cannot be told from an SM.
fn concerns(event: &Event, sm: u32) -> bool {
    match event.kind {
        EventKind::Entered { queue, source, .. } | EventKind::Left { queue, source, .. } => {
            queue != Queue::Dram && source == sm
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use warplab_lab::{GenSpec, SimOptions, generate, preset_config};

    use super::{FULL_SPEED_UPDATE_MS, FULL_SPEED_UPDATE_MS_ON_THREADS, WorkerRun};
    use crate::agent::{RunStatus, WorkerOutput};

    /// A full-speed run on QV100 of many cycles (204,332) and little work.
    fn full_speed_run() -> WorkerRun {
        full_speed_run_on(1)
    }

    /// The same on `threads` threads.
    fn full_speed_run_on(threads: u32) -> WorkerRun {
        let (_, gpu) = preset_config("SM7_QV100").expect("a preset");
        let spec: GenSpec = "pchase-l1:size=2".parse().expect("a spec");
        let workload = generate(&spec, &gpu).expect("generated");
        let options = SimOptions { threads, ..SimOptions::default() };
        WorkerRun::new(&gpu, options, Box::new(workload.into_source()), 0, 0, 0)
    }

    /// A fake worker clock: each reading is `step_ms` after the last.
    fn ticking(clock: &Cell<f64>, step_ms: f64) -> impl Fn() -> f64 + '_ {
        move || {
            clock.set(clock.get() + step_ms);
            clock.get()
        }
    }

    #[test]
    fn a_run_starts_with_a_short_slice_and_its_slices_at_most_double() {
        let mut run = full_speed_run();
        // Slices far under the budget: each may double, no more.
        let clock = Cell::new(0.0);
        let now_ms = ticking(&clock, 1.0);
        let mut lengths = Vec::new();
        for _ in 0..6 {
            let before = run.cycle();
            run.advance(&now_ms);
            lengths.push(run.cycle() - before);
        }
        assert_eq!(lengths, [100, 200, 400, 800, 1600, 3200], "the slices' cycles");
    }

    #[test]
    fn a_full_speed_run_updates_the_page_at_most_every_hundred_ms_and_at_its_end() {
        updates_at_most_every(full_speed_run(), FULL_SPEED_UPDATE_MS, 2);
    }

    #[test]
    fn a_run_on_threads_updates_the_page_less_often() {
        updates_at_most_every(full_speed_run_on(2), FULL_SPEED_UPDATE_MS_ON_THREADS, 5);
    }

    /// Plays `run` to its end with slices 60 ms apart, checking that a
    /// running update comes at least `least_ms` after the last, and that one
    /// slice in `every` updates (the first, then each `every`th after it),
    /// as does the last whatever its turn.
    fn updates_at_most_every(mut run: WorkerRun, least_ms: f64, every: usize) {
        // Every reading of the worker's clock is 30 ms after the last: each
        // slice takes its budget, so slices keep their size and end 60 ms apart.
        let clock = Cell::new(0.0);
        let now_ms = ticking(&clock, 30.0);
        let (mut slices, mut updates, mut last_update) = (0_usize, Vec::new(), None);
        while run.playing() {
            let outputs = run.advance(&now_ms);
            slices += 1;
            for output in outputs {
                if let WorkerOutput::RunUpdated(update) = output {
                    if let Some(last) = last_update.replace(clock.get())
                        && update.status == RunStatus::Running
                    {
                        assert!(clock.get() - last >= least_ms, "an update {} ms after the last", clock.get() - last);
                    }
                    updates.push(update.status);
                }
            }
        }
        assert!(slices > 20, "the run took {slices} slices");
        let last_on_its_turn = (slices - 1).is_multiple_of(every);
        let expected = 1 + (slices - 1) / every + usize::from(!last_on_its_turn);
        assert_eq!(updates.len(), expected, "{} updates of {slices} slices", updates.len());
        assert_eq!(updates.first(), Some(&RunStatus::Running), "the first slice shows the run at once");
        assert_eq!(updates.last(), Some(&RunStatus::Finished), "the last slice always reports");
    }
}
