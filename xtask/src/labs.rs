//! `cargo xtask labs`: the links and figures of the course-lab handouts
//! (`docs/labs/N-*.md`), computed from their experiment files
//! (`docs/labs/experiments/N*.json`, the source of truth) and written into
//! each handout between its markers, so no figure is ever typed by hand.
//!
//! Like `validate-models`, it talks to the release CLI through its output
//! only (`warplab experiment link`, `warplab run --experiment --json`,
//! `warplab scale table --json`), so xtask still depends on no warplab crate;
//! `crates/cli/tests/handouts.rs` checks the written tables against the
//! models, so the handouts cannot drift.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

use crate::parallel::run_jobs;
use crate::shell::{Result, cli_json, command, output, release_cli, root};
use crate::validate_models::{Markers, write};

/// Where a handout's links point; an instructor replaces it with the host
/// (and sub-path) that serves warplab (docs/labs/README.md says how).
const LINK_BASE: &str = "http://localhost:8080/";

/// The table of each step's link and figures.
const FIGURES: Markers =
    Markers { begin: "<!-- figures:begin -->", end: "<!-- figures:end -->", heading: "Links and figures" };

/// The paper's published accuracy, in the handouts that discuss it.
const PUBLISHED: Markers = Markers {
    begin: "<!-- published:begin -->",
    end: "<!-- published:end -->",
    heading: "The paper's published accuracy",
};

/// The scale-model paper's published strong-scaling data (as the page bundles it).
const PUBLISHED_CSV: &str = "crates/scale/test_data/single_strong_scaling.csv";

/// The column heads the handout test parses.
const HEAD: &str =
    "| step | link | simulated IPC | warplab core model IPC | MDM IPC | scale-model IPC |\n|---|---|---|---|---|---|\n";

/// A figure the handout does not state.
const NOT_STATED: &str = "—";

/// One step: its id (the file stem, e.g. `1a`) and its experiment file.
struct Step {
    id: String,
    file: PathBuf,
}

/// Builds the CLI, computes every step and rewrites every handout.
pub fn run() -> Result<ExitCode> {
    let cli = release_cli()?;
    let labs = root().join("docs").join("labs");
    let steps = steps(&labs.join("experiments"))?;
    let rows =
        run_jobs(&steps, 2, |step| format!("step {}", step.id), |row: &String| row.clone(), |step| row(&cli, step));
    let rows = rows.into_iter().collect::<Result<Vec<String>>>()?;
    for handout in handouts(&labs)? {
        let name = handout.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        let lab = name.chars().next().unwrap_or_default();
        let table: String =
            steps.iter().zip(&rows).filter(|(step, _)| step.id.starts_with(lab)).map(|(_, row)| row.as_str()).collect();
        if table.is_empty() {
            return Err(format!("{name}: no experiment file docs/labs/experiments/{lab}*.json"));
        }
        let text = std::fs::read_to_string(&handout).map_err(|e| format!("{}: {e}", handout.display()))?;
        let mut text = FIGURES.replace(&text, &format!("{HEAD}{table}"));
        if text.contains(PUBLISHED.begin) {
            text = PUBLISHED.replace(&text, &published(&cli)?);
        }
        write(&handout, &text)?;
        println!("labs: wrote docs/labs/{name}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The experiment files, in step order (`1a.json`, `1b.json`, ...).
fn steps(dir: &Path) -> Result<Vec<Step>> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut steps: Vec<Step> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .map(|file| Step { id: file.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned(), file })
        .collect();
    steps.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(steps)
}

/// The handouts: `N-*.md`, one per lab.
fn handouts(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name.ends_with(".md") && name.as_bytes().first().is_some_and(u8::is_ascii_digit)
        })
        .collect();
    files.sort();
    Ok(files)
}

/// One table row: the step's link and its figures to one decimal. The
/// scale-model figure is stated only for experiments that choose their scale
/// models (the lab is about them); otherwise `--no-scale` skips the slow part.
fn row(cli: &Path, step: &Step) -> Result<String> {
    let file = step.file.to_str().ok_or("an experiment path is not UTF-8")?;
    let cli = cli.to_str().ok_or("the CLI's path is not UTF-8")?;
    let link = output(&mut command(cli, &["experiment", "link", file]))?;
    let experiment: Value = serde_json::from_str(
        &std::fs::read_to_string(&step.file).map_err(|e| format!("{}: {e}", step.file.display()))?,
    )
    .map_err(|e| format!("{}: {e}", step.file.display()))?;
    let states_scale = !experiment["scale"]["scale_models"].is_null();
    let mut args = vec!["run", "--experiment", file, "--json"];
    if !states_scale {
        args.push("--no-scale");
    }
    let report = cli_json(Path::new(cli), &args, &step.id)?;
    let figure = |value: &Value, what: &str| {
        value.as_f64().map(|ipc| format!("{ipc:.1}")).ok_or_else(|| format!("step {}: no {what} in {value}", step.id))
    };
    let simulated = figure(&report["simulated"]["ipc"], "simulated IPC")?;
    let core = figure(&report["analytical"]["models"]["warplab"]["ipc"], "warplab core model IPC")?;
    let mdm = figure(&report["analytical"]["models"]["mdm"]["ipc"], "MDM IPC")?;
    let scale = if states_scale {
        figure(&report["scale"]["ipc"], &format!("scale-model IPC ({})", report["scale"]["error"]))?
    } else {
        NOT_STATED.to_owned()
    };
    Ok(format!("| {} | [open]({LINK_BASE}{}) | {simulated} | {core} | {mdm} | {scale} |\n", step.id, link.trim()))
}

/// The sentence on the paper's published accuracy at its largest size, with
/// the figures the page's published section shows (two decimals).
fn published(cli: &Path) -> Result<String> {
    let report = cli_json(cli, &["scale", "table", PUBLISHED_CSV, "--json"], PUBLISHED_CSV)?;
    let rows = report["summary"].as_array().cloned().unwrap_or_default();
    let largest = rows.iter().filter_map(|r| r["target_units"].as_u64()).max().unwrap_or(0);
    let row = rows
        .iter()
        .find(|r| r["model"] == "Scale-Model" && r["target_units"].as_u64() == Some(largest))
        .ok_or("no Scale-Model row in the published table's summary")?;
    let pct = |key: &str| row[key].as_f64().map(|v| format!("{v:.2}%")).ok_or(format!("no {key}"));
    let mut benchmarks: Vec<&str> =
        report["predictions"].as_array().into_iter().flatten().filter_map(|p| p["benchmark"].as_str()).collect();
    benchmarks.sort_unstable();
    benchmarks.dedup();
    Ok(format!(
        "Scale-Model at {largest} SMs over the paper's {} benchmarks (reference rule): mean error **{}**, at most **{}**.\n",
        benchmarks.len(),
        pct("mean_err_pct")?,
        pct("max_err_pct")?
    ))
}
