//! The scale panel's state, apart from [`crate::state::State`] like the
//! analytical panel's: the scale models the worker planned for the loaded
//! config, the user's choices (target, rule, validation), the run asked for
//! and its progress, the last report, and the paper's published benchmarks
//! once loaded.
//!
//! A run is asked for in two parts: the scale worker simulates the scale
//! models, and the miss-rate curve is taken by whichever worker is free for
//! it first ([`ScaleState::curve_due`]). The report is made here from both
//! ([`finish_scale`]), as one worker doing both would have made it.

use std::rc::Rc;

use warplab_lab::scale::{CurveRun, Prediction, Rule, ScaleReport, ScaleSimulations, finish_scale};
use yew::Reducible;

use crate::agent::{ScalePart, ScaleRequest, ScaleSetup};
use crate::published::Published;
use crate::scale_progress::ScaleProgress;
use crate::state::Experiment;

/// The scale panel as the page shows it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScaleState {
    /// The worker's plan for the loaded config and the pair chosen.
    pub setup: Option<Rc<ScaleSetup>>,
    /// The target chosen, in SMs; `None`: the loaded config's own.
    pub target: Option<u32>,
    /// The scale models the user chose (`None`: the smallest pair, the
    /// worker's choice): what a link carries.
    pub chosen_pair: Option<[u32; 2]>,
    /// The scale-model rule shown.
    pub rule: Rule,
    /// Whether a run also simulates the target, for the errors.
    pub validate: bool,
    /// Weak scaling: each size runs its share of a generated workload, with
    /// no miss-rate curve (the paper's weak-scaling workflow).
    pub weak: bool,
    /// A run asked of the worker and not answered yet, for this experiment.
    pub running: Option<Experiment>,
    /// What that run asks for (its curve is asked for with it).
    pub request: Option<Rc<ScaleRequest>>,
    /// Its scale models' simulations, once the scale worker has answered.
    pub simulations: Option<Rc<ScaleSimulations>>,
    /// Its miss-rate curve, once a worker has answered.
    pub curve: Option<Rc<CurveRun>>,
    /// The worker asked for a curve not answered yet (of the running run, or
    /// of one that failed or was cancelled meanwhile: no run starts until it
    /// has answered, so no answer can be taken for another run's).
    pub curve_at: Option<CurveWorker>,
    /// The experiment the last run was asked for (answered or not, failed
    /// or not): a page asks for each experiment's prediction once.
    pub requested: Option<Experiment>,
    /// The newest progress of that run.
    pub progress: Option<ScaleProgress>,
    /// The last run's report.
    pub report: Option<Rc<ScaleReport>>,
    /// The workload and config `report` is for.
    pub report_for: Option<Experiment>,
    /// Why the last run failed; the report before it stays.
    pub error: Option<String>,
    /// The last run was cancelled before it finished.
    pub cancelled: bool,
    /// The paper's benchmarks, once the user loaded them.
    pub published: Option<Rc<Published>>,
    /// Why they could not be read.
    pub published_error: Option<String>,
    /// The published benchmark shown, by index.
    pub benchmark: usize,
}

/// The worker that takes a run's miss-rate curve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CurveWorker {
    /// The analyst, idle once its profile has ended, while the scale worker
    /// still simulates.
    Analyst,
    /// The scale worker, once its simulations have ended.
    Scaler,
}

