//! The arguments every modelling command shares: the GPU (a config and knob
//! settings) and the workload (a trace or a generator spec).

use std::fmt::Display;
use std::path::PathBuf;

use clap::Args;
use warplab_lab::{GenSpec, GeneratedWorkload, GpuConfig, TraceWorkload, WorkloadSource};

use crate::kernel::KernelFile;
use crate::{config_files, generated, trace_files};

/// `--config`, `--set`, `--trace` / `--gen` and `--memcpy-warms-l2`.
#[derive(Debug, Clone, Args)]
pub struct ExperimentArgs {
    /// The GPU: a preset name (QV100, A100, RTX3070, H100, ...), a directory, or files in order.
    // Checked in `config()` rather than by clap: `run --experiment` takes
    // the GPU from the experiment and `--config` only for the user's files.
    #[arg(long, num_args = 1.., value_name = "CONFIG")]
    pub config: Vec<PathBuf>,
    /// Set a config knob (n_sms, l1_mshrs, noc_bw_scale, dram_bw_scale, core_clock_mhz); repeatable.
    #[arg(long = "set", value_name = "KNOB=VALUE")]
    pub set: Vec<String>,
    /// A trace directory, its kernelslist.g, or one .traceg(.xz) file.
    #[arg(long, conflicts_with = "generated")]
    pub trace: Option<PathBuf>,
    /// A generated workload instead: KERNEL[:name=value,...], sized for --config.
    #[arg(long = "gen", value_name = "KERNEL[:k=v,...]")]
    pub generated: Option<String>,
    /// An authored kernel instead: a CUDA C file, compiled and run functionally for --config.
    #[arg(long = "kernel", value_name = "FILE.cu", conflicts_with_all = ["trace", "generated"])]
    pub kernel: Option<PathBuf>,
    /// Host-to-device copies fill the L2 (off by default, as Accel-Sim's reference figures assume).
    #[arg(long)]
    pub memcpy_warms_l2: bool,
}

impl ExperimentArgs {
    /// The config with the `--set` knobs applied, and its label.
    pub fn config(&self) -> Result<(String, GpuConfig), String> {
        if self.config.is_empty() {
            return Err("give --config CONFIG (a preset name, a directory or files)".to_owned());
        }
        let (mut label, config) = config_files::load(&self.config)?;
        let knobs = self.set.iter().map(|s| parse_setting(s)).collect::<Result<Vec<_>, _>>()?;
        let config = warplab_lab::apply_knobs(&config, &knobs).map_err(|e| format!("--set: {e}"))?;
        for (name, value) in &knobs {
            label.push_str(&format!(" {name}={value}"));
        }
        Ok((label, config))
    }

    /// The workload `--trace` or `--gen` names, resolved once (a trace's
    /// `kernelslist.g` is read here, not per run).
    pub fn workload(&self) -> Result<Workload, String> {
        match (&self.trace, &self.generated) {
            (Some(path), _) => {
                let (dir, list) = trace_files::list_of(path)?;
                Ok(Workload::Trace { label: path.display().to_string(), dir, list })
            }
            (None, Some(spec)) => Ok(Workload::Generated(generated::spec(spec, None, &[])?)),
            (None, None) => match &self.kernel {
                Some(path) => Ok(Workload::Authored(KernelFile::read(path)?)),
                None => Err("give --trace PATH, --gen KERNEL or --kernel FILE.cu".to_owned()),
            },
        }
    }
}

/// An experiment's workload: a trace directory with its `kernelslist.g`
/// text, or a generator spec.
pub enum Workload {
    /// A trace; `label` is the path as given.
    Trace { label: String, dir: PathBuf, list: String },
    /// A generated workload.
    Generated(GenSpec),
    /// An authored kernel file.
    Authored(KernelFile),
}

impl Workload {
    /// The workload as given on the command line.
    pub fn label(&self) -> String {
        match self {
            Workload::Trace { label, .. } => label.clone(),
            Workload::Generated(spec) => spec.to_string(),
            Workload::Authored(file) => file.name.clone(),
        }
    }

    /// A fresh command stream for the simulator or the profiler; a trace's
    /// kernel files are opened as they are reached.
    pub fn source(&self, config: &GpuConfig) -> Result<Box<dyn WorkloadSource>, String> {
        Ok(match self {
            Workload::Trace { dir, list, .. } => {
                Box::new(TraceWorkload::owning(list, Box::new(trace_files::opener(dir))).map_err(|e| self.context(e))?)
            }
            Workload::Generated(spec) => Box::new(GeneratedWorkload::new(spec, config).map_err(|e| self.context(e))?),
            Workload::Authored(file) => file.source(config)?,
        })
    }

    /// An error met reading the workload, a trace's with its directory in front.
    pub fn context(&self, error: impl Display) -> String {
        match self {
            Workload::Trace { dir, .. } => format!("{}: {error}", dir.display()),
            Workload::Generated(_) | Workload::Authored(_) => error.to_string(),
        }
    }
}

/// A comma-separated list of numbers; `flag` names it in the error.
pub fn numbers<T: std::str::FromStr>(flag: &str, text: &str) -> Result<Vec<T>, String> {
    text.split(',')
        .map(|v| v.trim().parse::<T>().map_err(|_| format!("{flag}: `{}` is not a number", v.trim())))
        .collect()
}

/// `KNOB=VALUE`.
pub fn parse_setting(text: &str) -> Result<(String, f64), String> {
    let (name, value) = text.split_once('=').ok_or_else(|| format!("`{text}`: expected KNOB=VALUE"))?;
    let value = value.trim().parse::<f64>().map_err(|_| format!("`{text}`: `{value}` is not a number"))?;
    Ok((name.trim().to_owned(), value))
}
