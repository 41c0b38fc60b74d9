//! `cargo xtask validate-models`: the analytical models against the timing
//! model, a recorded run (not part of `cargo xtask test`).
//!
//! It builds the release CLI and runs `warplab run --json` (simulated IPC)
//! and `warplab predict --json` (every model) for the seventeen generators on
//! four GPUs, then the MDM paper's design-space sweeps (NoC and DRAM
//! bandwidth, MSHRs, SM count) over the memory-divergent kernels on its GPU
//! and the same four over three barrier-heavy kernels on SM7_QV100, two
//! processes at a time. It writes the tables into `docs/validation.md`
//! between the markers below (replacing what the previous run wrote) and one
//! SVG plot per sweep into `docs/`.

use crate::parallel::run_jobs;
use crate::plot::{Chart, Panel, Series};
use crate::recorded::made_now;
use crate::shell::{Result, cli_json, release_cli, root};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

/// The configs of the main table.
const CONFIGS: [&str; 4] = ["SM7_QV100", "SM86_RTX3070", "SM80_A100", "mdm-pascal-28sm"];

/// The memory-divergent teaching kernels (the MDM paper's kind of workload).
const DIVERGENT: [&str; 3] = ["strided:gs=32", "bfs", "spmv-csr"];
/// The kernels that are not memory-divergent: the other teaching kernels
/// and the microbenchmarks.
const NON_DIVERGENT: [&str; 14] = [
    "vecadd",
    "strided:gs=1",
    "strided:gs=8",
    "gemm-naive",
    "gemm-tiled",
    "stencil2d",
    "reduction",
    "histogram",
    "pchase-l1",
    "pchase-l2",
    "bw-l1",
    "bw-l2",
    "bw-dram",
    "maxflops",
];

/// Barrier-heavy kernels whose sweeps on SM7_QV100 check the trends.
const BARRIER_KERNELS: [&str; 3] = ["gemm-tiled", "stencil2d", "reduction"];

/// The models as `warplab predict --json` names them, and as the papers do
/// (the last is warplab's variant, beyond the papers).
const MODELS: [(&str, &str); N_MODELS] = [
    ("gpumech", "GPUMech"),
    ("gpumech+", "GPUMech+"),
    ("mdm-queue", "MDM-Queue"),
    ("mdm-mshr", "MDM-MSHR"),
    ("mdm", "MDM"),
    ("gpumech-md1", "GPUMech M/D/1"),
    ("mdm-limits", "MDM + limits"),
    ("warplab", "warplab core model"),
];
const N_MODELS: usize = 8;

/// The cache counts compared between the run and the profile's cache pass:
/// L1 read sector lookups, L1 read misses, L2 misses that read DRAM.
const CACHE_COUNTS: usize = 3;

/// The sweeps: the MDM paper's Figs. 6–9 over its divergent kernels on its
/// GPU, and the same four over barrier-heavy kernels on SM7_QV100.
const SWEEPS: [Sweep; 8] = [
    sweep(
        "mdm-pascal-28sm",
        &DIVERGENT,
        "noc_bw_scale",
        &["0.25", "0.5", "1", "2"],
        "NoC bandwidth",
        "validation-noc.svg",
    ),
    sweep(
        "mdm-pascal-28sm",
        &DIVERGENT,
        "dram_bw_scale",
        &["0.25", "0.5", "1", "2"],
        "DRAM bandwidth",
        "validation-dram.svg",
    ),
    sweep(
        "mdm-pascal-28sm",
        &DIVERGENT,
        "l1_mshrs",
        &["8", "16", "32", "64", "128", "256"],
        "MSHR entries",
        "validation-mshr.svg",
    ),
    sweep("mdm-pascal-28sm", &DIVERGENT, "n_sms", &["7", "14", "28", "56"], "SM count", "validation-sms.svg"),
    sweep(
        "SM7_QV100",
        &BARRIER_KERNELS,
        "noc_bw_scale",
        &["0.25", "0.5", "1", "2"],
        "NoC bandwidth",
        "validation-qv100-noc.svg",
    ),
    sweep(
        "SM7_QV100",
        &BARRIER_KERNELS,
        "dram_bw_scale",
        &["0.25", "0.5", "1", "2"],
        "DRAM bandwidth",
        "validation-qv100-dram.svg",
    ),
    sweep(
        "SM7_QV100",
        &BARRIER_KERNELS,
        "l1_mshrs",
        &["64", "128", "256", "512"],
        "MSHR entries",
        "validation-qv100-mshr.svg",
    ),
    sweep("SM7_QV100", &BARRIER_KERNELS, "n_sms", &["20", "40", "80", "160"], "SM count", "validation-qv100-sms.svg"),
];

