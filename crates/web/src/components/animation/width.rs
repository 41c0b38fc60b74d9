//! The width of an element, kept up to date with a `ResizeObserver`, so the
//! canvas follows its container (a window resize, a phone turned sideways, a
//! panel opening beside it) and not only the window.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{Element, ResizeObserver};
use yew::prelude::*;

/// The element's inner width in CSS pixels (0 until it is mounted).
#[hook]
pub fn use_element_width(node: NodeRef) -> f64 {
    let width = use_state_eq(|| 0.0);
    {
        let setter = width.setter();
        use_effect_with(node, move |node| {
            let observer =
                node.cast::<Element>().and_then(|element| WidthObserver::new(&element, move |w| setter.set(w)));
            // Dropping the observer on unmount disconnects it.
            move || drop(observer)
        });
    }
    *width
}

/// An observing `ResizeObserver` and the closure it calls; disconnects on drop.
struct WidthObserver {
    observer: ResizeObserver,
    _on_resize: Closure<dyn FnMut()>,
}

impl WidthObserver {
    /// Reports the width on every change, the first time when the observer
    /// starts (a `ResizeObserver` always reports an element once, after the
    /// next layout). Reading `client_width` here instead would force a
    /// synchronous layout of the whole page inside the render that mounted
    /// the element: 24 ms of one 53-ms main-thread task when the animation
    /// first appears beside the analytical panel. `None` where the browser
    /// has no `ResizeObserver`; the width is then measured once, now.
    fn new(element: &Element, on_width: impl Fn(f64) + 'static) -> Option<Self> {
        let width_of = |element: &Element| f64::from(element.client_width());
        let on_width = Rc::new(on_width);
        let (observed, report) = (element.clone(), Rc::clone(&on_width));
        // The entries are not read: the element's client width is what the
        // layout needs, and reading it from the element avoids parsing them.
        let on_resize = Closure::<dyn FnMut()>::new(move || report(width_of(&observed)));
        let Ok(observer) = ResizeObserver::new(on_resize.as_ref().unchecked_ref()) else {
            on_width(width_of(element));
            return None;
        };
        observer.observe(element);
        Some(WidthObserver { observer, _on_resize: on_resize })
    }
}

impl Drop for WidthObserver {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}
