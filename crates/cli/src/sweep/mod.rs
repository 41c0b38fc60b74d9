//! `warplab sweep`: the analytical models, and with `--simulate` the timing
//! model, at every point of workloads × the product of the varied settings
//! (sweep knobs or any GPGPU-Sim option), run on this machine's cores or,
//! with `--slurm DIR`, as a Slurm job array; written as CSV (and an SVG
//! chart), with a table on standard output.
//!
//! The profile is what costs of the analytical side, so points whose
//! configs agree on every option the profile reads ([`ProfileKey`]) share
//! one. The CSV is the same row for row whatever `--jobs` and however the
//! points were run, except the host-time column.
//!
//! [`ProfileKey`]: warplab_lab::ProfileKey

mod axis;
mod evaluate;
mod plan;
mod progress;
mod results;
mod slurm;
mod store;

use std::path::{Path, PathBuf};
use std::time::Instant;

use warplab_lab::sampling::{SampleMode, SamplingOptions};

use self::evaluate::{Outcome, PointResult, Sweeper};
use self::plan::{PLAN_FORMAT, Plan, PlannedConfig, PlannedWorkload};
pub use self::slurm::SlurmArgs;
use crate::experiment_args::ExperimentArgs;
use crate::predict;

/// What to sweep.
pub struct SweepArgs {
    /// The base config and its `--set` knobs (its workload fields unused).
    pub experiment: ExperimentArgs,
    /// `--gen` specs, then `--trace` paths, then `--kernel` files: the
    /// workloads, in that order.
    pub generated: Vec<String>,
    pub traces: Vec<PathBuf>,
    pub kernels: Vec<PathBuf>,
    /// `KNOB=v1,v2,...` or `-option=v1,v2,...`, the first varying slowest.
    pub vary: Vec<String>,
    pub allow_unmodelled: bool,
    /// A model name or `all`.
    pub model: String,
    pub simulate: bool,
    pub sample: SampleMode,
    pub size_per_point: bool,
    pub csv: PathBuf,
    pub svg: Option<PathBuf>,
    /// Points run at once here.
    pub jobs: usize,
    /// Submit to Slurm instead of running here.
    pub slurm: Option<SlurmArgs>,
}

/// Plans the sweep (checking every argument, value and combination before
/// any work), then runs it here or submits it.
pub fn sweep(args: &SweepArgs) -> Result<String, String> {
    let (label, base) = args.experiment.config()?;
    let axes =
        args.vary.iter().map(|text| axis::parse(text, &base, args.allow_unmodelled)).collect::<Result<Vec<_>, _>>()?;
    if let Some(twice) = axes.iter().enumerate().find(|(i, a)| axes[..*i].iter().any(|b| b.name() == a.name())) {
        return Err(format!("--vary: `{}` is varied twice; give all its values in one list", twice.1.name()));
    }
    let mut workloads: Vec<PlannedWorkload> =
        args.generated.iter().map(|text| PlannedWorkload::generated(text)).collect::<Result<_, _>>()?;
    for path in &args.traces {
        workloads.push(PlannedWorkload::trace(path)?);
    }
    for path in &args.kernels {
        workloads.push(PlannedWorkload::authored(path)?);
    }
    if workloads.is_empty() {
        return Err(
            "give the workloads: --gen KERNEL, --trace PATH or --kernel FILE.cu, each as often as needed".to_owned()
        );
    }
    let models = predict::models(&args.model)?;
    let mut plan = Plan {
        format: PLAN_FORMAT.to_owned(),
        config: PlannedConfig { label, files: base.to_files() },
        workloads,
        axes,
        models: models.iter().map(|m| m.name().to_owned()).collect(),
        simulate: args.simulate,
        sampling: SamplingOptions { mode: args.sample, ..SamplingOptions::default() },
        size_per_point: args.size_per_point,
        memcpy_warms_l2: args.experiment.memcpy_warms_l2,
        points: Vec::new(),
    };
    let configs = plan.enumerate(&base)?;
    check_outputs(&plan, &args.csv, args.svg.as_deref())?;
    if let Some(slurm) = &args.slurm {
        return slurm::submit(&plan, slurm, &slurm::Outputs { csv: &args.csv, svg: args.svg.as_deref() });
    }
    let sweeper = Sweeper::new(&plan)?;
    let started = Instant::now();
    let (points, profiles) = sweeper.run_all(&configs, args.jobs)?;
    let wall_s = started.elapsed().as_secs_f64();
    let summary = format!("{} profile(s), {} job(s), {wall_s:.2} s", profiles, args.jobs);
    finish(&plan, &points, &[], &summary, &args.csv, args.svg.as_deref())
}

