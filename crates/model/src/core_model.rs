//! warplab's core model: an analytical model of a modern GPU core, beside
//! the MDM paper's models and named apart from them.
//!
//! It keeps MDM's structure (Wang et al., MICRO 2020): GPUMech's interval
//! profile of a representative warp, the multi-warp overlap of its
//! scheduler, and MSHR batching of memory-divergent intervals. It adds what
//! GCoM (Lee et al., ISCA 2022) found the MDM-class models leave out on
//! modern cores, and what warplab's timing model showed, each as its own
//! CPI term (docs/analytical.md has every equation):
//!
//! - **Memory data stalls from in-flight fills** (`pending`): a load that
//!   hits a sector another warp's miss is still fetching waits for that fill
//!   (GPGPU-Sim's `HIT_RESERVED`), though it sends nothing; a request that
//!   hits an L2 block another SM's miss is still fetching from DRAM waits
//!   for DRAM as a miss does (the L2's `HIT_RESERVED`, and the requests it
//!   refuses for want of a merge slot, retried until the fill). The cache
//!   pass counts both per memory site: an interval's chance of waiting for
//!   memory is `wait ≥ miss`, and its requests' share that waits for DRAM
//!   `llc_wait ≥ llc_miss`.
//! - **MDM's memory-divergence terms** (`mshr`, `noc`, `dram`): MSHR
//!   batching and the NoC and DRAM queues. A burst the MSHRs hold at once
//!   waits in MDM's queue; a memory-divergent interval keeps its MSHRs full,
//!   so its requests cycle through the latency and the links as a closed
//!   network, which charges only what the links' load implies, and every
//!   batch, the first and a partial last one too, takes that network's
//!   round. The NoC drains at the rate a saturated crossbar keeps
//!   (`crossbar.rs`), and an interval's writes are drained once, a share in
//!   each MSHR batch, not once per batch.
//! - **Barriers** (`barrier`): a CTA's warps leave each barrier together, so
//!   they stall together; the scheduler overlaps its CTAs, not its warps.
//! - **Structural stalls** (`ldst`, `units`, `l2_slice`, `noc_bandwidth`,
//!   `dram_bandwidth`): a wave cannot end before its busiest part has done
//!   its work (`limits.rs`), per sub-core where each scheduler has its own
//!   units.
//! - **Idle stalls** (`slowest_warp`, and the last wave's shape): the
//!   kernel cannot end before its slowest warp (with its cold code and its
//!   wait at the exit for its last writes); a partial last wave takes its
//!   busiest SM's time.
//! - **Front-end stalls at the kernel's start** (`fetch`): the lines of its
//!   code the L1 instruction cache does not hold (`code_fetch.rs`), each a
//!   round trip the wave's warps wait for together.
//!
//! Every input is the profile's (the functional pass over the trace) or the
//! config's; nothing comes from a run.

use crate::contention::{closed_queue_waits, mdm_burst_delay, mshr_batches_flowing};
use crate::limits::{N_LIMITS, floors};
use crate::machine::Machine;
use crate::overlap::{Span, overlapped_cycles};
use crate::predict::{
    CpiStack, Prediction, Wave, no_contention, prediction, raise_to_slowest_warp, representative_scale,
    wait_for_last_write, waves,
};
use crate::profile::{Interval, KernelProfile};

/// The core model on one kernel.
pub(crate) fn predict_core(k: &KernelProfile, machine: &Machine) -> Prediction {
    // A saturated crossbar moves fewer packets than it has ports
    // (`crossbar.rs`): the queues and the NoC floor drain at that rate; a
    // round trip to the L2 crosses the chiplet links for the requests homed
    // on other chiplets; and DRAM drains at the share of its nominal rate its
    // channels keep under this kernel's requests (`dram_rate.rs`), or what
    // their credits let through.
    let machine = &machine.with_saturated_noc().with_links(k.work.link_round_trip).with_dram_share(k.work.dram_share);
    let scale = representative_scale(k);
    let fetch = cold_code_wait(k, machine);
    let mut cycles = machine.launch_cycles + fetch;
    let mut stack = CpiStack::default();
    let waves = waves(k, machine.n_sms);
    let sms = f64::from(waves.first().map_or(0, |w| w.active_sms));
    for wave in &waves {
        let mut terms = wave_terms(k, machine, *wave, scale);
        terms.exit = exit_wait(k, machine, *wave);
        cycles += wave.count * terms.total();
        stack = stack.plus_scaled(&terms, wave.count * f64::from(wave.active_sms));
    }
    raise_to_slowest_warp(k, machine, sms, &mut cycles, &mut stack);
    stack.fetch = fetch * sms;
    stack.launch = machine.launch_cycles * sms;
    prediction(k, cycles, &stack)
}

