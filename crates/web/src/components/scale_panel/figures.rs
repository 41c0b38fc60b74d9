//! The figures strip: the scale model's predicted IPC at the target beside
//! the simulated IPC and the headline analytical model's
//! (`warplab_lab::HEADLINE`), each model with its signed error against the
//! simulation; and what predicting saved.

use warplab_lab::HEADLINE;
use warplab_lab::scale::{NoPrediction, Prediction, Rule, SizeRun, Timing};
use yew::prelude::*;

use crate::components::ipc_summary::NO_PREDICTION;
use crate::format;
use crate::glossary;

/// Where the simulated IPC at the target comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Simulated {
    /// The run's own validation of the target.
    Validation,
    /// The simulation panel's finished run of the same workload and config.
    RunPanel,
}

/// A simulation's IPC two ways: without the kernel launch latency (what the
/// scale models measure and are compared with) and with it (what the
/// simulation reports, and the analytical model, which models the launch, is
/// compared with).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunIpc {
    /// Thread instructions over the cycles no launch latency took.
    pub without_launch: f64,
    /// Thread instructions over every cycle.
    pub with_launch: f64,
}

impl RunIpc {
    /// A scale-model run's simulation.
    pub fn of(run: &SizeRun) -> Self {
        let with_launch = if run.cycles == 0 { 0.0 } else { run.thread_insts as f64 / run.cycles as f64 };
        Self { without_launch: run.ipc, with_launch }
    }
}

/// What the strip shows.
pub struct Figures {
    /// The size predicted.
    pub target: u32,
    /// The scale model's IPC there under the rule shown.
    pub predicted: Option<(Rule, f64)>,
    /// The same under the other rule, side by side.
    pub other_rule: Option<(Rule, f64)>,
    /// Why each rule (the one shown, the other) gives no prediction at the
    /// target, when it gives none: shown instead of its figure.
    pub no_prediction: [Option<NoPrediction>; 2],
    /// The simulated IPC there, and where it comes from.
    pub simulated: Option<(RunIpc, Simulated)>,
    /// The headline analytical model's IPC there (only for the loaded config
    /// itself).
    pub analytical: Option<f64>,
    /// Wall time of the run's parts.
    pub timing: Option<Timing>,
}

/// The three IPCs side by side, then the time saved.
pub fn figures(figures: &Figures) -> Html {
    let simulated = figures.simulated.map(|(ipc, _)| ipc.without_launch).filter(|&ipc| ipc > 0.0);
    let with_launch = figures.simulated.map(|(ipc, _)| ipc.with_launch).filter(|&ipc| ipc > 0.0);
    let simulated_note = match figures.simulated {
        Some((_, Simulated::Validation)) => "this run's validation",
        Some((_, Simulated::RunPanel)) => "the simulation above, same workload and config",
        None => "tick Validate, or run the simulation above on the loaded config",
    };
    let analytical_note = if figures.analytical.is_some() {
        "same workload and config; its error is against the simulation with the launch latency, which the model includes"
    } else {
        "for the loaded config's own size only"
    };
    let analytical_name = format!("Analytical ({})", HEADLINE.label());
    // A rule that gives no prediction shows no figure, and its note says why.
    let [predicted, other_rule] = [(figures.predicted, 0), (figures.other_rule, 1)]
        .map(|(figure, k)| figure.filter(|_| figures.no_prediction[k].is_none()).map(|(_, ipc)| ipc));
    html! {
        <>
            <dl class="scale-figures" data-testid="scale-figures">
                { figure("Scale-model prediction", "scale-predicted", predicted, simulated,
                    &rule_note(figures.predicted, figures.target, figures.no_prediction[0]), glossary::METHOD_SCALE_MODEL) }
                { figure("The other rule", "scale-other-rule", other_rule, simulated,
                    &rule_note(figures.other_rule, figures.target, figures.no_prediction[1]), glossary::RULE_BOTH) }
                { figure("Simulated, without the launch latency", "scale-simulated", simulated, None, simulated_note, glossary::SCALE_LAUNCH_LATENCY) }
                { figure(&analytical_name, "scale-analytical", figures.analytical, with_launch, analytical_note, glossary::model(HEADLINE)) }
            </dl>
            { speedup(figures.timing) }
        </>
    }
}

