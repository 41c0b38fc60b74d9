//! The GPU as the models see it: the handful of numbers the equations read,
//! taken from a `GpuConfig`.
//!
//! A profile depends on the per-SM configuration (opcode latencies, the L1,
//! occupancy) and, through the cache pass, on the SM count and the L1's
//! MSHRs; the bandwidths and clocks here can change without profiling again,
//! which is what makes a sweep over them cost microseconds per point.

use serde::{Deserialize, Serialize};
use warplab_config::sm::SchedulerPolicy;
use warplab_config::{GpuConfig, NetworkMode};
use warplab_uarch::latency::IdleLatencies;

use crate::crossbar::saturated_packets_per_cycle;
use crate::limits::Rates;

/// Which multi-warp model GPUMech uses for the config's warp scheduler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SchedulerModel {
    /// Loose or strict round robin: every ready warp issues in turn.
    RoundRobin,
    /// Greedy-then-oldest (and oldest-first): one warp issues until it stalls.
    Gto,
    /// Two-level: GTO over an active set of `active_warps` warps.
    TwoLevel {
        /// Warps in the active set.
        active_warps: u32,
    },
    /// Static warp limiting: GTO over at most `warps` warps.
    WarpLimiting {
        /// Warps allowed to issue.
        warps: u32,
    },
}

impl SchedulerModel {
    /// The model for a configured policy.
    pub fn of(policy: &SchedulerPolicy) -> Self {
        match *policy {
            SchedulerPolicy::Lrr | SchedulerPolicy::Rrr => Self::RoundRobin,
            SchedulerPolicy::Gto | SchedulerPolicy::OldestFirst => Self::Gto,
            SchedulerPolicy::TwoLevelActive { active_warps, .. } => Self::TwoLevel { active_warps },
            SchedulerPolicy::WarpLimiting { warps_to_limit, .. } => Self::WarpLimiting { warps: warps_to_limit },
        }
    }

    /// Whether the GTO model applies, and over how many of a scheduler's
    /// `warps` warps it overlaps.
    pub(crate) fn overlapped_warps(self, warps: u32) -> (bool, u32) {
        match self {
            Self::RoundRobin => (false, warps),
            Self::Gto => (true, warps),
            Self::TwoLevel { active_warps: limit } | Self::WarpLimiting { warps: limit } => {
                (true, warps.min(limit.max(1)))
            }
        }
    }
}

/// No-contention latencies in core cycles (the MDM paper's notation).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Latencies {
    /// An L1 hit: what the interval profile gives every load.
    pub l1_hit: f64,
    /// `L_minLLC`: a load that misses the L1 and hits the L2.
    pub llc: f64,
    /// `L_minDRAM`: what an L2 miss adds (DRAM latency and a row miss).
    pub dram: f64,
}

impl Latencies {
    /// `to_l2` round trips past the L1 (`L_minLLC` each), `on_to_dram` of
    /// which go on to DRAM (`L_minDRAM` more each).
    pub fn round_trips(&self, to_l2: f64, on_to_dram: f64) -> f64 {
        to_l2 * self.llc + on_to_dram * self.dram
    }
}

