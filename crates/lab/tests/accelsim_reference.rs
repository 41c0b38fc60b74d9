//! Issue 23: the timing model against real Accel-Sim (GPGPU-Sim 4.2) run on
//! warplab's own traces with the same config files, case by case
//! (`test_data/accelsim/`, see its README). Every case regenerates the very
//! trace Accel-Sim ran (from a generator spec, or by compiling and running
//! an authored kernel file as `gen-trace --kernel` does), or reads its
//! committed copy where the generator no longer writes it byte for byte
//! (its SHA-256 is checked either way), runs it on the pinned config, and
//! is held to:
//! - cycles after the launch latency within ±10% of Accel-Sim's (the
//!   anchors' mean |error| at most 5%, the local runs' too), but for the
//!   cases listed in `CYCLE_GOAL_MISSED`, held to their measured error;
//! - the same thread instructions run, and L1 accesses equal to
//!   Accel-Sim's (coalescing decides them), and L2
//!   accesses and DRAM reads and writes equal to Accel-Sim's but for what the
//!   miss counts' own differences carry down (an L1 miss more is an L2 access
//!   more; an L2 miss more is a fetch's reads more): whether a line is still
//!   in a cache when it is used again depends on timing, and where the two
//!   simulators' timing differs by a few cycles a few lines differ;
//! - L1 and L2 misses within 5% (the divergent `strided:gs=32` cases' L1
//!   misses within 10%);
//! - shared-memory bank-conflict cycles equal to Accel-Sim's
//!   `gpgpu_n_shmem_bkconflict` where the record has it (every case with a
//!   log in `logs/`; issue 41: `cu_transpose`'s 32-way conflicts, and
//!   `cu_histogram`'s shared atomics).
//!
//! `cargo xtask validate-sim` writes the full table into docs/validation.md;
//! `cargo test -p warplab-lab --test accelsim_reference -- --nocapture`
//! prints it here.
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;

use warplab_lab::accelsim::{CaseGroup, CaseResult, Directory, MadeFrom, ReferenceCase, load, run_case};

fn reference_dir() -> Directory {
    Directory(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("test_data/accelsim"))
}

/// Cases whose cycles miss the ±10% goal, with the bound they are held to
/// (today's error, rounded up) and what was found (docs/validation.md has
/// the investigation): reported as measured, not fitted.
const CYCLE_GOAL_MISSED: &[(&str, f64, &str)] = &[];

/// Cases too slow for a test (each at least ten seconds of simulation):
/// `cargo xtask validate-sim` and `warplab accelsim` run them;
/// docs/validation.md has their figures. Six of `models.jsonl` (130 s
/// together), and the authored examples at their own sizes, whose traces
/// are 400 MB (the test holds their smaller variants, `cu_matmul_128` and
/// `cu_reduction_64k`).
const VALIDATE_SIM_ONLY: &[&str] = &[
    "mdm_pascal_strided_gs32",
    "mdm_qv100_strided_gs32",
    "mdm_pascal_spmv",
    "mdm_qv100_spmv",
    "mdm_pascal_histogram",
    "mdm_qv100_histogram",
    "cu_matmul",
    "cu_reduction",
];

fn cycle_bound(case: &str) -> f64 {
    CYCLE_GOAL_MISSED.iter().find(|(c, _, _)| *c == case).map_or(0.10, |&(_, bound, _)| bound)
}

/// Relative difference of `ours` from `theirs`.
fn relative(ours: u64, theirs: u64) -> f64 {
    (ours as f64 - theirs as f64) / (theirs.max(1) as f64)
}

