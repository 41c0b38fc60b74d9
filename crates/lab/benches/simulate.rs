//! Timing-model speed (issues 5 and 26), all on `SM7_QV100`, throughput in
//! warp instructions (the unit of the goals):
//!
//! - `generated/vecadd`: the simulator alone on the default page's workload
//!   (491,520 warp instructions), one thread (goal ≥ 3 M/s);
//! - `text-trace/vecadd:size=4096`: a whole run from a version-5 text trace
//!   on disk (read, parse, simulate), 1,966,080 warp instructions, what
//!   `warplab gen-trace vecadd --size 4096 --for QV100` writes and `warplab run
//!   --trace` reads, one thread (goal ≥ 1.5 M/s);
//! - `threads/…/N`: the SMs' cycles on N threads, a compute-bound
//!   (`maxflops`, goal: two threads ≥ 1.7× one) and a memory-bound
//!   (`vecadd`) run; the reports are checked equal to the one-thread run's.
//!
//! One iteration is a whole run, which takes seconds, so the groups take ten
//! samples of one iteration each (`SamplingMode::Flat`) and criterion's
//! "unable to complete in the measurement time" warning is expected.
//! `cargo bench -p warplab-lab --bench simulate -- --test` runs each once.

use std::fs::File;
use std::hint::black_box;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use warplab_lab::{
    GenSpec, GpuConfig, SimOptions, generate, preset_config, simulate_generated, simulate_trace, write_generated,
};

/// The GPU both benchmarks simulate.
const PRESET: &str = "SM7_QV100";

/// The default page's workload: 1,024 × 1,024 elements, one 15-instruction
/// warp per 32 of them, 491,520 warp instructions.
const SIMULATION_SPEC: &str = "vecadd";

/// The text trace: 4,096 × 1,024 elements, 1,966,080 warp
/// instructions (about 75 MB of text).
const TRACE_SPEC: &str = "vecadd:size=4096";

/// The runs timed on one and two threads: compute-bound, then memory-bound.
const THREADED_SPECS: [&str; 2] = ["maxflops", "vecadd"];

fn config() -> GpuConfig {
    preset_config(PRESET).expect("the preset is bundled").1
}

fn spec(text: &str) -> GenSpec {
    text.parse().expect("the benchmark's spec parses")
}

/// The warp instructions `spec` generates, counted by walking every CTA (about
/// 50 M instructions/s, a fraction of a second).
fn warp_insts(config: &GpuConfig, spec: &GenSpec) -> u64 {
    let workload = generate(spec, config).expect("the benchmark's spec runs");
    let mut total = 0;
    for kernel in workload.kernels() {
        kernel.for_each_cta(|cta| total += cta.instructions.len() as u64);
    }
    total
}

/// Ten one-iteration samples with short warm-up and measurement times.
fn configure(group: &mut BenchmarkGroup<'_, WallTime>, warp_insts: u64) {
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Elements(warp_insts));
}

/// The simulator alone. The simulator pulls CTAs from the generator as they
/// launch, so generation is inside the timed run too; at about 50 M warp
/// instructions/s (`cargo bench -p warplab-kernels --bench generate`) it is a
/// small share of a run at today's simulation speed.
fn simulation(c: &mut Criterion) {
    let config = config();
    let spec = spec(SIMULATION_SPEC);
    let expected = warp_insts(&config, &spec);
    let mut group = c.benchmark_group("simulate");
    configure(&mut group, expected);
    group.bench_function(format!("generated/{SIMULATION_SPEC}"), |b| {
        b.iter(|| {
            let report = simulate_generated(&config, SimOptions::default(), black_box(&spec)).expect("runs");
            assert_eq!(report.warp_insts, expected, "the run issued every instruction");
            report
        })
    });
    group.finish();
}

/// Writes the trace of `spec` as plain version-5 text into `dir` (what
/// `warplab gen-trace` writes), once per benchmark process.
fn write_trace(config: &GpuConfig, spec: &GenSpec, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut create = |name: &str| -> Result<Box<dyn Write>, String> {
        let file = File::create(dir.join(name)).map_err(|e| e.to_string())?;
        Ok(Box::new(BufWriter::new(file)))
    };
    write_generated(spec, config, false, &mut create).expect("the trace is written");
}

/// A whole run as `warplab run --trace DIR` does it: `kernelslist.g` read,
/// each kernel file opened when the simulator reaches it and parsed CTA by
/// CTA as CTAs launch.
fn from_text_trace(c: &mut Criterion) {
    let config = config();
    let spec = spec(TRACE_SPEC);
    let expected = warp_insts(&config, &spec);
    // Cargo's scratch directory for benchmarks, under target/.
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("simulate-bench").join(TRACE_SPEC.replace([':', '='], "-"));
    write_trace(&config, &spec, &dir);
    let mut group = c.benchmark_group("simulate");
    configure(&mut group, expected);
    group.bench_function(format!("text-trace/{TRACE_SPEC}"), |b| {
        b.iter(|| {
            let list = std::fs::read_to_string(dir.join("kernelslist.g")).expect("kernelslist.g was written");
            let kernel_dir = dir.clone();
            let mut open = move |file: &str| -> Result<Box<dyn Read>, String> {
                File::open(kernel_dir.join(file)).map(|f| Box::new(f) as Box<dyn Read>).map_err(|e| e.to_string())
            };
            let report = simulate_trace(&config, SimOptions::default(), &list, &mut open).expect("runs");
            assert_eq!(report.warp_insts, expected, "the run issued every instruction");
            assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
            report
        })
    });
    group.finish();
    std::fs::remove_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
}

/// The same run on one and on two threads (`SimOptions::threads`): the SMs'
/// cycles split across them, the memory side on the simulating thread.
fn on_threads(c: &mut Criterion) {
    let config = config();
    for text in THREADED_SPECS {
        let spec = spec(text);
        let expected = warp_insts(&config, &spec);
        let alone = simulate_generated(&config, SimOptions::default(), &spec).expect("runs");
        let mut group = c.benchmark_group(format!("simulate/threads/{text}"));
        configure(&mut group, expected);
        for threads in [1, 2] {
            let options = SimOptions { threads, ..SimOptions::default() };
            group.bench_function(threads.to_string(), |b| {
                b.iter(|| {
                    let report = simulate_generated(&config, options, black_box(&spec)).expect("runs");
                    assert_eq!(report, alone, "the same report on {threads} threads");
                    report
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, simulation, from_text_trace, on_threads);
criterion_main!(benches);
