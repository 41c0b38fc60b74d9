//! Multi-chiplet GPUs: how many chiplets, which SMs and memory channels each
//! holds, and the inter-chiplet network between them.
//!
//! Three options come from the Accel-Sim 2.0 development line, read with the
//! meaning its source gives them (a fork carrying that line,
//! `swayhrl/gpgpu-sim` at 007b257, `src/gpgpu-sim/gpu-sim.cc`,
//! `shader_core_config::reg_options` and `memory_config::reg_options`, and
//! `l2cache.cc`'s `memory_partition_unit`):
//!
//! - `-gpgpu_n_chiplet_partition N` (default 1): N chiplets. The SM clusters
//!   and the memory channels are split among them in equal blocks (channel
//!   `c` and its L2 slices on chiplet `c / (channels / N)`). Upstream allows
//!   at most two; warplab takes up to [`MAX_CHIPLETS`] (interpreted).
//! - `-gpgpu_chiplet_interleave` (default 0): which clusters (TPCs) a chiplet
//!   holds: 0 contiguous blocks, 1 interleaved (cluster `i` on chiplet
//!   `i mod N`). Since GPGPU-Sim hands consecutive CTAs to consecutive SMs,
//!   this is also the CTA placement: 0 gives each chiplet consecutive CTAs,
//!   1 deals them out round robin. The code that applies it upstream is not
//!   public; its help text is followed (interpreted).
//! - `-inter_chiplet_queue_size` (default 128) and
//!   `-inter_chiplet_queue_latency` (default 100 core cycles): the entries and
//!   the latency of each inter-chiplet queue. Upstream has a queue per L2
//!   slice pair, between a slice and its peer; warplab has one per link
//!   direction, between an SM's chiplet and the home chiplet of the address
//!   (interpreted).
//!
//! What they leave out is warplab's own, each with a default, written after
//! `#warplab ` so that GPGPU-Sim's parser (which skips comments) still runs
//! the file (see `configs/README.md`): the link bandwidth, the address
//! interleaving across chiplets and the topology.

use serde::{Deserialize, Serialize};

use crate::clocks::ClockDomains;
use crate::error::ConfigError;
use crate::lookup::OptionReader;
use crate::memory::MemoryPartitions;
use crate::numbers::parse_c_integer;
use crate::sm::Cores;
use crate::writer::OptionWriter;

/// The most chiplets a GPU may have.
pub const MAX_CHIPLETS: u32 = 64;
/// The finest address interleaving across chiplets: two 128-B lines.
pub const MIN_INTERLEAVE_BYTES: u64 = 256;
/// The coarsest: 1 TiB, so that a whole region of the address space (and the
/// arrays in it) can be given one home chiplet.
pub const MAX_INTERLEAVE_BYTES: u64 = 1 << 40;

/// Bytes of one sector: upstream moves one request or reply (a 32-B sector)
/// per slice pair per L2 cycle, which sets the default link bandwidth.
const SECTOR_BYTES: u64 = 32;

/// `-gpgpu_chiplet_interleave`: which clusters a chiplet holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SmMapping {
    /// 0: chiplet `c` holds clusters `c·K .. (c+1)·K` (K clusters per chiplet).
    Contiguous,
    /// 1: cluster `i` is on chiplet `i mod N`.
    Interleaved,
}

/// `-warplab_chiplet_topology`: how the chiplets are linked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Topology {
    /// `all_to_all`: every chiplet linked to every other; a packet crosses
    /// once, through its source's outgoing port and its destination's
    /// incoming port, each carrying the link bandwidth.
    AllToAll,
    /// `ring`: chiplet `c` linked to `c ± 1`; a packet takes the shorter way
    /// (clockwise on a tie), each hop a link of the link bandwidth and latency.
    Ring,
}

impl Topology {
    /// The option's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Self::AllToAll => "all_to_all",
            Self::Ring => "ring",
        }
    }
}

/// An option warplab reads with a meaning of its own choosing, and which.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterpretedOption {
    /// The option, with its `-`.
    pub name: String,
    /// How warplab reads it.
    pub meaning: String,
}

