//! Profiling a workload: one pass over its CTAs that builds every warp's
//! interval profile and runs the functional cache pass, then picks each
//! kernel's representative warp and gives its intervals the memory behaviour
//! the cache pass measured. It reads the trace and the config only, never a
//! simulation.
//!
//! Memory: one wave of CTAs (what the GPU holds at once, the same bound as
//! the timing model) plus the kernel's distinct warp paths.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use warplab_config::GpuConfig;
use warplab_trace::source::WorkloadSource;
use warplab_trace::{Cta, Instruction, MemSpace};
use warplab_uarch::ops::{N_UNIT_CLASSES, OpKind};
use warplab_uarch::shared_memory::shared_memory_cycles;

use crate::cache_pass::{PcStats, Sent, Traffic};
use crate::code_fetch::ColdLines;
use crate::dram_rate::saturated_share;
use crate::interval::{KernelContext, Paths, StoredPath, Timeline, memory_space};
use crate::kmeans::{Point, representative};
use crate::limits::{KernelWork, MEMORY_PIPE, N_PIPES, PathTime, slowest_paths};
use crate::llc::{LlcCounts, SlicedLlc};
use crate::llc_stage::host_threads;
use crate::machine::Machine;
use crate::walk::{LaunchedKernel, WalkSink, Walker};

/// How to profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileOptions {
    /// Host-to-device copies fill the L2 (DESIGN §2a; off by default).
    pub memcpy_warms_l2: bool,
}

/// One interval of the representative warp, with the memory behaviour the
/// cache pass measured for its instructions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Warp instructions issued.
    pub insts: u32,
    /// Stall cycles after it, with every load taking the L1 hit latency.
    pub stall_cycles: u32,
    /// The stall waits for a load that goes through the L1.
    pub awaits_load: bool,
    /// Probability that the awaited load sends a request past the L1.
    pub miss: f64,
    /// Probability that the awaited load waits for memory: it misses, or it
    /// hits a sector another warp's miss is still fetching (an MSHR merge).
    /// At least `miss`; only warplab's core model reads it.
    #[serde(default)]
    pub wait: f64,

    /// Fraction of that load's requests that miss the L2.
    pub llc_miss: f64,
    /// Fraction of that load's requests that wait for DRAM: they miss the
    /// L2, or hit a block another SM's miss is still fetching. At least
    /// `llc_miss`; only warplab's core model reads it.
    #[serde(default)]
    pub llc_wait: f64,
    /// `M_read`: read requests past the L1 the warp has outstanding at this
    /// stall (those issued since the previous load stall), in expectation.
    pub m_read: f64,
    /// `M_write`: write requests issued in the same span.
    pub m_write: f64,
    /// Of `m_read`, the requests that skip the L1 (atomics; loads past it):
    /// they take no L1 MSHR. Only warplab's core model reads it.
    #[serde(default)]
    pub m_bypass: f64,
}

/// Cache figures of one kernel from the functional pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CacheFigures {
    /// L1 sector reads and misses.
    pub l1_reads: u64,
    /// L1 sector read misses.
    pub l1_read_misses: u64,

    /// Read requests past the L1 (atomics included; one per sector, or per
    /// line for a non-sectored L1), what the L1 MSHRs hold.
    pub read_requests: u64,
    /// Write requests past the L1.
    pub write_requests: u64,
    /// L2 accesses (reads, writes, atomics, write-backs).
    pub l2_accesses: u64,
    /// L2 misses.
    pub l2_misses: u64,
    /// L2 reads that hit a block another SM's miss fetched from DRAM in the
    /// same round of the pass: in a run they wait for that fill (the L2's
    /// `HIT_RESERVED`).
    #[serde(default)]
    pub l2_read_waits: u64,
    /// Mean bytes a request past the L1 moves on the reply network (header and data).
    pub reply_bytes_per_request: f64,
    /// Mean bytes on the request network per request.
    pub request_bytes_per_request: f64,
    /// Sectors moved to or from DRAM per request past the L1.
    pub dram_sectors_per_request: f64,
}

