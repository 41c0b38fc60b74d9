//! `warplab scale`: the scale-model predictor from numbers (`predict`), over
//! a table of published data (`table`), and end to end from a trace or a
//! generator on a target GPU (`run`).

use std::fmt::Write as _;
use std::path::Path;

use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use warplab_lab::scale::{
    Inputs, Method, Prediction, Rule, ScaleHost, ScaleOptions, ScalePlan, ScaleReport, ScaleStep, Table, TableReport,
    predict as predict_ipc, run_scale, weak_spec,
};
use warplab_lab::{GpuConfig, WorkloadSource};

use crate::experiment_args::{ExperimentArgs, Workload, numbers};
use crate::to_json;

/// `--rule reference|paper`.
pub fn rule(name: &str) -> Result<Rule, String> {
    Rule::from_name(name).ok_or_else(|| format!("--rule: `{name}` is not reference or paper"))
}

/// `warplab scale predict`.
pub fn predict(
    ipc: &str,
    mpki: &str,
    smallest: u32,
    f_mem: Option<f64>,
    rule_name: &str,
    json: bool,
) -> Result<String, String> {
    let ipc: Vec<f64> = numbers("--ipc", ipc)?;
    let [small, large] = ipc[..] else {
        return Err(format!("--ipc: give the two scale models' IPC, S,L (got {} values)", ipc.len()));
    };
    let inputs =
        Inputs::doubling(smallest, [small, large], numbers("--mpki", mpki)?, f_mem).map_err(|e| e.to_string())?;
    let prediction = predict_ipc(&inputs, rule(rule_name)?).map_err(|e| e.to_string())?;
    if json {
        return to_json(&prediction);
    }
    Ok(prediction_text(&prediction, inputs.mpki.as_deref().unwrap_or_default()))
}

/// `warplab scale table`.
pub fn table(path: &Path, rule_name: &str, json: bool) -> Result<String, String> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    let table = Table::read(&name, &text).map_err(|e| e.to_string())?;
    let report = table.evaluate(&name, rule(rule_name)?).map_err(|e| e.to_string())?;
    if json {
        return to_json(&report);
    }
    Ok(table_text(&table, &report))
}

/// Every method's IPC per size, with the MPKI beside it.
pub fn prediction_text(p: &Prediction, mpki: &[f64]) -> String {
    let mut out = String::new();
    let _ = write!(out, "{:>6} {:>9}", "SMs", "MPKI");
    for method in Method::ALL {
        let _ = write!(out, " {:>13}", method.label());
    }
    out.push('\n');
    for (k, size) in p.sizes.iter().enumerate() {
        let _ = write!(out, "{size:>6} {:>9.3}", mpki[k]);
        for curve in &p.curves {
            let _ = write!(out, " {:>13.2}", curve.ipc[k]);
        }
        out.push_str(if k < 2 { "   (scale model)\n" } else { "\n" });
    }
    let _ = writeln!(out, "\nrule: {} (b = {:+.4})", p.rule.name(), p.shortfall);
    match (p.cliff, p.f_mem) {
        (Some(c), Some(f)) => {
            _ = writeln!(out, "cliff: MPKI drops more than 2x from {} to {} SMs; f_mem = {f:.3}", c.from, c.to)
        }
        _ => out.push_str("cliff: none\n"),
    }
    out
}

fn table_text(table: &Table, report: &TableReport) -> String {
    let units = table.units.name();
    let mut out = format!("{} benchmark(s); sizes in {units}\n\n", table.benchmarks.len());
    let target =
        |bench: &str| report.predictions.iter().filter(|r| r.benchmark == bench).map(|r| r.units).max().unwrap_or(0);
    let _ = write!(out, "{:<12} {:>6} {:>11}", "benchmark", units, "actual");
    for method in Method::ALL {
        let _ = write!(out, " {:>13}", method.label());
    }
    out.push('\n');
    for bench in &table.benchmarks {
        let t = target(&bench.name);
        let rows: Vec<_> = report.predictions.iter().filter(|r| r.benchmark == bench.name && r.units == t).collect();
        let _ = write!(out, "{:<12} {t:>6} {:>11.2}", bench.name, rows.first().map_or(0.0, |r| r.actual_ipc));
        for method in Method::ALL {
            let r = rows.iter().find(|r| r.model == method);
            let _ = write!(out, " {:>13}", r.map_or("-".to_owned(), |r| format!("{:.1}%", r.abs_err_pct)));
        }
        out.push('\n');
    }
    out.push_str("\nabsolute error, mean / max:\n");
    let _ = write!(out, "{:>6}", units);
    for method in Method::ALL {
        let _ = write!(out, " {:>15}", method.label());
    }
    out.push('\n');
    let mut sizes: Vec<u32> = report.summary.iter().map(|s| s.target_units).collect();
    sizes.dedup();
    for size in sizes {
        let _ = write!(out, "{size:>6}");
        for method in Method::ALL {
            let s = report.summary.iter().find(|s| s.model == method && s.target_units == size);
            let _ = write!(
                out,
                " {:>15}",
                s.map_or("-".to_owned(), |s| format!("{:.2} / {:.2}", s.mean_err_pct, s.max_err_pct))
            );
        }
        out.push('\n');
    }
    out
}

