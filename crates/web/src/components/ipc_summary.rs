//! The three IPCs side by side at the top of the page: simulated, analytical
//! (the headline model, `warplab_lab::HEADLINE`, named on its card, with MDM
//! as published on a line of its own under it) and scale-model predicted.
//! Like is compared with like: each model's error names and shows the figure
//! it is measured against (the simulation of the same size, with the launch
//! latency in or out on both sides as the card says; the full run once a
//! sampled one was compared with it), a sampled simulated figure says it is
//! an estimate and how far off such estimates are, a key ([`ErrorKey`], under
//! the dock) explains the signs, marks and colours, and a pinned baseline adds a row to
//! each card as Nsight Compute's baseline view has it: now, baseline and the
//! difference.

use warplab_lab::{HEADLINE, ModelKind};
use yew::prelude::*;

use crate::baseline::{Figures, change_pct};
use crate::format;
use crate::glossary;

/// Properties of [`IpcSummary`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct IpcSummaryProps {
    /// The current experiment's figures.
    pub figures: Figures,
    /// What is still being computed, per figure, e.g. `running`.
    pub pending: [Option<AttrValue>; 3],
    /// The pinned baseline's figures, if one is pinned.
    pub baseline: Option<Figures>,
    /// Pin the current figures (when `baseline` is `None`) or unpin.
    pub on_pin: Callback<()>,
    /// Whether there is anything to pin yet.
    pub can_pin: bool,
    /// The size the scale-model IPC is predicted for, when the user chose
    /// one other than the config's own.
    #[prop_or_default]
    pub scale_target: Option<ScaleTarget>,
    /// The simulation's IPC without the kernel launch latency, which the
    /// scale-model figure for the config's own size is compared with (the
    /// scale models leave it out too); `None`: the simulated figure.
    #[prop_or_default]
    pub simulated_without_launch: Option<f64>,
    /// How the simulated figure was sampled, when it was: the card says so,
    /// since a sampled IPC is itself an estimate.
    #[prop_or_default]
    pub sampled: Option<Sampled>,
    /// Why the scale-model rule gives no prediction at the target, when it
    /// gives none (`warplab_lab::scale::NoPrediction`): the card says so
    /// instead of a figure.
    #[prop_or_default]
    pub scale_no_prediction: Option<AttrValue>,
}

/// A sampled simulated figure: how it was sampled, and the full run's IPC
/// once the user had the run compared with one.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled {
    /// The sampling mode, as the strip names it (e.g. `Photon`).
    pub how: AttrValue,
    /// The same workload and config simulated in full, when compared.
    pub full_ipc: Option<f64>,
}

/// How far off a sampled IPC has been from the full run's: the mean of
/// |sampled − full| / full over the nine cases `cargo xtask sampling`
/// measured (docs/validation.md, "Sampled simulation (Photon)").
pub const SAMPLED_MEAN_ERROR_PCT: f64 = 18.2;

/// A scale-model target other than the config's own size: the simulation
/// of the config is then not what the prediction is compared with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScaleTarget {
    /// The target, in SMs.
    pub sms: u32,
    /// The loaded config's own SMs: the size the simulated card is of.
    pub whole_gpu_sms: u32,
    /// The target's own simulation, when the scale-model run validated it.
    pub simulated: Option<f64>,
}

/// The headline strip.
#[component]
pub fn IpcSummary(props: &IpcSummaryProps) -> Html {
    let f = props.figures;
    let base = props.baseline;
    let models_against = model_reference(f.simulated, props.sampled.as_ref());
    let (scale_against, scale_unmatched) = scale_reference(props, models_against.as_ref());
    let cards = [
        Card {
            name: simulated_name(props.sampled.as_ref(), props.scale_target),
            id: "simulated",
            ipc: f.simulated,
            before: base.and_then(|b| b.simulated),
            against: None,
            explain: glossary::SIMULATED_TRUTH,
            no_figure: None,
            more: sampled_note(f.simulated, props.sampled.as_ref()),
        },
        Card {
            name: format!("Analytical ({})", HEADLINE.label()),
            id: "analytical",
            ipc: f.analytical,
            before: base.and_then(|b| b.analytical),
            against: models_against.clone(),
            explain: glossary::model(HEADLINE),
            no_figure: None,
            more: mdm_line(f.mdm, models_against.as_ref()),
        },
        Card {
            name: props.scale_target.map_or("Scale-model".to_owned(), |t| format!("Scale-model, for {} SMs", t.sms)),
            id: "scale",
            ipc: f.scale,
            before: base.and_then(|b| b.scale),
            against: scale_against,
            explain: glossary::METHOD_SCALE_MODEL,
            no_figure: props.scale_no_prediction.clone(),
            more: scale_unmatched,
        },
    ];
    let on_pin = props.on_pin.reform(|_: MouseEvent| ());
    html! {
        <section class="panel ipc-summary" data-testid="ipc-summary" aria-label="The three IPCs">
            <div class="ipc-figures">
                { for cards.into_iter().zip(&props.pending).map(|(card, pending)| {
                    figure(card, pending.as_ref(), base.is_some())
                }) }
            </div>
            <button class="pin" data-testid="pin-baseline" onclick={on_pin} disabled={!props.can_pin && base.is_none()}
                title="Keep these figures to compare the next change against">
                { if base.is_some() { "Unpin baseline" } else { "Pin as baseline" } }
            </button>
        </section>
    }
}

