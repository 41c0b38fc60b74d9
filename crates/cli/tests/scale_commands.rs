//! `warplab scale predict` and `warplab scale table`: the published table's
//! figures through the command line, the JSON's shape, and one-line errors.

mod common;

use common::{json, warplab};

const TABLE: &str = "crates/scale/test_data/single_strong_scaling.csv";
const DCT_MPKI: &str = "6.166853365,6.178722328,6.162565976,5.524311167,0.1004975147";

/// `scale predict` on dct's published inputs, with `extra` flags, as JSON.
fn predict_dct(extra: &[&str]) -> serde_json::Value {
    let ipc = ["--ipc", "112.7412,226.4367", "--smallest", "8", "--fmem", "0.52", "--json"];
    json(&[&["scale", "predict", "--mpki", DCT_MPKI], &ipc[..], extra].concat())
}

#[test]
fn predict_reproduces_the_reference_tool_on_dct() {
    let out = predict_dct(&[]);
    assert_eq!(out["sizes"], serde_json::json!([8, 16, 32, 64, 128]));
    assert_eq!(out["cliff"]["to"], 128);
    let scale_model = &out["curves"][0];
    assert_eq!(scale_model["method"], "Scale-Model");
    let at_128 = scale_model["ipc"][4].as_f64().expect("a number");
    assert!((at_128 - 3870.386124).abs() < 1e-3, "{at_128}");
    // The paper's rule at the cliff: IPC_L · 128/16 / (1 − f_mem).
    let paper = predict_dct(&["--rule", "paper"]);
    assert!((paper["curves"][0]["ipc"][4].as_f64().expect("a number") - 226.4367 * 8.0 / 0.48).abs() < 1e-6);
}

#[test]
fn predict_refuses_edge_cases_in_one_line() {
    let cases: [(&[&str], &str); 5] = [
        (&["--ipc", "100", "--mpki", "1,1,1"], "--ipc: give the two scale models' IPC, S,L (got 1 values)"),
        (&["--ipc", "100,0", "--mpki", "1,1,1"], "the IPC at 16 is 0; it must be a number > 0"),
        (&["--ipc", "100,190", "--mpki", "1"], "need at least two system sizes (the two scale models), got 1"),
        (&["--ipc", "100,190", "--mpki", "1,1,1", "--fmem", "1"], "f_mem is 1; it must be a fraction in [0, 1)"),
        (
            &["--ipc", "112.7412,226.4367", "--mpki", DCT_MPKI],
            "a cliff is expected from 64 to 128: the cliff formula needs f_mem of the larger scale model",
        ),
    ];
    for (args, message) in cases {
        let (code, _, stderr) = warplab(&[&["scale", "predict", "--smallest", "8"], args].concat());
        assert_eq!((code, stderr.trim()), (2, format!("error: {message}").as_str()), "{args:?}");
    }
}

#[test]
fn table_prints_the_published_summary() {
    let (code, stdout, stderr) = warplab(&["scale", "table", TABLE]);
    assert_eq!(code, 0, "{stderr}");
    let last = stdout.lines().last().expect("a summary line");
    assert!(
        last.starts_with("   128     3.23 / 8.25    8.88 / 54.18   12.31 / 54.59   69.27 / 85.83   15.28 / 54.95"),
        "{last}"
    );
    let out = json(&["scale", "table", TABLE, "--json"]);
    assert_eq!(out["predictions"].as_array().map(Vec::len), Some(400));
    let keys: Vec<&String> = out["predictions"][0].as_object().expect("object").keys().collect();
    assert_eq!(keys, ["abs_err_pct", "actual_ipc", "benchmark", "model", "predicted_ipc", "role", "units"]);
    let summary = &out["summary"].as_array().expect("array")[10];
    assert_eq!((summary["model"].as_str(), summary["target_units"].as_u64()), (Some("Scale-Model"), Some(128)));
}

