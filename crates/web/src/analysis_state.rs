//! The analytical panel's state, apart from [`crate::state::State`] because
//! a dragged slider changes it many times a second: the analysis of the
//! loaded workload and config, the figures shown (the analysis's or those
//! of the newest prediction for the knobs the sliders set), and what the
//! worker is doing.
//!
//! Figures carry what they were computed for ([`Shown`]: the experiment and
//! the knobs), and the panel and the strip read them only through
//! [`AnalysisState::figures_for`], so a figure of an earlier experiment or
//! of knobs since moved can never be shown as the current one: until the
//! worker answers for what is on screen now, it is pending.

use std::rc::Rc;

use warplab_lab::AnalyticalReport;
use yew::Reducible;

use crate::agent::Analysis;
use crate::state::Experiment;

/// The analytical models as the page shows them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AnalysisState {
    /// The last analysis: every model on the loaded config, and the config's
    /// knob values the sliders start from.
    pub analysis: Option<Rc<Analysis>>,
    /// The workload and config `analysis` is for.
    pub experiment: Option<Experiment>,
    /// The newest figures: the analysis's, or the newest prediction's, with
    /// what they were computed for.
    pub shown: Option<Rc<Shown>>,
    /// The knobs the sliders moved away from the config's values, in the
    /// order first moved: what `Predict` carries.
    pub knobs: Rc<Vec<(String, f64)>>,
    /// An analysis asked of the worker and not answered yet.
    pub analyzing: Option<Experiment>,
    /// A prediction asked of the worker and not answered yet.
    pub predicting: bool,
    /// Why the last analysis or prediction failed; the figures before it stay.
    pub error: Option<String>,
    /// The panel shows only the MDM paper's models (the link's
    /// `view.paper_models_only`).
    pub paper_models_only: bool,
}

/// Figures and what they were computed for.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    /// Every model's figures.
    pub report: AnalyticalReport,
    /// The workload and config they are for.
    pub experiment: Experiment,
    /// The knobs set on that config (none: the config itself).
    pub knobs: Rc<Vec<(String, f64)>>,
}

/// A slider moved: the knob, its new value and the loaded config's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KnobEdit {
    /// The knob's name (see `warplab_lab::CONFIG_KNOBS`).
    pub name: &'static str,
    /// The value set.
    pub value: f64,
    /// The loaded config's value.
    pub base: f64,
}

/// What changes the analytical panel's state.
#[derive(Debug, Clone, PartialEq)]
pub enum AnalysisAction {
    /// An analysis of this workload and config was asked of the worker.
    Requested(Experiment),
    /// The worker's analysis.
    Analyzed(Box<Analysis>),
    /// The sliders now set these knobs; a prediction was asked for them.
    KnobsSet(Vec<(String, f64)>),
    /// The worker's prediction for the knobs set last.
    Predicted(Box<AnalyticalReport>),
    /// The analysis or prediction failed.
    Failed(String),
    /// The panel is to show only the paper's models (true) or every model.
    PaperModelsOnly(bool),
}

impl AnalysisState {
    /// The knobs after `edit`: a knob back at the config's value is dropped,
    /// so the list names only what moved.
    pub fn with_knob(&self, edit: KnobEdit) -> Vec<(String, f64)> {
        let mut knobs: Vec<(String, f64)> = self.knobs.iter().filter(|(n, _)| n != edit.name).cloned().collect();
        if edit.value != edit.base {
            let at = self.knobs.iter().position(|(n, _)| n == edit.name).unwrap_or(knobs.len());
            knobs.insert(at.min(knobs.len()), (edit.name.to_owned(), edit.value));
        }
        knobs
    }

    /// The value the sliders set for `name`, if moved.
    pub fn knob(&self, name: &str) -> Option<f64> {
        self.knobs.iter().find(|(n, _)| n == name).map(|&(_, value)| value)
    }

