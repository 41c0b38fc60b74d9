//! The body of the `config_reader` fuzz target in `fuzz/`, here so that the
//! fuzzer and the test that replays its corpus run the same code.

use crate::GpuConfig;

/// Reads `data` as a `gpgpusim.config` (and as an `.icnt` file beside a valid
/// config). It must give a config or a one-line error, never a panic, and an
/// accepted config must write back and read again to itself. Returns whether
/// the config was accepted.
///
/// # Panics
/// When one of those properties fails: that is the fuzzer's finding.
pub fn config_reader(data: &[u8]) -> bool {
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
