//! Determinism of the timing model (issue 5): every case of the pinned table
//! `test_data/determinism.json` runs twice (once in one go, once in slices as
//! the CLI and the worker drive it), and both runs must give the table's
//! cycles and report fingerprint, natively and in headless Chromium. So a
//! native run, a wasm run and the table agree, and a change of the model's
//! numbers is noticed.
//!
//! When the model changes on purpose, re-pin natively with
//! `UPDATE_EXPECT=1 cargo test -p warplab-lab --test determinism` and review
//! the diff; a mismatch in the browser alone is a native/wasm difference, a
//! bug to fix, never something to re-pin.

use std::fmt::Write as _;
use std::io::Read;

use serde::{Deserialize, Serialize};
use warplab_lab::sampling::{SampleMode, SamplingOptions};
use warplab_lab::{
    Cycle, GenSpec, GeneratedWorkload, GpuConfig, OpenRead, SimOptions, SimReport, Simulation, TraceWorkload,
    preset_config, simulate_generated, simulate_trace,
};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// The table, compiled in so the browser build reads the same bytes.
const TABLE: &str = include_str!("../test_data/determinism.json");

/// Where `UPDATE_EXPECT=1` writes the re-pinned table.
#[cfg(not(target_arch = "wasm32"))]
const TABLE_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/test_data/determinism.json");

/// Core cycles per `run_until` slice in the second run: not a divisor of any
/// case's cycle count, so slices end mid-kernel.
const SLICE_CYCLES: u64 = 997;

/// The pinned table: what the file holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Table {
    /// What the file is and how to re-pin it.
    about: String,
    cases: Vec<Case>,
}

/// One workload on one preset, with the figures a run gave when pinned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Case {
    /// A bundled preset, by name or alias.
    config: String,
    workload: Workload,
    /// Sampled simulation (`off` when absent).
    #[serde(default, skip_serializing_if = "is_off")]
    sample: SampleMode,
    /// `SimReport::cycles`.
    cycles: u64,
    /// `SimReport::warp_insts`.
    warp_insts: u64,
    /// L2 read and write misses (miss and sector miss).
    l2_misses: u64,
    /// DRAM read column commands.
    dram_reads: u64,
    /// FNV-1a (64 bits, hex) of the compact `serde_json` serialization of the
    /// whole `SimReport`: every counter, every float (formatted shortest
    /// round-trip, so equal only if bit-identical), every per-SM entry.
    report_fnv1a64: String,
}

fn is_off(mode: &SampleMode) -> bool {
    *mode == SampleMode::Off
}

/// The options of a case: Photon's defaults in its mode.
fn options(mode: SampleMode) -> SimOptions {
    SimOptions { sampling: SamplingOptions::with_mode(mode), ..SimOptions::default() }
}

/// What a case runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Workload {
    /// A generator spec (`KERNEL[:k=v,...]`), sized for the case's config.
    Generated(String),
    /// A trace directory embedded below (see [`trace_file`]).
    Trace(String),
}

/// The embedded trace files, so the browser build runs the same traces.
fn trace_file(dir: &str, name: &str) -> Result<&'static [u8], String> {
    macro_rules! files {
        ($($dir:literal / $name:literal),* $(,)?) => {
            match (dir, name) {
                $(($dir, $name) => Ok(include_bytes!(concat!("../../trace/test_data/", $dir, "/", $name))),)*
                _ => Err(format!("no embedded trace file {dir}/{name}")),
            }
        };
    }
    files![
        "vectoradd-sm61-gtx1080-v4" / "kernelslist.g",
        "vectoradd-sm61-gtx1080-v4" / "kernel-1.traceg",
        "vectorAdd-sm80-a100-v5-xz" / "kernelslist.g",
        "vectorAdd-sm80-a100-v5-xz" / "kernel-1.traceg.xz",
    ]
}

/// The opener of an embedded trace directory.
fn trace_opener(dir: &str) -> Box<OpenRead<'static>> {
    let dir = dir.to_owned();
    Box::new(move |name: &str| trace_file(&dir, name).map(|bytes| Box::new(bytes) as Box<dyn Read>))
}

