//! Generation speed: every CTA of a generator's default workload produced in
//! the instruction form (what the simulator will consume), and written as
//! version-5 trace text (what `gen-trace` does before compression).
//! Throughput is in warp instructions.

use std::hint::black_box;
use std::io;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use warplab_kernels::{GenSpec, Workload, generate};

fn workload(spec: &str) -> Workload {
    let config = warplab_config::default_preset().config().expect("default preset");
    generate(&spec.parse::<GenSpec>().expect("spec"), &config).expect("generates")
}

/// Produces every CTA and returns the warp instruction count.
fn walk(workload: &Workload) -> u64 {
    let mut instructions = 0;
    for kernel in workload.kernels() {
        kernel.for_each_cta(|cta| instructions += cta.instructions.len() as u64);
    }
    instructions
}

fn generation(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate");
    group.sample_size(10);
    for spec in ["vecadd", "strided:gs=32", "bfs", "gemm-tiled"] {
        let workload = workload(spec);
        group.throughput(Throughput::Elements(walk(&workload)));
        group.bench_function(format!("ctas/{spec}"), |b| b.iter(|| walk(black_box(&workload))));
        group.bench_function(format!("text/{spec}"), |b| {
            b.iter(|| workload.write_trace(false, |_| Ok(io::sink())).expect("writes to a sink"))
        });
    }
    group.finish();
}

criterion_group!(benches, generation);
criterion_main!(benches);
