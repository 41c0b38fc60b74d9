//! The fuzz targets' corpora replayed as ordinary tests: every input in
//! `fuzz/corpus/<target>/` runs through the target's body without panicking.
#![cfg(not(target_arch = "wasm32"))]

use warplab_trace::fuzzing;

fn replay(target: &str, body: fn(&[u8])) {
    let dir = format!("{}/fuzz/corpus/{target}", env!("CARGO_MANIFEST_DIR"));
    let mut inputs = 0;
    for entry in std::fs::read_dir(&dir).expect("the corpus directory exists") {
        let bytes = std::fs::read(entry.expect("readable entry").path()).expect("readable input");
        body(&bytes);
        inputs += 1;
    }
    assert!(inputs >= 2, "{dir} holds only {inputs} inputs");
}

#[test]
fn kernel_corpus() {
    replay("kernel", fuzzing::kernel);
}

#[test]
fn line_corpus() {
    replay("line", fuzzing::line);
}

#[test]
fn xz_corpus() {
    replay("xz", fuzzing::xz);
}
