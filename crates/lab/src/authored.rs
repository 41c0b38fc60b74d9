//! Authored kernels (issue 41): a CUDA C file compiled and run functionally
//! for a GPU config, the way the command line's `--kernel` and the page's
//! editor both make a workload of one, so the two always run the same
//! instructions.

use warplab_config::GpuConfig;
use warplab_cuda::{CheckOptions, Compiled, Diagnostic, Run, RunOptions, Workload, binary_version_for};

/// The longest kernel source an experiment carries, in bytes: an
/// experiment file holds at most [`crate::MAX_JSON_BYTES`] of JSON, and a
/// kernel's source is most of it (a teaching kernel is a few kilobytes).
pub const MAX_KERNEL_SOURCE_BYTES: usize = 48 * 1024;

/// The functional run's options for `config`: its shared memory and
/// registers per block bound a launch, its compute capability picks the
/// SASS's binary version; `record` keeps the workload, `max_warp_insts`
/// bounds each launch, and `budget_hint` says after a launch past it what
/// the user can do (see [`RunOptions::budget_hint`]).
pub fn run_options(config: &GpuConfig, record: bool, max_warp_insts: u64, budget_hint: &str) -> RunOptions {
    RunOptions {
        max_warp_insts,
        budget_hint: budget_hint.to_owned(),
        record,
        shared_bytes_per_block: config.l1.shmem_per_cta_bytes,
        registers_per_block: config.cores.regs_per_cta,
        binary_version: binary_version_for(config.cores.compute_capability),
    }
}

/// Compiles the file `name` holding `source` for `config`'s shared memory
/// per block.
///
/// # Errors
/// The first compile error, located.
pub fn compile_kernel(name: &str, source: &str, config: &GpuConfig) -> Result<Compiled, Diagnostic> {
    let options = CheckOptions { shared_bytes_per_block: config.l1.shmem_per_cta_bytes };
    warplab_cuda::compile(name, source, &options)
}

/// Compiles and runs the file `name` holding `source` for `config`, each
/// launch within `max_warp_insts` (`budget_hint` as in [`run_options`]).
///
/// # Errors
/// The first compile error, fault or budget run out, located.
pub fn run_kernel(
    name: &str,
    source: &str,
    config: &GpuConfig,
    record: bool,
    max_warp_insts: u64,
    budget_hint: &str,
) -> Result<(Compiled, Run), Diagnostic> {
    let compiled = compile_kernel(name, source, config)?;
    let options = run_options(config, record, max_warp_insts, budget_hint);
    let run = warplab_cuda::run(name, source, &compiled, &options)?;
    Ok((compiled, run))
}

/// The workload of an authored kernel file for `config`, at the default
/// instruction budget: what `warplab gen-trace --kernel` writes, and what the
/// Accel-Sim reference regenerates for a case made from a `.cu` file.
///
/// # Errors
/// As [`run_kernel`], as text.
pub fn authored_workload(name: &str, source: &str, config: &GpuConfig) -> Result<Workload, String> {
    // `--kernel` has no flag for the budget; `kernel check` has one, and
    // tells how many warp instructions each launch needs.
    let hint =
        format!("the default for --kernel; `warplab kernel check {name} --max-warp-insts N` runs it with another");
    let (_, run) = run_kernel(name, source, config, true, warplab_cuda::DEFAULT_MAX_WARP_INSTS, &hint)
        .map_err(|error| error.to_string())?;
    run.workload.ok_or_else(|| format!("{name}: the run recorded no workload"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const VECADD: &str = include_str!("../../cuda/examples/vecadd.cu");

    #[test]
    fn a_kernel_runs_for_the_config_and_records_its_workload() {
        let (_, config) = crate::preset_config("QV100").expect("a preset");
        let (compiled, run) = run_kernel("vecadd.cu", VECADD, &config, true, 1 << 30, "").expect("vecadd runs");
        assert_eq!(compiled.kernels.len(), 1);
        assert_eq!(run.launches.len(), 1);
        let workload = run.workload.expect("recorded");
        let summary = crate::summarize_workload("vecadd.cu", &workload);
        assert_eq!(summary.totals.warp_insts, run.warp_insts);
        assert_eq!(summary.kernels[0].name, "vecadd");
        let (_, counted) = run_kernel("vecadd.cu", VECADD, &config, false, 1 << 30, "").expect("vecadd runs");
        assert!(counted.workload.is_none(), "a run that only counts keeps nothing");
    }

    #[test]
    fn errors_come_back_located_and_a_budget_stops_a_run() {
        let (_, config) = crate::preset_config("QV100").expect("a preset");
        let broken = VECADD.replacen("c[i] = a[i] + b[i];", "c[i] = a[i] + q;", 1);
        let error = compile_kernel("k.cu", &broken, &config).expect_err("q is undeclared");
        assert_eq!(error.headline(), "k.cu:8:23: error: use of undeclared identifier 'q'");
        let error = run_kernel("k.cu", VECADD, &config, false, 10, "a hint").expect_err("over budget");
        assert_eq!(error.message, "kernel 'vecadd' ran past its budget of 10 warp instructions in one launch (a hint)");
    }
}