/// The MDM paper's goals (issue 24): MDM's mean absolute error per group.
const MDM_GOAL_DIVERGENT: f64 = 25.0;
const MDM_GOAL_NON_DIVERGENT: f64 = 20.0;
/// Issue 39's goals for the headline model: mean absolute error over every
/// case, on each GPU, and the largest.
const HEADLINE_GOAL_MEAN: f64 = 10.0;
const HEADLINE_GOAL_PER_GPU: f64 = 15.0;
const HEADLINE_GOAL_MAX: f64 = 30.0;
/// The model the page leads with (`warplab predict --json`'s `headline`).
const HEADLINE: &str = "warplab";

/// Accel-Sim's runs of the teaching kernels at these sizes (issue 24), and
/// the preset each of its pinned config directories is.
const ACCELSIM_RUNS: &str = "crates/lab/test_data/accelsim/models.jsonl";
const ACCELSIM_CONFIGS: [(&str, &str); 2] =
    [("configs/pascal28_mdm", "mdm-pascal-28sm"), ("configs/qv100_accelsim", "SM7_QV100")];

const BEGIN: &str = "<!-- model-validation:begin -->";
const END: &str = "<!-- model-validation:end -->";

/// Workers: the machine has two cores.
const PARALLEL: usize = 2;

struct Sweep {
    config: &'static str,
    kernels: &'static [&'static str],
    knob: &'static str,
    values: &'static [&'static str],
    title: &'static str,
    file: &'static str,
}

const fn sweep(
    config: &'static str,
    kernels: &'static [&'static str],
    knob: &'static str,
    values: &'static [&'static str],
    title: &'static str,
    file: &'static str,
) -> Sweep {
    Sweep { config, kernels, knob, values, title, file }
}

impl Sweep {
    /// The case of `spec` at `value`.
    fn case(&self, spec: &'static str, value: &'static str) -> Case {
        Case { config: self.config, spec, knob: Some((self.knob, value)) }
    }
}

/// One workload on one config, with at most one knob set.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Case {
    config: &'static str,
    spec: &'static str,
    knob: Option<(&'static str, &'static str)>,
}

impl Case {
    fn plain(config: &'static str, spec: &'static str) -> Self {
        Self { config, spec, knob: None }
    }

    fn describe(&self) -> String {
        match self.knob {
            Some((knob, value)) => format!("{} on {} with {knob}={value}", self.spec, self.config),
            None => format!("{} on {}", self.spec, self.config),
        }
    }
}

/// What the two commands said about a case.
#[derive(Debug, Clone, Default)]
struct Outcome {
    simulated: f64,
    /// In the order of [`MODELS`].
    models: [f64; N_MODELS],
    /// The run's and the cache pass's counts ([`CACHE_COUNTS`]).
    run_caches: [f64; CACHE_COUNTS],
    pass_caches: [f64; CACHE_COUNTS],
}

impl Outcome {
    /// Each model's signed error against the simulation, in percent.
    fn errors(&self) -> [f64; N_MODELS] {
        self.models.map(|ipc| signed_error(ipc, self.simulated))
    }
}

/// The CLI command a job runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tool {
    Run,
    Predict,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Self::Run => "run",
            Self::Predict => "predict",
        }
    }
}

