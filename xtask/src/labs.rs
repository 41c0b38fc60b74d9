//! `cargo xtask labs`: the links and figures of the course-lab handouts
//! (`docs/labs/N-*.md`), computed from their experiment files
//! (`docs/labs/experiments/N*.json`, the source of truth) and written into
//! each handout between its markers, so no figure is ever typed by hand.
//!
//! The links start with `http://localhost:8080/` (where `cargo xtask serve`
//! puts the app) or with the instructor's `--base-url`; only the part from
//! `#x=` on carries the experiment, so a link opens the same experiment
//! under any URL. After the experiment each link carries its step for the
//! page's banner (`&lab=...&step=...&watch=...&panel=...`, percent-encoded,
//! from `docs/labs/banners.json`; the page's `crates/web/src/lab_step.rs`
//! reads the same format, and the share-link codec skips it). `--links-only`
//! re-points the tables already written, and rewrites their banners,
//! without running anything (docs/hosting.md).
//!
//! Like `validate-models`, it talks to the release CLI through its output
//! only (`warplab experiment link`, `warplab run --experiment --json`,
//! `warplab scale table --json`), so xtask still depends on no warplab crate;
//! `crates/cli/tests/handouts.rs` checks the written tables against the
//! models, so the handouts cannot drift.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

use crate::numbers::grouped;
use crate::parallel::run_jobs;
use crate::shell::{Result, cli_json, command, output, release_cli, root};
use crate::validate_models::{Markers, write};

/// Where a handout's links point unless `--base-url` says otherwise: where
/// `cargo xtask serve` serves the app on the student's own machine.
const DEFAULT_BASE_URL: &str = "http://localhost:8080/";

/// The table of each step's link and figures.
const FIGURES: Markers =
    Markers { begin: "<!-- figures:begin -->", end: "<!-- figures:end -->", heading: "Links and figures" };

/// The paper's published accuracy, in the handouts that discuss it.
const PUBLISHED: Markers = Markers {
    begin: "<!-- published:begin -->",
    end: "<!-- published:end -->",
    heading: "The paper's published accuracy",
};

/// The memory figures of each step, in the handouts that measure a kernel's
/// memory behaviour (lab 4).
const MEMORY: Markers =
    Markers { begin: "<!-- memory:begin -->", end: "<!-- memory:end -->", heading: "Memory figures" };

/// The memory table's column heads.
const MEMORY_HEAD: &str = "| step | simulated cycles | requests past the L1 | DRAM sectors per request | bank-conflict cycles |\n|---|---|---|---|---|\n";

/// The scale-model paper's published strong-scaling data (as the page bundles it).
const PUBLISHED_CSV: &str = "crates/scale/test_data/single_strong_scaling.csv";

/// The column heads the handout tests parse.
const HEAD: &str =
    "| step | link | simulated IPC | warplab core model IPC | MDM IPC | scale-model IPC |\n|---|---|---|---|---|---|\n";

/// A figure the handout does not state.
const NOT_STATED: &str = "—";

/// The scale-model cell where the rule gives no prediction (the CLI's
/// `scale.no_prediction` says why; the page shows the reason).
const NO_PREDICTION: &str = "no prediction";

const USAGE: &str = "usage: cargo xtask labs [--base-url URL] [--links-only]";

/// What `cargo xtask labs` was asked for.
#[derive(Debug, PartialEq)]
struct Options {
    /// The URL the links start with, ending in `/` (the page's directory).
    base_url: String,
    /// Rewrite only the links of the tables already written, running nothing.
    links_only: bool,
}

/// What each step's banner says: `docs/labs/banners.json`.
const BANNERS: &str = "banners.json";

/// The page's sections a banner may point at (`crates/web/src/components/section_nav.rs`).
const PANELS: [&str; 8] = [
    "workload-panel",
    "config-panel",
    "animation-panel",
    "sampling-panel",
    "report-panel",
    "analytical-panel",
    "scale-panel",
    "glossary",
];

/// Each step's banner parameters, by step id.
type Banners = std::collections::BTreeMap<String, String>;

