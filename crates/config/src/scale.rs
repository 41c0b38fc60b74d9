//! The scale-model operator (DESIGN §6): divide (or multiply) the shared
//! resources, SMs and memory channels, and keep every per-SM, per-channel and
//! per-slice parameter, so that LLC capacity, NoC and DRAM bandwidth follow.

use serde::{Deserialize, Serialize};

use crate::chiplets::MAX_CHIPLETS;
use crate::error::ConfigError;
use crate::gpu::GpuConfig;
use crate::interconnect::NetworkMode;
use crate::memory::{MAX_CHANNELS, PartitionIndexing};
use crate::sm::MAX_SMS;

/// A scaled config and what scaling had to change beyond the counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scaled {
    /// The scaled configuration.
    pub config: GpuConfig,
    /// Adjustments and caveats, e.g. an IPOLY fallback.
    pub diagnostics: Vec<Diagnostic>,
}

/// A note about a config: which option, and what happened to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// The option concerned.
    pub option: String,
    /// What happened, one line.
    pub message: String,
}

impl GpuConfig {
    /// The scale model of factor `factor`: SMs (clusters) and memory channels
    /// divided by it; every per-SM, per-channel and per-slice parameter kept,
    /// so the LLC capacity (slices), NoC bandwidth (one port per slice) and
    /// DRAM bandwidth (channels) shrink by the same factor. If the partition
    /// indexing no longer fits the slice count, it falls back to consecutive
    /// indexing with a diagnostic.
    ///
    /// # Errors
    ///
    /// A factor of 0, or one that does not divide the cluster count or the
    /// channel count ([`ConfigError::ScaleFactor`]).
    ///
    /// A GPU of several chiplets is scaled by whole chiplets (the chiplet
    /// scale operator): the chiplet count is divided too, and each chiplet
    /// keeps its SMs, channels, slices and link bandwidth, so the
    /// inter-chiplet bisection bandwidth shrinks with the system; a factor
    /// that does not divide the chiplet count is an error.
    pub fn scale_shared(&self, factor: u32) -> Result<Scaled, ConfigError> {
        let n_clusters = divide(factor, "-gpgpu_n_clusters", self.cores.n_clusters)?;
        let n_channels = divide(factor, "-gpgpu_n_mem", self.memory.n_channels)?;
        let chiplets = if self.chiplets.enabled() {
            divide(factor, "-gpgpu_n_chiplet_partition", self.chiplets.count).map_err(whole_chiplets)?
        } else {
            1
        };
        Ok(self.with_counts(n_clusters, n_channels, chiplets))
    }

    /// The inverse of [`GpuConfig::scale_shared`]: SMs and channels multiplied by `factor`.
    ///
    /// # Errors
    ///
    /// A factor of 0, or a result beyond 1,024 SMs or 1,024 channels.
    pub fn scale_up(&self, factor: u32) -> Result<Scaled, ConfigError> {
        let n_clusters =
            multiply(factor, "-gpgpu_n_clusters", self.cores.n_clusters, MAX_SMS / self.cores.cores_per_cluster)?;
        let n_channels = multiply(factor, "-gpgpu_n_mem", self.memory.n_channels, MAX_CHANNELS)?;
        let chiplets = if self.chiplets.enabled() {
            multiply(factor, "-gpgpu_n_chiplet_partition", self.chiplets.count, MAX_CHIPLETS)?
        } else {
            1
        };
        Ok(self.with_counts(n_clusters, n_channels, chiplets))
    }

    fn with_counts(&self, n_clusters: u32, n_channels: u32, chiplets: u32) -> Scaled {
        let mut config = self.clone();
        config.cores.n_clusters = n_clusters;
        config.memory.n_channels = n_channels;
        config.chiplets.count = chiplets;
        let mut diagnostics = Vec::new();
        if !config.memory.indexing_fits() {
            diagnostics.push(Diagnostic {
                option: "-gpgpu_memory_partition_indexing".to_owned(),
                message: format!("{}; fell back to consecutive indexing (0)", config.memory.ipoly_rule()),
            });
            config.memory.partition_indexing = PartitionIndexing::Consecutive;
        }
        if let Some(k) = booksim_node_count(&config) {
            diagnostics.push(Diagnostic {
                option: "k".to_owned(),
                message: format!(
                    "the .icnt file's k = {k} is kept; the scaled GPU has {} SMs and {} L2 slices",
                    config.n_sms(),
                    config.memory.n_sub_partitions()
                ),
            });
        }
        Scaled { config, diagnostics }
    }
}

/// BookSim's `k` in BookSim mode: it sizes the network, and scaling does not change it.
fn booksim_node_count(config: &GpuConfig) -> Option<&str> {
    let icnt = config.interconnect.icnt.as_ref().filter(|_| config.interconnect.mode == NetworkMode::BookSim)?;
    icnt.get("k")
}

/// A chiplet GPU divides only by a divisor of its chiplets.
fn whole_chiplets(error: ConfigError) -> ConfigError {
    match error {
        ConfigError::ScaleFactor { factor, option, count, .. } if factor > 0 => ConfigError::ScaleFactor {
            factor,
            option,
            count,
            reason: format!("a GPU of {count} chiplets is scaled by whole chiplets"),
        },
        other => other,
    }
}

fn divide(factor: u32, option: &str, count: u32) -> Result<u32, ConfigError> {
    if factor == 0 || !count.is_multiple_of(factor) {
        let reason = if factor == 0 {
            "the factor must be at least 1".to_owned()
        } else {
            format!("{count} is not divisible by {factor}")
        };
        return Err(ConfigError::ScaleFactor { factor, option: option.to_owned(), count, reason });
    }
    Ok(count / factor)
}

fn multiply(factor: u32, option: &str, count: u32, limit: u32) -> Result<u32, ConfigError> {
    match count.checked_mul(factor) {
        Some(scaled) if factor > 0 && scaled <= limit => Ok(scaled),
        _ => {
            let reason = if factor == 0 {
                "the factor must be at least 1".to_owned()
            } else {
                format!("the result exceeds the limit of {limit}")
            };
            Err(ConfigError::ScaleFactor { factor, option: option.to_owned(), count, reason })
        }
    }
}
