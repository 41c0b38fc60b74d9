//! Recorded Accel-Sim runs on warplab's own traces, and the timing model
//! against them: the reference the simulator is held to (docs/validation.md,
//! "The timing model against Accel-Sim").
//!
//! A reference set is a directory (the project's is
//! `crates/lab/test_data/accelsim/`):
//! - `anchors.jsonl`, `local.jsonl` and optionally `models.jsonl`: one run
//!   per line, with the case's name, its config directory and Accel-Sim's
//!   figures (cycles, cache and DRAM counters);
//! - `anchor_traces.json`, `local_traces.json` (and `models_traces.json`
//!   beside `models.jsonl`): how each trace is made, a
//!   generator spec or an authored kernel file (`kernel_file`, a `.cu` file
//!   of the set), the config it was sized for, and the SHA-256 of its
//!   files (file names in order, each name then its bytes);
//! - `configs/<name>/`: the config files Accel-Sim ran, pinned, so a change to
//!   a preset never moves the reference;
//! - `kernels/<name>.cu`: the authored kernels traces are compiled from,
//!   pinned the same way, so editing a teaching example never moves it;
//! - optionally `traces/<name>/`: a trace committed xz-compressed, for when
//!   the generator no longer writes it byte for byte.
//!
//! [`run_case`] regenerates a case's trace, checks that it is exactly what
//! Accel-Sim ran, applies the recorded rewrite (every `BRA` line of a trace
//! made for a config without a branch unit becomes an `FADD`), simulates it on
//! the pinned config, and returns both sides' figures.

use std::io::Read;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::{GenSpec, GpuConfig, LabError, SimOptions, SimReport, generate, preset_config, read_config_dir};

/// Where a reference set's files come from (the CLI and the tests read a
/// directory; anything that can read and list files will do).
pub trait ReferenceFiles {
    /// The bytes of the file at `path`, relative to the set's directory.
    ///
    /// # Errors
    /// The file cannot be read.
    fn read(&mut self, path: &str) -> Result<Vec<u8>, String>;

    /// The names of the files in the directory `path` (empty if it does not exist).
    fn list(&mut self, path: &str) -> Vec<String>;
}

/// A reference set in a directory on disk (the CLI's and the tests').
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Clone)]
pub struct Directory(pub std::path::PathBuf);

#[cfg(not(target_arch = "wasm32"))]
impl ReferenceFiles for Directory {
    fn read(&mut self, path: &str) -> Result<Vec<u8>, String> {
        std::fs::read(self.0.join(path)).map_err(|e| format!("{}: {e}", self.0.join(path).display()))
    }

    fn list(&mut self, path: &str) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(self.0.join(path)) else { return Vec::new() };
        let mut names: Vec<String> = entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }
}

/// Which part of a set a case belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CaseGroup {
    /// The shared anchors (`anchors.jsonl`): runs recorded for the issue.
    Anchor,
    /// Runs recorded locally beside them (`local.jsonl`).
    Local,
    /// The teaching kernels at `cargo xtask validate-models`' sizes on the
    /// presets the analytical models are judged on (`models.jsonl`): the
    /// analytical models' Accel-Sim reference (issue 24).
    Models,
}

/// One cache level's totals as Accel-Sim prints them (`L1D_total_cache_*`, `L2_total_cache_*`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheTotals {
    /// Hits, pending hits, misses and sector misses (reservation failures excluded).
    pub accesses: u64,
    /// Misses and sector misses.
    pub misses: u64,
    /// Pending hits (merged into an outstanding miss).
    pub pending_hits: u64,
    /// Reservation failures (every retry counted).
    pub reservation_fails: u64,
}

/// The figures compared for one run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunFigures {
    /// Total core cycles (`gpu_tot_sim_cycle`).
    pub cycles: u64,
    /// Kernel launches (each pays the launch latency once).
    pub kernels: u64,
    /// Thread instructions run (`gpu_tot_sim_insn`): equal when both ran the
    /// same trace to the end.
    pub thread_insts: u64,
    /// L1 data cache totals.
    pub l1: CacheTotals,
    /// L2 totals.
    pub l2: CacheTotals,
    /// DRAM read column commands (32-B accesses).
    pub dram_reads: u64,
    /// DRAM write column commands.
    pub dram_writes: u64,
    /// Row-buffer hits over requests, when recorded.
    pub row_buffer_locality: Option<f64>,
    /// Cycles shared-memory instructions held the LD/ST units for bank
    /// conflicts (`gpgpu_n_shmem_bkconflict`), when recorded.
    #[serde(default)]
    pub shmem_bank_conflict_cycles: Option<u64>,
}

