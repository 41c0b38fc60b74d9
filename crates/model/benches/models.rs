//! Analytical-model speed (issue 7): profiling a workload of more than a
//! million warp instructions (goal: at most 1 s per million natively), and
//! re-evaluating every model on a kept profile for a changed config
//! (goal: at most 1 ms), which is what makes a sweep cost one profile.
//!
//! `profile/*` runs [`profile`] on a generated workload; the generator makes
//! each CTA when the profiler asks for it, so generation (about 50 M warp
//! instructions/s, `cargo bench -p warplab-kernels`) is inside the timed
//! run, as it is in `warplab predict`. Throughput is in warp instructions,
//! counted from the profile. `predict/*` runs [`predict`] (every model, every
//! kernel) on one profile, each iteration for the next of four machines that
//! differ from the profiled one in SM count, L1 MSHRs and NoC and DRAM
//! bandwidth. `bfs` is eight kernel launches.
//!
//! `cargo bench -p warplab-model --bench models -- --test` runs each once.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use warplab_config::GpuConfig;
use warplab_kernels::{GenSpec, generate};
use warplab_model::{Machine, ModelKind, Profile, ProfileOptions, predict, profile};

/// The MDM paper's GPU, on which its divergent kernels were studied.
const PASCAL: &str = "mdm-pascal-28sm";
/// The Volta preset.
const QV100: &str = "SM7_QV100";

/// Workloads of at least a million warp instructions: `strided:gs=32` at
/// its default size (1,704,960, fully memory-divergent), and `vecadd` at
/// 2,200 × 1,024 elements (2,200 × 32 warps of 15 instructions: 1,056,000).
const PROFILED: [(&str, &str); 2] = [(PASCAL, "strided:gs=32"), (QV100, "vecadd:size=2200")];

/// Kept profiles the models are re-evaluated on; `bfs` has eight kernels.
const PREDICTED: [(&str, &str); 3] = [(PASCAL, "strided:gs=32"), (PASCAL, "bfs"), (QV100, "vecadd")];

fn config(preset: &str) -> GpuConfig {
    warplab_config::preset(preset).expect("a bundled preset").config().expect("the preset is valid")
}

fn run_profile(config: &GpuConfig, spec: &GenSpec) -> Profile {
    let mut source = generate(spec, config).expect("the spec fits the config").into_source();
    profile(config, &mut source, ProfileOptions::default()).expect("the workload profiles")
}

fn warp_insts(profile: &Profile) -> u64 {
    profile.kernels.iter().map(|k| k.warp_insts).sum()
}

fn profiling(c: &mut Criterion) {
    let mut group = c.benchmark_group("profile");
    // One iteration takes about a second: ten one-iteration samples.
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(10));
    for (preset, text) in PROFILED {
        let config = config(preset);
        let spec: GenSpec = text.parse().expect("the benchmark's spec parses");
        let insts = warp_insts(&run_profile(&config, &spec));
        assert!(insts >= 1_000_000, "{text} on {preset} has {insts} warp instructions, fewer than a million");
        group.throughput(Throughput::Elements(insts));
        group.bench_function(format!("{text}/{preset}"), |b| {
            b.iter_batched(
                || generate(&spec, &config).expect("the spec fits the config").into_source(),
                |mut source| profile(&config, &mut source, ProfileOptions::default()).expect("the workload profiles"),
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

/// Four machines a sweep might ask for: half and double the SMs, a quarter
/// and double the MSHRs, the NoC and DRAM bandwidths halved and doubled.
fn changed_machines(config: &GpuConfig) -> Vec<Machine> {
    let base = Machine::of(config);
    [(0.5, 0.25, 0.5), (2.0, 2.0, 2.0), (0.5, 2.0, 1.0), (1.0, 0.25, 2.0)]
        .into_iter()
        .map(|(sms, mshrs, bandwidth)| Machine {
            n_sms: ((f64::from(base.n_sms) * sms) as u32).max(1),
            l1_mshrs: ((f64::from(base.l1_mshrs) * mshrs) as u32).max(1),
            noc_bytes_per_s: base.noc_bytes_per_s * bandwidth,
            dram_bytes_per_s: base.dram_bytes_per_s * bandwidth,
            ..base.clone()
        })
        .collect()
}

fn prediction(c: &mut Criterion) {
    let mut group = c.benchmark_group("predict");
    for (preset, text) in PREDICTED {
        let config = config(preset);
        let profile = run_profile(&config, &text.parse().expect("the benchmark's spec parses"));
        let machines = changed_machines(&config);
        let mut next = 0;
        group.bench_function(format!("{text}/{preset}"), |b| {
            b.iter(|| {
                next = (next + 1) % machines.len();
                let report = predict(black_box(&profile), black_box(&machines[next]));
                debug_assert_eq!(report.models.len(), ModelKind::ALL.len());
                report
            })
        });
    }
    group.finish();
}

criterion_group!(benches, profiling, prediction);
criterion_main!(benches);
