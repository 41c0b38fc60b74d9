//! The legend under the canvas: one swatch per warp state and per bar colour,
//! each with its explanation as a tooltip.

use warplab_lab::WarpState;
use yew::prelude::*;

use super::explain::Term;
use super::palette;

/// The colour key.
#[component]
pub fn Legend() -> Html {
    let states = WarpState::ALL.iter().map(|&state| {
        let term = Term::Warp(state);
        swatch(palette::warp_colour(state), term.name(), term.explanation())
    });
    let bars = [
        (palette::FILL, "queue occupancy", "a bar fills as its queue or its MSHRs fill; the tooltip gives the count."),
        (palette::FULL, "queue full", "the queue is at capacity, so whatever feeds it has to wait."),
        (palette::CTA_BANDS[0], "CTA band", Term::Cta.explanation()),
    ];
    html! {
        <ul class="animation-legend" data-testid="animation-legend">
            { for states }
            { for bars.into_iter().map(|(colour, name, explanation)| swatch(colour, name, explanation)) }
        </ul>
    }
}

fn swatch(colour: &str, name: &str, explanation: &str) -> Html {
    html! {
        <li title={format!("{name}: {explanation}")}>
            <span class="swatch" style={format!("background: {colour}")}></span>{ name }
        </li>
    }
}
