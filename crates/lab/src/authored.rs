//! An authored kernel file's workload for a GPU: compiled and run
//! functionally with that GPU's limits, as `warplab gen-trace --kernel`
//! writes it. The CLI and the Accel-Sim reference (a case whose trace is
//! made from a `.cu` file) share this, so the reference regenerates exactly
//! the trace a user writes.

use warplab_cuda::{CheckOptions, Compiled, Run, RunOptions, Workload};

use crate::GpuConfig;

/// The functional run's options for `config`: its shared memory and
/// registers per block bound what a launch may use, and its compute
/// capability picks the SASS dialect of the trace.
pub fn authored_run_options(config: &GpuConfig, record: bool, max_warp_insts: u64) -> RunOptions {
    RunOptions {
        max_warp_insts,
        record,
        shared_bytes_per_block: config.l1.shmem_per_cta_bytes,
        registers_per_block: config.cores.regs_per_cta,
        binary_version: warplab_cuda::binary_version_for(config.cores.compute_capability),
    }
}

/// Compiles `source` (named `file` in errors) for `config`'s shared memory
/// per block and runs it functionally with [`authored_run_options`].
///
/// # Errors
/// A compile error, a fault, or a launch past `max_warp_insts`, located
/// (`FILE:LINE:COL: error: ...`).
pub fn compile_and_run(
    file: &str,
    source: &str,
    config: &GpuConfig,
    record: bool,
    max_warp_insts: u64,
) -> Result<(Compiled, Run), String> {
    let options = CheckOptions { shared_bytes_per_block: config.l1.shmem_per_cta_bytes };
    let compiled = warplab_cuda::compile(file, source, &options).map_err(|error| error.to_string())?;
    let run_options = authored_run_options(config, record, max_warp_insts);
    let run = warplab_cuda::run(file, source, &compiled, &run_options).map_err(|error| error.to_string())?;
    Ok((compiled, run))
}

/// The workload of an authored kernel file for `config`, at the default
/// instruction budget: what `warplab gen-trace --kernel` writes.
///
/// # Errors
/// As [`compile_and_run`].
pub fn authored_workload(file: &str, source: &str, config: &GpuConfig) -> Result<Workload, String> {
    let (_, run) = compile_and_run(file, source, config, true, warplab_cuda::DEFAULT_MAX_WARP_INSTS)?;
    run.workload.ok_or_else(|| format!("{file}: the run recorded no workload"))
}