#[test]
fn table_errors_name_the_file_and_line() {
    let (code, _, stderr) = warplab(&["scale", "table", "crates/scale/test_data/README.md"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: crates/scale/test_data/README.md:1: header: no `num_sms` or `num_chiplets` column"),
        "{stderr}"
    );
    let (code, _, stderr) = warplab(&["scale", "table", "no-such.csv"]);
    assert_eq!((code, stderr.starts_with("error: no-such.csv: ")), (2, true), "{stderr}");
}

#[test]
fn run_predicts_and_validates_a_small_workload() {
    let args = ["scale", "run", "--config", "scalemodel", "--gen", "vecadd:size=32", "--scale-models", "8,16"];
    let out = json(&[&args[..], &["--targets", "32", "--validate", "--json"]].concat());
    assert_eq!(out["sizes"], serde_json::json!([8, 16, 32]));
    assert_eq!((out["workload"].as_str(), out["scale_models"][1]["sms"].as_u64()), (Some("vecadd:size=32"), Some(16)));
    let simulated = out["validation"][0]["ipc"].as_f64().expect("the 32-SM run");
    // Both rules, the reference tool's first, each with its errors.
    for (k, rule) in ["reference", "paper"].iter().enumerate() {
        let outcome = &out["by_rule"][k];
        assert_eq!(outcome["prediction"]["rule"].as_str(), Some(*rule));
        let error = &outcome["errors"][0];
        assert_eq!((error["model"].as_str(), error["actual_ipc"].as_f64()), (Some("Scale-Model"), Some(simulated)));
    }
    assert_eq!(out["launch_latency"].as_u64(), Some(5000));
    assert_eq!(out["validation"][0]["launch_cycles"].as_u64(), Some(5001));
    assert!(out["timing"]["speedup"].as_f64().is_some_and(|s| s > 0.0));
    let (code, stdout, stderr) = warplab(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("kept per SM: a 48 KB L1 with 384 MSHRs, 48 warps, 4 schedulers"), "{stdout}");
    assert!(stdout.contains("cliff: none"), "{stdout}");
    assert!(stdout.contains("5001 of them launch latency, left out"), "{stdout}");
    assert!(stdout.contains("(reference)       (paper)"), "both rules side by side: {stdout}");
    let weak = warplab(&[&args[..], &["--weak"]].concat()).1;
    assert!(weak.contains("cliff: not looked for (weak scaling: no miss-rate curve, as the paper does it)"), "{weak}");
    assert!(!weak.contains("miss-rate curve (one cache pass)"), "{weak}");
}

#[test]
fn run_says_why_a_target_cannot_be_scaled_down() {
    let (code, _, stderr) =
        warplab(&["scale", "run", "--config", "RTX3070", "--gen", "vecadd", "--scale-models", "8,16"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("target 46 SMs is not 4·8, 8·8, 16·8, …")
            && stderr.contains("no pair of scale models divides this GPU"),
        "{stderr}"
    );
    let (code, _, stderr) =
        warplab(&["scale", "run", "--config", "QV100", "--gen", "vecadd", "--scale-models", "8,16"]);
    assert_eq!(code, 2);
    assert!(stderr.trim_end().ends_with("scale models that would work: 20,40 or 10,20 or 5,10"), "{stderr}");
    let trace = "crates/trace/test_data/vectoradd-sm61-gtx1080-v4";
    let (code, _, stderr) =
        warplab(&["scale", "run", "--config", "scalemodel", "--trace", trace, "--scale-models", "8,16", "--weak"]);
    assert_eq!((code, stderr.contains("--weak grows a generator's size")), (2, true), "{stderr}");
}

#[test]
fn run_predicts_a_chiplet_gpu_from_whole_chiplets() {
    let args = ["scale", "run", "--config", "chiplet", "--gen", "vecadd:size=128", "--chiplets", "4,8"];
    let out = json(&[&args[..], &["--targets", "16", "--weak", "--validate", "--json"]].concat());
    assert_eq!(out["sizes"], serde_json::json!([256, 512, 1024]));
    assert_eq!(out["chiplets"], serde_json::json!([4, 8, 16]));
    let target = &out["validation"][0];
    assert_eq!(target["sms"].as_u64(), Some(1024));
    // A vector spread over 16 chiplets in 8-KB stretches: 15 of 16 requests cross.
    let remote = target["chiplets"]["remote_share"].as_f64().expect("the chiplet traffic");
    assert!((remote - 15.0 / 16.0).abs() < 0.02, "{remote}");
    let (code, stdout, stderr) = warplab(&[&args[..], &["--targets", "16", "--weak"]].concat());
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("scale models 256 SMs (4 chiplets) and 512 SMs (8 chiplets)"), "{stdout}");
    assert!(
        stdout.contains("divided: whole chiplets (64 SMs, 64 LLC slices and 8 channels each, links kept)"),
        "{stdout}"
    );
    // The bisection halves with each halving of the chiplets: 2, 4, 8 links of 900 GB/s.
    for row in
        ["   256        4     72.00     4800.0          1800.0", "  1024       16    288.00    19200.0          7200.0"]
    {
        assert!(stdout.contains(row), "{row}\n{stdout}");
    }
    // Scale models counted in SMs are whole chiplets too, the smallest one chiplet.
    let by_sms = ["scale", "run", "--config", "chiplet", "--gen", "vecadd:size=16", "--scale-models", "64,128"];
    let (code, stdout, stderr) = warplab(&[&by_sms[..], &["--targets", "256"]].concat());
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("scale models 64 SMs and 128 SMs (2 chiplets)"), "{stdout}");
    assert!(stdout.contains("divided: whole chiplets (64 SMs, 64 LLC slices and 8 channels each"), "{stdout}");
    // A monolithic GPU has no chiplets to keep whole; a chiplet GPU has no half chiplets.
    let (code, _, stderr) = warplab(&["scale", "run", "--config", "QV100", "--gen", "vecadd", "--chiplets", "4,8"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--chiplets: preset SM7_QV100 is one chiplet (-gpgpu_n_chiplet_partition 1)"), "{stderr}");
    let (code, _, stderr) =
        warplab(&["scale", "run", "--config", "chiplet", "--gen", "vecadd", "--scale-models", "32,64"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("a GPU of 16 chiplets is scaled by whole chiplets"), "{stderr}");
    assert!(stderr.contains("scale models that would work: 256,512"), "{stderr}");
}
