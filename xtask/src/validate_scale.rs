//! `cargo xtask validate-scale`: the scale-model prediction against our own
//! simulation, a recorded run (not part of `cargo xtask test`).
//!
//! The teaching set on `scalemodel-128sm`, from the 8- and 16-SM scale
//! models (`warplab scale run --validate --json`, release CLI, one run at a
//! time so that the simulation times, and the speedups, are single-threaded):
//!
//! - strong scaling (every size runs the workload generated for the 128-SM
//!   target) of every kernel, predicting and simulating 64 and 128 SMs;
//! - weak scaling (each size runs its share, the paper's workflow: no
//!   miss-rate curve) of the linear kernels, predicting and simulating 64
//!   and 128 SMs.
//!
//! Each kernel's label is measured, not asserted: the IPC ratio per doubling
//! between simulated sizes, 1.9 to 2.1 linear, above super-linear, below
//! sub-linear. The tables go into `docs/validation.md` between the markers
//! below (the scale-model lab's handout links to them); the reports into
//! `target/validate-scale/*.json`.

use std::path::Path;
use std::process::ExitCode;

use serde_json::Value;

use crate::parallel::run_jobs;
use crate::recorded::{self, made_now};
use crate::shell::{Result, cli_json, release_cli, root, target_dir};
use crate::validate_models::{Markers, write};

const CONFIG: &str = "scalemodel";
const SCALE_MODELS: &str = "8,16";
const TARGETS: [u32; 2] = [64, 128];

/// What a kernel was chosen to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Linear,
    Cliff,
    SubLinear,
}

/// A kernel of the teaching set: its generator spec (generated for the
/// 128-SM target), what it was chosen to show, why, and whether it runs
/// under weak scaling too.
struct Kernel {
    spec: &'static str,
    kind: Kind,
    why: &'static str,
}

/// The teaching set. The linear and cliff kernels fill 8 waves of 6 CTAs
/// per SM at 128 SMs (48 CTAs per SM).
const KERNELS: [Kernel; 5] = [
    Kernel {
        spec: "maxflops:size=48",
        kind: Kind::Linear,
        why: "compute-bound: FFMA chains, no memory traffic to speak of",
    },
    Kernel {
        spec: "bw-dram:size=48",
        kind: Kind::Linear,
        why: "memory-bound: a read stream over 128 MiB, 4× the 128-SM LLC; DRAM bandwidth scales with the channels",
    },
    Kernel {
        spec: "bw-l2:size=48,footprint=24",
        kind: Kind::Cliff,
        why: "re-sweeps 24 MiB, between the 64-SM (16 MiB) and 128-SM (32 MiB) LLCs: misses up to 64 SMs, fits at 128",
    },
    Kernel {
        spec: "maxflops:size=6",
        kind: Kind::SubLinear,
        why: "CTA starvation: a fixed grid of 768 CTAs, 8 waves at 16 SMs and 1 at 128",
    },
    Kernel {
        spec: "histogram:skew=100",
        kind: Kind::SubLinear,
        why: "every atomic goes to bin 0, one L2 slice serialises them at every size",
    },
];

/// The goals: strong-scaling mean |error| of the linear and cliff
/// kernels, and weak-scaling mean |error| of the linear kernels at 128 SMs.
const STRONG_GOAL_PCT: f64 = 10.0;
const WEAK_GOAL_PCT: f64 = 5.0;
const SPEEDUP_GOAL: f64 = 5.0;

const METHODS: [&str; 4] = ["PowerLaw", "Linear", "Logarithmic", "Proportional"];
const RULES: [&str; 2] = ["reference", "paper"];

const VALIDATION: Markers = Markers {
    begin: "<!-- scale-validation:begin -->",
    end: "<!-- scale-validation:end -->",
    heading: "Scale-model prediction against the timing model",
};

/// One run: a kernel under strong or weak scaling.
struct Job {
    kernel: &'static Kernel,
    weak: bool,
}

