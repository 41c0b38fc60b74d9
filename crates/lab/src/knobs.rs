//! The config knobs a sweep varies and a slider moves: each a name, what it
//! means, and the `gpgpusim.config` option it sets. A knob never edits a
//! `GpuConfig` field directly: the config is written out, the option is
//! appended and the files are read back, so every knobbed config went
//! through the same validation as a file a user loaded.
//!
//! Only `n_sms` and `l1_mshrs` change what the analytical models profile
//! (the cache pass spreads a wave's CTAs over the SMs and admits as many
//! misses per round as the L1 has MSHRs); bandwidths and clocks never do, so
//! a sweep over those profiles once.

use serde::{Deserialize, Serialize};
use warplab_config::GpuConfig;

use crate::LabError;

/// One knob.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigKnob {
    /// The name `--vary` and `--set` take.
    pub name: &'static str,
    /// One line on what it changes.
    pub summary: &'static str,
    /// The option it sets.
    pub option: &'static str,
}

/// Every knob, in the order the docs list them.
pub const CONFIG_KNOBS: [ConfigKnob; 5] = [
    ConfigKnob {
        name: "n_sms",
        summary: "SMs on the GPU (clusters × cores per cluster; must be a multiple of the cores per cluster)",
        option: "-gpgpu_n_clusters",
    },
    ConfigKnob {
        name: "l1_mshrs",
        summary: "L1 data-cache MSHR entries per SM (the MSHR field of the L1 cache string)",
        option: "-gpgpu_cache:dl1",
    },
    ConfigKnob {
        name: "noc_bw_scale",
        summary: "interconnect bandwidth as a multiple of the config's (scales the icnt clock, so crossing latency shrinks too)",
        option: "-gpgpu_clock_domains",
    },
    ConfigKnob {
        name: "dram_bw_scale",
        summary: "DRAM bandwidth as a multiple of the config's (scales the DRAM clock, so DRAM timings in ns shrink too)",
        option: "-gpgpu_clock_domains",
    },
    ConfigKnob { name: "core_clock_mhz", summary: "SM clock in MHz", option: "-gpgpu_clock_domains" },
];

/// The knob called `name`.
///
/// # Errors
/// No knob has that name; the message lists them.
pub fn config_knob(name: &str) -> Result<ConfigKnob, LabError> {
    CONFIG_KNOBS.iter().copied().find(|k| k.name == name).ok_or_else(|| {
        let names: Vec<_> = CONFIG_KNOBS.iter().map(|k| k.name).collect();
        LabError::Knob(format!("unknown knob `{name}`; the knobs are {}", names.join(", ")))
    })
}

/// `config` with knob `name` set to `value`.
///
/// # Errors
/// An unknown knob, a value the knob cannot take, or a config the value
/// makes invalid (named as the config reader names it).
pub fn apply_knob(config: &GpuConfig, name: &str, value: f64) -> Result<GpuConfig, LabError> {
    let knob = config_knob(name)?;
    if !value.is_finite() || value <= 0.0 {
        return Err(LabError::Knob(format!("{name} = {value}: must be a positive number")));
    }
    let whole = || {
        if value.fract() == 0.0 && value <= f64::from(u32::MAX) {
            Ok(value as u32)
        } else {
            Err(LabError::Knob(format!("{name} = {value}: must be a whole number")))
        }
    };
    let clocks = &config.clocks;
    let domains = |core: f64, icnt: f64, dram: f64| format!("{core}:{icnt}:{}:{dram}", clocks.l2.mhz());
    let setting = match knob.name {
        "n_sms" => {
            let per_cluster = config.cores.cores_per_cluster.max(1);
            let n = whole()?;
            if n % per_cluster != 0 {
                return Err(LabError::Knob(format!(
                    "n_sms = {n}: must be a multiple of the {per_cluster} cores per cluster"
                )));
            }
            (n / per_cluster).to_string()
        }
        "l1_mshrs" => {
            let Some(mut dl1) = config.l1.dl1.clone() else {
                return Err(LabError::Knob("l1_mshrs: this config has no L1 data cache".to_owned()));
            };
            dl1.mshr_entries = whole()?;
            dl1.to_string()
        }
        "noc_bw_scale" => domains(clocks.core.mhz(), clocks.icnt.mhz() * value, clocks.dram.mhz()),
        "dram_bw_scale" => domains(clocks.core.mhz(), clocks.icnt.mhz(), clocks.dram.mhz() * value),
        _ => domains(value, clocks.icnt.mhz(), clocks.dram.mhz()),
    };
    with_option(config, knob.option, &setting)
}

