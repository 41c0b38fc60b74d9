//! `warplab sweep`: the analytical models, and optionally the timing model,
//! at every point of the cartesian product of config knob values, written
//! as CSV (and an SVG line chart), with a table on standard output.
//!
//! The profile is what costs; a model evaluation costs microseconds. Of the
//! knobs only `n_sms` and `l1_mshrs` reach the profile (the cache pass
//! spreads a wave's CTAs over the SMs and lets as many misses through per
//! round as the L1 has MSHRs), so the sweep profiles once per distinct pair
//! of those and reuses that profile for every bandwidth and clock setting.
//! That keeps each row equal to what `warplab predict --set ...` prints for
//! its point.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use warplab_lab::{GpuConfig, Machine, ModelKind, Profile, ProfileOptions, ProfiledKnobs, SimOptions};

use crate::experiment_args::{ExperimentArgs, numbers};
use crate::svg_chart::{Chart, PALETTE, Panel, Series};
use crate::{predict, run};

/// The most points a sweep evaluates (the product of the `--vary` lists'
/// lengths), so a typo cannot start a run of days.
pub const MAX_POINTS: usize = 10_000;

/// The most panels `--svg` draws (one per combination of the knobs after the
/// first); the CSV has no limit.
pub const MAX_PANELS: usize = 24;

/// Standard output lists every row up to this many; beyond, the CSV does.
const MAX_TABLE_ROWS: usize = 40;

/// What to sweep.
pub struct SweepArgs {
    pub experiment: ExperimentArgs,
    /// `KNOB=v1,v2,...`, the first varying slowest.
    pub vary: Vec<String>,
    /// A model name or `all`.
    pub model: String,
    /// Also run the timing model at every point.
    pub simulate: bool,
    pub csv: PathBuf,
    pub svg: Option<PathBuf>,
}

/// One varied knob and its values.
struct Axis {
    knob: &'static str,
    values: Vec<f64>,
}

/// One point's results.
struct Row {
    /// The knobs' values, in `--vary` order.
    point: Vec<f64>,
    /// Each model's IPC, in the sweep's model order.
    ipc: Vec<f64>,
    simulated: Option<f64>,
}

/// A finished sweep.
struct Sweep {
    config: String,
    workload: String,
    knobs: Vec<&'static str>,
    models: Vec<ModelKind>,
    rows: Vec<Row>,
    profiles: usize,
}

/// Checks every argument, evaluates every point, writes the files and
/// renders the table.
pub fn sweep(args: &SweepArgs) -> Result<String, String> {
    let models = predict::models(&args.model)?;
    let (config_label, base) = args.experiment.config()?;
    let axes = axes(&args.vary, &base)?;
    check_output("--csv", &args.csv)?;
    if let Some(svg) = &args.svg {
        check_output("--svg", svg)?;
        check_panels(&axes)?;
    }
    let started = Instant::now();
    let sweep = evaluate(args, config_label, &base, &axes, models)?;
    let wall_s = started.elapsed().as_secs_f64();
    write(&args.csv, &csv(&sweep))?;
    if let Some(svg) = &args.svg {
        write(svg, &crate::svg_chart::render(&chart(&sweep, &axes)))?;
    }
    Ok(text(&sweep, wall_s, args))
}

/// The `--vary` lists, every value checked against the base config, and
/// their product within [`MAX_POINTS`].
fn axes(vary: &[String], base: &GpuConfig) -> Result<Vec<Axis>, String> {
    let mut axes: Vec<Axis> = Vec::with_capacity(vary.len());
    for text in vary {
        let axis = axis(text, base)?;
        if axes.iter().any(|a| a.knob == axis.knob) {
            return Err(format!("--vary: `{}` is varied twice; give all its values in one list", axis.knob));
        }
        axes.push(axis);
    }
    let points = axes.iter().try_fold(1usize, |n, a| n.checked_mul(a.values.len())).unwrap_or(usize::MAX);
    if points > MAX_POINTS {
        return Err(format!("--vary: {points} points (the product of the lists' lengths); at most {MAX_POINTS}"));
    }
    Ok(axes)
}

