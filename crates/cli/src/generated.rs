//! Generated workloads on the command line: `--gen KERNEL[:k=v,...]`,
//! `gen-trace`, and the list of generators.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use warplab_lab::{
    GENERATORS, GenSpec, GpuConfig, Knob, SAMPLE_TRACES, WorkloadSummary, generate, sample_files, summarize_generated,
    write_workload,
};

use crate::config_files;

/// A generator spec with the `--size` and `--set` flags applied on top.
pub fn spec(text: &str, size: Option<u64>, sets: &[String]) -> Result<GenSpec, String> {
    let mut spec: GenSpec = text.parse().map_err(|e| format!("{e}"))?;
    if let Some(size) = size {
        spec.size = Some(size);
    }
    for pair in sets {
        let (name, value) = GenSpec::parse_pair(pair).map_err(|e| e.to_string())?;
        spec.set(&name, value);
    }
    Ok(spec)
}

/// The config a generator is sized for: `--for CONFIG`, else the default preset.
pub fn target(for_config: &[PathBuf]) -> Result<GpuConfig, String> {
    if for_config.is_empty() {
        return warplab_lab::default_config().map(|(_, config)| config).map_err(|e| e.to_string());
    }
    config_files::load(for_config).map(|(_, config)| config)
}

/// Summarizes a generated workload, as `info` prints it.
pub fn summarize(spec: &GenSpec, config: &GpuConfig) -> Result<WorkloadSummary, String> {
    summarize_generated(spec, config).map_err(|e| e.to_string())
}

/// Writes the workload `spec` generates into `output` as an Accel-Sim trace.
pub fn write_trace(spec: &GenSpec, config: &GpuConfig, output: &Path, xz: bool) -> Result<String, String> {
    // Check the spec before anything is created on disk.
    let workload = generate(spec, config).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(output).map_err(|e| format!("{}: {e}", output.display()))?;
    let mut create = |name: &str| -> Result<Box<dyn Write>, String> {
        let file = File::create(output.join(name)).map_err(|e| e.to_string())?;
        Ok(Box::new(BufWriter::new(file)))
    };
    write_workload(&workload, xz, &mut create).map_err(|e| format!("{}: {e}", output.display()))?;
    Ok(format!("{}: wrote {}\n", workload.name, output.display()))
}

/// The generators with their size and knobs.
pub fn list() -> String {
    let mut out = String::new();
    for generator in GENERATORS {
        out += &format!("{}: {}\n", generator.name, generator.summary);
        if generator.uses_config {
            out += "  sized for the config given with --for (default: the default preset)\n";
        }
        for knob in std::iter::once(&generator.size).chain(generator.knobs) {
            out += &knob_line(knob);
        }
    }
    out
}

fn knob_line(knob: &Knob) -> String {
    format!("  {:<8} {:>8}  ({}..={})  {}\n", knob.name, knob.default, knob.min, knob.max, knob.help)
}

/// The bundled samples and where each comes from.
pub fn list_samples() -> String {
    let mut out = String::new();
    for sample in SAMPLE_TRACES {
        let origin = sample.spec.unwrap_or(sample.description);
        out += &format!("{:<12} {:<44} {origin}\n", sample.name, sample.dir);
    }
    out
}

/// Rewrites every generated sample under `root` (its directory emptied
/// first, so no stale kernel file survives).
pub fn regenerate_samples(root: &Path) -> Result<String, String> {
    let mut out = String::new();
    for sample in SAMPLE_TRACES {
        let Some(files) = sample_files(sample) else { continue };
        let files = files.map_err(|e| format!("{}: {e}", sample.name))?;
        let dir = root.join(sample.dir);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut bytes = 0;
        for (name, contents) in &files {
            let path = dir.join(name);
            std::fs::write(&path, contents).map_err(|e| format!("{}: {e}", path.display()))?;
            bytes += contents.len();
        }
        out += &format!("{:<12} {} files, {bytes} bytes\n", sample.name, files.len());
    }
    Ok(out)
}
