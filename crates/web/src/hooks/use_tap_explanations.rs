//! Hover explanations by tap (issue 42's phone page): the page explains its
//! figures, headings and rows in `title` attributes, which a touch screen
//! never shows. A tap (a click) on such an element shows its explanation in
//! a bubble under it, until the next tap; buttons, links and fields keep
//! their own meaning for a tap.
//!
//! One click listener on the document, owned by the hook, and one bubble
//! element, made at the first tap and kept, serve the whole page.

use gloo::events::EventListener;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element};
use yew::prelude::*;

/// The bubble's element id.
const BUBBLE_ID: &str = "tap-explanation";

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
    if target.closest(INTERACTIVE).ok().flatten().is_some()
        || target.closest(".tap-explanation").ok().flatten().is_some()
    {
        return;
    }
    let Some(explained) = target.closest("[title]").ok().flatten() else { return };
    let Some(text) = explained.get_attribute("title").filter(|text| !text.trim().is_empty()) else { return };
    let key = format!("{text}@{}", explained.tag_name());
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