/// Builds the CLI, runs every case and writes the docs.
pub fn run() -> Result<ExitCode> {
    let cli = release_cli()?;
    let cases = cases();
    let jobs: Vec<(Case, Tool)> =
        cases.iter().flat_map(|case| [(case.clone(), Tool::Run), (case.clone(), Tool::Predict)]).collect();
    eprintln!("validate-models: {} cases, {} commands, {PARALLEL} at a time", cases.len(), jobs.len());
    let results = run_all(&cli, &jobs)?;
    let mut outcomes: BTreeMap<Case, Outcome> = BTreeMap::new();
    for ((case, tool), value) in jobs.into_iter().zip(results) {
        let outcome = outcomes.entry(case).or_default();
        match tool {
            Tool::Run => {
                outcome.simulated = value[0];
                outcome.run_caches.copy_from_slice(&value[1..]);
            }
            Tool::Predict => {
                outcome.models.copy_from_slice(&value[..N_MODELS]);
                outcome.pass_caches.copy_from_slice(&value[N_MODELS..]);
            }
        }
    }
    let docs = root().join("docs");
    let mut section = main_tables(&outcomes);
    section += &accelsim_table(&outcomes, &accelsim_runs()?);
    for sweep in &SWEEPS {
        section += &sweep_tables(sweep, &outcomes);
        let svg = sweep_chart(sweep, &outcomes).svg();
        write(&docs.join(sweep.file), &svg)?;
    }
    let path = docs.join("validation.md");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    write(&path, &replace_between_markers(&text, &header()?, &section))?;
    println!("validate-models: wrote docs/validation.md and {}", SWEEPS.map(|s| format!("docs/{}", s.file)).join(", "));
    Ok(ExitCode::SUCCESS)
}

/// Every case: each kernel on each config, then the sweeps (a sweep value
/// equal to the config's own is still run with `--set`, so each sweep is
/// self-contained).
fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for config in CONFIGS {
        cases.extend(DIVERGENT.iter().chain(&NON_DIVERGENT).map(|spec| Case::plain(config, spec)));
    }
    for sweep in &SWEEPS {
        for &spec in sweep.kernels {
            cases.extend(sweep.values.iter().map(|&v| sweep.case(spec, v)));
        }
    }
    cases
}

/// Runs `jobs` on [`PARALLEL`] threads, printing each as it finishes; each
/// result is `[simulated IPC]` or the five models' IPCs.
fn run_all(cli: &Path, jobs: &[(Case, Tool)]) -> Result<Vec<Vec<f64>>> {
    let results = run_jobs(
        jobs,
        PARALLEL,
        |(case, tool)| format!("{} {}", tool.name(), case.describe()),
        |values: &Vec<f64>| format!("IPC {}", values.iter().map(|v| format!("{v:.1}")).collect::<Vec<_>>().join(" ")),
        |(case, tool)| run_one(cli, case, *tool),
    );
    let mut values = Vec::with_capacity(jobs.len());
    let mut failures = Vec::new();
    for ((case, tool), result) in jobs.iter().zip(results) {
        match result {
            Ok(v) => values.push(v),
            Err(error) => failures.push(format!("{} {}: {error}", tool.name(), case.describe())),
        }
    }
    if failures.is_empty() { Ok(values) } else { Err(failures.join("\n")) }
}

/// One `warplab run` or `warplab predict`, parsed.
fn run_one(cli: &Path, case: &Case, tool: Tool) -> Result<Vec<f64>> {
    let set = case.knob.map(|(knob, value)| format!("{knob}={value}"));
    let mut args = vec![tool.name(), "--config", case.config, "--gen", case.spec, "--json"];
    if let Some(set) = &set {
        args.extend(["--set", set.as_str()]);
    }
    let value = cli_json(cli, &args, case.spec)?;
    let number = |v: &serde_json::Value, what: &str| v.as_f64().ok_or_else(|| format!("its JSON has no number {what}"));
    match tool {
        Tool::Run => {
            let mut out = vec![number(&value["ipc"], "ipc")?];
            out.extend(run_caches(&value)?);
            Ok(out)
        }
        Tool::Predict => {
            let mut out: Vec<f64> =
                MODELS.iter().map(|(name, _)| number(&value["models"][name]["ipc"], name)).collect::<Result<_>>()?;
            out.extend(pass_caches(&value)?);
            Ok(out)
        }
    }
}

/// A run's L1 read lookups and misses (hits, pending hits, misses and
/// sector misses; reservation failures are retries) and its L2 read and
/// atomic misses.
fn run_caches(run: &serde_json::Value) -> Result<[f64; CACHE_COUNTS]> {
    let count = |v: &serde_json::Value| v.as_f64().ok_or_else(|| "its JSON has no cache count".to_owned());
    let outcomes =
        |kind: &serde_json::Value, names: &[&str]| -> Result<f64> { names.iter().map(|n| count(&kind[n])).sum() };
    let l1 = &run["l1d"]["reads"];
    let misses = ["miss", "sector_miss"];
    Ok([
        outcomes(l1, &["hit", "hit_reserved", "miss", "sector_miss"])?,
        outcomes(l1, &misses)?,
        outcomes(&run["l2"]["reads"], &misses)? + outcomes(&run["l2"]["atomics"], &misses)?,
    ])
}

