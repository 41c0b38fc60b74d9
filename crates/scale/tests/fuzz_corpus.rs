//! The `table_reader` fuzz target's seed corpus, run as an ordinary test:
//! every file is read and evaluated or refused with a one-line error, never
//! a panic.
#![cfg(not(target_arch = "wasm32"))]

use warplab_scale::fuzzing::table_reader as exercise;

#[test]
fn seed_corpus_never_panics() {
    let mut entries: Vec<_> = std::fs::read_dir("fuzz/corpus/table_reader")
        .expect("the corpus directory")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    entries.sort();
    let evaluated: Vec<String> = entries
        .iter()
        .filter(|path| exercise(&std::fs::read(path).expect("reads")))
        .map(|path| path.file_name().expect("a name").to_string_lossy().into_owned())
        .collect();
    assert_eq!(entries.len(), 6);
    assert_eq!(evaluated, ["chiplets-cliff.csv", "published.csv"]);
}
