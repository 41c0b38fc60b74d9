//! The glossary at the foot of the page: every term the page explains, with
//! an anchor per term that panel headings link to ([`HelpLink`]).

use yew::prelude::*;

use crate::components::JumpLink;
use crate::glossary::{ENTRIES, anchor};

/// Properties of [`HelpLink`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct HelpLinkProps {
    /// The glossary entry's id (an id of `glossary::ENTRIES`).
    pub id: AttrValue,
}

/// Lists every glossary entry as a definition list.
#[component]
pub fn Glossary() -> Html {
    html! {
        <section class="panel glossary" id="glossary" data-testid="glossary">
            <h2>{ "Glossary" }</h2>
            <dl class="glossary-list">
                { for ENTRIES.iter().map(|(term, id, text)| html! {
                    <div class="glossary-entry" id={anchor(id)} data-testid="glossary-entry">
                        <dt>{ *term }</dt>
                        <dd>{ *text }</dd>
                    </div>
                }) }
            </dl>
        </section>
    }
}

/// A small "?" link to the glossary entry `id`, for a panel's heading.
#[component]
pub fn HelpLink(props: &HelpLinkProps) -> Html {
    let term = ENTRIES.iter().find(|(_, id, _)| *id == props.id.as_str()).map_or("this", |(term, _, _)| term);
    html! {
        <JumpLink class="help-link" to={anchor(&props.id)} testid="help-link"
            title={format!("What is {term}? (glossary)")} aria_label={format!("Glossary: {term}")}>{ "?" }</JumpLink>
    }
}
