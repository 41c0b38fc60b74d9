//! `warplab sweep --jobs N` (issue 27): a `--simulate` sweep of two workloads
//! × two schedulers × three L1 MSHR counts (12 points) on the MDM paper's
//! GPU, run by the built binary with `--jobs 1` and `--jobs 2` (goal: two
//! jobs ≥ 1.7× one on this 2-core machine). The two CSVs are checked equal,
//! the host-time column aside.
//!
//! One iteration is a whole sweep, seconds long, so the group takes ten
//! samples of one iteration each (`SamplingMode::Flat`).
//! `cargo bench -p warplab --bench sweep_jobs -- --test` runs each once.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};

/// The sweep's points.
const POINTS: u64 = 12;

/// The MSHR counts as `-gpgpu_cache:dl1` strings of the config's own L1.
const L1_MSHRS: &str =
    "-gpgpu_cache:dl1=N:64:128:6,L:L:m:N:H,A:32:8,8;N:64:128:6,L:L:m:N:H,A:64:8,8;N:64:128:6,L:L:m:N:H,A:128:8,8";

/// Runs the sweep on `jobs` threads, writing `csv`.
fn sweep(jobs: &str, csv: &Path) {
    let args = [
        "sweep",
        "--config",
        "mdm-pascal-28sm",
        "--gen",
        "vecadd:size=16",
        "--gen",
        "bfs:size=8",
        "--vary",
        "-gpgpu_scheduler=gto,lrr",
        "--vary",
        L1_MSHRS,
        "--simulate",
        "--jobs",
        jobs,
        "--csv",
    ];
    let output = Command::new(env!("CARGO_BIN_EXE_warplab")).args(args).arg(csv).output().expect("warplab runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

/// The CSV without its last column (the host time).
fn figures(csv: &Path) -> String {
    let text = std::fs::read_to_string(csv).expect("the CSV");
    text.lines().map(|line| line.rsplit_once(',').map_or(line, |(rest, _)| rest)).collect::<Vec<_>>().join("\n")
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("warplab-bench-{name}-{}.csv", std::process::id()))
}

fn sweep_jobs(c: &mut Criterion) {
    let (one, two) = (scratch("jobs1"), scratch("jobs2"));
    sweep("1", &one);
    sweep("2", &two);
    assert_eq!(figures(&one), figures(&two), "the CSV is the same on one and two jobs");
    let mut group = c.benchmark_group("sweep_jobs");
    group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(30));
    group.throughput(Throughput::Elements(POINTS));
    group.bench_function("jobs/1", |b| b.iter(|| sweep("1", &one)));
    group.bench_function("jobs/2", |b| b.iter(|| sweep("2", &two)));
    group.finish();
    let _ = (std::fs::remove_file(&one), std::fs::remove_file(&two));
}

criterion_group!(benches, sweep_jobs);
criterion_main!(benches);
