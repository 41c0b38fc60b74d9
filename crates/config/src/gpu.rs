//! The validated stage: `GpuConfig`, every parameter the timing and analytical
//! models read, built from the raw settings, plus the options it keeps as
//! written (unknown to GPGPU-Sim, or known but not modelled).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::cache::CacheConfig;
use crate::chiplets::Chiplets;
use crate::clocks::ClockDomains;
use crate::dram::DramConfig;
use crate::error::ConfigError;
use crate::files::{ConfigFileKind, file_kind};
use crate::interconnect::Interconnect;
use crate::known_options::known_option;
use crate::lookup::OptionReader;
use crate::memory::{L1Config, MemoryPartitions};
use crate::options::RawConfig;
use crate::sm::{Cores, Scheduling};
use crate::units::{ExecutionUnits, LatencyInitiation, UnitClass};
use crate::writer::OptionWriter;

/// Bytes of one L1 access: the 32-B sector GPGPU-Sim's coalescer (arch 40 and
/// later) cuts every global access into.
const L1_SECTOR_BYTES: u64 = 32;

/// A typed, validated GPU configuration. Built only by reading (or from a
/// preset, or by scaling one), so every value in it has passed the checks the
/// crate docs list; downstream code never handles a malformed value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuConfig {
    /// SM count and per-SM limits.
    pub cores: Cores,
    /// Warp schedulers.
    pub scheduling: Scheduling,
    /// Functional units and their latencies.
    pub units: ExecutionUnits,
    /// L1 data cache and shared memory.
    pub l1: L1Config,
    /// `-gpgpu_cache:il1`: the instruction cache; `None` for `none`.
    pub l1i: Option<CacheConfig>,
    /// Memory partitions and L2 slices.
    pub memory: MemoryPartitions,
    /// DRAM per channel.
    pub dram: DramConfig,
    /// SM-to-partition network.
    pub interconnect: Interconnect,
    /// Chiplets and the network between them (one chiplet: a monolithic GPU).
    pub chiplets: Chiplets,
    /// Clock domains.
    pub clocks: ClockDomains,
    /// Kernel launch and concurrency.
    pub kernels: KernelLaunch,
    /// Options GPGPU-Sim does not know (kept and written back).
    pub unknown_options: Vec<KeptOption>,
    /// Options GPGPU-Sim knows and warplab does not model (kept and written back).
    pub unmodelled_options: Vec<KeptOption>,
}

/// Kernel launch overheads and concurrent kernels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelLaunch {
    /// `-gpgpu_concurrent_kernel_sm`: kernels may share an SM.
    pub concurrent_kernel_sm: bool,
    /// `-gpgpu_max_concurrent_kernel`.
    pub max_concurrent_kernels: u32,
    /// `-gpgpu_kernel_launch_latency`, core cycles.
    pub kernel_launch_latency_cycles: u32,
    /// `-gpgpu_TB_launch_latency`, core cycles.
    pub cta_launch_latency_cycles: u32,
}

/// An option kept as written: its final value, `None` for a standalone flag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptOption {
    /// The name (with its `-` for gpgpusim.config options; a key for `.icnt`).
    pub name: String,
    /// The value that won, quotes removed.
    pub value: Option<String>,
}

impl GpuConfig {
    /// Reads a config from (file name, text) pairs applied in order (later
    /// settings win): option files in gpgpusim.config format and BookSim
    /// `.icnt` files. For a directory, order the names with
    /// [`crate::order_config_files`] first.
    ///
    /// # Errors
    ///
    /// The first malformed, out-of-range, inconsistent or missing value, as a
    /// [`ConfigError`] naming file, line and option. Unknown options are not errors.
    pub fn read<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self, ConfigError> {
        Self::from_raw(&RawConfig::read(files)?)
    }

    /// Validates raw settings into a config.
    ///
    /// # Errors
    ///
    /// As [`GpuConfig::read`].
    pub fn from_raw(raw: &RawConfig) -> Result<Self, ConfigError> {
        Self::validate(raw).map(|(config, _)| config)
    }