/// Builds the CLI, runs every kernel and writes the docs; with
/// `--tables-only`, writes the docs from the saved reports.
pub fn run(args: &[String]) -> Result<ExitCode> {
    let jobs: Vec<Job> = KERNELS
        .iter()
        .map(|kernel| Job { kernel, weak: false })
        .chain(KERNELS.iter().filter(|k| k.kind == Kind::Linear).map(|kernel| Job { kernel, weak: true }))
        .collect();
    let out_dir = target_dir().join("validate-scale");
    let (reports, made) = match args {
        [] => simulate(&jobs, &out_dir)?,
        [flag] if flag == "--tables-only" => saved(&jobs, &out_dir)?,
        _ => return Err("usage: cargo xtask validate-scale [--tables-only]".to_owned()),
    };
    let (strong, weak) = reports.split_at(KERNELS.len());
    let generated = section(&made, strong, weak);
    // Lab 3's handout links to this section instead of holding a copy.
    let path = root().join("docs").join("validation.md");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    write(&path, &VALIDATION.replace(&text, &generated))?;
    println!("validate-scale: wrote docs/validation.md");
    Ok(ExitCode::SUCCESS)
}

/// The name `job`'s report is saved under.
fn report_name(job: &Job) -> String {
    let name = job.kernel.spec.replace([':', ',', '='], "_");
    format!("{name}{}", if job.weak { "_weak" } else { "" })
}

/// Runs every job (one at a time) and saves the reports; returns them and
/// when they were made.
fn simulate(jobs: &[Job], out_dir: &Path) -> Result<(Vec<Value>, String)> {
    let cli = release_cli()?;
    let made = made_now()?;
    let results = run_jobs(
        jobs,
        1,
        |job| format!("scale run {}{}", job.kernel.spec, if job.weak { " --weak" } else { "" }),
        |report: &Value| format!("simulated 128: {:.1}", simulated(report, 128)),
        |job| scale_run(&cli, job),
    );
    let reports = results.into_iter().collect::<Result<Vec<Value>>>()?;
    recorded::save(out_dir, &jobs.iter().map(report_name).collect::<Vec<_>>(), &reports, &made)?;
    Ok((reports, made))
}

/// The reports a run saved, and when they were made.
fn saved(jobs: &[Job], out_dir: &Path) -> Result<(Vec<Value>, String)> {
    recorded::load(out_dir, &jobs.iter().map(report_name).collect::<Vec<_>>(), "cargo xtask validate-scale")
}

fn scale_run(cli: &Path, job: &Job) -> Result<Value> {
    let targets = TARGETS.map(|t| t.to_string()).join(",");
    let mut args = vec![
        "scale",
        "run",
        "--config",
        CONFIG,
        "--gen",
        job.kernel.spec,
        "--scale-models",
        SCALE_MODELS,
        "--targets",
        &targets,
        "--validate",
        "--json",
    ];
    if job.weak {
        args.push("--weak");
    }
    cli_json(cli, &args, job.kernel.spec)
}

pub(crate) fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// The simulated runs of a report, scale models first.
pub(crate) fn runs(report: &Value) -> impl Iterator<Item = &Value> {
    let list = |key: &str| report[key].as_array().map(Vec::as_slice).unwrap_or_default();
    list("scale_models").iter().chain(list("validation"))
}

/// Field `key` of the simulated run of `sms` SMs.
fn at(report: &Value, sms: u32, key: &str) -> f64 {
    runs(report).find(|r| r["sms"] == sms).map_or(f64::NAN, |r| number(&r[key]))
}

/// The simulated IPC (launch latency left out) at `sms`.
pub(crate) fn simulated(report: &Value, sms: u32) -> f64 {
    at(report, sms, "ipc")
}

/// `method`'s prediction at `sms` under `rule`.
pub(crate) fn predicted(report: &Value, rule: &str, method: &str, sms: u32) -> f64 {
    let Some(outcome) = report["by_rule"].as_array().and_then(|o| o.iter().find(|o| o["prediction"]["rule"] == rule))
    else {
        return f64::NAN;
    };
    let prediction = &outcome["prediction"];
    let index = prediction["sizes"].as_array().and_then(|s| s.iter().position(|s| *s == sms));
    let curves = prediction["curves"].as_array().cloned().unwrap_or_default();
    match (index, curves.iter().find(|c| c["method"] == method)) {
        (Some(k), Some(curve)) => number(&curve["ipc"][k]),
        _ => f64::NAN,
    }
}

