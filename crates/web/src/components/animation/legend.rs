//! The legend under the canvas: one swatch per colour the canvas draws (each
//! warp state, the MSHR bar, a queue's occupancy and a full queue, the CTA
//! bands), each named in words with its explanation as a tooltip that a tap
//! or Tab also reaches, and each swatch with the mark the canvas draws over
//! that colour (a warp state's glyph, a full queue's hatch).

use warplab_lab::WarpState;
use yew::prelude::*;

use super::explain::Term;
use super::glyph::{Glyph, hatch};
use super::layout::Rect;
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

/// A swatch as a warp cell of the canvas's largest size, in its pixels.
const SWATCH: Rect = Rect { x: 0.0, y: 0.0, width: 11.0, height: 11.0 };

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
        let marks = Glyph::of_warp(state).rects(SWATCH).collect();
        swatch(Some(Concept::of_warp(state)), marks, term.name(), term.explanation())
    });
    let bars = BARS.iter().map(|&(concept, name, explanation)| {
        let marks = if concept == Concept::QueueFull { hatch(SWATCH).collect() } else { Vec::new() };
        swatch(Some(concept), marks, name, explanation)
    });
    html! {
        <ul class="animation-legend" data-testid="animation-legend">
            { for states }
            { for bars }
            { swatch(None, Vec::new(), "CTA band", Term::Cta.explanation()) }
        </ul>
    }
}

/// One entry: focusable, so its explanation shows as a tooltip on hover and
/// is read out on focus, and on a tap (`data-tap-explains`); `concept`'s colour (the CTA bands' grey without
/// one) with `marks` over it in its ink, as the canvas draws them.
fn swatch(concept: Option<Concept>, marks: Vec<Rect>, name: &str, explanation: &str) -> Html {
    let (fill, ink) = concept.map_or((neutral::CTA_BANDS[0], "none"), |concept| {
        let swatch = concept.swatch();
        (swatch.fill, swatch.ink)
    });
    let size = SWATCH.width;
    html! {
        <li title={format!("{name}: {explanation}")} tabindex="0" data-tap-explains="">
            <span class="swatch" style={format!("background: {fill}")} data-concept={concept.map(Concept::id)}>
                if !marks.is_empty() {
                    <svg viewBox={format!("0 0 {size} {size}")} aria-hidden="true" focusable="false">
                        { for marks.iter().map(|mark| html! {
                            <rect x={mark.x.to_string()} y={mark.y.to_string()} width={mark.width.to_string()}
                                height={mark.height.to_string()} fill={ink} />
                        }) }
                    </svg>
                }
            </span>
            { name }
        </li>
    }
}