    /// Validation proper; also returns the names of the options it read.
    fn validate(raw: &RawConfig) -> Result<(Self, BTreeSet<String>), ConfigError> {
        if !raw.files.iter().any(|file| file_kind(file) != ConfigFileKind::Icnt) {
            return Err(ConfigError::NoConfigFile { files: raw.files.join(", ") });
        }
        let mut r = OptionReader::new(raw);
        let cores = Cores::read(&mut r)?;
        let scheduling = Scheduling::read(&mut r, &cores)?;
        let units = ExecutionUnits::read(&mut r)?;
        let l1 = L1Config::read(&mut r)?;
        let l1i = CacheConfig::read(&r.required("-gpgpu_cache:il1", "the instruction cache string is required")?)?;
        let memory = MemoryPartitions::read(&mut r)?;
        let chiplets = Chiplets::read(&mut r, &cores, &memory)?;
        let mut config = Self {
            cores,
            scheduling,
            units,
            l1,
            l1i,
            memory,
            chiplets,
            dram: DramConfig::read(&mut r)?,
            interconnect: Interconnect::read(&mut r, raw)?,
            clocks: ClockDomains::read(&mut r)?,
            kernels: KernelLaunch::read(&mut r)?,
            unknown_options: Vec::new(),
            unmodelled_options: Vec::new(),
        };
        (config.unknown_options, config.unmodelled_options) = kept_options(raw, &r.modelled);
        Ok((config, r.modelled))
    }

    /// The number of SMs.
    pub fn n_sms(&self) -> u32 {
        self.cores.n_sms()
    }

    /// The chiplet SM `sm` is on (0 on a monolithic GPU).
    pub fn chiplet_of_sm(&self, sm: u32) -> u32 {
        let cluster = sm / self.cores.cores_per_cluster.max(1);
        self.chiplets.chiplet_of_cluster(cluster, self.cores.n_clusters)
    }

    /// The chiplet L2 slice `slice` is on: chiplets hold equal blocks of
    /// channels, and so of slices.
    pub fn chiplet_of_slice(&self, slice: u32) -> u32 {
        slice / (self.memory.n_sub_partitions() / self.chiplets.count.max(1)).max(1)
    }

    /// Trace-mode latency and initiation interval of a unit class.
    pub fn latency(&self, class: UnitClass) -> LatencyInitiation {
        self.units.latency(class)
    }

    /// Whether the SM has units of this class.
    pub fn has_unit(&self, class: UnitClass) -> bool {
        self.units.has_unit(class)
    }

    /// Peak DRAM bandwidth in bytes per second: channels × bus width × chips ×
    /// data/command ratio × DRAM clock.
    pub fn dram_bandwidth_bytes_per_second(&self) -> u64 {
        u64::from(self.memory.n_channels) * u64::from(self.dram.bytes_per_clock()) * self.clocks.dram.khz() * 1000
    }

    /// The data an L1 read miss brings back over the interconnect: a 32-B
    /// sector for a sectored L1 (or none), the whole line for one that is not.
    pub fn l1_block_bytes(&self) -> u32 {
        self.l1.dl1.as_ref().map_or(L1_SECTOR_BYTES as u32, CacheConfig::fetch_bytes)
    }

    /// The busier direction of an L1 read miss's round trip through the
    /// interconnect: its ports and the interconnect cycles a packet holds
    /// one. A miss is a header-only request packet from an SM into an L2
    /// slice's port and a reply of header and one L1 block back into the
    /// SM's port; a packet holds a port for [`Interconnect::port_cycles`]
    /// (`-icnt_subnets 2`, one network a direction, as every preset has).
    pub fn noc_bottleneck(&self) -> (u32, u32) {
        let ic = &self.interconnect;
        let slices = self.memory.n_sub_partitions();
        let header = crate::interconnect::PACKET_HEADER_BYTES;
        let request = (ic.ports(self.n_sms(), slices), ic.port_cycles(header));
        let reply = (ic.ports(slices, self.n_sms()), ic.port_cycles(header + self.l1_block_bytes()));
        // The lower rate, ports / cycles, compared without division.
        if u64::from(request.0) * u64::from(reply.1) <= u64::from(reply.0) * u64::from(request.1) {
            request
        } else {
            reply
        }
    }

    /// L1 read misses per second the interconnect carries at best: the
    /// busier direction's ports, each taking a packet every
    /// [`Self::noc_bottleneck`] cycles of the interconnect clock.
    pub fn noc_reads_per_second(&self) -> f64 {
        let (ports, cycles) = self.noc_bottleneck();
        f64::from(ports) / f64::from(cycles) * self.clocks.icnt.khz() as f64 * 1000.0
    }

    /// Peak interconnect bandwidth in bytes of L1 blocks per second:
    /// [`Self::noc_reads_per_second`] × [`Self::l1_block_bytes`]. Under
    /// BookSim that is about flit size × ports × icnt clock (less the
    /// headers and the last flit's slack); under GPGPU-Sim's own crossbar the
    /// flit size plays no part: block × ports × icnt clock.
    pub fn noc_bandwidth_bytes_per_second(&self) -> u64 {
        (self.noc_reads_per_second() * f64::from(self.l1_block_bytes())).round() as u64
    }