/// The parameters of one GPU the models evaluate a profile on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// SMs (`#SMs`).
    pub n_sms: u32,
    /// Warp schedulers (sub-cores) per SM; each is modelled on its own.
    pub schedulers_per_sm: u32,
    /// Each scheduler has its own units and collector units
    /// (`-gpgpu_sub_core_model`), and warp `w` is scheduler `w mod n`'s.
    #[serde(default)]
    pub sub_cores: bool,
    /// `R`: warp instructions one scheduler issues per cycle. warplab's
    /// schedulers issue one.
    pub issue_rate: f64,
    /// The multi-warp model.
    pub scheduler: SchedulerModel,
    /// `#MSHR`: L1 miss entries per SM. For a streaming L1 (one MSHR per
    /// line, thousands) the MDM paper's footnote 2 puts the NoC queue in its
    /// place: what an SM can have waiting to enter the interconnect
    /// (`-icnt_in_buffer_limit` packets).
    pub l1_mshrs: u32,
    /// A streaming L1: `l1_mshrs` is the NoC queue, not the L1's entries.
    pub streaming_l1: bool,
    /// No-contention latencies.
    pub latencies: Latencies,
    /// `f`: the core clock in Hz.
    pub core_hz: f64,
    /// `B_NoC`: the interconnect's bandwidth in bytes of L1 blocks per
    /// second under its network mode (`GpuConfig::noc_bandwidth_bytes_per_second`).
    pub noc_bytes_per_s: f64,
    /// The share of `noc_bytes_per_s` the crossbar keeps when every sender
    /// has packets waiting (`crossbar.rs`): what warplab's core model
    /// drains a saturated NoC at. MDM's models read the ports' full rate,
    /// as the paper does.
    #[serde(default = "full_rate")]
    pub noc_saturation: f64,
    /// The block an L1 miss moves over the NoC (Eq. 7's block size): a
    /// sector for a sectored L1, the line otherwise.
    pub l1_block_bytes: f64,
    /// `B_DRAM`: DRAM bandwidth in bytes per second.
    pub dram_bytes_per_s: f64,
    /// The most a channel's credits let DRAM move, in bytes per second over
    /// all channels (`None`: unlimited queues). A request holds a credit
    /// from leaving its L2 slice until its data leaves the return queue
    /// (`DramConfig::channel_credits`), at least `-dram_latency` and one
    /// access: with every credit in use, a channel returns `credits /
    /// hold` requests a cycle whatever its banks could do (Little's law).
    /// warplab's core model drains DRAM at the lower of this and its banks'
    /// rate; MDM's models read the bus's rate, as the paper does.
    #[serde(default)]
    pub dram_credit_bytes_per_s: Option<f64>,
    /// What an LLC miss reads from DRAM (Eq. 8's block size): a sector for a
    /// sectored L2, the whole line otherwise, as the simulator fetches.
    pub llc_block_bytes: f64,
    /// Core cycles from a kernel's launch to its first CTA
    /// (`-gpgpu_kernel_launch_latency`), charged to every kernel.
    pub launch_cycles: f64,
    /// What the "MDM + limits" floors read: units per class, the L2 clock.
    pub rates: Rates,
}

impl Machine {
    /// The machine `config` describes.
    pub fn of(config: &GpuConfig) -> Self {
        let idle = IdleLatencies::of(config);
        // `L_minDRAM`, what an L2 miss adds: also how long a DRAM credit is held.
        let dram = idle.dram_row_miss - idle.l2_hit;
        let dl1 = config.l1.dl1.as_ref();
        let streaming = dl1.is_some_and(warplab_config::CacheConfig::is_streaming);
        let l1_mshrs = match dl1 {
            // No L1 at all means nothing waits for L1 MSHRs.
            None => u32::MAX,
            Some(_) if streaming => config.interconnect.in_buffer_limit,
            Some(l1) => l1.mshr_entries,
        };
        Self {
            n_sms: config.n_sms(),
            schedulers_per_sm: config.scheduling.schedulers_per_sm.max(1),
            sub_cores: config.scheduling.sub_core_model,
            issue_rate: 1.0,
            scheduler: SchedulerModel::of(&config.scheduling.policy),
            l1_mshrs: l1_mshrs.max(1),
            streaming_l1: streaming,
            latencies: Latencies { l1_hit: idle.l1_hit, llc: idle.l2_hit, dram },
            core_hz: config.clocks.core.khz() as f64 * 1000.0,
            noc_bytes_per_s: config.noc_bandwidth_bytes_per_second() as f64,
            noc_saturation: noc_saturation(config),
            l1_block_bytes: f64::from(config.l1_block_bytes()),
            dram_bytes_per_s: config.dram_bandwidth_bytes_per_second() as f64,
            dram_credit_bytes_per_s: dram_credit_rate(config, dram),
            llc_block_bytes: f64::from(config.memory.l2.fetch_bytes()),
            launch_cycles: f64::from(config.kernels.kernel_launch_latency_cycles),
            rates: Rates::of(config),
        }
    }

