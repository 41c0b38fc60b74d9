//! The legend under the canvas: one swatch per colour the canvas draws (each
//! warp state, the MSHR bar, a queue's occupancy and a full queue, the CTA
//! bands), each named in words with its explanation as a tooltip that a tap
//! or Tab also reaches.

use warplab_lab::WarpState;
use yew::prelude::*;

use super::explain::Term;
use crate::palette::{Concept, neutral};

/// The bars' entries: each with its name and explanation.
const BARS: [(Concept, &str, &str); 3] = [
    (
        Concept::Mshr,
        "L1 MSHRs in use",
        "the bar under each SM fills as its L1 misses take MSHRs; the tooltip gives the count.",
    ),
    (
        Concept::QueueOccupancy,
        "queue occupancy",
        "a bar fills as its queue fills (the miss queue, the crossbar, the L2 and DRAM queues); the tooltip gives the count.",
    ),
    (
        Concept::QueueFull,
        "queue full",
        "the queue (or every MSHR) is taken: the bar is full length, and whatever feeds it has to wait.",
    ),
];

/// Every concept the canvas colours, in the legend's order.
#[cfg(test)]
pub fn legend_concepts() -> Vec<Concept> {
    let states = WarpState::ALL.iter().map(|&state| Concept::of_warp(state));
    states.chain(BARS.iter().map(|(concept, _, _)| *concept)).collect()
}

/// The colour key.
#[component]
pub fn Legend() -> Html {
    let states = WarpState::ALL.iter().map(|&state| {
        let term = Term::Warp(state);
        swatch(Concept::of_warp(state).swatch().fill, Some(Concept::of_warp(state)), term.name(), term.explanation())
    });
    let bars = BARS
        .iter()
        .map(|&(concept, name, explanation)| swatch(concept.swatch().fill, Some(concept), name, explanation));
    html! {
        <ul class="animation-legend" data-testid="animation-legend">
            { for states }
            { for bars }
            { swatch(neutral::CTA_BANDS[0], None, "CTA band", Term::Cta.explanation()) }
        </ul>
    }
}

/// One entry: focusable, so its explanation shows as a tooltip on hover and
/// is read out on focus, and on a tap (`data-tap-explains`).
fn swatch(colour: &str, concept: Option<Concept>, name: &str, explanation: &str) -> Html {
    html! {
        <li title={format!("{name}: {explanation}")} tabindex="0" data-tap-explains="">
            <span class="swatch" style={format!("background: {colour}")} data-concept={concept.map(Concept::id)}></span>
            { name }
        </li>
    }
}
