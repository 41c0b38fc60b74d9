//! The scale panel's state, apart from [`crate::state::State`] like the
//! analytical panel's: the scale models the worker planned for the loaded
//! config, the user's choices (target, rule, validation), the run asked for
//! and its progress, the last report, and the paper's published benchmarks
//! once loaded.

use std::rc::Rc;

use warplab_lab::scale::{Prediction, Rule, ScaleReport};
use yew::Reducible;

use crate::agent::ScaleSetup;
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
    Requested(Experiment),
    /// A step of the run started.
    Progress(ScaleProgress),
    /// The worker's report.
    Scaled(Box<ScaleReport>),
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
        ready.filter(|e| may_start && planned(e) && self.requested != Some(*e) && self.running.is_none())
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
            ScaleAction::Requested(experiment) => {
                next.running = Some(experiment);
                next.requested = Some(experiment);
                next.progress = None;
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
            ScaleAction::Failed(message) => {
                next.running = None;
                next.progress = None;
                next.error = Some(message);
            }
            ScaleAction::Cancelled if next.running.is_some() => {
                next.running = None;
                next.progress = None;
                next.cancelled = true;
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
    use warplab_lab::scale::{Method, ScaleHost, ScaleOptions, ScalePlan, run_scale};
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

    /// A run of vecadd on 8 and 16 SMs of the paper's GPU predicting 32, under `rule`.
    fn report(rule: Rule) -> ScaleReport {
        let gpu = preset_config("scalemodel").expect("a bundled preset").1;
        let plan = ScalePlan::new(&gpu, [8, 16], &[32]).expect("divides");
        let mut host = Host("vecadd:size=4".parse().expect("a well-formed spec"), gpu);
        run_scale(&plan, &mut host, &ScaleOptions { rule, ..ScaleOptions::default() }).expect("runs")
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
        let state = Rc::new(ScaleState::default()).reduce(ScaleAction::Requested(asked));
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
        let state = state.reduce(ScaleAction::Requested(first)).reduce(planned(2));
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
        let state = state.reduce(ScaleAction::Requested(Experiment::default()));
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
        let state = Rc::new(ScaleState::default()).reduce(planned).reduce(ScaleAction::Requested(experiment));
        let state = state.reduce(ScaleAction::Progress(progress.clone())).reduce(ScaleAction::Cancelled);
        assert_eq!((state.running, state.progress.clone(), state.cancelled), (None, None, true));
        assert_eq!(state.run_due(Some(experiment), true), None, "Predict asks again, not the page");
        let state = state.reduce(ScaleAction::Progress(progress));
        assert_eq!(state.progress, None, "a late step of the cancelled run");
        let state = state.reduce(ScaleAction::Requested(experiment));
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
}
