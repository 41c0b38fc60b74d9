//! `cargo xtask validate-sim`: the timing model against the recorded
//! Accel-Sim runs of `crates/lab/test_data/accelsim/` (the same cases
//! `crates/lab/tests/accelsim_reference.rs` asserts), written out in full.
//!
//! It builds the release CLI, runs `warplab accelsim DIR --json` and writes
//! one table row per case (cycles after the launch latency, the error, and
//! every counter beside Accel-Sim's, the timing-dependent ones included)
//! into `docs/validation.md` between the markers below.

use std::process::ExitCode;

use serde_json::Value;

use crate::recorded::made_now;
use crate::shell::{Result, cli_json, release_cli, root};
use crate::validate_models::{Markers, write};

const MARKERS: Markers = Markers {
    begin: "<!-- accelsim-validation:begin -->",
    end: "<!-- accelsim-validation:end -->",
    heading: "The timing model against Accel-Sim",
};

/// Builds the CLI, runs the reference set and writes the table.
pub fn run() -> Result<ExitCode> {
    let cli = release_cli()?;
    let dir = root().join("crates/lab/test_data/accelsim");
    let dir = dir.to_str().ok_or("the reference directory's path is not UTF-8")?;
    eprintln!("validate-sim: running every recorded Accel-Sim case (a few minutes)");
    let report = cli_json(&cli, &["accelsim", dir, "--json"], "warplab accelsim")?;
    let path = root().join("docs").join("validation.md");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    write(&path, &MARKERS.replace(&text, &section(&report)?))?;
    println!("validate-sim: wrote docs/validation.md");
    Ok(ExitCode::SUCCESS)
}

fn section(report: &Value) -> Result<String> {
    let mut out = format!(
        "Written by `cargo xtask validate-sim` {} (`warplab accelsim crates/lab/test_data/accelsim --json`).\n\
         Cycles are after the launch latency of every kernel; each pair of counters is warplab / Accel-Sim.\n\
         Pending hits (PH), reservation failures (RF) and row-buffer locality depend on timing and are reported, not held to Accel-Sim's.\n\
         Bank conflicts are the cycles shared-memory accesses held the LD/ST units for them (`gpgpu_n_shmem_bkconflict`; – where a run did not record it).\n\n",
        made_now()?
    );
    out += "| case | warplab | Accel-Sim | error | L1 accesses | L1 misses | L1 PH | L1 RF | L2 accesses | L2 misses | L2 PH | L2 RF | DRAM reads | DRAM writes | row-buffer locality | bank conflicts |\n";
    out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    let cases = report["cases"].as_array().ok_or("no cases in the report")?;
    for case in cases {
        out += &row(case);
    }
    out += "\n";
    for group in report["groups"].as_array().into_iter().flatten() {
        out += &format!(
            "{}: {} cases, mean |cycle error| {:.1}%.\n",
            group[0].as_str().unwrap_or("?"),
            group[1],
            100.0 * group[2].as_f64().unwrap_or(f64::NAN)
        );
    }
    Ok(out)
}

/// One case's row: its cycles, error, and each counter beside Accel-Sim's.
fn row(case: &Value) -> String {
    let (w, a) = (&case["warplab"], &case["accelsim"]);
    let pair = |path: &[&str]| {
        let get = |v: &Value| path.iter().fold(v, |v, key| &v[*key]).as_u64().unwrap_or(0);
        format!("{} / {}", get(w), get(a))
    };
    let locality = |v: &Value| v["row_buffer_locality"].as_f64().map_or("–".to_owned(), |x| format!("{x:.3}"));
    format!(
        "| {} | {} | {} | {:+.1}% | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} / {} |\n",
        case["name"].as_str().unwrap_or("?"),
        case["warplab_cycles_after_launch"],
        case["accelsim_cycles_after_launch"],
        100.0 * case["cycle_error"].as_f64().unwrap_or(f64::NAN),
        pair(&["l1", "accesses"]),
        pair(&["l1", "misses"]),
        pair(&["l1", "pending_hits"]),
        pair(&["l1", "reservation_fails"]),
        pair(&["l2", "accesses"]),
        pair(&["l2", "misses"]),
        pair(&["l2", "pending_hits"]),
        pair(&["l2", "reservation_fails"]),
        pair(&["dram_reads"]),
        pair(&["dram_writes"]),
        locality(w),
        locality(a),
        bank_conflicts(w),
        bank_conflicts(a),
    )
}

/// A run's bank-conflict cycles, or a dash where it did not record them.
fn bank_conflicts(run: &Value) -> String {
    run["shmem_bank_conflict_cycles"].as_u64().map_or("–".to_owned(), |cycles| cycles.to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_row_puts_each_counter_beside_accel_sims_and_dashes_what_a_run_did_not_record() {
        let cache = |n: u64| json!({"accesses": n, "misses": n / 2, "pending_hits": 3, "reservation_fails": 0});
        let run = |bank: Option<u64>| {
            json!({"l1": cache(100), "l2": cache(80), "dram_reads": 40, "dram_writes": 8,
                   "row_buffer_locality": 0.5, "shmem_bank_conflict_cycles": bank})
        };
        let case = json!({"name": "cu_transpose", "warplab_cycles_after_launch": 101, "accelsim_cycles_after_launch": 100,
                          "cycle_error": 0.01, "warplab": run(Some(253_952)), "accelsim": run(None)});
        assert_eq!(
            row(&case),
            "| cu_transpose | 101 | 100 | +1.0% | 100 / 100 | 50 / 50 | 3 / 3 | 0 / 0 | 80 / 80 | 40 / 40 | 3 / 3 | 0 / 0 \
             | 40 / 40 | 8 / 8 | 0.500 / 0.500 | 253952 / – |\n"
        );
    }
}
