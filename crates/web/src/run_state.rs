//! The state of the page's simulation run, apart from [`crate::state::State`]
//! because it changes many times a second: every field the run panels show
//! is behind an `Rc`, so an update clones pointers, and components whose
//! props did not change are not re-rendered.

use std::rc::Rc;

use warplab_lab::follow::loads::LoadPc;
use warplab_lab::sampling::{SampleMode, SamplingComparison};
use warplab_lab::{Event, SimReport, Snapshot};
use yew::Reducible;

use crate::agent::{Followed, RunStatus, RunUpdate};
use crate::state::Experiment;

/// The most points the IPC timeline keeps; past it every other point is
/// dropped, so a long run costs a bounded chart.
pub const TIMELINE_POINTS: usize = 2_000;

/// The most events the page lists.
pub const LISTED_EVENTS: usize = 200;

/// The speed Replay plays at unless the experiment names one, in cycles per
/// second: a frame (50 ms) then moves 50 cycles, few enough that a warp's
/// wait on memory spans several frames.
pub const DEFAULT_REPLAY_SPEED: u64 = 1_000;

/// Where the run stands, as the page shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunPhase {
    /// No run yet.
    #[default]
    Idle,
    /// Asked of the worker, no answer yet.
    Starting,
    /// Advancing.
    Running,
    /// Waiting for the user.
    Paused,
    /// Ran to its end.
    Finished,
    /// Cancelled by the user.
    Cancelled,
}

/// The run as the page shows it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunState {
    /// Where it stands.
    pub phase: RunPhase,
    /// The newest update: progress (its snapshot is also in `snapshot`).
    pub latest: Option<Rc<RunUpdate>>,
    /// The newest snapshot.
    pub snapshot: Option<Rc<Snapshot>>,
    /// The snapshot before the newest (issue activity is the difference).
    pub previous: Option<Rc<Snapshot>>,
    /// (cycle, IPC so far), one point per update.
    pub timeline: Rc<Vec<(u64, f64)>>,
    /// The watched SM's newest events, oldest first.
    pub events: Rc<Vec<Event>>,
    /// The report of the run so far (sent when it pauses or finishes).
    pub report: Option<Rc<SimReport>>,
    /// Why the last run could not start.
    pub error: Option<String>,
    /// Cycles per second (0: as fast as possible).
    pub speed: u64,
    /// The SM whose events are listed.
    pub watch: u32,
    /// The sampling mode runs are asked with (the experiment's).
    pub sampling: SampleMode,
    /// The finished sampled run against a full run of the same workload,
    /// once the user asked for one.
    pub comparison: Option<Rc<SamplingComparison>>,
    /// Whether the worker is making that comparison.
    pub comparing: bool,
    /// Why the comparison failed.
    pub compare_error: Option<String>,
    /// The workload and config the run simulates.
    pub experiment: Option<Experiment>,
    /// How fast the run has gone since it last started playing at its
    /// speed: what its time left is estimated from.
    pub pace: Option<Pace>,
    /// Cancels sent to the worker that it has not acknowledged yet. The
    /// worker answers inputs in order, so every run output before the last
    /// acknowledgement is of a run the page has left (cancelled, or replaced
    /// by a newer one), and is dropped.
    pub unacknowledged_cancels: u32,
    /// While the finished run is replayed for the animation, where the
    /// replay stands; the run's own phase, progress and report stay those of
    /// the finished run, so no figure goes pending during a replay.
    pub replay: Option<RunPhase>,
    /// The speed Replay plays at, as the experiment carries it (0: the
    /// page's default, [`DEFAULT_REPLAY_SPEED`]).
    pub replay_speed: u64,
    /// The first snapshot at or past half of the run's work, with the one
    /// before it: what a finished run shows instead of its last frame, in
    /// which every SM is empty.
    pub halfway: Option<Halfway>,
    /// The request followed last (in the run or its replay).
    pub followed: Option<Rc<Followed>>,
    /// The workload's global loads the run has met, which the page offers
    /// to follow (a replay keeps the finished run's until it meets them).
    pub loads: Rc<Vec<LoadPc>>,
}