    /// This machine with its NoC at the rate a saturated crossbar keeps:
    /// what warplab's core model reads.
    pub(crate) fn with_saturated_noc(&self) -> Self {
        Self { noc_bytes_per_s: self.noc_bytes_per_s * self.noc_saturation, noc_saturation: 1.0, ..self.clone() }
    }

    /// This machine with `round_trip` core cycles of chiplet links in
    /// `L_minLLC` (a kernel's `KernelWork::link_round_trip`): what warplab's
    /// core model reads; MDM's models know no chiplets.
    pub(crate) fn with_links(self, round_trip: f64) -> Self {
        Self { latencies: Latencies { llc: self.latencies.llc + round_trip, ..self.latencies }, ..self }
    }

    /// This machine with DRAM at `share` of its nominal rate (a kernel's
    /// `KernelWork::dram_share`: what its banks keep), or at what the
    /// channels' credits let through if that is less.
    pub(crate) fn with_dram_share(self, share: f64) -> Self {
        let banks = self.dram_bytes_per_s * share.clamp(f64::MIN_POSITIVE, 1.0);
        let credits = self.dram_credit_bytes_per_s.unwrap_or(f64::INFINITY);
        Self { dram_bytes_per_s: banks.min(credits), ..self }
    }

    /// Eq. 7, `L_NoC_service = f · block / B_NoC`: core cycles one request
    /// holds the NoC at full bandwidth.
    pub fn noc_service(&self) -> f64 {
        self.noc_cycles(self.l1_block_bytes)
    }

    /// Eq. 8, `L_DRAM_service = f · LLC miss ratio · block / B_DRAM`.
    pub fn dram_service(&self, llc_miss: f64) -> f64 {
        self.dram_cycles(llc_miss * self.llc_block_bytes)
    }

    /// Core cycles to move `bytes` over the NoC at full bandwidth.
    pub(crate) fn noc_cycles(&self, bytes: f64) -> f64 {
        self.core_hz * bytes / self.noc_bytes_per_s.max(1.0)
    }

    /// Core cycles to move `bytes` to or from DRAM at full bandwidth.
    pub(crate) fn dram_cycles(&self, bytes: f64) -> f64 {
        self.core_hz * bytes / self.dram_bytes_per_s.max(1.0)
    }
}

/// What every channel's credits let through at once, each held for `hold`
/// core cycles (DRAM's share of an idle miss: `-dram_latency` and a row
/// miss's access), in bytes per second of the L2's fetches.
fn dram_credit_rate(config: &GpuConfig, hold: f64) -> Option<f64> {
    let credits = config.dram.channel_credits(config.memory.sub_partitions_per_channel)?;
    let in_flight = f64::from(config.memory.n_channels) * f64::from(credits);
    let fetch = f64::from(config.memory.l2.fetch_bytes());
    let core_hz = config.clocks.core.khz() as f64 * 1000.0;
    Some(in_flight * fetch * core_hz / hold.max(1.0))
}

/// A part at its full nominal rate: what a machine read before
/// `noc_saturation` existed had, and a profile read before
/// `KernelWork::dram_share` existed.
pub(crate) fn full_rate() -> f64 {
    1.0
}