/// The chiplet options, validated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chiplets {
    /// `-gpgpu_n_chiplet_partition`: chiplets (1: a monolithic GPU).
    pub count: u32,
    /// `-gpgpu_chiplet_interleave`.
    pub sm_mapping: SmMapping,
    /// `-inter_chiplet_queue_size`: packets each link direction holds.
    pub queue_entries: u32,
    /// `-inter_chiplet_queue_latency`: core cycles a packet takes to cross a link.
    pub latency_cycles: u32,
    /// `-warplab_chiplet_link_gbps`: GB/s each chiplet sends (and receives)
    /// over its links; 0 for the default (see [`Chiplets::link_bytes_per_second`]).
    pub link_gbps: u32,
    /// `-warplab_chiplet_interleave_bytes`: consecutive bytes on one chiplet
    /// before the next chiplet's (a power of two).
    pub interleave_bytes: u64,
    /// `-warplab_chiplet_topology`.
    pub topology: Topology,
}

impl Chiplets {
    pub(crate) fn read(
        r: &mut OptionReader<'_>,
        cores: &Cores,
        memory: &MemoryPartitions,
    ) -> Result<Self, ConfigError> {
        let count_value = r.value("-gpgpu_n_chiplet_partition")?;
        let count = count_value.u32_in(1..=MAX_CHIPLETS)?;
        if !cores.n_clusters.is_multiple_of(count) || !memory.n_channels.is_multiple_of(count) {
            return Err(count_value.inconsistent(&format!(
                "the chiplets must split the {} clusters (-gpgpu_n_clusters) and the {} memory channels \
                 (-gpgpu_n_mem) evenly",
                cores.n_clusters, memory.n_channels
            )));
        }
        let sm_mapping = match r.u32_in("-gpgpu_chiplet_interleave", 0..=1)? {
            0 => SmMapping::Contiguous,
            _ => SmMapping::Interleaved,
        };
        let interleave = r.value("-warplab_chiplet_interleave_bytes")?;
        let text = interleave.text();
        let interleave_bytes = parse_c_integer(&text).map_err(|expected| interleave.bad(&expected))?;
        let interleave_bytes = u64::try_from(interleave_bytes)
            .ok()
            .filter(|bytes| (MIN_INTERLEAVE_BYTES..=MAX_INTERLEAVE_BYTES).contains(bytes))
            .ok_or_else(|| interleave.out_of_range(&text, "from 256 B to 1 TiB"))?;
        if !interleave_bytes.is_power_of_two() {
            return Err(interleave.bad("a power of two"));
        }
        let topology = r.value("-warplab_chiplet_topology")?;
        let topology = match topology.text().as_str() {
            "all_to_all" => Topology::AllToAll,
            "ring" => Topology::Ring,
            _ => return Err(topology.bad("all_to_all or ring")),
        };
        Ok(Self {
            count,
            sm_mapping,
            queue_entries: r.u32_in("-inter_chiplet_queue_size", 1..=65_536)?,
            latency_cycles: r.u32_in("-inter_chiplet_queue_latency", 0..=100_000)?,
            link_gbps: r.u32_in("-warplab_chiplet_link_gbps", 0..=1_000_000)?,
            interleave_bytes,
            topology,
        })
    }

    /// The registered defaults: one chiplet.
    pub fn monolithic() -> Self {
        Self {
            count: 1,
            sm_mapping: SmMapping::Contiguous,
            queue_entries: 128,
            latency_cycles: 100,
            link_gbps: 0,
            interleave_bytes: 8192,
            topology: Topology::AllToAll,
        }
    }