    /// Whether the figures shown are the analysis's own: for the loaded
    /// config, so they compare with a simulation of it.
    pub fn at_base(&self) -> bool {
        self.knobs.is_empty() && !self.predicting && self.analyzing.is_none()
    }

    /// The figures of the experiment `ready` with the knobs the sliders set
    /// now, once the worker has computed them; `None` (pending) while it has
    /// not, whatever older figures it answered before.
    pub fn figures_for(&self, ready: Option<Experiment>) -> Option<&AnalyticalReport> {
        let shown = self.shown.as_deref()?;
        let current = Some(shown.experiment) == ready && shown.knobs == self.knobs;
        (current && self.analyzing.is_none() && !self.predicting).then_some(&shown.report)
    }

    /// The figures of `ready` on its config itself (no knob moved): what
    /// compares with a simulation of it.
    pub fn base_figures_for(&self, ready: Option<Experiment>) -> Option<&AnalyticalReport> {
        self.figures_for(ready).filter(|_| self.knobs.is_empty())
    }
}

impl Reducible for AnalysisState {
    type Action = AnalysisAction;

    fn reduce(self: Rc<Self>, action: AnalysisAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            AnalysisAction::Requested(experiment) => {
                next.analyzing = Some(experiment);
                next.error = None;
            }
            AnalysisAction::Analyzed(analysis) => {
                next.experiment = next.analyzing.take();
                next.knobs = Rc::default();
                next.shown = next.experiment.map(|experiment| {
                    Rc::new(Shown { report: analysis.report.clone(), experiment, knobs: Rc::default() })
                });
                next.analysis = Some(Rc::new(*analysis));
                next.predicting = false;
                next.error = None;
            }
            AnalysisAction::KnobsSet(knobs) => {
                next.knobs = Rc::new(knobs);
                next.predicting = true;
            }
            // The lane keeps only the newest prediction (`use_lab_worker`),
            // so an answer is for the knobs set last.
            AnalysisAction::Predicted(report) => {
                next.shown = next
                    .experiment
                    .map(|experiment| Rc::new(Shown { report: *report, experiment, knobs: next.knobs.clone() }));
                next.predicting = false;
                next.error = None;
            }
            AnalysisAction::Failed(message) => {
                next.analyzing = None;
                next.predicting = false;
                next.error = Some(message);
            }
            AnalysisAction::PaperModelsOnly(only) => next.paper_models_only = only,
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use warplab_lab::{HEADLINE, ModelKind, Prediction};

    use super::*;
    use crate::agent::KnobBase;

    fn report(ipc: f64) -> AnalyticalReport {
        let prediction = Prediction { ipc, ..Prediction::default() };
        AnalyticalReport { models: ModelKind::ALL.into_iter().map(|m| (m, prediction)).collect(), ..Default::default() }
    }

    fn analyzed(ipc: f64) -> AnalysisAction {
        let base = KnobBase { n_sms: 28, cores_per_cluster: 1, l1_mshrs: Some(128) };
        AnalysisAction::Analyzed(Box::new(Analysis { report: report(ipc), base }))
    }

    fn shown_ipc(state: &AnalysisState) -> Option<f64> {
        state.shown.as_ref().map(|shown| shown.report.models[&HEADLINE].ipc)
    }

    fn mshrs(value: f64) -> KnobEdit {
        KnobEdit { name: "l1_mshrs", value, base: 128.0 }
    }

    #[test]
    fn knobs_list_only_what_moved_in_the_order_moved() {
        let state = AnalysisState::default();
        let knobs = state.with_knob(mshrs(32.0));
        assert_eq!(knobs, [("l1_mshrs".to_owned(), 32.0)]);
        let state = Rc::new(state).reduce(AnalysisAction::KnobsSet(knobs));
        let knobs = state.with_knob(KnobEdit { name: "n_sms", value: 14.0, base: 28.0 });
        let state = state.reduce(AnalysisAction::KnobsSet(knobs));
        let moved = [("l1_mshrs".to_owned(), 64.0), ("n_sms".to_owned(), 14.0)];
        assert_eq!(state.with_knob(mshrs(64.0)), moved);
        assert_eq!(state.with_knob(mshrs(128.0)), [("n_sms".to_owned(), 14.0)], "back at the config's");
        assert_eq!(state.knob("n_sms"), Some(14.0));
        assert!(!state.at_base());
    }

    #[test]
    fn an_analysis_resets_the_knobs_and_a_failure_keeps_the_figures() {
        let experiment = Experiment { workload: 1, config: 1 };
        let state = Rc::new(AnalysisState::default()).reduce(AnalysisAction::Requested(experiment));
        assert_eq!((state.analyzing, state.at_base()), (Some(experiment), false));
        let state = state.reduce(analyzed(10.0));
        assert_eq!((state.experiment, state.analyzing, shown_ipc(&state)), (Some(experiment), None, Some(10.0)));
        assert!(state.at_base());
        let state = state.reduce(AnalysisAction::KnobsSet(vec![("l1_mshrs".to_owned(), 32.0)]));
        let state = state.reduce(AnalysisAction::Predicted(Box::new(report(5.0))));
        assert_eq!((shown_ipc(&state), state.predicting), (Some(5.0), false));
        let state = state.reduce(AnalysisAction::KnobsSet(vec![("l1_mshrs".to_owned(), 2.5)]));
        let state = state.reduce(AnalysisAction::Failed("l1_mshrs = 2.5: must be a whole number".to_owned()));
        assert_eq!(shown_ipc(&state), Some(5.0), "the previous figures stay");
        assert!(state.error.as_deref().is_some_and(|e| e.starts_with("l1_mshrs")));
        let next = Experiment { workload: 2, config: 1 };
        let state = state.reduce(AnalysisAction::Requested(next)).reduce(analyzed(12.0));
        assert_eq!((state.experiment, state.knobs.len(), state.error.clone()), (Some(next), 0, None));
    }

    fn current_ipc(state: &AnalysisState, ready: Experiment) -> Option<f64> {
        state.figures_for(Some(ready)).map(|report| report.models[&HEADLINE].ipc)
    }

    /// Issue 42: the models table showed MDM 1983.28 under "Profiling…" when
    /// the final value was 71.27. Figures are read only for what they were
    /// computed for.
    #[test]
    fn issue_42_no_figure_of_another_experiment_or_other_knobs_is_current() {
        let (first, second) = (Experiment { workload: 1, config: 1 }, Experiment { workload: 1, config: 2 });
        let state = Rc::new(AnalysisState::default()).reduce(AnalysisAction::Requested(first));
        assert_eq!(current_ipc(&state, first), None, "pending before the answer");
        let state = state.reduce(analyzed(10.0));
        assert_eq!((current_ipc(&state, first), current_ipc(&state, second)), (Some(10.0), None));
        let state = state.reduce(AnalysisAction::Requested(second));
        assert_eq!(current_ipc(&state, first), None, "profiling again: nothing is current");
        assert_eq!(current_ipc(&state, second), None);
        let state = state.reduce(analyzed(12.0));
        assert_eq!(current_ipc(&state, second), Some(12.0));
        let state = state.reduce(AnalysisAction::KnobsSet(vec![("l1_mshrs".to_owned(), 32.0)]));
        assert_eq!(current_ipc(&state, second), None, "a slider moved: the preview is pending");
        let state = state.reduce(AnalysisAction::Predicted(Box::new(report(5.0))));
        assert_eq!(current_ipc(&state, second), Some(5.0));
        assert_eq!(state.base_figures_for(Some(second)), None, "not the config's own figures");
        let state = state.reduce(AnalysisAction::KnobsSet(vec![("l1_mshrs".to_owned(), 2.5)]));
        let state = state.reduce(AnalysisAction::Failed("l1_mshrs = 2.5: must be a whole number".to_owned()));
        assert_eq!(current_ipc(&state, second), None, "the failed knobs have no figures, the old ones are not theirs");
    }
}
