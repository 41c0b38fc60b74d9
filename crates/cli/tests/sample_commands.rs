//! `warplab run --sample`: sampled simulation from the command line, its
//! per-kernel table, the comparison with a full run, and its option errors.

mod common;

use common::{json, warplab};

#[test]
fn a_sampled_run_compares_itself_with_the_full_run() {
    let args = ["run", "--config", "QV100", "--gen", "vecadd:size=16,launches=3", "--sample", "kernel"];
    let report = json(&[&args[..], &["--against-full", "--json"]].concat());
    let kernels = report["sampling"]["kernels"].as_array().expect("a sampling report");
    let levels: Vec<&str> = kernels.iter().map(|k| k["level"].as_str().unwrap_or("?")).collect();
    assert_eq!(levels, ["detailed", "kernel", "kernel"]);
    assert_eq!(report["sampling"]["options"]["mode"], "kernel");
    let against = &report["against_full"];
    assert_eq!(against["kernels"].as_array().map(Vec::len), Some(3));
    assert_eq!(against["kernels"][0]["ipc_error"], 0.0, "the first launch runs in detail in both");
    assert_eq!(against["instruction_speedup"], 3.0);
    assert!(against["wall_speedup"].as_f64().is_some());
    let (code, stdout, stderr) = warplab(&[&args[..], &["--against-full"]].concat());
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("sampling (kernel): per kernel, the level used"), "{stdout}");
    assert!(stdout.contains("kernel 1: kernel") && stdout.contains("nearest kernel 0 at 0.000"), "{stdout}");
    assert!(stdout.contains("against the full run: IPC"), "{stdout}");
}

#[test]
fn thresholds_are_options_and_bad_ones_are_named() {
    let (code, _, stderr) = warplab(&["run", "--config", "QV100", "--gen", "vecadd:size=4", "--sample", "sometimes"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("sometimes") && stderr.contains("photon"), "{stderr}");
    let (code, _, stderr) =
        warplab(&["run", "--config", "QV100", "--gen", "vecadd:size=4", "--sample", "warp", "--delta-pct", "120"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--delta-pct") && stderr.contains("120"), "{stderr}");
    let (code, _, stderr) = warplab(&["run", "--config", "QV100", "--gen", "vecadd:size=4", "--against-full"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--against-full needs --sample"), "{stderr}");
    // A window of 32 warps and a 100% tolerance: warp sampling takes over at
    // once. (Four CTAs' worth: the warps of one CTA share their launch and end
    // cycles, so a window inside one CTA has no slope to test.)
    let report = json(&[
        "run",
        "--config",
        "QV100",
        "--gen",
        "vecadd:size=256",
        "--sample",
        "warp",
        "--warp-window",
        "32",
        "--delta-pct",
        "100",
        "--json",
    ]);
    assert_eq!(report["sampling"]["kernels"][0]["level"], "warp");
    assert_eq!(report["sampling"]["options"]["warp_window"], 32);
}