    /// Written only when they differ from the defaults, so that a
    /// monolithic GPU's file runs in GPGPU-Sim releases without them.
    pub(crate) fn write(&self, w: &mut OptionWriter) {
        if *self == Self::monolithic() {
            return;
        }
        w.section("Chiplets (Accel-Sim 2.0 options; warplab's own after #warplab, which GPGPU-Sim skips)");
        w.option("-gpgpu_n_chiplet_partition", self.count);
        w.option("-gpgpu_chiplet_interleave", u32::from(self.sm_mapping == SmMapping::Interleaved));
        w.option("-inter_chiplet_queue_size", self.queue_entries);
        w.option("-inter_chiplet_queue_latency", self.latency_cycles);
        w.warplab_option("-warplab_chiplet_link_gbps", self.link_gbps);
        w.warplab_option("-warplab_chiplet_interleave_bytes", self.interleave_bytes);
        w.warplab_option("-warplab_chiplet_topology", self.topology.name());
    }

    /// The options whose meaning warplab interprets (where the Accel-Sim 2.0
    /// source could not settle it, or warplab generalises it), each with how
    /// warplab reads it; empty for a monolithic GPU.
    pub fn interpreted(&self) -> Vec<InterpretedOption> {
        if !self.enabled() {
            return Vec::new();
        }
        let mut notes = vec![
            (
                "-gpgpu_chiplet_interleave",
                "which clusters a chiplet holds, as its help text says (the code that applies it is not public): \
                 0 contiguous blocks, 1 cluster i on chiplet i mod N; with GPGPU-Sim's CTA issue order this is \
                 also the CTA placement",
            ),
            (
                "-inter_chiplet_queue_size",
                "packets per L2 slice of a chiplet that each link direction holds, between an SM's chiplet and an \
                 address's home chiplet (upstream: one queue of this size per L2 slice pair, between a slice and \
                 its peer)",
            ),
            (
                "-inter_chiplet_queue_latency",
                "core cycles a packet takes to cross a link (upstream: a queue between peer L2 slices)",
            ),
        ];
        if self.count > 2 {
            notes.insert(
                0,
                (
                    "-gpgpu_n_chiplet_partition",
                    "more than two chiplets, which upstream does not allow, linked as -warplab_chiplet_topology says",
                ),
            );
        }
        notes
            .into_iter()
            .map(|(name, meaning)| InterpretedOption { name: name.to_owned(), meaning: meaning.to_owned() })
            .collect()
    }

    /// Interconnect cycles a packet takes to cross a link: the latency in
    /// core cycles at the configured clocks, rounded to the nearest cycle.
    pub fn latency_icnt_cycles(&self, clocks: &ClockDomains) -> u64 {
        let (core, icnt) = (clocks.core.khz().max(1), clocks.icnt.khz().max(1));
        (u64::from(self.latency_cycles) * icnt + core / 2) / core
    }

    /// Packets a link direction's queue holds, those in flight included:
    /// `-inter_chiplet_queue_size` per L2 slice of a chiplet (upstream has a
    /// queue of that size per slice pair).
    pub fn link_queue_packets(&self, memory: &MemoryPartitions) -> u32 {
        self.queue_entries.max(1) * (memory.n_sub_partitions() / self.count.max(1)).max(1)
    }

    /// Bytes per second crossing between two halves of the chiplets, one way:
    /// all_to_all, each chiplet of one half sends at the link bandwidth; a
    /// ring is cut at two links each way.
    pub fn bisection_bytes_per_second(&self, memory: &MemoryPartitions, clocks: &ClockDomains) -> u64 {
        let links = match self.topology {
            _ if self.count < 2 => 0,
            Topology::AllToAll => u64::from(self.count / 2),
            Topology::Ring => 2,
        };
        links * self.link_bytes_per_second(memory, clocks)
    }

    /// Whether the GPU has more than one chiplet.
    pub fn enabled(&self) -> bool {
        self.count > 1
    }

    /// The chiplet of cluster `cluster` among `n_clusters`.
    pub fn chiplet_of_cluster(&self, cluster: u32, n_clusters: u32) -> u32 {
        match self.sm_mapping {
            SmMapping::Contiguous => cluster / (n_clusters / self.count).max(1),
            SmMapping::Interleaved => cluster % self.count,
        }
    }