/// One step's memory figures as stated: the simulated cycles, the requests
/// past the L1 (reads and writes, one per 32-byte sector, from the analytical
/// models' cache pass), the DRAM sectors per such request (the same pass),
/// and the cycles shared-memory bank conflicts held the LD/ST units (the
/// report's `shmem_bank_conflict_cycles`: a cycle per extra pass).
#[derive(Debug, Clone, PartialEq)]
struct Memory {
    step: String,
    figures: [String; 4],
}

impl Memory {
    /// The table line.
    fn markdown(&self) -> String {
        let [cycles, requests, sectors, bank_conflicts] = &self.figures;
        format!("| {} | {cycles} | {requests} | {sectors} | {bank_conflicts} |\n", self.step)
    }
}

/// One step: its id (the file stem, e.g. `1a`) and its experiment file.
struct Step {
    id: String,
    file: PathBuf,
}

/// One row of a handout's table, as data: the step, its link's fragment
/// (`#x=...`, the whole experiment), the banner's parameters after it, and
/// its four figures as stated.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    step: String,
    fragment: String,
    banner: String,
    figures: [String; 4],
}

/// Builds the CLI, computes every step and rewrites every handout; with
/// `--links-only`, points the written tables' links at `--base-url` without
/// running anything.
pub fn run(args: &[String]) -> Result<ExitCode> {
    let options = Options::parse(args)?;
    let labs = root().join("docs").join("labs");
    let banners = banners(&labs.join(BANNERS))?;
    if options.links_only {
        for handout in handouts(&labs)? {
            let text = std::fs::read_to_string(&handout).map_err(|e| format!("{}: {e}", handout.display()))?;
            write(&handout, &rebase(&text, &options.base_url, &banners)?)?;
            println!("labs: pointed the links of {} at {}", handout.display(), options.base_url);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let cli = release_cli()?;
    let steps = steps(&labs.join("experiments"))?;
    let rows = run_jobs(
        &steps,
        2,
        |step| format!("step {}", step.id),
        |(row, _): &(Row, Memory)| row.step.clone(),
        |step| row(&cli, step, &banners),
    );
    let (rows, memory): (Vec<Row>, Vec<Memory>) =
        rows.into_iter().collect::<Result<Vec<(Row, Memory)>>>()?.into_iter().unzip();
    for handout in handouts(&labs)? {
        let name = handout.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        let lab = name.chars().next().unwrap_or_default();
        let own: Vec<Row> = rows.iter().filter(|row| row.step.starts_with(lab)).cloned().collect();
        if own.is_empty() {
            return Err(format!("{name}: no experiment file docs/labs/experiments/{lab}*.json"));
        }
        let text = std::fs::read_to_string(&handout).map_err(|e| format!("{}: {e}", handout.display()))?;
        let mut text = FIGURES.replace(&text, &table(&own, &options.base_url));
        if text.contains(PUBLISHED.begin) {
            text = PUBLISHED.replace(&text, &published(&cli)?);
        }
        if text.contains(MEMORY.begin) {
            let lines: String = memory.iter().filter(|m| m.step.starts_with(lab)).map(Memory::markdown).collect();
            text = MEMORY.replace(&text, &format!("{MEMORY_HEAD}{lines}"));
        }
        write(&handout, &text)?;
        println!("labs: wrote docs/labs/{name} (links under {})", options.base_url);
    }
    Ok(ExitCode::SUCCESS)
}

impl Options {
    /// `--base-url URL` (default [`DEFAULT_BASE_URL`]) and `--links-only`.
    fn parse(args: &[String]) -> Result<Options> {
        let mut options = Options { base_url: DEFAULT_BASE_URL.to_owned(), links_only: false };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--base-url" => options.base_url = base_url(args.next().ok_or(USAGE)?)?,
                "--links-only" => options.links_only = true,
                _ => return Err(format!("unknown argument {arg}; {USAGE}")),
            }
        }
        Ok(options)
    }
}

impl Row {
    /// The table line, its link under `base_url`.
    fn markdown(&self, base_url: &str) -> String {
        let [simulated, core, mdm, scale] = &self.figures;
        let (step, fragment, banner) = (&self.step, &self.fragment, &self.banner);
        format!("| {step} | [open]({base_url}{fragment}{banner}) | {simulated} | {core} | {mdm} | {scale} |\n")
    }

