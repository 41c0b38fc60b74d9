//! `--slurm DIR`: a sweep as a Slurm job array, one task per point
//! (`warplab sweep run-point DIR --index I`), and a collect job that runs
//! after the array ends however its tasks ended (`afterany`). Submitting
//! again to the same DIR submits only the points without a result or with
//! a failed one.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::plan::Plan;
use super::store;

/// The most task ids one job array spans: Slurm's default `MaxArraySize` is
/// 1001 (ids 0 to 1000). Larger sweeps are several arrays, each with an
/// offset added to its task id.
pub const MAX_ARRAY_TASKS: usize = 1000;

/// Where and how to submit.
pub struct SlurmArgs {
    pub dir: PathBuf,
    pub partition: Option<String>,
    /// `--time` of each task, as sbatch takes it (`HH:MM:SS`, `D-HH:MM:SS`).
    pub time: Option<String>,
    /// At most this many tasks at once (`--array=...%K`).
    pub max_parallel: Option<u32>,
    pub dry_run: bool,
}

/// Where the collect job writes.
pub struct Outputs<'a> {
    pub csv: &'a Path,
    pub svg: Option<&'a Path>,
}

/// One job array: the plan's points `offset + id` for each task id.
struct Array {
    offset: usize,
    ids: Vec<usize>,
}

/// Writes the plan (or checks it against the one DIR holds) and the job
/// scripts, then submits an array for the unfinished points and the
/// collect job; with `dry_run` prints the scripts and submits nothing.
pub fn submit(plan: &Plan, args: &SlurmArgs, outputs: &Outputs<'_>) -> Result<String, String> {
    check_args(args)?;
    let dir = absolute(&args.dir)?;
    let existing = dir.join("plan.json").exists().then(|| Plan::read(&dir)).transpose()?;
    if let Some(existing) = &existing
        && existing != plan
    {
        return Err(format!(
            "{}: holds the plan of another sweep (it differs in {}); give a new directory",
            dir.display(),
            differences(existing, plan).join(", ")
        ));
    }
    let to_run = if existing.is_some() { store::unfinished(&dir, plan) } else { (0..plan.points.len()).collect() };
    let collect_by_hand = collect_command(&dir, outputs)?;
    if to_run.is_empty() {
        return Ok(format!("every point of {} has its result; collect with:\n  {collect_by_hand}\n", dir.display()));
    }
    let arrays = arrays(&to_run);
    let binary = std::env::current_exe().map_err(|e| format!("the warplab binary's path: {e}"))?;
    let scripts: Vec<String> = arrays.iter().map(|array| array_script(array, args, &binary, &dir)).collect();
    let collect = collect_script(args, &binary, &dir, &collect_by_hand);
    let slurm = dir.join("slurm");
    std::fs::create_dir_all(slurm.join("logs")).map_err(|e| format!("{}: {e}", slurm.display()))?;
    std::fs::create_dir_all(store::points_dir(&dir)).map_err(|e| format!("{}: {e}", dir.display()))?;
    if existing.is_none() {
        store::write_atomically(&dir.join("plan.json"), &plan.to_json()?)?;
    }
    if args.dry_run {
        for (k, script) in scripts.iter().enumerate() {
            store::write_atomically(&slurm.join(format!("array-{k}.sh")), script)?;
        }
        store::write_atomically(&slurm.join("collect.sh"), &collect)?;
        return Ok(dry_run(&scripts, &collect, &dir));
    }
    let mut ids = Vec::new();
    for (k, script) in scripts.iter().enumerate() {
        ids.push(sbatch(&slurm.join(format!("array-{k}.sh")), script, None)?);
    }
    let collect_id = sbatch(&slurm.join("collect.sh"), &collect, Some(&ids))?;
    let mut out = format!(
        "{}: {} point(s), {} to run\nsubmitted job array {} and collect job {collect_id} (after the array ends, whether or not tasks fail)\n",
        dir.join("plan.json").display(),
        plan.points.len(),
        to_run.len(),
        ids.join(", ")
    );
    let _ = writeln!(out, "results: {}; to collect by hand:\n  {collect_by_hand}", outputs.csv.display());
    Ok(out)
}