/// Everything the models need of one kernel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelProfile {
    /// Kernel name.
    pub name: String,
    /// Launch id in the trace.
    pub id: u64,
    /// CTAs in the grid.
    pub ctas: u64,
    /// Warps per CTA.
    pub warps_per_cta: u32,
    /// CTAs per SM the occupancy rule allows (0: the kernel cannot run).
    pub ctas_per_sm: u32,
    /// Warps in the kernel.
    pub warps: u64,
    /// Warp instructions (trace lines).
    pub warp_insts: u64,
    /// Thread instructions (active lanes summed).
    pub thread_insts: u64,
    /// Global loads whose lanes touch more 128-B lines than they need.
    pub divergent_loads: u64,
    /// Distinct warp paths found.
    pub distinct_paths: u64,
    /// The representative warp's intervals.
    pub intervals: Vec<Interval>,
    /// The cache pass's figures.
    pub caches: CacheFigures,
    /// What the warps ask of the throughput-limited parts ("MDM + limits").
    #[serde(default)]
    pub work: KernelWork,
}

impl KernelProfile {
    /// Divergent loads per 1,000 warp instructions.
    pub fn dpki(&self) -> f64 {
        1000.0 * self.divergent_loads as f64 / (self.warp_insts.max(1)) as f64
    }

    /// Warp instructions of the representative warp.
    pub fn representative_insts(&self) -> u64 {
        self.intervals.iter().map(|i| u64::from(i.insts)).sum()
    }
}

/// A profiled workload.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// Kernels in launch order.
    pub kernels: Vec<KernelProfile>,
    /// The SM count the cache pass interleaved over.
    pub profiled_sms: u32,
    /// Oddities met (unknown opcodes, kernels that cannot run).
    pub diagnostics: Vec<String>,
}

/// Profiles every kernel of `workload` on `config`, on as many threads as
/// the host offers (the cache pass's LLC stage runs beside its L1 stage
/// where there is a second core; the profile is the same on any number).
///
/// # Errors
/// The workload could not be read (the message names file, line and field),
/// or a kernel's warps take more distinct paths than the profile holds.
pub fn profile(
    config: &GpuConfig,
    workload: &mut dyn WorkloadSource,
    options: ProfileOptions,
) -> Result<Profile, String> {
    profile_on_threads(config, workload, options, host_threads())
}

/// [`profile`] on at most `threads` threads (1: all on the caller's).
///
/// # Errors
/// As [`profile`].
pub fn profile_on_threads(
    config: &GpuConfig,
    workload: &mut dyn WorkloadSource,
    options: ProfileOptions,
    threads: usize,
) -> Result<Profile, String> {
    let mut walker = Walker::new(config, &[config]).with_threads(threads);
    // The config's own latencies, to rank the slowest paths.
    let machine = Machine::of(config);
    let mut timeline = Timeline::new(config);
    let mut result = Profile { profiled_sms: config.n_sms(), ..Profile::default() };
    walker.for_each_kernel(workload, options, |walker, source| {
        let mut sink = ProfileSink { timeline: &mut timeline, tally: Tally::default() };
        if let Some(launched) = walker.kernel(source, &mut result.diagnostics, &mut sink)? {
            let stage = walker.cache.llc.stage();
            for (stats, &answers) in sink.tally.pc_stats.iter_mut().zip(&stage.sites) {
                stats.credit(answers);
            }
            let llc = stage.llcs.first();
            let busiest_slice = llc.map_or(0, SlicedLlc::busiest_slice_accesses);
            let window = config.n_sms() as usize * machine.l1_mshrs as usize;
            let dram_share = llc.map_or(1.0, |llc| saturated_share(config, &llc.dram_sample, window));
            let llc = llc.map(|llc| llc.counts).unwrap_or_default();
            let l2_read_waits = stage.read_waits;
            let traffic = &walker.cache.traffic;
            let busiest_link_bytes = walker.cache.busiest_link_bytes();
            let memory = MemoryCounts {
                traffic,
                llc: &llc,
                busiest_slice_accesses: busiest_slice,
                busiest_link_bytes,
                l2_read_waits,
                dram_share,
            };
            result.kernels.push(finish(launched, sink.tally, &memory, &machine));
        }
        // What this kernel fetched is in the L1I and the L2 for the next.
        timeline.code.end_kernel();
        Ok(())
    })?;
    Ok(result)
}

