//! The page's state and the actions that change it; the reducer is pure.

use std::rc::Rc;

use warplab_lab::{ConfigReport, WorkloadSummary};
use yew::Reducible;

/// Something the worker loads: what is shown, what is being loaded, and the
/// last error. A failed load keeps what was shown before.
#[derive(Debug, Clone, PartialEq)]
pub struct Loadable<T> {
    /// What is shown: the last thing that loaded.
    pub current: Option<T>,
    /// The label of what is being loaded, if anything.
    pub loading: Option<String>,
    /// Why the last load failed (file and line), until the next one starts.
    pub error: Option<String>,
}

impl<T> Default for Loadable<T> {
    fn default() -> Self {
        Loadable { current: None, loading: None, error: None }
    }
}

impl<T> Loadable<T> {
    fn request(&mut self, label: String) {
        self.loading = Some(label);
        self.error = None;
    }

    fn loaded(&mut self, value: T) {
        self.current = Some(value);
        self.loading = None;
        self.error = None;
    }

    fn failed(&mut self, message: String) {
        self.loading = None;
        self.error = Some(message);
    }
}

/// Everything the page shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct State {
    /// The workload (a trace).
    pub workload: Loadable<WorkloadSummary>,
    /// The GPU configuration.
    pub config: Loadable<ConfigReport>,
}

/// The changes the page can make to its state.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// A workload was asked of the worker.
    WorkloadRequested(String),
    /// The worker read a workload.
    WorkloadLoaded(WorkloadSummary),
    /// The worker could not read a workload.
    WorkloadFailed(String),
    /// A config was asked of the worker.
    ConfigRequested(String),
    /// The worker read a config.
    ConfigLoaded(Box<ConfigReport>),
    /// The worker could not read a config.
    ConfigFailed(String),
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::WorkloadRequested(label) => next.workload.request(label),
            Action::WorkloadLoaded(summary) => next.workload.loaded(summary),
            Action::WorkloadFailed(message) => next.workload.failed(message),
            Action::ConfigRequested(label) => next.config.request(label),
            Action::ConfigLoaded(report) => next.config.loaded(*report),
            Action::ConfigFailed(message) => next.config.failed(message),
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_load_keeps_what_was_shown() {
        let summary = WorkloadSummary { label: "vectoradd".into(), ..WorkloadSummary::default() };
        let state = Rc::new(State::default());
        let state = state.reduce(Action::WorkloadRequested("vectoradd".into()));
        assert_eq!(state.workload.loading.as_deref(), Some("vectoradd"));
        let state = state.reduce(Action::WorkloadLoaded(summary.clone()));
        let state = state.reduce(Action::WorkloadRequested("mine".into()));
        let state = state.reduce(Action::WorkloadFailed("k.traceg:3: mask: bad".into()));
        assert_eq!(state.workload.current, Some(summary));
        assert_eq!(state.workload.error.as_deref(), Some("k.traceg:3: mask: bad"));
        assert_eq!(state.workload.loading, None);
        let state = state.reduce(Action::WorkloadRequested("again".into()));
        assert_eq!(state.workload.error, None, "a new load clears the old error");
    }
}
