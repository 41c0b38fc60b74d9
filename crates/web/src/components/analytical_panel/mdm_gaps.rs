//! What MDM leaves out and the warplab core model adds: one sentence per
//! stall class GCoM (Lee et al., ISCA 2022) found MDM-class models miss,
//! each naming the core model's CPI terms for it.

use warplab_lab::HEADLINE;
use yew::prelude::*;

use crate::glossary;

/// The stall classes, each with its test id: fills in flight (memory data
/// stalls), barriers, structural stalls, idle stalls.
const GAPS: [(&str, &str); 4] = [
    ("pending", glossary::MDM_MISSES_PENDING),
    ("barrier", glossary::MDM_MISSES_BARRIER),
    ("structural", glossary::MDM_MISSES_STRUCTURAL),
    ("idle", glossary::MDM_MISSES_IDLE),
];

/// The short list under the model table.
pub fn mdm_gaps() -> Html {
    html! {
        <div class="mdm-gaps" data-testid="mdm-gaps">
            <h3 class="subheading" title={glossary::model(HEADLINE)}>
                { format!("What MDM leaves out, and the {} adds", HEADLINE.label()) }
            </h3>
            <ul>
                { for GAPS.iter().map(|(id, sentence)| html! {
                    <li data-testid={format!("mdm-gap-{id}")}>{ *sentence }</li>
                }) }
            </ul>
        </div>
    }
}
