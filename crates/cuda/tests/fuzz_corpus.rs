//! The `parse_check` fuzz target's seeds replayed as an ordinary test: every
//! input in `fuzz/corpus/parse_check/` and every example in `examples/` (the
//! fuzzer's second seed directory) gives a program or one located error,
//! never a panic, and exactly the valid programs among them are accepted.
#![cfg(not(target_arch = "wasm32"))]

use warplab_cuda::fuzzing::parse_check;

fn accepted(dir: &str) -> Vec<String> {
    let dir = format!("{}/{dir}", env!("CARGO_MANIFEST_DIR"));
    let mut entries: Vec<_> =
        std::fs::read_dir(&dir).expect("the directory exists").map(|entry| entry.expect("an entry").path()).collect();
    entries.sort();
    assert!(entries.len() >= 5, "{dir} holds only {} inputs", entries.len());
    entries
        .iter()
        .filter(|path| parse_check(&std::fs::read(path).expect("reads")))
        .map(|path| path.file_name().expect("a name").to_string_lossy().into_owned())
        .collect()
}

#[test]
fn corpus_never_panics() {
    assert_eq!(accepted("fuzz/corpus/parse_check"), ["control-flow.cu", "nested-defines.cu"]);
}

#[test]
fn examples_are_accepted() {
    assert_eq!(accepted("examples"), ["histogram.cu", "matmul.cu", "reduction.cu", "transpose.cu", "vecadd.cu"]);
}
