//! The scale-model panel: the target and its scale models side by side (what
//! is divided, what is kept), a run that simulates the two scale models in
//! the worker and predicts the target, its scaling chart (IPC against SMs:
//! the scale models, the prediction, the four baselines, the simulated truth
//! where run) and miss-rate curve with the cliff marked, the predicted IPC
//! beside the simulated and analytical ones; and the paper's published
//! benchmarks, evaluated on the page, so a class can reproduce its figure.
//!
//! The panel renders what it is given, like the analytical panel: the state
//! lives in [`ScaleState`], choices go up as [`ScaleAction`]s, and the pair
//! of scale models and Predict go to the page, which asks the worker. Its
//! parts are one file each under `scale_panel/`.

mod charts;
mod controls;
mod error_tables;
mod figures;
mod published;
mod sizes_table;

use warplab_lab::scale::{Prediction, Rule, ScaleReport};
use yew::prelude::*;

use crate::agent::ScaleSetup;
use crate::components::{HelpLink, chart};
use crate::scale_state::{ScaleAction, ScaleState};
use crate::state::Experiment;
use crate::{format, glossary};
use charts::{Scaling, Source, miss_curve_chart, scaling_chart};
use controls::{ControlCallbacks, controls, rule_controls};
use error_tables::validation_table;
pub use figures::RunIpc;
use figures::{Figures, Simulated, figures, measured};
use published::published_section;
use sizes_table::sizes_table;

/// Properties of [`ScalePanel`].
#[derive(Debug, Clone, Properties)]
pub struct ScalePanelProps {
    /// The plan, the choices, the run and the published data.
    pub state: ScaleState,
    /// The loaded workload and config, once both have loaded and nothing loads.
    #[prop_or_default]
    pub ready: Option<Experiment>,
    /// The IPC of a finished run of the loaded config, with and without the
    /// launch latency, and its experiment.
    #[prop_or_default]
    pub simulated: Option<(Experiment, RunIpc)>,
    /// The headline analytical model's IPC (`warplab_lab::HEADLINE`) for
    /// the loaded config (no knob moved), and its experiment.
    #[prop_or_default]
    pub analytical: Option<(Experiment, f64)>,
    /// The workload is generated, so it can grow with the GPU (weak scaling).
    #[prop_or_default]
    pub generated: bool,
    /// What the prediction of the experiment on the page waits for, while
    /// there is none: only a report of that experiment is shown.
    #[prop_or_default]
    pub waiting: Option<AttrValue>,
    /// A pair of scale models was chosen: the page asks the worker to plan it.
    pub on_pair: Callback<[u32; 2]>,
    /// A choice that stays on the page (target, rule, validation, published data).
    pub on_change: Callback<ScaleAction>,
    /// Predict was pressed.
    pub on_predict: Callback<()>,
    /// Cancel was pressed while the scale models ran.
    pub on_cancel: Callback<()>,
    /// "Use N SMs" was pressed for a config no pair divides: the page sets
    /// the config's SM count to this (an `n_sms` edit).
    pub on_target_sms: Callback<u32>,
}

impl PartialEq for ScalePanelProps {
    /// The data, not the callbacks, as `AnalyticalPanelProps` and for the same
    /// reason: the page re-renders many times a second during a run.
    fn eq(&self, other: &Self) -> bool {
        (&self.state, self.ready, self.simulated, self.analytical, self.generated, &self.waiting)
            == (&other.state, other.ready, other.simulated, other.analytical, other.generated, &other.waiting)
    }
}

