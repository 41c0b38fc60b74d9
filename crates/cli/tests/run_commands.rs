//! `warplab run`: the timing model from the command line, its JSON keys and
//! its errors.

mod common;

use common::{json, warplab};

#[test]
fn run_prints_every_figure_as_json() {
    let report = json(&["run", "--config", "QV100", "--gen", "vecadd:size=8", "--json"]);
    for key in [
        "cycles",
        "warp_insts",
        "thread_insts",
        "ipc",
        "warp_ipc",
        "f_mem",
        "l2_mpki",
        "l1d",
        "l2",
        "dram",
        "latency_breakdown",
        "issue_breakdown",
        "kernels",
        "diagnostics",
        "sim_wall_s",
        "warp_insts_per_s",
    ] {
        assert!(report.get(key).is_some(), "missing `{key}`");
    }
    assert_eq!(report["kernels"].as_array().map(Vec::len), Some(1));
    assert!(report["cycles"].as_u64().unwrap_or(0) > 0);
}

#[test]
fn run_reads_a_trace_directory_and_prints_a_table() {
    let (code, stdout, stderr) =
        warplab(&["run", "--config", "RTX3070", "--trace", "crates/trace/test_data/vectorAdd-sm80-a100-v5-xz"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("IPC") && stdout.contains("L1 miss latency"), "{stdout}");
}

#[test]
fn run_without_a_workload_or_with_a_bad_one_is_one_error_line() {
    let (code, _, stderr) = warplab(&["run", "--config", "QV100", "--trace", "no/such/dir"]);
    assert_eq!(code, 2);
    assert!(stderr.starts_with("error: ") && stderr.contains("no/such/dir"), "{stderr}");
    let (code, _, stderr) = warplab(&["run", "--config", "QV100", "--gen", "vecadd:nope=1"]);
    assert_eq!(code, 2, "{stderr}");
}