/// The share of the NoC's nominal rate (`GpuConfig::noc_bottleneck`: the
/// slower direction's ports) its crossbar keeps when saturated, the slower
/// direction again. BookSim's network (`-network_mode 1`) is the timing
/// model's flit crossbar (`sim::interconnect`), whose inputs offer their
/// heads round robin, one grant each a cycle: GPGPU-Sim's crossbar under
/// round robin for packets of one flit, and taken as that for longer ones.
fn noc_saturation(config: &GpuConfig) -> f64 {
    let ic = &config.interconnect;
    let islip = ic.mode == NetworkMode::LocalCrossbar && ic.arbiter_algo != 0;
    let (sms, slices) = (config.n_sms(), config.memory.n_sub_partitions());
    let reached = saturated_packets_per_cycle(sms, slices, islip).min(saturated_packets_per_cycle(slices, sms, islip));
    let nominal = ic.ports(sms, slices).min(ic.ports(slices, sms));
    (reached / f64::from(nominal)).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saturated_crossbar_keeps_under_its_ports_under_either_arbiter_and_network() {
        let mut config = warplab_config::preset("QV100").unwrap().config().unwrap();
        let share = Machine::of(&config).noc_saturation;
        // 80 SMs into 64 slices under iSLIP: above Karol's 58.6%, under all.
        assert!((0.65..0.8).contains(&share), "{share}");
        let saturated = Machine::of(&config).with_saturated_noc();
        assert!((saturated.noc_service() * share - Machine::of(&config).noc_service()).abs() < 1e-12);
        config.interconnect.arbiter_algo = 0;
        let round_robin = Machine::of(&config).noc_saturation;
        assert!(round_robin < share, "round robin recovers nothing");
        // The timing model's BookSim crossbar grants round robin whatever
        // the arbiter option says.
        config.interconnect.mode = NetworkMode::BookSim;
        for arbiter in [0, 1] {
            config.interconnect.arbiter_algo = arbiter;
            assert_eq!(Machine::of(&config).noc_saturation, round_robin);
        }
    }

    #[test]
    fn a100s_channels_return_fewer_requests_than_its_bus_moves() {
        // SM80_A100: 40 channels of 64 scheduler and 192 return entries,
        // four slices each: 253 shared credits and 4 own, 257 a channel. A
        // credit is held for DRAM's share of an idle miss: 2 L2 cycles at
        // 1,512 MHz, -dram_latency 190, and a row miss's 2 + tRP 22 + tRCD 22
        // + CL 22 = 68 DRAM cycles at 6,048 MHz, 207.7 core cycles at 1,410.
        // So 40 · 257 / 207.7 = 49.5 sectors a core cycle, under a third of
        // the bus's 172: the run of strided:gs=8 returns 48 to 54 a cycle
        // with every credit held (docs/validation.md).
        let a100 = Machine::of(&warplab_config::preset("A100").unwrap().config().unwrap());
        let hold = 2.0 * 1410.0 / 1512.0 + 190.0 + 68.0 * 1410.0 / 6048.0;
        assert!((a100.latencies.dram - hold).abs() < 1e-6, "{}", a100.latencies.dram);
        let per_cycle = |bytes_per_s: f64| bytes_per_s / 32.0 / a100.core_hz;
        let credits = per_cycle(a100.dram_credit_bytes_per_s.unwrap());
        assert!((credits - 40.0 * 257.0 / hold).abs() < 1e-6, "{credits}");
        assert!((per_cycle(a100.dram_bytes_per_s) - 171.6).abs() < 0.1, "{}", per_cycle(a100.dram_bytes_per_s));
        // The core model drains at the lower of the two; a kernel whose banks
        // keep less than the credits allow keeps its banks' rate.
        assert!((per_cycle(a100.clone().with_dram_share(0.8).dram_bytes_per_s) - credits).abs() < 1e-6);
        let banks = per_cycle(a100.clone().with_dram_share(0.2).dram_bytes_per_s);
        assert!((banks - 0.2 * per_cycle(a100.dram_bytes_per_s)).abs() < 1e-6, "{banks}");
    }

    #[test]
    fn presets_give_their_schedulers_and_mshrs() {
        let qv100 = Machine::of(&warplab_config::preset("QV100").unwrap().config().unwrap());
        assert_eq!(qv100.scheduler, SchedulerModel::RoundRobin);
        assert_eq!((qv100.n_sms, qv100.schedulers_per_sm, qv100.l1_mshrs), (80, 4, 512));
        assert!(!qv100.streaming_l1);
        assert_eq!(qv100.latencies.l1_hit, 24.0);
        let pascal = Machine::of(&warplab_config::preset("mdm-pascal-28sm").unwrap().config().unwrap());
        assert_eq!(pascal.scheduler, SchedulerModel::Gto);
        assert_eq!((pascal.n_sms, pascal.l1_mshrs), (28, 128));
    }
}