pub(crate) fn error_pct(predicted: f64, simulated: f64) -> f64 {
    100.0 * (predicted - simulated) / simulated
}

fn cell(predicted: f64, simulated: f64) -> String {
    format!("{predicted:.1} ({:+.1}%)", error_pct(predicted, simulated))
}

/// Every simulated size's `(SMs, IPC)`, smallest first.
fn ipcs(report: &Value) -> Vec<(f64, f64)> {
    runs(report).map(|r| (number(&r["sms"]), number(&r["ipc"]))).collect()
}

/// The IPC ratio per doubling of size from `(SMs, IPC)` `a` to `b`.
fn per_doubling((s0, i0): (f64, f64), (s1, i1): (f64, f64)) -> f64 {
    (i1 / i0).powf(1.0 / (s1 / s0).log2())
}

/// The measured ratio per doubling from the first simulated size to the last.
pub(crate) fn overall_per_doubling(report: &Value) -> f64 {
    let sims = ipcs(report);
    match (sims.first(), sims.last()) {
        (Some(&a), Some(&b)) => per_doubling(a, b),
        _ => f64::NAN,
    }
}

/// The label of a ratio per doubling: 1.9 to 2.1 is linear.
pub(crate) fn scaling_name(ratio: f64) -> &'static str {
    if ratio > 2.1 {
        "super-linear"
    } else if ratio >= 1.9 {
        "linear"
    } else {
        "sub-linear"
    }
}

/// The measured label, and the ratio of each step between simulated sizes.
fn label(report: &Value) -> (String, Vec<String>) {
    let steps = ipcs(report)
        .windows(2)
        .map(|w| format!("{:.0}→{:.0}: {:.2}", w[0].0, w[1].0, per_doubling(w[0], w[1])))
        .collect();
    let overall = overall_per_doubling(report);
    (format!("{} ({overall:.2} per doubling)", scaling_name(overall)), steps)
}

fn section(made: &str, strong: &[Value], weak: &[Value]) -> String {
    let mut out = format!(
        "Written by `cargo xtask validate-scale` from runs made {} (release CLI, one run at a time: `warplab scale run --config {CONFIG} --gen SPEC --scale-models {SCALE_MODELS} --targets 64,128 --validate [--weak] --json`).\n\
         IPC is thread instructions per cycle without the kernel launch latency (5,000 cycles a launch at every size, which no scale model can measure); errors are signed, (predicted − simulated) / simulated.\n\n",
        made.trim()
    );
    out += &teaching_table(strong);
    out += &strong_table(strong);
    out += &weak_table(weak);
    out += &speed_table(strong, weak);
    out
}

