//! The scale-model operator: shared resources divided, per-SM and per-slice
//! resources kept, IPOLY falling back when the slice count stops fitting.

use warplab_config::{Diagnostic, GpuConfig, PartitionIndexing, preset};

const MB: u64 = 1024 * 1024;

fn config(name: &str) -> GpuConfig {
    preset(name).expect("preset").config().expect("reads")
}

/// (SMs, channels, slices, total L2 MB, NoC GB/s x 10, DRAM GB/s x 10)
fn figures(c: &GpuConfig) -> (u32, u32, u32, u64, u64, u64) {
    (
        c.n_sms(),
        c.memory.n_channels,
        c.memory.n_sub_partitions(),
        c.memory.l2_total_bytes() / MB,
        c.noc_bandwidth_bytes_per_second() / 100_000_000,
        c.dram_bandwidth_bytes_per_second() / 100_000_000,
    )
}

fn check(name: &str, factor: u32, expect: (u32, u32, u32, u64, u64, u64), diagnostics: &[&str]) {
    let base = config(name);
    let scaled = base.scale_shared(factor).expect("the factor divides");
    assert_eq!(figures(&scaled.config), expect, "{name} / {factor}");
    let messages: Vec<String> = scaled.diagnostics.iter().map(|d| format!("{}: {}", d.option, d.message)).collect();
    assert_eq!(messages, diagnostics, "{name} / {factor}");
    // Per-SM, per-channel and per-slice parameters are untouched.
    let c = &scaled.config;
    assert_eq!(
        (&c.units, &c.l1, &c.scheduling, &c.dram, &c.clocks),
        (&base.units, &base.l1, &base.scheduling, &base.dram, &base.clocks)
    );
    assert_eq!(
        (c.cores.max_threads_per_sm, c.cores.regs_per_sm, &c.memory.l2),
        (base.cores.max_threads_per_sm, base.cores.regs_per_sm, &base.memory.l2)
    );
    assert_eq!(c.memory.sub_partitions_per_channel, base.memory.sub_partitions_per_channel);
    // A scale model is an ordinary config: it writes and reads back.
    let files = c.to_files();
    assert_eq!(&GpuConfig::read(files.iter().map(|(n, t)| (n.as_str(), t.as_str()))).expect("reads back"), c);
}

#[test]
fn qv100_halved() {
    check("QV100", 1, (80, 32, 64, 6, 23183, 8704), &[]);
    check("QV100", 2, (40, 16, 32, 3, 11591, 4352), &[]);
    check("QV100", 4, (20, 8, 16, 1, 5795, 2176), &[]);
}

#[test]
fn ipoly_falls_back_when_the_slices_stop_fitting() {
    let rule =
        "IPOLY partition indexing needs 16, 32 or 64 sub-partitions after rounding the channels up to a power of two";
    let note = format!(
        "-gpgpu_memory_partition_indexing: {rule}, and 4 channels x 2 give 8; fell back to consecutive indexing (0)"
    );
    check("QV100", 8, (10, 4, 8, 0, 2897, 1088), &[&note]);
    let scaled = config("QV100").scale_shared(8).expect("divides");
    assert_eq!(scaled.config.memory.partition_indexing, PartitionIndexing::Consecutive);
    assert_eq!(scaled.config.memory.l2_total_bytes(), 768 * 1024);
    // Scaling up past 64 slices falls back too.
    let up = config("QV100").scale_up(2).expect("within the limits");
    assert_eq!((up.config.n_sms(), up.config.memory.n_sub_partitions()), (160, 128));
    assert_eq!(
        up.diagnostics,
        [Diagnostic {
            option: "-gpgpu_memory_partition_indexing".into(),
            message: format!("{rule}, and 64 channels x 2 give 128; fell back to consecutive indexing (0)"),
        }]
    );
}

#[test]
fn scalemodel_128sm_scale_models() {
    check("scalemodel-128sm", 2, (64, 8, 32, 16, 10784, 11600), &[]);
    check("scalemodel-128sm", 4, (32, 4, 16, 8, 5392, 5800), &[]);
    check("scalemodel-128sm", 8, (16, 2, 8, 4, 2696, 2900), &[]);
    // The paper's 8-SM scale model: 2.125 MB in the paper's Table I; 2 MB here (512 KB slices), 168.5 and 145 GB/s.
    check("scalemodel-128sm", 16, (8, 1, 4, 2, 1348, 1450), &[]);
    let target = config("scalemodel-128sm");
    let smallest = target.scale_shared(16).expect("divides").config;
    assert_eq!(smallest.scale_up(16).expect("back to the target").config, target);
}

#[test]
fn factors_that_do_not_apply_are_errors() {
    let qv100 = config("QV100");
    let message = |factor: u32| qv100.scale_shared(factor).map(|_| ()).map_err(|e| e.to_string());
    assert_eq!(message(3), Err("scale factor 3: -gpgpu_n_clusters 80: 80 is not divisible by 3".to_owned()));
    assert_eq!(message(5), Err("scale factor 5: -gpgpu_n_mem 32: 32 is not divisible by 5".to_owned()));
    assert_eq!(message(0), Err("scale factor 0: -gpgpu_n_clusters 80: the factor must be at least 1".to_owned()));
    let up = qv100.scale_up(13).map(|_| ()).map_err(|e| e.to_string());
    assert_eq!(up, Err("scale factor 13: -gpgpu_n_clusters 80: the result exceeds the limit of 1024".to_owned()));
}

#[test]
fn booksim_networks_keep_their_node_count_with_a_note() {
    let scaled = config("H100").scale_shared(2).expect("divides");
    assert_eq!((scaled.config.n_sms(), scaled.config.memory.n_channels), (66, 20));
    let notes: Vec<&str> = scaled.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(notes, ["the .icnt file's k = 144 is kept; the scaled GPU has 66 SMs and 40 L2 slices"]);
}
