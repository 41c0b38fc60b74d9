//! Folding the page's panels (issue 42's phone page): every panel heading
//! gets a Fold button that hides the panel's content behind its heading and
//! shows it again, so a phone's reader can fold what they are not reading
//! and the page shrinks to its headings.
//!
//! The buttons are added to the panels' headings after each render (panels
//! come and go with the run), and one click listener on the document, owned
//! by the hook, handles them all: no component needs to know about folding,
//! and a panel's fold state is an attribute (`data-folded`) its component
//! never sets, so re-rendering the panel keeps it. The listener runs in the
//! capture phase so that an in-page link to something inside a folded panel
//! (a "?" to the glossary, a section link) unfolds it before it scrolls.

use gloo::events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;
use web_sys::{Document, Element};
use yew::prelude::*;

/// The attribute a folded panel carries; `www/style.css` hides the rest of it.
const FOLDED: &str = "data-folded";

/// Panel headings: a panel's own, or its wrapper's (a drop zone's).
const HEADINGS: &str = ".panel > h2, .panel > div > h2";

/// Adds a Fold button to every panel heading and handles their clicks.
#[hook]
pub fn use_foldable_panels() {
    use_effect(|| add_fold_buttons(&gloo::utils::document()));
    use_effect_with((), |()| {
        let document = gloo::utils::document();
        let listener = EventListener::new_with_options(
            &document.clone(),
            "click",
            EventListenerOptions::run_in_capture_phase(),
            move |event| {
                let target = event.target().and_then(|target| target.dyn_into::<Element>().ok());
                if let Some(target) = target {
                    on_click(&document, &target);
                }
            },
        );
        move || drop(listener)
    });
}

/// Gives each panel heading without one its button.
fn add_fold_buttons(document: &Document) {
    // A panel's heading is its child, or its wrapper's (a drop zone's).
    let Ok(headings) = document.query_selector_all(HEADINGS) else { return };
    for index in 0..headings.length() {
        let Some(heading) = headings.item(index).and_then(|node| node.dyn_into::<Element>().ok()) else { continue };
        if heading.query_selector(":scope > .fold-toggle").ok().flatten().is_some() {
            continue;
        }
        if let Ok(button) = document.create_element("button") {
            let folded = heading.closest(".panel").ok().flatten().is_some_and(|panel| panel.has_attribute(FOLDED));
            let _ = button.set_attribute("type", "button");
            let _ = button.set_attribute("class", "fold-toggle");
            let _ = button.set_attribute("data-testid", "fold");
            show_state(&button, folded);
            let _ = heading.append_child(&button);
        }
    }
}

/// A click on a Fold button folds or unfolds its panel; a click on an
/// in-page link unfolds the panel its target is in.
fn on_click(document: &Document, target: &Element) {
    if let Some(button) = target.closest(".fold-toggle").ok().flatten() {
        if let Some(panel) = button.closest(".panel").ok().flatten() {
            let folded = !panel.has_attribute(FOLDED);
            set_folded(&panel, &button, folded);
        }
        return;
    }
    let link = target.closest("a[href^='#']").ok().flatten();
    let id =
        link.and_then(|link| link.get_attribute("href")).and_then(|href| href.strip_prefix('#').map(str::to_owned));
    let inside = id.and_then(|id| document.get_element_by_id(&id));
    if let Some(panel) = inside.and_then(|element| element.closest(".panel[data-folded]").ok().flatten())
        && let Some(button) = panel.query_selector(".fold-toggle").ok().flatten()
    {
        set_folded(&panel, &button, false);
    }
}

fn set_folded(panel: &Element, button: &Element, folded: bool) {
    let _ = if folded { panel.set_attribute(FOLDED, "") } else { panel.remove_attribute(FOLDED) };
    show_state(button, folded);
}

/// The button's text and state for screen readers.
fn show_state(button: &Element, folded: bool) {
    button.set_text_content(Some(if folded { "Unfold" } else { "Fold" }));
    let _ = button.set_attribute("aria-expanded", if folded { "false" } else { "true" });
    let what = if folded { "Show this section again" } else { "Fold this section to its heading" };
    let _ = button.set_attribute("title", what);
}
