//! Hover explanations by tap (issue 42's phone page): the page explains its
//! figures, headings and rows in `title` attributes, and its charts' marks in
//! SVG `<title>` children, which a touch screen never shows. A tap (a click)
//! on such an element shows its explanation in a bubble under it, until the
//! next tap. Buttons, links and fields keep their own meaning for a tap; one
//! that is also an explanation (a legend entry focusable for the keyboard, a
//! checkbox's label, a folding summary) says so with [`TAP_EXPLAINS`], and a
//! tap then does both.
//!
//! One click listener on the document, owned by the hook, and one bubble
//! element, made at the first tap and kept, serve the whole page.

use gloo::events::EventListener;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element};
use yew::prelude::*;

/// SVG's namespace.
const SVG: &str = "http://www.w3.org/2000/svg";

/// The bubble's element id.
const BUBBLE_ID: &str = "tap-explanation";

/// The attribute an interactive element carries when a tap on it should
/// also show its `title`.
pub const TAP_EXPLAINS: &str = "data-tap-explains";

/// Elements whose tap does something of its own (a table's scrolling box is
/// focusable only so the keyboard can scroll it).
const INTERACTIVE: &str =
    "a, button, input, select, textarea, summary, label, canvas, [role=button], [tabindex]:not(.table-scroll)";

/// The bubble's widest, in CSS pixels (`.tap-explanation`'s `max-width`).
const BUBBLE_WIDTH: f64 = 320.0;

/// Shows a tapped element's `title` in a bubble.
#[hook]
pub fn use_tap_explanations() {
    use_effect_with((), |()| {
        let document = gloo::utils::document();
        let listener = EventListener::new(&document.clone(), "click", move |event| {
            let target = event.target().and_then(|target| target.dyn_into::<Element>().ok());
            explain(&document, target.as_ref());
        });
        move || drop(listener)
    });
}

/// Shows the explanation of the tapped element, or hides the bubble.
fn explain(document: &Document, target: Option<&Element>) {
    let bubble = document.get_element_by_id(BUBBLE_ID);
    let shown_for = bubble.as_ref().and_then(|bubble| bubble.get_attribute("data-for"));
    if let Some(bubble) = &bubble {
        let _ = bubble.set_attribute("hidden", "");
        let _ = bubble.remove_attribute("data-for");
    }
    let Some(target) = target else { return };
    if target.closest(".tap-explanation").ok().flatten().is_some() {
        return;
    }
    let interactive = target.closest(INTERACTIVE).ok().flatten();
    if let Some(interactive) = &interactive
        && !interactive.has_attribute(TAP_EXPLAINS)
    {
        // A label's tap clicks its field too: that second click leaves the
        // label's explanation up.
        let label = interactive.parent_element().and_then(|parent| parent.closest("label").ok().flatten());
        if let (Some(bubble), Some(label)) = (&bubble, label)
            && shown_for.is_some()
            && shown_for == explanation(&label).map(|(text, explained)| key(&text, &explained))
        {
            let _ = bubble.set_attribute("data-for", shown_for.as_deref().unwrap_or_default());
            let _ = bubble.remove_attribute("hidden");
        }
        return;
    }
    let Some((text, explained)) = explanation(target) else { return };
    let key = key(&text, &explained);
    // A second tap on the same element hides its explanation.
    if shown_for.as_deref() == Some(key.as_str()) {
        return;
    }
    let Some(bubble) = bubble.or_else(|| new_bubble(document)) else { return };
    bubble.set_text_content(Some(&text));
    let _ = bubble.set_attribute("data-for", &key);
    let _ = bubble.remove_attribute("hidden");
    place(&bubble, &explained);
}

/// The explanation nearest `target`: its own or an ancestor's `title`
/// attribute, or an SVG element's `<title>` child, with the element it
/// explains.
fn explanation(target: &Element) -> Option<(String, Element)> {
    let mut element = Some(target.clone());
    while let Some(current) = element {
        let text = if current.namespace_uri().as_deref() == Some(SVG) {
            std::iter::successors(current.first_element_child(), Element::next_element_sibling)
                .find(|child| child.local_name() == "title")
                .and_then(|title| title.text_content())
        } else {
            current.get_attribute("title")
        };
        if let Some(text) = text.filter(|text| !text.trim().is_empty()) {
            return Some((text, current));
        }
        element = current.parent_element();
    }
    None
}

/// What the bubble remembers of the element it explains.
fn key(text: &str, explained: &Element) -> String {
    format!("{text}@{}", explained.tag_name())
}

/// The bubble, added to the page's body.
fn new_bubble(document: &Document) -> Option<Element> {
    let bubble = document.create_element("div").ok()?;
    bubble.set_id(BUBBLE_ID);
    let _ = bubble.set_attribute("class", "tap-explanation");
    let _ = bubble.set_attribute("role", "status");
    let _ = bubble.set_attribute("data-testid", "tap-explanation");
    document.body()?.append_child(&bubble).ok()?;
    Some(bubble)
}

/// Puts the bubble under `explained`, inside the window's width.
fn place(bubble: &Element, explained: &Element) {
    let window = gloo::utils::window();
    let (scroll_x, scroll_y) = (window.scroll_x().unwrap_or_default(), window.scroll_y().unwrap_or_default());
    let width = window.inner_width().ok().and_then(|width| width.as_f64()).unwrap_or(BUBBLE_WIDTH);
    let bounds = explained.get_bounding_client_rect();
    let left = bounds.left().min(width - BUBBLE_WIDTH.min(width) - 8.0).max(8.0) + scroll_x;
    let top = bounds.bottom() + scroll_y + 4.0;
    let _ = bubble.set_attribute("style", &format!("left: {left:.0}px; top: {top:.0}px"));
}