/// One recorded case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceCase {
    /// The case's name.
    pub name: String,
    /// Its part of the set.
    pub group: CaseGroup,
    /// The trace it ran (a name in the set's trace lists).
    pub trace: String,
    /// Its config directory, relative to the set's.
    pub config_dir: String,
    /// Accel-Sim's figures.
    pub accelsim: RunFigures,
}

/// What a trace is made from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum MadeFrom {
    /// A generator spec, `KERNEL:k=v,...` (`warplab gen-trace KERNEL ...`).
    Generator(String),
    /// An authored CUDA C file, its path relative to the set's directory
    /// (`warplab gen-trace --kernel FILE.cu`).
    KernelFile(String),
}

/// How a trace is made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceRecipe {
    /// The trace's name.
    pub name: String,
    /// Its generator spec or kernel file.
    pub made_from: MadeFrom,
    /// The config it was sized for: a preset name, or a config directory of the set.
    pub sized_for: String,
    /// Every `PC MASK 0 BRA ...` line becomes `PC MASK 0 FADD ...`.
    pub bra_to_fadd: bool,
    /// SHA-256 of the generated files (before any rewrite), lowercase hex.
    pub sha256: String,
    /// The name the generated trace was written under: where a committed
    /// copy lives (`traces/<generated_as>/`). A rewritten trace shares its
    /// source's.
    pub generated_as: String,
}

/// A reference set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReferenceSet {
    /// Every case that Accel-Sim completed, anchors first.
    pub cases: Vec<ReferenceCase>,
    /// Every trace the cases run.
    pub traces: Vec<TraceRecipe>,
}

/// One case's result: both sides' figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseResult {
    /// The case.
    pub name: String,
    /// Its part of the set.
    pub group: CaseGroup,
    /// `-gpgpu_kernel_launch_latency` of its config, core cycles.
    pub launch_latency_cycles: u64,
    /// The timing model's figures.
    pub warplab: RunFigures,
    /// Accel-Sim's figures.
    pub accelsim: RunFigures,
}

impl RunFigures {
    /// The figures of a simulation report.
    pub fn of(report: &SimReport) -> Self {
        let totals = |c: &warplab_sim::report::CacheReport| {
            let all = [&c.reads, &c.writes, &c.atomics];
            let sum = |f: fn(&warplab_sim::report::OutcomeCounts) -> u64| all.iter().map(|o| f(o)).sum::<u64>();
            CacheTotals {
                accesses: sum(|o| o.hit + o.hit_reserved + o.miss + o.sector_miss),
                misses: sum(|o| o.miss + o.sector_miss),
                pending_hits: sum(|o| o.hit_reserved),
                reservation_fails: sum(|o| o.reservation_fail),
            }
        };
        let dram = &report.dram;
        Self {
            cycles: report.cycles,
            kernels: report.kernels.len() as u64,
            thread_insts: report.thread_insts,
            l1: totals(&report.l1d),
            l2: totals(&report.l2),
            dram_reads: dram.totals.reads,
            dram_writes: dram.totals.writes,
            row_buffer_locality: (dram.totals.requests > 0).then_some(dram.row_buffer_hit_rate),
            shmem_bank_conflict_cycles: Some(report.shmem_bank_conflict_cycles),
        }
    }
}

impl CaseResult {
    /// Cycles after the launch latency of every kernel.
    pub fn cycles_after_launch(&self, figures: &RunFigures) -> u64 {
        figures.cycles.saturating_sub(self.launch_latency_cycles * figures.kernels.max(1))
    }

    /// The timing model's signed error in cycles after launch latency.
    pub fn cycle_error(&self) -> f64 {
        let reference = self.cycles_after_launch(&self.accelsim).max(1) as f64;
        (self.cycles_after_launch(&self.warplab) as f64 - reference) / reference
    }
}