/// `KNOB=v1,v2,...`.
fn axis(text: &str, base: &GpuConfig) -> Result<Axis, String> {
    let fail = |message: &str| format!("--vary `{text}`: {message}");
    let (name, list) = text.split_once('=').ok_or_else(|| fail("expected KNOB=v1,v2,..."))?;
    let knob = warplab_lab::config_knob(name.trim()).map_err(|e| fail(&e.to_string()))?;
    if list.trim().is_empty() {
        return Err(fail("the list of values is empty"));
    }
    // From here on the message names the knob and the one bad value, not the whole list.
    let name = knob.name;
    let values: Vec<f64> = numbers(&format!("--vary {name}"), list)?;
    // Each value alone on the base config: what no combination can fix.
    for &value in &values {
        warplab_lab::apply_knob(base, name, value).map_err(|e| format!("--vary {name}={value}: {e}"))?;
    }
    Ok(Axis { knob: knob.name, values })
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

fn check_panels(axes: &[Axis]) -> Result<(), String> {
    let panels: usize = axes.iter().skip(1).map(|a| a.values.len()).product();
    if panels > MAX_PANELS {
        return Err(format!(
            "--svg: {panels} panels (one per combination of the knobs after the first); at most {MAX_PANELS}"
        ));
    }
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Point `index` of the product, the first axis varying slowest.
fn point(axes: &[Axis], index: usize) -> Vec<f64> {
    let mut rest = index;
    let mut out = vec![0.0; axes.len()];
    for (slot, axis) in out.iter_mut().zip(axes).rev() {
        *slot = axis.values[rest % axis.values.len()];
        rest /= axis.values.len();
    }
    out
}

fn point_count(axes: &[Axis]) -> usize {
    axes.iter().map(|a| a.values.len()).product()
}

/// Every point: the knobbed config, its profile (shared), the models and,
/// with `--simulate`, the timing model.
fn evaluate(
    args: &SweepArgs,
    config: String,
    base: &GpuConfig,
    axes: &[Axis],
    models: Vec<ModelKind>,
) -> Result<Sweep, String> {
    let experiment = &args.experiment;
    let options = ProfileOptions { memcpy_warms_l2: experiment.memcpy_warms_l2 };
    let mut profiles: HashMap<ProfiledKnobs, Profile> = HashMap::new();
    let workload = experiment.workload()?;
    let sim_options = SimOptions { memcpy_warms_l2: experiment.memcpy_warms_l2, ..SimOptions::default() };
    let mut progress = Progress::new(point_count(axes));
    let mut rows = Vec::with_capacity(point_count(axes));
    for index in 0..point_count(axes) {
        let point = point(axes, index);
        let knobs: Vec<(String, f64)> = axes.iter().zip(&point).map(|(a, &v)| (a.knob.to_owned(), v)).collect();
        let knobbed = warplab_lab::apply_knobs(base, &knobs).map_err(|e| format!("--vary: {e}"))?;
        let machine = Machine::of(&knobbed);
        let profile = match profiles.entry(ProfiledKnobs::of(&knobbed)) {
            Entry::Occupied(entry) => entry.into_mut(),
            Entry::Vacant(entry) => entry.insert(predict::profile(&knobbed, &workload, options)?),
        };
        let ipc = models.iter().map(|&m| warplab_lab::predict_model(profile, &machine, m).ipc).collect();
        let simulated = if args.simulate { Some(run::simulate(&knobbed, &workload, sim_options)?.ipc) } else { None };
        rows.push(Row { point, ipc, simulated });
        progress.step(index + 1);
    }
    drop(progress);
    let knobs = axes.iter().map(|a| a.knob).collect();
    Ok(Sweep { config, workload: workload.label(), knobs, models, rows, profiles: profiles.len() })
}

/// A progress bar on a terminal once the sweep has taken a second.
struct Progress {
    started: Instant,
    total: usize,
    bar: Option<ProgressBar>,
}

impl Progress {
    fn new(total: usize) -> Self {
        Self { started: Instant::now(), total, bar: None }
    }

    fn step(&mut self, done: usize) {
        if self.bar.is_none() && self.started.elapsed() > run::PROGRESS_AFTER && std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(self.total as u64);
            let style = ProgressStyle::with_template("{bar:30} {pos}/{len} points · {elapsed} (about {eta} left)");
            bar.set_style(style.unwrap_or(ProgressStyle::default_bar()));
            // A simulated point can take minutes: keep the clock moving between points.
            bar.enable_steady_tick(Duration::from_millis(250));
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            bar.set_position(done as u64);
        }
    }
}

/// Clears the bar however the sweep ends, an error included.
impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// `100 · (model − simulated) / simulated`.
fn error_pct(model: f64, simulated: f64) -> f64 {
    100.0 * (model - simulated) / simulated
}

/// The CSV: knobs, `<model>_ipc`, then `simulated_ipc` and `<model>_err_pct`
/// when simulated. Numbers are written in full (Rust's shortest exact form),
/// so they read back as the same `f64`.
fn csv(sweep: &Sweep) -> String {
    let simulated = sweep.rows.first().is_some_and(|r| r.simulated.is_some());
    let mut header: Vec<String> = sweep.knobs.iter().map(|k| (*k).to_owned()).collect();
    header.extend(sweep.models.iter().map(|m| format!("{}_ipc", m.name())));
    if simulated {
        header.push("simulated_ipc".to_owned());
        header.extend(sweep.models.iter().map(|m| format!("{}_err_pct", m.name())));
    }
    let mut out = header.join(",") + "\n";
    for row in &sweep.rows {
        let mut cells: Vec<String> = row.point.iter().chain(&row.ipc).map(f64::to_string).collect();
        if let Some(sim) = row.simulated {
            cells.push(sim.to_string());
            cells.extend(row.ipc.iter().map(|&ipc| error_pct(ipc, sim).to_string()));
        }
        out += &(cells.join(",") + "\n");
    }
    out
}

/// The model colours: each model keeps its colour whatever `--model` picks.
fn color(model: ModelKind) -> &'static str {
    let index = ModelKind::ALL.iter().position(|m| *m == model).unwrap_or(0);
    PALETTE[index % PALETTE.len()]
}

