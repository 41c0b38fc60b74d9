//! The arguments every modelling command shares: the GPU (a config and knob
//! settings) and the workload (a trace or a generator spec).

use std::path::PathBuf;

use clap::Args;
use warplab_lab::GpuConfig;

use crate::config_files;

/// `--config`, `--set`, `--trace` / `--gen` and `--memcpy-warms-l2`.
#[derive(Debug, Clone, Args)]
pub struct ExperimentArgs {
    /// The GPU: a preset name (QV100, A100, RTX3070, H100, ...), a directory, or files in order.
    #[arg(long, required = true, num_args = 1.., value_name = "CONFIG")]
    pub config: Vec<PathBuf>,
    /// Set a config knob (n_sms, l1_mshrs, noc_bw_scale, dram_bw_scale, core_clock_mhz); repeatable.
    #[arg(long = "set", value_name = "KNOB=VALUE")]
    pub set: Vec<String>,
    /// A trace directory, its kernelslist.g, or one .traceg(.xz) file.
    #[arg(long, required_unless_present = "generated", conflicts_with = "generated")]
    pub trace: Option<PathBuf>,
    /// A generated workload instead: KERNEL[:name=value,...], sized for --config.
    #[arg(long = "gen", value_name = "KERNEL[:k=v,...]")]
    pub generated: Option<String>,
    /// Host-to-device copies fill the L2 (off by default, as Accel-Sim's reference figures assume).
    #[arg(long)]
    pub memcpy_warms_l2: bool,
}

impl ExperimentArgs {
    /// The config with the `--set` knobs applied, and its label.
    pub fn config(&self) -> Result<(String, GpuConfig), String> {
        let (mut label, config) = config_files::load(&self.config)?;
        let knobs = self.set.iter().map(|s| parse_setting(s)).collect::<Result<Vec<_>, _>>()?;
        let config = warplab_lab::apply_knobs(&config, &knobs).map_err(|e| format!("--set: {e}"))?;
        for (name, value) in &knobs {
            label.push_str(&format!(" {name}={value}"));
        }
        Ok((label, config))
    }
}

/// `KNOB=VALUE`.
pub fn parse_setting(text: &str) -> Result<(String, f64), String> {
    let (name, value) = text.split_once('=').ok_or_else(|| format!("`{text}`: expected KNOB=VALUE"))?;
    let value = value.trim().parse::<f64>().map_err(|_| format!("`{text}`: `{value}` is not a number"))?;
    Ok((name.trim().to_owned(), value))
}
