//! Issue 41's speed goal: compiling and functionally running a 200-line
//! kernel with about 1 M warp instructions takes at most 1 s natively.
//! `benches/long_kernel.cu` is that kernel; the run records every warp's
//! stream, as `run --kernel` does.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use warplab_cuda::{CheckOptions, RunOptions, compile, run};

const SOURCE: &str = include_str!("long_kernel.cu");

fn compile_and_run(c: &mut Criterion) {
    let check = CheckOptions { shared_bytes_per_block: 48 * 1024 };
    let options = RunOptions {
        max_warp_insts: warplab_cuda::DEFAULT_MAX_WARP_INSTS,
        budget_hint: String::new(),
        record: true,
        shared_bytes_per_block: 48 * 1024,
        registers_per_block: 65_536,
        binary_version: 70,
    };
    let compiled = compile("long_kernel.cu", SOURCE, &check).expect("compiles");
    let warp_insts = run("long_kernel.cu", SOURCE, &compiled, &options).expect("runs").warp_insts;
    let mut group = c.benchmark_group("cuda");
    group.sample_size(10);
    group.throughput(Throughput::Elements(warp_insts));
    group.bench_function("compile_and_run_long_kernel", |b| {
        b.iter(|| {
            let compiled = compile("long_kernel.cu", SOURCE, &check).expect("compiles");
            run("long_kernel.cu", SOURCE, &compiled, &options).expect("runs").warp_insts
        });
    });
    group.finish();
}

criterion_group!(benches, compile_and_run);
criterion_main!(benches);