/// Per-kernel tallies.
#[derive(Default)]
struct Tally {
    paths: Paths,
    /// Memory sites, `(PC, ordinal among the warp's memory instructions)`
    /// packed in a `u64`, to their index in `pc_stats`.
    sites: FxHashMap<u64, u32>,
    pc_stats: Vec<PcStats>,
    warp_insts: u64,
    thread_insts: u64,
    warps: u64,
    /// Initiation cycles per unit class.
    unit_cycles: [u64; N_UNIT_CLASSES],
    /// Instructions per pipeline (`limits::MEMORY_PIPE` the LD/ST unit's).
    pipe_insts: [u64; N_PIPES],
    /// Cycles shared-memory instructions hold the LD/ST unit.
    shared_cycles: u64,
    /// Warp-level barrier instructions (`BAR`).
    barriers: u64,
}

impl Tally {
    /// What a warp's instructions ask of the execution units and, for
    /// shared memory, of the LD/ST unit (the cache pass counts the rest).
    fn count_work(&mut self, cta: &Cta, instructions: &[Instruction], k: &KernelContext<'_>) {
        for instruction in instructions {
            let Some(&op) = k.ops.get(instruction.opcode.0 as usize) else { continue };
            if let Some(unit) = op.unit {
                self.unit_cycles[unit] += u64::from(op.initiation_cycles.max(1));
            }
            self.pipe_insts[op.unit.unwrap_or(MEMORY_PIPE)] += 1;
            self.barriers += u64::from(op.kind == OpKind::Barrier);
            if memory_space(cta, instruction, op, k) == Some(MemSpace::Shared) {
                let lanes = cta.lane_addresses(instruction);
                self.shared_cycles += u64::from(shared_memory_cycles(lanes, op.access_bytes, k.shmem_banks, 1).max(1));
            }
        }
    }
}

/// The profile's part of a walk: every warp's interval profile, and each
/// memory site's cache figures.
struct ProfileSink<'t> {
    /// The single-warp timeline, kept across kernels for its buffers.
    timeline: &'t mut Timeline,
    tally: Tally,
}

impl WalkSink for ProfileSink<'_> {
    /// The interval profile of every warp of the wave.
    fn wave(&mut self, wave: &[Cta], k: &KernelContext<'_>) -> Result<(), String> {
        let tally = &mut self.tally;
        for cta in wave {
            for warp in &cta.warps {
                let mut site_index = |pc: u32, ordinal: u32| {
                    let next = tally.sites.len() as u32;
                    *tally.sites.entry(site(pc, ordinal)).or_insert(next)
                };
                self.timeline.profile_warp(cta, warp, k, &mut site_index);
                tally.paths.add(self.timeline)?;
                tally.warps += 1;
                let instructions = cta.warp_instructions(warp);
                tally.warp_insts += instructions.len() as u64;
                tally.thread_insts += instructions.iter().map(|i| u64::from(i.active_lanes())).sum::<u64>();
                tally.count_work(cta, instructions, k);
            }
        }
        tally.pc_stats.resize(tally.sites.len(), PcStats::default());
        Ok(())
    }

    fn site(&mut self, instruction: &Instruction, ordinal: u32) -> u32 {
        self.tally.sites[&site(instruction.pc, ordinal)]
    }

    fn access(&mut self, site: u32, sent: Sent) {
        self.tally.pc_stats[site as usize].record(sent);
    }
}

/// A memory site's key: its PC and its ordinal in the warp.
fn site(pc: u32, ordinal: u32) -> u64 {
    (u64::from(pc) << 32) | u64::from(ordinal)
}

/// What the cache pass counted over a kernel, past the per-site figures.
#[derive(Clone, Copy)]
struct MemoryCounts<'a> {
    /// The L1 stage's.
    traffic: &'a Traffic,
    /// The first LLC's.
    llc: &'a LlcCounts,
    busiest_slice_accesses: u64,
    /// The L1 stage's bytes on the busiest chiplet link.
    busiest_link_bytes: u64,
    /// Reads that hit an L2 block in flight from DRAM.
    l2_read_waits: u64,
    /// The first LLC's DRAM requests' saturated share (`dram_rate.rs`).
    dram_share: f64,
}