/// A partition name and a time limit sbatch could take, refused here
/// before anything is written or submitted.
fn check_args(args: &SlurmArgs) -> Result<(), String> {
    if let Some(partition) = &args.partition
        && (partition.is_empty() || !partition.chars().all(|c| c.is_ascii_alphanumeric() || "-_.,".contains(c)))
    {
        return Err(format!("--partition `{partition}`: letters, digits, `-`, `_`, `.` and `,` only"));
    }
    if let Some(time) = &args.time
        && (time.is_empty() || !time.chars().all(|c| c.is_ascii_digit() || c == ':' || c == '-'))
    {
        return Err(format!("--time `{time}`: expected MM, HH:MM:SS or D-HH:MM:SS"));
    }
    if args.max_parallel == Some(0) {
        return Err("--max-parallel: at least 1".to_owned());
    }
    Ok(())
}

fn absolute(path: &Path) -> Result<PathBuf, String> {
    std::path::absolute(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The parts of two plans that differ, by name.
fn differences(a: &Plan, b: &Plan) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut check = |differs: bool, name| {
        if differs {
            out.push(name);
        }
    };
    check(a.config != b.config, "the config");
    check(a.workloads != b.workloads, "the workloads");
    check(a.axes != b.axes, "the varied settings");
    check(a.models != b.models, "the models");
    check(a.simulate != b.simulate, "--simulate");
    check(a.sampling != b.sampling, "the sampling");
    check(a.size_per_point != b.size_per_point, "--size-per-point");
    check(a.memcpy_warms_l2 != b.memcpy_warms_l2, "--memcpy-warms-l2");
    check(a.format != b.format, "the format");
    if out.is_empty() {
        out.push("the points");
    }
    out
}

/// `to_run` (sorted) as arrays of task ids below [`MAX_ARRAY_TASKS`].
fn arrays(to_run: &[usize]) -> Vec<Array> {
    let mut arrays: Vec<Array> = Vec::new();
    for &index in to_run {
        match arrays.last_mut() {
            Some(array) if index - array.offset < MAX_ARRAY_TASKS => array.ids.push(index - array.offset),
            _ => arrays.push(Array { offset: index, ids: vec![0] }),
        }
    }
    arrays
}

/// Sorted ids as sbatch's `--array` list: `0-3,5,7-9`.
fn id_ranges(ids: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut start = 0;
    while start < ids.len() {
        let mut end = start;
        while end + 1 < ids.len() && ids[end + 1] == ids[end] + 1 {
            end += 1;
        }
        parts.push(if end == start { ids[start].to_string() } else { format!("{}-{}", ids[start], ids[end]) });
        start = end + 1;
    }
    parts.join(",")
}

/// `text` quoted for the shell.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

fn directives(out: &mut String, name: &str, args: &SlurmArgs, log: &Path) {
    let _ = writeln!(out, "#!/bin/bash");
    let _ = writeln!(out, "#SBATCH --job-name={name}");
    let _ = writeln!(out, "#SBATCH --cpus-per-task=1");
    let _ = writeln!(out, "#SBATCH --output={}", log.display());
    if let Some(partition) = &args.partition {
        let _ = writeln!(out, "#SBATCH --partition={partition}");
    }
    if let Some(time) = &args.time {
        let _ = writeln!(out, "#SBATCH --time={time}");
    }
}

fn array_script(array: &Array, args: &SlurmArgs, binary: &Path, dir: &Path) -> String {
    let mut out = String::new();
    directives(&mut out, "warplab-sweep", args, &dir.join("slurm/logs/%A_%a.out"));
    let limit = args.max_parallel.map(|k| format!("%{k}")).unwrap_or_default();
    let _ = writeln!(out, "#SBATCH --array={}{limit}", id_ranges(&array.ids));
    let _ = writeln!(out, "# Task T runs point T + {} of the plan.", array.offset);
    let _ = writeln!(
        out,
        "exec {} sweep run-point {} --index \"$((SLURM_ARRAY_TASK_ID + {}))\"",
        quoted(&binary.display().to_string()),
        quoted(&dir.display().to_string()),
        array.offset
    );
    out
}

fn collect_command(dir: &Path, outputs: &Outputs<'_>) -> Result<String, String> {
    let mut command = format!(
        "warplab sweep collect {} --csv {}",
        quoted(&dir.display().to_string()),
        quoted(&absolute(outputs.csv)?.display().to_string())
    );
    if let Some(svg) = outputs.svg {
        let _ = write!(command, " --svg {}", quoted(&absolute(svg)?.display().to_string()));
    }
    Ok(command)
}

fn collect_script(args: &SlurmArgs, binary: &Path, dir: &Path, command: &str) -> String {
    let mut out = String::new();
    directives(&mut out, "warplab-sweep-collect", args, &dir.join("slurm/logs/collect-%j.out"));
    let command = command.strip_prefix("warplab ").unwrap_or(command);
    let _ = writeln!(out, "exec {} {command}", quoted(&binary.display().to_string()));
    out
}

/// The scripts as `--dry-run` prints them, with the sbatch commands that
/// would submit them.
fn dry_run(scripts: &[String], collect: &str, dir: &Path) -> String {
    let mut out = String::new();
    for (k, script) in scripts.iter().enumerate() {
        let _ = writeln!(out, "# sbatch --parsable array-{k}.sh\n{script}");
    }
    let dependency = (0..scripts.len()).map(|k| format!("<array-{k} job id>")).collect::<Vec<_>>().join(":");
    let _ = writeln!(out, "# sbatch --parsable --dependency=afterany:{dependency} collect.sh\n{collect}");
    let _ = writeln!(
        out,
        "(--dry-run: nothing submitted; {} holds the plan and {} these scripts, for Slurm or another scheduler)",
        dir.join("plan.json").display(),
        dir.join("slurm").display()
    );
    out
}

/// Writes `script` to `path` and submits it, after `after` when given;
/// returns the job id.
fn sbatch(path: &Path, script: &str, after: Option<&[String]>) -> Result<String, String> {
    store::write_atomically(path, script)?;
    let mut command = Command::new("sbatch");
    command.arg("--parsable");
    if let Some(ids) = after {
        command.arg(format!("--dependency=afterany:{}", ids.join(":")));
    }
    let output = command.arg(path).output().map_err(|e| {
        format!("sbatch: {e} (is Slurm installed and on the PATH? --dry-run prints the scripts instead)")
    })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!("sbatch {}: {}", path.display(), stderr.trim()));
    }
    // `--parsable` prints `ID` or `ID;CLUSTER`.
    let stdout = String::from_utf8_lossy(&output.stdout);
    let id = stdout.trim().split(';').next().unwrap_or_default().to_owned();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("sbatch {}: no job id in its answer `{}`", path.display(), stdout.trim()));
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_compress_to_ranges_and_big_sweeps_split_into_arrays() {
        assert_eq!(id_ranges(&[0, 1, 2, 3, 5, 7, 8, 9]), "0-3,5,7-9");
        assert_eq!(id_ranges(&[4]), "4");
        let to_run: Vec<usize> = (0..2500).filter(|i| i % 7 != 3).collect();
        let arrays = arrays(&to_run);
        assert_eq!(arrays.len(), 3);
        assert!(arrays.iter().all(|a| a.ids.iter().all(|&id| id < MAX_ARRAY_TASKS)));
        let back: Vec<usize> = arrays.iter().flat_map(|a| a.ids.iter().map(move |id| id + a.offset)).collect();
        assert_eq!(back, to_run, "every point once, in order");
    }

    #[test]
    fn paths_are_quoted_for_the_shell() {
        assert_eq!(quoted("/a b/it's"), "'/a b/it'\\''s'");
    }
}