/// Reads a reference set.
///
/// # Errors
/// A file missing or malformed, naming it and the line.
pub fn load(files: &mut dyn ReferenceFiles) -> Result<ReferenceSet, LabError> {
    let mut set = ReferenceSet::default();
    let anchor_traces = read_json(files, "anchor_traces.json")?;
    for entry in array(&anchor_traces, "traces", "anchor_traces.json")? {
        set.traces.push(anchor_recipe(entry, &anchor_traces)?);
    }
    let has_models = files.list("").iter().any(|name| name == "models.jsonl");
    let mut trace_lists = vec!["local_traces.json"];
    let mut run_lists = vec![("anchors.jsonl", CaseGroup::Anchor), ("local.jsonl", CaseGroup::Local)];
    if has_models {
        trace_lists.push("models_traces.json");
        run_lists.push(("models.jsonl", CaseGroup::Models));
    }
    for list in trace_lists {
        let traces = read_json(files, list)?;
        for entry in array(&traces, "traces", list)? {
            set.traces.push(local_recipe(entry, list)?);
        }
    }
    for (file, group) in run_lists {
        let text = read_text(files, file)?;
        for (index, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
            let at = format!("{file}:{}", index + 1);
            let run: Value = serde_json::from_str(line).map_err(|e| bad(&at, &e.to_string()))?;
            if run.get("accelsim_exit").and_then(Value::as_u64).is_some_and(|code| code != 0) {
                continue;
            }
            set.cases.push(case(&run, group, &set.traces, &at)?);
        }
    }
    add_row_buffer_locality(files, &mut set)?;
    Ok(set)
}

/// Fills in the row-buffer locality of cases whose run record lacks it from
/// `row_buffer_locality.json` (`{case: locality}`, read from their logs), if
/// the set has that file.
fn add_row_buffer_locality(files: &mut dyn ReferenceFiles, set: &mut ReferenceSet) -> Result<(), LabError> {
    const FILE: &str = "row_buffer_locality.json";
    if !files.list("").iter().any(|name| name == FILE) {
        return Ok(());
    }
    let localities = read_json(files, FILE)?;
    for case in set.cases.iter_mut().filter(|c| c.accelsim.row_buffer_locality.is_none()) {
        case.accelsim.row_buffer_locality = localities.get(&case.name).and_then(Value::as_f64);
    }
    Ok(())
}

/// Runs one case: regenerates its trace (or reads the committed one), checks
/// its SHA-256, applies its rewrite, simulates it on its pinned config.
///
/// # Errors
/// A trace that is not what Accel-Sim ran, or a file or config that cannot be read.
pub fn run_case(
    set: &ReferenceSet,
    case: &ReferenceCase,
    files: &mut dyn ReferenceFiles,
) -> Result<CaseResult, LabError> {
    let recipe = set
        .traces
        .iter()
        .find(|t| t.name == case.trace)
        .ok_or_else(|| bad(&case.name, &format!("no recipe for trace `{}`", case.trace)))?;
    let mut trace = trace_files(recipe, files)?;
    let digest = sha256_of_files(&trace);
    if digest != recipe.sha256 {
        let why = format!(
            "the trace is not what Accel-Sim ran (SHA-256 {digest}, recorded {}): the generator no longer writes it \
             byte for byte; commit the recorded trace xz-compressed under traces/{}/",
            recipe.sha256, recipe.generated_as
        );
        return Err(bad(&case.name, &why));
    }
    if recipe.bra_to_fadd {
        for (name, bytes) in &mut trace {
            if name.ends_with(".traceg") {
                *bytes = branches_to_fadd(bytes);
            }
        }
    }
    let config = read_dir_config(files, &case.config_dir)?;
    let list = trace.iter().find(|(name, _)| name == "kernelslist.g").map(|(_, b)| b.clone()).unwrap_or_default();
    let list = String::from_utf8_lossy(&list).into_owned();
    let mut open = move |file: &str| -> Result<Box<dyn Read>, String> {
        let bytes = trace.iter().find(|(name, _)| name == file).map(|(_, b)| b.clone());
        bytes.map(|b| Box::new(std::io::Cursor::new(b)) as Box<dyn Read>).ok_or_else(|| "not in the trace".to_owned())
    };
    let report = crate::simulate_trace(&config, SimOptions::default(), &list, &mut open)?;
    Ok(CaseResult {
        name: case.name.clone(),
        group: case.group,
        launch_latency_cycles: u64::from(config.kernels.kernel_launch_latency_cycles),
        warplab: RunFigures::of(&report),
        accelsim: case.accelsim.clone(),
    })
}

