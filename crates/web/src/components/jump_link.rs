//! A link to a place on the page that scrolls there without touching the
//! address: the fragment carries the experiment (`#x=...`), and a plain
//! `href="#glossary-mshr"` would replace it, so "Copy link" or a reload
//! would lose the experiment.

use yew::prelude::*;

use crate::keep_in_view::follow;

/// Properties of [`JumpLink`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct JumpLinkProps {
    /// The `id` of the element to scroll to.
    pub to: AttrValue,
    /// The link's class.
    #[prop_or_default]
    pub class: Classes,
    /// The hover text.
    #[prop_or_default]
    pub title: Option<AttrValue>,
    /// The accessible name, when the text is not one (e.g. "?").
    #[prop_or_default]
    pub aria_label: Option<AttrValue>,
    /// `data-testid`, for tests.
    #[prop_or_default]
    pub testid: Option<AttrValue>,
    /// The link's text.
    pub children: Html,
}

/// An in-page link that scrolls to its target and leaves the address alone.
/// The target stays in view while the page fills in around it, until the
/// reader acts on the page ([`crate::keep_in_view::follow`]): a help link
/// followed while the figures still arrive lands on its entry, not where
/// the entry was before the panels above it grew.
#[component]
pub fn JumpLink(props: &JumpLinkProps) -> Html {
    let to = props.to.clone();
    let onclick = Callback::from(move |event: MouseEvent| {
        // Modified clicks (a new tab, a new window) keep the browser's meaning.
        if event.ctrl_key() || event.meta_key() || event.shift_key() || event.button() != 0 {
            return;
        }
        event.prevent_default();
        follow(&to);
    });
    html! {
        <a class={props.class.clone()} href={format!("#{}", props.to)} {onclick} title={props.title.clone()}
            aria-label={props.aria_label.clone()} data-testid={props.testid.clone()}>
            { props.children.clone() }
        </a>
    }
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

    /// A link, a tall panel, the link's target and a long tail.
    #[function_component]
    fn Page() -> Html {
        html! {
            <div>
                <JumpLink to="jump-target" testid="jump-link">{ "?" }</JumpLink>
                <div id="jump-above" style="height: 3000px"></div>
                <div id="jump-target" style="height: 100px"></div>
                <div style="height: 20000px"></div>
            </div>
        }
    }

    /// The element `selector` finds once Yew has rendered it.
    async fn rendered(selector: &str) -> HtmlElement {
        for _ in 0..50 {
            if let Ok(Some(element)) = gloo::utils::document().query_selector(selector) {
                return element.unchecked_into();
            }
            sleep(Duration::from_millis(20)).await;
        }
        panic!("{selector} was not rendered");
    }

    #[wasm_bindgen_test]
    async fn a_followed_link_keeps_its_target_in_view_while_the_page_above_it_grows() {
        let document = gloo::utils::document();
        let root = document.create_element("div").expect("a div");
        document.body().expect("a body").append_child(&root).expect("appended");
        yew::Renderer::<Page>::with_root(root).render();
        let link = rendered("[data-testid=jump-link]").await;
        // Scroll anchoring off, so the browser itself cannot keep the target in place.
        let root_style = document.document_element().expect("a root").unchecked_into::<HtmlElement>().style();
        root_style.set_property("overflow-anchor", "none").expect("styled");
        gloo::utils::window().scroll_to_with_x_and_y(0.0, 0.0);
        assert!(!in_view("jump-target"), "the target starts out of view");

        link.click();
        assert!(comes_into_view("jump-target").await, "the link scrolls to its target");
        let above: HtmlElement = document.get_element_by_id("jump-above").expect("mounted").unchecked_into();
        let height = gloo::utils::window().inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(1000.0);
        above.style().set_property("height", &format!("{}px", 3000.0 + 3.0 * height)).expect("styled");
        assert!(comes_into_view("jump-target").await, "back in view after the panel above grew");

        // The reader scrolls away (a wheel, then the scroll): the page leaves
        // the view alone when the panel grows again.
        reader_scrolls_to_top();
        above.style().set_property("height", &format!("{}px", 3000.0 + 4.0 * height)).expect("styled");
        sleep(Duration::from_millis(300)).await;
        assert!(!in_view("jump-target"), "the reader's scroll stands");
    }
}
