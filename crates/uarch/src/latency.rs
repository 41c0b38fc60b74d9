//! The latency of one memory access on an idle GPU, written from the config:
//! what a pointer chase measures, and the `L_minLLC` / `L_minDRAM` the
//! analytical models start from before they add contention.
//!
//! Every figure is in core cycles; clock domains other than the core's are
//! converted by their frequency ratio, so the result is fractional. The path
//! is the timing model's (docs/validation.md writes each step out, and
//! `crates/lab/tests/timing_model.rs` checks the simulator against it).

use warplab_config::{GpuConfig, Topology};

/// Bytes of a request's header on the interconnect (address and control).
pub const PACKET_HEADER_BYTES: u32 = warplab_config::interconnect::PACKET_HEADER_BYTES;

/// Operand-collector steps from issue to the LD/ST unit's pipeline register:
/// into a collector unit, the operands read, dispatched (GPGPU-Sim's
/// `opndcoll_rfu_t`, `-gpgpu_reg_file_port_throughput` steps a cycle).
pub const COLLECTOR_STEPS: u32 = 3;

/// Core cycles from a load's issue to its first cycle in the L1's lookup
/// pipeline: the collector's [`COLLECTOR_STEPS`] (from the cycle after the
/// issue), a cycle for the LD/ST unit to take it, and one to send its
/// accesses to the L1 banks.
pub fn issue_to_l1_cycles(config: &GpuConfig) -> u32 {
    COLLECTOR_STEPS.div_ceil(config.units.operand_collector.reg_file_port_throughput.max(1)) + 2
}

/// Core cycles from an L1 fill to the load's result: the LD/ST unit's
/// writeback port takes the access the next cycle and completes it the cycle
/// after (GPGPU-Sim's `ldst_unit::writeback`).
pub const FILL_TO_RESULT_CYCLES: u32 = 2;

/// Load-to-use latencies of an idle GPU, in core cycles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IdleLatencies {
    /// An L1 hit: [`issue_to_l1_cycles`], then `-gpgpu_l1_latency`.
    pub l1_hit: f64,
    /// An L2 hit: the L1 lookup, a cycle into the crossbar, the request
    /// crossing (the wait for the crossbar's next edge, a cycle per further
    /// flit, the wait for the L2's next edge: [`crossing_cycles`]; GPGPU-Sim's
    /// own crossbar moves a packet in one cycle), the ROP pipeline, a cycle
    /// into the L2 queue and the access (two L2 cycles), the reply crossing
    /// (the same, from the L2 to the crossbar to the core), and
    /// [`FILL_TO_RESULT_CYCLES`].
    pub l2_hit: f64,
    /// A DRAM access with a row miss: the L2 path, two L2 cycles (the L2's
    /// miss queue to the DRAM queue; the fill, whose requester is answered the
    /// next cycle), `-dram_latency`, then in DRAM cycles: one to reach a bank,
    /// precharge, activate, a column command per access of the fetch
    /// (`tCCD` or `tCCDL` apart, one bank), CAS latency, and one back to the L2.
    pub dram_row_miss: f64,
}

impl IdleLatencies {
    /// The latencies `config` implies.
    pub fn of(config: &GpuConfig) -> Self {
        let flits = |bytes: u32| config.interconnect.port_cycles(bytes);
        let fetch = config.l1_block_bytes();
        let request_flits = flits(PACKET_HEADER_BYTES);
        let reply_flits = flits(PACKET_HEADER_BYTES + fetch);
        let icnt = config.clocks.icnt.khz();
        let l1_hit = f64::from(issue_to_l1_cycles(config) + config.l1.l1_latency_cycles);
        let icnt_cycle = in_core_cycles(config, 1.0, icnt);
        let (core, l2_khz) = (config.clocks.core.khz(), config.clocks.l2.khz());
        let request = crossing_cycles(config, core, icnt)
            + f64::from(request_flits - 1) * icnt_cycle
            + crossing_cycles(config, icnt, l2_khz);
        let reply = crossing_cycles(config, l2_khz, icnt)
            + f64::from(reply_flits - 1) * icnt_cycle
            + crossing_cycles(config, icnt, core);
        let l2_hit = l1_hit
            + 1.0
            + request
            + f64::from(config.memory.l2_rop_latency_cycles)
            + in_core_cycles(config, 2.0, l2_khz)
            + reply
            + f64::from(FILL_TO_RESULT_CYCLES);
        let t = config.dram.timing;
        let l2 = &config.memory.l2;
        let l2_fetch_bytes = l2.fetch_bytes();
        let bursts = l2_fetch_bytes.div_ceil(config.dram.access_bytes().max(1)).max(1);
        let service = f64::from(2 + t.t_rp + t.t_rcd + (bursts - 1) * t.t_ccd.max(t.t_ccdl) + t.cl);
        let dram_row_miss = l2_hit
            + in_core_cycles(config, 2.0, config.clocks.l2.khz())
            + f64::from(config.memory.dram_latency_cycles)
            + in_core_cycles(config, service, config.clocks.dram.khz());
        Self { l1_hit, l2_hit, dram_row_miss }
    }
}