/// A frame from the middle of a run, and the frame before it (issue rates
/// are the difference of the two).
#[derive(Debug, Clone, PartialEq)]
pub struct Halfway {
    /// The snapshot before.
    pub previous: Option<Rc<Snapshot>>,
    /// The snapshot at or just past half of the run's warp instructions.
    pub snapshot: Rc<Snapshot>,
}

/// Two points of a run's progress on the page's clock: the first update
/// since it last played at its speed, and the newest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pace {
    /// The page's clock at the first update, in ms, and the warp
    /// instructions issued by then.
    pub since: (f64, u64),
    /// The same at the newest update.
    pub now: (f64, u64),
}

/// A run is long, and says how long it has left, once it has played this
/// long (the estimate is also steadier by then).
const LONG_RUN_MS: f64 = 2_000.0;

impl Pace {
    /// Seconds left to issue `remaining` warp instructions at the pace so
    /// far; `None` until the run has played [`LONG_RUN_MS`] and issued some.
    pub fn seconds_left(&self, remaining: u64) -> Option<f64> {
        let elapsed_ms = self.now.0 - self.since.0;
        let issued = self.now.1.saturating_sub(self.since.1);
        (elapsed_ms >= LONG_RUN_MS && issued > 0).then(|| remaining as f64 * elapsed_ms / issued as f64 / 1000.0)
    }
}

impl RunState {
    /// Whether a run exists that the controls act on.
    pub fn active(&self) -> bool {
        matches!(self.animation_phase(), RunPhase::Running | RunPhase::Paused)
    }

    /// Where what the animation shows stands: the replay's phase while the
    /// finished run is replayed, else the run's.
    pub fn animation_phase(&self) -> RunPhase {
        self.replay.unwrap_or(self.phase)
    }

    /// The speed the controls show and set: once the run has finished, the
    /// replay's.
    pub fn animation_speed(&self) -> u64 {
        if self.phase == RunPhase::Finished { self.replay_speed_or_default() } else { self.speed }
    }

    /// The speed Replay plays at.
    pub fn replay_speed_or_default(&self) -> u64 {
        if self.replay_speed == 0 { DEFAULT_REPLAY_SPEED } else { self.replay_speed }
    }
}

/// What changes the run's state.
#[derive(Debug, Clone, PartialEq)]
pub enum RunAction {
    /// The user asked for a run of this workload and config.
    Requested(Experiment),
    /// The worker reports progress, arrived at this time of the page's
    /// clock (ms).
    Updated(Box<RunUpdate>, f64),
    /// The worker sent the report so far.
    Reported(Box<SimReport>),
    /// The run could not start.
    Failed(String),
    /// The user cancelled the run (a cancel is sent to the worker).
    Cancelled,
    /// The worker acknowledged a cancel.
    CancelAcknowledged,
    /// The user chose a speed: the run's, or once it has finished, the
    /// replay's.
    SpeedChosen(u64),
    /// An experiment opened names the run's speed and the one Replay plays
    /// at (0: the default), whatever the run before it is doing.
    SpeedsSet {
        /// The run's speed (0: as fast as possible).
        speed: u64,
        /// Replay's speed (0: [`DEFAULT_REPLAY_SPEED`]).
        replay_speed: u64,
    },
    /// The user asked to replay the finished run (the worker simulates it
    /// again, at the replay speed).
    ReplayRequested,
    /// The user chose the SM to watch.
    Watched(u32),
    /// The user chose the sampling mode of the next runs.
    SamplingChosen(SampleMode),
    /// The user asked for the sampled run to be compared with a full run.
    CompareRequested,
    /// The worker compared the sampled run with a full run.
    Compared(Box<SamplingComparison>),
    /// The comparison could not be made.
    CompareFailed(String),
}

impl Reducible for RunState {
    type Action = RunAction;

