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

/// `--events FILE --window a..b`: a header, the window's events in cycle
/// order with snapshots every `--snapshot-every` cycles, and an end line.
#[test]
fn run_writes_the_event_stream_of_a_window() {
    let path = std::env::temp_dir().join(format!("warplab-events-{}.jsonl", std::process::id()));
    let file = path.to_string_lossy().to_string();
    let args = ["run", "--config", "QV100", "--gen", "vecadd:size=8", "--json", "--events", &file];
    let window = ["--window", "5000..5400", "--sms", "0..4", "--snapshot-every", "100"];
    let (code, stdout, stderr) = warplab(&[&args[..], &window[..]].concat());
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("the report is JSON");
    let text = std::fs::read_to_string(&path).expect("the event file was written");
    let _ = std::fs::remove_file(&path);
    let lines: Vec<serde_json::Value> =
        text.lines().map(|line| serde_json::from_str(line).expect("each line is JSON")).collect();
    assert_eq!(lines[0]["warplab_events"], 1);
    assert_eq!(lines[0]["cycles"], serde_json::json!([5000, 5400]));
    let end = &lines[lines.len() - 1]["end"];
    assert_eq!(end["cycle"], report["cycles"]);
    let events: Vec<&serde_json::Value> = lines.iter().filter(|l| l.get("kind").is_some()).collect();
    assert_eq!(end["events"].as_u64(), Some(events.len() as u64));
    let cycles: Vec<u64> = events.iter().filter_map(|e| e["cycle"].as_u64()).collect();
    assert!(cycles.windows(2).all(|w| w[0] <= w[1]) && cycles.iter().all(|c| (5000..5400).contains(c)));
    // The CTAs of SMs 0..4 launch at 5002 (kernel start in cycle 1, the 5,000-cycle launch
    // latency, then the cycle after it, as GPGPU-Sim).
    let launches = events.iter().filter(|e| e["kind"] == "cta_launched").count();
    assert_eq!(launches, 4);
    let snapshots: Vec<u64> =
        lines.iter().filter_map(|l| l.get("snapshot")).filter_map(|s| s["cycle"].as_u64()).collect();
    assert_eq!(snapshots, [5000, 5100, 5200, 5300]);
}

#[test]
fn a_malformed_window_is_named() {
    let (code, _, stderr) =
        warplab(&["run", "--config", "QV100", "--gen", "vecadd", "--events", "/dev/null", "--window", "5-9"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--window") && stderr.contains("5-9"), "{stderr}");
}

/// Past `--max-events`, events are dropped with a warning naming the count
/// and the flag; CTA launches and finishes never are, and the `--sms` filter
/// still applies to them.
#[test]
fn dropped_events_are_warned_about_and_never_cta_launches_or_finishes() {
    let path = std::env::temp_dir().join(format!("warplab-dropped-{}.jsonl", std::process::id()));
    let file = path.to_string_lossy().to_string();
    let args = ["run", "--config", "QV100", "--gen", "vecadd:size=8", "--events", &file, "--max-events", "50"];
    let (code, _, stderr) = warplab(&[&args[..], &["--sms", "0..8"]].concat());
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(&path).expect("the event file was written");
    let _ = std::fs::remove_file(&path);
    let lines: Vec<serde_json::Value> = text.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let end = &lines[lines.len() - 1]["end"];
    let dropped = end["dropped"].as_u64().expect("a count");
    assert!(dropped > 0, "the bound was reached");
    assert!(stderr.contains(&format!("warning: {dropped} of")) && stderr.contains("--max-events 50"), "{stderr}");
    let kinds =
        |kind: &str| lines.iter().filter(|l| l["kind"] == kind).map(|l| l["sm"].as_u64().unwrap()).collect::<Vec<_>>();
    let (launched, finished) = (kinds("cta_launched"), kinds("cta_finished"));
    // vecadd:size=8 has fewer CTAs than QV100 has SMs: SMs 0..8 get one each.
    assert_eq!(launched.len(), 8, "every launch on the chosen SMs");
    assert_eq!(finished.len(), 8, "every finish on the chosen SMs");
    assert!(launched.iter().chain(&finished).all(|&sm| sm < 8), "--sms still applies");
}