/// The SHA-256 the recorded trace specs give: for each file in name order,
/// its name, then its bytes.
pub fn sha256_of_files(files: &[(String, Vec<u8>)]) -> String {
    let mut sorted: Vec<&(String, Vec<u8>)> = files.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut hasher = Sha256::new();
    for (name, bytes) in sorted {
        hasher.update(name.as_bytes());
        hasher.update(bytes);
    }
    hasher.finalize().iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Rewrites every instruction line `PC MASK 0 BRA ...` (a branch with no
/// destination register) to `PC MASK 0 FADD ...`, as the recorded Pascal
/// runs' traces were made: the config has no branch unit, so Accel-Sim runs
/// those instructions on SP, as warplab's fallback does.
pub fn branches_to_fadd(trace: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(trace.len());
    for line in trace.split_inclusive(|&b| b == b'\n') {
        let fields: Vec<&[u8]> = line.splitn(5, |&b| b == b' ').collect();
        let is_branch = fields.len() == 5
            && fields[..2].iter().all(|f| !f.is_empty() && f.iter().all(u8::is_ascii_hexdigit))
            && fields[2] == b"0"
            && fields[3] == b"BRA";
        if is_branch {
            for field in &fields[..3] {
                out.extend_from_slice(field);
                out.push(b' ');
            }
            out.extend_from_slice(b"FADD ");
            out.extend_from_slice(fields[4]);
        } else {
            out.extend_from_slice(line);
        }
    }
    out
}

/// The trace's files: the committed copy under `traces/<name>/` if there is
/// one (xz-compressed files are decompressed), else the generator's output.
fn trace_files(recipe: &TraceRecipe, files: &mut dyn ReferenceFiles) -> Result<Vec<(String, Vec<u8>)>, LabError> {
    let dir = format!("traces/{}", recipe.generated_as);
    let committed = files.list(&dir);
    if !committed.is_empty() {
        return committed
            .iter()
            .map(|file| {
                let raw = files.read(&format!("{dir}/{file}")).map_err(|e| bad(file, &e))?;
                let mut bytes = Vec::new();
                warplab_trace::open_trace(raw.as_slice())
                    .and_then(|mut reader| reader.read_to_end(&mut bytes))
                    .map_err(|e| bad(file, &e.to_string()))?;
                Ok((file.trim_end_matches(".xz").to_owned(), bytes))
            })
            .collect();
    }
    let sized_for = match preset_config(&recipe.sized_for) {
        Ok((_, config)) => config,
        Err(_) => read_dir_config(files, &recipe.sized_for)?,
    };
    let workload = match &recipe.made_from {
        MadeFrom::Generator(spec) => generate(&spec.parse::<GenSpec>().map_err(LabError::Gen)?, &sized_for)?,
        MadeFrom::KernelFile(path) => {
            let source = read_text(files, path)?;
            crate::authored_workload(path, &source, &sized_for).map_err(|e| bad(&recipe.name, &e))?
        }
    };
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    let mut buffers: Vec<std::rc::Rc<std::cell::RefCell<Vec<u8>>>> = Vec::new();
    let mut names = Vec::new();
    let mut create = |file: &str| -> Result<Box<dyn std::io::Write>, String> {
        let buffer = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        buffers.push(buffer.clone());
        names.push(file.to_owned());
        Ok(Box::new(SharedBuffer(buffer)))
    };
    crate::write_workload(&workload, false, &mut create)?;
    for (name, buffer) in names.into_iter().zip(buffers) {
        out.push((name, buffer.take()));
    }
    Ok(out)
}

/// A writer into a buffer the caller keeps.
struct SharedBuffer(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl std::io::Write for SharedBuffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn read_dir_config(files: &mut dyn ReferenceFiles, dir: &str) -> Result<GpuConfig, LabError> {
    let mut read = Vec::new();
    for name in files.list(dir) {
        let bytes = files.read(&format!("{dir}/{name}")).map_err(|e| bad(&name, &e))?;
        read.push((name, String::from_utf8_lossy(&bytes).into_owned()));
    }
    if read.is_empty() {
        return Err(bad(dir, "no config files"));
    }
    read_config_dir(&read)
}

fn read_text(files: &mut dyn ReferenceFiles, path: &str) -> Result<String, LabError> {
    let bytes = files.read(path).map_err(|e| bad(path, &e))?;
    String::from_utf8(bytes).map_err(|_| bad(path, "not UTF-8"))
}

fn read_json(files: &mut dyn ReferenceFiles, path: &str) -> Result<Value, LabError> {
    serde_json::from_str(&read_text(files, path)?).map_err(|e| bad(path, &e.to_string()))
}

fn array<'a>(value: &'a Value, key: &str, at: &str) -> Result<&'a Vec<Value>, LabError> {
    value.get(key).and_then(Value::as_array).ok_or_else(|| bad(at, &format!("`{key}`: expected a list")))
}

fn text(value: &Value, key: &str, at: &str) -> Result<String, LabError> {
    value.get(key).and_then(Value::as_str).map(str::to_owned).ok_or_else(|| bad(at, &format!("`{key}`: expected text")))
}

fn number(value: &Value, key: &str, at: &str) -> Result<u64, LabError> {
    value.get(key).and_then(Value::as_u64).ok_or_else(|| bad(at, &format!("`{key}`: expected a number")))
}

fn bad(at: &str, message: &str) -> LabError {
    LabError::Reference(format!("{at}: {message}"))
}

/// A generator spec from the anchors' `generator` and `knobs` (`gs=1 size=120`).
fn spec_text(generator: &str, knobs: &str) -> String {
    let knobs: Vec<&str> = knobs.split_whitespace().collect();
    if knobs.is_empty() { generator.to_owned() } else { format!("{generator}:{}", knobs.join(",")) }
}

/// An anchor trace: generated (`generator`, `knobs`, `for`), or derived from
/// another by the BRA-to-FADD rewrite (`derived_from`).
fn anchor_recipe(entry: &Value, all: &Value) -> Result<TraceRecipe, LabError> {
    let at = "anchor_traces.json";
    let name = text(entry, "trace", at)?;
    let source = match entry.get("derived_from").and_then(Value::as_str) {
        Some(base) => array(all, "traces", at)?
            .iter()
            .find(|t| t.get("trace").and_then(Value::as_str) == Some(base))
            .ok_or_else(|| bad(at, &format!("`{name}` is derived from `{base}`, which is not listed")))?,
        None => entry,
    };
    Ok(TraceRecipe {
        made_from: MadeFrom::Generator(spec_text(&text(source, "generator", at)?, &text(source, "knobs", at)?)),
        sized_for: text(source, "for", at)?,
        bra_to_fadd: entry.get("derived_from").is_some(),
        sha256: text(source, "sha256_of_files", at)?,
        generated_as: text(source, "trace", at)?,
        name,
    })
}

/// A trace of `local_traces.json` or `models_traces.json`: a generator spec
/// (`generator`, `knobs`) or an authored kernel file (`kernel_file`) for a
/// config, and its digest.
fn local_recipe(entry: &Value, at: &str) -> Result<TraceRecipe, LabError> {
    let name = text(entry, "trace", at)?;
    let made_from = match entry.get("kernel_file") {
        Some(_) => MadeFrom::KernelFile(text(entry, "kernel_file", at)?),
        None => {
            MadeFrom::Generator(spec_text(&text(entry, "generator", at)?, &text(entry, "knobs", at)?.replace(',', " ")))
        }
    };
    Ok(TraceRecipe {
        generated_as: name.clone(),
        name,
        made_from,
        sized_for: text(entry, "for", at)?,
        bra_to_fadd: entry.get("bra_to_fadd").and_then(Value::as_bool).unwrap_or(false),
        sha256: text(entry, "sha256_of_files", at)?,
    })
}

/// A case from one line of `anchors.jsonl` or `local.jsonl`. Anchor lines
/// name no trace: it is the one generated from the case's spec for its
/// config (`trace_generated_for`), or its BRA-less copy for a spec marked
/// `(BRA->FADD)`.
fn case(run: &Value, group: CaseGroup, traces: &[TraceRecipe], at: &str) -> Result<ReferenceCase, LabError> {
    let name = text(run, "case", at)?;
    let trace = match run.get("trace").and_then(Value::as_str) {
        Some(trace) => trace.to_owned(),
        None => {
            let spec = text(run, "kernel_spec", at)?;
            let fadd = spec.contains("(BRA->FADD)");
            let spec = spec.replace("(BRA->FADD)", "");
            let sized_for = text(run, "trace_generated_for", at)?;
            let same = |t: &&TraceRecipe| {
                let generated = matches!(&t.made_from, MadeFrom::Generator(made) if same_spec(made, spec.trim()));
                generated && t.bra_to_fadd == fadd && t.sized_for == sized_for
            };
            traces.iter().find(same).map(|t| t.name.clone()).ok_or_else(|| bad(at, "no recorded trace matches"))?
        }
    };
    let cache = |prefix: &str| -> Result<CacheTotals, LabError> {
        Ok(CacheTotals {
            accesses: number(run, &format!("{prefix}_total_cache_accesses"), at)?,
            misses: number(run, &format!("{prefix}_total_cache_misses"), at)?,
            pending_hits: number(run, &format!("{prefix}_total_cache_pending_hits"), at)?,
            reservation_fails: number(run, &format!("{prefix}_total_cache_reservation_fails"), at)?,
        })
    };
    let accelsim = RunFigures {
        cycles: number(run, "accelsim_cycles", at)?,
        kernels: run.get("kernels").and_then(Value::as_u64).unwrap_or(1),
        thread_insts: number(run, "accelsim_insn", at)?,
        l1: cache("L1D")?,
        l2: cache("L2")?,
        dram_reads: number(run, "dram_reads", at)?,
        dram_writes: number(run, "dram_writes", at)?,
        row_buffer_locality: run.get("row_buffer_locality").and_then(Value::as_f64),
        shmem_bank_conflict_cycles: run.get("gpgpu_n_shmem_bkconflict").and_then(Value::as_u64),
    };
    Ok(ReferenceCase { name, group, trace, config_dir: text(run, "config_dir", at)?, accelsim })
}

/// Whether two generator specs name the same kernel and knobs, in any order.
fn same_spec(a: &str, b: &str) -> bool {
    let parts = |s: &str| {
        let (kernel, knobs) = s.split_once(':').unwrap_or((s, ""));
        let mut knobs: Vec<String> = knobs.split(',').filter(|k| !k.is_empty()).map(str::to_owned).collect();
        knobs.sort();
        (kernel.to_owned(), knobs)
    };
    parts(a) == parts(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branches_become_fadds_and_nothing_else_changes() {
        let trace = b"-binary version = 70\n0010 ffffffff 0 BRA 0 0 0\n0020 ffffffff 1 R1 BRA 0 0 0\n0030 0000ffff 0 BRA.U 0 0\n";
        let out = branches_to_fadd(trace);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "-binary version = 70\n0010 ffffffff 0 FADD 0 0 0\n0020 ffffffff 1 R1 BRA 0 0 0\n0030 0000ffff 0 BRA.U 0 0\n"
        );
    }

    #[test]
    fn the_digest_is_over_names_then_bytes_in_name_order() {
        let files = vec![("b".to_owned(), b"2".to_vec()), ("a".to_owned(), b"1".to_vec())];
        // SHA-256 of "a1b2".
        assert_eq!(sha256_of_files(&files), "85337816d263d362acb23a4255a636191075c2a90c47f2ee6db3362f7df11203");
        assert!(same_spec("strided:gs=1,size=120", "strided:size=120,gs=1"));
        assert!(!same_spec("strided:gs=1", "strided:gs=32"));
    }

    #[test]
    fn a_trace_is_made_from_a_generator_spec_or_a_kernel_file() {
        let generated = serde_json::json!({"trace": "g", "generator": "strided", "knobs": "gs=1,size=4",
            "for": "SM7_QV100", "sha256_of_files": "00"});
        let authored = serde_json::json!({"trace": "k", "kernel_file": "kernels/vecadd.cu", "for": "SM7_QV100",
            "sha256_of_files": "00"});
        let generated = local_recipe(&generated, "t").unwrap();
        assert_eq!(generated.made_from, MadeFrom::Generator("strided:gs=1,size=4".to_owned()));
        let authored = local_recipe(&authored, "t").unwrap();
        assert_eq!(authored.made_from, MadeFrom::KernelFile("kernels/vecadd.cu".to_owned()));
        // An anchor line names its trace by spec: only a generated trace can match it.
        let run = serde_json::json!({"case": "c", "kernel_spec": "strided:size=4,gs=1", "trace_generated_for": "SM7_QV100",
            "config_dir": "d", "accelsim_cycles": 1, "accelsim_insn": 1, "dram_reads": 0, "dram_writes": 0,
            "L1D_total_cache_accesses": 0, "L1D_total_cache_misses": 0, "L1D_total_cache_pending_hits": 0,
            "L1D_total_cache_reservation_fails": 0, "L2_total_cache_accesses": 0, "L2_total_cache_misses": 0,
            "L2_total_cache_pending_hits": 0, "L2_total_cache_reservation_fails": 0});
        assert_eq!(case(&run, CaseGroup::Anchor, &[authored.clone(), generated], "t").unwrap().trace, "g");
        assert!(case(&run, CaseGroup::Anchor, &[authored], "t").is_err());
    }
}