/// What changes the scale panel's state.
#[derive(Debug, Clone, PartialEq)]
pub enum ScaleAction {
    /// The worker planned scale models for the loaded config.
    Planned(Box<ScaleSetup>),
    /// The user chose a pair of scale models.
    PairChosen([u32; 2]),
    /// The user chose a target size.
    TargetChosen(Option<u32>),
    /// The user chose a rule.
    RuleChosen(Rule),
    /// The user ticked or cleared "validate".
    ValidateSet(bool),
    /// The user chose weak (true) or strong scaling.
    WeakSet(bool),
    /// A run of this experiment was asked of the worker.
    Requested(Experiment, Box<ScaleRequest>),
    /// A step of the run started.
    Progress(ScaleProgress),
    /// The worker's report.
    Scaled(Box<ScaleReport>),
    /// The scale worker simulated the scale models (and the targets).
    Simulated(Box<ScaleSimulations>),
    /// The run's curve was asked of this worker.
    CurveAsked(CurveWorker),
    /// A worker took the curve.
    Curved(Box<CurveRun>),
    /// Taking the curve failed.
    CurveFailed(String),
    /// The experiment changed before the curve was asked for: the run is
    /// dropped (the workers now hold the new experiment's workload).
    Superseded,
    /// The run failed.
    Failed(String),
    /// The user cancelled the run (its worker is restarted).
    Cancelled,
    /// The published benchmarks were read and evaluated, or could not be.
    PublishedLoaded(Result<Rc<Published>, String>),
    /// The user picked a published benchmark.
    BenchmarkChosen(usize),
}

impl ScaleState {
    /// The target a run predicts: the one chosen if the plan has it, else the
    /// loaded config's SMs.
    pub fn target_sms(&self) -> Option<u32> {
        let setup = self.setup.as_ref()?;
        Some(self.chosen_target().unwrap_or(setup.target_sms))
    }

    /// The target the user chose, when the plan has it and it is not the
    /// loaded config's own size: what a link carries.
    pub fn chosen_target(&self) -> Option<u32> {
        let setup = self.setup.as_ref()?;
        self.target.filter(|&t| t != setup.target_sms && targets(setup).contains(&t))
    }

    /// The report's predictions under the rule shown (every report has
    /// both, so the rule switch needs no simulation).
    pub fn prediction(&self) -> Option<&Prediction> {
        Some(&self.report.as_ref()?.outcome(self.rule).prediction)
    }

    /// The experiment whose scale-model run starts now, if any: `ready`,
    /// when the page may start it (`may_start`), with a plan of its own
    /// config, not asked for before, and no run in flight.
    pub fn run_due(&self, ready: Option<Experiment>, may_start: bool) -> Option<Experiment> {
        let planned = |e: &Experiment| {
            let setup = self.setup.as_ref().filter(|setup| setup.config == e.config);
            setup.is_some_and(|setup| setup.error.is_none() && !setup.sizes.is_empty())
        };
        ready.filter(|e| may_start && planned(e) && self.requested != Some(*e) && self.idle())
    }

    /// No run in flight and no curve owed to one that failed or was
    /// cancelled: only then may another run start (see `curve_at`).
    pub fn idle(&self) -> bool {
        self.running.is_none() && self.curve_at.is_none()
    }

    /// The worker to ask for the running run's curve now, if any: the scale
    /// worker once its simulations have ended, else another one where
    /// `core_free` says a core is free for it. Only while the run's
    /// experiment is `ready`: the workers hold its workload.
    pub fn curve_due(&self, ready: Option<Experiment>, core_free: bool) -> Option<CurveWorker> {
        let waiting = self.running.is_some() && self.running == ready && self.curve.is_none();
        if !waiting || self.curve_at.is_some() {
            return None;
        }
        if self.simulations.is_some() { Some(CurveWorker::Scaler) } else { core_free.then_some(CurveWorker::Analyst) }
    }

    /// Whether the running run can no longer get its curve: its simulations
    /// have ended, none was asked for, and the page shows another
    /// experiment, whose workload the workers now hold.
    pub fn superseded(&self, ready: Option<Experiment>) -> bool {
        self.running.is_some() && self.running != ready && self.simulations.is_some() && self.curve_at.is_none()
    }

    /// The request for the running run's curve: no progress of its own (the
    /// scale worker's steps are what the card shows).
    pub fn curve_request(&self) -> Option<ScaleRequest> {
        let request = self.request.as_deref()?;
        Some(ScaleRequest { part: ScalePart::Curve, progress_channel: String::new(), ..request.clone() })
    }

