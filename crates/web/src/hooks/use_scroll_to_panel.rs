//! A handout step's link names a panel: the page scrolls to it once the run
//! has stopped, and keeps it there while the panels above it take their size.

use std::rc::Rc;

use yew::prelude::*;

use crate::keep_in_view::{FollowState, Followed, Following, keep_in_view};

/// Scrolls to the element `panel` names once the run has stopped
/// (`settled`: the panels above it have their size by then) and, until the
/// reader acts on the page, again whenever it leaves its place on the screen
/// ([`crate::keep_in_view`]): checked after every render of the page,
/// whenever the page's body changes size, and whenever the page scrolls.
#[hook]
pub fn use_scroll_to_panel(panel: Option<&'static str>, settled: bool) {
    let scrolled: FollowState = use_mut_ref(Default::default);
    let wanted = panel.filter(|_| settled);
    {
        // Another step's panel is followed afresh, even after the reader
        // acted on the page; the same panel after another run is not.
        let scrolled = Rc::clone(&scrolled);
        use_effect_with(panel, move |_| *scrolled.borrow_mut() = Followed::default());
    }
    {
        let scrolled = Rc::clone(&scrolled);
        use_effect(move || {
            if let Some(id) = wanted {
                keep_in_view(id, &scrolled);
            }
        });
    }
    use_effect_with(wanted, move |wanted| {
        let watch = wanted.map(|id| Following::new(id.to_owned(), scrolled));
        // Dropping the watch disconnects it: when the step is dismissed or a new run starts.
        move || drop(watch)
    });
}

#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    use std::time::Duration;

    use gloo::timers::future::sleep;
    use wasm_bindgen::JsCast;
    use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
    use web_sys::HtmlElement;

    use super::*;
    use crate::keep_in_view::tests::{comes_into_view, in_view, reader_scrolls_to_top};

    wasm_bindgen_test_configure!(run_in_browser);

    /// A page that renders once: a short panel, the named one, and a long tail.
    #[function_component]
    fn Page() -> Html {
        use_scroll_to_panel(Some("named-panel"), true);
        html! {
            <div>
                <div id="panel-above" style="height: 40px"></div>
                <div id="named-panel" style="height: 100px"></div>
                <div style="height: 20000px"></div>
            </div>
        }
    }

    #[wasm_bindgen_test]
    async fn a_panel_that_grows_above_the_named_one_after_the_last_render_does_not_push_it_out_of_view() {
        let document = gloo::utils::document();
        let host = document.create_element("div").expect("a div");
        document.body().expect("a body").append_child(&host).expect("appended");
        // The tail first, so the named panel starts out of view and the hook must scroll.
        let spacer: HtmlElement = document.create_element("div").expect("a div").unchecked_into();
        spacer.style().set_property("height", "3000px").expect("styled");
        host.append_child(&spacer).expect("appended");
        let root = document.create_element("div").expect("a div");
        host.append_child(&root).expect("appended");
        yew::Renderer::<Page>::with_root(root).render();
        assert!(comes_into_view("named-panel").await, "scrolled to the named panel");

        // Only the browser's layout changes from here on: the page does not
        // render again. Scroll anchoring off, so the browser itself cannot
        // keep the panel in place.
        let root_style = document.document_element().expect("a root").unchecked_into::<HtmlElement>().style();
        root_style.set_property("overflow-anchor", "none").expect("styled");
        let above: HtmlElement = document.get_element_by_id("panel-above").expect("mounted").unchecked_into();
        let height = gloo::utils::window().inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(1000.0);
        above.style().set_property("height", &format!("{}px", 3.0 * height)).expect("styled");
        assert!(comes_into_view("named-panel").await, "back in view after the panel above grew");

        // The reader scrolls away (a wheel, then the scroll): the page leaves
        // the view alone when the panel grows again.
        reader_scrolls_to_top();
        above.style().set_property("height", &format!("{}px", 4.0 * height)).expect("styled");
        sleep(Duration::from_millis(300)).await;
        assert!(!in_view("named-panel"), "the reader's scroll stands");
    }
}
