//! Trace reading throughput on real Accel-Sim traces: the streaming reader
//! into the instruction form (the goal: at least 150 MB/s of
//! `.traceg` text natively), the summary pass on top of it, and xz decoding.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use warplab_trace::{Cta, KernelReader, KernelSummary, open_trace};

fn test_data(path: &str) -> Vec<u8> {
    std::fs::read(format!("{}/test_data/{path}", env!("CARGO_MANIFEST_DIR"))).expect("benchmark input in test_data")
}

/// Reads every CTA and returns the instruction count.
fn read_all(bytes: &[u8]) -> usize {
    let mut reader = KernelReader::new("bench.traceg", open_trace(bytes).expect("opens")).expect("header");
    let mut cta = Cta::default();
    let mut instructions = 0;
    while reader.next_cta(&mut cta).expect("parses") {
        instructions += cta.instructions.len();
    }
    instructions
}

fn reading(c: &mut Criterion) {
    let traces = [
        ("vectorAdd-sm80-a100-v5", test_data("vectorAdd-sm80-a100-v5/kernel-1.traceg")),
        ("matrixmul-32x32-sm61-gtx1080-v4", test_data("matrixmul-32x32-sm61-gtx1080-v4/kernel-1.traceg")),
    ];
    let mut group = c.benchmark_group("trace");
    for (name, text) in &traces {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(format!("read/{name}"), |b| b.iter(|| read_all(black_box(text))));
        group.bench_function(format!("summary/{name}"), |b| {
            b.iter(|| KernelSummary::read("bench.traceg", black_box(text.as_slice())).expect("parses"))
        });
    }
    // Throughput counted in decompressed bytes, to compare with plain reading.
    let xz = test_data("vectorAdd-sm80-a100-v5-xz/kernel-1.traceg.xz");
    group.throughput(Throughput::Bytes(traces[0].1.len() as u64));
    group.bench_function("read-xz/vectorAdd-sm80-a100-v5", |b| b.iter(|| read_all(black_box(&xz))));
    group.finish();
}

criterion_group!(benches, reading);
criterion_main!(benches);
