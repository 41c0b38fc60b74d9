//! Miss-rate-curve speed (issue 8): the curve at five sizes of
//! `scalemodel-128sm` (8, 16, 32, 64 and 128 SMs) from one pass, against
//! simulating the smallest scale model (8 SMs) with the timing model, on the
//! same generated workloads of about a million warp instructions. Goal: the
//! curve at least 10× faster than the one simulation. `l1-stream-only` is the
//! same walk with no LLC: generation and the L1 stage alone, the part of the
//! curve's cost that does not grow with the sizes.
//!
//! Both pull CTAs from the generator as they go, so generation is inside
//! both timings. Throughput is in warp instructions. One iteration is a
//! whole run, so each group takes ten samples of one iteration
//! (`SamplingMode::Flat`). `cargo bench -p warplab-scale --bench miss_curve
//! -- --test` runs each once.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use warplab_config::GpuConfig;
use warplab_kernels::{GenSpec, generate};
use warplab_model::{ProfileOptions, walk_caches};
use warplab_scale::miss_curve::miss_rate_curve;
use warplab_sim::{SimOptions, simulate};

/// About a million warp instructions each: vecadd at 2,200 × 1,024 elements
/// (1,056,000), stencil2d at 960 rows of 1,024 points (about 1 M), gemm-tiled
/// at its defaults (about 1.2 M).
const SPECS: [&str; 3] = ["vecadd:size=2200", "stencil2d:size=120", "gemm-tiled"];

/// `scalemodel-128sm` divided by these: 8, 16, 32, 64 and 128 SMs.
const FACTORS: [u32; 5] = [16, 8, 4, 2, 1];

fn target() -> GpuConfig {
    warplab_config::preset("scalemodel").expect("a bundled preset").config().expect("the preset is valid")
}

fn sizes(target: &GpuConfig) -> Vec<GpuConfig> {
    FACTORS.iter().map(|&factor| target.scale_shared(factor).expect("128 SMs divide").config).collect()
}

fn curve_and_simulation(c: &mut Criterion) {
    let target = target();
    let sizes = sizes(&target);
    let smallest = &sizes[0];
    for text in SPECS {
        let spec: GenSpec = text.parse().expect("the benchmark's spec parses");
        // The workload is generated for the target: the same CTAs at every size.
        let source = || generate(&spec, &target).expect("the spec fits").into_source();
        let reference = simulate(smallest, SimOptions::default(), &mut source());
        let mut group = c.benchmark_group("miss_curve");
        group.sampling_mode(SamplingMode::Flat).throughput(Throughput::Elements(reference.warp_insts));
        group.bench_function(format!("curve-5-sizes/{text}"), |b| {
            b.iter(|| {
                let curve = miss_rate_curve(smallest, black_box(&sizes), &mut source(), ProfileOptions::default())
                    .expect("the workload walks");
                assert_eq!(curve.points[0].thread_insts, reference.thread_insts, "the curve saw every instruction");
                curve
            })
        });
        // The floor under any one-pass curve: generating the workload and
        // filtering it through the 8-SM model's L1s, with no LLC at all.
        group.bench_function(format!("l1-stream-only/{text}"), |b| {
            b.iter(|| {
                let walk = walk_caches(smallest, &[], &mut source(), ProfileOptions::default()).expect("walks");
                assert_eq!(walk.thread_insts, reference.thread_insts, "the walk saw every instruction");
                walk
            })
        });
        group.bench_function(format!("simulate-8-sms/{text}"), |b| {
            b.iter(|| {
                let report = simulate(smallest, SimOptions::default(), &mut source());
                assert_eq!(report.warp_insts, reference.warp_insts, "the run issued every instruction");
                report
            })
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    // Ten one-iteration samples with short warm-up and measurement times.
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(10));
    targets = curve_and_simulation
}
criterion_main!(benches);