fn trace_list(dir: &str) -> &'static str {
    std::str::from_utf8(trace_file(dir, "kernelslist.g").expect("embedded")).expect("kernelslist.g is text")
}

/// Runs `workload` to its end in one call, through the lab's facade.
fn run_whole(config: &GpuConfig, workload: &Workload, options: SimOptions) -> SimReport {
    match workload {
        Workload::Generated(spec) => {
            let spec: GenSpec = spec.parse().unwrap_or_else(|e| panic!("{spec}: {e}"));
            simulate_generated(config, options, &spec).expect("the spec runs")
        }
        Workload::Trace(dir) => {
            simulate_trace(config, options, trace_list(dir), &mut *trace_opener(dir)).expect("reads")
        }
    }
}

/// Runs `workload` in `SLICE_CYCLES` slices, as the CLI and the worker do.
fn run_sliced(config: &GpuConfig, workload: &Workload, options: SimOptions) -> SimReport {
    let drive = |mut simulation: Simulation<'_>| {
        while !simulation.run_until(Cycle(simulation.progress().cycle.0 + SLICE_CYCLES)).finished {}
        simulation.report()
    };
    match workload {
        Workload::Generated(spec) => {
            let spec: GenSpec = spec.parse().unwrap_or_else(|e| panic!("{spec}: {e}"));
            let mut source = GeneratedWorkload::new(&spec, config).expect("the spec runs");
            drive(Simulation::new(config, options, &mut source))
        }
        Workload::Trace(dir) => {
            let mut open = trace_opener(dir);
            let mut source = TraceWorkload::new(trace_list(dir), &mut *open).expect("kernelslist.g parses");
            drive(Simulation::new(config, options, &mut source))
        }
    }
}

/// FNV-1a, 64 bits: a hash fixed by its definition, unlike std's hashers.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}

/// The case's figures as `report` gives them.
fn measured(case: &Case, report: &SimReport) -> Case {
    let json = serde_json::to_vec(report).expect("a report serializes");
    Case {
        cycles: report.cycles,
        warp_insts: report.warp_insts,
        l2_misses: report.l2.reads.misses() + report.l2.writes.misses(),
        dram_reads: report.dram.totals.reads,
        report_fnv1a64: format!("{:016x}", fnv1a64(&json)),
        ..case.clone()
    }
}

fn to_json(table: &Table) -> String {
    serde_json::to_string_pretty(table).expect("the table serializes") + "\n"
}

#[wasm_bindgen_test(unsupported = test)]
fn runs_match_the_pinned_table() {
    let pinned: Table = serde_json::from_str(TABLE).expect("determinism.json parses");
    assert!(!pinned.cases.is_empty(), "determinism.json has no cases");
    let mut now = pinned.clone();
    let mut differences = String::new();
    for (case, current) in pinned.cases.iter().zip(&mut now.cases) {
        let config = preset_config(&case.config).unwrap_or_else(|e| panic!("{}: {e}", case.config)).1;
        let whole = run_whole(&config, &case.workload, options(case.sample));
        let sliced = run_sliced(&config, &case.workload, options(case.sample));
        assert!(whole == sliced, "{:?} on {}: a sliced run differs from a whole run", case.workload, case.config);
        *current = measured(case, &whole);
        if current != case {
            let _ = writeln!(
                differences,
                "  {:?} on {}:\n    pinned {case:?}\n    now    {current:?}",
                case.workload, case.config
            );
        }
    }
    if differences.is_empty() {
        return;
    }
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(TABLE_PATH, to_json(&now)).expect("determinism.json is writable");
        eprintln!("re-pinned {TABLE_PATH}:\n{differences}");
        return;
    }
    let platform = if cfg!(target_arch = "wasm32") { "wasm32 (headless Chromium)" } else { "native" };
    panic!(
        "the {platform} run differs from test_data/determinism.json:\n{differences}\n\
         In the browser only (the native test passes): native and wasm disagree, a bug; do not re-pin.\n\
         If the timing model or the report changed on purpose, re-pin natively with\n\
         `UPDATE_EXPECT=1 cargo test -p warplab-lab --test determinism` and review the diff;\n\
         the new contents of crates/lab/test_data/determinism.json would be:\n{}",
        to_json(&now)
    );
}
