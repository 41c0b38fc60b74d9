//! Generators are deterministic across platforms: regenerating every
//! generated sample trace inside the browser (wasm32) gives, byte for byte,
//! the files the native CLI wrote to `sample-traces/` (served here from the
//! built `dist/`, which `cargo xtask test` copies to `test-dist/`).

use js_sys::Uint8Array;
use warplab_lab::{SAMPLE_TRACES, sample_files};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::Response;

wasm_bindgen_test_configure!(run_in_browser);

/// The bytes at `url`, relative to the test page.
async fn fetch(url: &str) -> Vec<u8> {
    let window = web_sys::window().expect("a window");
    let response = JsFuture::from(window.fetch_with_str(url)).await.expect("fetch runs");
    let response: Response = response.dyn_into().expect("a Response");
    assert!(response.ok(), "{url}: HTTP {}", response.status());
    let buffer = JsFuture::from(response.array_buffer().expect("a body")).await.expect("the body arrives");
    Uint8Array::new(&buffer).to_vec()
}

#[wasm_bindgen_test]
async fn samples_regenerated_in_wasm_match_the_native_files() {
    let mut compared = 0;
    for sample in SAMPLE_TRACES {
        let Some(files) = sample_files(sample) else { continue };
        for (name, bytes) in files.expect("the sample's spec runs") {
            let committed = fetch(&format!("test-dist/{}/{name}", sample.dir)).await;
            assert!(committed == bytes, "{}/{name}: wasm regeneration differs from the native file", sample.dir);
            compared += 1;
        }
    }
    assert!(compared >= 2 * (SAMPLE_TRACES.len() - 1), "only {compared} files compared");
}