/// One wave's cycles on its busiest SM, by cause: the latency side, raised
/// to the highest floor, what the floor adds charged to it.
fn wave_terms(k: &KernelProfile, machine: &Machine, wave: Wave, scale: f64) -> CpiStack {
    let mut terms = latency_terms(k, machine, wave, scale);
    let floors = sub_core_floors(k, machine, wave);
    let (highest, floor) = floors.iter().copied().enumerate().fold((0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
    let excess = floor - terms.total();
    if excess > 0.0 {
        let mut limits = [0.0; N_LIMITS];
        limits[highest] = excess;
        [terms.ldst, terms.units, terms.l2_slice, terms.noc_bandwidth, terms.dram_bandwidth] = limits;
    }
    terms
}

/// How long a kernel's warps wait for the lines of their code that are not
/// in the L1 instruction cache when it starts (`code_fetch.rs`): they start
/// in step, so each line stops them all while the warp at the front fetches
/// it, a round trip to the L2 (and on to DRAM for code no earlier kernel
/// fetched). Once per kernel: later waves find the lines in place.
pub(crate) fn cold_code_wait(k: &KernelProfile, machine: &Machine) -> f64 {
    machine.latencies.round_trips(k.work.fetch_misses, k.work.fetch_llc_misses)
}

/// How long the wave's warps wait at their exit for the acknowledgements
/// of the writes they sent after their last load stall: a warp is done, and
/// its CTA's slot free for the next wave, only once its stores are
/// acknowledged (GPGPU-Sim's `shd_warp_t::stores_done`). The SM's warps
/// reach their exit together, so the last one's writes leave behind all
/// theirs, one a cycle from the LD/ST unit (`limits.rs`' accesses past the
/// L1), then take a write's round trip: to the L2, and on to DRAM for the
/// writes the L2 does not keep. What the warp still runs after its last
/// write comes off.
pub(crate) fn exit_wait(k: &KernelProfile, machine: &Machine, wave: Wave) -> f64 {
    let writes = k.work.exit_writes;
    if writes <= 0.0 {
        return 0.0;
    }
    let drain = f64::from(wave.warps_per_sm) * writes;
    wait_for_last_write(machine, drain, k.work.writes_to_dram, k.work.after_last_write)
}

/// The representative warp's intervals with the writes it sends after its
/// last stall on a missing load taken off its first such stall, where the
/// profile charges them for the paper's models: here the warp waits for
/// them at its exit ([`exit_wait`]).
fn writes_at_exit(k: &KernelProfile) -> impl Iterator<Item = Interval> + '_ {
    let first = k.intervals.iter().position(|i| i.miss > 0.0);
    k.intervals.iter().enumerate().map(move |(n, &i)| {
        if Some(n) == first { Interval { m_write: (i.m_write - k.work.exit_writes).max(0.0), ..i } } else { i }
    })
}

/// The per-wave floors (`limits::floors`), the execution units' taken on
/// the busiest scheduler where each scheduler has its own units
/// (`-gpgpu_sub_core_model`: warp `w` is scheduler `w mod n`'s, so the
/// busiest holds `⌈W/n⌉` of the SM's `W` warps).
fn sub_core_floors(k: &KernelProfile, machine: &Machine, wave: Wave) -> [f64; N_LIMITS] {
    let warps = f64::from(wave.warps_per_sm);
    let mut out = floors(k, machine, warps, f64::from(wave.active_sms));
    if machine.sub_cores && warps > 0.0 {
        let n = f64::from(machine.schedulers_per_sm.max(1));
        out[UNITS] *= (warps / n).ceil() * n / warps;
    }
    out
}

/// The execution units' floor in `limits::floors`' order.
const UNITS: usize = 1;

/// What one memory interval of the representative warp costs beyond its
/// L1-hit stall.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct MemoryCost {
    /// Its misses' no-contention latency beyond the hit's.
    pub miss: f64,
    /// The same for loads that wait for another warp's fill.
    pub pending: f64,
    /// MSHR batches beyond the first, each a loaded latency.
    pub mshr: f64,
    /// Queueing on the NoC and at DRAM.
    pub noc: f64,
    pub dram: f64,
}

