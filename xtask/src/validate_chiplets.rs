//! `cargo xtask validate-chiplets`: the scale-model paper's multi-chiplet
//! case study on warplab's own simulation, a recorded run (not part of
//! `cargo xtask test`).
//!
//! `chiplet-1024sm` (16 chiplets of 64 SMs, Table V) predicted from its 4-
//! and 8-chiplet scale models under weak scaling, as the paper's case study
//! does, and validated against the 16-chiplet simulation:
//! `warplab scale run --config chiplet --gen SPEC --chiplets 4,8 --targets 16
//! --weak --validate --json`, release CLI, one run at a time so that the
//! simulation times, and the speedup, are single-threaded. The paper's
//! benchmarks are CUDA programs warplab cannot run; the generators below
//! stand in for their kinds (compute, streaming, stencil, reduction, sparse,
//! atomics). The table goes into `docs/validation.md` between the markers
//! below; the reports into `target/validate-chiplets/*.json`.

use std::path::Path;
use std::process::ExitCode;

use serde_json::Value;

use crate::parallel::run_jobs;
use crate::recorded::{self, made_now};
use crate::shell::{Result, cli_json, release_cli, root, target_dir};
use crate::validate_models::{Markers, write};
use crate::validate_scale::{
    error_pct, number, overall_per_doubling, predicted, scaling_name, seconds, simulated, verdict,
};

const CONFIG: &str = "chiplet";
/// SMs of a chiplet of `chiplet-1024sm`.
const SMS_PER_CHIPLET: u32 = 64;
const CHIPLETS: [u32; 3] = [4, 8, 16];

/// The paper's figures (§V-D): Scale-Model's mean and max error at 16
/// chiplets, and the simulation-time speedup.
const PAPER: (f64, f64, f64) = (2.5, 4.3, 2.2);
/// The goal: mean |error| at 16 chiplets.
const GOAL_PCT: f64 = 5.0;

/// A stand-in: the generator spec at 16 chiplets (each scale model runs its
/// share) and the kind of workload it stands in for.
struct Kernel {
    spec: &'static str,
    stands_for: &'static str,
}

const KERNELS: [Kernel; 7] = [
    Kernel { spec: "maxflops:size=12", stands_for: "compute-bound (FFMA chains)" },
    Kernel { spec: "vecadd:size=8192", stands_for: "streaming, one touch per element" },
    Kernel { spec: "bw-dram:size=4", stands_for: "a read stream over 4× the LLC" },
    Kernel { spec: "stencil2d:size=640", stands_for: "a 5-point stencil" },
    Kernel { spec: "reduction:size=2048", stands_for: "a shared-memory tree reduction" },
    Kernel { spec: "spmv-csr:size=256", stands_for: "sparse, irregular reads" },
    Kernel { spec: "histogram", stands_for: "global atomics" },
];

const VALIDATION: Markers = Markers {
    begin: "<!-- chiplet-validation:begin -->",
    end: "<!-- chiplet-validation:end -->",
    heading: "Multi-chiplet scale models against the timing model",
};

/// Builds the CLI, runs every kernel and writes the docs; with
/// `--tables-only`, writes the docs from the saved reports.
pub fn run(args: &[String]) -> Result<ExitCode> {
    let out_dir = target_dir().join("validate-chiplets");
    let (reports, made) = match args {
        [] => simulate(&out_dir)?,
        [flag] if flag == "--tables-only" => saved(&out_dir)?,
        _ => return Err("usage: cargo xtask validate-chiplets [--tables-only]".to_owned()),
    };
    let path = root().join("docs").join("validation.md");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    write(&path, &VALIDATION.replace(&text, &section(&made, &reports)))?;
    println!("validate-chiplets: wrote docs/validation.md");
    Ok(ExitCode::SUCCESS)
}

/// The name `kernel`'s report is saved under.
fn report_name(kernel: &Kernel) -> String {
    kernel.spec.replace([':', ',', '='], "_")
}

/// Runs every kernel (one at a time) and saves the reports.
fn simulate(out_dir: &Path) -> Result<(Vec<Value>, String)> {
    let cli = release_cli()?;
    let made = made_now()?;
    let results = run_jobs(
        &KERNELS,
        1,
        |kernel| format!("scale run {} --chiplets 4,8 --targets 16 --weak", kernel.spec),
        |report: &Value| format!("simulated 16 chiplets: {:.1}", simulated(report, 16 * SMS_PER_CHIPLET)),
        |kernel| {
            let args = [
                "scale",
                "run",
                "--config",
                CONFIG,
                "--gen",
                kernel.spec,
                "--chiplets",
                "4,8",
                "--targets",
                "16",
                "--weak",
                "--validate",
                "--json",
            ];
            cli_json(&cli, &args, kernel.spec)
        },
    );
    let reports = results.into_iter().collect::<Result<Vec<Value>>>()?;
    recorded::save(out_dir, &KERNELS.iter().map(report_name).collect::<Vec<_>>(), &reports, &made)?;
    Ok((reports, made))
}

