//! The width of an element, kept up to date with a `ResizeObserver`, so the
//! canvas follows its container (a window resize, a phone turned sideways, a
//! panel opening beside it) and not only the window.

use std::rc::Rc;

use web_sys::Element;
use yew::prelude::*;

use crate::resize_watch::ResizeWatch;

/// The element's inner width in CSS pixels (0 until it is mounted).
#[hook]
pub fn use_element_width(node: NodeRef) -> f64 {
    let width = use_state_eq(|| 0.0);
    {
        let setter = width.setter();
        use_effect_with(node, move |node| {
            let observer = node.cast::<Element>().and_then(|element| watch_width(&element, move |w| setter.set(w)));
            // Dropping the observer on unmount disconnects it.
            move || drop(observer)
        });
    }
    *width
}

/// Reports the element's width on every change, the first time when the
/// observer starts. Reading `client_width` at mount instead would force a
/// synchronous layout of the whole page inside the render that mounted the
/// element: 24 ms of one 53-ms main-thread task when the animation first
/// appears beside the analytical panel. `None` where the browser has no
/// `ResizeObserver`; the width is then measured once, now.
fn watch_width(element: &Element, on_width: impl Fn(f64) + 'static) -> Option<ResizeWatch> {
    let width_of = |element: &Element| f64::from(element.client_width());
    let on_width = Rc::new(on_width);
    let (observed, report) = (element.clone(), Rc::clone(&on_width));
    let watch = ResizeWatch::new(element, move || report(width_of(&observed)));
    if watch.is_none() {
        on_width(width_of(element));
    }
    watch
}
