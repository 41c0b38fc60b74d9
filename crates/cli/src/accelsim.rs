//! `warplab accelsim DIR`: the timing model against a set of recorded
//! Accel-Sim runs (`crates/lab/test_data/accelsim/` is the project's; see
//! `warplab_lab::accelsim`). Every case's trace is regenerated (or read from
//! its committed copy) and checked against the SHA-256 Accel-Sim ran, then
//! simulated on the pinned config; the table gives both simulators' cycles
//! after the launch latency and their cache and DRAM counters.

use std::path::Path;

use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use warplab_lab::accelsim::{CaseGroup, CaseResult, Directory, RunFigures, load, run_case};

use crate::to_json;

/// One case's comparison, as `--json` writes it.
#[derive(Debug, Serialize)]
struct Row {
    #[serde(flatten)]
    result: CaseResult,
    warplab_cycles_after_launch: u64,
    accelsim_cycles_after_launch: u64,
    cycle_error: f64,
}

/// The whole comparison, as `--json` writes it.
#[derive(Debug, Serialize)]
struct Report {
    cases: Vec<Row>,
    /// Per group (`Anchor`, `Local`): cases and mean |cycle error|.
    groups: Vec<(CaseGroup, usize, f64)>,
}

/// Runs every case of the set in `dir` whose name contains `filter`.
pub fn check(dir: &Path, filter: Option<&str>, json: bool) -> Result<String, String> {
    let mut files = Directory(dir.to_path_buf());
    let set = load(&mut files).map_err(|e| e.to_string())?;
    let cases: Vec<_> = set.cases.iter().filter(|c| filter.is_none_or(|f| c.name.contains(f))).collect();
    if cases.is_empty() {
        return Err(format!("{}: no case matches", dir.display()));
    }
    let progress = ProgressBar::new(cases.len() as u64)
        .with_style(ProgressStyle::with_template("{pos}/{len} {wide_msg} {elapsed}").map_err(|e| e.to_string())?);
    let mut rows = Vec::new();
    for case in cases {
        progress.set_message(case.name.clone());
        let result = run_case(&set, case, &mut files).map_err(|e| format!("{}: {e}", case.name))?;
        rows.push(Row {
            warplab_cycles_after_launch: result.cycles_after_launch(&result.warplab),
            accelsim_cycles_after_launch: result.cycles_after_launch(&result.accelsim),
            cycle_error: result.cycle_error(),
            result,
        });
        progress.inc(1);
    }
    progress.finish_and_clear();
    let groups = [CaseGroup::Anchor, CaseGroup::Local, CaseGroup::Models]
        .into_iter()
        .filter_map(|group| {
            let errors: Vec<f64> =
                rows.iter().filter(|r| r.result.group == group).map(|r| r.cycle_error.abs()).collect();
            (!errors.is_empty()).then(|| (group, errors.len(), errors.iter().sum::<f64>() / errors.len() as f64))
        })
        .collect();
    let report = Report { cases: rows, groups };
    if json { to_json(&report) } else { Ok(table(&report)) }
}

fn table(report: &Report) -> String {
    let mut out = format!(
        "{:<28} {:>9} {:>9} {:>7}  {:>17} {:>17} {:>17} {:>17} {:>15} {:>15}\n",
        "case", "warplab", "Accel-Sim", "error", "L1 acc", "L1 miss", "L2 acc", "L2 miss", "DRAM r", "bank conf."
    );
    let pair = |ours: u64, theirs: u64| format!("{ours}/{theirs}");
    // Bank-conflict cycles are recorded only where the case's log is.
    let recorded = |n: Option<u64>| n.map_or("–".to_owned(), |n| n.to_string());
    for row in &report.cases {
        let (w, a): (&RunFigures, &RunFigures) = (&row.result.warplab, &row.result.accelsim);
        out += &format!(
            "{:<28} {:>9} {:>9} {:>+6.1}%  {:>17} {:>17} {:>17} {:>17} {:>15} {:>15}\n",
            row.result.name,
            row.warplab_cycles_after_launch,
            row.accelsim_cycles_after_launch,
            100.0 * row.cycle_error,
            pair(w.l1.accesses, a.l1.accesses),
            pair(w.l1.misses, a.l1.misses),
            pair(w.l2.accesses, a.l2.accesses),
            pair(w.l2.misses, a.l2.misses),
            pair(w.dram_reads, a.dram_reads),
            format!("{}/{}", recorded(w.shmem_bank_conflict_cycles), recorded(a.shmem_bank_conflict_cycles)),
        );
    }
    for (group, n, mean) in &report.groups {
        out += &format!("{group:?}: {n} cases, mean |cycle error| {:.1}%\n", 100.0 * mean);
    }
    out
}
