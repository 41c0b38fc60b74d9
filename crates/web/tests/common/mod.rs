//! What the component tests share: mounting a component on a fresh element
//! and reading back what it drew (elements, their text and `data-value`s).

use std::time::Duration;

use gloo::timers::future::sleep;
use web_sys::Element;
use yew::BaseComponent;

/// Mounts `C` with `props` on a new div and returns the div once an element
/// matching `ready` has rendered (or after a second).
pub async fn mount<C: BaseComponent>(props: C::Properties, ready: &str) -> Element {
    let document = gloo::utils::document();
    let host = document.create_element("div").expect("a div can be created");
    document.body().expect("the test page has a body").append_child(&host).expect("the div can be attached");
    yew::Renderer::<C>::with_root_and_props(host.clone(), props).render();
    // Yew renders on its scheduler, after this task yields.
    for _ in 0..100 {
        if host.query_selector(ready).ok().flatten().is_some() {
            break;
        }
        sleep(Duration::from_millis(10)).await;
    }
    host
}

/// The elements under `host` that match `selector`.
pub fn all(host: &Element, selector: &str) -> Vec<Element> {
    let list = host.query_selector_all(selector).expect("a valid selector");
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|node| wasm_bindgen::JsCast::dyn_into(node).ok())
        .collect()
}

/// The `data-value`s of the elements under `host` that match `selector`.
pub fn values(host: &Element, selector: &str) -> Vec<f64> {
    let values = all(host, selector).into_iter().map(|element| element.get_attribute("data-value"));
    values.map(|value| value.and_then(|text| text.parse().ok()).expect("a numeric data-value")).collect()
}

/// The text of the first element under `host` that matches `selector`.
pub fn text(host: &Element, selector: &str) -> Option<String> {
    host.query_selector(selector).ok().flatten().and_then(|element| element.text_content())
}
