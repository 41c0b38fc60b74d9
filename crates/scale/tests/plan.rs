//! Which GPUs a scale-model run simulates, and the errors for targets that
//! cannot be divided into the requested scale models.

use warplab_config::{GpuConfig, preset};
use warplab_scale::{ScalePlan, workable_pairs};
use wasm_bindgen_test::wasm_bindgen_test;

fn config(name: &str) -> GpuConfig {
    preset(name).expect("preset").config().expect("reads")
}

#[wasm_bindgen_test(unsupported = test)]
fn the_papers_target_from_8_and_16_sms() {
    let target = config("scalemodel");
    let plan = ScalePlan::new(&target, [8, 16], &[]).expect("divides");
    assert_eq!(plan.sms(), [8, 16, 32, 64, 128]);
    assert_eq!(plan.targets, [128]);
    let factors: Vec<u32> = plan.sizes.iter().map(|s| s.factor).collect();
    assert_eq!(factors, [16, 8, 4, 2, 1]);
    // Shared resources follow the SMs: one channel (4 slices) at 8 SMs.
    let smallest = &plan.sizes[0].config;
    assert_eq!((smallest.memory.n_channels, smallest.memory.n_sub_partitions()), (1, 4));
    assert_eq!(smallest.memory.l2_total_bytes(), target.memory.l2_total_bytes() / 16);
    assert_eq!(plan.size(128).map(|s| &s.config), Some(&target));
    // Predicting 64 SMs needs no 128-SM size.
    assert_eq!(ScalePlan::new(&target, [8, 16], &[64, 32]).expect("divides").sms(), [8, 16, 32, 64]);
}

#[wasm_bindgen_test(unsupported = test)]
fn requests_that_do_not_fit_say_why_and_what_would() {
    let target = config("scalemodel");
    let message =
        |models: [u32; 2], targets: &[u32]| ScalePlan::new(&target, models, targets).expect_err("refused").to_string();
    let works = "scale models that would work: 32,64 or 16,32 or 8,16";
    assert_eq!(message([8, 24], &[]), format!("the scale models must be S and 2S SMs, got 8,24; {works}"));
    assert_eq!(
        message([8, 16], &[96]),
        format!("target 96 SMs is not 4·8, 8·8, 16·8, …: sizes double from the scale models (8, 16); {works}")
    );
    assert_eq!(message([8, 16], &[256]), format!("target 256 SMs is larger than the GPU's 128; {works}"));
    assert_eq!(
        message([8, 16], &[16]).split(';').next(),
        Some("target 16 SMs is not 4·8, 8·8, 16·8, …: sizes double from the scale models (8, 16)")
    );
    // 4 SMs would need a quarter of a memory channel.
    assert!(message([4, 8], &[]).starts_with("4 SMs: scale factor 32: -gpgpu_n_mem 16: 16 is not divisible by 32"));
}

#[wasm_bindgen_test(unsupported = test)]
fn real_gpus_divide_as_their_counts_allow() {
    assert_eq!(workable_pairs(&config("QV100")), [[20, 40], [10, 20], [5, 10]]);
    // 46 SMs = 2 × 23: no factor of 4.
    assert_eq!(workable_pairs(&config("RTX3070")), Vec::<[u32; 2]>::new());
    let e = ScalePlan::new(&config("RTX3070"), [8, 16], &[]).expect_err("46 SMs").to_string();
    assert_eq!(
        e,
        "target 46 SMs is not 4·8, 8·8, 16·8, …: sizes double from the scale models (8, 16); no pair of scale models divides this GPU"
    );
    let plan = ScalePlan::new(&config("QV100"), [5, 10], &[]).expect("80 = 5 × 16");
    assert_eq!(plan.sms(), [5, 10, 20, 40, 80]);
}

#[wasm_bindgen_test(unsupported = test)]
fn one_slice_hash_for_the_whole_series() {
    use warplab_config::PartitionIndexing;
    // SM7_QV100 hashes its 64 slices with IPOLY; its 10-SM model's 8 cannot
    // be, so every size falls back, the 80-SM target too.
    let target = config("QV100");
    assert_eq!(target.memory.partition_indexing, PartitionIndexing::Ipoly);
    let plan = ScalePlan::new(&target, [10, 20], &[]).expect("80 = 10 × 8");
    let schemes: Vec<_> = plan.sizes.iter().map(|s| s.config.memory.partition_indexing).collect();
    assert_eq!(schemes, [PartitionIndexing::Consecutive; 4]);
    assert_eq!(plan.diagnostics.len(), 1, "{:?}", plan.diagnostics);
    assert!(plan.diagnostics[0].contains("the 80-SM target included, uses consecutive indexing (0)"));
    // From 20 and 40 SMs (16 and 32 slices) IPOLY fits every size: kept.
    let plan = ScalePlan::new(&target, [20, 40], &[]).expect("80 = 20 × 4");
    assert!(plan.sizes.iter().all(|s| s.config.memory.partition_indexing == PartitionIndexing::Ipoly));
    assert_eq!(plan.size(80).map(|s| &s.config), Some(&target));
    assert!(plan.diagnostics.is_empty());
}
