//! Issue 24: the profile's functional cache pass, which every analytical
//! model reads, against the timing model's own counters. The pass never
//! reads the run; it is a walk of the trace through the configured caches
//! in the order `warplab_model`'s `walk.rs` describes. For every teaching
//! kernel on both configs the models are judged on (at sizes a test can
//! run), its L1 read misses and the L2 misses that read DRAM are held within
//! 10% of the run's, but for the cases in `TIMING_DEPENDENT`, whose gap is
//! held to what was measured.
#![cfg(not(target_arch = "wasm32"))]

use warplab_lab::{
    GenSpec, GpuConfig, ProfileOptions, SimOptions, predict, preset_config, profile_generated, simulate_generated,
};

const CONFIGS: [&str; 2] = ["mdm-pascal-28sm", "SM7_QV100"];

/// The teaching kernels at sizes that simulate in about two seconds at most
/// (the divergent `strided` at two: one wave of CTAs, and a little more).
const KERNELS: [&str; 10] = [
    "strided:gs=32,size=56",
    "strided:gs=32,size=80",
    "bfs:size=4",
    "spmv-csr:size=8",
    "vecadd:size=64",
    "strided:gs=1,size=56",
    "gemm-tiled:size=1",
    "stencil2d:size=8",
    "reduction:size=32",
    "histogram:size=32",
];

/// A range of pass ÷ run ratios.
type Range = (f64, f64);

/// What every other case is held to.
const WITHIN_TEN_PERCENT: Range = (0.9, 1.1);

/// Cases whose misses depend on timing the pass does not have, with the
/// ranges of pass ÷ run L1 read misses and DRAM fetches they are held to
/// (measured, not goals; docs/validation.md, "The cache pass against the
/// run", has the investigation). Between one load of a warp and its next,
/// the run lets as many other warps' lines into the L1 as its latencies
/// allow. On mdm-pascal-28sm (greedy-then-oldest) the warps in turn are the
/// ones in the SM's memory pipeline and those that got in while they waited,
/// which the pass follows (`walk.rs`), a little more strictly than the run:
/// 1.11 of its L1 misses at `size=56`, 1.04 at `size=80`, where the
/// pass's DRAM fetches fall short (0.84: the L2 keeps lines the run's
/// evicts). On SM7_QV100 (loose round robin) the pass's warps take turns, so
/// a warp comes back to its lines after every other warp's: at `size=80`
/// the 32 warps' 1,024 lines just overflow the 960-line L1 and the strict
/// turns evict each line before its reuse, where the run's warps return in a
/// looser order and most lines survive (too many misses; at the default
/// size, 64 warps per SM, pass and run agree within 13%). At `size=56` on
/// SM7_QV100 every line fits and both count the compulsory misses only.
const TIMING_DEPENDENT: [(&str, &str, Range, Range); 3] = [
    ("mdm-pascal-28sm", "strided:gs=32,size=56", (1.0, 1.2), WITHIN_TEN_PERCENT),
    ("mdm-pascal-28sm", "strided:gs=32,size=80", WITHIN_TEN_PERCENT, (0.75, 0.95)),
    ("SM7_QV100", "strided:gs=32,size=80", (3.3, 3.7), (4.4, 4.9)),
];

/// What one side counted: L1 read sector misses, and L2 fetches from DRAM.
#[derive(Debug, Clone, Copy)]
struct Counts {
    l1_read_misses: u64,
    dram_fetches: u64,
}

fn config(name: &str) -> GpuConfig {
    preset_config(name).expect("a bundled preset").1
}

fn run_counts(config: &GpuConfig, spec: &GenSpec) -> Counts {
    let report = simulate_generated(config, SimOptions::default(), spec).expect("the spec runs");
    let reads = report.l1d.reads;
    // A fetch reads its whole block: a 32-B command per sector of it.
    let commands_per_fetch = u64::from(config.memory.l2.fetch_bytes() / 32).max(1);
    Counts {
        l1_read_misses: reads.miss + reads.sector_miss,
        dram_fetches: report.dram.totals.reads / commands_per_fetch,
    }
}

fn pass_counts(config: &GpuConfig, spec: &GenSpec) -> Counts {
    let profile = profile_generated(config, spec, ProfileOptions::default()).expect("the spec profiles");
    let report = predict(&profile, config);
    Counts {
        l1_read_misses: report.kernels.iter().map(|k| k.caches.l1_read_misses).sum(),
        dram_fetches: report.kernels.iter().map(|k| k.caches.l2_misses).sum(),
    }
}

fn ratio(pass: u64, run: u64) -> f64 {
    pass as f64 / run.max(1) as f64
}

#[test]
fn the_cache_pass_counts_the_misses_the_run_counts() {
    let mut problems = Vec::new();
    for name in CONFIGS {
        let config = config(name);
        for kernel in KERNELS {
            let spec: GenSpec = kernel.parse().expect("a valid spec");
            let (run, pass) = (run_counts(&config, &spec), pass_counts(&config, &spec));
            let (l1, dram) =
                (ratio(pass.l1_read_misses, run.l1_read_misses), ratio(pass.dram_fetches, run.dram_fetches));
            println!("{kernel:24} {name:16} L1 read misses {run:?} / {pass:?}: pass ÷ run L1 {l1:.2}, DRAM {dram:.2}");
            let (l1_range, dram_range) = TIMING_DEPENDENT
                .iter()
                .find(|(c, k, _, _)| *c == name && *k == kernel)
                .map_or((WITHIN_TEN_PERCENT, WITHIN_TEN_PERCENT), |&(_, _, l1, dram)| (l1, dram));
            for (counter, value, (low, high)) in [("L1 read misses", l1, l1_range), ("DRAM fetches", dram, dram_range)]
            {
                if !(low..=high).contains(&value) {
                    problems.push(format!("{kernel} on {name}: {counter} pass ÷ run {value:.3}, held to {low}–{high}"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
