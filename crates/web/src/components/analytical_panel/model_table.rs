//! Each model's IPC, warp IPC and cycles, and its error against the
//! simulated IPC when a finished run of the same workload and config exists;
//! the headline model's row (the one the IPC strip leads with) in bold.

use warplab_lab::{AnalyticalReport, HEADLINE, ModelKind};
use yew::prelude::*;

use crate::format;
use crate::glossary;

/// One row per model (the paper's only when `paper_only`), then the
/// simulated IPC.
///
/// `report` is `None` while the figures of what is on the page are being
/// computed: each row then says so, never an older figure. `simulated` is a
/// finished run's IPC; `comparable` says the figures are for the config it
/// simulated (no knob moved), so errors mean something.
pub fn model_table(
    report: Option<&AnalyticalReport>,
    simulated: Option<f64>,
    comparable: bool,
    paper_only: bool,
) -> Html {
    let Some(report) = report else { return pending_table(paper_only) };
    let reference = simulated.filter(|&ipc| comparable && ipc > 0.0);
    let rows = shown_models(paper_only).filter_map(|model| Some((model, report.models.get(&model)?)));
    html! {
        <div class="table-scroll" tabindex="0">
            <table class="kernels models" data-testid="model-table">
                <thead>
                    <tr>
                        <th>{ "model" }</th>
                        <th class="num" title={glossary::IPC}>{ "IPC" }</th>
                        <th class="num optional" title={glossary::WARP_IPC}>{ "warp IPC" }</th>
                        <th class="num optional" title={glossary::CYCLES}>{ "cycles" }</th>
                        <th class="num" title={glossary::MODEL_ERROR}>{ "vs simulated" }</th>
                    </tr>
                </thead>
                <tbody>
                    { for rows.map(|(model, p)| html! {
                        <tr class={classes!((model == HEADLINE).then_some("highlight"))}>
                            <th scope="row" title={glossary::model(model)}>{ model.label() }</th>
                            <td class="num ipc" data-testid={format!("model-ipc-{}", model.name())}
                                data-value={p.ipc.to_string()}>{ format::decimal(p.ipc) }</td>
                            <td class="num optional">{ format::decimal(p.warp_ipc) }</td>
                            <td class="num optional">{ format::count(p.cycles.round().max(0.0) as u64) }</td>
                            { error_cell(model, p.ipc, reference) }
                        </tr>
                    }) }
                    { simulated_row(simulated, comparable) }
                </tbody>
            </table>
        </div>
    }
}

/// The table while its figures are computed: each model's row, pending.
fn pending_table(paper_only: bool) -> Html {
    html! {
        <div class="table-scroll" tabindex="0">
            <table class="kernels models pending" data-testid="model-table" aria-busy="true">
                <thead><tr><th>{ "model" }</th><th class="num" title={glossary::IPC}>{ "IPC" }</th></tr></thead>
                <tbody>
                    { for shown_models(paper_only).map(|model| html! {
                        <tr>
                            <th scope="row" title={glossary::model(model)}>{ model.label() }</th>
                            <td class="num muted" data-testid={format!("model-pending-{}", model.name())}>
                                { PENDING }
                            </td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// What a figure not yet computed for the experiment on the page shows
/// (the panel's status line says what it waits for).
pub const PENDING: &str = "pending";

/// The model's signed error against `reference`, or why there is none.
fn error_cell(model: ModelKind, ipc: f64, reference: Option<f64>) -> Html {
    let testid = format!("model-error-{}", model.name());
    match reference {
        Some(simulated) => {
            let error = 100.0 * (ipc - simulated) / simulated;
            html! {
                <td class={classes!("num", format::error_class(error))} data-testid={testid} data-value={error.to_string()}>{ format::marked_error(error) }</td>
            }
        }
        None => html! { <td class="num muted" data-testid={testid}>{ "–" }</td> },
    }
}

/// The timing model's IPC, or what to do to get one.
fn simulated_row(simulated: Option<f64>, comparable: bool) -> Html {
    let note = match (simulated, comparable) {
        (None, _) => "Run the simulation to compare.",
        (Some(_), false) => "For the loaded config; the knobs moved.",
        (Some(_), true) => "The timing model, same workload and config.",
    };
    html! {
        <tr class="simulated">
            <th scope="row" title={glossary::IPC}>{ "simulated" }</th>
            if let Some(ipc) = simulated {
                <td class="num ipc" data-testid="simulated-ipc" data-value={ipc.to_string()}>{ format::decimal(ipc) }</td>
            } else {
                <td class="num muted">{ "–" }</td>
            }
            <td class="hint" colspan="3">{ note }</td>
        </tr>
    }
}

/// The models the panel shows: every one, or the MDM paper's only.
pub fn shown_models(paper_only: bool) -> impl Iterator<Item = ModelKind> {
    ModelKind::ALL.into_iter().filter(move |model| !paper_only || model.in_paper())
}
