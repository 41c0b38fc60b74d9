//! `warplab run --experiment FILE | --link TEXT` (an experiment saved by the
//! page, or its share link: the three IPCs the page shows) and `warplab
//! experiment link | show` (between the JSON file and the link).

use std::fmt::Write as _;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use warplab_lab::scale::{
    Method, PlanError, ScaleOptions, ScalePlan, ScaleReport, default_scale_models, ipc_without_launch,
};
use warplab_lab::{
    AnalyticalReport, ConfigChoice, ContentHash, ContentHasher, Experiment, GpuConfig, HEADLINE, MAX_JSON_BYTES,
    MAX_LINK_BYTES, ProfileOptions, SAMPLE_TRACES, SimReport, WorkloadChoice, apply_edits, config_hash_files,
    decode_link, encode_link, trace_hash_files,
};

use crate::experiment_args::{ExperimentArgs, Workload};
use crate::kernel::KernelFile;
use crate::{predict, run, scale, trace_files};

/// `run --experiment` / `run --link`.
pub struct ExperimentRun {
    /// The experiment file (`-`: standard input).
    pub file: Option<PathBuf>,
    /// A share link instead.
    pub link: Option<String>,
    /// `--config` (the user's config files) and `--trace` (the user's trace).
    pub files: ExperimentArgs,
    /// Skip the scale-model prediction (the slow part).
    pub no_scale: bool,
    pub json: bool,
    /// Threads the simulation's SMs run on.
    pub threads: u32,
}

/// One experiment's figures.
struct Figures {
    config_label: String,
    workload_label: String,
    simulated: SimReport,
    analytical: AnalyticalReport,
    /// `None` with `--no-scale`; a plan error when the GPU cannot be divided.
    scale: Option<Result<ScaleReport, PlanError>>,
}

/// Resolves the experiment (and its baseline) and computes what the page
/// shows for it.
pub fn run(args: &ExperimentRun) -> Result<String, String> {
    let experiment = load(args)?;
    let figures = figures_of(&experiment, args)?;
    let baseline = experiment.baseline.as_deref().map(|baseline| figures_of(baseline, args)).transpose()?;
    if args.json {
        let mut value = json!({ "experiment": experiment });
        insert_figures(&mut value, &figures);
        if let Some(baseline) = &baseline {
            let mut base = json!({});
            insert_figures(&mut base, baseline);
            base["change_pct"] = change(&figures, baseline);
            value["baseline"] = base;
        }
        return crate::to_json(&value);
    }
    let mut out = text(&figures);
    if let Some(baseline) = &baseline {
        out += "\nbaseline:\n";
        out += &text(baseline);
        let change = change(&figures, baseline);
        let _ = writeln!(
            out,
            "\nchange from the baseline: simulated {}, analytical {}, scale-model {}",
            percent(&change["simulated"]),
            percent(&change["analytical"]),
            percent(&change["scale"])
        );
    }
    Ok(out)
}