    /// Peak L1 bandwidth in bytes per second: SMs × L1 banks × one 32-B sector
    /// × core clock. GPGPU-Sim 4 takes one sector access per bank per cycle
    /// into the L1 (`-gpgpu_l1_banks`, sector-interleaved; one unbanked access
    /// a cycle when `-gpgpu_l1_latency` is 0) and never consults the L1 cache
    /// string's data port width.
    pub fn l1_bandwidth_bytes_per_second(&self) -> u64 {
        u64::from(self.n_sms()) * u64::from(self.l1.lookup_banks()) * L1_SECTOR_BYTES * self.clocks.core.khz() * 1000
    }

    /// Peak L2 bandwidth in bytes per second: slices × L2 data-port width × L2 clock.
    pub fn l2_bandwidth_bytes_per_second(&self) -> u64 {
        u64::from(self.memory.n_sub_partitions())
            * u64::from(self.memory.l2.data_port_width_bytes)
            * self.clocks.l2.khz()
            * 1000
    }

    pub(crate) fn write_options(&self, w: &mut OptionWriter) {
        self.cores.write(w);
        self.scheduling.write(w);
        self.units.write(w);
        self.l1.write(w);
        w.option("-gpgpu_cache:il1", self.l1i.as_ref().map_or_else(|| "none".to_owned(), ToString::to_string));
        self.memory.write(w);
        self.dram.write(w);
        self.interconnect.write(w);
        self.chiplets.write(w);
        self.clocks.write(w);
        self.kernels.write(w);
    }
}

impl KernelLaunch {
    fn read(r: &mut OptionReader<'_>) -> Result<Self, ConfigError> {
        Ok(Self {
            concurrent_kernel_sm: r.bool("-gpgpu_concurrent_kernel_sm")?,
            max_concurrent_kernels: r.u32_in("-gpgpu_max_concurrent_kernel", 1..=1024)?,
            kernel_launch_latency_cycles: r.u32_in("-gpgpu_kernel_launch_latency", 0..=10_000_000)?,
            cta_launch_latency_cycles: r.u32_in("-gpgpu_TB_launch_latency", 0..=10_000_000)?,
        })
    }

    fn write(&self, w: &mut OptionWriter) {
        w.section("Kernel launch");
        w.option("-gpgpu_concurrent_kernel_sm", u32::from(self.concurrent_kernel_sm));
        w.option("-gpgpu_max_concurrent_kernel", self.max_concurrent_kernels);
        w.option("-gpgpu_kernel_launch_latency", self.kernel_launch_latency_cycles);
        w.option("-gpgpu_TB_launch_latency", self.cta_launch_latency_cycles);
    }
}

/// Every set option warplab did not read, in order of first appearance with
/// its last value: (unknown to GPGPU-Sim, known but unmodelled).
fn kept_options(raw: &RawConfig, modelled: &BTreeSet<String>) -> (Vec<KeptOption>, Vec<KeptOption>) {
    let mut unknown = Vec::new();
    let mut unmodelled = Vec::new();
    for name in raw.names_in_order() {
        if modelled.contains(name) {
            continue;
        }
        let value = raw.get(name).and_then(|setting| setting.value.clone());
        let kept = KeptOption { name: name.to_owned(), value };
        if known_option(name).is_some() { unmodelled.push(kept) } else { unknown.push(kept) }
    }
    (unknown, unmodelled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::PRESETS;

    /// The writer writes exactly the options validation reads (plus the kept
    /// ones): an option the writer forgot would silently fall back to its
    /// default on the next read.
    fn check(files: &[(&str, &str)]) {
        let raw = RawConfig::read(files.iter().copied()).expect("reads");
        let (config, mut modelled) = GpuConfig::validate(&raw).expect("validates");
        let written = config.to_files();
        let rewritten = RawConfig::read(written.iter().map(|(n, t)| (n.as_str(), t.as_str()))).expect("reads back");
        let mut names: BTreeSet<String> = rewritten.names_in_order().into_iter().map(str::to_owned).collect();
        for kept in config.unknown_options.iter().chain(&config.unmodelled_options) {
            assert!(names.remove(&kept.name), "{} is kept and written", kept.name);
        }
        // Disabled specialized slots with upstream defaults are left out on purpose.
        modelled.retain(|name| names.contains(name) || !name.contains("spec"));
        // A monolithic GPU leaves its chiplet options out, for GPGPU-Sim releases without them.
        if config.chiplets == crate::chiplets::Chiplets::monolithic() {
            modelled.retain(|name| !name.contains("chiplet"));
        }
        assert_eq!(names, modelled);
    }

    #[test]
    fn the_writer_writes_every_modelled_option() {
        for preset in PRESETS {
            check(preset.files);
        }
    }
}