/// The latency side of a wave: the representative warp's intervals with
/// their memory costs, overlapped with the other warps of its scheduler (or,
/// with barriers, the other CTAs), in wave cycles.
fn latency_terms(k: &KernelProfile, machine: &Machine, wave: Wave, scale: f64) -> CpiStack {
    let rate = machine.issue_rate;
    let schedulers = machine.schedulers_per_sm.max(1);
    let per_scheduler = wave.warps_per_sm.div_ceil(schedulers).max(1);
    let (gto, overlapped) = machine.scheduler.overlapped_warps(per_scheduler);
    let rounds = rounds_per_wave(per_scheduler, overlapped) * scale;
    let total_insts: f64 = k.intervals.iter().map(|i| f64::from(i.insts)).sum();
    let base = f64::from(overlapped) * total_insts / rate;
    let costs: Vec<MemoryCost> = writes_at_exit(k).map(|i| memory_cost(&i, machine, wave)).collect();
    let in_step = if k.work.barriers > 0 { lockstep_warps(k.warps_per_cta, schedulers, overlapped) } else { 1.0 };
    // The overlapped cycles with `group` warps in step, with or without
    // the waits for in-flight fills.
    let overlap = |group: f64, pending: bool| {
        let spans = k.intervals.iter().zip(&costs).map(|(i, c)| Span {
            insts: f64::from(i.insts) * group,
            stall: f64::from(i.stall_cycles) + c.miss + c.noc + c.dram + if pending { c.pending } else { 0.0 },
        });
        overlapped_cycles(spans, f64::from(overlapped) / group, rate, gto).max(base)
    };
    let (free, with_pending, with_barriers) = (overlap(1.0, false), overlap(1.0, true), overlap(in_step, true));
    let sum = |f: fn(&MemoryCost) -> f64| costs.iter().map(f).sum::<f64>();
    // The queue waits are inside the overlapped stalls: what is exposed of
    // the memory stalls is split between latency and queues by their shares.
    let exposed = free - base;
    let memory = sum(|c| c.miss + c.noc + c.dram);
    let share = |f: fn(&MemoryCost) -> f64| if memory > 0.0 { exposed * sum(f) / memory } else { 0.0 };
    let (noc, dram) = (share(|c| c.noc).min(exposed), share(|c| c.dram));
    CpiStack {
        base: rounds * base,
        issue: rounds * (exposed - noc - dram).max(0.0),
        pending: rounds * (with_pending - free),
        barrier: rounds * (with_barriers - with_pending).max(0.0),
        mshr: rounds * sum(|c| c.mshr),
        noc: rounds * noc,
        dram: rounds * dram,
        ..CpiStack::default()
    }
}

/// A scheduler with a limited active set (two-level, warp limiting) runs its
/// warps in turns of `overlapped`.
fn rounds_per_wave(per_scheduler: u32, overlapped: u32) -> f64 {
    f64::from(per_scheduler) / f64::from(overlapped.max(1))
}

/// How many of a scheduler's `overlapped` warps a barrier keeps in step:
/// one CTA's share of the scheduler, `⌈warps per CTA / schedulers⌉`.
pub(crate) fn lockstep_warps(warps_per_cta: u32, schedulers: u32, overlapped: u32) -> f64 {
    f64::from(warps_per_cta.div_ceil(schedulers.max(1)).max(1).min(overlapped.max(1)))
}

/// The memory cost of interval `i` in `wave`: MDM's (Eqs. 5 to 9), with the
/// waits for fills in flight beside the misses: loads that hit an L1 sector
/// still being fetched wait a miss's latency, and requests that hit an L2
/// block still on its way from DRAM wait as DRAM misses do. Both are the
/// `pending` cost; `miss` is what the misses alone would cost.
pub(crate) fn memory_cost(i: &Interval, machine: &Machine, wave: Wave) -> MemoryCost {
    let wait = i.wait.max(i.miss);
    if !i.awaits_load || wait <= 0.0 {
        return MemoryCost::default();
    }
    let idle = no_contention(machine, i.llc_miss);
    let idle_with_l2_fills = no_contention(machine, i.llc_wait.max(i.llc_miss));
    let warps = f64::from(wave.warps_per_sm);
    let mshrs = f64::from(machine.l1_mshrs);
    let active = f64::from(wave.active_sms);
    // Requests that skip the L1 (atomics) take no MSHR: they are in flight
    // beside the MSHRs' batch, never batched behind it.
    let mshr_reads = (i.m_read - i.m_bypass).max(0.0) * warps;
    // Writes and bypassing requests go out once per interval, spread over
    // its MSHR batches: each batch drains its own share, not all of them.
    let extra_batches = mshr_batches_flowing(mshr_reads, mshrs);
    let requests = mshr_reads.min(mshrs) + (i.m_bypass + i.m_write) * warps / (extra_batches + 1.0);
    let services = [machine.noc_service(), machine.dram_service(i.llc_miss)];
    let (noc, dram, mshr) = if mshr_reads > mshrs {
        // A memory-divergent interval keeps its SM's MSHRs full: each
        // request leaves its MSHR as its data comes back and the next takes
        // it, so the SMs' requests cycle through the latency, the NoC and
        // DRAM as a closed network, the first batch as every other, and
        // each batch takes that network's cycle time: the latency while the
        // links keep up, the busier link's drain once they do not.
        let [noc, dram] = closed_queue_waits(active * requests, idle_with_l2_fills, services);
        (noc, dram, extra_batches * (idle_with_l2_fills + noc + dram))
    } else {
        // A burst the MSHRs hold at once is MDM's queue: every active SM's
        // `M` requests reach the link together and drain through it, a
        // request waiting for half the drain on average.
        let [noc, dram] = services.map(|service| mdm_burst_delay(active, requests, service));
        (noc, dram, 0.0)
    };
    let beyond_hit = |latency: f64| (latency - machine.latencies.l1_hit).max(0.0);
    MemoryCost {
        miss: i.miss * beyond_hit(idle),
        pending: wait * beyond_hit(idle_with_l2_fills) - i.miss * beyond_hit(idle),
        mshr,
        noc: wait * noc,
        dram: wait * dram,
    }
}
