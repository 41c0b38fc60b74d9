//! `cargo xtask validate-scale`: the scale-model prediction against our own
//! simulation, a recorded run (not part of `cargo xtask test`).
//!
//! Strong scaling on `scalemodel-128sm`: each teaching kernel is predicted at
//! 64 SMs from the 8- and 16-SM scale models with `warplab scale run
//! --validate --json` (release CLI, two at a time), which also simulates the
//! 64-SM system. The table (every method's error, the miss-rate curve against
//! the simulator's MPKI, the timings and the speedup) goes into
//! `docs/validation.md` between the markers below.

use std::path::Path;
use std::process::ExitCode;

use serde_json::Value;

use crate::parallel::run_jobs;
use crate::shell::{Result, cli_json, command, output, release_cli, root};
use crate::validate_models::{Markers, write};

const CONFIG: &str = "scalemodel";
const SCALE_MODELS: &str = "8,16";
const TARGET: u32 = 64;

/// The kernels and the scaling each was chosen to show; each fills at least
/// four CTA waves at 64 SMs.
const KERNELS: [(&str, &str); 4] = [
    ("vecadd:size=512", "linear: streams DRAM, whose bandwidth scales with the system"),
    ("stencil2d", "linear: neighbours reuse lines in the L1 and the L2"),
    ("histogram:skew=100", "sub-linear: every atomic goes to one bin, one L2 slice serializes them"),
    ("bw-l2:size=12,iters=4", "super-linear: re-sweeps 16 MB, which fits the LLC from 64 SMs on (a cliff)"),
];

/// The goal: mean Scale-Model error at 64 SMs.
const GOAL_PCT: f64 = 10.0;

const MARKERS: Markers = Markers {
    begin: "<!-- scale-validation:begin -->",
    end: "<!-- scale-validation:end -->",
    heading: "Scale-model prediction against the timing model",
};

const METHODS: [&str; 5] = ["Scale-Model", "PowerLaw", "Linear", "Logarithmic", "Proportional"];

/// Builds the CLI, runs every kernel and writes the docs.
pub fn run() -> Result<ExitCode> {
    let cli = release_cli()?;
    let results = run_jobs(
        &KERNELS,
        2,
        |(spec, _)| format!("scale run {spec}"),
        |report: &Value| format!("simulated {:.1}", report["validation"][0]["ipc"].as_f64().unwrap_or(f64::NAN)),
        |(spec, _)| scale_run(&cli, spec),
    );
    let reports = results.into_iter().collect::<Result<Vec<Value>>>()?;
    let path = root().join("docs").join("validation.md");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    write(&path, &MARKERS.replace(&text, &section(&reports)?))?;
    println!("validate-scale: wrote docs/validation.md");
    Ok(ExitCode::SUCCESS)
}

