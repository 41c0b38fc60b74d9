//! The latency of one memory access on an idle GPU, written from the config:
//! what a pointer chase measures, and the `L_minLLC` / `L_minDRAM` the
//! analytical models start from before they add contention.
//!
//! Every figure is in core cycles; clock domains other than the core's are
//! converted by their frequency ratio, so the result is fractional. The path
//! is the timing model's (docs/validation.md writes each step out, and
//! `crates/lab/tests/timing_model.rs` checks the simulator against it).

use warplab_config::GpuConfig;

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
    /// crossing (a grant cycle plus one per flit, in icnt cycles; GPGPU-Sim's
    /// own crossbar moves a packet in one), the ROP pipeline, a cycle into
    /// the L2 queue and the access (two L2 cycles), and the reply crossing
    /// (one per flit: the reply enters the crossbar in the icnt cycle it moves),
    /// and [`FILL_TO_RESULT_CYCLES`].
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
        let l2_hit = l1_hit
            + 1.0
            + in_core_cycles(config, f64::from(1 + request_flits), icnt)
            + f64::from(config.memory.l2_rop_latency_cycles)
            + in_core_cycles(config, 2.0, config.clocks.l2.khz())
            + in_core_cycles(config, f64::from(reply_flits), icnt)
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

/// Core cycles of `n` cycles of a clock at `khz`.
pub fn in_core_cycles(config: &GpuConfig, n: f64, khz: u64) -> f64 {
    n * config.clocks.core.khz() as f64 / khz.max(1) as f64
}
