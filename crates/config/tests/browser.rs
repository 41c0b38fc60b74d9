//! An embedded preset read natively and in headless Chromium: the same figures
//! in both, so the browser's config is the CLI's config.

use warplab_config::{GpuConfig, SchedulerPolicy, preset};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test(unsupported = test)]
fn qv100_preset_reads_the_same_everywhere() {
    let config = preset("qv100").expect("the preset is embedded").config().expect("it reads");
    assert_eq!(config.n_sms(), 80);
    assert_eq!((config.cores.max_threads_per_sm, config.scheduling.policy.clone()), (2048, SchedulerPolicy::Lrr));
    assert_eq!(config.memory.l2.to_string(), "S:32:128:24,L:B:m:L:P,A:192:4,32:0,32");
    assert_eq!(config.memory.l2_total_bytes(), 6 * 1024 * 1024);
    assert_eq!((config.dram.timing.t_rcd, config.dram.timing.cl, config.dram.timing.t_rtpl), (12, 12, 3));
    assert_eq!(config.clocks.dram.khz(), 850_000);
    assert_eq!(config.dram_bandwidth_bytes_per_second(), 870_400_000_000);
    let scaled = config.scale_shared(2).expect("80 SMs and 32 channels halve");
    assert_eq!((scaled.config.n_sms(), scaled.config.memory.l2_total_bytes()), (40, 3 * 1024 * 1024));
    let files = config.to_files();
    let again = GpuConfig::read(files.iter().map(|(n, t)| (n.as_str(), t.as_str()))).expect("reads back");
    assert_eq!(again, config);
}

#[wasm_bindgen_test(unsupported = test)]
fn rtx3070_fractional_clock_and_h100_unknown_options() {
    let rtx = preset("RTX3070").expect("embedded").config().expect("reads");
    assert_eq!(rtx.clocks.dram.khz(), 3_500_500);
    let h100 = preset("H100").expect("embedded").config().expect("reads");
    assert_eq!(h100.unknown_options.len(), 5);
    assert_eq!(h100.chiplets.count, 2);
    assert_eq!(h100.memory.l2_total_bytes(), 50 * 1024 * 1024);
}
