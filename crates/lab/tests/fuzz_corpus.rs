//! The `link_decoder` fuzz target's seed corpus, run as an ordinary test:
//! every file is decoded or refused with a one-line message, never a panic.
#![cfg(not(target_arch = "wasm32"))]

use warplab_lab::fuzzing::link_decoder as exercise;

#[test]
fn seed_corpus_never_panics() {
    let mut entries: Vec<_> = std::fs::read_dir("fuzz/corpus/link_decoder")
        .expect("the corpus directory")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    entries.sort();
    let accepted: Vec<String> = entries
        .iter()
        .filter(|path| exercise(&std::fs::read(path).expect("reads")))
        .map(|path| path.file_name().expect("a name").to_string_lossy().into_owned())
        .collect();
    assert_eq!(entries.len(), 14);
    assert_eq!(
        accepted,
        [
            "valid-everything-v2.txt",
            "valid-everything-v3.txt",
            "valid-everything.txt",
            "valid-sample.txt",
            "valid-url.txt"
        ]
    );
}