/// What an error is measured against: the figure, shown beside the error,
/// and what it is, e.g. `simulated at 32 SMs`.
#[derive(Debug, Clone, PartialEq)]
struct Reference {
    ipc: f64,
    what: String,
    /// Whether the launch latency is in both figures.
    with_launch: bool,
}

/// What the analytical models are measured against: the full run once a
/// sampled run was compared with one, else the simulated figure, named as
/// sampled when it is. Both sides include the launch latency.
fn model_reference(simulated: Option<f64>, sampled: Option<&Sampled>) -> Option<Reference> {
    let (ipc, what) = match sampled {
        Some(Sampled { full_ipc: Some(full), .. }) => (*full, "simulated in full"),
        Some(_) => (simulated?, "simulated (sampled)"),
        None => (simulated?, "simulated"),
    };
    Some(Reference { ipc, what: what.to_owned(), with_launch: true })
}

/// What the scale-model figure is measured against: the simulation of the
/// same size, both without the launch latency (no scale model can measure
/// it). A target other than the config's own is measured against its own
/// simulation only; without one the card says so (the second value).
fn scale_reference(props: &IpcSummaryProps, models: Option<&Reference>) -> (Option<Reference>, Html) {
    let sampled = models.is_some_and(|m| m.what.contains("sampled"));
    match (props.scale_target, props.simulated_without_launch) {
        (Some(ScaleTarget { sms, simulated: Some(ipc), .. }), _) => {
            (Some(Reference { ipc, what: format!("simulated at {sms} SMs"), with_launch: false }), html! {})
        }
        (Some(ScaleTarget { sms, simulated: None, .. }), _) => {
            let why = format!(
                "No simulation of {sms} SMs to compare with (the simulated card is the whole GPU): tick Validate \
                 in the Scale model panel."
            );
            (None, html! { <div class="hint" data-testid="ipc-scale-unmatched">{ why }</div> })
        }
        (None, Some(ipc)) => {
            let what = if sampled { "simulated (sampled)" } else { "simulated" };
            (Some(Reference { ipc, what: what.to_owned(), with_launch: false }), html! {})
        }
        (None, None) => (None, html! {}),
    }
}

/// The simulated card's name: it says when the figure is sampled, and its
/// size when the scale-model card beside it is of another.
fn simulated_name(sampled: Option<&Sampled>, scale_target: Option<ScaleTarget>) -> String {
    let name = sampled.map_or("Simulated".to_owned(), |s| format!("Simulated ({} sampling)", s.how));
    match scale_target {
        Some(target) => format!("{name}, the whole GPU ({} SMs)", target.whole_gpu_sms),
        None => name,
    }
}

/// Under a sampled simulated figure: that it is an estimate, and how far
/// off it is (measured against the full run when compared, else as such
/// estimates have been).
fn sampled_note(simulated: Option<f64>, sampled: Option<&Sampled>) -> Html {
    let Some(sampled) = sampled.filter(|_| simulated.is_some()) else { return html! {} };
    let text = match change_pct(sampled.full_ipc, simulated) {
        Some(error) => format!(
            "A sampled estimate: {} vs {} simulated in full.",
            format::signed_percent(error),
            sampled.full_ipc.map_or_else(String::new, format::decimal)
        ),
        None => format!(
            "A sampled estimate: expected error ±{SAMPLED_MEAN_ERROR_PCT}% (mean of the measured cases); \
             \u{201c}Run in full to compare\u{201d} measures it."
        ),
    };
    html! { <div class="hint" data-testid="ipc-simulated-sampled">{ text }</div> }
}

/// The key to the strip's errors: what the sign, the mark and the colour
/// mean. The page puts it right under the dock rather than in it, so the
/// part that stays in view on a wide screen keeps its height.
#[component]
pub fn ErrorKey() -> Html {
    html! {
        <p class="ipc-key hint" data-testid="ipc-key">
            { "Error = (model − reference) ÷ reference, the reference shown after “vs”: + the model predicts a higher \
               IPC, − a lower one. " }
            <span class="figure-error error-small">{ "✓ within ±10%" }</span>
            { ", " }
            <span class="figure-error error-large">{ "✗ beyond" }</span>
            { "." }
        </p>
    }
}

/// What a card shows when its model gives no figure (the reason follows).
pub const NO_PREDICTION: &str = "no prediction";

