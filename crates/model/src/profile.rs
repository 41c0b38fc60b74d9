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
use warplab_trace::Cta;
use warplab_trace::source::{Command, KernelSource, WorkloadSource};
use warplab_uarch::latency::IdleLatencies;
use warplab_uarch::occupancy::{CtaShape, occupancy};
use warplab_uarch::ops::{OpInfo, extend_op_table};

use crate::cache_pass::{CachePass, PcStats, Traffic};
use crate::interval::{KernelContext, Paths, RawInterval, Timeline, l1_space};
use crate::kmeans::{Point, representative};

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
    /// Fraction of that load's requests that miss the L2.
    pub llc_miss: f64,
    /// `M_read`: read requests past the L1 the warp has outstanding at this
    /// stall (those issued since the previous load stall), in expectation.
    pub m_read: f64,
    /// `M_write`: write requests issued in the same span.
    pub m_write: f64,
}

/// Cache figures of one kernel from the functional pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CacheFigures {
    /// L1 sector reads and misses.
    pub l1_reads: u64,
    /// L1 sector read misses.
    pub l1_read_misses: u64,
    /// L2 accesses (reads, writes, atomics, write-backs).
    pub l2_accesses: u64,
    /// L2 misses.
    pub l2_misses: u64,
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

/// Profiles every kernel of `workload` on `config`.
///
/// # Errors
/// The workload could not be read (the message names file, line and field),
/// or a kernel's warps take more distinct paths than the profile holds.
pub fn profile(
    config: &GpuConfig,
    workload: &mut dyn WorkloadSource,
    options: ProfileOptions,
) -> Result<Profile, String> {
    let mut profiler = Profiler::new(config);
    let mut result = Profile { profiled_sms: config.n_sms(), ..Profile::default() };
    while let Some(command) = workload.next_command() {
        match command? {
            Command::MemcpyHtoD { address, bytes } => {
                if options.memcpy_warms_l2 {
                    profiler.cache.warm_l2(address, bytes);
                }
            }
            Command::Kernel(kernel) => {
                if let Some(kernel) = profiler.kernel(kernel, &mut result.diagnostics)? {
                    result.kernels.push(kernel);
                }
            }
        }
    }
    Ok(result)
}

/// State kept across kernels: the caches (the L2 persists), the timeline and
/// the CTA buffers.
struct Profiler<'c> {
    config: &'c GpuConfig,
    cache: CachePass,
    timeline: Timeline,
    wave: Vec<Cta>,
    l1_hit: u64,
    /// L1 MSHRs per SM: the misses one round of the cache pass lets through.
    mshrs_per_sm: u32,
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
}

impl<'c> Profiler<'c> {
    fn new(config: &'c GpuConfig) -> Self {
        Self {
            config,
            cache: CachePass::new(config),
            timeline: Timeline::new(),
            wave: Vec::new(),
            l1_hit: IdleLatencies::of(config).l1_hit.round() as u64,
            mshrs_per_sm: config.l1.dl1.as_ref().map_or(u32::MAX, warplab_config::CacheConfig::mshrs_in_use),
        }
    }

    fn kernel(
        &mut self,
        mut source: Box<dyn KernelSource>,
        diagnostics: &mut Vec<String>,
    ) -> Result<Option<KernelProfile>, String> {
        let header = source.header().clone();
        let shape = CtaShape {
            threads: header.block.size() as u32,
            regs_per_thread: header.nregs,
            shmem_bytes: header.shmem_bytes,
        };
        let occupancy = match occupancy(self.config, shape) {
            Ok(occupancy) => occupancy,
            Err(error) => {
                diagnostics.push(format!("kernel {} ({}) cannot run: {error}", header.id, header.name));
                return Ok(None);
            }
        };
        let carveout = self.config.l1.carveout_for(occupancy.ctas_per_sm * shape.shmem_bytes);
        self.cache.start_kernel(self.config, carveout.map(|(_, ways)| ways));
        let wave_ctas = (occupancy.ctas_per_sm as usize) * (self.config.n_sms() as usize);
        let mut ops: Vec<OpInfo> = Vec::new();
        let mut tally = Tally::default();
        let mut ctas = 0u64;
        loop {
            let n = self.fill_wave(source.as_mut(), wave_ctas)?;
            if n == 0 {
                break;
            }
            ctas += n as u64;
            for message in extend_op_table(&mut ops, source.opcodes(), self.config) {
                diagnostics.push(format!("kernel {}: {message}", header.id));
            }
            let k = KernelContext {
                ops: &ops,
                l1_hit: self.l1_hit,
                shared: u64::from(self.config.l1.shmem_latency_cycles.max(1)),
                shmem_base: header.shmem_base,
                local_base: header.local_base,
            };
            self.profile_warps(n, &k, &mut tally)?;
            self.run_caches(n, &k, &mut tally);
        }
        diagnostics.extend(source.diagnostics());
        let warps_per_cta = (shape.threads.max(1)).div_ceil(self.config.cores.warp_size.max(1));
        Ok(Some(finish(header.name, header.id, ctas, warps_per_cta, occupancy.ctas_per_sm, tally, &self.cache.traffic)))
    }