    fn reduce(self: Rc<Self>, action: RunAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            // A new run goes to the worker after a cancel of whatever ran
            // before it (see `Page::start_run`).
            RunAction::Requested(experiment) => {
                next = RunState {
                    phase: RunPhase::Starting,
                    speed: self.speed,
                    watch: self.watch,
                    sampling: self.sampling,
                    experiment: Some(experiment),
                    unacknowledged_cancels: self.unacknowledged_cancels + 1,
                    replay_speed: self.replay_speed,
                    ..Self::default()
                };
            }
            // Only the animation starts over; the finished run's figures stay.
            RunAction::ReplayRequested if self.phase == RunPhase::Finished => {
                next.replay = Some(RunPhase::Starting);
                next.unacknowledged_cancels += 1;
                (next.snapshot, next.previous, next.halfway) = (None, None, None);
                (next.timeline, next.events, next.followed) = (Rc::default(), Rc::default(), None);
            }
            RunAction::ReplayRequested => {}
            // A comparison asked for before a newer run is of a run left
            // behind too: the worker answers it before that run's cancel.
            RunAction::Updated(..)
            | RunAction::Reported(_)
            | RunAction::Failed(_)
            | RunAction::Compared(_)
            | RunAction::CompareFailed(_)
                if self.unacknowledged_cancels > 0 => {}
            RunAction::Updated(update, _) if self.replay.is_some() => next.replayed(*update),
            RunAction::Updated(update, now_ms) => next.update(*update, now_ms),
            // A replay's reports are of the run already reported.
            RunAction::Reported(_) if self.replay.is_some() => {}
            RunAction::Reported(report) => next.report = Some(Rc::new(*report)),
            RunAction::Failed(message) => {
                next.phase = if self.active() { self.phase } else { RunPhase::Idle };
                next.error = Some(message);
            }
            RunAction::Cancelled => {
                next.phase = RunPhase::Cancelled;
                next.unacknowledged_cancels += 1;
            }
            RunAction::CancelAcknowledged => {
                next.unacknowledged_cancels = self.unacknowledged_cancels.saturating_sub(1)
            }
            RunAction::SpeedChosen(speed) if self.phase == RunPhase::Finished => next.replay_speed = speed,
            RunAction::SpeedChosen(speed) => next.speed = speed,
            RunAction::SpeedsSet { speed, replay_speed } => (next.speed, next.replay_speed) = (speed, replay_speed),
            RunAction::Watched(sm) => {
                next.watch = sm;
                next.events = Rc::default();
            }
            RunAction::SamplingChosen(mode) => next.sampling = mode,
            RunAction::CompareRequested => {
                next.comparing = true;
                next.compare_error = None;
            }
            RunAction::Compared(comparison) => {
                next.comparing = false;
                next.comparison = Some(Rc::new(*comparison));
            }
            RunAction::CompareFailed(message) => {
                next.comparing = false;
                next.compare_error = Some(message);
            }
        }
        Rc::new(next)
    }
}

impl RunState {
    fn update(&mut self, update: RunUpdate, now_ms: f64) {
        // The pace counts from the first update at full speed or at one
        // speed without a pause in between.
        let playing = update.status == RunStatus::Running;
        let same_play = self.phase == RunPhase::Running && self.speed == update.speed;
        self.pace = playing.then(|| {
            let now = (now_ms, update.warp_insts);
            let since = self.pace.filter(|_| same_play).map_or(now, |pace| pace.since);
            Pace { since, now }
        });
        self.phase = phase_of(update.status);
        self.speed = update.speed;
        self.animate(&update);
        self.latest = Some(Rc::new(update));
    }

    /// A replay's update moves the animation only.
    fn replayed(&mut self, update: RunUpdate) {
        self.replay = Some(phase_of(update.status));
        self.animate(&update);
    }