/// Core cycles a round trip to an L2 slice `hops` links away adds to the
/// same access on the SM's own chiplet (`sim::network`'s model), on an idle
/// GPU: each direction's packet crosses its source crossbar to the link
/// port (one more interconnect cycle than straight to a slice), then each
/// link sends it (its bytes at the link bandwidth, rounded up to whole
/// interconnect cycles) and holds it for the latency
/// (`-inter_chiplet_queue_latency`, rounded to interconnect cycles);
/// `all_to_all` crosses one link of latency and the destination's incoming
/// link, which only sends. The request is a header, the reply a header and
/// an L1 block.
pub fn link_round_trip_cycles(config: &GpuConfig, hops: u32) -> f64 {
    let chiplets = &config.chiplets;
    let icnt = config.clocks.icnt.khz().max(1);
    let latency = chiplets.latency_icnt_cycles(&config.clocks);
    let bytes_per_cycle =
        chiplets.link_bytes_per_second(&config.memory, &config.clocks) as f64 / (icnt as f64 * 1000.0);
    let one_way = |bytes: u32| {
        let send = (f64::from(bytes) / bytes_per_cycle).ceil();
        let links = match chiplets.topology {
            Topology::AllToAll => send + latency as f64 + send,
            Topology::Ring => f64::from(hops) * (send + latency as f64),
        };
        1.0 + links
    };
    let icnt_cycles = one_way(PACKET_HEADER_BYTES) + one_way(PACKET_HEADER_BYTES + config.l1_block_bytes());
    in_core_cycles(config, icnt_cycles, icnt)
}

/// The links a packet from chiplet `from` to chiplet `to` crosses, as the
/// timing model routes it (`sim::network`): none within a chiplet; one
/// under `all_to_all` (its source's outgoing link, then the destination's
/// incoming one, which [`link_round_trip_cycles`] counts as one hop); on a
/// `ring`, the shorter way round.
pub fn chiplet_hops(config: &GpuConfig, from: u32, to: u32) -> u32 {
    let n = config.chiplets.count.max(1);
    let (from, to) = (from % n, to % n);
    if from == to {
        return 0;
    }
    match config.chiplets.topology {
        Topology::AllToAll => 1,
        Topology::Ring => ring_way(n, from, to).1,
    }
}

/// The way round a ring of `n` chiplets from `from` to `to` that the timing
/// model takes (`sim::network`): clockwise (`from` + 1, + 2, ...) unless the
/// other way is shorter, so clockwise on a tie; and the hops it takes.
pub fn ring_way(n: u32, from: u32, to: u32) -> (bool, u32) {
    let n = n.max(1);
    let clockwise = (to % n + n - from % n) % n;
    if clockwise <= n - clockwise { (true, clockwise) } else { (false, n - clockwise) }
}

/// Mean core cycles from an edge of the clock at `from_khz` to the next edge
/// of the clock at `to_khz` strictly after it: how long a packet handed over
/// between two clock domains waits. A consumer never takes a packet at the
/// instant it was produced (GPGPU-Sim ticks the domains one after another
/// within an instant), so with equal clocks the wait is one whole cycle.
/// Between unequal clocks the producer's edges fall at every multiple of
/// `g = gcd` of the two periods within the consumer's period, so the wait is
/// `g, 2g, ..., T` equally often: `(T + g) / 2`. A pointer chase, whose
/// requests are not at random phases, can measure up to about a cycle of the
/// slower clock either side of this mean.
pub fn crossing_cycles(config: &GpuConfig, from_khz: u64, to_khz: u64) -> f64 {
    let (from, to) = (from_khz.max(1), to_khz.max(1));
    // The periods are 1/from and 1/to; their gcd is 1/lcm(from, to).
    let lcm = from / gcd(from, to) * to;
    let core = config.clocks.core.khz() as f64;
    (core / to as f64 + core / lcm as f64) / 2.0
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Core cycles of `n` cycles of a clock at `khz`.
pub fn in_core_cycles(config: &GpuConfig, n: f64, khz: u64) -> f64 {
    n * config.clocks.core.khz() as f64 / khz.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preset(name: &str) -> GpuConfig {
        warplab_config::preset(name).unwrap().config().unwrap()
    }

    #[test]
    fn a_packet_takes_the_shorter_way_round_a_ring_and_one_hop_all_to_all() {
        let mut config = preset("H100");
        assert_eq!(config.chiplets.count, 2);
        assert_eq!((chiplet_hops(&config, 0, 0), chiplet_hops(&config, 0, 1)), (0, 1));
        config.chiplets.count = 5;
        assert_eq!(chiplet_hops(&config, 0, 4), 1);
        config.chiplets.topology = Topology::Ring;
        let hops: Vec<u32> = (0..5).map(|to| chiplet_hops(&config, 1, to)).collect();
        assert_eq!(hops, [1, 0, 1, 2, 2]);
        // On an even ring the tie goes clockwise.
        assert_eq!((ring_way(4, 0, 2), ring_way(4, 0, 3), ring_way(4, 3, 0)), ((true, 2), (false, 1), (true, 1)));
    }
}