/// MDM as published, under the headline model's figure: its IPC and its
/// own error against the models' reference, once the analysis has it.
fn mdm_line(ipc: Option<f64>, against: Option<&Reference>) -> Html {
    let Some(ipc) = ipc else { return html! {} };
    let error = change_pct(against.map(|r| r.ipc), Some(ipc));
    html! {
        <div class="ipc-alternative" data-testid="ipc-mdm" title={glossary::model(ModelKind::Mdm)}>
            { format!("{} as published: ", ModelKind::Mdm.label()) }
            <span class="ipc-alternative-value" data-testid="ipc-mdm-value" data-value={ipc.to_string()}>
                { format::decimal(ipc) }
            </span>
            { " IPC" }
            if let Some(error) = error {
                <span class={classes!("figure-error", format::error_class(error))} data-testid="ipc-mdm-error"
                    data-value={error.to_string()} title={glossary::MODEL_ERROR}>
                    { format!(", {}", format::marked_error(error)) }
                </span>
            }
        </div>
    }
}

/// One card of the strip.
struct Card {
    /// What the figure is.
    name: String,
    /// The test ids' stem (`ipc-{id}-value`, ...).
    id: &'static str,
    /// The figure, when the page has it.
    ipc: Option<f64>,
    /// The pinned baseline's figure.
    before: Option<f64>,
    /// What the error is against.
    against: Option<Reference>,
    /// The hover text.
    explain: &'static str,
    /// Why the model gives no figure, when it gives none.
    no_figure: Option<AttrValue>,
    /// What follows the figures (the analytical card's line for MDM as
    /// published).
    more: Html,
}

/// One IPC: the figure (or what it waits for), its error against its
/// reference with the reference shown, with a baseline (`pinned`) the
/// baseline's row, then the card's `more`.
fn figure(card: Card, pending: Option<&AttrValue>, pinned: bool) -> Html {
    let Card { name, id, ipc, before, against, explain, no_figure, more } = card;
    html! {
        <div class="ipc-figure" title={explain} data-testid={format!("ipc-{id}")}>
            <div class="ipc-name">{ name }</div>
            if let Some(ipc) = ipc {
                <div class="ipc-value" data-testid={format!("ipc-{id}-value")} data-value={ipc.to_string()}>
                    { format::decimal(ipc) }<span class="ipc-unit">{ " IPC" }</span>
                </div>
            } else if let Some(why) = no_figure.filter(|_| pending.is_none()) {
                <div class="ipc-value muted" data-testid={format!("ipc-{id}-none")}>{ NO_PREDICTION }</div>
                <div class="hint" data-testid={format!("ipc-{id}-why")}>{ why }</div>
            } else {
                <div class="ipc-value muted" data-testid={format!("ipc-{id}-value")} aria-busy={pending.is_some().to_string()}>
                    { if pending.is_some() { "…" } else { "–" } }
                </div>
                if let Some(pending) = pending {
                    <div class="hint" data-testid={format!("ipc-{id}-pending")}>{ pending }</div>
                }
            }
            { error_line(id, ipc, against.as_ref()) }
            if pinned {
                { baseline_row(id, ipc, before) }
            }
            { more }
        </div>
    }
}

/// The figure's error against its reference, the reference's figure, and
/// whether the launch latency is in both.
fn error_line(id: &str, ipc: Option<f64>, against: Option<&Reference>) -> Html {
    let Some((error, against)) = against.and_then(|r| Some((change_pct(Some(r.ipc), ipc)?, r))) else {
        return html! {};
    };
    let launch = if against.with_launch { "both with the launch latency" } else { "both without the launch latency" };
    html! {
        <>
            <div class={classes!("figure-error", format::error_class(error))} data-testid={format!("ipc-{id}-error")}
                data-value={error.to_string()} title={glossary::MODEL_ERROR}>
                { format!("{} vs {} ", format::marked_error(error), against.what) }
                <span class="ipc-reference" data-testid={format!("ipc-{id}-reference")} data-value={against.ipc.to_string()}>
                    { format::decimal(against.ipc) }
                </span>
            </div>
            <div class="hint ipc-accounting" data-testid={format!("ipc-{id}-accounting")}>{ launch }</div>
        </>
    }
}

/// The pinned baseline's row, as Nsight Compute's baseline view has it: the
/// figure now, the baseline's, and the difference, in one row.
fn baseline_row(id: &str, now: Option<f64>, before: Option<f64>) -> Html {
    let figure = |value: Option<f64>| value.map_or("–".to_owned(), format::decimal);
    let value = |value: Option<f64>| value.map(|v| v.to_string()).unwrap_or_default();
    let change = change_pct(before, now);
    html! {
        <div class="ipc-baseline" data-testid={format!("ipc-{id}-baseline-row")}>
            <span data-testid={format!("ipc-{id}-now")} data-value={value(now)}>{ format!("now {}", figure(now)) }</span>
            <span data-testid={format!("ipc-{id}-baseline")} data-value={value(before)}>
                { format!("baseline {}", figure(before)) }
            </span>
            <span class="ipc-change" data-testid={format!("ipc-{id}-change")} data-value={value(change)}>
                { change.map_or("–".to_owned(), format::signed_percent) }
            </span>
        </div>
    }
}
