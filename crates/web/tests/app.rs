//! The app mounted in a real browser: it spawns the real worker, which
//! generates the default workload, and the page shows the worker's answer.
//!
//! The worker and sample files are served by wasm-bindgen's test runner from
//! this crate's directory: `cargo xtask test` copies the built `dist/` to
//! `crates/web/test-dist/` before it runs these tests.

use std::time::Duration;

use gloo::timers::future::sleep;
use warplab_lab::generator;
use warplab_web::{App, AppProps};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// Waits up to `timeout` for an element matching `selector` and returns its text.
async fn text_of(selector: &str, timeout: Duration) -> Option<String> {
    let document = gloo::utils::document();
    let step = Duration::from_millis(50);
    let mut waited = Duration::ZERO;
    loop {
        if let Ok(Some(element)) = document.query_selector(selector) {
            return element.text_content();
        }
        if waited >= timeout {
            return None;
        }
        sleep(step).await;
        waited += step;
    }
}

#[wasm_bindgen_test]
async fn app_shows_the_workers_generated_summary() {
    let document = gloo::utils::document();
    let host = document.create_element("div").expect("a div can be created");
    document.body().expect("the test page has a body").append_child(&host).expect("the div can be attached");
    let props = AppProps { asset_base: "test-dist/".into() };
    let _app = yew::Renderer::<App>::with_root_and_props(host, props).render();

    let timeout = Duration::from_secs(20);
    let warp_instructions = text_of("[data-testid=warp-instructions]", timeout).await;
    let error = text_of("[data-testid=error]", Duration::ZERO).await;
    // vecadd at its default size: one 15-instruction warp per 32 of size × 1024 elements.
    let size = generator("vecadd").expect("vecadd is a generator").size.default;
    assert_eq!(warp_instructions, Some((size * 1024 / 32 * 15).to_string()), "worker error: {error:?}");
    assert_eq!(text_of("[data-testid=workload-label]", timeout).await.as_deref(), Some("vecadd"));
    assert_eq!(text_of("[data-testid=generated-spec]", timeout).await.as_deref(), Some("vecadd"));
    assert_eq!(text_of("[data-testid=kernel-name]", timeout).await.as_deref(), Some("_Z6vecAddPKfS0_Pfi"));
}
