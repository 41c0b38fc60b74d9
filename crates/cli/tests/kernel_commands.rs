//! `warplab kernel check`, `--kernel` (`scale run` among the commands) and
//! `gen-trace --kernel` end to end (issue 41): an authored kernel's results,
//! listing, trace and predictions, and its errors on stderr with exit code 2.

mod common;

use common::{json, warplab};
use serde_json::json;

const HISTOGRAM: &str = "crates/cuda/examples/histogram.cu";

fn scratch(name: &str, text: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("warplab-cli-{name}-{}.cu", std::process::id()));
    std::fs::write(&path, text).expect("writes");
    path
}

#[test]
fn kernel_check_dumps_what_the_kernel_computed() {
    let report = json(&["kernel", "check", HISTOGRAM, "--json", "--dump", "data", "--dump", "bins"]);
    let data = report["arrays"]["data"].as_array().expect("data");
    let mut expect = vec![0u64; 64];
    for value in data {
        expect[value.as_u64().expect("unsigned") as usize % 64] += 1;
    }
    let bins: Vec<u64> =
        report["arrays"]["bins"].as_array().expect("bins").iter().map(|v| v.as_u64().unwrap()).collect();
    assert_eq!(bins, expect);
    assert_eq!(report["kernels"][0]["name"], "histogram");
    assert_eq!(report["kernels"][0]["registers"], 5);
    assert_eq!(report["warp_insts"], report["kernels"][0]["launches"][0]["warp_insts"]);
    let atomic = &report["kernels"][0]["listing"][33];
    assert_eq!(
        (&atomic["pc"], &atomic["sass"], &atomic["line"]),
        (&json!(0x210), &json!("ATOMS.ADD R0, [R1], 0x1 ;"), &json!(14))
    );
}

/// The arrays `names` of the example `crates/cuda/examples/NAME.cu` as
/// `warplab kernel check --json --dump` prints them, each as `f32`s (exact
/// for the examples' floats and for integers below 2^24).
fn dumped<const N: usize>(example: &str, names: [&str; N]) -> [Vec<f32>; N] {
    let file = format!("crates/cuda/examples/{example}.cu");
    let mut args = vec!["kernel", "check", &file, "--json"];
    args.extend(names.iter().flat_map(|name| ["--dump", name]));
    let report = json(&args);
    names.map(|name| {
        let values = report["arrays"][name].as_array().unwrap_or_else(|| panic!("{example}: no array {name}"));
        values.iter().map(|value| value.as_f64().expect("a number") as f32).collect()
    })
}

/// Issue 41's "the example files compute the right results": what `kernel
/// check --dump` prints of each example against a reference computed here
/// (the histogram's in the test above).
#[test]
fn every_example_dumps_what_a_host_reference_computes() {
    let [a, b, c] = dumped("vecadd", ["a", "b", "c"]);
    assert!(a.len() == 1 << 20 && c.iter().zip(a.iter().zip(&b)).all(|(c, (a, b))| *c == a + b));

    let width = 512;
    let [input, naive, tiled, padded] = dumped("transpose", ["in", "naive", "tiled", "padded"]);
    let transposed: Vec<f32> = (0..width * width).map(|i| input[(i % width) * width + i / width]).collect();
    assert_eq!([naive, tiled, padded], [transposed.clone(), transposed.clone(), transposed]);

    let [input, sum] = dumped("reduction", ["in", "sum"]);
    let total = input.iter().map(|&v| v as i64).sum::<i64>() as f32;
    assert_eq!(sum, [total, total], "both variants sum the input");

    // `acc + a * b` compiles to an FMUL and an FADD: each rounded as f32.
    let n = 256;
    let [a, b, c] = dumped("matmul", ["A", "B", "C"]);
    let product = |i: usize| (0..n).fold(0.0f32, |acc, k| acc + a[i / n * n + k] * b[k * n + i % n]);
    assert!((0..n * n).step_by(97).all(|i| c[i] == product(i)), "C = A B");
}

#[test]
fn kernel_check_prints_the_listing_with_source_lines() {
    let (code, stdout, stderr) = warplab(&["kernel", "check", HISTOGRAM]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("histogram: "), "{stdout}");
    assert!(stdout.contains("registers per thread, 256 bytes of static shared memory"), "{stdout}");
    assert!(stdout.contains("ATOMS.ADD R0, [R1], 0x1 ;"), "{stdout}");
    assert!(stdout.contains("//  14: atomicAdd(&local[bin_of(data[i])], 1);"), "{stdout}");
    assert!(stdout.contains("launch histogram<<<(64,1,1), (256,1,1), 256>>>: 62080 warp instructions, "), "{stdout}");
}