/// The reports a run saved, and when they were made.
fn saved(out_dir: &Path) -> Result<(Vec<Value>, String)> {
    recorded::load(out_dir, &KERNELS.iter().map(report_name).collect::<Vec<_>>(), "cargo xtask validate-chiplets")
}

/// The table: per kernel the simulated IPC at 4, 8 and 16 chiplets, the
/// measured scaling, both rules' predictions and errors, the share of L2
/// requests that crossed chiplets, and the simulation times.
fn section(made: &str, reports: &[Value]) -> String {
    let sms = CHIPLETS.map(|c| c * SMS_PER_CHIPLET);
    let target = sms[2];
    let mut out = format!(
        "Written by `cargo xtask validate-chiplets` from runs made {} (release CLI, one run at a time: `warplab scale run --config {CONFIG} --gen SPEC --chiplets 4,8 --targets 16 --weak --validate --json`).\n\
         Weak scaling as the paper's case study: each size runs its share of the 16-chiplet workload, no miss-rate curve, the pre-cliff rule. IPC without the launch latency; errors signed, (predicted − simulated) / simulated.\n\n\
         | kernel | stands for | IPC 4 / 8 / 16 chiplets | per doubling | Scale-Model (reference) | Scale-Model (paper) | time 4 + 8 | time 16 | speedup |\n|---|---|---|---|---|---|---|---|---|\n",
        made.trim()
    );
    // |error| per kernel under each rule: [reference, paper].
    let mut errors: Vec<[f64; 2]> = Vec::new();
    let mut speedups = Vec::new();
    for (kernel, r) in KERNELS.iter().zip(reports) {
        let actual = simulated(r, target);
        let [reference, paper] = ["reference", "paper"].map(|rule| predicted(r, rule, "Scale-Model", target));
        errors.push([error_pct(reference, actual).abs(), error_pct(paper, actual).abs()]);
        let models = seconds(r, sms[0]) + seconds(r, sms[1]);
        let speedup = seconds(r, target) / models;
        speedups.push(speedup);
        let ratio = overall_per_doubling(r);
        out += &format!(
            "| `{}` | {} | {} | {ratio:.2} ({}) | {reference:.1} ({:+.1}%) | {paper:.1} ({:+.1}%) | {models:.1} s | {:.1} s | {speedup:.2}× |\n",
            kernel.spec,
            kernel.stands_for,
            sms.map(|s| format!("{:.0}", simulated(r, s))).join(" / "),
            scaling_name(ratio),
            error_pct(reference, actual),
            error_pct(paper, actual),
            seconds(r, target),
        );
    }
    let speedup = speedups.iter().sum::<f64>() / speedups.len().max(1) as f64;
    let (paper_mean, paper_max, paper_speedup) = PAPER;
    out += "\n";
    for (k, rule) in ["reference", "paper"].iter().enumerate() {
        let mean = errors.iter().map(|e| e[k]).sum::<f64>() / errors.len().max(1) as f64;
        let max = errors.iter().map(|e| e[k]).fold(0.0, f64::max);
        out += &format!(
            "- Scale-Model at 16 chiplets, {rule} rule: mean |error| **{mean:.1}%**, max {max:.1}% (goal ≤ {GOAL_PCT}% mean: {}).\n",
            verdict(mean, GOAL_PCT)
        );
    }
    out += &format!(
        "- The paper: {paper_mean}% mean, {paper_max}% max. Simulation-time speedup, T(16) / (T(4) + T(8)), mean **{speedup:.2}×** (paper: {paper_speedup}×).\n\n\
         Chiplet traffic at 16 chiplets (`remote` is the share of L2 requests whose slice was on another chiplet):\n\n| kernel | remote | links busy, mean / busiest |\n|---|---|---|\n"
    );
    for (kernel, r) in KERNELS.iter().zip(reports) {
        let validation = r["validation"].as_array().and_then(|v| v.iter().find(|s| s["sms"] == target));
        let chiplets = validation.map_or(&Value::Null, |v| &v["chiplets"]);
        out += &format!(
            "| `{}` | {:.1}% | {:.1}% / {:.1}% |\n",
            kernel.spec,
            100.0 * number(&chiplets["remote_share"]),
            100.0 * number(&chiplets["link_utilization"]),
            100.0 * number(&chiplets["busiest_link_utilization"]),
        );
    }
    out
}