/// Shows the scale-model panel.
#[component]
pub fn ScalePanel(props: &ScalePanelProps) -> Html {
    let state = &props.state;
    html! {
        <section class="panel scale-panel" id="scale-panel" data-testid="scale-panel">
            <h2 title={glossary::SCALE_PANEL}>{ "Scale model" }<HelpLink id="scale-panel" /></h2>
            <p class="note">
                { "Predict this GPU's IPC from two small copies of it: " }
                <span class="term" title={glossary::SCALE_MODEL}>{ "scale models" }</span>
                { " with the shared resources divided and the per-SM ones kept. Simulating them is far cheaper than \
                   simulating the target; their IPCs and the L2 " }
                <span class="term" title={glossary::MISS_CURVE}>{ "miss-rate curve" }</span>
                { " give the prediction." }
            </p>
            { rule_controls(state.rule, &props.on_change) }
            if let Some(setup) = &state.setup {
                { undividable(setup, &props.on_target_sms) }
                { controls(state, setup, props.ready.is_some(), props.generated, ControlCallbacks {
                    on_pair: &props.on_pair, on_change: &props.on_change, on_predict: &props.on_predict,
                    on_cancel: &props.on_cancel,
                }) }
                { sizes_table(setup, state.target_sms().unwrap_or(setup.target_sms)) }
            } else {
                <p class="status" data-testid="scale-status">{ "Scale models are planned once a config has loaded." }</p>
            }
            if let Some(error) = &state.error {
                <p class="error" role="alert" data-testid="scale-error">{ error }</p>
            }
            if state.cancelled {
                <p class="status" data-testid="scale-cancelled">
                    { "Cancelled before the scale models finished: Predict runs them again." }
                </p>
            }
            { results(props) }
            { published_section(state, &props.on_change) }
        </section>
    }
}

/// Why no scale models can be cut from this config, and what would work:
/// the nearest SM count that divides, at a click.
fn undividable(setup: &ScaleSetup, on_target_sms: &Callback<u32>) -> Html {
    let Some(error) = &setup.error else { return html! {} };
    let n = setup.target_sms;
    let nearest = setup.nearest_target.map(|sms| {
        let onclick = on_target_sms.reform(move |_: MouseEvent| sms);
        html! {
            <p class="note" data-testid="scale-nearest">
                { format!("The nearest SM count that divides is {sms}: ") }
                <button type="button" class="button" data-testid="scale-use-nearest" {onclick}
                    title={format!("Change the loaded config to {sms} SMs (the other options unchanged) and plan its scale models")}>
                    { format!("Use {sms} SMs") }
                </button>
            </p>
        }
    });
    html! {
        <div class="scale-undividable" data-testid="scale-undividable">
            <p class="error" role="alert" data-testid="scale-plan-error">{ error }</p>
            { nearest.unwrap_or_default() }
            if setup.workable.is_empty() {
                <p class="note">
                    { format!("A scale model divides the GPU's shared resources (SMs, L2 slices, memory channels) by \
                       a power of two, at least 4 from the smaller scale model to the target, so the SM count and the \
                       channels must divide by it; {n} SMs = {} does not. Pick a preset that divides, such as \
                       scalemodel-128sm (the paper's GPU: scale models of 8 and 16 SMs) or SM7_QV100 (80 SMs: 5 and \
                       10), or load a config whose SMs and channels divide by 4.", factors(n)) }
                </p>
            }
        </div>
    }
}

/// `n` as a product of primes: `2 × 23`.
fn factors(mut n: u32) -> String {
    let mut primes = Vec::new();
    let mut p = 2;
    while n > 1 && p * p <= n {
        while n.is_multiple_of(p) {
            primes.push(p.to_string());
            n /= p;
        }
        p += 1;
    }
    if n > 1 || primes.is_empty() {
        primes.push(n.to_string());
    }
    primes.join(" × ")
}

