//! The page's sections as links under the toolbar, so each is one click
//! away from wherever the user is, and the animation's keyboard controls in
//! a popover beside them.

use yew::prelude::*;

use crate::components::JumpLink;

/// Properties of [`SectionNav`]: which of the sections that come and go
/// are on the page now.
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct SectionNavProps {
    /// The animation (once a run has started).
    pub animation: bool,
    /// The report (once a run has paused or finished).
    pub report: bool,
    /// The sampling panel (after a sampled run).
    pub sampling: bool,
}

/// The page's sections in page order: each one's `id` and its link's text.
const SECTIONS: [(&str, &str); 8] = [
    ("workload-panel", "Workload"),
    ("config-panel", "GPU"),
    ("animation-panel", "Animation"),
    ("sampling-panel", "Sampling"),
    ("report-panel", "Report"),
    ("analytical-panel", "Analytical model"),
    ("scale-panel", "Scale models"),
    ("glossary", "Glossary"),
];

/// The section whose `id` is `id`: its id and its link's text.
pub fn section_label(id: &str) -> Option<(&'static str, &'static str)> {
    SECTIONS.iter().copied().find(|(section, _)| *section == id)
}

/// Links to the sections present, in page order, and the keyboard help.
#[component]
pub fn SectionNav(props: &SectionNavProps) -> Html {
    let present = |id: &str| match id {
        "animation-panel" => props.animation,
        "sampling-panel" => props.sampling,
        "report-panel" => props.report,
        _ => true,
    };
    let sections = SECTIONS.map(|(id, label)| (id, label, present(id)));
    let link = |(id, label): (&'static str, &'static str)| {
        html! { <JumpLink to={id} testid={AttrValue::from(format!("nav-{id}"))}>{ label }</JumpLink> }
    };
    html! {
        <nav class="sections" data-testid="section-nav" aria-label="Sections of the page">
            { for sections.into_iter().filter(|(_, _, present)| *present).map(|(id, label, _)| link((id, label))) }
            { keyboard_help() }
        </nav>
    }
}

/// The animation's shortcuts (`animation::controls`), in a popover that
/// opens on a click and stays out of the way otherwise.
fn keyboard_help() -> Html {
    html! {
        <details class="keys-help" data-testid="keys-help">
            <summary>{ "Keyboard" }</summary>
            <div class="popover" role="note">
                <p>{ "While the animation is on the page, and no form field has the focus:" }</p>
                <dl>
                    <dt><kbd>{ "Space" }</kbd></dt><dd>{ "play or pause" }</dd>
                    <dt><kbd>{ "→" }</kbd></dt><dd>{ "step one cycle" }</dd>
                    <dt><kbd>{ "Shift" }</kbd>{ " + " }<kbd>{ "→" }</kbd>{ " or " }<kbd>{ "↓" }</kbd></dt>
                    <dd>{ "step to the watched SM's next event" }</dd>
                </dl>
            </div>
        </details>
    }
}