/// The axis label of a knob, with its unit.
fn knob_label(knob: &str) -> String {
    let unit = match knob {
        "n_sms" => "SMs",
        "l1_mshrs" => "L1 MSHR entries per SM",
        "noc_bw_scale" => "× the config's NoC bandwidth",
        "dram_bw_scale" => "× the config's DRAM bandwidth",
        "core_clock_mhz" => "MHz",
        _ => return knob.to_owned(),
    };
    format!("{knob} ({unit})")
}

/// IPC against the first knob: one panel per combination of the others, one
/// line per model and the simulated IPC dashed in black.
fn chart(sweep: &Sweep, axes: &[Axis]) -> Chart {
    let first = &axes[0];
    let panels = point_count(&axes[1..]);
    let panel = |p: usize| {
        // Rows `p`, `p + panels`, ...: the first knob's values in order.
        let rows: Vec<&Row> = sweep.rows.iter().skip(p).step_by(panels).collect();
        let line = |name: &str, stroke, dashed, y: &dyn Fn(&Row) -> f64| Series {
            name: name.to_owned(),
            color: stroke,
            dashed,
            points: rows.iter().map(|r| (r.point[0], y(r))).collect(),
        };
        let mut series: Vec<Series> =
            (sweep.models.iter().enumerate()).map(|(i, &m)| line(m.label(), color(m), false, &|r| r.ipc[i])).collect();
        if rows.first().is_some_and(|r| r.simulated.is_some()) {
            series.push(line("simulated", "#000000", true, &|r| r.simulated.unwrap_or(f64::NAN)));
        }
        let title = rows.first().map_or(String::new(), |r| {
            let others = sweep.knobs.iter().zip(&r.point).skip(1);
            others.map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
        });
        Panel { title, series }
    };
    let (lo, hi) = first.values.iter().fold((f64::MAX, 0.0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    Chart {
        title: format!("IPC vs {}: {} on {}", first.knob, sweep.workload, sweep.config),
        x_label: knob_label(first.knob),
        y_label: "IPC (thread instructions / cycle)".to_owned(),
        // Knob values usually double from one to the next.
        log_x: lo > 0.0 && hi / lo >= 4.0,
        panels: (0..panels).map(panel).collect(),
    }
}

/// The summary line and, for a short sweep, every row.
fn text(sweep: &Sweep, wall_s: f64, args: &SweepArgs) -> String {
    let mut out = format!(
        "{} on {}: {} point(s), {} profile(s), {wall_s:.2} s; wrote {}",
        sweep.workload,
        sweep.config,
        sweep.rows.len(),
        sweep.profiles,
        args.csv.display()
    );
    if let Some(svg) = &args.svg {
        let _ = write!(out, " and {}", svg.display());
    }
    out.push_str("\n\n");
    if sweep.rows.len() > MAX_TABLE_ROWS {
        let _ = writeln!(out, "({} rows: see the CSV)", sweep.rows.len());
    } else {
        table(&mut out, sweep);
    }
    if sweep.rows.first().is_some_and(|r| r.simulated.is_some()) {
        let means: Vec<String> = (sweep.models.iter().enumerate())
            .map(|(i, m)| format!("{} {:.1}%", m.label(), mean_abs_error(sweep, i)))
            .collect();
        let _ = writeln!(out, "mean |error| against the simulation: {}", means.join(", "));
    }
    out
}

fn table(out: &mut String, sweep: &Sweep) {
    let simulated = sweep.rows.first().is_some_and(|r| r.simulated.is_some());
    let mut header: Vec<&str> = sweep.knobs.clone();
    header.extend(sweep.models.iter().map(|m| m.label()));
    if simulated {
        header.push("simulated");
    }
    // Right-aligned columns at least 13 wide, each as wide as its header.
    let widths: Vec<usize> = header.iter().map(|h| h.len().max(13)).collect();
    let cells = |items: Vec<String>| items.iter().zip(&widths).map(|(c, w)| format!(" {c:>w$}")).collect::<String>();
    let _ = writeln!(out, "{}", cells(header.iter().map(|h| (*h).to_owned()).collect()));
    for row in &sweep.rows {
        let mut items: Vec<String> = row.point.iter().map(f64::to_string).collect();
        items.extend(row.ipc.iter().chain(&row.simulated).map(|v| format!("{v:.2}")));
        let _ = writeln!(out, "{}", cells(items));
    }
}

fn mean_abs_error(sweep: &Sweep, model: usize) -> f64 {
    let errors: Vec<f64> =
        sweep.rows.iter().filter_map(|r| r.simulated.map(|sim| error_pct(r.ipc[model], sim).abs())).collect();
    errors.iter().sum::<f64>() / errors.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axes() -> Vec<Axis> {
        vec![
            Axis { knob: "n_sms", values: vec![14.0, 28.0] },
            Axis { knob: "dram_bw_scale", values: vec![0.5, 1.0, 2.0] },
        ]
    }

    #[test]
    fn the_first_knob_varies_slowest() {
        let axes = axes();
        let points: Vec<Vec<f64>> = (0..point_count(&axes)).map(|i| point(&axes, i)).collect();
        assert_eq!(points[0], [14.0, 0.5]);
        assert_eq!(points[1], [14.0, 1.0]);
        assert_eq!(points[3], [28.0, 0.5]);
        assert_eq!(points.len(), 6);
    }

    #[test]
    fn the_chart_has_a_panel_per_combination_of_the_other_knobs() {
        let axes = axes();
        let rows = (0..6).map(|i| Row { point: point(&axes, i), ipc: vec![i as f64], simulated: Some(1.0) }).collect();
        let sweep = Sweep {
            config: "c".to_owned(),
            workload: "w".to_owned(),
            knobs: vec!["n_sms", "dram_bw_scale"],
            models: vec![ModelKind::Mdm],
            rows,
            profiles: 2,
        };
        let chart = chart(&sweep, &axes);
        assert_eq!(chart.panels.len(), 3);
        assert_eq!(chart.panels[1].title, "dram_bw_scale=1");
        // Panel 1 holds rows 1 and 4: n_sms = 14 and 28.
        assert_eq!(chart.panels[1].series[0].points, [(14.0, 1.0), (28.0, 4.0)]);
        assert!(chart.panels[1].series[1].dashed);
        let csv = csv(&sweep);
        assert_eq!(csv.lines().next(), Some("n_sms,dram_bw_scale,mdm_ipc,simulated_ipc,mdm_err_pct"));
        assert_eq!(csv.lines().nth(4), Some("28,0.5,3,1,200"));
    }
}