/// The teaching set with its measured labels, write-backs and curve.
fn teaching_table(strong: &[Value]) -> String {
    let mut out = "**The teaching set, measured** (strong scaling: the workload generated for 128 SMs on every size). The label is the IPC ratio per doubling from 8 to 128 SMs (1.9 to 2.1 linear); the steps between simulated sizes beside it. DRAM writes per 1,000 instructions show write-backs the read-miss curve cannot see.\n\n\
         | kernel | chosen to show | waves at 128 | IPC 8 / 16 / 64 / 128 | measured | per doubling | DRAM writes/KI 8 / 16 / 64 / 128 | curve MPKI 8 … 128 |\n|---|---|---|---|---|---|---|---|\n"
        .to_owned();
    for (kernel, r) in KERNELS.iter().zip(strong) {
        let join = |key: &str, digits: usize| {
            runs(r).map(|s| format!("{:.digits$}", number(&s[key]))).collect::<Vec<_>>().join(" / ")
        };
        let curve = r["curve"]["points"]
            .as_array()
            .map(|p| p.iter().map(|p| format!("{:.2}", number(&p["mpki"]))).collect::<Vec<_>>().join(" / "))
            .unwrap_or_default();
        let waves = at(r, 128, "waves");
        let (measured, steps) = label(r);
        let kind = match kernel.kind {
            Kind::Linear => "linear",
            Kind::Cliff => "cliff",
            Kind::SubLinear => "sub-linear",
        };
        out += &format!(
            "| `{}` | {kind}: {} | {waves:.1} | {} | {measured} | {} | {} | {curve} |\n",
            kernel.spec,
            kernel.why,
            join("ipc", 1),
            steps.join(", "),
            join("dram_writes_pki", 2)
        );
    }
    let warnings: Vec<String> = KERNELS
        .iter()
        .zip(strong)
        .flat_map(|(k, r)| {
            r["warnings"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(move |w| format!("- `{}`: {}", k.spec, w.as_str().unwrap_or_default()))
        })
        .collect();
    if !warnings.is_empty() {
        out += &format!("\nWarnings the reports gave:\n\n{}\n", warnings.join("\n"));
    }
    out + "\n"
}

/// One row per kernel and target: both rules and every baseline.
fn error_rows(kernels: &[&Kernel], reports: &[Value]) -> String {
    let mut out = "| kernel | SMs | simulated | Scale-Model (reference) | Scale-Model (paper) | ".to_owned();
    out += &METHODS.join(" | ");
    out += " | cliff |\n|---|---|---|---|---|";
    out += &"---|".repeat(METHODS.len() + 1);
    out.push('\n');
    for (kernel, r) in kernels.iter().zip(reports) {
        for t in TARGETS {
            let sim = simulated(r, t);
            let cells: Vec<String> = RULES
                .iter()
                .map(|rule| cell(predicted(r, rule, "Scale-Model", t), sim))
                .chain(METHODS.iter().map(|m| cell(predicted(r, "reference", m, t), sim)))
                .collect();
            let prediction = &r["by_rule"][0]["prediction"];
            let cliff = match &prediction["cliff"] {
                Value::Null if r["curve"].is_null() => "not looked for".to_owned(),
                Value::Null => "none".to_owned(),
                c => format!("{} → {} SMs, f_mem {:.3}", c["from"], c["to"], number(&prediction["f_mem"])),
            };
            out += &format!("| `{}` | {t} | {sim:.1} | {} | {cliff} |\n", kernel.spec, cells.join(" | "));
        }
    }
    out
}

/// Mean |error| of the Scale-Model under each rule over `reports` at `t`.
fn mean_errors(reports: &[&Value], t: u32) -> [f64; 2] {
    RULES.map(|rule| {
        let errors: Vec<f64> =
            reports.iter().map(|r| error_pct(predicted(r, rule, "Scale-Model", t), simulated(r, t)).abs()).collect();
        errors.iter().sum::<f64>() / errors.len().max(1) as f64
    })
}

pub(crate) fn verdict(value: f64, goal: f64) -> &'static str {
    if value <= goal { "met" } else { "**missed**" }
}

fn strong_table(strong: &[Value]) -> String {
    let kernels: Vec<&Kernel> = KERNELS.iter().collect();
    let mut out =
        "**Strong scaling**: every method at 64 and 128 SMs, from the 8- and 16-SM scale models.\n\n".to_owned();
    out += &error_rows(&kernels, strong);
    let pairs: Vec<(&Kernel, &Value)> = KERNELS.iter().zip(strong).collect();
    let chosen: Vec<(&Kernel, &Value)> = pairs.iter().copied().filter(|(k, _)| k.kind != Kind::SubLinear).collect();
    let measured: Vec<(&Kernel, &Value)> =
        pairs.iter().copied().filter(|(_, r)| scaling_name(overall_per_doubling(r)) != "sub-linear").collect();
    out += "\n";
    for (what, graded) in [("chosen as linear or cliff", chosen), ("measured linear or super-linear", measured)] {
        let (names, reports): (Vec<String>, Vec<&Value>) =
            graded.into_iter().map(|(k, r)| (format!("`{}`", k.spec), r)).unzip();
        for t in TARGETS {
            let [reference, paper] = mean_errors(&reports, t);
            out += &format!(
                "- Scale-Model mean |error| over the kernels {what} ({}) at {t} SMs: reference rule **{reference:.1}%** ({}), paper rule **{paper:.1}%** ({}) (goal ≤ {STRONG_GOAL_PCT}%).\n",
                names.join(", "),
                verdict(reference, STRONG_GOAL_PCT),
                verdict(paper, STRONG_GOAL_PCT)
            );
        }
    }
    for (kernel, r) in KERNELS.iter().zip(strong).filter(|(k, _)| k.kind == Kind::Cliff) {
        let sim = simulated(r, 128);
        let best_baseline = METHODS
            .iter()
            .map(|m| (error_pct(predicted(r, "reference", m, 128), sim).abs(), *m))
            .fold((f64::INFINITY, ""), |a, b| if b.0 < a.0 { b } else { a });
        let [reference, paper] = RULES.map(|rule| error_pct(predicted(r, rule, "Scale-Model", 128), sim).abs());
        out += &format!(
            "- The cliff kernel `{}` at 128 SMs: Scale-Model |error| {reference:.1}% (reference), {paper:.1}% (paper); the best baseline, {}, {:.1}%: the Scale-Model is {} every baseline.\n",
            kernel.spec,
            best_baseline.1,
            best_baseline.0,
            if reference.min(paper) < best_baseline.0 { "better than" } else { "**not better than**" }
        );
    }
    out + "\n"
}

