//! The rate DRAM keeps under a kernel's own requests when every channel's
//! queue is full: the share of the data bus's cycles that move data.
//!
//! The nominal bandwidth (`-gpgpu_dram_buswidth` × chips × command-clock
//! ratio × channels × DRAM clock) assumes a column command every burst. A
//! channel falls short of it in three ways, all set by the config's timing
//! (`-gpgpu_dram_timing_opt`) and by where the kernel's requests land:
//! - a row miss needs a precharge and an activate (tRP + tRCD) before its
//!   column command, which other banks' row hits can hide only if the
//!   FR-FCFS queue holds requests for them;
//! - two column commands to one bank group are tCCDL apart, not tCCD: a
//!   stream of row hits into one bank leaves the bus idle between bursts
//!   (SM7_QV100's HBM: tCCD 1, tCCDL 2, a 1-clock burst, so at most half
//!   the bus; SM80_A100: tCCDL 4, at most a quarter);
//! - reads after writes wait tWTR, writes after reads tRTW.
//!
//! How much of the bus is lost depends on the addresses: a stream's row
//! hits, its banks and bank groups (after `-dram_bnk_indexing_policy`),
//! and how the FR-FCFS scheduler can interleave them. So the rate is
//! measured, not assumed: the cache pass keeps the kernel's first
//! [`DRAM_SAMPLE_REQUESTS`] requests to DRAM (L2 fills, write-backs and
//! write-throughs, in the order the pass sent them, which interleaves the
//! SMs as a run does), and [`saturated_share`] serves each channel's share
//! with the timing model's own DRAM channel (`warplab_uarch::dram`, which
//! follows GPGPU-Sim's `dram.cc` and `dram_sched.cc` command for command),
//! its queue kept full. The result is a property of the kernel and the
//! config, like the crossbar's saturated share (`crossbar.rs`); warplab's
//! core model drains DRAM at the nominal rate times this share.

use warplab_config::GpuConfig;
use warplab_uarch::address_map::AddressMap;
use warplab_uarch::dram::{DramChannel, DramRequest};

use crate::random::XorShift;

/// The most requests to DRAM a kernel's sample keeps (a documented limit:
/// 819 to 2,048 requests per channel on the presets, many times the FR-FCFS
/// queue of 64; twice as many moved the 68 validation cases' mean error by
/// 0.04 points and cost twice the time, half as many by 0.3).
pub const DRAM_SAMPLE_REQUESTS: usize = 32_768;

/// One request the L2 sent to DRAM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DramAccess {
    /// The first byte it moves.
    pub addr: u64,
    /// The bytes it moves: a sector, or a line for a non-sectored L2.
    pub bytes: u32,
    /// A write-back or write-through (true), or a fill (false).
    pub is_write: bool,
}

/// The share of the data bus's cycles that move data while every channel
/// serves its share of `sample` with a full queue, summed over the
/// channels, with the requests of each `in_flight` in the order
/// [`arrival_order`] gives; 1 with no sample. Channels are taken as equally
/// loaded: a mapping that sends more to one channel than another is not
/// charged here.
pub fn saturated_share(config: &GpuConfig, sample: &[DramAccess], in_flight: usize) -> f64 {
    let map = AddressMap::for_gpu(config);
    let sample = arrival_order(sample, in_flight);
    let access_bytes = config.dram.access_bytes().max(1);
    let mut per_channel: Vec<Vec<DramRequest>> = vec![Vec::new(); map.n_channels() as usize];
    for access in &sample {
        let at = map.decode(access.addr);
        let bursts = access.bytes.div_ceil(access_bytes).max(1);
        let request =
            DramRequest { tag: 0, bank: at.bank, row: at.row, column: at.column, is_write: access.is_write, bursts };
        if let Some(channel) = per_channel.get_mut(at.channel as usize) {
            channel.push(request);
        }
    }
    let (busy, elapsed) = per_channel
        .iter()
        .filter(|requests| !requests.is_empty())
        .map(|requests| serve(config, requests))
        .fold((0, 0), |(b, e), (busy, elapsed)| (b + busy, e + elapsed));
    if elapsed == 0 { 1.0 } else { (busy as f64 / elapsed as f64).min(1.0) }
}