    /// Reads back a line [`Row::markdown`] wrote, under any base URL.
    fn parse(line: &str) -> Result<Row> {
        let cells: Vec<&str> = line.trim().trim_matches('|').split('|').map(str::trim).collect();
        let [step, link, simulated, core, mdm, scale] = cells[..] else {
            return Err(format!("not a six-cell row: {line}"));
        };
        let url = link
            .strip_prefix("[open](")
            .and_then(|rest| rest.strip_suffix(')'))
            .ok_or_else(|| format!("step {step}: the link cell is not [open](URL): {link}"))?;
        let at = url.find("#x=").ok_or_else(|| format!("step {step}: the link carries no #x= experiment"))?;
        let figures = [simulated, core, mdm, scale].map(str::to_owned);
        let (fragment, banner) = url[at..].find('&').map_or((&url[at..], ""), |amp| url[at..].split_at(amp));
        Ok(Row { step: step.to_owned(), fragment: fragment.to_owned(), banner: banner.to_owned(), figures })
    }
}

/// `text` checked as the start of the instructor's URLs: http or https, no
/// query or fragment of its own, ending in `/` (one is added: the page's
/// relative URLs resolve against its directory, so `.../warplab` would load
/// the app's files from the directory above).
fn base_url(text: &str) -> Result<String> {
    let rest = text.strip_prefix("https://").or_else(|| text.strip_prefix("http://"));
    match rest {
        Some(rest) if !rest.is_empty() && !rest.starts_with('/') && !text.contains(['?', '#', ' ']) => {
            Ok(if text.ends_with('/') { text.to_owned() } else { format!("{text}/") })
        }
        _ => Err(format!("--base-url {text}: not an http:// or https:// URL without a query or fragment")),
    }
}

/// The figures table of `rows`, links under `base_url`.
fn table(rows: &[Row], base_url: &str) -> String {
    let lines: String = rows.iter().map(|row| row.markdown(base_url)).collect();
    format!("{HEAD}{lines}")
}

/// The rows of the figures table written in a handout's `text`.
fn written_rows(text: &str) -> Result<Vec<Row>> {
    let start = text.find(FIGURES.begin).ok_or("no figures table (<!-- figures:begin -->)")?;
    let stop = text[start..].find(FIGURES.end).ok_or("no <!-- figures:end --> after the table")? + start;
    let table = &text[start + FIGURES.begin.len()..stop];
    let mut lines = table.lines().filter(|line| !line.trim().is_empty());
    let mut heads = HEAD.lines();
    if lines.next() != heads.next() || lines.next() != heads.next() {
        return Err(format!("the table does not start with {HEAD}"));
    }
    lines.map(Row::parse).collect()
}

/// `text` with its figures table's links under `base_url` and their banners
/// as `banners` says, every step's fragment and figures kept.
fn rebase(text: &str, base_url: &str, banners: &Banners) -> Result<String> {
    let rows = written_rows(text)?
        .into_iter()
        .map(|row| Ok(Row { banner: banner_of(banners, &row.step)?, ..row }))
        .collect::<Result<Vec<Row>>>()?;
    Ok(FIGURES.replace(text, &table(&rows, base_url)))
}

/// Step `step`'s banner parameters.
fn banner_of(banners: &Banners, step: &str) -> Result<String> {
    banners.get(step).cloned().ok_or_else(|| format!("step {step}: no banner in docs/labs/{BANNERS}"))
}

/// Every step's banner parameters from `path`: `{"labs": {"1": "Lab 1: ..."},
/// "steps": {"1a": {"watch": "...", "panel": "report-panel"}}}`, each step's
/// lab its id's first character, each panel one of the page's sections.
fn banners(path: &Path) -> Result<Banners> {
    let name = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    let json: Value = serde_json::from_str(&text).map_err(|e| format!("{name}: {e}"))?;
    let steps = json["steps"].as_object().ok_or_else(|| format!("{name}: no \"steps\" object"))?;
    let mut banners = Banners::new();
    for (step, banner) in steps {
        let lab_id = step.get(..1).unwrap_or_default();
        let lab = json["labs"][lab_id].as_str().ok_or_else(|| format!("{name}: no lab {lab_id:?} for step {step}"))?;
        let watch = banner["watch"].as_str().ok_or_else(|| format!("{name}: step {step} has no \"watch\""))?;
        let panel = banner["panel"].as_str().filter(|panel| PANELS.contains(panel));
        let panel = panel.ok_or_else(|| format!("{name}: step {step}'s \"panel\" is not one of {PANELS:?}"))?;
        let params = [("lab", lab), ("step", step.as_str()), ("watch", watch), ("panel", panel)];
        banners.insert(
            step.clone(),
            params.iter().map(|(key, value)| format!("&{key}={}", percent_encode(value))).collect(),
        );
    }
    Ok(banners)
}

