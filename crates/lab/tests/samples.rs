//! Every bundled sample trace reads through the lab, natively and in the
//! browser, with the figures its provenance states.

use warplab_lab::{LabError, SAMPLE_TRACES, summarize_trace};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// The sample files, embedded so the test runs in the browser too.
fn sample_file(dir: &str, file: &str) -> Result<Vec<u8>, String> {
    match (dir, file) {
        ("sample-traces/vectoradd-sm61-gtx1080-v4", "kernelslist.g") => {
            Ok(include_bytes!("../../../sample-traces/vectoradd-sm61-gtx1080-v4/kernelslist.g").to_vec())
        }
        ("sample-traces/vectoradd-sm61-gtx1080-v4", "kernel-1.traceg") => {
            Ok(include_bytes!("../../../sample-traces/vectoradd-sm61-gtx1080-v4/kernel-1.traceg").to_vec())
        }
        _ => Err(format!("no such sample file {dir}/{file}")),
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn default_sample_is_the_vectoradd_anchor() {
    let sample = SAMPLE_TRACES[0];
    let list = sample_file(sample.dir, "kernelslist.g").expect("kernelslist.g is bundled");
    let list = String::from_utf8(list).expect("kernelslist.g is text");
    let summary = summarize_trace(sample.name, &list, |file| sample_file(sample.dir, file)).expect("sample reads");
    assert_eq!(summary.kernels.len(), 1);
    assert_eq!(summary.kernels[0].name, "_Z6vecAddIfEvPT_S1_S1_i");
    assert_eq!(summary.warp_instructions(), 344);
    assert_eq!(summary.thread_instructions(), 10_516);
    assert_eq!(summary.memcpy_commands, 3);
}

#[wasm_bindgen_test(unsupported = test)]
fn missing_kernel_file_is_reported_not_panicked() {
    let got = summarize_trace("x", "kernel-9.traceg\n", |_| Err("not found".to_owned()));
    assert_eq!(got, Err(LabError::Missing { file: "kernel-9.traceg".into(), reason: "not found".into() }));
    assert_eq!(got.unwrap_err().to_string(), "kernel-9.traceg: cannot open: not found");
}
