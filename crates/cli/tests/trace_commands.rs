//! `warplab info` and `warplab convert` end to end, on the repository's real
//! traces; bad input is one error line and exit code 2.

mod common;

use std::path::Path;

use common::{json, warplab};

fn info_json(path: &str) -> serde_json::Value {
    json(&["info", path, "--json"])
}

#[test]
fn info_of_the_bundled_sample() {
    let (code, stdout, _) = warplab(&["info", "sample-traces/vectoradd-sm61-gtx1080-v4"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("_Z6vecAddIfEvPT_S1_S1_i"), "{stdout}");
    assert!(stdout.contains("344 warp instructions, 10516 thread instructions"), "{stdout}");
    let json = info_json("sample-traces/vectoradd-sm61-gtx1080-v4/kernelslist.g");
    let kernel = &json["kernels"][0];
    assert_eq!(kernel["grid"], serde_json::json!([1, 1, 1]));
    assert_eq!(kernel["block"], serde_json::json!([1024, 1, 1]));
    assert_eq!((kernel["warp_insts"].as_u64(), kernel["thread_insts"].as_u64()), (Some(344), Some(10516)));
    assert_eq!(kernel["mem_insts"].as_u64(), Some(12));
    assert_eq!(kernel["mem_insts_by_space"]["global"].as_u64(), Some(12));
    assert_eq!(json["totals"]["kernels"].as_u64(), Some(1));
    assert_eq!(json["memcpys"].as_array().map(Vec::len), Some(3));
    assert_eq!(json["diagnostics"], serde_json::json!([]));
}

#[test]
fn info_of_a_single_xz_kernel_file() {
    let json = info_json("crates/trace/test_data/vectorAdd-sm80-a100-v5-xz/kernel-1.traceg.xz");
    assert_eq!(json["totals"]["warp_insts"].as_u64(), Some(26_601));
    assert_eq!(json["kernels"][0]["name"], "_Z9vectorAddPKfS0_Pfi");
}

#[test]
fn convert_to_v5_and_xz_keeps_the_workload() {
    let out = std::env::temp_dir().join(format!("warplab-convert-{}", std::process::id()));
    let out_str = out.to_str().expect("UTF-8 temp path");
    let source = "crates/trace/test_data/matrixmul-32x32-sm61-gtx1080-v4";
    let (code, _, stderr) = warplab(&["convert", source, "-o", out_str, "--xz"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(Path::new(&out).join("kernel-1.traceg.xz").exists());
    let list = std::fs::read_to_string(out.join("kernelslist.g")).expect("a new kernelslist.g");
    assert_eq!(list, "MemcpyHtoD,0x00007fb02d700000,4096\nMemcpyHtoD,0x00007fb02d701000,4096\nkernel-1.traceg.xz\n");
    let (before, after) = (info_json(source), info_json(out_str));
    assert_eq!(before["kernels"][0]["thread_insts"], after["kernels"][0]["thread_insts"]);
    assert_eq!(before["kernels"][0]["sectors"], after["kernels"][0]["sectors"]);
    assert_eq!(after["kernels"][0]["tracer_version"].as_u64(), Some(5));
    std::fs::remove_dir_all(&out).expect("cleans up");
}

#[test]
fn bad_input_is_one_error_line_and_exit_code_2() {
    let (code, stdout, stderr) = warplab(&["info", "no/such/dir"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: no/such/dir/kernelslist.g: "), "{stderr}");

    let (code, _, stderr) = warplab(&["info", "crates/trace/test_data/malformed/bad-mask-hex.traceg"]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: crates/trace/test_data/malformed/bad-mask-hex.traceg:13: mask: expected up to 8 hex digits, found `ffffzzff`\n"
    );
}

/// A trace whose `kernelslist.g` lists the H100 anchor's two kernels over
/// and over, `n` kernels in all, every one with the same opcode-table note.
fn repeated_h100_kernels(n: usize) -> std::path::PathBuf {
    let source = Path::new(common::ROOT).join("crates/trace/test_data/rodinia-bptree-128-1000-sm90-h100pcie-v5-xz");
    let dir = std::env::temp_dir().join(format!("warplab-repeated-{n}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let files = ["kernel-1-ctx_0x5607b0e17740.traceg.xz", "kernel-2-ctx_0x5607b0e17740.traceg.xz"];
    for file in files {
        std::fs::copy(source.join(file), dir.join(file)).unwrap();
    }
    let list: String = (0..n).map(|k| format!("{}\n", files[k % 2])).collect();
    std::fs::write(dir.join("kernelslist.g"), list).unwrap();
    dir
}

#[test]
fn a_note_every_kernel_shares_is_printed_once_with_the_count_and_each_with_verbose() {
    let dir = repeated_h100_kernels(12);
    let trace = dir.to_str().unwrap();
    let fallback = "binary version 90 has no opcode table of its own";
    for command in
        [&["run", "--config", "H100", "--trace", trace][..], &["predict", "--config", "H100", "--trace", trace]]
    {
        let (code, stdout, stderr) = warplab(command);
        assert_eq!(code, 0, "{stderr}");
        let notes: Vec<&str> = stdout.lines().filter(|l| l.contains(fallback)).collect();
        assert_eq!(notes.len(), 1, "{}: {notes:?}", command[0]);
        assert!(notes[0].ends_with("(12 kernels; --verbose lists each)"), "{}", notes[0]);
        let (code, stdout, _) = warplab(&[command, &["--verbose"]].concat());
        assert_eq!(code, 0);
        assert_eq!(stdout.lines().filter(|l| l.contains(fallback)).count(), 12, "{}: --verbose", command[0]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