/// `text` with every byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`) as
/// `%XX`, so a value holds no `&`, `#`, `)` or space to end the link early.
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|byte| {
            if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
                char::from(byte).to_string()
            } else {
                format!("%{byte:02X}")
            }
        })
        .collect()
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

/// One step's link and figures to one decimal. The scale-model figure is
/// stated only for experiments that choose their scale models (the lab is
/// about them); otherwise `--no-scale` skips the slow part. Where the
/// scale-model rule gives no prediction, the cell says so.
fn row(cli: &Path, step: &Step, banners: &Banners) -> Result<(Row, Memory)> {
    let file = step.file.to_str().ok_or("an experiment path is not UTF-8")?;
    let cli = cli.to_str().ok_or("the CLI's path is not UTF-8")?;
    let fragment = output(&mut command(cli, &["experiment", "link", file]))?.trim().to_owned();
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
    let scale = if !states_scale {
        NOT_STATED.to_owned()
    } else if report["scale"]["no_prediction"].is_string() {
        NO_PREDICTION.to_owned()
    } else {
        figure(&report["scale"]["ipc"], &format!("scale-model IPC ({})", report["scale"]["error"]))?
    };
    let banner = banner_of(banners, &step.id)?;
    let memory = memory(&report).ok_or_else(|| format!("step {}: no cycles, issue slots or cache pass", step.id))?;
    let row = Row { step: step.id.clone(), fragment, banner, figures: [simulated, core, mdm, scale] };
    Ok((row, Memory { step: step.id.clone(), figures: memory }))
}

