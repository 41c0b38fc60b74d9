//! Each method's error against simulation: over the published benchmarks,
//! the mean and maximum at every predicted size (the paper's accuracy
//! figure); for a validated run, the prediction and its error at each
//! simulated target. Both are methods down and sizes across.

use warplab_lab::scale::{Method, Prediction, SizeRun, SummaryRow};
use yew::prelude::*;

use crate::components::scale_panel::charts::method_style;
use crate::format;
use crate::glossary;

/// Methods down, sizes across, `mean / max` in each cell.
pub fn summary_table(summary: &[SummaryRow]) -> Html {
    let mut sizes: Vec<u32> = summary.iter().map(|row| row.target_units).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let cell = |method: Method, &size: &u32| {
        let row = summary.iter().find(|r| r.model == method && r.target_units == size)?;
        Some(html! {
            <td class="num" data-testid={format!("summary-{}-{size}", method.label())}
                data-mean={row.mean_err_pct.to_string()} data-max={row.max_err_pct.to_string()}>
                { format!("{:.2} / {:.2}", row.mean_err_pct, row.max_err_pct) }
            </td>
        })
    };
    let columns = MethodTable {
        class: "scale-summary",
        testid: "published-summary",
        explain: glossary::SCALE_ERROR,
        heading: |size: &u32| format!("{size} SMs: mean / max %"),
    };
    method_table(&columns, &sizes, cell, html! {})
}

/// Methods down, validated targets across: the predicted IPC and its signed
/// error against the target's simulation; then the Scale-Model under the
/// `other` prediction's rule, side by side, and the simulated IPC.
pub fn validation_table(prediction: &Prediction, other: &Prediction, validation: &[SizeRun]) -> Html {
    if validation.is_empty() {
        return html! {};
    }
    let predicted = |p: &Prediction, method: Method, run: &SizeRun, testid: String| {
        let ipc = p.ipc(method, run.sms)?;
        let error = 100.0 * (ipc - run.ipc) / run.ipc;
        Some(html! {
            <td class="num" data-testid={testid} data-value={error.to_string()}>
                { format!("{} ({})", format::decimal(ipc), format::signed_percent(error)) }
            </td>
        })
    };
    let cell = |method: Method, run: &SizeRun| {
        predicted(prediction, method, run, format!("validation-{}-{}", method.label(), run.sms))
    };
    let rule = other.rule.name();
    let simulated = html! {
        <>
        <tr class="other-rule">
            <th scope="row" title={glossary::RULE_BOTH}>{ format!("Scale-Model ({rule} rule)") }</th>
            { for validation.iter().map(|run| {
                predicted(other, Method::ScaleModel, run, format!("validation-other-rule-{}", run.sms))
                    .unwrap_or_else(|| html! { <td class="num muted">{ "–" }</td> })
            }) }
        </tr>
        <tr class="simulated">
            <th scope="row" title={glossary::SIMULATED_TRUTH}>{ "simulated" }</th>
            { for validation.iter().map(|run| html! {
                <td class="num ipc" data-value={run.ipc.to_string()}>{ format::decimal(run.ipc) }</td>
            }) }
        </tr>
        </>
    };
    let columns = MethodTable {
        class: "scale-validation",
        testid: "scale-validation",
        explain: glossary::MODEL_ERROR,
        heading: |run: &SizeRun| format!("IPC at {} SMs (error)", run.sms),
    };
    method_table(&columns, validation, cell, simulated)
}

/// What tells the two tables apart.
struct MethodTable<H> {
    /// The table's class beside `kernels models`.
    class: &'static str,
    testid: &'static str,
    /// What the column headings' numbers are, on hover.
    explain: &'static str,
    /// A column's heading.
    heading: H,
}

/// One row per method (the scale model's in bold), one column per item of
/// `columns`, a dash where `cell` has nothing, then `last_row`.
fn method_table<T, H: Fn(&T) -> String>(
    table: &MethodTable<H>,
    columns: &[T],
    cell: impl Fn(Method, &T) -> Option<Html>,
    last_row: Html,
) -> Html {
    let cell = |method, column| cell(method, column).unwrap_or_else(|| html! { <td class="num muted">{ "–" }</td> });
    html! {
        <div class="table-scroll" tabindex="0">
            <table class={classes!("kernels", "models", table.class)} data-testid={table.testid}>
                <thead>
                    <tr>
                        <th>{ "method" }</th>
                        { for columns.iter().map(|column| html! {
                            <th class="num" title={table.explain}>{ (table.heading)(column) }</th>
                        }) }
                    </tr>
                </thead>
                <tbody>
                    { for Method::ALL.into_iter().map(|method| html! {
                        <tr class={(method == Method::ScaleModel).then_some("highlight")}>
                            <th scope="row" title={method_style(method).explain}>{ method.label() }</th>
                            { for columns.iter().map(|column| cell(method, column)) }
                        </tr>
                    }) }
                    { last_row }
                </tbody>
            </table>
        </div>
    }
}
