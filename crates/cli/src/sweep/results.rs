//! What a sweep writes: the CSV (one row per finished point, in point
//! order), the SVG chart of IPC against the first varied setting, and the
//! table and summary on standard output.

use std::fmt::Write as _;

use warplab_lab::ModelKind;

use super::evaluate::{Exact, Outcome, PointResult};
use super::plan::Plan;
use crate::svg_chart::{Chart, PALETTE, Panel, Series};

/// The most panels `--svg` draws (one per workload and combination of the
/// settings after the first); the CSV has no limit.
pub const MAX_PANELS: usize = 24;

/// Standard output lists every row up to this many; beyond, the CSV does.
const MAX_TABLE_ROWS: usize = 40;

/// The columns that hold host time, the only ones that differ between two
/// runs of the same sweep.
pub const WALL_TIME_COLUMNS: [&str; 1] = ["sim_wall_s"];

/// The plan's models (checked when the plan was made or read).
fn models(plan: &Plan) -> Vec<ModelKind> {
    plan.models().unwrap_or_default()
}

/// `100 · (model − simulated) / simulated`.
fn error_pct(model: f64, simulated: f64) -> f64 {
    100.0 * (model - simulated) / simulated
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text.to_owned() }
}

fn number(value: Option<f64>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

fn value(figure: Option<Exact>) -> Option<f64> {
    figure.map(|Exact(v)| v)
}

/// The CSV: the workload, each varied setting, `<model>_ipc`; when the plan
/// simulates, `simulated_ipc`, `simulated_cycles`, `sample_mode`,
/// `<model>_err_pct` and last `sim_wall_s`. Numbers are written in full
/// (Rust's shortest exact form), so they read back as the same `f64`.
pub fn csv(plan: &Plan, results: &[PointResult]) -> String {
    let models = models(plan);
    let mut header: Vec<String> = vec!["workload".to_owned()];
    header.extend(plan.axes.iter().map(|axis| axis.name().to_owned()));
    header.extend(models.iter().map(|m| format!("{}_ipc", m.name())));
    if plan.simulate {
        header.extend(["simulated_ipc", "simulated_cycles", "sample_mode"].map(str::to_owned));
        header.extend(models.iter().map(|m| format!("{}_err_pct", m.name())));
        header.extend(WALL_TIME_COLUMNS.map(str::to_owned));
    }
    let mut out = header.iter().map(|h| field(h)).collect::<Vec<_>>().join(",") + "\n";
    for result in results {
        let Outcome::Done { ipc, simulated } = &result.outcome else { continue };
        let point = &plan.points[result.index];
        let mut cells = vec![field(plan.workloads[point.workload].label())];
        cells.extend(point.values.iter().map(|v| field(v)));
        cells.extend(ipc.iter().map(|&v| number(value(v))));
        if let Some(sim) = simulated {
            cells.extend([sim.ipc.0.to_string(), sim.cycles.to_string(), plan.sampling.mode.name().to_owned()]);
            cells.extend(ipc.iter().map(|&v| number(value(v).map(|v| error_pct(v, sim.ipc.0)))));
            cells.push(sim.wall_s.to_string());
        }
        out += &(cells.join(",") + "\n");
    }
    out
}

/// Checks that `--svg` can draw the plan: numbers on the first axis and at
/// most [`MAX_PANELS`] panels.
pub fn check_chart(plan: &Plan) -> Result<(), String> {
    let first = plan.axes.first().ok_or("--svg: give a --vary to draw against")?;
    if let Some(bad) = first.values.iter().find(|v| v.parse::<f64>().is_err()) {
        return Err(format!("--svg: the first --vary's values are drawn on the x axis, and `{bad}` is not a number"));
    }
    let panels = panels(plan);
    if panels > MAX_PANELS {
        return Err(format!(
            "--svg: {panels} panels (one per workload and combination of the settings after the first); at most {MAX_PANELS}"
        ));
    }
    Ok(())
}

fn combinations(plan: &Plan) -> usize {
    plan.axes.iter().map(|a| a.values.len()).product()
}

fn panels(plan: &Plan) -> usize {
    plan.workloads.len() * combinations(plan) / plan.axes.first().map_or(1, |a| a.values.len()).max(1)
}

/// IPC against the first setting: a panel per workload and combination of
/// the others, a line per model, the simulated IPC dashed in black. Points
/// that failed are left out of their lines.
pub fn chart(plan: &Plan, results: &[PointResult]) -> Chart {
    let models = models(plan);
    let first = &plan.axes[0];
    let per_workload = combinations(plan);
    let others = per_workload / first.values.len();
    let by_index: std::collections::HashMap<usize, &PointResult> = results.iter().map(|r| (r.index, r)).collect();
    let panel = |p: usize| {
        let (workload, other) = (p / others, p % others);
        let indexes: Vec<usize> =
            (0..first.values.len()).map(|x| workload * per_workload + x * others + other).collect();
        let line = |name: &str, color, dashed, y: &dyn Fn(&Outcome) -> Option<f64>| Series {
            name: name.to_owned(),
            color,
            dashed,
            points: indexes
                .iter()
                .filter_map(|i| {
                    let x = plan.points[*i].values[0].parse::<f64>().ok()?;
                    Some((x, y(&by_index.get(i)?.outcome)?))
                })
                .collect(),
        };
        let model_ipc =
            |k: usize| move |o: &Outcome| if let Outcome::Done { ipc, .. } = o { value(ipc[k]) } else { None };
        let mut series: Vec<Series> =
            (models.iter().enumerate()).map(|(k, &m)| line(m.label(), color(m), false, &model_ipc(k))).collect();
        if plan.simulate {
            let simulated = |o: &Outcome| match o {
                Outcome::Done { simulated: Some(sim), .. } => Some(sim.ipc.0),
                _ => None,
            };
            series.push(line("simulated", "#000000", true, &simulated));
        }
        let point = &plan.points[indexes[0]];
        let mut title: Vec<String> = Vec::new();
        if plan.workloads.len() > 1 {
            title.push(plan.workloads[workload].label().to_owned());
        }
        title.extend(plan.axes.iter().zip(&point.values).skip(1).map(|(a, v)| format!("{}={v}", a.name())));
        Panel { title: title.join(", "), series }
    };
    let values: Vec<f64> = first.values.iter().filter_map(|v| v.parse().ok()).collect();
    let (lo, hi) = values.iter().fold((f64::MAX, 0.0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let workloads: Vec<&str> = plan.workloads.iter().map(|w| w.label()).collect();
    Chart {
        title: format!("IPC vs {}: {} on {}", first.name(), workloads.join(", "), plan.config.label),
        x_label: axis_label(first.name()),
        y_label: "IPC (thread instructions / cycle)".to_owned(),
        // Values usually double from one to the next.
        log_x: lo > 0.0 && hi / lo >= 4.0,
        panels: (0..panels(plan)).map(panel).collect(),
    }
}

/// The model colours: each model keeps its colour whatever `--model` picks.
fn color(model: ModelKind) -> &'static str {
    let index = ModelKind::ALL.iter().position(|m| *m == model).unwrap_or(0);
    PALETTE[index % PALETTE.len()]
}

/// The axis label of a setting, with its unit when it is a knob.
fn axis_label(name: &str) -> String {
    let unit = match name {
        "n_sms" => "SMs",
        "l1_mshrs" => "L1 MSHR entries per SM",
        "noc_bw_scale" => "× the config's NoC bandwidth",
        "dram_bw_scale" => "× the config's DRAM bandwidth",
        "core_clock_mhz" => "MHz",
        _ => return name.to_owned(),
    };
    format!("{name} ({unit})")
}

/// A finished point's figures, as the table shows them.
struct Row<'r> {
    result: &'r PointResult,
    ipc: Vec<Option<f64>>,
    simulated: Option<f64>,
}

fn rows(results: &[PointResult]) -> Vec<Row<'_>> {
    (results.iter())
        .filter_map(|result| match &result.outcome {
            Outcome::Done { ipc, simulated } => Some(Row {
                result,
                ipc: ipc.iter().map(|&v| value(v)).collect(),
                simulated: simulated.as_ref().map(|s| s.ipc.0),
            }),
            Outcome::Failed { .. } => None,
        })
        .collect()
}