fn scale_run(cli: &Path, spec: &str) -> Result<Value> {
    let target = TARGET.to_string();
    let args = [
        "scale",
        "run",
        "--config",
        CONFIG,
        "--gen",
        spec,
        "--scale-models",
        SCALE_MODELS,
        "--targets",
        &target,
        "--validate",
        "--json",
    ];
    cli_json(cli, &args, spec)
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// A method's predicted IPC at the target.
fn predicted(report: &Value, method: &str) -> f64 {
    let sizes = report["prediction"]["sizes"].as_array().map_or(0, Vec::len);
    let curves = report["prediction"]["curves"].as_array().cloned().unwrap_or_default();
    curves.iter().find(|c| c["method"] == method).map_or(f64::NAN, |c| number(&c["ipc"][sizes.saturating_sub(1)]))
}

fn section(reports: &[Value]) -> Result<String> {
    let date = output(&mut command("date", &["-u", "+%Y-%m-%d"]))?;
    let commit = output(&mut command("git", &["describe", "--always", "--dirty"]))?;
    let mut out = format!(
        "Written by `cargo xtask validate-scale` on {} at commit {} (release CLI: `warplab scale run --config {CONFIG} --gen SPEC --scale-models {SCALE_MODELS} --targets {TARGET} --validate --json`).\n\
         Strong scaling: the same workload, generated for the 128-SM target, on every size. IPC is thread instructions per cycle; errors are signed, (predicted − simulated) / simulated.\n\n",
        date.trim(),
        commit.trim()
    );
    out += &format!("| kernel | scaling | IPC 8 / 16 SMs | simulated {TARGET} | ");
    out += &METHODS.map(|m| format!("{m} {TARGET}")).join(" | ");
    out += " | cliff |\n|---|---|---|---|";
    out += &"---|".repeat(METHODS.len() + 1);
    out.push('\n');
    let mut scale_errors = Vec::new();
    for ((spec, why), r) in KERNELS.iter().zip(reports) {
        let sim = number(&r["validation"][0]["ipc"]);
        let cells: Vec<String> = METHODS
            .iter()
            .map(|m| {
                let p = predicted(r, m);
                format!("{p:.1} ({:+.1}%)", 100.0 * (p - sim) / sim)
            })
            .collect();
        scale_errors.push((100.0 * (predicted(r, "Scale-Model") - sim) / sim).abs());
        let cliff = match &r["prediction"]["cliff"] {
            Value::Null => "none".to_owned(),
            c => format!("{} → {} SMs, f_mem {:.3}", c["from"], c["to"], number(&r["prediction"]["f_mem"])),
        };
        out += &format!(
            "| `{spec}` | {why} | {:.1} / {:.1} | {sim:.1} | {} | {cliff} |\n",
            number(&r["scale_models"][0]["ipc"]),
            number(&r["scale_models"][1]["ipc"]),
            cells.join(" | ")
        );
    }
    let mean = scale_errors.iter().sum::<f64>() / scale_errors.len() as f64;
    let verdict = if mean <= GOAL_PCT { "met" } else { "**missed**" };
    out += &format!("\nScale-Model mean |error| at {TARGET} SMs: **{mean:.1}%** (goal ≤ {GOAL_PCT}%: {verdict}).\n\n");
    out += &curve_table(reports);
    out += &timing_table(reports);
    Ok(out)
}

/// The one-pass curve's MPKI against the timing model's at the simulated sizes.
fn curve_table(reports: &[Value]) -> String {
    let mut out = "LLC MPKI: the one-pass miss-rate curve against the timing model (`l2_mpki`) at the simulated sizes; the curve's other sizes beside.\n\n| kernel | curve MPKI 8 / 16 / 32 / 64 | simulated 8 / 16 / 64 | curve vs simulated |\n|---|---|---|---|\n".to_owned();
    for ((spec, _), r) in KERNELS.iter().zip(reports) {
        let curve: Vec<f64> =
            r["curve"]["points"].as_array().map_or_else(Vec::new, |p| p.iter().map(|p| number(&p["mpki"])).collect());
        let sims: Vec<(u64, f64)> = r["scale_models"]
            .as_array()
            .into_iter()
            .flatten()
            .chain(r["validation"].as_array().into_iter().flatten())
            .map(|s| (s["sms"].as_u64().unwrap_or(0), number(&s["l2_mpki"])))
            .collect();
        let sizes: Vec<u64> =
            r["sizes"].as_array().map_or_else(Vec::new, |s| s.iter().filter_map(Value::as_u64).collect());
        let diffs: Vec<String> = sims
            .iter()
            .filter_map(|&(sms, sim)| {
                let c = curve.get(sizes.iter().position(|&s| s == sms)?)?;
                Some(format!("{sms}: {:+.0}%", 100.0 * (c - sim) / sim))
            })
            .collect();
        out += &format!(
            "| `{spec}` | {} | {} | {} |\n",
            curve.iter().map(|m| format!("{m:.3}")).collect::<Vec<_>>().join(" / "),
            sims.iter().map(|(_, m)| format!("{m:.3}")).collect::<Vec<_>>().join(" / "),
            diffs.join(", ")
        );
    }
    out + "\n"
}

fn timing_table(reports: &[Value]) -> String {
    let mut out = format!(
        "Wall time (release build, two runs at a time on two cores):\n\n| kernel | scale models | curve | {TARGET}-SM simulation | speedup |\n|---|---|---|---|---|\n"
    );
    for ((spec, _), r) in KERNELS.iter().zip(reports) {
        let t = &r["timing"];
        out += &format!(
            "| `{spec}` | {:.2} s | {:.2} s | {:.2} s | {:.1}× |\n",
            number(&t["scale_models_s"]),
            number(&t["curve_s"]),
            number(&t["targets_s"]),
            number(&t["speedup"])
        );
    }
    out
}