/// The last run's figures, charts and validation, when it is of the
/// experiment on the page; else what that experiment's prediction waits for.
fn results(props: &ScalePanelProps) -> Html {
    let state = &props.state;
    let current = props.ready.is_some() && state.report_for == props.ready;
    let (Some(report), Some(prediction), true) = (&state.report, state.prediction(), current) else {
        // A cancelled run says so in its own line, above.
        let idle = state.running.is_none() && !state.cancelled;
        let Some(waiting) = props.waiting.clone().filter(|_| idle) else { return html! {} };
        return html! { <p class="status" data-testid="scale-pending">{ "The prediction: " }{ waiting }{ "." }</p> };
    };
    let other_rule = Rule::ALL.into_iter().find(|&r| r != state.rule).unwrap_or(Rule::Paper);
    let other = &report.outcome(other_rule).prediction;
    let target = prediction.target();
    let current = |e: &Experiment| Some(*e) == state.report_for;
    let whole_gpu = target == report.target_sms;
    let validated =
        report.validation.iter().find(|run| run.sms == target).map(|run| (RunIpc::of(run), Simulated::Validation));
    let run_panel = props.simulated.filter(|(e, _)| current(e) && whole_gpu).map(|(_, ipc)| (ipc, Simulated::RunPanel));
    let other_ipc = other.ipc(warplab_lab::scale::Method::ScaleModel, target).map(|ipc| (other_rule, ipc));
    let simulated = validated.or(run_panel);
    let strip = Figures {
        target,
        predicted: prediction.ipc(warplab_lab::scale::Method::ScaleModel, target).map(|ipc| (state.rule, ipc)),
        other_rule: other_ipc,
        no_prediction: [prediction.no_prediction(target), other.no_prediction(target)],
        simulated,
        analytical: props.analytical.filter(|(e, _)| current(e) && whole_gpu).map(|(_, ipc)| ipc),
        timing: report.timing,
    };
    let mut truth: Vec<(u32, f64)> = report.validation.iter().map(|run| (run.sms, run.ipc)).collect();
    if validated.is_none() {
        truth.extend(simulated.map(|(ipc, _)| (target, ipc.without_launch)));
    }
    let scaling =
        Scaling { prediction, scale_models: report.scale_models.iter().map(|run| (run.sms, run.ipc)).collect(), truth };
    let sizes = &report.sizes;
    html! {
        <div class="scale-results" data-testid="scale-results">
            <h3 class="subheading">{ format!("Prediction of {target} SMs from {} and {} SMs", sizes.first().copied().unwrap_or(0), sizes.get(1).copied().unwrap_or(0)) }</h3>
            { figures(&strip) }
            { measured(&report.scale_models, prediction, report.curve.is_some()) }
            <p class="hint" data-testid="scale-launch-note" title={glossary::SCALE_LAUNCH_LATENCY}>
                { format!("Every IPC here leaves out the kernel launch latency ({} cycles a launch at every size), \
                   which no scale model can measure.", report.launch_latency) }
            </p>
            { for report.warnings.iter().map(|w| html! { <p class="warning" role="note" data-testid="scale-warning">{ w }</p> }) }
            { write_backs(report) }
            <div class="charts">
                { chart::line_chart(&scaling_chart(Source::Run, &scaling)) }
                { miss_curve_or_why(report, prediction) }
            </div>
            { validation_table(prediction, other, &report.validation) }
            if !report.diagnostics.is_empty() {
                <details class="diagnostics" data-testid="scale-diagnostics">
                    <summary>{ format!("{} diagnostics", report.diagnostics.len()) }</summary>
                    <ul>{ for report.diagnostics.iter().map(|d| html! { <li>{ d }</li> }) }</ul>
                </details>
            }
        </div>
    }
}

/// The miss-rate curve under strong scaling; under weak scaling, why there
/// is none.
fn miss_curve_or_why(report: &ScaleReport, prediction: &Prediction) -> Html {
    match &report.curve {
        Some(curve) => {
            let mpki: Vec<f64> = curve.points.iter().map(|p| p.mpki).collect();
            chart::line_chart(&miss_curve_chart(Source::Run, &report.sizes, &mpki, prediction.cliff))
        }
        None => html! {
            <p class="note scale-no-curve" data-testid="scale-no-curve" title={glossary::WEAK_SCALING}>
                { "No miss-rate curve under weak scaling: each size runs its own share of the work, so every size \
                   has as much LLC per unit of work as the target, and there is no cliff to look for. As the paper \
                   does, the prediction uses the pre-cliff rule only, and the scale models are all it simulates." }
            </p>
        },
    }
}

/// The DRAM writes per 1,000 instructions each simulated size measured,
/// beside its MPKI: write-backs the read-miss curve cannot see.
fn write_backs(report: &ScaleReport) -> Html {
    html! {
        <p class="hint" data-testid="scale-write-backs" title={glossary::SCALE_WRITE_BACKS}>
            { "Measured L2 MPKI and DRAM writes per 1,000 instructions: " }
            { for report.simulated().enumerate().map(|(k, run)| html! {
                <span data-testid={format!("scale-wpki-{}", run.sms)} data-value={run.dram_writes_pki.to_string()}>
                    { format!("{}{} SMs {} / {}", if k > 0 { "; " } else { "" }, run.sms,
                        format::decimal(run.l2_mpki), format::decimal(run.dram_writes_pki)) }
                </span>
            }) }
            { "." }
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sm_counts_factor_into_primes() {
        assert_eq!(factors(46), "2 × 23");
        assert_eq!(factors(128), "2 × 2 × 2 × 2 × 2 × 2 × 2");
        assert_eq!(factors(7), "7");
        assert_eq!(factors(1), "1");
    }
}
