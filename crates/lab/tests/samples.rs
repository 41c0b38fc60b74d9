//! Every bundled sample trace reads through the lab, natively and in the
//! browser, with the figures its provenance states.

use std::io::Read;

use warplab_lab::{LabError, SAMPLE_TRACES, summarize_trace};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// The sample files, embedded so the test runs in the browser too.
fn sample_file(dir: &str, file: &str) -> Result<&'static [u8], String> {
    match (dir, file) {
        ("sample-traces/vectoradd-sm61-gtx1080-v4", "kernelslist.g") => {
            Ok(include_bytes!("../../../sample-traces/vectoradd-sm61-gtx1080-v4/kernelslist.g"))
        }
        ("sample-traces/vectoradd-sm61-gtx1080-v4", "kernel-1.traceg") => {
            Ok(include_bytes!("../../../sample-traces/vectoradd-sm61-gtx1080-v4/kernel-1.traceg"))
        }
        _ => Err(format!("no such sample file {dir}/{file}")),
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn default_sample_is_the_vectoradd_anchor() {
    let sample = SAMPLE_TRACES[0];
    let list = std::str::from_utf8(sample_file(sample.dir, "kernelslist.g").expect("bundled")).expect("text");
    let mut open = |file: &str| sample_file(sample.dir, file).map(|bytes| Box::new(bytes) as Box<dyn Read>);
    let summary = summarize_trace(sample.name, list, &mut open).expect("sample reads");
    assert_eq!(summary.kernels.len(), 1);
    assert_eq!(summary.kernels[0].name, "_Z6vecAddIfEvPT_S1_S1_i");
    assert_eq!((summary.totals.warp_insts, summary.totals.thread_insts), (344, 10_516));
    assert_eq!(summary.memcpys.len(), 3);
}

#[wasm_bindgen_test(unsupported = test)]
fn missing_kernel_file_is_reported_not_panicked() {
    let mut open = |_: &str| -> Result<Box<dyn Read>, String> { Err("not found".to_owned()) };
    let got = summarize_trace("x", "kernel-9.traceg\n", &mut open);
    assert_eq!(got, Err(LabError::Missing { file: "kernel-9.traceg".into(), reason: "not found".into() }));
    assert_eq!(got.unwrap_err().to_string(), "kernel-9.traceg: cannot open: not found");
}