fn weak_table(weak: &[Value]) -> String {
    let kernels: Vec<&Kernel> = KERNELS.iter().filter(|k| k.kind == Kind::Linear).collect();
    let mut out = "**Weak scaling** of the linear kernels, as the paper does it: each size runs its share of the 128-SM workload (`size` × SMs / 128), no miss-rate curve, the pre-cliff rule only.\n\n".to_owned();
    out += &error_rows(&kernels, weak);
    let all: Vec<&Value> = weak.iter().collect();
    out += "\n";
    for t in TARGETS {
        let [reference, paper] = mean_errors(&all, t);
        let goal = if t == 128 {
            format!(" (goal ≤ {WEAK_GOAL_PCT}% at 128 SMs: {})", verdict(reference.min(paper), WEAK_GOAL_PCT))
        } else {
            String::new()
        };
        out += &format!(
            "- Scale-Model mean |error| at {t} SMs: reference rule **{reference:.1}%**, paper rule **{paper:.1}%**{goal}.\n"
        );
    }
    out + "\n"
}

/// Seconds of the simulation of `sms` SMs.
pub(crate) fn seconds(report: &Value, sms: u32) -> f64 {
    at(report, sms, "seconds")
}

fn speed_table(strong: &[Value], weak: &[Value]) -> String {
    let mut out = "**Simulation time** (release build, one run at a time, single-threaded): the speedup is the target's simulation over the scale models' (and, under strong scaling, the miss-rate curve's); under weak scaling the paper's T_target / (T_small + T_large).\n\n| kernel | scaling | 8 + 16 SMs | curve | 64 SMs | 128 SMs | speedup at 64 | speedup at 128 |\n|---|---|---|---|---|---|---|---|\n".to_owned();
    let linear = KERNELS.iter().filter(|k| k.kind == Kind::Linear);
    let rows =
        KERNELS.iter().zip(strong).map(|(k, r)| (k, "strong", r)).chain(linear.zip(weak).map(|(k, r)| (k, "weak", r)));
    let mut weak_speedups = Vec::new();
    for (kernel, scaling, r) in rows {
        let models = seconds(r, 8) + seconds(r, 16);
        let curve = number(&r["timing"]["curve_s"]);
        let cost = models + if scaling == "weak" { 0.0 } else { curve };
        let [s64, s128] = TARGETS.map(|t| seconds(r, t) / cost);
        if scaling == "weak" {
            weak_speedups.push(s128);
        }
        out += &format!(
            "| `{}` | {scaling} | {models:.2} s | {} | {:.2} s | {:.2} s | {s64:.1}× | {s128:.1}× |\n",
            kernel.spec,
            if scaling == "weak" { "—".to_owned() } else { format!("{curve:.2} s") },
            seconds(r, 64),
            seconds(r, 128)
        );
    }
    let mean = weak_speedups.iter().sum::<f64>() / weak_speedups.len().max(1) as f64;
    out += &format!(
        "\nWeak scaling's speedup at 128 SMs, mean over the linear kernels: **{mean:.1}×** (goal ≥ {SPEEDUP_GOAL}×: {}; where simulation cost follows the work, the ceiling is 128 / (8 + 16) = 5.3×).\n",
        if mean >= SPEEDUP_GOAL { "met" } else { "**missed**" }
    );
    out
}
