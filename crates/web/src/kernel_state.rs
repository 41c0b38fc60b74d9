//! The kernel editor's state (issue 41): the listing of the source compiled
//! last, its error, and the per-line figures of its last run. Apart from the
//! page state, as the run's is, so the editor's answers re-render only the
//! kernel panel's props.

use std::rc::Rc;

use warplab_lab::per_pc::PcStalls;
use yew::Reducible;

use crate::authored::{Authored, KernelError, LineFigures};

/// What the kernel panel shows besides the source.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KernelState {
    /// The listing of the source compiled last.
    pub authored: Option<Rc<Authored>>,
    /// The error of the last compile, if it failed.
    pub error: Option<Rc<KernelError>>,
    /// The figures of the last run of `authored`'s workload.
    pub figures: Option<Rc<LineFigures>>,
    /// The last run's per-PC counters as they came (a trace's have no
    /// listing to be placed on).
    pub counted: Option<Rc<Vec<PcStalls>>>,
    /// The source has been edited since `authored` compiled it: its lines
    /// may no longer be the listing's.
    pub edited: bool,
}

/// What changes the kernel panel's state.
#[derive(Debug, Clone, PartialEq)]
pub enum KernelAction {
    /// The worker compiled the source.
    Compiled(Box<Authored>),
    /// The worker could not compile or run it.
    Failed(Box<KernelError>),
    /// A run of the compiled workload counted these per PC.
    Counted(Vec<PcStalls>),
    /// The user edited the source.
    Edited,
    /// A workload that is not a kernel (a trace, a generator) loaded: the
    /// listing and figures of a kernel before are not its.
    OtherWorkload,
}

impl Reducible for KernelState {
    type Action = KernelAction;

    fn reduce(self: Rc<Self>, action: KernelAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            KernelAction::Compiled(authored) => {
                next = KernelState { authored: Some(Rc::new(*authored)), ..KernelState::default() };
            }
            KernelAction::Failed(error) => next.error = Some(Rc::new(*error)),
            KernelAction::Counted(counted) => {
                next.figures = next.authored.as_ref().map(|authored| Rc::new(LineFigures::new(authored, &counted)));
                next.counted = Some(Rc::new(counted));
            }
            // Figures on lines that moved would name the wrong lines; the
            // error's mark goes with the text it was about.
            KernelAction::Edited if self.edited && self.error.is_none() => return self,
            KernelAction::Edited => {
                next.edited = true;
                next.error = None;
            }
            KernelAction::OtherWorkload => next = KernelState::default(),
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use warplab_lab::per_pc::StallCycles;

    use super::*;
    use crate::authored::{KernelListing, ListingRow};

    fn authored() -> Authored {
        let row = ListingRow { pc: 0, sass: "EXIT ;".into(), line: 3 };
        let kernel = KernelListing { name: "k".into(), registers: 2, shared_bytes: 0, rows: vec![row] };
        Authored { file: "k.cu".into(), kernels: vec![kernel], launches: vec!["k".into()] }
    }

    #[test]
    fn figures_follow_the_compiled_listing_and_an_edit_marks_them_stale() {
        let error = KernelError { headline: "k.cu:1:1: error: x".into(), line: 1, from: 0, to: 1 };
        let state = Rc::new(KernelState::default()).reduce(KernelAction::Failed(Box::new(error)));
        assert!(state.error.is_some());
        let state = state.reduce(KernelAction::Counted(Vec::new()));
        assert_eq!(state.figures, None, "nothing compiled to place them on");
        let state = state.reduce(KernelAction::Compiled(Box::new(authored())));
        assert_eq!((state.error.is_none(), state.edited), (true, false), "a compile clears the error");
        let stalls = StallCycles { memory: 640, ..StallCycles::default() };
        let counted = PcStalls { kernel: 0, pc: 0, opcode: "EXIT".into(), issued: 8, bank_conflict_cycles: 0, stalls };
        let state = state.reduce(KernelAction::Counted(vec![counted]));
        let figures = state.figures.clone().expect("placed");
        assert_eq!((figures.by_line[&3].issued, figures.by_line[&3].memory), (8, 640));
        let edited = Rc::clone(&state).reduce(KernelAction::Edited);
        assert!(edited.edited && edited.authored.is_some(), "the listing stays, marked as of the source before");
        let again = Rc::clone(&edited).reduce(KernelAction::Edited);
        assert!(Rc::ptr_eq(&edited, &again), "a keystroke after the first changes nothing");
        let trace = again.reduce(KernelAction::OtherWorkload);
        assert_eq!(*trace, KernelState::default(), "a trace's counters are not placed on a kernel's listing");
        let counted =
            PcStalls { kernel: 0, pc: 0x10, opcode: "LDG".into(), issued: 1, bank_conflict_cycles: 0, stalls };
        let trace = trace.reduce(KernelAction::Counted(vec![counted]));
        assert_eq!((trace.figures.is_none(), trace.counted.as_ref().map(|c| c.len())), (true, Some(1)));
    }
}
