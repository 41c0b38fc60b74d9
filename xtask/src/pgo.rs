//! `cargo xtask pgo`: the command line built with profile-guided optimisation.
//!
//! An instrumented build runs a training set of workloads and counts which
//! branches and calls each takes; LLVM's `llvm-profdata` merges the counts,
//! and a second build inlines and lays out the code by them. The source is
//! the same and floating point is untouched, so the reports are the ordinary
//! release build's (`cargo xtask test` compares them); only the time moves:
//! 4–9% less wall time and 1.5–6% fewer host instructions on this machine
//! kind (docs/performance.md, issue 40's twenty-seventh increment).
//!
//! The training set is not the workloads the speed goals are measured on
//! (issue 40's five, the text trace, the chiplet GPU's `vecadd`): other
//! generators on other GPUs, a text trace, a chiplet GPU and two threads, so
//! that the gain measured on those goals is not the training set's own.
//! Each build has a target directory of its own under `target/pgo/`, and the
//! ordinary `target/release/warplab` is left as it is.

use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};

use crate::shell::{Result, cli_json, command, exec, release_cli, target_dir};
use crate::tools;

/// The runs the instrumented CLI is trained on (`warplab run` arguments).
const TRAINING: &[&[&str]] = &[
    &["--config", "SM80_A100", "--gen", "spmv-csr", "--threads", "1"],
    &["--config", "SM86_RTX3070", "--gen", "histogram", "--threads", "1"],
    &["--config", "SM90_H100", "--gen", "gemm-tiled", "--threads", "1"],
    &["--config", "SM7_QV100", "--gen", "reduction", "--threads", "1"],
    &["--config", "mdm-pascal-28sm", "--gen", "spmv-csr", "--threads", "1"],
    &["--config", "SM80_A100", "--gen", "strided:gs=8", "--threads", "1"],
    &["--config", "chiplet-1024sm", "--gen", "reduction", "--threads", "1"],
    &["--config", "SM86_RTX3070", "--gen", "spmv-csr", "--threads", "2"],
    &["--config", "SM80_A100", "--trace", "sample-traces/gemm-tiled", "--threads", "1"],
];

/// Runs whose reports the profile-guided CLI must give as the release CLI
/// does (none of them a training run).
const SAME_REPORTS: &[&[&str]] = &[
    &["--config", "SM7_QV100", "--gen", "vecadd:size=256", "--threads", "1"],
    &["--config", "mdm-pascal-28sm", "--gen", "strided:gs=32,size=16", "--threads", "2"],
    &["--config", "SM7_QV100", "--gen", "bfs:size=4", "--threads", "1", "--sample", "photon"],
];

/// `cargo xtask pgo`: builds the profile-guided CLI and prints its path.
pub fn run() -> Result<ExitCode> {
    let cli = build()?;
    println!("{}", cli.display());
    Ok(ExitCode::SUCCESS)
}

/// Builds the profile-guided CLI and returns its path
/// (`target/pgo/optimized/release/warplab`).
pub fn build() -> Result<PathBuf> {
    let profdata = tools::ensure_llvm_profdata()?;
    let dir = target_dir().join("pgo");
    // Counts left by an older build would be merged with this one's.
    let counts = dir.join("counts");
    if counts.exists() {
        std::fs::remove_dir_all(&counts).map_err(|e| format!("{}: {e}", counts.display()))?;
    }
    let instrumented = build_cli(&dir.join("instrumented"), &format!("-Cprofile-generate={}", path_str(&counts)?))?;
    for args in TRAINING {
        let mut train = command(path_str(&instrumented)?, &[&["run"], *args].concat());
        exec(train.stdout(Stdio::null()))?;
    }
    let merged = dir.join("merged.profdata");
    exec(&mut command(path_str(&profdata)?, &["merge", "-o", path_str(&merged)?, path_str(&counts)?]))?;
    build_cli(&dir.join("optimized"), &format!("-Cprofile-use={}", path_str(&merged)?))
}

/// `cargo xtask test`'s check: the profile-guided CLI's reports are the
/// release CLI's, but for the two wall-time fields.
pub fn check_same_reports() -> Result<()> {
    let (guided, release) = (build()?, release_cli()?);
    for args in SAME_REPORTS {
        let args = [&["run"], *args, &["--json"]].concat();
        let what = args.join(" ");
        let reports = [&guided, &release].map(|cli| cli_json(cli, &args, &what).map(without_wall_times));
        let [guided_report, release_report] = reports;
        if guided_report? != release_report? {
            return Err(format!("the profile-guided CLI's report differs from the release CLI's: warplab {what}"));
        }
    }
    Ok(())
}

/// A report without the fields that measure the host, not the simulation.
fn without_wall_times(mut report: serde_json::Value) -> serde_json::Value {
    if let Some(fields) = report.as_object_mut() {
        fields.remove("sim_wall_s");
        fields.remove("warp_insts_per_s");
    }
    report
}

/// `cargo build --release -p warplab` into `target` with `rustflags`;
/// returns the CLI's path.
fn build_cli(target: &Path, rustflags: &str) -> Result<PathBuf> {
    let mut build = command("cargo", &["build", "--release", "-p", "warplab"]);
    exec(build.env("RUSTFLAGS", rustflags).env("CARGO_TARGET_DIR", target))?;
    Ok(target.join("release").join("warplab"))
}

fn path_str(path: &Path) -> Result<&str> {
    path.to_str().ok_or_else(|| format!("{} is not UTF-8", path.display()))
}