/// The cache pass's counts, summed over the kernels.
fn pass_caches(predict: &serde_json::Value) -> Result<[f64; CACHE_COUNTS]> {
    let kernels = predict["kernels"].as_array().ok_or("its JSON has no kernels")?;
    let mut out = [0.0; CACHE_COUNTS];
    for kernel in kernels {
        let caches = &kernel["caches"];
        for (slot, name) in out.iter_mut().zip(["l1_reads", "l1_read_misses", "l2_misses"]) {
            *slot += caches[name].as_f64().ok_or_else(|| format!("its JSON has no caches.{name}"))?;
        }
    }
    Ok(out)
}

fn signed_error(predicted: f64, simulated: f64) -> f64 {
    if simulated > 0.0 { 100.0 * (predicted - simulated) / simulated } else { f64::NAN }
}

fn mean_abs(errors: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = errors.fold((0.0, 0), |(sum, n), e| (sum + e.abs(), n + 1));
    if n > 0 { sum / f64::from(n) } else { f64::NAN }
}

/// The generated section's first lines: what wrote it, when, at which commit.
fn header() -> Result<String> {
    Ok(format!(
        "Written by `cargo xtask validate-models` {} (release CLI; `warplab run --json` for the simulated IPC, `warplab predict --json` for the models, generators at their default sizes).\n\
         IPC is thread instructions per cycle; each model's error is signed, (model − simulated) / simulated.\n",
        made_now()?
    ))
}

fn model_header(first: &str) -> String {
    let labels: Vec<_> = MODELS.iter().map(|(_, label)| *label).collect();
    format!("| {first} | {} |\n|{}\n", labels.join(" | "), "---|".repeat(labels.len() + first.matches('|').count() + 1))
}

fn ipc_cells(outcome: &Outcome) -> String {
    let cells: Vec<_> =
        outcome.models.iter().zip(outcome.errors()).map(|(ipc, error)| format!("{ipc:.1} ({error:+.1}%)")).collect();
    cells.join(" | ")
}

fn percent_cells(values: [f64; N_MODELS]) -> String {
    values.map(|v| format!("{v:.1}%")).join(" | ")
}

/// Each model's mean absolute error over `cases`.
fn mean_errors<'a>(cases: impl Iterator<Item = &'a Outcome> + Clone) -> [f64; N_MODELS] {
    std::array::from_fn(|m| mean_abs(cases.clone().map(|o| o.errors()[m])))
}

fn outcome<'a>(outcomes: &'a BTreeMap<Case, Outcome>, case: &Case) -> &'a Outcome {
    &outcomes[case]
}