    /// Reads up to `limit` CTAs into the wave buffers; how many it read.
    fn fill_wave(&mut self, source: &mut dyn KernelSource, limit: usize) -> Result<usize, String> {
        let mut n = 0;
        while n < limit.max(1) {
            if self.wave.len() == n {
                self.wave.push(Cta::default());
            }
            if !source.next_cta(&mut self.wave[n])? {
                break;
            }
            n += 1;
        }
        Ok(n)
    }

    /// The interval profile of every warp of the wave's first `n` CTAs.
    fn profile_warps(&mut self, n: usize, k: &KernelContext<'_>, tally: &mut Tally) -> Result<(), String> {
        for cta in &self.wave[..n] {
            for warp in &cta.warps {
                let mut site_index = |pc: u32, ordinal: u32| {
                    let next = tally.sites.len() as u32;
                    *tally.sites.entry(site(pc, ordinal)).or_insert(next)
                };
                self.timeline.profile_warp(cta, warp, k, &mut site_index);
                tally.paths.add(&self.timeline)?;
                tally.warps += 1;
                let instructions = cta.warp_instructions(warp);
                tally.warp_insts += instructions.len() as u64;
                tally.thread_insts += instructions.iter().map(|i| u64::from(i.active_lanes())).sum::<u64>();
            }
        }
        tally.pc_stats.resize(tally.sites.len(), PcStats::default());
        Ok(())
    }

    /// The cache pass over the wave: CTA `c` on SM `c mod #SMs` (the timing
    /// model's first round of launches), warps taking turns one memory
    /// instruction at a time, oldest warp first.
    ///
    /// Each round stands for one memory latency, in which an SM can have no
    /// more misses in flight than its L1 has MSHRs: once a round's misses
    /// reach that, the SM's younger warps wait for the next round. Without
    /// this a memory-divergent kernel's warps would all advance in lockstep
    /// and evict each other's lines between two loads of the same line,
    /// where in a run the MSHRs let a few warps at a time through, and their
    /// lines are still in the L1 when they come back to them.
    fn run_caches(&mut self, n: usize, k: &KernelContext<'_>, tally: &mut Tally) {
        let n_sms = self.config.n_sms().max(1) as usize;
        // (CTA, warp, next instruction, memory instructions done) for every
        // warp of the wave, grouped by SM.
        let mut cursors: Vec<(usize, usize, usize, u32)> = Vec::new();
        let mut sm_starts = Vec::with_capacity(n_sms + 1);
        for sm in 0..n_sms {
            sm_starts.push(cursors.len());
            for c in (sm..n).step_by(n_sms) {
                cursors.extend((0..self.wave[c].warps.len()).map(|w| (c, w, 0, 0)));
            }
        }
        sm_starts.push(cursors.len());
        let mut live = cursors.len();
        while live > 0 {
            live = 0;
            for sm in 0..n_sms {
                let mut budget = u64::from(self.mshrs_per_sm);
                for (c, w, next, ordinal) in &mut cursors[sm_starts[sm]..sm_starts[sm + 1]] {
                    let cta = &self.wave[*c];
                    let instructions = cta.warp_instructions(&cta.warps[*w]);
                    if budget > 0 {
                        budget = budget.saturating_sub(next_access(
                            &mut self.cache,
                            sm,
                            cta,
                            instructions,
                            (next, ordinal),
                            k,
                            tally,
                        ));
                    }
                    if *next < instructions.len() {
                        live += 1;
                    }
                }
            }
        }
    }
}

