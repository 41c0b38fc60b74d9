//! A `ResizeObserver` that calls a closure whenever an element changes size,
//! for what must follow the layout rather than the page's renders: a canvas
//! sized to its column, a panel kept in view while others grow.

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{Element, ResizeObserver};

/// An observing `ResizeObserver` and the closure it calls; disconnects on drop.
pub struct ResizeWatch {
    observer: ResizeObserver,
    _on_resize: Closure<dyn FnMut()>,
}

impl ResizeWatch {
    /// Calls `on_resize` on every change of `element`'s size, and once when
    /// the observer starts (a `ResizeObserver` reports an element once,
    /// after the next layout). The callback runs after layout, so reading
    /// sizes there forces none. `None` where the browser has no
    /// `ResizeObserver`.
    pub fn new(element: &Element, on_resize: impl FnMut() + 'static) -> Option<Self> {
        // The entries are not read: callers read what they need from the
        // elements themselves, which avoids parsing them.
        let on_resize = Closure::<dyn FnMut()>::new(on_resize);
        let observer = ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok()?;
        observer.observe(element);
        Some(ResizeWatch { observer, _on_resize: on_resize })
    }
}

impl Drop for ResizeWatch {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}
