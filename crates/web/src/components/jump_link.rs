//! A link to a place on the page that scrolls there without touching the
//! address: the fragment carries the experiment (`#x=...`), and a plain
//! `href="#glossary-mshr"` would replace it, so "Copy link" or a reload
//! would lose the experiment.

use yew::prelude::*;

/// Properties of [`JumpLink`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct JumpLinkProps {
    /// The `id` of the element to scroll to.
    pub to: AttrValue,
    /// The link's class.
    #[prop_or_default]
    pub class: Classes,
    /// The hover text.
    #[prop_or_default]
    pub title: Option<AttrValue>,
    /// The accessible name, when the text is not one (e.g. "?").
    #[prop_or_default]
    pub aria_label: Option<AttrValue>,
    /// `data-testid`, for tests.
    #[prop_or_default]
    pub testid: Option<AttrValue>,
    /// The link's text.
    pub children: Html,
}

/// An in-page link that scrolls to its target and leaves the address alone.
#[component]
pub fn JumpLink(props: &JumpLinkProps) -> Html {
    let to = props.to.clone();
    let onclick = Callback::from(move |event: MouseEvent| {
        // Modified clicks (a new tab, a new window) keep the browser's meaning.
        if event.ctrl_key() || event.meta_key() || event.shift_key() || event.button() != 0 {
            return;
        }
        event.prevent_default();
        if let Some(target) = gloo::utils::document().get_element_by_id(&to) {
            target.scroll_into_view();
        }
    });
    html! {
        <a class={props.class.clone()} href={format!("#{}", props.to)} {onclick} title={props.title.clone()}
            aria-label={props.aria_label.clone()} data-testid={props.testid.clone()}>
            { props.children.clone() }
        </a>
    }
}