#[test]
fn errors_go_to_stderr_located_with_exit_code_2() {
    let fault = scratch(
        "oob",
        "__global__ void k(int* a) {\n    a[threadIdx.x + 1] = 0;\n}\nvoid host() {\n    int* a = device_array<int>(32);\n    k<<<1, 32>>>(a);\n}\n",
    );
    let (code, stdout, stderr) = warplab(&["kernel", "check", fault.to_str().unwrap()]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    let expect = format!(
        "{}:2:5: error: invalid __global__ write of size 4 bytes by thread (31,0,0) in block (0,0,0): index 32 is out \
         of bounds for 'a' (32 elements)\n    a[threadIdx.x + 1] = 0;\n    ^\n",
        fault.display()
    );
    assert_eq!(stderr, expect);
    // A budget run out names the flag that sets it, located at the
    // instruction where the budget ran out.
    let (code, _, stderr) = warplab(&["kernel", "check", HISTOGRAM, "--max-warp-insts", "1000"]);
    assert_eq!(code, 2);
    let expect = format!(
        "{HISTOGRAM}:11:9: error: kernel 'histogram' ran past its budget of 1000 warp instructions in one launch \
         (set with --max-warp-insts)\n    if (threadIdx.x < BINS) local[threadIdx.x] = 0;\n        ^\n"
    );
    assert_eq!(stderr, expect);
    let (code, _, stderr) = warplab(&["kernel", "check", HISTOGRAM, "--dump", "nothing"]);
    assert_eq!(code, 2);
    assert_eq!(stderr, "error: --dump nothing: no host array of that name (the arrays are: data, bins)\n");
    let (code, _, stderr) = warplab(&["predict", "--config", "QV100", "--kernel", fault.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.starts_with(&format!("{}:2:5: error: invalid __global__ write", fault.display())), "{stderr}");
}

#[test]
fn an_authored_trace_reads_back_with_the_kernels_own_figures() {
    let dir = std::env::temp_dir().join(format!("warplab-cli-authored-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.to_str().unwrap();
    let (code, _, stderr) = warplab(&["gen-trace", "--kernel", HISTOGRAM, "-o", out]);
    assert_eq!(code, 0, "{stderr}");
    let from_disk = json(&["info", out, "--json"]);
    let from_file = json(&["info", "--kernel", HISTOGRAM, "--json"]);
    assert_eq!(from_disk["totals"], from_file["totals"]);
    assert_eq!(from_disk["totals"]["warp_insts"], 62080);
    let predicted = json(&["predict", "--config", "QV100", "--kernel", HISTOGRAM, "--model", "mdm", "--json"]);
    assert!(predicted.to_string().contains("ipc"), "{predicted}");
}

#[test]
fn sweep_takes_authored_kernels_beside_generated_ones() {
    let csv = std::env::temp_dir().join(format!("warplab-cli-authored-sweep-{}.csv", std::process::id()));
    let csv_path = csv.to_str().unwrap();
    let args = ["sweep", "--config", "QV100", "--kernel", HISTOGRAM, "--vary", "n_sms=40,80", "--model", "mdm"];
    let (code, _, stderr) = warplab(&[&args[..], &["--csv", csv_path]].concat());
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(&csv).expect("the CSV");
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows[0], "workload,n_sms,mdm_ipc");
    assert!(rows[1].starts_with(&format!("{HISTOGRAM},40,")), "{text}");
    assert!(rows[2].starts_with(&format!("{HISTOGRAM},80,")), "{text}");
}

#[test]
fn scale_run_predicts_an_authored_kernel_from_its_scale_models() {
    let args = ["scale", "run", "--config", "scalemodel", "--kernel", HISTOGRAM, "--scale-models", "8,16"];
    let out = json(&[&args[..], &["--targets", "32", "--validate", "--json"]].concat());
    assert_eq!((out["workload"].as_str(), &out["sizes"]), (Some(HISTOGRAM), &json!([8, 16, 32])));
    // The kernel has a fixed size: every GPU runs the 62,080 warp instructions `kernel check` counts.
    let runs = [&out["scale_models"][0], &out["scale_models"][1], &out["validation"][0]];
    let sizes: Vec<(u64, u64)> =
        runs.iter().map(|run| (run["sms"].as_u64().unwrap(), run["warp_insts"].as_u64().unwrap())).collect();
    assert_eq!(sizes, [(8, 62080), (16, 62080), (32, 62080)]);
    let simulated = out["validation"][0]["ipc"].as_f64().expect("the 32-SM run");
    let error = &out["by_rule"][0]["errors"][0];
    assert_eq!((error["model"].as_str(), error["actual_ipc"].as_f64()), (Some("Scale-Model"), Some(simulated)));
    let (code, _, stderr) = warplab(&[&args[..], &["--weak"]].concat());
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: --weak grows a generator's size with the system; a trace or an authored kernel has a fixed size (use \
         --gen)\n"
    );
    // A compile error stops it as it stops `kernel check`, located.
    let typo = scratch("scale-typo", "__global__ void k(int* a) {\n    a[0] = q;\n}\nvoid host() {\n}\n");
    let broken = [&args[..4], &["--kernel", typo.to_str().unwrap()], &args[6..]].concat();
    let (code, stdout, stderr) = warplab(&broken);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(
        stderr,
        format!("{}:2:12: error: use of undeclared identifier 'q'\n    a[0] = q;\n           ^\n", typo.display())
    );
}
