//! Trace reading throughput: one streaming pass over a real 1 MB Accel-Sim
//! trace (the A100 vectorAdd anchor, 26,601 warp instructions).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use warplab_trace::KernelSummary;

fn summary_pass(c: &mut Criterion) {
    let trace = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/test_data/vectorAdd-sm80-a100-v5/kernel-1.traceg"))
        .expect("the benchmark trace is in test_data");
    let mut group = c.benchmark_group("trace");
    group.throughput(Throughput::Bytes(trace.len() as u64));
    group.bench_function("summary/vectorAdd-sm80-a100-v5", |b| {
        b.iter(|| KernelSummary::read("kernel-1.traceg", black_box(trace.as_slice())).expect("parses"))
    });
    group.finish();
}

criterion_group!(benches, summary_pass);
criterion_main!(benches);