    /// Bytes per second each chiplet sends over its links (and receives):
    /// `-warplab_chiplet_link_gbps`, or by default what upstream's queues
    /// carry, one 32-B sector per L2 slice of the chiplet per L2 cycle.
    pub fn link_bytes_per_second(&self, memory: &MemoryPartitions, clocks: &ClockDomains) -> u64 {
        if self.link_gbps > 0 {
            return u64::from(self.link_gbps) * 1_000_000_000;
        }
        let slices_per_chiplet = u64::from(memory.n_sub_partitions() / self.count.max(1));
        slices_per_chiplet * SECTOR_BYTES * clocks.l2.khz() * 1000
    }
}

#[cfg(test)]
mod tests {
    use crate::GpuConfig;
    use crate::presets::preset;

    fn read(extra: &str) -> Result<GpuConfig, String> {
        let base = preset("SM7_QV100").expect("preset").files;
        let mut files: Vec<(&str, &str)> = base.to_vec();
        files.push(("extra.config", extra));
        GpuConfig::read(files).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_are_one_chiplet() {
        let config = read("").expect("reads");
        assert_eq!(config.chiplets.count, 1);
        assert!(!config.to_files()[0].1.contains("chiplet"), "a monolithic GPU writes no chiplet option");
    }

    #[test]
    fn chiplets_round_trip_and_warplab_options_hide_from_gpgpu_sim() {
        let config = read(
            "-gpgpu_n_chiplet_partition 4 -inter_chiplet_queue_size 64\n\
             #warplab -warplab_chiplet_topology ring -warplab_chiplet_interleave_bytes 4096\n",
        )
        .expect("reads");
        assert_eq!((config.chiplets.count, config.chiplets.queue_entries), (4, 64));
        assert_eq!(config.chiplets.topology, super::Topology::Ring);
        assert_eq!(config.chiplets.interleave_bytes, 4096);
        let files = config.to_files();
        let main = &files[0].1;
        assert!(main.contains("\n#warplab -warplab_chiplet_topology ring\n"), "{main}");
        assert!(main.lines().all(|l| !l.starts_with("-warplab")), "warplab's options are commented for GPGPU-Sim");
        let again = GpuConfig::read(files.iter().map(|(n, t)| (n.as_str(), t.as_str()))).expect("reads back");
        assert_eq!(again, config);
    }

    #[test]
    fn the_defaults_are_the_registered_ones() {
        assert_eq!(read("").expect("reads").chiplets, super::Chiplets::monolithic());
    }

    #[test]
    fn bad_chiplet_options_are_named() {
        let err = read("-gpgpu_n_chiplet_partition 3").expect_err("80 clusters do not split in 3");
        assert!(err.contains("-gpgpu_n_chiplet_partition: `3`: the chiplets must split the 80 clusters"), "{err}");
        let err = read("-warplab_chiplet_interleave_bytes 3000").expect_err("not a power of two");
        assert!(err.contains("-warplab_chiplet_interleave_bytes") && err.contains("power of two"), "{err}");
        let err = read("-warplab_chiplet_topology mesh").expect_err("unknown topology");
        assert!(err.contains("all_to_all or ring"), "{err}");
    }

    #[test]
    fn clusters_map_to_chiplets() {
        let mut config = read("-gpgpu_n_chiplet_partition 4").expect("reads");
        let of = |c: &GpuConfig, i| c.chiplets.chiplet_of_cluster(i, c.cores.n_clusters);
        assert_eq!([of(&config, 0), of(&config, 19), of(&config, 20), of(&config, 79)], [0, 0, 1, 3]);
        config.chiplets.sm_mapping = super::SmMapping::Interleaved;
        assert_eq!([of(&config, 0), of(&config, 1), of(&config, 4), of(&config, 79)], [0, 1, 0, 3]);
    }

    #[test]
    fn the_default_link_carries_a_sector_per_slice_per_l2_cycle() {
        let config = read("-gpgpu_n_chiplet_partition 2").expect("reads");
        let c = &config.chiplets;
        let slices = u64::from(config.memory.n_sub_partitions() / 2);
        assert_eq!(
            c.link_bytes_per_second(&config.memory, &config.clocks),
            slices * 32 * config.clocks.l2.khz() * 1000
        );
    }
}
