//! Sampled simulation's speed (issue 10): each workload simulated in full and
//! with Photon sampling on `SM7_QV100`, so criterion's report puts the two
//! times side by side; the goal is a ≥ 10× speedup on large regular kernels.
//! Throughput is in warp instructions of the whole workload (predicted ones
//! included), so the rates compare directly. docs/validation.md has the IPC
//! errors of the same workloads (`cargo xtask sampling`).
//!
//! One iteration is a whole run (seconds), so each group takes ten samples of
//! one iteration (`SamplingMode::Flat`); `-- --test` runs each once.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use warplab_lab::sampling::{SampleMode, SamplingOptions};
use warplab_lab::{GenSpec, SimOptions, preset_config, simulate_generated};

/// A large regular kernel (10,321,920 warp instructions), a tiled GEMM that
/// fills the GPU several times over, and a workload of identical launches.
const SPECS: [&str; 3] = ["vecadd:size=21504", "gemm-tiled:size=64,n=1024,k=64", "vecadd:size=2048,launches=8"];

fn sampling(c: &mut Criterion) {
    let config = preset_config("SM7_QV100").expect("the preset is bundled").1;
    for text in SPECS {
        let spec: GenSpec = text.parse().expect("the benchmark's spec parses");
        let full = simulate_generated(&config, SimOptions::default(), &spec).expect("runs");
        let mut group = c.benchmark_group(format!("sampling/{text}"));
        group.sampling_mode(SamplingMode::Flat);
        group.sample_size(10);
        group.warm_up_time(Duration::from_secs(1));
        group.measurement_time(Duration::from_secs(10));
        group.throughput(Throughput::Elements(full.warp_insts));
        for mode in [SampleMode::Off, SampleMode::Photon] {
            let options = SimOptions { sampling: SamplingOptions::with_mode(mode), ..SimOptions::default() };
            group.bench_function(mode.name(), |b| {
                b.iter(|| {
                    let report = simulate_generated(&config, options, black_box(&spec)).expect("runs");
                    assert_eq!(report.warp_insts, full.warp_insts, "every instruction is counted");
                    report
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, sampling);
criterion_main!(benches);