/// The kernel's profile: the representative path's intervals, with each
/// span of memory instructions' expected requests charged to the load stall
/// that ends it.
fn finish(launched: LaunchedKernel, tally: Tally, memory: &MemoryCounts<'_>, machine: &Machine) -> KernelProfile {
    let MemoryCounts { traffic, llc, busiest_slice_accesses, busiest_link_bytes, l2_read_waits, dram_share } = *memory;
    let points: Vec<Point> = tally
        .paths
        .paths
        .iter()
        .map(|p| Point { cycles: p.cycles as f64, insts: p.insts as f64, weight: p.warps as f64 })
        .collect();
    let representative = representative(&points);
    let Charged { intervals, exit_writes, after_last_write } =
        representative.map_or_else(Charged::default, |rep| with_memory(&tally.paths.stored(rep), &tally.pc_stats));
    let cold_lines = representative.map_or_else(ColdLines::default, |rep| tally.paths.paths[rep].cold_lines);
    let read_requests = tally.pc_stats.iter().map(|s| s.read_requests).sum::<u64>();
    let write_requests = tally.pc_stats.iter().map(|s| s.write_requests).sum::<u64>();
    let writes_to_dram = (llc.writes_to_dram as f64 / write_requests.max(1) as f64).min(1.0);
    let requests = (read_requests + write_requests).max(1) as f64;
    let LaunchedKernel { name, id, ctas, warps_per_cta, ctas_per_sm } = launched;
    KernelProfile {
        name,
        id,
        ctas,
        warps_per_cta,
        ctas_per_sm,
        warps: tally.warps,
        warp_insts: tally.warp_insts,
        thread_insts: tally.thread_insts,
        divergent_loads: tally.pc_stats.iter().map(|s| s.divergent).sum(),
        distinct_paths: tally.paths.paths.len() as u64,
        intervals,
        caches: CacheFigures {
            l1_reads: traffic.l1_reads,
            l1_read_misses: traffic.l1_read_misses,

            read_requests,
            write_requests,
            l2_accesses: llc.accesses,
            l2_misses: llc.fetches,
            l2_read_waits,
            reply_bytes_per_request: traffic.reply_bytes as f64 / requests,
            request_bytes_per_request: traffic.request_bytes as f64 / requests,
            dram_sectors_per_request: llc.dram_sectors as f64 / requests,
        },
        work: KernelWork {
            ldst_cycles: traffic.ldst_cycles + tally.shared_cycles,
            unit_cycles: tally.unit_cycles.to_vec(),
            pipe_insts: tally.pipe_insts.to_vec(),
            busiest_slice_accesses,
            barriers: tally.barriers,
            slowest_paths: slowest_paths(
                (0..tally.paths.paths.len()).map(|p| path_time(&tally, p, writes_to_dram)),
                machine,
            ),
            dram_share,
            exit_writes,
            after_last_write,
            writes_to_dram,
            fetch_misses: f64::from(cold_lines.misses),
            fetch_llc_misses: f64::from(cold_lines.llc_misses),
            link_round_trip: traffic.link_cycles / traffic.requests_from_sms.max(1) as f64,
            busiest_link_bytes,
        },
    }
}

/// Path `p` reduced to what its time alone depends on: its intervals with
/// their memory figures, the lines of its code it waits for, and the wait
/// at its exit for writes still in flight.
fn path_time(tally: &Tally, p: usize, writes_to_dram: f64) -> PathTime {
    let charged = with_memory(&tally.paths.stored(p), &tally.pc_stats);
    let cold = tally.paths.paths[p].cold_lines;
    PathTime {
        fetch_misses: f64::from(cold.misses),
        fetch_llc_misses: f64::from(cold.llc_misses),
        exit_writes: charged.exit_writes > 0.0,
        writes_to_dram,
        after_last_write: charged.after_last_write,
        ..PathTime::of(&charged.intervals)
    }
}