/// How `scale run` is given its sizes.
pub enum Sizes {
    /// `--scale-models S,2S`, targets in SMs.
    Sms(String),
    /// `--chiplets C,2C`, targets in chiplets.
    Chiplets(String),
}

/// `warplab scale run`'s arguments.
pub struct RunArgs {
    pub experiment: ExperimentArgs,
    pub sizes: Sizes,
    pub targets: Option<String>,
    pub validate: bool,
    pub weak: bool,
    pub rule: String,
    pub json: bool,
}

/// The CLI as a scale-model host: the experiment's workload (generated for
/// the target config, or grown with the system under `--weak`), the wall
/// clock, and progress on standard error.
struct CliHost<'a> {
    workload: &'a Workload,
    target: &'a GpuConfig,
    target_sms: u32,
    weak: bool,
    started: Instant,
    progress: ProgressBar,
}

impl ScaleHost for CliHost<'_> {
    fn workload(&mut self, sms: u32) -> Result<Box<dyn WorkloadSource>, String> {
        match (self.weak, self.workload) {
            (true, Workload::Generated(spec)) => {
                let grown = weak_spec(spec, sms, self.target_sms).map_err(|e| e.to_string())?;
                Workload::Generated(grown).source(self.target)
            }
            _ => self.workload.source(self.target),
        }
    }

    /// The simulating thread's CPU seconds where Linux reports them, so that
    /// a run beside other work times the same as on an idle machine (every
    /// part of a run is simulated on this one thread); else the wall clock.
    fn now(&mut self) -> Option<f64> {
        Some(thread_cpu_seconds().unwrap_or_else(|| self.started.elapsed().as_secs_f64()))
    }

    fn step(&mut self, step: &ScaleStep) {
        self.progress.inc(1);
        self.progress.set_message(step.describe());
    }
}

/// Nanoseconds this thread has run on a CPU: the first field of Linux's
/// `/proc/thread-self/schedstat`, in seconds; `None` elsewhere.
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanoseconds: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(nanoseconds as f64 * 1e-9)
}

/// `warplab scale run`.
pub fn run(args: &RunArgs) -> Result<String, String> {
    let (label, target) = args.experiment.config()?;
    let (flag, text, per_unit) = match &args.sizes {
        Sizes::Sms(text) => ("--scale-models", text, 1),
        Sizes::Chiplets(text) => ("--chiplets", text, sms_per_chiplet(&label, &target)?),
    };
    let models: Vec<u32> = numbers(flag, text)?;
    let [small, large] = models[..].iter().map(|&m| m.saturating_mul(per_unit)).collect::<Vec<_>>()[..] else {
        return Err(format!("{flag}: give two sizes, S,2S (got {} values)", models.len()));
    };
    let targets: Vec<u32> = args.targets.as_deref().map(|t| numbers("--targets", t)).transpose()?.unwrap_or_default();
    let targets: Vec<u32> = targets.iter().map(|&t| t.saturating_mul(per_unit)).collect();
    let workload = args.experiment.workload()?;
    if args.weak && matches!(workload, Workload::Trace { .. } | Workload::Authored(_)) {
        return Err(
            "--weak grows a generator's size with the system; a trace or an authored kernel has a fixed size (use --gen)"
                .to_owned(),
        );
    }
    let plan = ScalePlan::new(&target, [small, large], &targets).map_err(|e| e.to_string())?;
    let options = ScaleOptions {
        rule: rule(&args.rule)?,
        validate: args.validate,
        weak: args.weak,
        memcpy_warms_l2: args.experiment.memcpy_warms_l2,
    };
    let report = run_plan(&plan, &workload, &target, &options)?;
    if args.json {
        let mut value = serde_json::to_value(&report).map_err(|e| e.to_string())?;
        value["config"] = serde_json::json!(label);
        value["workload"] = serde_json::json!(workload.label());
        if target.chiplets.enabled() {
            let chiplets: Vec<u32> = plan.sizes.iter().map(|s| s.config.chiplets.count).collect();
            value["chiplets"] = serde_json::json!(chiplets);
        }
        return to_json(&value);
    }
    Ok(run_text(&label, &workload.label(), &plan, &report))
}

