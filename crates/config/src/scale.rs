//! The scale-model operator (DESIGN §6): divide (or multiply) the shared
//! resources, SMs and memory channels, and keep every per-SM, per-channel and
//! per-slice parameter, so that LLC capacity, NoC and DRAM bandwidth follow.

use serde::{Deserialize, Serialize};

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
    pub fn scale_shared(&self, factor: u32) -> Result<Scaled, ConfigError> {
        let n_clusters = divide(factor, "-gpgpu_n_clusters", self.cores.n_clusters)?;
        let n_channels = divide(factor, "-gpgpu_n_mem", self.memory.n_channels)?;
        Ok(self.with_counts(n_clusters, n_channels))
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
        Ok(self.with_counts(n_clusters, n_channels))
    }

    fn with_counts(&self, n_clusters: u32, n_channels: u32) -> Scaled {
        let mut config = self.clone();
        config.cores.n_clusters = n_clusters;
        config.memory.n_channels = n_channels;
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
