//! `warplab run --experiment | --link` and `warplab experiment link | show`:
//! the same figures as `run` and `predict`, the user's files checked by
//! content hash, and links that round-trip.

mod common;

use common::{ROOT, json, warplab};
use warplab_lab::{ConfigChoice, ContentHash, Experiment, GenSpec, WorkloadChoice, encode_link};

/// Writes `experiment` as a file in a fresh temporary directory.
fn file(name: &str, experiment: &Experiment) -> String {
    let dir = std::env::temp_dir().join(format!("warplab-experiment-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join("experiment.json");
    std::fs::write(&path, experiment.to_json_pretty()).expect("writes");
    path.display().to_string()
}

fn vecadd() -> Experiment {
    Experiment::new("mdm-pascal-28sm", WorkloadChoice::Generated("vecadd:size=4".parse().expect("a spec")))
}

fn ipc(value: &serde_json::Value) -> f64 {
    value.as_f64().unwrap_or_else(|| panic!("a number: {value}"))
}

#[test]
fn an_experiment_prints_what_run_and_predict_print() {
    let path = file("figures", &vecadd());
    let out = json(&["run", "--experiment", &path, "--json"]);
    let run = json(&["run", "--config", "mdm-pascal-28sm", "--gen", "vecadd:size=4", "--json"]);
    let predict = json(&["predict", "--config", "mdm-pascal-28sm", "--gen", "vecadd:size=4", "--json"]);
    assert_eq!(out["simulated"]["ipc"], run["ipc"]);
    assert_eq!(out["simulated"]["cycles"], run["cycles"]);
    assert_eq!(out["analytical"]["models"], predict["models"]);
    // The analytical figure is the headline model's, named as predict names it.
    assert_eq!(out["analytical"]["headline"], predict["headline"]);
    assert_eq!(out["analytical"]["ipc"], predict["models"]["warplab"]["ipc"]);
    let sim = ipc(&run["ipc"]);
    let mdm_error = ipc(&out["analytical"]["error_pct"]["mdm"]);
    assert!((mdm_error - 100.0 * (ipc(&predict["models"]["mdm"]["ipc"]) - sim) / sim).abs() < 1e-9);
    assert_eq!(Experiment::from_json(&out["experiment"].to_string()).expect("the experiment"), vecadd());
    // 28 SMs: the smallest pair that divides them is 7 and 14.
    assert_eq!(out["scale"]["sizes"], serde_json::json!([7, 14, 28]));
    assert_eq!(out["scale"]["target_sms"], 28);
    assert!(ipc(&out["scale"]["ipc"]) > 0.0 && out["scale"]["error_pct"].is_number(), "{}", out["scale"]);
    assert!(out.get("baseline").is_none());
    // The text form shows the three IPCs.
    let (code, text, stderr) = warplab(&["run", "--experiment", &path, "--no-scale"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        text.contains("simulated IPC") && text.contains("analytical IPC") && text.contains("(warplab core model, "),
        "{text}"
    );
    assert!(text.contains("  MDM "), "MDM as published is listed too: {text}");
    assert!(text.contains("scale-model IPC     (skipped: --no-scale)"), "{text}");
}

#[test]
fn a_link_runs_like_its_file_and_a_baseline_is_compared() {
    let mut experiment = vecadd();
    experiment.workload = WorkloadChoice::Sample("vecadd".to_owned());
    let mut baseline = vecadd();
    baseline.edits = vec![warplab_lab::ConfigEdit::Knob { name: "l1_mshrs".to_owned(), value: 8.0 }];
    experiment.baseline = Some(Box::new(baseline));
    let url = format!("https://example.invalid/warplab/#x={}", encode_link(&experiment));
    let out = json(&["run", "--link", &url, "--no-scale", "--json"]);
    let sample = json(&["run", "--config", "mdm-pascal-28sm", "--trace", "sample-traces/vecadd", "--json"]);
    assert_eq!(out["simulated"]["ipc"], sample["ipc"]);
    assert_eq!(out["workload"], "sample vecadd");
    assert!(out["scale"].is_null());
    let base = &out["baseline"];
    assert_eq!(base["config"], "preset mdm-pascal-28sm with 1 edit(s)");
    let change = ipc(&base["change_pct"]["simulated"]);
    let expect =
        100.0 * (ipc(&out["simulated"]["ipc"]) - ipc(&base["simulated"]["ipc"])) / ipc(&base["simulated"]["ipc"]);
    assert!((change - expect).abs() < 1e-9);
}

#[test]
fn a_gpu_that_cannot_be_divided_is_a_message_not_a_failure() {
    let mut experiment = vecadd();
    experiment.scale.scale_models = Some([5, 10]);
    let out = json(&["run", "--experiment", &file("plan", &experiment), "--json"]);
    assert!(out["scale"]["error"].as_str().is_some_and(|e| e.contains("target 28 SMs")), "{}", out["scale"]);
    assert_eq!(out["scale"]["workable"], serde_json::json!([[7, 14]]));
}

#[test]
fn a_scale_target_is_predicted_and_compared_with_its_own_simulation() {
    // QV100's 80 SMs from the default pair, 5 and 10 SMs, predicted at 20.
    let mut experiment = vecadd();
    experiment.config = ConfigChoice::Preset("SM7_QV100".to_owned());
    experiment.scale.target_sms = Some(20);
    experiment.scale.validate = true;
    let out = json(&["run", "--experiment", &file("target", &experiment), "--json"]);
    let scale = json(&[
        "scale",
        "run",
        "--config",
        "SM7_QV100",
        "--gen",
        "vecadd:size=4",
        "--scale-models",
        "5,10",
        "--targets",
        "20",
        "--validate",
        "--json",
    ]);
    assert_eq!(out["scale"]["targets"], serde_json::json!([20]));
    assert_eq!(out["scale"]["by_rule"], scale["by_rule"]);
    let predicted = ipc(&out["scale"]["ipc"]);
    let at_20 =
        |rows: &serde_json::Value| rows.as_array().and_then(|rows| rows.iter().find(|row| row["sms"] == 20)).cloned();
    let truth = ipc(&at_20(&scale["validation"]).expect("the 20-SM simulation")["ipc"]);
    // The error is against the 20-SM GPU's simulation, not the 80-SM one's.
    let error = ipc(&out["scale"]["error_pct"]);
    assert!((error - 100.0 * (predicted - truth) / truth).abs() < 1e-9, "{error}");
    let (code, text, stderr) = warplab(&["run", "--experiment", &file("target-text", &experiment)]);
    assert_eq!(code, 0, "{stderr}");
    assert!(text.contains(&format!("{predicted:.2}  (20 SMs from 5 and 10 SMs")), "{text}");
}

#[test]
fn the_users_files_must_have_the_hash_the_experiment_names() {
    // The user's files: the small preset written out, with a README the hash leaves out.
    let dir = std::env::temp_dir().join(format!("warplab-experiment-{}-config", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let (_, pascal) = warplab_lab::preset_config("mdm-pascal-28sm").expect("a preset");
    let files = pascal.to_files();
    for (name, text) in &files {
        std::fs::write(dir.join(name), text).expect("writes");
    }
    std::fs::write(dir.join("README.md"), "not a config file").expect("writes");
    let dir = dir.display().to_string();
    let mut experiment = vecadd();
    experiment.config = ConfigChoice::Files { name: "pascal".to_owned(), hash: ContentHash(0x1234) };
    let path = file("hash", &experiment);
    let (code, _, stderr) = warplab(&["run", "--experiment", &path]);
    assert_eq!(code, 2);
    assert!(stderr.contains("give them with --config DIR") && stderr.contains("0000000000001234"), "{stderr}");
    let (code, _, stderr) = warplab(&["run", "--experiment", &path, "--config", &dir]);
    assert_eq!(code, 2);
    assert!(stderr.contains("but the experiment expects 0000000000001234"), "{stderr}");
    let bytes: Vec<(String, Vec<u8>)> = files.into_iter().map(|(name, text)| (name, text.into_bytes())).collect();
    experiment.config = ConfigChoice::Files { name: "pascal".to_owned(), hash: ContentHash::of_files(&bytes) };
    let out = json(&["run", "--experiment", &file("hash-ok", &experiment), "--config", &dir, "--no-scale", "--json"]);
    let run = json(&["run", "--config", "mdm-pascal-28sm", "--gen", "vecadd:size=4", "--json"]);
    assert_eq!(out["simulated"]["ipc"], run["ipc"]);
}

#[test]
fn the_users_trace_must_have_the_hash_the_experiment_names() {
    let dir = "sample-traces/strided";
    let list = std::fs::read_to_string(format!("{ROOT}/{dir}/kernelslist.g")).expect("reads");
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for name in warplab_lab::trace_hash_files(&list).expect("a list") {
        files.push((name.clone(), std::fs::read(format!("{ROOT}/{dir}/{name}")).expect("reads")));
    }
    let mut experiment = vecadd();
    experiment.workload = WorkloadChoice::Trace { name: "strided".to_owned(), hash: ContentHash::of_files(&files) };
    let out = json(&["run", "--experiment", &file("trace", &experiment), "--trace", dir, "--no-scale", "--json"]);
    let run = json(&["run", "--config", "mdm-pascal-28sm", "--trace", dir, "--json"]);
    assert_eq!(out["simulated"]["ipc"], run["ipc"]);
    let (code, _, stderr) =
        warplab(&["run", "--experiment", &file("trace", &experiment), "--trace", "sample-traces/vecadd"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--trace sample-traces/vecadd: these files have content hash"), "{stderr}");
}

#[test]
fn link_and_show_round_trip_and_refuse_damage() {
    let mut experiment = vecadd();
    experiment.workload = WorkloadChoice::Generated(GenSpec::new("strided"));
    experiment.view.watch_sm = 3;
    let (code, link, stderr) = warplab(&["experiment", "link", &file("link", &experiment)]);
    assert_eq!(code, 0, "{stderr}");
    assert!(link.starts_with("#x=6"), "{link}");
    let (code, shown, stderr) = warplab(&["experiment", "show", link.trim()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(Experiment::from_json(&shown).expect("JSON"), experiment);
    assert_eq!(shown, experiment.to_json_pretty());
    let (code, _, stderr) = warplab(&["experiment", "show", "#x=7abc"]);
    assert_eq!(
        (code, stderr.trim()),
        (2, "error: this link is from a newer warplab (version 7); this page reads versions 1, 2, 3, 4, 5, 6")
    );
    let truncated = &link.trim()[..link.len() / 2];
    let (code, _, stderr) = warplab(&["experiment", "show", truncated]);
    assert_eq!(code, 2);
    assert!(stderr.starts_with("error: the link is damaged"), "{stderr}");
    let (code, _, stderr) = warplab(&["run", "--link", truncated]);
    assert_eq!(code, 2);
    assert!(stderr.starts_with("error: the link is damaged"), "{stderr}");
}

/// Issue 41: an experiment file or link carries an authored kernel whole,
/// and `run --experiment` runs it as `run --kernel` runs the file.
#[test]
fn issue_41_an_experiment_carries_an_authored_kernel() {
    let source = std::fs::read_to_string(format!("{ROOT}/crates/cuda/examples/vecadd.cu")).expect("the example");
    let source = source.replace("#define N (1 << 20)", "#define N 4096");
    let kernel = WorkloadChoice::Kernel { name: "small.cu".to_owned(), source: source.clone() };
    let experiment = Experiment::new("mdm-pascal-28sm", kernel);
    let path = file("kernel", &experiment);
    let out = json(&["run", "--experiment", &path, "--json", "--no-scale"]);
    let cu = std::env::temp_dir().join(format!("warplab-small-{}.cu", std::process::id()));
    std::fs::write(&cu, &source).expect("writes");
    let run = json(&["run", "--config", "mdm-pascal-28sm", "--kernel", &cu.display().to_string(), "--json"]);
    assert_eq!(out["simulated"]["cycles"], run["cycles"]);
    assert_eq!(out["simulated"]["warp_insts"], run["warp_insts"]);
    let link = format!("#x={}", encode_link(&experiment));
    assert_eq!(json(&["run", "--link", &link, "--json", "--no-scale"])["simulated"]["cycles"], run["cycles"]);
    // A kernel that does not compile is an experiment all the same; running it is the compile error.
    let broken = Experiment::new(
        "mdm-pascal-28sm",
        WorkloadChoice::Kernel { name: "small.cu".to_owned(), source: source.replace("b[i];", "q;") },
    );
    let (code, _, stderr) = warplab(&["run", "--experiment", &file("broken", &broken), "--no-scale"]);
    assert_eq!(code, 2);
    assert!(stderr.starts_with("small.cu:8:23: error: use of undeclared identifier 'q'"), "{stderr}");
}