/// `config` with every `(knob, value)` applied in order.
///
/// # Errors
/// As [`apply_knob`], for the first that fails.
pub fn apply_knobs(config: &GpuConfig, knobs: &[(String, f64)]) -> Result<GpuConfig, LabError> {
    knobs.iter().try_fold(config.clone(), |config, (name, value)| apply_knob(&config, name, *value))
}

/// The parts of a config the knobs change that reach the profile: the SM
/// count (the cache pass spreads each wave's CTAs over the SMs) and the L1
/// MSHRs as the models count them (the pass lets as many misses through per
/// round). The bandwidth and clock knobs reach the profile only through the
/// idle latencies it ranks its slowest paths by, which the page accepts for
/// a slider's preview; a sweep keys its profiles on the exact
/// [`crate::ProfileKey`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProfiledKnobs {
    /// SMs on the GPU.
    pub n_sms: u32,
    /// L1 MSHR entries in use per SM.
    pub l1_mshrs: u32,
}

impl ProfiledKnobs {
    /// The profiled parts of `config`.
    pub fn of(config: &GpuConfig) -> Self {
        let machine = warplab_model::Machine::of(config);
        Self { n_sms: machine.n_sms, l1_mshrs: machine.l1_mshrs }
    }
}

/// `config` with `-option value` appended and read back.
pub(crate) fn with_option(config: &GpuConfig, option: &str, value: &str) -> Result<GpuConfig, LabError> {
    let mut files = config.to_files();
    files.push(("knobs.config".to_owned(), format!("{option} {value}\n")));
    Ok(GpuConfig::read(files.iter().map(|(name, text)| (name.as_str(), text.as_str())))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qv100() -> GpuConfig {
        warplab_config::preset("QV100").unwrap().config().unwrap()
    }

    #[test]
    fn each_knob_sets_its_option() {
        let base = qv100();
        assert_eq!(apply_knob(&base, "n_sms", 40.0).unwrap().n_sms(), 40);
        assert_eq!(apply_knob(&base, "l1_mshrs", 64.0).unwrap().l1.dl1.unwrap().mshr_entries, 64);
        let noc = apply_knob(&base, "noc_bw_scale", 0.5).unwrap();
        assert_eq!(noc.noc_bandwidth_bytes_per_second() * 2, base.noc_bandwidth_bytes_per_second());
        let dram = apply_knob(&base, "dram_bw_scale", 2.0).unwrap();
        assert_eq!(dram.dram_bandwidth_bytes_per_second(), 2 * base.dram_bandwidth_bytes_per_second());
        assert_eq!(apply_knob(&base, "core_clock_mhz", 1000.0).unwrap().clocks.core.khz(), 1_000_000);
        let both = apply_knobs(&base, &[("n_sms".to_owned(), 20.0), ("l1_mshrs".to_owned(), 32.0)]).unwrap();
        assert_eq!((both.n_sms(), both.l1.dl1.unwrap().mshr_entries), (20, 32));
    }

    #[test]
    fn bad_values_are_errors_that_say_why() {
        let base = qv100();
        let message = |name: &str, value: f64| apply_knob(&base, name, value).unwrap_err().to_string();
        assert!(message("warps", 4.0).contains("the knobs are n_sms"));
        assert!(message("n_sms", 2.5).contains("whole number"));
        assert!(message("n_sms", -1.0).contains("positive"));
        assert!(message("n_sms", 5000.0).contains("-gpgpu_n_clusters"), "{}", message("n_sms", 5000.0));
        assert!(message("core_clock_mhz", f64::NAN).contains("positive"));
    }
}