/// Which rule and size a scale-model figure is for, and why the rule gives
/// no prediction there if it gives none.
fn rule_note(figure: Option<(Rule, f64)>, target: u32, none: Option<NoPrediction>) -> String {
    let note = figure.map_or(format!("at {target} SMs"), |(rule, _)| format!("{} rule, at {target} SMs", rule.name()));
    match none {
        Some(none) => format!("{note}: {NO_PREDICTION}, since {none}"),
        None => note,
    }
}

/// One figure: its name, IPC, its error against `simulated` if both exist, and a note.
fn figure(name: &str, testid: &str, ipc: Option<f64>, simulated: Option<f64>, note: &str, explain: &str) -> Html {
    let error = ipc.zip(simulated).map(|(ipc, simulated)| 100.0 * (ipc - simulated) / simulated);
    html! {
        <div title={explain.to_owned()}>
            <dt>{ name }</dt>
            <dd>
                if let Some(ipc) = ipc {
                    <span class="figure-ipc" data-testid={format!("{testid}-ipc")} data-value={ipc.to_string()}>
                        { format::decimal(ipc) }
                    </span>
                    <span class="ipc-unit">{ " IPC" }</span>
                } else {
                    <span class="figure-ipc muted" data-testid={format!("{testid}-ipc")}>{ "–" }</span>
                }
                if let Some(error) = error {
                    <span class={classes!("figure-error", format::error_class(error))}
                        data-testid={format!("{testid}-error")} data-value={error.to_string()} title={glossary::MODEL_ERROR}>
                        { format!("{} vs simulated", format::marked_error(error)) }
                    </span>
                }
            </dd>
            <dd class="hint">{ note }</dd>
        </div>
    }
}

/// What the two scale models measured and the predictor made of it: their
/// IPCs, the larger one's f_mem, the shortfall against doubling, the cliff.
pub fn measured(scale_models: &[SizeRun], prediction: &Prediction, has_curve: bool) -> Html {
    let [small, large] = scale_models else { return html! {} };
    let cliff = match prediction.cliff {
        Some(cliff) => format!("between {} and {} SMs", cliff.from, cliff.to),
        None if has_curve => "none up to the target".to_owned(),
        None => "not looked for (weak scaling)".to_owned(),
    };
    html! {
        <p class="hint scale-measured" data-testid="scale-measured">
            { format!("Measured: IPC {} at {} SMs and {} at {} SMs (", format::decimal(small.ipc), small.sms,
                format::decimal(large.ipc), large.sms) }
            <span class="term" title={glossary::SCALE_SHORTFALL}>{ shortfall(prediction.shortfall) }</span>
            { "); " }
            <span class="term" title={glossary::SCALE_F_MEM} data-testid="scale-f-mem" data-value={large.f_mem.to_string()}>
                { format!("f_mem {}", format::share(large.f_mem)) }
            </span>
            { format!(" at {} SMs; ", large.sms) }
            <span class="term" title={glossary::CLIFF}>{ format!("cliff: {cliff}") }</span>
            { "." }
        </p>
    }
}

/// `b` in words: negative when doubling the scale model fell short of
/// doubling its IPC (the usual case), positive when it did better.
fn shortfall(b: f64) -> String {
    if b < 0.0 {
        format!("{} short of doubling", format::share(-b))
    } else {
        format!("{} beyond doubling", format::share(b))
    }
}

/// The wall time of predicting against that of simulating the target.
fn speedup(timing: Option<Timing>) -> Html {
    let Some(timing) = timing else { return html! {} };
    let predicting = timing.scale_models_s + timing.curve_s;
    // Under weak scaling there is no curve: the paper's T_target / (T_small + T_large).
    let text = if timing.targets_s > 0.0 {
        let verdict = if timing.speedup >= 1.0 {
            format!("predicting was {}× faster", format::decimal(timing.speedup))
        } else {
            "for a workload this small, predicting saves nothing".to_owned()
        };
        format!(
            "Predicting took {} s (scale models {} s, curve {} s); simulating the target took {} s: {verdict}.",
            seconds(predicting),
            seconds(timing.scale_models_s),
            seconds(timing.curve_s),
            seconds(timing.targets_s),
        )
    } else {
        format!("Predicting took {} s in this browser; validate to time the target too.", seconds(predicting))
    };
    html! { <p class="hint scale-timing" data-testid="scale-timing" title={glossary::SCALE_SPEEDUP}>{ text }</p> }
}

/// Seconds with a sensible number of decimals.
fn seconds(value: f64) -> String {
    if value >= 10.0 { format!("{value:.0}") } else { format!("{value:.2}") }
}
