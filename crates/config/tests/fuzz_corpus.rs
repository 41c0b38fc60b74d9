//! The `config_reader` fuzz target's seed corpus, run as an ordinary test:
//! every file read as a config (and as an `.icnt` file) gives a config or an
//! error, never a panic, and an accepted config round-trips.
#![cfg(not(target_arch = "wasm32"))]

use warplab_config::fuzzing::config_reader as exercise;

#[test]
fn seed_corpus_never_panics() {
    let mut entries: Vec<_> = std::fs::read_dir("fuzz/corpus/config_reader")
        .expect("the corpus directory")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    entries.sort();
    let accepted: Vec<String> = entries
        .iter()
        .filter(|path| exercise(&std::fs::read(path).expect("reads")))
        .map(|path| path.file_name().expect("a name").to_string_lossy().into_owned())
        .collect();
    assert_eq!(entries.len(), 10);
    assert_eq!(accepted, ["minimal.config", "notation.config", "qv100.config"]);
}
