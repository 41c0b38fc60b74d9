//! Keeping an element in view while the page around it takes its size.
//!
//! The page fills in for seconds after it opens (figures arrive, panels
//! grow, the animation's canvas follows its column). A scroll to an element
//! made meanwhile (a handout step's panel, a help link's glossary entry) can
//! be undone by a panel above it that grows after the scroll, and Chromium's
//! scroll anchoring may then hold the view on a node inside that panel while
//! the element moves out of view. So the element is scrolled to again each
//! time it has moved, as long as the reader has not scrolled since.

use std::cell::RefCell;
use std::rc::Rc;

use crate::resize_watch::ResizeWatch;

/// Where the page scrolled to last and the element's top (in page
/// coordinates) then; `None` before the first time.
pub type Scrolled = Rc<RefCell<Option<(f64, f64)>>>;

/// Scrolls element `id` into view the first time, and again when it has
/// moved while the reader has not scrolled since the last time.
pub fn keep_in_view(id: &str, scrolled: &Scrolled) {
    let Some(element) = gloo::utils::document().get_element_by_id(id) else { return };
    let window = gloo::utils::window();
    let y = window.scroll_y().unwrap_or_default();
    let top = element.get_bounding_client_rect().top() + y;
    let mut scrolled = scrolled.borrow_mut();
    let due = scrolled.is_none_or(|(at, was)| (at - y).abs() < 1.0 && (was - top).abs() >= 1.0);
    if due {
        element.scroll_into_view();
        *scrolled = Some((window.scroll_y().unwrap_or_default(), top));
    }
}

/// Calls [`keep_in_view`] for `id` whenever the page's body changes size,
/// until the returned watch is dropped (`None` without a body or a
/// `ResizeObserver`). The body's size changes after a layout that no render
/// of the page caused, which the renders' own checks would miss.
pub fn keep_in_view_on_resize(id: String, scrolled: Scrolled) -> Option<ResizeWatch> {
    let body = gloo::utils::document().body()?;
    ResizeWatch::new(&body, move || keep_in_view(&id, &scrolled))
}

/// What the tests of the page's scrolls check.
#[cfg(all(test, target_arch = "wasm32"))]
pub(crate) mod tests {
    use std::time::Duration;

    use gloo::timers::future::sleep;

    /// Whether element `id` is mounted and in the viewport.
    pub(crate) fn in_view(id: &str) -> bool {
        let Some(element) = gloo::utils::document().get_element_by_id(id) else { return false };
        let rect = element.get_bounding_client_rect();
        let height = gloo::utils::window().inner_height().ok().and_then(|h| h.as_f64()).unwrap_or_default();
        rect.top() < height && rect.bottom() > 0.0
    }

    /// Waits up to a second for `id` to be in view.
    pub(crate) async fn comes_into_view(id: &str) -> bool {
        for _ in 0..50 {
            if in_view(id) {
                return true;
            }
            sleep(Duration::from_millis(20)).await;
        }
        false
    }
}