/// A memory site's key: its PC and its ordinal in the warp.
fn site(pc: u32, ordinal: u32) -> u64 {
    (u64::from(pc) << 32) | u64::from(ordinal)
}

/// Runs a warp's next memory instruction through the caches; the read
/// misses it sent.
fn next_access(
    cache: &mut CachePass,
    sm: usize,
    cta: &Cta,
    instructions: &[warplab_trace::Instruction],
    (next, ordinal): (&mut usize, &mut u32),
    k: &KernelContext<'_>,
    tally: &mut Tally,
) -> u64 {
    while let Some(instruction) = instructions.get(*next) {
        *next += 1;
        let Some(&op) = k.ops.get(instruction.opcode.0 as usize) else { continue };
        if let Some(space) = l1_space(cta, instruction, op, k) {
            let stats = &mut tally.pc_stats[tally.sites[&site(instruction.pc, *ordinal)] as usize];
            *ordinal += 1;
            let before = stats.read_requests;
            cache.access(sm, cta, instruction, op, space, stats);
            return stats.read_requests - before;
        }
    }
    0
}

/// The kernel's profile: the representative path's intervals, with each
/// span of memory instructions' expected requests charged to the load stall
/// that ends it.
fn finish(
    name: String,
    id: u64,
    ctas: u64,
    warps_per_cta: u32,
    ctas_per_sm: u32,
    tally: Tally,
    traffic: &Traffic,
) -> KernelProfile {
    let points: Vec<Point> = tally
        .paths
        .paths
        .iter()
        .map(|p| Point { cycles: p.cycles as f64, insts: p.insts as f64, weight: p.warps as f64 })
        .collect();
    let intervals = representative(&points).map_or_else(Vec::new, |rep| {
        let (raw, memops) = tally.paths.get(rep);
        with_memory(raw, memops, &tally.pc_stats)
    });
    let requests = tally.pc_stats.iter().map(|s| s.read_requests + s.write_requests).sum::<u64>().max(1) as f64;
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
            l2_accesses: traffic.l2_accesses,
            l2_misses: traffic.l2_misses,
            reply_bytes_per_request: traffic.reply_bytes as f64 / requests,
            request_bytes_per_request: traffic.request_bytes as f64 / requests,
            dram_sectors_per_request: traffic.dram_sectors as f64 / requests,
        },
    }
}

/// Gives each raw interval its awaited load's miss figures and the expected
/// requests outstanding at its stall.
fn with_memory(raw: &[RawInterval], memops: &[u32], pcs: &[PcStats]) -> Vec<Interval> {
    let mut out = Vec::with_capacity(raw.len());
    let (mut m_read, mut m_write) = (0.0, 0.0);
    let mut first = 0;
    for (i, r) in raw.iter().enumerate() {
        for &pc in &memops[first..r.memops_end as usize] {
            let s = pcs[pc as usize];
            let execs = s.execs.max(1) as f64;
            m_read += s.read_requests as f64 / execs;
            m_write += s.write_requests as f64 / execs;
        }
        first = r.memops_end as usize;
        let awaited = r.awaited.checked_sub(1).map(|pc| pcs[pc as usize]);
        let last = i + 1 == raw.len();
        let mut interval = Interval {
            insts: r.insts,
            stall_cycles: r.stall,
            awaits_load: awaited.is_some(),
            miss: awaited.map_or(0.0, |s| s.missing_execs as f64 / s.execs.max(1) as f64),
            llc_miss: awaited.map_or(0.0, |s| s.llc_misses as f64 / s.read_requests.max(1) as f64),
            m_read: 0.0,
            m_write: 0.0,
        };
        if interval.awaits_load || last {
            (interval.m_read, interval.m_write) = (m_read, m_write);
            (m_read, m_write) = (0.0, 0.0);
        }
        out.push(interval);
    }
    out
}