    /// The animation's part of an update: the snapshot, the timeline, the
    /// events, and the frame kept from the middle of the run, which a
    /// finished run shows.
    fn animate(&mut self, update: &RunUpdate) {
        let timeline = Rc::make_mut(&mut self.timeline);
        if timeline.last().is_none_or(|&(cycle, _)| cycle < update.cycle) {
            timeline.push((update.cycle, update.snapshot.ipc()));
        }
        if timeline.len() > TIMELINE_POINTS {
            let mut keep = false;
            timeline.retain(|_| {
                keep = !keep;
                keep
            });
        }
        if !update.events.is_empty() {
            let events = Rc::make_mut(&mut self.events);
            events.extend(update.events.iter().cloned());
            let excess = events.len().saturating_sub(LISTED_EVENTS);
            events.drain(..excess);
        }
        let snapshot = Rc::new((*update.snapshot).clone());
        let finished = update.status == RunStatus::Finished;
        if self.halfway.is_none() && !finished && update.warp_insts.saturating_mul(2) >= update.total_warp_insts {
            self.halfway = Some(Halfway { previous: self.snapshot.clone(), snapshot: snapshot.clone() });
        }
        self.previous = self.snapshot.replace(snapshot);
        self.watch = update.watch;
        if self.followed.as_deref() != update.follow.as_ref() {
            self.followed = update.follow.clone().map(Rc::new);
        }
        if self.loads.len() < update.loads.len() {
            self.loads = Rc::new(update.loads.clone());
        }
        // A run's last frame is an empty GPU (every CTA has retired).
        if let Some(halfway) = self.halfway.as_ref().filter(|_| finished) {
            self.snapshot = Some(halfway.snapshot.clone());
            self.previous = halfway.previous.clone();
        }
    }
}

/// The page's phase of a worker's status.
fn phase_of(status: RunStatus) -> RunPhase {
    match status {
        RunStatus::Running => RunPhase::Running,
        RunStatus::Paused => RunPhase::Paused,
        RunStatus::Finished => RunPhase::Finished,
    }
}

#[cfg(test)]
mod tests {
    use warplab_lab::{Snapshot, WarpState};

    use super::*;

    fn update(cycle: u64, status: RunStatus) -> RunAction {
        timed_update(cycle, status, cycle as f64)
    }

    /// An update of `cycle`, one warp instruction a cycle, arriving at `now_ms`.
    fn timed_update(cycle: u64, status: RunStatus, now_ms: f64) -> RunAction {
        let snapshot = Snapshot {
            cycle,
            warp_insts: cycle,
            thread_insts: 32 * cycle,
            schedulers_per_sm: 4,
            sms: Vec::new(),
            request_network: Vec::new(),
            reply_network: Vec::new(),
            slices: Vec::new(),
            channels: Vec::new(),
            sm_chiplets: Vec::new(),
            links: Vec::new(),
        };
        let state = warplab_lab::EventKind::WarpState { sm: 0, warp: 1, state: WarpState::Ready };
        RunAction::Updated(
            Box::new(RunUpdate {
                status,
                cycle,
                warp_insts: cycle,
                total_warp_insts: 1_000,
                snapshot: Box::new(snapshot),
                events: vec![Event { cycle, kind: state }],
                dropped_events: 0,
                speed: 0,
                watch: 0,
                follow: None,
                loads: Vec::new(),
            }),
            now_ms,
        )
    }