/// The rows as a table (up to [`MAX_TABLE_ROWS`]) and, when simulated, each
/// model's mean |error|.
pub fn table(plan: &Plan, results: &[PointResult]) -> String {
    let rows = rows(results);
    let mut out = String::new();
    if rows.len() > MAX_TABLE_ROWS {
        let _ = writeln!(out, "({} rows: see the CSV)", rows.len());
    } else if !rows.is_empty() {
        out += &render(plan, &rows);
    }
    if plan.simulate && !rows.is_empty() {
        let means: Vec<String> = (models(plan).iter().enumerate())
            .map(|(k, m)| {
                let errors: Vec<f64> =
                    rows.iter().filter_map(|row| Some(error_pct(row.ipc[k]?, row.simulated?).abs())).collect();
                format!("{} {:.1}%", m.label(), errors.iter().sum::<f64>() / errors.len().max(1) as f64)
            })
            .collect();
        let _ = writeln!(out, "mean |error| against the simulation: {}", means.join(", "));
    }
    out
}

/// Right-aligned columns, each as wide as its widest cell and at least 8.
fn render(plan: &Plan, rows: &[Row<'_>]) -> String {
    let mut header: Vec<String> = vec!["workload".to_owned()];
    header.extend(plan.axes.iter().map(|a| a.name().to_owned()));
    header.extend(models(plan).iter().map(|m| m.label().to_owned()));
    if plan.simulate {
        header.push("simulated".to_owned());
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            let point = &plan.points[row.result.index];
            let mut cells = vec![plan.workloads[point.workload].label().to_owned()];
            cells.extend(point.values.iter().cloned());
            let simulated = plan.simulate.then_some(row.simulated);
            let figures = row.ipc.iter().copied().chain(simulated);
            cells.extend(figures.map(|v| v.map_or("-".to_owned(), |v| format!("{v:.2}"))));
            cells
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|c| cells.iter().map(|r| r[c].len()).chain([header[c].len(), 8]).max().unwrap_or(8))
        .collect();
    let line = |cells: &[String]| cells.iter().zip(&widths).map(|(c, w)| format!(" {c:>w$}")).collect::<String>();
    let mut out = line(&header) + "\n";
    for row in &cells {
        out += &(line(row) + "\n");
    }
    out
}

/// The points that did not finish: `missing` (no result) and failed ones
/// with their error, one line each.
pub fn unfinished(plan: &Plan, results: &[PointResult], missing: &[usize]) -> String {
    let mut out = String::new();
    let describe = |index: usize| {
        let point = &plan.points[index];
        let values: Vec<String> =
            plan.axes.iter().zip(&point.values).map(|(a, v)| format!("{}={v}", a.name())).collect();
        format!("point {index} ({} {})", plan.workloads[point.workload].label(), values.join(" "))
    };
    for result in results {
        if let Outcome::Failed { error } = &result.outcome {
            let _ = writeln!(out, "failed: {}: {error}", describe(result.index));
        }
    }
    for &index in missing {
        let _ = writeln!(out, "missing: {}", describe(index));
    }
    out
}