/// A path's intervals with their memory figures ([`with_memory`]).
#[derive(Debug, Default)]
struct Charged {
    intervals: Vec<Interval>,
    /// Write requests the warp sends after its last stall on a load that
    /// can miss: still in flight when it reaches its exit.
    exit_writes: f64,
    /// Cycles the warp runs alone after the interval of its last write
    /// (that interval's stall and the later intervals, an instruction a
    /// cycle): the time its last writes have to come back before its exit.
    after_last_write: f64,
}

/// Gives each raw interval its awaited loads' miss figures and the expected
/// requests outstanding at its stall.
///
/// Every request the warp sends is charged once, to the first stall at or
/// after it that waits for a load that can miss: a stall on a load that
/// always hits ends before they are served, so they are still in flight at
/// the next one. What the warp sends after its last such stall (vecadd's
/// stores) is still in flight when the warp that takes its slot next reaches
/// its first, so it is charged there.
fn with_memory(path: &StoredPath<'_>, pcs: &[PcStats]) -> Charged {
    let mut out = Vec::with_capacity(path.intervals.len());
    let (mut m_read, mut m_write, mut m_bypass) = (0.0, 0.0, 0.0);
    let (mut first_memop, mut first_awaited) = (0, 0);
    let mut after_last_write = 0.0;
    for r in path.intervals {
        after_last_write += f64::from(r.insts) + f64::from(r.stall);
        for &site in &path.memops[first_memop..r.memops_end as usize] {
            let s = pcs[site as usize];
            if s.write_requests > 0 {
                after_last_write = f64::from(r.stall);
            }
            let execs = s.execs.max(1) as f64;
            m_read += s.read_requests as f64 / execs;
            m_write += s.write_requests as f64 / execs;
            m_bypass += s.bypass_requests as f64 / execs;
        }
        first_memop = r.memops_end as usize;
        let awaited = &path.awaited[first_awaited..r.awaited_end as usize];
        first_awaited = r.awaited_end as usize;
        let Awaited { miss, wait, llc_miss, llc_wait } = awaited_misses(awaited, pcs);
        let mut interval = Interval {
            insts: r.insts,
            stall_cycles: r.stall,
            awaits_load: !awaited.is_empty(),
            miss,
            wait,
            llc_miss,
            llc_wait,
            m_read: 0.0,
            m_write: 0.0,
            m_bypass: 0.0,
        };
        if miss > 0.0 {
            (interval.m_read, interval.m_write, interval.m_bypass) = (m_read, m_write, m_bypass);
            (m_read, m_write, m_bypass) = (0.0, 0.0, 0.0);
        }
        out.push(interval);
    }
    if let Some(first) = out.iter_mut().find(|i| i.miss > 0.0) {
        first.m_read += m_read;
        first.m_write += m_write;
        first.m_bypass += m_bypass;
    }
    Charged { intervals: out, exit_writes: m_write, after_last_write }
}

/// What a stall waiting for the loads of `sites` waits for.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Awaited {
    /// The chance that any of them misses in the pass (taken as independent).
    miss: f64,
    /// The chance that any of them waits for memory (that, or a fill in
    /// flight).
    wait: f64,
    /// The LLC miss ratio of the misses' requests (each load's weighted by
    /// how often it misses).
    llc_miss: f64,
    /// The same for requests that wait for DRAM (misses and hits on fills
    /// in flight).
    llc_wait: f64,
}