/// What one case breaks, if anything.
fn problems(result: &CaseResult) -> Vec<String> {
    let (w, a) = (&result.warplab, &result.accelsim);
    let mut found = Vec::new();
    let error = result.cycle_error();
    if error.abs() > cycle_bound(&result.name) {
        found.push(format!(
            "cycles after launch {:+.1}% (warplab {}, Accel-Sim {})",
            100.0 * error,
            w.cycles,
            a.cycles
        ));
    }
    let l1_miss_gap = w.l1.misses.abs_diff(a.l1.misses);
    let l2_miss_gap = w.l2.misses.abs_diff(a.l2.misses);
    // A DRAM fetch of an L2 miss is this many read commands (a sector, or a line).
    let reads_per_miss = if a.l2.misses == 0 { 1 } else { a.dram_reads.div_ceil(a.l2.misses).max(1) };
    let exactish = [
        ("thread instructions", w.thread_insts, a.thread_insts, 0),
        ("l1 accesses", w.l1.accesses, a.l1.accesses, 0),
        ("l2 accesses", w.l2.accesses, a.l2.accesses, l1_miss_gap + a.l2.accesses / 1000),
        ("dram reads", w.dram_reads, a.dram_reads, l2_miss_gap * reads_per_miss + a.dram_reads / 1000),
        // Which dirty lines a kernel leaves in the L2 or evicts depends on timing.
        ("dram writes", w.dram_writes, a.dram_writes, (a.dram_writes / 100).max(64)),
    ];
    if let (Some(ours), Some(theirs)) = (w.shmem_bank_conflict_cycles, a.shmem_bank_conflict_cycles)
        && ours != theirs
    {
        found.push(format!("shared-memory bank-conflict cycles: warplab {ours}, Accel-Sim {theirs}"));
    }
    for (counter, ours, theirs, allowed) in exactish {
        if ours.abs_diff(theirs) > allowed {
            found.push(format!("{counter}: warplab {ours}, Accel-Sim {theirs}"));
        }
    }
    let divergent = result.name.contains("strided_gs32") || result.name.contains("strided32");
    let l1_tolerance = if divergent { 0.10 } else { 0.05 };
    let close = [("l1 misses", w.l1.misses, a.l1.misses, l1_tolerance), ("l2 misses", w.l2.misses, a.l2.misses, 0.05)];
    for (counter, ours, theirs, tolerance) in close {
        if relative(ours, theirs).abs() > tolerance {
            found.push(format!(
                "{counter}: warplab {ours}, Accel-Sim {theirs} ({:+.1}%)",
                100.0 * relative(ours, theirs)
            ));
        }
    }
    found
}

#[test]
fn the_timing_model_agrees_with_accel_sim_on_every_recorded_case() {
    let mut files = reference_dir();
    let set = load(&mut files).expect("the reference set reads");
    assert!(set.cases.iter().filter(|c| c.group == CaseGroup::Anchor).count() >= 13, "every completed anchor run");
    let mut failures = Vec::new();
    let mut errors: Vec<(CaseGroup, f64)> = Vec::new();
    assert!(set.cases.iter().filter(|c| c.group == CaseGroup::Models).count() >= 17, "the models' reference runs");
    // Issue 41: at least three authored examples, traced by `gen-trace
    // --kernel` and run on the config `config write SM7_QV100` writes, held
    // here (the full-size ones only by validate-sim).
    let authored = |c: &&ReferenceCase| {
        set.traces.iter().any(|t| t.name == c.trace && matches!(t.made_from, MadeFrom::KernelFile(_)))
    };
    let held = set.cases.iter().filter(authored).filter(|c| !VALIDATE_SIM_ONLY.contains(&c.name.as_str())).count();
    assert!(held >= 3, "{held} authored-kernel cases in the test");
    for case in set.cases.iter().filter(|c| !VALIDATE_SIM_ONLY.contains(&c.name.as_str())) {
        let result = match run_case(&set, case, &mut files) {
            Ok(result) => result,
            Err(error) => {
                failures.push(format!("{}: {error}", case.name));
                continue;
            }
        };
        println!(
            "{:28} {:>8} vs {:>8} {:+6.1}%  L1 miss {}/{}  L2 miss {}/{}  DRAM r {}/{} w {}/{}  bank conflicts {}/{}",
            result.name,
            result.cycles_after_launch(&result.warplab),
            result.cycles_after_launch(&result.accelsim),
            100.0 * result.cycle_error(),
            result.warplab.l1.misses,
            result.accelsim.l1.misses,
            result.warplab.l2.misses,
            result.accelsim.l2.misses,
            result.warplab.dram_reads,
            result.accelsim.dram_reads,
            result.warplab.dram_writes,
            result.accelsim.dram_writes,
            result.warplab.shmem_bank_conflict_cycles.unwrap_or_default(),
            result.accelsim.shmem_bank_conflict_cycles.map_or("–".to_owned(), |n| n.to_string()),
        );
        errors.push((result.group, result.cycle_error()));
        failures.extend(problems(&result).into_iter().map(|p| format!("{}: {p}", result.name)));
    }
    for group in [CaseGroup::Anchor, CaseGroup::Local, CaseGroup::Models] {
        let group_errors: Vec<f64> = errors.iter().filter(|(g, _)| *g == group).map(|(_, e)| e.abs()).collect();
        let mean = group_errors.iter().sum::<f64>() / group_errors.len().max(1) as f64;
        println!("{group:?}: mean |cycle error| {:.1}% over {} cases", 100.0 * mean, group_errors.len());
        if mean > 0.05 {
            failures.push(format!("{group:?}: mean |cycle error| {:.1}% (at most 5%)", 100.0 * mean));
        }
    }
    assert!(failures.is_empty(), "{} problems:\n{}", failures.len(), failures.join("\n"));
}
