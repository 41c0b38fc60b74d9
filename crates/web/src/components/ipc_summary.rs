//! The three IPCs side by side at the top of the page: simulated, analytical
//! (the headline model, `warplab_lab::HEADLINE`, named on its card, with MDM
//! as published on a line of its own under it) and scale-model predicted,
//! each model with its error against the simulation, and a pinned baseline's
//! figures beside them with the change.

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
    /// How the simulated figure was sampled (e.g. `Photon`), when it was:
    /// the card says so, since a sampled IPC is itself an estimate.
    #[prop_or_default]
    pub sampled: Option<AttrValue>,
    /// Why the scale-model rule gives no prediction at the target, when it
    /// gives none (`warplab_lab::scale::NoPrediction`): the card says so
    /// instead of a figure.
    #[prop_or_default]
    pub scale_no_prediction: Option<AttrValue>,
}

/// A scale-model target other than the config's own size: the simulation
/// of the config is then not what the prediction is compared with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScaleTarget {
    /// The target, in SMs.
    pub sms: u32,
    /// The target's own simulation, when the scale-model run validated it.
    pub simulated: Option<f64>,
}

/// The headline strip.
#[component]
pub fn IpcSummary(props: &IpcSummaryProps) -> Html {
    let f = props.figures;
    let base = props.baseline;
    let scale_name = props.scale_target.map(|target| format!("Scale-model, for {} SMs", target.sms));
    let simulated_name = props.sampled.as_ref().map(|how| format!("Simulated ({how} sampling)"));
    let analytical_name = format!("Analytical ({})", HEADLINE.label());
    // The scale models leave the launch latency out, so their figure's
    // error is against the simulation without it (or the target's own).
    let (scale_truth, scale_vs) = match (props.scale_target, props.simulated_without_launch) {
        (Some(target), _) => (target.simulated, VS_SIMULATED),
        (None, Some(ipc)) => (Some(ipc), "vs simulated without the launch latency"),
        (None, None) => (f.simulated, VS_SIMULATED),
    };
    let cards = [
        Card {
            name: simulated_name.as_deref().unwrap_or("Simulated"),
            id: "simulated",
            ipc: f.simulated,
            before: base.and_then(|b| b.simulated),
            against: (None, VS_SIMULATED),
            explain: glossary::SIMULATED_TRUTH,
            no_figure: None,
            more: html! {},
        },
        Card {
            name: &analytical_name,
            id: "analytical",
            ipc: f.analytical,
            before: base.and_then(|b| b.analytical),
            against: (f.simulated, VS_SIMULATED),
            explain: glossary::model(HEADLINE),
            no_figure: None,
            more: mdm_line(f.mdm, f.simulated),
        },
        Card {
            name: scale_name.as_deref().unwrap_or("Scale-model"),
            id: "scale",
            ipc: f.scale,
            before: base.and_then(|b| b.scale),
            against: (scale_truth, scale_vs),
            explain: glossary::METHOD_SCALE_MODEL,
            no_figure: props.scale_no_prediction.clone(),
            more: html! {},
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

/// What an error is against, as the strip says it.
const VS_SIMULATED: &str = "vs simulated";

/// What a card shows when its model gives no figure (the reason follows).
pub const NO_PREDICTION: &str = "no prediction";

/// MDM as published, under the headline model's figure: its IPC and its
/// own error against the simulation, once the analysis has it.
fn mdm_line(ipc: Option<f64>, simulated: Option<f64>) -> Html {
    let Some(ipc) = ipc else { return html! {} };
    let error = change_pct(simulated, Some(ipc));
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
                    { format!(", {}", format::signed_percent(error)) }
                </span>
            }
        </div>
    }
}

/// One card of the strip.
struct Card<'a> {
    /// What the figure is.
    name: &'a str,
    /// The test ids' stem (`ipc-{id}-value`, ...).
    id: &'static str,
    /// The figure, when the page has it.
    ipc: Option<f64>,
    /// The pinned baseline's figure.
    before: Option<f64>,
    /// What the error is against: the IPC and how the strip says it.
    against: (Option<f64>, &'static str),
    /// The hover text.
    explain: &'static str,
    /// Why the model gives no figure, when it gives none.
    no_figure: Option<AttrValue>,
    /// What follows the figures (the analytical card's line for MDM as
    /// published).
    more: Html,
}

/// One IPC: the figure (or what is computing it), its error against the
/// simulation, with a baseline (`pinned`) the baseline's figure and the
/// change, then the card's `more`.
fn figure(card: Card<'_>, pending: Option<&AttrValue>, pinned: bool) -> Html {
    let Card { name, id, ipc, before, against: (simulated, vs), explain, no_figure, more } = card;
    let baseline = pinned.then_some(before);
    let error = change_pct(simulated, ipc);
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
                <div class="ipc-value muted" data-testid={format!("ipc-{id}-value")}>
                    { pending.map_or("–".to_owned(), |p| format!("{p}…")) }
                </div>
            }
            if let Some(error) = error {
                <div class={classes!("figure-error", format::error_class(error))}
                    data-testid={format!("ipc-{id}-error")} data-value={error.to_string()} title={glossary::MODEL_ERROR}>
                    { format!("{} {vs}", format::signed_percent(error)) }
                </div>
            }
            if let Some(before) = baseline {
                <div class="ipc-baseline" data-testid={format!("ipc-{id}-baseline")}
                    data-value={before.map(|b| b.to_string()).unwrap_or_default()}>
                    { format!("baseline {}", before.map_or("–".to_owned(), format::decimal)) }
                    if let Some(change) = change_pct(before, ipc) {
                        <span class="ipc-change" data-testid={format!("ipc-{id}-change")} data-value={change.to_string()}>
                            { format!(" ({})", format::signed_percent(change)) }
                        </span>
                    }
                </div>
            }
            { more }
        </div>
    }
}
