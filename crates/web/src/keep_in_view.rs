//! Keeping an element in view while the page around it takes its size.
//!
//! The page fills in for seconds after it opens (figures arrive, panels
//! grow, the animation's canvas follows its column). A scroll to an element
//! made meanwhile (a handout step's panel, a help link's glossary entry) can
//! be undone by a panel above it that grows after the scroll. So the element
//! is scrolled to again each time it has left the place the scroll gave it,
//! until the reader acts on the page (a wheel, a touch, a key, a press).
//!
//! The page's own movements cannot tell the reader's scroll apart: Chromium's
//! scroll anchoring moves the page when a panel above re-lays out, and the
//! scale panel, laid out only near the screen (`content-visibility: auto`),
//! changes its size some frames after its content changed. A help link's
//! entry was seen moved as a reader's scroll would move it (the page up by
//! 112 px, the entry still in place within it), then pushed 1,467 px down.
//! Dragging the scroll bar is not seen: the page keeps pulling its element
//! back while the panels above it still grow.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;

use crate::resize_watch::ResizeWatch;

/// What following an element has seen: where its scroll left the element
/// on the screen, and whether the reader has acted since.
#[derive(Debug, Default)]
pub struct Followed {
    placed: Option<f64>,
    released: bool,
}

/// A follow's state, shared by the checks that keep one element in view.
pub type FollowState = Rc<RefCell<Followed>>;

/// Scrolls element `id` into view the first time, and again when it has left
/// that place on the screen, until the reader acts.
pub fn keep_in_view(id: &str, state: &FollowState) {
    let mut state = state.borrow_mut();
    // A released follow stays attached until it is replaced or dropped; its
    // checks then cost a borrow, not a look-up of the element.
    if state.released {
        return;
    }
    let Some(element) = gloo::utils::document().get_element_by_id(id) else { return };
    let top = element.get_bounding_client_rect().top();
    if state.placed.is_none_or(|placed| (placed - top).abs() >= 1.0) {
        element.scroll_into_view();
        state.placed = Some(element.get_bounding_client_rect().top());
    }
}

/// Marks `state` released: the reader acted on the page.
fn release(state: &FollowState) {
    state.borrow_mut().released = true;
}

/// Checks [`keep_in_view`] for an element whenever the page's body changes
/// size (after a layout that no render of the page caused, which the
/// renders' own checks would miss) and whenever the page scrolls, until the
/// reader acts on the page or it is dropped.
pub struct Following {
    _resize: Option<ResizeWatch>,
    _listeners: Vec<EventListener>,
}

/// What the reader does to scroll a page: a scroll after one of these is the reader's.
const READER_EVENTS: [&str; 4] = ["wheel", "touchstart", "keydown", "pointerdown"];

impl Following {
    /// Follows element `id` with `state`.
    pub fn new(id: String, state: FollowState) -> Self {
        let window = gloo::utils::window();
        let released = Rc::clone(&state);
        let check = move || keep_in_view(&id, &state);
        let resize = gloo::utils::document().body().and_then(|body| ResizeWatch::new(&body, check.clone()));
        // gloo's listeners are passive: the page's scrolling never waits for these.
        let mut listeners: Vec<EventListener> = READER_EVENTS
            .iter()
            .map(|&kind| {
                let state = Rc::clone(&released);
                EventListener::new(&window, kind, move |_| release(&state))
            })
            .collect();
        listeners.push(EventListener::new(&window, "scroll", move |_| check()));
        Self { _resize: resize, _listeners: listeners }
    }
}

thread_local! {
    /// The page's one follow of an in-page link's target ([`follow`]).
    static FOLLOWING: RefCell<Option<Following>> = const { RefCell::new(None) };
}

/// Scrolls to element `id` and keeps it in view until the reader acts on
/// the page or another link is followed: the page follows one link's target
/// at a time, whatever becomes of the link itself.
pub fn follow(id: &str) {
    let state = FollowState::default();
    keep_in_view(id, &state);
    let following = Following::new(id.to_owned(), state);
    FOLLOWING.with(|current| *current.borrow_mut() = Some(following));
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

    /// Scrolls to the page's top as a reader would: a wheel, then the scroll.
    pub(crate) fn reader_scrolls_to_top() {
        let window = gloo::utils::window();
        let wheel = web_sys::Event::new("wheel").expect("a wheel event");
        window.dispatch_event(&wheel).expect("dispatched");
        window.scroll_to_with_x_and_y(0.0, 0.0);
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