    /// The report of the running run, once both parts are in.
    fn finish_if_complete(&mut self) {
        let (Some(simulations), Some(curve)) = (&self.simulations, &self.curve) else { return };
        let finished = finish_scale((**simulations).clone(), (**curve).clone());
        (self.simulations, self.curve) = (None, None);
        match finished {
            Ok(report) => {
                self.report_for = self.running.take();
                self.report = Some(Rc::new(report));
                self.error = None;
            }
            Err(message) => {
                self.running = None;
                self.error = Some(message);
            }
        }
        self.progress = None;
    }

    /// Drops the running run's parts and progress.
    fn stop(&mut self) {
        self.running = None;
        self.progress = None;
        self.simulations = None;
        self.curve = None;
    }
}

/// The sizes a run can predict: from four times the smaller scale model up.
pub fn targets(setup: &ScaleSetup) -> Vec<u32> {
    setup.sizes.iter().skip(2).map(|size| size.sms).collect()
}

impl Reducible for ScaleState {
    type Action = ScaleAction;

    fn reduce(self: Rc<Self>, action: ScaleAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            ScaleAction::Planned(setup) => {
                next.target = next.target.filter(|t| targets(&setup).contains(t));
                next.setup = Some(Rc::new(*setup));
            }
            ScaleAction::PairChosen(pair) => next.chosen_pair = Some(pair),
            ScaleAction::TargetChosen(sms) => next.target = sms,
            ScaleAction::RuleChosen(rule) => next.rule = rule,
            ScaleAction::ValidateSet(validate) => next.validate = validate,
            ScaleAction::WeakSet(weak) => next.weak = weak,
            ScaleAction::Requested(experiment, request) => {
                next.stop();
                next.running = Some(experiment);
                next.requested = Some(experiment);
                next.request = Some(Rc::new(*request));
                next.error = None;
                next.cancelled = false;
            }
            ScaleAction::Progress(progress) => {
                // Progress can trail the report: it comes on another channel.
                if next.running.is_some() {
                    next.progress = Some(progress);
                }
            }
            ScaleAction::Scaled(report) => {
                next.report_for = next.running.take();
                next.report = Some(Rc::new(*report));
                next.progress = None;
                next.error = None;
            }
            ScaleAction::Simulated(simulations) if next.running.is_some() => {
                next.simulations = Some(Rc::new(*simulations));
                next.finish_if_complete();
            }
            ScaleAction::Simulated(_) => {}
            ScaleAction::CurveAsked(worker) => next.curve_at = Some(worker),
            ScaleAction::Curved(curve) => {
                next.curve_at = None;
                if next.running.is_some() {
                    next.curve = Some(Rc::new(*curve));
                    next.finish_if_complete();
                }
            }
            ScaleAction::CurveFailed(message) => {
                next.curve_at = None;
                if next.running.is_some() {
                    next.stop();
                    next.error = Some(message);
                }
            }
            ScaleAction::Superseded => next.stop(),
            ScaleAction::Failed(message) => {
                next.stop();
                next.error = Some(message);
            }
            ScaleAction::Cancelled if next.running.is_some() => {
                next.stop();
                next.cancelled = true;
                // The scale worker is restarted: a curve asked of it never answers.
                if next.curve_at == Some(CurveWorker::Scaler) {
                    next.curve_at = None;
                }
            }
            ScaleAction::Cancelled => {}
            ScaleAction::PublishedLoaded(Ok(published)) => {
                next.published = Some(published);
                next.published_error = None;
            }
            ScaleAction::PublishedLoaded(Err(message)) => next.published_error = Some(message),
            ScaleAction::BenchmarkChosen(index) => next.benchmark = index,
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use warplab_lab::scale::{
        Method, ScaleHost, ScaleOptions, ScalePlan, run_scale, scale_curve, simulate_scale_models,
    };
    use warplab_lab::{GenSpec, GeneratedWorkload, GpuConfig, WorkloadSource, preset_config};

    use super::*;
    use crate::agent::ScaleSize;

    /// The same small workload at every size.
    struct Host(GenSpec, GpuConfig);

    impl ScaleHost for Host {
        fn workload(&mut self, _sms: u32) -> Result<Box<dyn WorkloadSource>, String> {
            Ok(Box::new(GeneratedWorkload::new(&self.0, &self.1).map_err(|e| e.to_string())?))
        }
    }

    /// A host running vecadd on the paper's GPU, and the plan of 8 and 16 SMs predicting 32.
    fn host_and_plan() -> (Host, ScalePlan) {
        let gpu = preset_config("scalemodel").expect("a bundled preset").1;
        let plan = ScalePlan::new(&gpu, [8, 16], &[32]).expect("divides");
        (Host("vecadd:size=4".parse().expect("a well-formed spec"), gpu), plan)
    }

    /// A run of vecadd on 8 and 16 SMs of the paper's GPU predicting 32, under `rule`.
    fn report(rule: Rule) -> ScaleReport {
        let (mut host, plan) = host_and_plan();
        run_scale(&plan, &mut host, &ScaleOptions { rule, ..ScaleOptions::default() }).expect("runs")
    }

    /// The same run's two parts, as the scale worker and another answer them.
    fn parts() -> (ScaleAction, ScaleAction) {
        let (mut host, plan) = host_and_plan();
        let options = ScaleOptions::default();
        let simulations = simulate_scale_models(&plan, &mut host, &options).expect("simulates");
        let curve = scale_curve(&plan, &mut host, &options).expect("a curve");
        (ScaleAction::Simulated(Box::new(simulations)), ScaleAction::Curved(Box::new(curve)))
    }

    fn request() -> Box<ScaleRequest> {
        Box::new(ScaleRequest {
            scale_models: [8, 16],
            targets: vec![32],
            rule: Rule::Reference,
            validate: false,
            weak: false,
            memcpy_warms_l2: false,
            progress_channel: "progress".into(),
            part: ScalePart::Simulations,
        })
    }

    fn requested(experiment: Experiment) -> ScaleAction {
        ScaleAction::Requested(experiment, request())
    }

    fn setup(sizes: &[u32]) -> ScaleSetup {
        let target_sms = sizes.last().copied().unwrap_or(0);
        let size = |sms: u32| ScaleSize {
            sms,
            factor: target_sms / sms,
            llc_bytes: 0,
            llc_slices: 0,
            noc_bytes_per_second: 0,
            dram_bytes_per_second: 0,
            channels: 0,
            l1_bytes: None,
            l1_mshrs: None,
            warps_per_sm: 0,
            chiplets: 1,
            bisection_bytes_per_second: 0,
        };
        let sizes = sizes.iter().map(|&sms| size(sms)).collect();
        ScaleSetup { target_sms, sizes, error: None, ..ScaleSetup::unplanned(String::new()) }
    }

    #[test]
    fn the_rule_switch_predicts_as_a_run_with_that_rule_would() {
        let asked = Experiment { workload: 1, config: 1 };
        let state = Rc::new(ScaleState::default()).reduce(requested(asked));
        let state = state.reduce(ScaleAction::Scaled(Box::new(report(Rule::Reference))));
        assert_eq!((state.report_for, state.running), (Some(asked), None));
        let reference = state.prediction().expect("a report").clone();
        let state = state.reduce(ScaleAction::RuleChosen(Rule::Paper));
        let paper = state.prediction().expect("a report").clone();
        assert_eq!(
            &paper,
            report(Rule::Paper).prediction(),
            "the rule switch shows what a run with that rule leads with"
        );
        assert_eq!(paper.rule, Rule::Paper);
        assert_eq!(reference.ipc(Method::Linear, 32), paper.ipc(Method::Linear, 32), "baselines need no rule");
    }

    #[test]
    fn a_scale_run_starts_once_per_experiment_from_its_own_configs_plan_one_at_a_time() {
        let first = Experiment { workload: 1, config: 1 };
        let second = Experiment { workload: 1, config: 2 };
        let planned = |config| ScaleAction::Planned(Box::new(ScaleSetup { config, ..setup(&[8, 16, 32]) }));
        let state = Rc::new(ScaleState::default());
        assert_eq!(state.run_due(Some(first), true), None, "no plan yet");
        let state = state.reduce(planned(1));
        assert_eq!(state.run_due(Some(first), false), None, "the page may not start it yet");
        assert_eq!(state.run_due(Some(first), true), Some(first));
        assert_eq!(state.run_due(Some(second), true), None, "the plan is the older config's");
        let state = state.reduce(requested(first)).reduce(planned(2));
        assert_eq!(state.run_due(Some(second), true), None, "one run at a time");
        let state = state.reduce(ScaleAction::Failed("no workload".into()));
        assert_eq!(state.run_due(Some(first), true), None, "asked for once, even when it failed");
        assert_eq!(state.run_due(Some(second), true), Some(second), "the next starts when the last answered");
    }

    #[test]
    fn progress_counts_only_while_a_run_is_asked_for() {
        let progress = ScaleProgress { step: 1, steps: 3, what: "simulating".into() };
        let state = Rc::new(ScaleState::default()).reduce(ScaleAction::Progress(progress.clone()));
        assert_eq!(state.progress, None, "no run");
        let state = state.reduce(requested(Experiment::default()));
        let state = state.reduce(ScaleAction::Progress(progress.clone()));
        assert_eq!(state.progress.as_ref(), Some(&progress));
        let state = state.reduce(ScaleAction::Failed("no workload".into()));
        assert_eq!((state.running, state.progress.clone(), state.error.as_deref()), (None, None, Some("no workload")));
        let state = state.reduce(ScaleAction::Progress(progress));
        assert_eq!(state.progress, None, "a late step of the failed run");
    }

    #[test]
    fn a_cancelled_run_is_not_running_says_so_and_is_not_asked_for_again() {
        let experiment = Experiment { workload: 1, config: 1 };
        let planned = ScaleAction::Planned(Box::new(ScaleSetup { config: 1, ..setup(&[8, 16, 32]) }));
        let progress = ScaleProgress { step: 1, steps: 3, what: "simulating".into() };
        let state = Rc::new(ScaleState::default()).reduce(planned).reduce(requested(experiment));
        let state = state.reduce(ScaleAction::Progress(progress.clone())).reduce(ScaleAction::Cancelled);
        assert_eq!((state.running, state.progress.clone(), state.cancelled), (None, None, true));
        assert_eq!(state.run_due(Some(experiment), true), None, "Predict asks again, not the page");
        let state = state.reduce(ScaleAction::Progress(progress));
        assert_eq!(state.progress, None, "a late step of the cancelled run");
        let state = state.reduce(requested(experiment));
        assert!(!state.cancelled && state.running.is_some(), "Predict runs it again");
        let idle = Rc::new(ScaleState::default()).reduce(ScaleAction::Cancelled);
        assert!(!idle.cancelled, "nothing ran, nothing was cancelled");
    }

    #[test]
    fn a_target_the_new_plan_lacks_falls_back_to_the_loaded_config() {
        let state = Rc::new(ScaleState::default()).reduce(ScaleAction::Planned(Box::new(setup(&[8, 16, 32, 64, 128]))));
        assert_eq!(state.target_sms(), Some(128), "the loaded config by default");
        let state = state.reduce(ScaleAction::TargetChosen(Some(32)));
        assert_eq!((state.target_sms(), state.chosen_target()), (Some(32), Some(32)));
        let own = state.clone().reduce(ScaleAction::TargetChosen(Some(128)));
        assert_eq!((own.target_sms(), own.chosen_target()), (Some(128), None), "a link leaves the own size out");
        let state = state.reduce(ScaleAction::Planned(Box::new(setup(&[32, 64, 128]))));
        assert_eq!((state.target, state.target_sms()), (None, Some(128)), "32 SMs is a scale model now");
    }

    #[test]
    fn the_parts_make_the_whole_runs_report_in_either_order() {
        let asked = Experiment { workload: 1, config: 1 };
        let (simulated, curved) = parts();
        for (first, second) in [(simulated.clone(), curved.clone()), (curved, simulated)] {
            let state = Rc::new(ScaleState::default()).reduce(requested(asked)).reduce(first);
            assert_eq!((state.running, state.report.clone()), (Some(asked), None), "one part is not a report");
            let state = state.reduce(second);
            assert_eq!(state.report.as_deref(), Some(&report(Rule::Reference)));
            assert_eq!((state.report_for, state.running), (Some(asked), None));
            assert!(state.simulations.is_none() && state.curve.is_none(), "the parts are not kept");
        }
    }

    #[test]
    fn the_curve_goes_to_the_analyst_where_a_core_is_free_else_to_the_scale_worker_once_it_is_idle() {
        let asked = Experiment { workload: 1, config: 1 };
        let other = Experiment { workload: 2, config: 1 };
        let state = Rc::new(ScaleState::default());
        assert_eq!(state.curve_due(Some(asked), true), None, "no run");
        let state = state.reduce(requested(asked));
        assert_eq!(state.curve_due(Some(asked), false), None, "no free core, the scale worker busy");
        assert_eq!(state.curve_due(Some(asked), true), Some(CurveWorker::Analyst));
        assert_eq!(state.curve_due(Some(other), true), None, "the workers hold another workload");
        let request = state.curve_request().expect("the run's");
        assert_eq!((request.part, request.progress_channel.as_str()), (ScalePart::Curve, ""), "no progress");
        assert_eq!(request.scale_models, [8, 16]);
        let (simulated, curved) = parts();
        let idle_scaler = state.clone().reduce(simulated);
        assert_eq!(idle_scaler.curve_due(Some(asked), false), Some(CurveWorker::Scaler));
        let asked_analyst = state.reduce(ScaleAction::CurveAsked(CurveWorker::Analyst));
        assert_eq!(asked_analyst.curve_due(Some(asked), true), None, "asked once");
        let done = asked_analyst.reduce(curved);
        assert_eq!((done.curve_at, done.curve_due(Some(asked), true)), (None, None));
    }

    #[test]
    fn a_run_waits_for_a_curve_still_owed_and_a_superseded_run_is_dropped() {
        let first = Experiment { workload: 1, config: 1 };
        let second = Experiment { workload: 2, config: 1 };
        let planned = ScaleAction::Planned(Box::new(ScaleSetup { config: 1, ..setup(&[8, 16, 32]) }));
        let (simulated, curved) = parts();
        let state = Rc::new(ScaleState::default()).reduce(planned).reduce(requested(first));
        let state = state.reduce(ScaleAction::CurveAsked(CurveWorker::Analyst));
        let state = state.reduce(ScaleAction::Failed("no workload".into()));
        assert_eq!(state.run_due(Some(second), true), None, "the analyst's curve has not answered");
        let state = state.reduce(curved.clone());
        assert_eq!(state.report, None, "a late curve of a failed run makes no report");
        assert_eq!(state.run_due(Some(second), true), Some(second));
        // The page moved on while the scale worker simulated the first.
        let state = state.reduce(requested(first)).reduce(simulated);
        assert!(!state.superseded(Some(first)));
        assert!(state.superseded(Some(second)));
        let state = state.reduce(ScaleAction::Superseded);
        assert_eq!((state.running, state.simulations.clone()), (None, None));
        assert_eq!(state.run_due(Some(second), true), Some(second));
        // A cancelled scale worker never answers its curve; the analyst still does.
        let cancelled = |worker| {
            let state = Rc::new(ScaleState::default()).reduce(requested(first));
            state.reduce(ScaleAction::CurveAsked(worker)).reduce(ScaleAction::Cancelled).curve_at
        };
        assert_eq!(cancelled(CurveWorker::Scaler), None);
        assert_eq!(cancelled(CurveWorker::Analyst), Some(CurveWorker::Analyst));
        let failed = Rc::new(ScaleState::default()).reduce(requested(first));
        let failed = failed.reduce(ScaleAction::CurveAsked(CurveWorker::Analyst));
        let failed = failed.reduce(ScaleAction::CurveFailed("unreadable".into()));
        assert_eq!((failed.running, failed.curve_at, failed.error.as_deref()), (None, None, Some("unreadable")));
    }
}