/// SMs per chiplet of a chiplet GPU; an error for a monolithic one.
fn sms_per_chiplet(label: &str, target: &GpuConfig) -> Result<u32, String> {
    let chiplets = target.chiplets.count;
    if chiplets < 2 {
        return Err(format!(
            "--chiplets: {label} is one chiplet (-gpgpu_n_chiplet_partition 1); use --scale-models, or a chiplet GPU \
             such as chiplet-1024sm"
        ));
    }
    Ok(target.n_sms() / chiplets)
}

/// Runs `plan` for `workload` on `target` with `options`, showing the steps
/// on standard error: `scale run` and `run --experiment` share it.
pub fn run_plan(
    plan: &ScalePlan,
    workload: &Workload,
    target: &GpuConfig,
    options: &ScaleOptions,
) -> Result<ScaleReport, String> {
    let steps = 3 + if options.validate { plan.targets.len() as u64 } else { 0 };
    let progress = ProgressBar::new(steps)
        .with_style(ProgressStyle::with_template("{pos}/{len} {wide_msg} {elapsed}").map_err(|e| e.to_string())?);
    let mut host = CliHost {
        workload,
        target,
        target_sms: plan.target_sms,
        weak: options.weak,
        started: Instant::now(),
        progress,
    };
    let report = run_scale(plan, &mut host, options).map_err(|e| workload.context(e))?;
    host.progress.finish_and_clear();
    Ok(report)
}

/// What every size keeps: the per-SM resources.
fn kept(c: &GpuConfig) -> String {
    let l1 = c.l1.dl1.as_ref().map_or("no L1".to_owned(), |l1| {
        format!("a {} KB L1 with {} MSHRs", l1.size_bytes() / 1024, l1.mshrs_in_use())
    });
    format!("kept per SM: {l1}, {} warps, {} schedulers", c.cores.max_warps_per_sm(), c.scheduling.schedulers_per_sm)
}

fn run_text(config: &str, workload: &str, plan: &ScalePlan, r: &ScaleReport) -> String {
    let scaling = if r.options.weak { "weak" } else { "strong" };
    let chiplets = |sms: u32| {
        plan.size(sms)
            .map(|s| s.config.chiplets.count)
            .filter(|&n| n > 1)
            .map_or(String::new(), |n| format!(" ({n} chiplets)"))
    };
    let mut out = format!(
        "{workload} on {config}: {scaling} scaling, scale models {} SMs{} and {} SMs{}\n\n",
        r.sizes[0],
        chiplets(r.sizes[0]),
        r.sizes[1],
        chiplets(r.sizes[1])
    );
    out += &sizes_text(plan);
    out.push('\n');
    for run in r.simulated() {
        let _ = writeln!(
            out,
            "simulated {:>4} SMs: IPC {:.2} ({} cycles, {} of them launch latency, left out), f_mem {:.3}, L2 MPKI {:.3}, DRAM writes/KI {:.3}{}",
            run.sms,
            run.ipc,
            run.cycles,
            run.launch_cycles,
            run.f_mem,
            run.l2_mpki,
            run.dram_writes_pki,
            run.seconds.map_or(String::new(), |s| format!(", {s:.2} s"))
        );
    }
    out.push('\n');
    out += &both_rules_text(r);
    if let Some(t) = r.timing {
        let _ = write!(out, "time: scale models {:.2} s, curve {:.2} s", t.scale_models_s, t.curve_s);
        if t.targets_s > 0.0 {
            let _ = write!(out, ", targets {:.2} s: {:.1}x faster than simulating the targets", t.targets_s, t.speedup);
        }
        out.push('\n');
    }
    for w in &r.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out += &crate::notes::render(&r.diagnostics);
    out
}

/// Every size of the plan: what is divided and what each keeps.
fn sizes_text(plan: &ScalePlan) -> String {
    // The largest size decides: a chiplet GPU's smallest scale model may be one chiplet.
    if plan.sizes.last().is_some_and(|size| size.config.chiplets.enabled()) {
        return chiplet_sizes_text(plan);
    }
    let mut out =
        format!("divided: SMs, LLC slices, NoC and DRAM bandwidth (channels); {}\n", kept(&plan.sizes[0].config));
    let _ = writeln!(
        out,
        "{:>6} {:>7} {:>9} {:>7} {:>10} {:>10}",
        "SMs", "factor", "LLC MB", "slices", "NoC GB/s", "DRAM GB/s"
    );
    for size in &plan.sizes {
        let c = &size.config;
        let _ = writeln!(
            out,
            "{:>6} {:>7} {:>9.2} {:>7} {:>10.1} {:>10.1}",
            size.sms,
            size.factor,
            c.memory.l2_total_bytes() as f64 / f64::from(1 << 20),
            c.memory.n_sub_partitions(),
            c.noc_bandwidth_bytes_per_second() as f64 / 1e9,
            c.dram_bandwidth_bytes_per_second() as f64 / 1e9,
        );
    }
    out
}