fn awaited_misses(sites: &[u32], pcs: &[PcStats]) -> Awaited {
    let (mut all_hit, mut none_waits, mut weight, mut llc, mut llc_wait) = (1.0, 1.0, 0.0, 0.0, 0.0);
    for &site in sites {
        let s = pcs[site as usize];
        let execs = s.execs.max(1) as f64;
        let miss = s.missing_execs as f64 / execs;
        all_hit *= 1.0 - miss;
        none_waits *= 1.0 - (s.waiting_execs as f64 / execs).max(miss);
        weight += miss;
        let requests = s.read_requests.max(1) as f64;
        llc += miss * s.llc_misses as f64 / requests;
        llc_wait += miss * (s.llc_misses + s.llc_waits) as f64 / requests;
    }
    let per_miss = |x: f64| if weight > 0.0 { x / weight } else { 0.0 };
    Awaited { miss: 1.0 - all_hit, wait: 1.0 - none_waits, llc_miss: per_miss(llc), llc_wait: per_miss(llc_wait) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interval::RawInterval;

    /// A site that always sends `reads` read requests and `writes` write
    /// requests, `miss` of its executions missing, `llc` of its reads missing the L2.
    fn site(reads: u64, writes: u64, miss: f64, llc: f64) -> PcStats {
        let execs = 100;
        PcStats {
            execs,
            missing_execs: (miss * execs as f64) as u64,
            read_requests: reads * execs,
            llc_misses: (llc * (reads * execs) as f64) as u64,
            write_requests: writes * execs,
            divergent: 0,
            waiting_execs: (miss * execs as f64) as u64,
            llc_waits: 0,
            bypass_requests: 0,
        }
    }

    fn raw(memops_end: u32, awaited_end: u32) -> RawInterval {
        RawInterval { insts: 4, stall: 20, memops_end, awaited_end }
    }

    #[test]
    fn a_stall_on_two_loads_waits_for_the_one_that_misses() {
        // Load 0 always misses (half its requests miss the L2), load 1 always
        // hits; the stall needs both. With hit latencies load 1 would arrive
        // last, but the miss is what the warp waits for.
        let pcs = [site(4, 0, 1.0, 0.5), site(0, 0, 0.0, 0.0)];
        let path = StoredPath { intervals: &[raw(2, 2)], memops: &[0, 1], awaited: &[0, 1] };
        let intervals = with_memory(&path, &pcs).intervals;
        assert_eq!((intervals[0].miss, intervals[0].llc_miss, intervals[0].m_read), (1.0, 0.5, 4.0));
        // Two loads that each miss half the time: the stall waits for a miss
        // three times in four.
        let pcs = [site(4, 0, 0.5, 0.0), site(4, 0, 0.5, 1.0)];
        let intervals = with_memory(&path, &pcs).intervals;
        assert_eq!((intervals[0].miss, intervals[0].llc_miss), (0.75, 0.5));
    }

    #[test]
    fn every_request_is_charged_once() {
        // Interval 0 loads (site 0, misses) and stalls on it; interval 1
        // loads a site that always hits and a store (site 2), and stalls on
        // the hit; interval 2 stores again (site 3) and ends the warp. The
        // stores after the last missing stall are charged to the first one,
        // where the next warp on the slot will be; nothing is dropped. They
        // are also the writes the warp still waits for at its exit.
        let pcs = [site(8, 0, 1.0, 0.0), site(0, 0, 0.0, 0.0), site(0, 2, 0.0, 0.0), site(0, 3, 0.0, 0.0)];
        let path =
            StoredPath { intervals: &[raw(1, 1), raw(3, 2), raw(4, 2)], memops: &[0, 1, 2, 3], awaited: &[0, 1] };
        let Charged { intervals, exit_writes, after_last_write } = with_memory(&path, &pcs);
        let charged: Vec<(f64, f64)> = intervals.iter().map(|i| (i.m_read, i.m_write)).collect();
        assert_eq!(charged, [(8.0, 5.0), (0.0, 0.0), (0.0, 0.0)]);
        assert_eq!(exit_writes, 5.0);
        // The last store is in the last interval, whose stall (20 cycles)
        // is all the warp runs after it.
        assert_eq!(after_last_write, 20.0);
        assert!(intervals[1].awaits_load && intervals[1].miss == 0.0 && !intervals[2].awaits_load);
    }

    #[test]
    fn requests_that_skip_the_l1_are_counted_apart() {
        // An atomic (site 0: 32 requests, all past the L1) and a load (site
        // 1: 4 requests through it) before one stall: 36 reads in flight,
        // 32 of them taking no MSHR.
        let atomic = PcStats { bypass_requests: 32 * 100, ..site(32, 0, 1.0, 0.0) };
        let pcs = [atomic, site(4, 0, 1.0, 0.0)];
        let path = StoredPath { intervals: &[raw(2, 2)], memops: &[0, 1], awaited: &[0, 1] };
        let intervals = with_memory(&path, &pcs).intervals;
        assert_eq!((intervals[0].m_read, intervals[0].m_bypass), (36.0, 32.0));
    }
}
