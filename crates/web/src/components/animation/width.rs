//! The width of an element, kept up to date with a `ResizeObserver`, so the
//! canvas follows its container (a window resize, a phone turned sideways, a
//! panel opening beside it) and not only the window.

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
    /// Reports the width now and on every change; `None` where the browser
    /// has no `ResizeObserver` (the width is then measured once).
    fn new(element: &Element, on_width: impl Fn(f64) + 'static) -> Option<Self> {
        let width_of = |element: &Element| f64::from(element.client_width());
        on_width(width_of(element));
        let observed = element.clone();
        // The entries are not read: the element's client width is what the
        // layout needs, and reading it from the element avoids parsing them.
        let on_resize = Closure::<dyn FnMut()>::new(move || on_width(width_of(&observed)));
        let observer = ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok()?;
        observer.observe(element);
        Some(WidthObserver { observer, _on_resize: on_resize })
    }
}

impl Drop for WidthObserver {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}
