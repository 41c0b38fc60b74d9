//! Generated workloads: a [`GenSpec`] run for a GPU configuration, then
//! summarized like a trace or written out as one.

use std::io;

use warplab_config::GpuConfig;
use warplab_kernels::{Command, GenSpec, Workload};

use crate::memory_files::{MemoryFiles, NamedFile};
use crate::samples::SampleTrace;
use crate::workload::{CreateWrite, LabError, Memcpy, WorkloadSummary};

/// Runs the generator `spec` names, sized for `config` (the microbenchmarks
/// size their arrays for its caches).
///
/// # Errors
/// An unknown generator or knob, or a value out of range.
pub fn generate(spec: &GenSpec, config: &GpuConfig) -> Result<Workload, LabError> {
    warplab_kernels::generate(spec, config).map_err(LabError::Gen)
}

/// The summary `warplab info --gen` and the web app's generator form show.
/// The label is the canonical spec (knobs at their default left out).
///
/// # Errors
/// As [`generate`].
pub fn summarize_generated(spec: &GenSpec, config: &GpuConfig) -> Result<WorkloadSummary, LabError> {
    let workload = generate(spec, config)?;
    Ok(summarize_workload(&workload.name, &workload))
}

/// The summary of a workload made in memory (a generator's or an authored
/// kernel's), labelled `label`.
pub fn summarize_workload(label: &str, workload: &Workload) -> WorkloadSummary {
    let mut summary = WorkloadSummary { label: label.to_owned(), ..WorkloadSummary::default() };
    for command in &workload.commands {
        match command {
            Command::MemcpyHtoD { addr, bytes } => summary.memcpys.push(Memcpy { addr: *addr, bytes: *bytes }),
            Command::Kernel(kernel) => summary.add(kernel.summary()),
        }
    }
    summary
}

/// Writes the workload `spec` generates as an Accel-Sim trace directory
/// (see [`write_workload`]). Returns the workload's canonical name.
///
/// # Errors
/// As [`generate`], or a file that cannot be created or written.
pub fn write_generated(
    spec: &GenSpec,
    config: &GpuConfig,
    xz: bool,
    create: &mut CreateWrite<'_>,
) -> Result<String, LabError> {
    let workload = generate(spec, config)?;
    write_workload(&workload, xz, create)?;
    Ok(workload.name)
}

/// Writes a generated workload as an Accel-Sim trace directory:
/// `kernelslist.g` and one version-5 `.traceg` (or `.traceg.xz` when `xz`)
/// per kernel, each file made by `create`.
///
/// # Errors
/// A file that cannot be created or written.
pub fn write_workload(workload: &Workload, xz: bool, create: &mut CreateWrite<'_>) -> Result<(), LabError> {
    // `write_trace` speaks io::Error; remember which file failed to name it.
    let mut current = String::new();
    let result = workload.write_trace(xz, |file| {
        current = file.to_owned();
        create(file).map_err(io::Error::other)
    });
    result.map_err(|error| LabError::Write { file: current, reason: error.to_string() })
}

/// The files of a generated sample trace (`kernelslist.g` and xz kernel
/// traces), made in memory for the default preset exactly as `cargo xtask
/// samples` writes them. `None` for a traced sample.
///
/// # Errors
/// The sample's spec does not run (a bug a test catches).
pub fn sample_files(sample: &SampleTrace) -> Option<Result<Vec<NamedFile>, LabError>> {
    let spec = sample.spec?;
    Some(generated_files(spec, true))
}

/// The trace files `spec` generates for the default preset, in memory.
///
/// # Errors
/// A spec that does not parse or run.
pub fn generated_files(spec: &str, xz: bool) -> Result<Vec<NamedFile>, LabError> {
    let spec: GenSpec = spec.parse().map_err(LabError::Gen)?;
    let (_, config) = crate::default_config()?;
    let files = MemoryFiles::default();
    write_generated(&spec, &config, xz, &mut |name| Ok(files.create(name)))?;
    Ok(files.into_files())
}