/// `sample` in the order its requests could reach DRAM: the pass sends a
/// round's requests warp by warp, in step, where in a run the requests in
/// flight together (`in_flight`: every SM's MSHRs) arrive in whatever order
/// their warps and SMs drift into. Each run of `in_flight` requests is
/// shuffled, from a fixed seed so the share is the same on every call;
/// their order across runs is kept.
fn arrival_order(sample: &[DramAccess], in_flight: usize) -> Vec<DramAccess> {
    let mut order = sample.to_vec();
    let mut random = XorShift::seeded();
    for together in order.chunks_mut(in_flight.max(1)) {
        // Fisher–Yates.
        for i in (1..together.len()).rev() {
            together.swap(i, random.below(u32::try_from(i + 1).unwrap_or(u32::MAX)));
        }
    }
    order
}

/// Serves `requests` in order on one channel, pushing each as soon as the
/// queue has room: its data bus's busy cycles and the cycles until the last
/// request's data has moved.
fn serve(config: &GpuConfig, requests: &[DramRequest]) -> (u64, u64) {
    let mut channel = DramChannel::new(&config.dram);
    let mut pending = requests.iter().copied().peekable();
    let mut now = 0;
    while pending.peek().is_some() || !channel.is_idle() {
        channel.cycle(now);
        while channel.pop_completed().is_some() {}
        while channel.can_accept() {
            let Some(request) = pending.next() else { break };
            channel.push(request, now);
        }
        now += 1;
    }
    (channel.stats().data_bus_busy_cycles, now)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preset(name: &str) -> GpuConfig {
        warplab_config::preset(name).unwrap().config().unwrap()
    }

    /// `n` sector reads from `start`, one after the other.
    fn stream(start: u64, n: u64) -> Vec<DramAccess> {
        (0..n).map(|i| DramAccess { addr: start + 32 * i, bytes: 32, is_write: false }).collect()
    }

    #[test]
    fn no_requests_leave_the_nominal_rate() {
        assert_eq!(saturated_share(&preset("SM7_QV100"), &[], 1024), 1.0);
    }

    #[test]
    fn the_share_is_a_share() {
        for name in ["SM7_QV100", "SM86_RTX3070", "SM80_A100", "mdm-pascal-28sm"] {
            let share = saturated_share(&preset(name), &stream(0, 8192), 1024);
            assert!(share > 0.0 && share <= 1.0, "{name}: {share}");
        }
    }

    #[test]
    fn scattered_rows_keep_less_of_the_bus_than_a_stream() {
        // One sector per 64 KiB: every request opens a row of its own.
        let config = preset("SM86_RTX3070");
        let scattered: Vec<DramAccess> =
            (0..8192u64).map(|i| DramAccess { addr: i * 65_536, bytes: 32, is_write: false }).collect();
        let (stream, scattered) =
            (saturated_share(&config, &stream(0, 8192), 1024), saturated_share(&config, &scattered, 1024));
        assert!(scattered < 0.5 * stream, "scattered {scattered} against a stream's {stream}");
    }

    #[test]
    fn a_bank_group_s_column_gap_bounds_one_bank_s_row_hits() {
        // A100's HBM: a burst is one command clock and tCCDL four, so a
        // stream of row hits in one bank keeps at most a quarter of the
        // bus. Every sector of one row of one bank of one channel, found
        // through the address map.
        let config = preset("SM80_A100");
        let map = AddressMap::for_gpu(&config);
        let first = map.decode(0);
        let same_bank: Vec<DramAccess> = (0..1u64 << 22)
            .step_by(32)
            .filter(|&a| {
                let at = map.decode(a);
                (at.channel, at.bank, at.row) == (first.channel, first.bank, first.row)
            })
            .map(|addr| DramAccess { addr, bytes: 32, is_write: false })
            .collect();
        assert!(same_bank.len() >= 16, "{} sectors", same_bank.len());
        let share = saturated_share(&config, &same_bank, 1);
        assert!(share <= 0.25 + 1e-9, "{share}");
        assert!(share > 0.15, "{share}");
    }

    #[test]
    fn requests_in_flight_together_arrive_in_any_order_and_no_earlier_or_later() {
        let sample = stream(0, 10);
        let order = arrival_order(&sample, 4);
        assert_ne!(order, sample);
        for (together, from) in order.chunks(4).zip(sample.chunks(4)) {
            let mut together = together.to_vec();
            together.sort_by_key(|a| a.addr);
            assert_eq!(together, from);
        }
        assert_eq!(arrival_order(&sample, 1), sample);
    }

    #[test]
    fn the_same_sample_gives_the_same_share() {
        let config = preset("SM7_QV100");
        let sample: Vec<DramAccess> = (0..4096u64)
            .map(|i| DramAccess { addr: ((i * 2_654_435_761) % (1 << 30)) & !31, bytes: 32, is_write: i % 5 == 0 })
            .collect();
        assert_eq!(saturated_share(&config, &sample, 1024), saturated_share(&config, &sample, 1024));
    }
}