/// The per-kernel table, the mean errors per group and config, and the goals.
fn main_tables(outcomes: &BTreeMap<Case, Outcome>) -> String {
    let groups: [(&str, &[&'static str]); 2] = [("divergent", &DIVERGENT), ("non-divergent", &NON_DIVERGENT)];
    let mut out = String::from("\n### Every kernel on four GPUs\n\n");
    out += &model_header("kernel | group | config | simulated IPC");
    for (group, specs) in groups {
        for config in CONFIGS {
            for spec in specs.iter() {
                let o = outcome(outcomes, &Case::plain(config, spec));
                out += &format!("| `{spec}` | {group} | {config} | {:.1} | {} |\n", o.simulated, ipc_cells(o));
            }
        }
    }
    out += "\n### Mean absolute error per group and config\n\n";
    out += &model_header("group | config");
    let mut pooled = BTreeMap::new();
    for (group, specs) in groups {
        for config in CONFIGS {
            let errors = mean_errors(specs.iter().map(|spec| outcome(outcomes, &Case::plain(config, spec))));
            out += &format!("| {group} | {config} | {} |\n", percent_cells(errors));
        }
        let all = mean_errors(
            CONFIGS.iter().flat_map(|config| specs.iter().map(|spec| outcome(outcomes, &Case::plain(config, spec)))),
        );
        out += &format!("| {group} | all four | {} |\n", percent_cells(all));
        pooled.insert(group, all);
    }
    out += &goals(&pooled, outcomes);
    out += &cache_table(outcomes);
    out
}

/// One of Accel-Sim's recorded runs: the case it is, and its IPC.
struct AccelSimRun {
    case: Case,
    ipc: f64,
}

/// Reads [`ACCELSIM_RUNS`]: the runs whose kernel (its spec without the
/// size, which is the generator's default) and config are main-table cases.
fn accelsim_runs() -> Result<Vec<AccelSimRun>> {
    let path = root().join(ACCELSIM_RUNS);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut runs = Vec::new();
    for (index, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let run: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("{ACCELSIM_RUNS}:{}: {e}", index + 1))?;
        let field = |key: &str| run.get(key).ok_or_else(|| format!("{ACCELSIM_RUNS}:{}: no `{key}`", index + 1));
        let spec_text = field("kernel_spec")?.as_str().unwrap_or_default();
        let knobs: Vec<&str> = spec_text.split([':', ',']).filter(|part| !part.starts_with("size=")).collect();
        let dir = field("config_dir")?.as_str().unwrap_or_default();
        let config = ACCELSIM_CONFIGS.iter().find(|(d, _)| *d == dir).map(|(_, preset)| *preset);
        let spec = DIVERGENT.iter().chain(&NON_DIVERGENT).find(|s| s.split(':').eq(knobs.iter().copied()));
        let (Some(config), Some(spec)) = (config, spec) else { continue };
        let cycles = field("accelsim_cycles")?.as_f64().unwrap_or(0.0);
        let insts = field("accelsim_insn")?.as_f64().unwrap_or(0.0);
        runs.push(AccelSimRun {
            case: Case::plain(config, spec),
            ipc: if cycles > 0.0 { insts / cycles } else { 0.0 },
        });
    }
    Ok(runs)
}

/// The timing model and the models against Accel-Sim's IPC where a run is
/// recorded, and each model's mean absolute error per group.
fn accelsim_table(outcomes: &BTreeMap<Case, Outcome>, runs: &[AccelSimRun]) -> String {
    let mut out = format!(
        "\n### Against Accel-Sim's cycles\n\n\
         Real Accel-Sim (GPGPU-Sim 4.2) on the very traces, with the config files `warplab config write` gives (`{ACCELSIM_RUNS}`, \
         its README has the provenance): {} of the {} kernel-config pairs above. Errors are against Accel-Sim's IPC.\n\n",
        runs.len(),
        CONFIGS.len() * (DIVERGENT.len() + NON_DIVERGENT.len())
    );
    out += &model_header("kernel | config | Accel-Sim IPC | timing model");
    let against = |o: &Outcome, ipc: f64| o.models.map(|m| signed_error(m, ipc));
    for run in runs {
        let o = outcome(outcomes, &run.case);
        let cells = against(o, run.ipc).map(|e| format!("{e:+.1}%")).join(" | ");
        out += &format!(
            "| `{}` | {} | {:.1} | {:+.1}% | {cells} |\n",
            run.case.spec,
            run.case.config,
            run.ipc,
            signed_error(o.simulated, run.ipc)
        );
    }
    out += "\n";
    out += &model_header("group | runs | timing model");
    let groups: [(&str, Option<&[&str]>); 3] =
        [("divergent", Some(&DIVERGENT)), ("non-divergent", Some(&NON_DIVERGENT)), ("every kernel", None)];
    for (group, specs) in groups {
        let chosen: Vec<&AccelSimRun> =
            runs.iter().filter(|r| specs.is_none_or(|specs| specs.contains(&r.case.spec))).collect();
        let sim = mean_abs(chosen.iter().map(|r| signed_error(outcome(outcomes, &r.case).simulated, r.ipc)));
        let models: [f64; N_MODELS] =
            std::array::from_fn(|m| mean_abs(chosen.iter().map(|r| against(outcome(outcomes, &r.case), r.ipc)[m])));
        out += &format!("| {group} | {} | {sim:.1}% | {} |\n", chosen.len(), percent_cells(models));
    }
    out
}

/// The cache pass's counts beside the run's, kernel by kernel: the models
/// read the pass, so this is where an input differs from the machine.
fn cache_table(outcomes: &BTreeMap<Case, Outcome>) -> String {
    let mut out = String::from(
        "\n### The cache pass against the run\n\n\
         The models read the profile's functional cache pass, never the run; here are its counts beside the run's. \
         L1 reads are sector lookups (reservation failures are retries, not counted); L2 misses are, for the run, its read and atomic misses, and for the pass every miss that fetches from DRAM, write-allocate fetches of writes included (so on mdm-pascal-28sm's write-allocating L2 the pass counts vecadd's and stencil2d's store misses too).\n\n\
         | kernel | config | L1 reads (run / pass) | L1 read miss rate (run / pass) | L1 read misses, pass ÷ run | L2 misses (run / pass) | L2 misses, pass ÷ run |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for config in CONFIGS {
        for spec in DIVERGENT.iter().chain(&NON_DIVERGENT) {
            let o = outcome(outcomes, &Case::plain(config, spec));
            let ([reads, misses, l2], [p_reads, p_misses, p_l2]) = (o.run_caches, o.pass_caches);
            let rate = |m: f64, r: f64| if r > 0.0 { 100.0 * m / r } else { f64::NAN };
            let ratio = |p: f64, r: f64| if r > 0.0 { p / r } else { f64::NAN };
            out += &format!(
                "| `{spec}` | {config} | {reads:.0} / {p_reads:.0} | {:.1}% / {:.1}% | {:.2} | {l2:.0} / {p_l2:.0} | {:.2} |\n",
                rate(misses, reads),
                rate(p_misses, p_reads),
                ratio(p_misses, misses),
                ratio(p_l2, l2)
            );
        }
    }
    out
}

/// The goals beside the measured values.
fn goals(pooled: &BTreeMap<&str, [f64; N_MODELS]>, outcomes: &BTreeMap<Case, Outcome>) -> String {
    let mdm = MODELS.iter().position(|(name, _)| *name == "mdm").expect("MDM is a model");
    let gpumech = MODELS.iter().position(|(name, _)| *name == "gpumech").expect("GPUMech is a model");
    let verdict = |met: bool| if met { "met" } else { "**missed**" };
    let per_config = |specs: &[&'static str], model: usize| -> String {
        CONFIGS
            .iter()
            .map(|config| {
                let errors = mean_errors(specs.iter().map(|spec| outcome(outcomes, &Case::plain(config, spec))));
                format!("{config} {:.1}%", errors[model])
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = String::from("\n### The goals\n\n| goal | measured (all four GPUs; per GPU) | |\n|---|---|---|\n");
    for (group, specs, goal) in [
        ("divergent", &DIVERGENT[..], MDM_GOAL_DIVERGENT),
        ("non-divergent", &NON_DIVERGENT[..], MDM_GOAL_NON_DIVERGENT),
    ] {
        let measured = pooled[group][mdm];
        out += &format!(
            "| MDM mean absolute error ≤ {goal:.0}% on the {group} group | {measured:.1}% ({}) | {} |\n",
            per_config(specs, mdm),
            verdict(measured <= goal)
        );
    }
    let (g, m) = (pooled["divergent"][gpumech], pooled["divergent"][mdm]);
    out += &format!(
        "| GPUMech's error on the divergent group several times MDM's (the MDM paper: 298% against 18%, 16.6×) | GPUMech {g:.1}%, MDM {m:.1}%: {:.1}× ({}; {}) | {} |\n",
        g / m,
        per_config(&DIVERGENT, gpumech),
        per_config(&DIVERGENT, mdm),
        verdict(g >= 3.0 * m)
    );
    out += &headline_goals(outcomes);
    out += "\n\"Several times\" is read as at least 3×.\n";
    out
}

/// Issue 39's goals for the headline model over every case of the main table.
fn headline_goals(outcomes: &BTreeMap<Case, Outcome>) -> String {
    let model = MODELS.iter().position(|(name, _)| *name == HEADLINE).expect("the headline is a model");
    let label = MODELS[model].1;
    let verdict = |met: bool| if met { "met" } else { "**missed**" };
    let every: Vec<&'static str> = DIVERGENT.iter().chain(&NON_DIVERGENT).copied().collect();
    let on = |config: &'static str| every.iter().map(move |spec| outcome(outcomes, &Case::plain(config, spec)));
    let all = mean_errors(CONFIGS.iter().flat_map(|&config| on(config)))[model];
    let per_gpu: Vec<(&str, f64)> = CONFIGS.iter().map(|&c| (c, mean_errors(on(c))[model])).collect();
    let listed = per_gpu.iter().map(|(c, e)| format!("{c} {e:.1}%")).collect::<Vec<_>>().join(", ");
    let worst = CONFIGS
        .iter()
        .flat_map(|&config| every.iter().map(move |&spec| Case::plain(config, spec)))
        .map(|case| (outcome(outcomes, &case).errors()[model], case))
        .max_by(|a, b| a.0.abs().total_cmp(&b.0.abs()));
    let (worst_error, worst_case) = worst.map_or((f64::NAN, String::new()), |(e, c)| (e, c.describe()));
    format!(
        "| {label} (the headline) mean absolute error ≤ {HEADLINE_GOAL_MEAN:.0}% over all {} cases | {all:.1}% ({listed}) | {} |\n\
         | {label}: ≤ {HEADLINE_GOAL_PER_GPU:.0}% on each GPU | worst GPU {:.1}% | {} |\n\
         | {label}: no case beyond {HEADLINE_GOAL_MAX:.0}% | {worst_error:+.1}% ({worst_case}) | {} |\n",
        CONFIGS.len() * every.len(),
        verdict(all <= HEADLINE_GOAL_MEAN),
        per_gpu.iter().map(|(_, e)| *e).fold(0.0, f64::max),
        verdict(per_gpu.iter().all(|(_, e)| *e <= HEADLINE_GOAL_PER_GPU)),
        verdict(worst_error.abs() <= HEADLINE_GOAL_MAX),
    )
}

/// A sweep's tables: every point, then the mean absolute error per value.
fn sweep_tables(sweep: &Sweep, outcomes: &BTreeMap<Case, Outcome>) -> String {
    let mut out = format!(
        "\n### Sweep: {} on {} (`--set {}=N`)\n\n![IPC against {}, simulated and each model]({})\n\n",
        sweep.title, sweep.config, sweep.knob, sweep.knob, sweep.file
    );
    out += &model_header(&format!("kernel | {} | simulated IPC", sweep.knob));
    for &spec in sweep.kernels {
        for &value in sweep.values {
            let o = outcome(outcomes, &sweep.case(spec, value));
            out += &format!("| `{spec}` | {value} | {:.1} | {} |\n", o.simulated, ipc_cells(o));
        }
    }
    out += &format!("\nMean absolute error over the {} kernels:\n\n{}", sweep.kernels.len(), model_header(sweep.knob));
    for &value in sweep.values {
        let errors = mean_errors(sweep.kernels.iter().map(|&spec| outcome(outcomes, &sweep.case(spec, value))));
        out += &format!("| {value} | {} |\n", percent_cells(errors));
    }
    out + &trend_table(sweep, outcomes)
}

/// The simulator moves by more than this between two sweep points for a
/// step to count in the trend check.
const TREND_THRESHOLD: f64 = 0.02;

/// Per kernel: the simulated IPC's range over the sweep, and at how many of
/// the steps where the simulator moves by more than [`TREND_THRESHOLD`] each
/// model moves the same way.
fn trend_table(sweep: &Sweep, outcomes: &BTreeMap<Case, Outcome>) -> String {
    let mut out = format!(
        "\nTrend: the steps between neighbouring values where the simulated IPC moves by more than {:.0}%, and at how many each model moves the same way:\n\n{}",
        100.0 * TREND_THRESHOLD,
        model_header("kernel | simulated IPC range | steps")
    );
    for &spec in sweep.kernels {
        let at = |v: &'static str| outcome(outcomes, &sweep.case(spec, v));
        let steps: Vec<(&Outcome, &Outcome)> = sweep
            .values
            .windows(2)
            .map(|w| (at(w[0]), at(w[1])))
            .filter(|(a, b)| moves(a.simulated, b.simulated))
            .collect();
        let cells: Vec<String> =
            (0..N_MODELS).map(|m| format!("{} / {}", agreeing_steps(&steps, m), steps.len())).collect();
        let sims = sweep.values.iter().map(|&v| at(v).simulated);
        let (lo, hi) = sims.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
        out += &format!("| `{spec}` | {lo:.1} to {hi:.1} | {} | {} |\n", steps.len(), cells.join(" | "));
    }
    out
}

/// How many of `steps` model `m` moves the same way as the simulator.
fn agreeing_steps(steps: &[(&Outcome, &Outcome)], m: usize) -> usize {
    steps
        .iter()
        .filter(|(a, b)| {
            (b.simulated - a.simulated).signum() == (b.models[m] - a.models[m]).signum() && b.models[m] != a.models[m]
        })
        .count()
}

/// Whether IPC moves by more than [`TREND_THRESHOLD`] from `a` to `b`.
fn moves(a: f64, b: f64) -> bool {
    a > 0.0 && ((b - a) / a).abs() > TREND_THRESHOLD
}

/// A sweep value as a number for the plot's axis.
fn axis_value(value: &str) -> f64 {
    value.parse().unwrap_or(f64::NAN)
}

/// IPC against the knob, one panel per kernel.
fn sweep_chart(sweep: &Sweep, outcomes: &BTreeMap<Case, Outcome>) -> Chart {
    let panels = sweep
        .kernels
        .iter()
        .map(|&spec| {
            let points = |pick: &dyn Fn(&Outcome) -> f64| -> Vec<(f64, f64)> {
                sweep.values.iter().map(|&v| (axis_value(v), pick(outcome(outcomes, &sweep.case(spec, v))))).collect()
            };
            let mut series = vec![Series { label: "simulated".to_owned(), points: points(&|o| o.simulated) }];
            for (m, (_, label)) in MODELS.iter().enumerate() {
                series.push(Series { label: (*label).to_owned(), points: points(&|o| o.models[m]) });
            }
            Panel { title: spec.to_owned(), series }
        })
        .collect();
    Chart {
        title: format!("{} on {}: simulated IPC and the models", sweep.title, sweep.config),
        x_label: sweep.knob.to_owned(),
        y_label: "IPC (thread instructions per cycle)".to_owned(),
        x_values: sweep.values.iter().map(|&v| axis_value(v)).collect(),
        panels,
    }
}

/// `text` with what lies between the markers replaced by `header` and
/// `section`; a text without the markers gets them, and a heading, at its end.
fn replace_between_markers(text: &str, header: &str, section: &str) -> String {
    Markers { begin: BEGIN, end: END, heading: "The analytical models against the timing model" }
        .replace(text, &format!("{header}{section}"))
}

/// The comments that fence a generated section of a doc, and the heading a
/// doc without them gets.
pub struct Markers {
    pub begin: &'static str,
    pub end: &'static str,
    pub heading: &'static str,
}

impl Markers {
    /// `text` with what lies between the markers replaced by `generated`; a
    /// text without the markers gets them, under the heading, at its end.
    pub fn replace(&self, text: &str, generated: &str) -> String {
        let fenced = format!("{}\n{generated}{}", self.begin, self.end);
        match (text.find(self.begin), text.find(self.end)) {
            (Some(b), Some(e)) if b < e => format!("{}{fenced}{}", &text[..b], &text[e + self.end.len()..]),
            _ => format!("{}\n\n## {}\n\n{fenced}\n", text.trim_end(), self.heading),
        }
    }
}

pub fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_between_the_markers_is_replaced_and_the_rest_kept() {
        let fresh = replace_between_markers("# Validation\n\ntext\n", "h\n", "s\n");
        assert_eq!(
            fresh,
            format!(
                "# Validation\n\ntext\n\n## The analytical models against the timing model\n\n{BEGIN}\nh\ns\n{END}\n"
            )
        );
        let again = replace_between_markers(&format!("{fresh}after\n"), "h2\n", "t\n");
        assert_eq!(
            again,
            format!(
                "# Validation\n\ntext\n\n## The analytical models against the timing model\n\n{BEGIN}\nh2\nt\n{END}\nafter\n"
            )
        );
    }

    #[test]
    fn errors_are_signed_and_means_absolute() {
        assert_eq!(signed_error(110.0, 100.0), 10.0);
        assert_eq!(signed_error(50.0, 100.0), -50.0);
        assert_eq!(mean_abs([10.0, -30.0].into_iter()), 20.0);
        let rule = format!("|{}", "---|".repeat(2 + N_MODELS));
        assert_eq!(model_header("a | b").lines().nth(1), Some(rule.as_str()));
    }

    #[test]
    fn every_recorded_accel_sim_run_is_a_main_table_case_once() {
        let runs = accelsim_runs().expect("the records read");
        assert!(runs.len() >= 17, "{} runs", runs.len());
        let mut seen: Vec<&Case> = runs.iter().map(|r| &r.case).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), runs.len(), "one run per case");
        assert!(runs.iter().all(|r| r.ipc > 0.0));
        let gs32 = runs.iter().find(|r| r.case == Case::plain("mdm-pascal-28sm", "strided:gs=32")).expect("recorded");
        assert!((gs32.ipc - 53_084_160.0 / 1_019_532.0).abs() < 1e-9);
    }
}