    #[test]
    fn updates_grow_a_bounded_timeline_and_event_list() {
        let mut state = Rc::new(RunState::default())
            .reduce(RunAction::Requested(Experiment::default()))
            .reduce(RunAction::CancelAcknowledged);
        assert_eq!(state.phase, RunPhase::Starting);
        for cycle in 1..=(TIMELINE_POINTS as u64 + 1) {
            state = state.reduce(update(cycle, RunStatus::Running));
        }
        assert_eq!(state.phase, RunPhase::Running);
        assert!(state.timeline.len() <= TIMELINE_POINTS && state.timeline.len() > TIMELINE_POINTS / 2);
        assert!(state.timeline.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(state.timeline.first().map(|p| p.1), Some(32.0), "IPC so far is thread instructions per cycle");
        assert_eq!(state.events.len(), LISTED_EVENTS);
        assert_eq!(state.previous.as_ref().map(|s| s.cycle), Some(TIMELINE_POINTS as u64));
        let state = state.reduce(update(5_000, RunStatus::Finished));
        assert_eq!(state.phase, RunPhase::Finished);
    }

    #[test]
    fn a_cancelled_run_ignores_late_updates_and_a_new_run_starts_afresh() {
        let state = Rc::new(RunState::default())
            .reduce(RunAction::Requested(Experiment::default()))
            .reduce(RunAction::CancelAcknowledged)
            .reduce(update(10, RunStatus::Running));
        let state = state.reduce(RunAction::Cancelled).reduce(update(20, RunStatus::Running));
        assert_eq!(state.phase, RunPhase::Cancelled);
        assert_eq!(state.latest.as_ref().map(|u| u.cycle), Some(10));
        let state = state.reduce(RunAction::SpeedChosen(200)).reduce(RunAction::Requested(Experiment::default()));
        assert_eq!((state.phase, state.speed, state.timeline.len()), (RunPhase::Starting, 200, 0));
    }

    #[test]
    fn outputs_before_the_last_cancel_is_acknowledged_are_of_runs_left_behind() {
        // Run, cancel and run again, faster than the worker answers: the
        // first run's slices and its cancel's acknowledgement arrive after
        // the second run was asked for.
        let state = Rc::new(RunState::default())
            .reduce(RunAction::Requested(Experiment::default()))
            .reduce(RunAction::Cancelled)
            .reduce(RunAction::Requested(Experiment::default()));
        assert_eq!(state.unacknowledged_cancels, 3);
        let state = state.reduce(RunAction::CancelAcknowledged).reduce(update(10, RunStatus::Running));
        let state = state.reduce(RunAction::CancelAcknowledged).reduce(RunAction::Failed("no workload".into()));
        assert_eq!((state.phase, state.latest.is_none(), state.error.is_none()), (RunPhase::Starting, true, true));
        let state = state.reduce(RunAction::CancelAcknowledged).reduce(update(5_000, RunStatus::Finished));
        assert_eq!((state.phase, state.latest.as_ref().map(|u| u.cycle)), (RunPhase::Finished, Some(5_000)));
    }

    #[test]
    fn a_finished_run_shows_its_middle_and_a_replay_moves_only_the_animation() {
        let cycle_shown = |state: &RunState| state.snapshot.as_ref().map(|s| s.cycle);
        let mut state = Rc::new(RunState::default())
            .reduce(RunAction::Requested(Experiment::default()))
            .reduce(RunAction::CancelAcknowledged);
        for cycle in [200, 400, 600, 800] {
            state = state.reduce(update(cycle, RunStatus::Running));
        }
        let report = || RunAction::Reported(Box::new(tiny_report()));
        let state = state.reduce(update(1_000, RunStatus::Finished)).reduce(report());
        // Half of the 1,000 warp instructions were issued by cycle 600's update.
        assert_eq!((state.phase, cycle_shown(&state)), (RunPhase::Finished, Some(600)));
        assert_eq!(state.previous.as_ref().map(|s| s.cycle), Some(400));
        assert_eq!(state.animation_speed(), DEFAULT_REPLAY_SPEED, "the controls now set the replay's speed");
        let state = state.reduce(RunAction::SpeedChosen(100));
        assert_eq!((state.speed, state.replay_speed), (0, 100), "the run's own speed is kept for the link");

        let state = state.reduce(RunAction::ReplayRequested);
        assert_eq!((state.animation_phase(), state.snapshot.is_none()), (RunPhase::Starting, true));
        let state = state.reduce(RunAction::CancelAcknowledged).reduce(update(50, RunStatus::Paused)).reduce(report());
        assert_eq!((state.phase, state.animation_phase()), (RunPhase::Finished, RunPhase::Paused));
        assert!(state.active(), "the controls act on the replay");
        assert_eq!(state.latest.as_ref().map(|u| u.cycle), Some(1_000), "the progress is the finished run's");
        assert!(state.report.is_some(), "the finished run's report stays through the replay");
        assert_eq!(cycle_shown(&state), Some(50));
        let state = state.reduce(update(700, RunStatus::Running)).reduce(update(1_000, RunStatus::Finished));
        assert_eq!((state.animation_phase(), cycle_shown(&state)), (RunPhase::Finished, Some(700)));
        let state = state.reduce(RunAction::Requested(Experiment::default()));
        assert_eq!((state.replay, state.replay_speed, state.report.is_none()), (None, 100, true));
    }

    /// A real report, of the smallest vecadd on the default GPU.
    fn tiny_report() -> SimReport {
        let (_, config) = warplab_lab::default_config().expect("the default preset reads");
        let mut spec = warplab_lab::GenSpec::new("vecadd");
        spec.size = Some(1);
        warplab_lab::simulate_generated(&config, warplab_lab::SimOptions::default(), &spec).expect("vecadd runs")
    }

    fn comparison(sampled_ipc: f64) -> RunAction {
        RunAction::Compared(Box::new(SamplingComparison {
            sampled_ipc,
            full_ipc: 100.0,
            ipc_error: (sampled_ipc - 100.0) / 100.0,
            sampled_cycles: 10,
            full_cycles: 10,
            kernels: Vec::new(),
            instruction_speedup: 4.0,
            wall_speedup: Some(3.0),
        }))
    }

    #[test]
    fn a_comparison_belongs_to_the_run_it_was_asked_for_and_the_mode_outlives_runs() {
        let state = Rc::new(RunState::default())
            .reduce(RunAction::SamplingChosen(SampleMode::Photon))
            .reduce(RunAction::Requested(Experiment::default()))
            .reduce(RunAction::CancelAcknowledged)
            .reduce(update(10, RunStatus::Finished))
            .reduce(RunAction::CompareRequested);
        assert!(state.comparing);
        let state = state.reduce(comparison(98.0));
        assert_eq!((state.comparing, state.comparison.as_ref().map(|c| c.sampled_ipc)), (false, Some(98.0)));
        // Asked again, then a new run before the answer: the answer is the old run's.
        let state = state
            .reduce(RunAction::CompareRequested)
            .reduce(RunAction::Requested(Experiment::default()))
            .reduce(comparison(50.0));
        assert_eq!((state.sampling, state.comparison.is_none(), state.comparing), (SampleMode::Photon, true, false));
        let state = state.reduce(RunAction::CancelAcknowledged).reduce(RunAction::CompareFailed("no workload".into()));
        assert_eq!(state.compare_error.as_deref(), Some("no workload"));
    }

    #[test]
    fn a_long_run_estimates_its_time_left_from_its_pace_since_it_last_played() {
        let state = Rc::new(RunState::default())
            .reduce(RunAction::Requested(Experiment::default()))
            .reduce(RunAction::CancelAcknowledged)
            .reduce(timed_update(100, RunStatus::Running, 10_000.0));
        let left = |state: &RunState| state.pace.and_then(|pace| pace.seconds_left(1_000 - pace.now.1));
        assert_eq!(left(&state), None, "no estimate from one point");
        let state = state.reduce(timed_update(200, RunStatus::Running, 11_000.0));
        assert_eq!(left(&state), None, "not a long run yet");
        // 300 instructions in 3 s: the 600 left take 6 s.
        let state = state.reduce(timed_update(400, RunStatus::Running, 13_000.0));
        assert_eq!(left(&state), Some(6.0));
        let state = state.reduce(timed_update(400, RunStatus::Paused, 20_000.0));
        assert_eq!(state.pace, None, "paused: no time left is counting down");
        let state = state.reduce(timed_update(500, RunStatus::Running, 60_000.0));
        assert_eq!(state.pace.map(|pace| pace.since), Some((60_000.0, 500)), "the pause does not count");
    }
}
