//! Fuzz target: arbitrary bytes as a gpgpusim.config (and as a BookSim
//! `.icnt` beside a valid one) must give a config or an error, never a panic;
//! an accepted config must write back and read again to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warplab_config::GpuConfig;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(config) = GpuConfig::read([("gpgpusim.config", text.as_ref())]) {
        let files = config.to_files();
        let again = GpuConfig::read(files.iter().map(|(name, text)| (name.as_str(), text.as_str())));
        assert_eq!(again.as_ref(), Ok(&config), "write then read is the identity");
        let _ = config.scale_shared(2);
        let _ = config.summary();
    }
    let base = "-network_mode 1\n-gpgpu_cache:dl2 S:32:128:24,L:B:m:L:P,A:192:4,32:0,32\n-gpgpu_cache:il1 N:64:128:16,L:R:f:N:L,S:2:48,4\n";
    let _ = GpuConfig::read([("gpgpusim.config", base), ("net.icnt", text.as_ref())]);
});
