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
         Pending hits (PH), reservation failures (RF) and row-buffer locality depend on timing and are reported, not held to Accel-Sim's.\n\n",
        made_now()?
    );
    out += "| case | warplab | Accel-Sim | error | L1 accesses | L1 misses | L1 PH | L1 RF | L2 accesses | L2 misses | L2 PH | L2 RF | DRAM reads | DRAM writes | row-buffer locality |\n";
    out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    let cases = report["cases"].as_array().ok_or("no cases in the report")?;
    for case in cases {
        let (w, a) = (&case["warplab"], &case["accelsim"]);
        let pair = |path: &[&str]| {
            let get = |v: &Value| path.iter().fold(v, |v, key| &v[*key]).as_u64().unwrap_or(0);
            format!("{} / {}", get(w), get(a))
        };
        let locality = |v: &Value| v["row_buffer_locality"].as_f64().map_or("–".to_owned(), |x| format!("{x:.3}"));
        out += &format!(
            "| {} | {} | {} | {:+.1}% | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} |\n",
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
        );
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