/// `warplab sweep run-point DIR --index I`: runs point `I` of `DIR/plan.json`
/// and writes `DIR/points/I.json`, its figures or its error.
pub fn run_point(dir: &Path, index: usize) -> Result<String, String> {
    let plan = Plan::read(dir)?;
    if index >= plan.points.len() {
        return Err(format!("--index {index}: the plan has points 0 to {}", plan.points.len().saturating_sub(1)));
    }
    let result = Sweeper::new(&plan)?.run_one(index);
    store::write_point(dir, &result)?;
    match result.outcome {
        Outcome::Done { .. } => Ok(format!("point {index}: done\n")),
        Outcome::Failed { error } => Err(format!("point {index}: {error}")),
    }
}

/// `warplab sweep collect DIR --csv FILE [--svg FILE]`: the CSV of the
/// points `DIR/points` holds; the missing and failed ones are listed.
pub fn collect(dir: &Path, csv: &Path, svg: Option<&Path>) -> Result<String, String> {
    let plan = Plan::read(dir)?;
    check_outputs(&plan, csv, svg)?;
    let (points, missing) = store::read_points(dir, &plan);
    finish(&plan, &points, &missing, &format!("collected from {}", dir.display()), csv, svg)
}

/// Writes the CSV and the chart, and returns the summary and table, or,
/// when points are missing or failed, an error listing them (after writing
/// what finished).
fn finish(
    plan: &Plan,
    points: &[PointResult],
    missing: &[usize],
    how: &str,
    csv: &Path,
    svg: Option<&Path>,
) -> Result<String, String> {
    write(csv, &results::csv(plan, points))?;
    if let Some(svg) = svg {
        write(svg, &crate::svg_chart::render(&results::chart(plan, points)))?;
    }
    let done = points.iter().filter(|p| matches!(p.outcome, Outcome::Done { .. })).count();
    let workloads: Vec<&str> = plan.workloads.iter().map(PlannedWorkload::label).collect();
    let mut out = format!(
        "{} on {}: {done} of {} point(s), {how}; wrote {}",
        workloads.join(", "),
        plan.config.label,
        plan.points.len(),
        csv.display()
    );
    if let Some(svg) = svg {
        out += &format!(" and {}", svg.display());
    }
    out += "\n\n";
    out += &results::table(plan, points);
    let unfinished = results::unfinished(plan, points, missing);
    if unfinished.is_empty() { Ok(out) } else { Err(format!("{out}{}", unfinished.trim_end())) }
}

/// Fails now, not after the sweep, when the CSV or the chart cannot be
/// written or the plan cannot be drawn.
fn check_outputs(plan: &Plan, csv: &Path, svg: Option<&Path>) -> Result<(), String> {
    check_output("--csv", csv)?;
    if let Some(svg) = svg {
        check_output("--svg", svg)?;
        results::check_chart(plan)?;
    }
    Ok(())
}

/// Fails now, not after the sweep, when `path` cannot be a new file.
fn check_output(flag: &str, path: &Path) -> Result<(), String> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if path.is_dir() {
        return Err(format!("{flag} {}: is a directory", path.display()));
    }
    if !parent.is_dir() {
        return Err(format!("{flag} {}: no directory {}", path.display(), parent.display()));
    }
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}