/// The memory figures of a `run --experiment --json` report, summed over its
/// kernels (the DRAM sectors per request weighted by each kernel's requests).
fn memory(report: &Value) -> Option<[String; 4]> {
    let cycles = report["simulated"]["cycles"].as_u64()?;
    let bank_conflicts = report["simulated"]["shmem_bank_conflict_cycles"].as_u64()?;
    let (mut requests, mut sectors) = (0u64, 0.0);
    for kernel in report["analytical"]["kernels"].as_array()? {
        let caches = &kernel["caches"];
        let own = caches["read_requests"].as_u64()? + caches["write_requests"].as_u64()?;
        requests += own;
        sectors += caches["dram_sectors_per_request"].as_f64()? * own as f64;
    }
    let per_request = if requests == 0 { 0.0 } else { sectors / requests as f64 };
    Some([grouped(cycles), grouped(requests), format!("{per_request:.2}"), grouped(bank_conflicts)])
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

#[cfg(test)]
mod tests {
    //! The handouts' tables re-pointed at an instructor's host, and the page
    //! labels the handouts quote. Both read the written handouts and the web
    //! crate's sources only, so they run in `cargo test` in a moment.

    use super::*;

    /// The quoting convention of docs/labs/README.md: a page label is
    /// written in **bold**, as the page writes it; nothing else is bold.
    const CONVENTION: &str = "docs/labs/README.md, \"How the handouts name the page\"";

    fn handout_texts() -> Vec<(String, String)> {
        let dir = root().join("docs").join("labs");
        let mut files = handouts(&dir).expect("docs/labs lists");
        files.push(dir.join("README.md"));
        files
            .into_iter()
            .map(|path| {
                let name = path.strip_prefix(root()).unwrap_or(&path).display().to_string();
                (name, std::fs::read_to_string(&path).expect("a handout reads"))
            })
            .collect()
    }

    fn committed_banners() -> Banners {
        banners(&root().join("docs").join("labs").join(BANNERS)).expect("docs/labs/banners.json reads")
    }

    fn options(args: &[&str]) -> Result<Options> {
        Options::parse(&args.iter().map(|arg| (*arg).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn base_url_points_every_link_at_the_instructors_host_with_the_same_experiment() {
        let hosted = options(&["--base-url", "https://example.org/warplab/"]).expect("parses");
        assert_eq!(hosted.base_url, "https://example.org/warplab/");
        let local = options(&[]).expect("parses");
        assert_eq!(local, Options { base_url: DEFAULT_BASE_URL.to_owned(), links_only: false });
        let mut n_links = 0;
        for (name, text) in handout_texts().into_iter().filter(|(name, _)| !name.ends_with("README.md")) {
            let rows = written_rows(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!rows.is_empty(), "{name}: a table with rows");
            // The default writes exactly what is committed: the same writer, local links.
            let banners = committed_banners();
            let rebased = rebase(&text, &local.base_url, &banners).expect("rebases");
            assert_eq!(rebased, text, "{name}: the default links are local, with banners.json's banners");
            let moved = rebase(&text, &hosted.base_url, &banners).expect("rebases");
            for line in moved.lines().filter(|line| line.contains("[open](")) {
                assert!(line.contains("[open](https://example.org/warplab/#x="), "{name}: {line}");
                assert!(line.contains("&step="), "{name}: every link carries its step: {line}");
                assert!(!line.contains("localhost"), "{name}: {line}");
                n_links += 1;
            }
            // Same steps, same experiments (the whole fragment), same figures.
            assert_eq!(written_rows(&moved).expect("reads back"), rows, "{name}");
            // Nothing outside the table moved.
            let outside = |text: &str| FIGURES.replace(text, "");
            assert_eq!(outside(&moved), outside(&text), "{name}: only the table changes");
            // And back: re-pointing is lossless.
            assert_eq!(rebase(&moved, &local.base_url, &banners).expect("rebases"), text, "{name}");
        }
        assert!(n_links >= 20, "every step's link was re-pointed ({n_links})");
    }

    #[test]
    fn memory_figures_sum_the_kernels_and_weight_their_dram_sectors() {
        let report: Value = serde_json::json!({
            "simulated": { "cycles": 13104, "shmem_bank_conflict_cycles": 253952 },
            "analytical": { "kernels": [
                { "caches": { "read_requests": 32768, "write_requests": 262144, "dram_sectors_per_request": 0.5 } },
                { "caches": { "read_requests": 1000, "write_requests": 0, "dram_sectors_per_request": 2.0 } }
            ] }
        });
        let expect = (0.5 * 294_912.0 + 2.0 * 1000.0) / 295_912.0;
        assert_eq!(
            memory(&report),
            Some(["13,104".into(), "295,912".into(), format!("{expect:.2}"), "253,952".into()])
        );
        assert_eq!(memory(&serde_json::json!({ "simulated": { "cycles": 1 } })), None, "a figure missing");
        let line = Memory { step: "4a".into(), figures: ["1".into(), "2".into(), "0.50".into(), "3".into()] };
        assert_eq!(line.markdown(), "| 4a | 1 | 2 | 0.50 | 3 |\n");
        assert_eq!(MEMORY_HEAD.lines().next().map(|head| head.matches('|').count()), Some(6));
    }

    #[test]
    fn a_base_url_must_be_a_web_address_and_gets_its_closing_slash() {
        let parsed = |args: &[&str]| options(args).map(|o| o.base_url);
        assert_eq!(parsed(&["--base-url", "https://example.org/warplab"]), Ok("https://example.org/warplab/".into()));
        assert_eq!(parsed(&["--base-url", "http://10.0.0.2:9000/"]), Ok("http://10.0.0.2:9000/".into()));
        for bad in
            ["example.org/warplab/", "ftp://example.org/", "https://", "https://example.org/?x=1", "https://a/#x="]
        {
            assert!(parsed(&["--base-url", bad]).is_err(), "{bad} is refused");
        }
        assert!(options(&["--base-url"]).is_err(), "a missing URL is refused");
        assert!(options(&["--base"]).is_err(), "an unknown argument is refused");
        assert_eq!(options(&["--links-only"]).map(|o| o.links_only), Ok(true));
    }

    #[test]
    fn a_row_reads_back_as_written() {
        let row = Row {
            step: "3c".into(),
            fragment: "#x=5LY9".into(),
            banner: "&step=3c".into(),
            figures: ["9.8".into(), "191.3".into(), "375.9".into(), NO_PREDICTION.into()],
        };
        let line = row.markdown("https://example.org/w/");
        assert_eq!(
            line,
            "| 3c | [open](https://example.org/w/#x=5LY9&step=3c) | 9.8 | 191.3 | 375.9 | no prediction |\n"
        );
        assert_eq!(Row::parse(&line), Ok(row.clone()));
        let bare = Row { banner: String::new(), ..row };
        assert_eq!(Row::parse(&bare.markdown("https://example.org/w/")), Ok(bare), "a link without a banner");
        assert!(Row::parse("| 3c | [open](https://example.org/w/) | 1 | 2 | 3 | 4 |").is_err(), "no experiment");
        assert!(Row::parse("| 3c | 1 | 2 |").is_err(), "too few cells");
    }

    #[test]
    fn every_step_has_a_banner_naming_its_lab_and_a_panel_of_the_page() {
        let banners = committed_banners();
        let experiments = steps(&root().join("docs").join("labs").join("experiments")).expect("the steps list");
        assert!(experiments.len() >= 20, "{} steps", experiments.len());
        for step in &experiments {
            let banner = banner_of(&banners, &step.id).expect("every step has a banner");
            assert!(banner.starts_with("&lab=Lab%20"), "{}: {banner}", step.id);
            assert!(banner.contains(&format!("&step={}&", step.id)), "{}: {banner}", step.id);
        }
        // The page's sections, as section_nav.rs lists them.
        let nav = root().join("crates/web/src/components/section_nav.rs");
        let page = literals(&std::fs::read_to_string(nav).expect("section_nav.rs reads"));
        for panel in PANELS {
            assert!(page.iter().any(|text| text == panel), "{panel} is not a section of the page");
        }
        // The page's decoder (lab_step.rs) pins the same text.
        let lab1 = [("lab", "Lab 1: memory divergence"), ("watch", "the L1-miss latency chart")];
        let encoded: Vec<String> = lab1.iter().map(|(key, value)| format!("{key}={}", percent_encode(value))).collect();
        assert_eq!(encoded, ["lab=Lab%201%3A%20memory%20divergence", "watch=the%20L1-miss%20latency%20chart"]);
        assert_eq!(percent_encode("a&b#c)d"), "a%26b%23c%29d");
    }

    /// A step whose banner asks to watch a replay ("replayed at N cycles/s")
    /// opens with that replay speed, slower than the page's default of 1,000
    /// cycles/s, so Replay plays what the step asks about at a pace the eye
    /// can follow without the student choosing a speed (issue 42: lab links
    /// set a replay speed at which a run is visible).
    #[test]
    fn every_step_asking_for_a_replay_opens_at_the_speed_its_banner_names() {
        let json: Value = serde_json::from_str(
            &std::fs::read_to_string(root().join("docs").join("labs").join(BANNERS)).expect("banners.json reads"),
        )
        .expect("banners.json is JSON");
        let experiments = steps(&root().join("docs").join("labs").join("experiments")).expect("the steps list");
        let mut replayed = 0;
        for step in &experiments {
            let watch = json["steps"][&step.id]["watch"].as_str().expect("every step has a banner");
            let text = std::fs::read_to_string(&step.file).expect("an experiment file reads");
            let experiment: Value = serde_json::from_str(&text).expect("an experiment file is JSON");
            let speed = experiment["view"]["replay_speed"].as_u64().unwrap_or(0);
            let Some((_, named)) = watch.split_once("replayed at ") else { continue };
            replayed += 1;
            let named = named.split_once(" cycles/s").map(|(n, _)| n.replace(',', ""));
            assert_eq!(named, Some(speed.to_string()), "step {}: the banner says {watch:?}", step.id);
            assert!((1..1_000).contains(&speed), "step {}: replay_speed {speed} is not slow", step.id);
        }
        assert!(replayed >= 1, "a step asks to watch a replay");
    }

    #[test]
    fn every_page_label_a_handout_quotes_is_on_the_page() {
        let page: Vec<String> = PAGE_SOURCES.iter().flat_map(|source| page_texts(&root().join(source))).collect();
        assert!(page.len() > 500, "the web crate's strings were read ({})", page.len());
        let mut missing = Vec::new();
        let mut n_labels = 0;
        for (name, text) in handout_texts() {
            for label in quoted_labels(&text) {
                n_labels += 1;
                if !page.iter().any(|shown| shows(shown, &label)) {
                    missing.push(format!("{name}: **{label}**"));
                }
            }
        }
        assert!(n_labels >= 30, "the handouts quote the page ({n_labels} labels)");
        assert!(missing.is_empty(), "labels not on the page (see {CONVENTION}):\n{}", missing.join("\n"));
    }

    #[test]
    fn labels_are_read_from_bold_text_and_page_strings_from_literals() {
        let text = "Press **Run**, then **Load the paper’s\npublished benchmarks**.\n<!-- published:begin -->\n**3.23%**\n<!-- published:end -->\n";
        assert_eq!(quoted_labels(text), ["Run", "Load the paper’s published benchmarks"]);
        let source = r##"// "not this"
            html! { <h2 title="A tip">{ "Scale model" }</h2> { format!("Prediction of {target} SMs") } }
            let c = '"'; let s = "a \"quoted\" \
                 word"; let r = r#"raw "one""#; fn f<'a>(x: &'a str) {}"##;
        assert_eq!(
            literals(source),
            ["A tip", "Scale model", "Prediction of {target} SMs", "a \"quoted\" word", "raw \"one\""]
        );
        assert!(shows("Scale model", "scale model"));
        assert!(shows("GPU: ", "GPU"));
        assert!(shows("Load the paper's published benchmarks", "Load the paper’s published benchmarks"));
        assert!(shows("Prediction of {target} SMs from {} and {} SMs", "Prediction of 128 SMs from 8 and 16 SMs"));
        assert!(!shows("Prediction of {target} SMs", "Prediction of 128 GPUs"));
        assert!(!shows("Scale model panel", "Scale model"), "a label is a whole string, not a part of one");
        assert!(!shows("{}", "Scale model"), "a bare placeholder names nothing");
        assert!(!shows("{n} / {m}", "Scale model"));
        assert!(!shows("{} at {} {}", "The strip at the top"), "the string's own words are too few");
        assert!(shows("{} as published: ", "MDM as published"));
        assert!(!shows("report", "Report"), "a lowercase word may be an id: its case counts");
        assert!(shows("structural", "structural"));
        assert!(shows("Scaling chart", "scaling chart"));
        assert!(!shows("Scaling chart", "scaling Chart"), "only the first letter's case is free");
        assert!(!shows("l1_mshrs", "L1 MSHRs slider"));
    }

    /// The bold spans of a handout, outside the generated sections
    /// (`<!-- x:begin -->` … `<!-- x:end -->`, whose bold figures are not labels),
    /// with their whitespace collapsed.
    fn quoted_labels(text: &str) -> Vec<String> {
        let mut prose = String::new();
        let mut rest = text;
        while let Some(open) = rest.find("<!-- ") {
            prose.push_str(&rest[..open]);
            let close = rest[open..].find(" -->").map_or(rest.len(), |at| open + at + " -->".len());
            let comment = &rest[open..close];
            let end = comment.strip_suffix(":begin -->").map(|name| format!("{name}:end -->"));
            rest = match end.and_then(|end| rest[close..].find(&end).map(|at| close + at + end.len())) {
                Some(after_section) => &rest[after_section..],
                None => &rest[close..],
            };
        }
        prose.push_str(rest);
        prose
            .split("**")
            .skip(1)
            .step_by(2)
            .map(|label| label.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    }

    /// Where the page's words are written: the web crate, and the config
    /// crate's grouped view of a GPU, which the page renders as it is.
    const PAGE_SOURCES: [&str; 2] = ["crates/web/src", "crates/config/src/summary.rs"];

    /// Every string literal of `path`, a `.rs` file or every one under a
    /// directory: the page's headings, buttons, legends, chart labels and tooltips.
    fn page_texts(path: &Path) -> Vec<String> {
        if path.is_file() {
            return literals(&std::fs::read_to_string(path).expect("a source reads"));
        }
        let mut texts = Vec::new();
        for entry in std::fs::read_dir(path).expect("the web sources list").flatten() {
            let path = entry.path();
            if path.is_dir() {
                texts.extend(page_texts(&path));
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                texts.extend(literals(&std::fs::read_to_string(&path).expect("a source reads")));
            }
        }
        texts
    }

    /// The string literals of Rust `source`, unescaped, comments and
    /// character literals skipped.
    fn literals(source: &str) -> Vec<String> {
        let chars: Vec<char> = source.chars().collect();
        let mut out = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            match (chars[i], chars.get(i + 1).copied()) {
                ('/', Some('/')) => i = chars[i..].iter().position(|&c| c == '\n').map_or(chars.len(), |n| i + n),
                ('/', Some('*')) => {
                    i = (i + 2..chars.len()).find(|&j| chars[j - 1] == '*' && chars[j] == '/').unwrap_or(i) + 1
                }
                // A character literal ('"', '\'', '\u{..}'); otherwise a lifetime.
                ('\'', Some('\\')) => i = (i + 3..chars.len()).find(|&j| chars[j] == '\'').unwrap_or(i) + 1,
                ('\'', Some(_)) if chars.get(i + 2) == Some(&'\'') => i += 3,
                ('r', Some('"' | '#')) if i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') => {
                    let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
                    let open = i + 1 + hashes;
                    if chars.get(open) != Some(&'"') {
                        i += 1;
                        continue;
                    }
                    let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
                    let body: String = chars[open + 1..].iter().collect();
                    let len = body.find(&close).unwrap_or(body.len());
                    out.push(body[..len].to_owned());
                    i = open + 1 + body[..len].chars().count() + close.chars().count();
                }
                ('"', _) => {
                    let mut text = String::new();
                    i += 1;
                    while i < chars.len() && chars[i] != '"' {
                        if chars[i] == '\\' {
                            i += 1;
                            match chars.get(i) {
                                Some('n') => text.push('\n'),
                                Some('t') => text.push('\t'),
                                // A line continuation drops the newline and the indent after it.
                                Some('\n') => {
                                    while chars.get(i + 1).is_some_and(|c| c.is_whitespace()) {
                                        i += 1;
                                    }
                                }
                                Some(&c) => text.push(c),
                                None => {}
                            }
                        } else {
                            text.push(chars[i]);
                        }
                        i += 1;
                    }
                    out.push(text);
                    i += 1;
                }
                _ => i += 1,
            }
        }
        out
    }

    /// Whether the page string `shown` is the label `label`: the same words,
    /// typographic apostrophes and a closing colon aside. A handout may
    /// change the case of a phrase's first letter (at the start of a
    /// sentence), but not of a lowercase word with no space, which may be an
    /// id or a CSS class rather than text. `{...}` in a formatted string
    /// stands for a value, in a string whose own words are at least half the
    /// label's letters.
    fn shows(shown: &str, label: &str) -> bool {
        let normal = |text: &str| {
            let words = text.replace('’', "'").split_whitespace().collect::<Vec<_>>().join(" ");
            words.trim_end_matches(':').trim_end().to_owned()
        };
        let (mut shown, mut label) = (normal(shown), normal(label));
        if shown.contains(' ') || shown.starts_with(char::is_uppercase) {
            let first_lower = |text: &str| {
                let mut chars = text.chars();
                chars.next().map(|c| c.to_lowercase().chain(chars).collect::<String>()).unwrap_or_default()
            };
            (shown, label) = (first_lower(&shown), first_lower(&label));
        }
        if !shown.contains('{') {
            return shown == label;
        }
        // A format string: its literal pieces, in order, anchored at both ends.
        let mut pieces = Vec::new();
        let mut rest = shown.as_str();
        while let Some(open) = rest.find('{') {
            pieces.push(&rest[..open]);
            rest = rest[open..].find('}').map_or("", |close| &rest[open + close + 1..]);
        }
        pieces.push(rest);
        let letters = |text: &str| text.chars().filter(|c| c.is_alphanumeric()).count();
        if 2 * pieces.iter().map(|piece| letters(piece)).sum::<usize>() < letters(&label) {
            return false;
        }
        let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
        let Some(mut tail) = label.strip_prefix(first) else { return false };
        for piece in &pieces[1..pieces.len() - 1] {
            let Some(at) = tail.find(piece) else { return false };
            tail = &tail[at + piece.len()..];
        }
        tail.ends_with(last)
    }
}
