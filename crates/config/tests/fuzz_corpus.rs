//! The `config_reader` fuzz target's seed corpus, run as an ordinary test:
//! every file read as a config (and as an `.icnt` file) gives a config or an
//! error, never a panic, and an accepted config round-trips.
#![cfg(not(target_arch = "wasm32"))]

use warplab_config::GpuConfig;

/// The fuzz target's body (`fuzz/fuzz_targets/config_reader.rs`).
fn exercise(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    let accepted = match GpuConfig::read([("gpgpusim.config", text.as_ref())]) {
        Ok(config) => {
            let files = config.to_files();
            let again = GpuConfig::read(files.iter().map(|(name, text)| (name.as_str(), text.as_str())));
            assert_eq!(again.as_ref(), Ok(&config), "write then read is the identity");
            let _ = config.scale_shared(2);
            let _ = config.summary();
            true
        }
        Err(error) => {
            assert!(!error.to_string().contains('\n'), "one-line messages: {error}");
            false
        }
    };
    let base = "-network_mode 1\n-gpgpu_cache:dl2 S:32:128:24,L:B:m:L:P,A:192:4,32:0,32\n-gpgpu_cache:il1 N:64:128:16,L:R:f:N:L,S:2:48,4\n";
    let _ = GpuConfig::read([("gpgpusim.config", base), ("net.icnt", text.as_ref())]);
    accepted
}

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
    assert_eq!(entries.len(), 9);
    assert_eq!(accepted, ["minimal.config", "notation.config", "qv100.config"]);
}