/// `warplab experiment link FILE`: the `#x=` fragment of an experiment file.
pub fn link(file: &Path) -> Result<String, String> {
    let text = read_json_file(file)?;
    let experiment = Experiment::from_json(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    let link = encode_link(&experiment);
    if link.len() + 3 > MAX_LINK_BYTES {
        return Err(format!(
            "{}: the link would be {} bytes, over the {MAX_LINK_BYTES} a link may have",
            file.display(),
            link.len() + 3
        ));
    }
    Ok(format!("#x={link}\n"))
}

/// `warplab experiment show LINK`: the experiment a link carries, as JSON.
pub fn show(link: &str) -> Result<String, String> {
    decode_link(link).map(|experiment| experiment.to_json_pretty()).map_err(|e| e.to_string())
}

fn load(args: &ExperimentRun) -> Result<Experiment, String> {
    match (&args.file, &args.link) {
        (_, Some(link)) => decode_link(link).map_err(|e| e.to_string()),
        (Some(file), None) => {
            let text = read_json_file(file)?;
            Experiment::from_json(&text).map_err(|e| format!("{}: {e}", file.display()))
        }
        (None, None) => Err("give --experiment FILE or --link TEXT".to_owned()),
    }
}

/// An experiment file (`-`: standard input), refused past the size limit
/// before it is all read.
fn read_json_file(file: &Path) -> Result<String, String> {
    let name = file.display().to_string();
    let reader: Box<dyn Read> = if file == Path::new("-") {
        Box::new(std::io::stdin())
    } else {
        Box::new(File::open(file).map_err(|e| format!("{name}: {e}"))?)
    };
    let mut text = String::new();
    reader.take(MAX_JSON_BYTES as u64 + 1).read_to_string(&mut text).map_err(|e| format!("{name}: {e}"))?;
    if text.len() > MAX_JSON_BYTES {
        return Err(format!("{name}: an experiment file has at most {} KiB", MAX_JSON_BYTES / 1024));
    }
    Ok(text)
}

/// The timing model, the analytical models and (unless `--no-scale`) the
/// scale-model prediction of the experiment's target (the config's own SM
/// count unless it names one).
fn figures_of(experiment: &Experiment, args: &ExperimentRun) -> Result<Figures, String> {
    let (config_label, config) = resolve_config(experiment, &args.files)?;
    let workload = resolve_workload(&experiment.workload, &args.files)?;
    let memcpy_warms_l2 = experiment.memcpy_warms_l2;
    let options = warplab_lab::SimOptions { threads: args.threads, ..experiment.sim_options() };
    let simulated = run::simulate(&config, &workload, options)?;
    let profile = predict::profile(&config, &workload, ProfileOptions { memcpy_warms_l2 })?;
    let analytical = warplab_lab::predict(&profile, &config);
    let scale = if args.no_scale {
        None
    } else {
        let pair = experiment.scale.scale_models.or_else(|| default_scale_models(&config));
        let plan = match pair {
            Some(pair) => ScalePlan::new(&config, pair, experiment.scale.target_sms.as_slice()),
            None => Err(PlanError { reason: "no scale models were chosen".to_owned(), workable: Vec::new() }),
        };
        let options = ScaleOptions {
            rule: experiment.scale.rule,
            validate: experiment.scale.validate,
            weak: experiment.scale.weak,
            memcpy_warms_l2,
        };
        Some(match plan {
            Ok(plan) => Ok(scale::run_plan(&plan, &workload, &config, &options)?),
            Err(error) => Err(error),
        })
    };
    Ok(Figures { config_label, workload_label: workload.label(), simulated, analytical, scale })
}

/// The experiment's GPU: the preset or the user's files (`--config`, whose
/// content hash must match), with the edits applied.
fn resolve_config(experiment: &Experiment, files: &ExperimentArgs) -> Result<(String, GpuConfig), String> {
    let edits = match experiment.edits.len() {
        0 => String::new(),
        n => format!(" with {n} edit(s)"),
    };
    match &experiment.config {
        ConfigChoice::Preset(name) => {
            let config = experiment.preset_config().map_err(|e| e.to_string())?;
            let config = config.ok_or_else(|| format!("preset {name}: not read"))?;
            Ok((format!("preset {name}{edits}"), config))
        }
        ConfigChoice::Files { name, hash } => {
            if files.config.is_empty() {
                return Err(format!(
                    "the experiment runs on the user's config files `{name}` (content hash {}); give them with --config DIR",
                    String::from(*hash)
                ));
            }
            let found = config_hash(&files.config)?;
            check_hash("--config", &files.config, *hash, found)?;
            let (label, base) = files.config()?;
            let config = apply_edits(&base, &experiment.edits).map_err(|e| format!("config edits: {e}"))?;
            Ok((format!("{label}{edits}"), config))
        }
    }
}

fn resolve_workload(choice: &WorkloadChoice, files: &ExperimentArgs) -> Result<Workload, String> {
    match choice {
        WorkloadChoice::Generated(spec) => Ok(Workload::Generated(spec.clone())),
        WorkloadChoice::Sample(name) => {
            let sample = SAMPLE_TRACES
                .iter()
                .find(|sample| sample.name == name)
                .ok_or_else(|| format!("no sample trace is called `{name}`"))?;
            let dir = sample_dir(sample.dir)?;
            let (dir, list) = trace_files::list_of(&dir)?;
            Ok(Workload::Trace { label: format!("sample {name}"), dir, list })
        }
        WorkloadChoice::Trace { name, hash } => {
            let Some(path) = &files.trace else {
                return Err(format!(
                    "the experiment runs the user's trace `{name}` (content hash {}); give it with --trace DIR",
                    String::from(*hash)
                ));
            };
            let (dir, list) = trace_files::list_of(path)?;
            let names = trace_hash_files(&list).map_err(|e| format!("{}: {e}", dir.display()))?;
            let found = hash_files(names.iter().map(|name| (name.clone(), dir.join(name))))?;
            check_hash("--trace", std::slice::from_ref(path), *hash, found)?;
            Ok(Workload::Trace { label: path.display().to_string(), dir, list })
        }
        WorkloadChoice::Kernel { name, source } => {
            Ok(Workload::Authored(KernelFile::new(name.clone(), source.clone())))
        }
    }
}

/// The bundled sample directory `relative` (`sample-traces/<name>`): looked
/// for from the working directory upwards, then in the source tree this
/// binary was built from.
fn sample_dir(relative: &str) -> Result<PathBuf, String> {
    let built_from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cwd = std::env::current_dir().unwrap_or_default();
    cwd.ancestors()
        .chain(std::iter::once(built_from.as_path()))
        .map(|root| root.join(relative))
        .find(|dir| dir.join("kernelslist.g").is_file())
        .ok_or_else(|| format!("the sample trace `{relative}` was not found here or above (run from the repository)"))
}

fn check_hash(flag: &str, paths: &[PathBuf], expected: ContentHash, found: ContentHash) -> Result<(), String> {
    if expected == found {
        return Ok(());
    }
    let given: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    Err(format!(
        "{flag} {}: these files have content hash {}, but the experiment expects {}: they are not the files it was made with",
        given.join(" "),
        String::from(found),
        String::from(expected)
    ))
}

/// The content hash of the config files `--config` names: a directory's
/// config files, or the files given.
fn config_hash(specs: &[PathBuf]) -> Result<ContentHash, String> {
    let paths: Vec<PathBuf> = match specs {
        [dir] if dir.is_dir() => {
            let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            entries.flatten().map(|entry| entry.path()).filter(|path| path.is_file()).collect()
        }
        [single] if !single.exists() => return Err(format!("{}: a preset has no files to hash", single.display())),
        _ => specs.to_vec(),
    };
    let named: Vec<(String, PathBuf)> = paths
        .into_iter()
        .map(|path| (path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned(), path))
        .collect();
    let chosen = config_hash_files(named.iter().map(|(name, _)| name.as_str()));
    hash_files(named.iter().filter(|(name, _)| chosen.contains(&name.as_str())).cloned())
}

/// Streams `(name, path)` files through the hasher in name order.
pub(crate) fn hash_files(files: impl IntoIterator<Item = (String, PathBuf)>) -> Result<ContentHash, String> {
    let mut files: Vec<(String, PathBuf)> = files.into_iter().collect();
    files.sort();
    files.dedup_by(|a, b| a.0 == b.0);
    let mut hasher = ContentHasher::new();
    for (name, path) in files {
        let failed = |e: std::io::Error| format!("{}: {e}", path.display());
        let mut file = File::open(&path).map_err(failed)?;
        let len = file.metadata().map_err(failed)?.len();
        hasher.add_reader(&name, len, &mut file).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    hasher.finish().map_err(|e| e.to_string())
}

/// `100·(model − simulated)/simulated`.
fn error_pct(model: f64, simulated: f64) -> Option<f64> {
    (simulated > 0.0).then(|| 100.0 * (model - simulated) / simulated)
}

/// The size the scale models predict: the experiment's target (the one
/// size the plan was asked for), else the config's own.
fn scale_target(report: &ScaleReport) -> u32 {
    report.targets.last().copied().unwrap_or(report.target_sms)
}

/// The scale-model method's IPC at the target.
fn scale_ipc(report: &ScaleReport) -> Option<f64> {
    report.prediction().ipc(Method::ScaleModel, scale_target(report))
}

/// Why the scale-model rule gives no prediction at the target, if it gives none.
fn scale_no_prediction(report: &ScaleReport) -> Option<String> {
    report.prediction().no_prediction(scale_target(report)).map(|none| none.to_string())
}

/// The scale-model IPC's error: against the experiment's simulation (its
/// IPC without the launch latency, as the scale models') when the target is
/// the config's own size, else against the target's own simulation when the
/// run validated it.
fn scale_error_pct(report: &ScaleReport, simulated: &SimReport) -> Option<f64> {
    let target = scale_target(report);
    let truth = if target == report.target_sms {
        Some(ipc_without_launch(simulated, report.launch_latency))
    } else {
        report.validated_ipc(target)
    };
    scale_ipc(report).zip(truth).and_then(|(ipc, truth)| error_pct(ipc, truth))
}

/// The IPC of the model the page's strip leads with.
fn headline_ipc(figures: &Figures) -> Option<f64> {
    figures.analytical.models.get(&HEADLINE).map(|p| p.ipc)
}

/// The figures as JSON fields of `value`: `simulated` (the `SimReport`),
/// `analytical` (the `AnalyticalReport` plus `headline`, the key of the
/// model the page leads with, its `ipc`, and `error_pct` per model) and `scale` (the `ScaleReport` plus `ipc` and
/// `error_pct`, and `no_prediction`, why the rule gives none, or `null`;
/// `{"error", "workable"}` when the GPU cannot be divided;
/// `null` with `--no-scale`).
fn insert_figures(value: &mut Value, figures: &Figures) {
    let sim_ipc = figures.simulated.ipc;
    value["config"] = json!(figures.config_label);
    value["workload"] = json!(figures.workload_label);
    value["simulated"] = json!(figures.simulated);
    let mut analytical = json!(figures.analytical);
    analytical["headline"] = json!(HEADLINE.name());
    analytical["ipc"] = json!(headline_ipc(figures));
    analytical["error_pct"] = figures
        .analytical
        .models
        .iter()
        .map(|(model, p)| (model.to_string(), json!(error_pct(p.ipc, sim_ipc))))
        .collect::<serde_json::Map<_, _>>()
        .into();
    value["analytical"] = analytical;
    value["scale"] = match &figures.scale {
        None => Value::Null,
        Some(Ok(report)) => {
            let mut scale = json!(report);
            let ipc = scale_ipc(report);
            scale["ipc"] = json!(ipc);
            scale["error_pct"] = json!(scale_error_pct(report, &figures.simulated));
            scale["no_prediction"] = json!(scale_no_prediction(report));
            scale
        }
        Some(Err(error)) => json!({ "error": error.reason, "workable": error.workable }),
    };
}

/// The change from the baseline in percent, per figure.
fn change(figures: &Figures, baseline: &Figures) -> Value {
    let scale = |f: &Figures| match &f.scale {
        Some(Ok(report)) => scale_ipc(report),
        _ => None,
    };
    let pct = |now: Option<f64>, before: Option<f64>| now.zip(before).and_then(|(now, before)| error_pct(now, before));
    json!({
        "simulated": pct(Some(figures.simulated.ipc), Some(baseline.simulated.ipc)),
        "analytical": pct(headline_ipc(figures), headline_ipc(baseline)),
        "scale": pct(scale(figures), scale(baseline)),
    })
}

fn percent(value: &Value) -> String {
    value.as_f64().map_or("-".to_owned(), |pct| format!("{pct:+.1}%"))
}

fn text(figures: &Figures) -> String {
    let sim = figures.simulated.ipc;
    let mut out = format!("{} on {}\n", figures.workload_label, figures.config_label);
    let sampled = figures.simulated.sampling.as_ref();
    let how = sampled.map_or(String::new(), |s| format!(", {} sampling", s.options.mode));
    let _ = writeln!(out, "simulated IPC       {sim:>10.2}  ({} cycles, timing model{how})", figures.simulated.cycles);
    let err = |ipc: f64| percent(&json!(error_pct(ipc, sim)));
    if let Some(ipc) = headline_ipc(figures) {
        let _ = writeln!(out, "analytical IPC      {ipc:>10.2}  ({}, {} vs simulated)", HEADLINE.label(), err(ipc));
    }
    for (model, p) in &figures.analytical.models {
        if *model != HEADLINE {
            let _ = writeln!(out, "  {:<17} {:>10.2}  ({} vs simulated)", model.label(), p.ipc, err(p.ipc));
        }
    }
    match &figures.scale {
        None => out.push_str("scale-model IPC     (skipped: --no-scale)\n"),
        Some(Ok(report)) => {
            if let Some(why) = scale_no_prediction(report) {
                let _ = writeln!(out, "scale-model IPC     no prediction at {} SMs: {why}", scale_target(report));
            } else if let Some(ipc) = scale_ipc(report) {
                let models: Vec<String> = report.sizes.iter().take(2).map(u32::to_string).collect();
                let _ = writeln!(
                    out,
                    "scale-model IPC     {ipc:>10.2}  ({} SMs from {} SMs, {} rule, {} vs simulated without the launch latency)",
                    scale_target(report),
                    models.join(" and "),
                    report.options.rule.name(),
                    percent(&json!(scale_error_pct(report, &figures.simulated)))
                );
            }
        }
        Some(Err(error)) => {
            let _ = writeln!(out, "scale-model IPC     not predicted: {error}");
        }
    }
    if let Some(sampled) = sampled {
        out += &crate::sampling::text(sampled, None);
    }
    out
}
