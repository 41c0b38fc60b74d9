//! The page's state and the actions that change it; the reducer is pure.

use std::rc::Rc;

use warplab_lab::WorkloadSummary;
use yew::Reducible;

/// Where the current workload stands.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkloadStatus {
    /// The worker is reading it.
    Loading,
    /// The worker read it.
    Loaded(WorkloadSummary),
    /// Reading failed; the message names the file and line.
    Failed(String),
}

/// Everything the page shows.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// Label of the chosen workload.
    pub workload_label: String,
    /// Its status.
    pub workload: WorkloadStatus,
}

/// The changes the page can make to its state.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// A workload was chosen and the worker asked to read it.
    SampleRequested {
        /// Its label.
        label: String,
    },
    /// The worker answered with a summary.
    Loaded(WorkloadSummary),
    /// The worker answered with an error.
    Failed(String),
}

impl State {
    /// The state before the worker has answered anything.
    pub fn new(workload_label: &str) -> Self {
        State { workload_label: workload_label.to_owned(), workload: WorkloadStatus::Loading }
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::SampleRequested { label } => {
                next.workload_label = label;
                next.workload = WorkloadStatus::Loading;
            }
            Action::Loaded(summary) => next.workload = WorkloadStatus::Loaded(summary),
            // A failure keeps the label so the user sees what failed.
            Action::Failed(message) => next.workload = WorkloadStatus::Failed(message),
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_keeps_the_label_and_a_new_request_clears_it() {
        let state = Rc::new(State::new("vectoradd"));
        let failed = state.reduce(Action::Failed("k.traceg:3: mask: bad".into()));
        assert_eq!(failed.workload_label, "vectoradd");
        assert_eq!(failed.workload, WorkloadStatus::Failed("k.traceg:3: mask: bad".into()));
        let again = failed.reduce(Action::SampleRequested { label: "other".into() });
        assert_eq!(*again, State::new("other"));
    }
}
