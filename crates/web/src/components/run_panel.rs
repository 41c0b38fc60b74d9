//! The run panel: Run and Cancel, the progress bar, and where the run is.

use yew::prelude::*;

use crate::components::HelpLink;
use crate::run_state::{RunPhase, RunState};

/// Properties of [`RunPanel`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct RunPanelProps {
    /// The run.
    pub run: RunState,
    /// Whether a workload and a config have loaded, so a run can start.
    pub ready: bool,
    /// Run was pressed.
    pub on_run: Callback<()>,
    /// Cancel was pressed.
    pub on_cancel: Callback<()>,
    /// The animation's controls, shown while a run exists.
    #[prop_or_default]
    pub children: Children,
}

/// Run, Cancel, the progress bar and the run's status.
#[component]
pub fn RunPanel(props: &RunPanelProps) -> Html {
    let run = &props.run;
    let on_run = props.on_run.reform(|_: MouseEvent| ());
    let on_cancel = props.on_cancel.reform(|_: MouseEvent| ());
    let busy = matches!(run.phase, RunPhase::Starting | RunPhase::Running | RunPhase::Paused);
    html! {
        <section class="panel run-panel">
            <h2>{ "Simulation" }<HelpLink id="simulation" /></h2>
            <div class="controls">
                <button class="button primary" data-testid="run" onclick={on_run} disabled={!props.ready}
                    title="Simulate the workload on the GPU with the cycle-level timing model, in the worker">
                    { if busy { "Run again" } else { "Run" } }
                </button>
                <button class="button" data-testid="cancel" onclick={on_cancel} disabled={!busy}
                    title="Stop the run and forget it">{ "Cancel" }</button>
                { progress(run) }
            </div>
            { for props.children.iter() }
            if let Some(error) = &run.error {
                <p class="error" role="alert" data-testid="run-error">{ error }</p>
            }
        </section>
    }
}

/// The progress bar and its caption: warp instructions issued of the
/// workload's total, and the cycle.
fn progress(run: &RunState) -> Html {
    let phase = match run.phase {
        RunPhase::Idle => return html! {},
        RunPhase::Starting => "starting",
        RunPhase::Running => "running",
        RunPhase::Paused => "paused",
        RunPhase::Finished => "finished",
        RunPhase::Cancelled => "cancelled",
    };
    let (done, total, cycle) = run.latest.as_ref().map_or((0, 1, 0), |u| (u.warp_insts, u.total_warp_insts, u.cycle));
    let percent = if total == 0 { 100.0 } else { 100.0 * done as f64 / total as f64 };
    html! {
        <span class="run-progress">
            <progress data-testid="run-progress" max={total.max(1).to_string()} value={done.to_string()}
                title="Warp instructions issued so far, of the workload's total" />
            <span data-testid="run-status" class="status">
                { format!("{phase} · cycle {cycle} · {done} of {total} warp instructions ({percent:.0}%)") }
            </span>
        </span>
    }
}