/// Every size of a chiplet GPU's plan: whole chiplets, so the LLC, DRAM and
/// the inter-chiplet bisection bandwidth go with the chiplet count.
fn chiplet_sizes_text(plan: &ScalePlan) -> String {
    let Some(largest) = plan.sizes.last().map(|size| &size.config) else { return String::new() };
    let n = largest.chiplets.count;
    let mut out = format!(
        "divided: whole chiplets ({} SMs, {} LLC slices and {} channels each, links kept), so the LLC, DRAM and \
         inter-chiplet bisection bandwidth follow; {}\n",
        largest.n_sms() / n,
        largest.memory.n_sub_partitions() / n,
        largest.memory.n_channels / n,
        kept(largest)
    );
    let _ =
        writeln!(out, "{:>6} {:>8} {:>9} {:>10} {:>15}", "SMs", "chiplets", "LLC MB", "DRAM GB/s", "bisection GB/s");
    for size in &plan.sizes {
        let c = &size.config;
        let _ = writeln!(
            out,
            "{:>6} {:>8} {:>9.2} {:>10.1} {:>15.1}",
            size.sms,
            c.chiplets.count,
            c.memory.l2_total_bytes() as f64 / f64::from(1 << 20),
            c.dram_bandwidth_bytes_per_second() as f64 / 1e9,
            c.chiplets.bisection_bytes_per_second(&c.memory, &c.clocks) as f64 / 1e9,
        );
    }
    out
}

/// Every size's MPKI and every method's IPC, the Scale-Model under both
/// rules side by side, the simulated IPC beside; then each rule's cliff and
/// errors.
fn both_rules_text(r: &ScaleReport) -> String {
    let [reference, paper] = Rule::ALL.map(|rule| &r.outcome(rule).prediction);
    let mut out = format!("{:>6} {:>9} {:>13} {:>13}", "SMs", "MPKI", "Scale-Model", "Scale-Model");
    for method in &Method::ALL[1..] {
        let _ = write!(out, " {:>13}", method.label());
    }
    let _ = writeln!(out, " {:>13}\n{:>6} {:>9} {:>13} {:>13}", "simulated", "", "", "(reference)", "(paper)");
    for (k, &size) in r.sizes.iter().enumerate() {
        let mpki = r.curve.as_ref().map_or("-".to_owned(), |c| format!("{:.3}", c.points[k].mpki));
        let _ =
            write!(out, "{size:>6} {mpki:>9} {:>13.2} {:>13.2}", reference.curves[0].ipc[k], paper.curves[0].ipc[k]);
        for curve in &reference.curves[1..] {
            let _ = write!(out, " {:>13.2}", curve.ipc[k]);
        }
        match r.simulated().find(|v| v.sms == size) {
            Some(run) => _ = write!(out, " {:>13.2}", run.ipc),
            None => _ = write!(out, " {:>13}", "-"),
        }
        out.push_str(if k < 2 { "   (scale model)\n" } else { "\n" });
    }
    let _ = writeln!(out, "\nb = {:+.4} (the second scale model's shortfall against doubling)", reference.shortfall);
    match (reference.cliff, reference.f_mem, &r.curve) {
        (_, _, None) => {
            out.push_str("cliff: not looked for (weak scaling: no miss-rate curve, as the paper does it)\n")
        }
        (Some(c), Some(f), _) => {
            _ = writeln!(out, "cliff: MPKI drops more than 2x from {} to {} SMs; f_mem = {f:.3}", c.from, c.to)
        }
        _ => out.push_str("cliff: none\n"),
    }
    for rule in Rule::ALL {
        for row in r.outcome(rule).summary.iter().filter(|row| row.model == Method::ScaleModel) {
            let _ = writeln!(
                out,
                "Scale-Model ({} rule) error at {} SMs: {:.2}%",
                rule.name(),
                row.target_units,
                row.mean_err_pct
            );
        }
    }
    let _ = writeln!(out, "the report leads with the {} rule (--rule)", r.options.rule.name());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn the_threads_cpu_time_advances_with_its_work_only() {
        let before = thread_cpu_seconds().expect("Linux reports it");
        let mut x = 0u64;
        while thread_cpu_seconds().expect("still") - before < 0.002 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        let busy = thread_cpu_seconds().expect("still") - before;
        std::thread::sleep(std::time::Duration::from_millis(50));
        let asleep = thread_cpu_seconds().expect("still") - before - busy;
        assert!(asleep < 0.04, "sleeping 50 ms cost {asleep} s of CPU");
    }
}
