//! The simulation report: plain data with one doc comment per figure, the
//! definitions of DESIGN §2a. It crosses the worker boundary and is the CLI's
//! JSON; engine state never is.

use std::ops::AddAssign;

use serde::{Deserialize, Serialize};
use warplab_uarch::cache::Outcome;

use crate::dram::DramStats;
use crate::sampling::SamplingReport;

/// Everything a run measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimReport {
    /// Core cycles from the start to the last kernel's end (Accel-Sim's `gpu_tot_sim_cycle`).
    pub cycles: u64,
    /// Warp instructions issued (trace lines).
    pub warp_insts: u64,
    /// Thread instructions: active lanes summed over issued instructions.
    pub thread_insts: u64,
    /// Thread instructions per core cycle.
    pub ipc: f64,
    /// Warp instructions per core cycle.
    pub warp_ipc: f64,
    /// Share of SM cycles with resident warps in which nothing issued because
    /// every resident warp waited on memory, averaged over SMs (0 to 1).
    pub f_mem: f64,
    /// L2 sector misses per 1,000 thread instructions (in a sampled run,
    /// per 1,000 of those simulated in detail, the only ones that reach the L2).
    pub l2_mpki: f64,
    /// L1 instruction cache lookups by outcome (all SMs): a fetch that
    /// merged into its line's outstanding miss is a pending hit.
    pub l1i: OutcomeCounts,
    /// L1 data cache accesses by outcome (all SMs).
    pub l1d: CacheReport,
    /// Cycles shared-memory instructions held an LD/ST unit for bank
    /// conflicts, summed over SMs: an access whose banks need n cycles (the
    /// most distinct words one bank serves) holds the unit n cycles, n - 1 of
    /// them conflicts, so a conflict-free access counts 0, a 2-way one 1 and a
    /// 32-way one 31. GPGPU-Sim's `gpgpu_n_shmem_bkconflict`, which counts the
    /// same cycles (`ldst_unit::shared_cycle`; docs/validation.md).
    pub shmem_bank_conflict_cycles: u64,
    /// L2 accesses by outcome (all slices).
    pub l2: CacheReport,
    /// DRAM traffic, bandwidth and row-buffer locality.
    pub dram: DramReport,
    /// The L1-miss latency split into its parts.
    pub latency_breakdown: LatencyBreakdown,
    /// What every scheduler did every cycle.
    pub issue_breakdown: IssueBreakdown,
    /// Instructions issued to each pipeline, after the dispatch rules and
    /// fallbacks (e.g. FFMAs on the SP units, for peak-rate checks).
    pub issued_by_pipeline: IssueByPipeline,
    /// Cycles (summed over SMs) with k L1 MSHR entries in use, in buckets.
    pub mshr_occupancy: MshrHistogram,
    /// Cycles a full queue made its producer wait, per link.
    pub queue_stalls: QueueStalls,
    /// One entry per kernel launch, in launch order.
    pub kernels: Vec<KernelReport>,
    /// One entry per SM.
    pub sms: Vec<SmReport>,
    /// Recoverable oddities: opcode fallbacks, truncated input, kernels that
    /// could not run.
    pub diagnostics: Vec<String>,
    /// What sampled simulation did, when it was on. Instruction counts
    /// above then include the instructions it predicted.
    pub sampling: Option<SamplingReport>,
    /// What crossed between chiplets, on a GPU of several (`None` on a
    /// monolithic one). Never skipped when serializing: the worker's codec
    /// (bincode) cannot read a message with a field left out.
    #[serde(default)]
    pub chiplets: Option<ChipletReport>,
}

/// Traffic between chiplets: requests and replies over the links.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChipletReport {
    /// Chiplets.
    pub chiplets: u32,
    /// Requests SMs sent to L2 slices (each L2 access from an SM).
    pub l2_requests: u64,
    /// Of those, requests to a slice on another chiplet: each crossed the
    /// links, and its reply came back over them.
    pub remote_l2_requests: u64,
    /// `remote_l2_requests / l2_requests`.
    pub remote_share: f64,
    /// Bytes sent over links, requests and replies, each hop counted.
    pub link_bytes: u64,
    /// Bytes per second one link direction carries at most.
    pub link_bandwidth_bytes_per_s: f64,
    /// Share of the time links spent sending, averaged over every link of
    /// both directions (0 to 1).
    pub link_utilization: f64,
    /// The same for the busiest link.
    pub busiest_link_utilization: f64,
}

/// One cache level's accesses by Accel-Sim's outcome classes. Every access is
/// one 32-B sector (one line for a non-sectored cache).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheReport {
    /// Read accesses by outcome.
    pub reads: OutcomeCounts,
    /// Write accesses by outcome.
    pub writes: OutcomeCounts,
    /// Atomic accesses (at the L2) by outcome.
    pub atomics: OutcomeCounts,
}

/// Accesses per outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutcomeCounts {
    /// The sector was present.
    pub hit: u64,
    /// The sector's fill was already pending: merged into an MSHR.
    pub hit_reserved: u64,
    /// No line with this tag.
    pub miss: u64,
    /// The line was present but not this sector.
    pub sector_miss: u64,
    /// Could not proceed (no MSHR, full miss queue, every way reserved); retried.
    pub reservation_fail: u64,
}

impl OutcomeCounts {
    /// Counts one outcome.
    pub fn count(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Hit => self.hit += 1,
            Outcome::HitReserved => self.hit_reserved += 1,
            Outcome::Miss => self.miss += 1,
            Outcome::SectorMiss => self.sector_miss += 1,
            Outcome::ReservationFail => self.reservation_fail += 1,
        }
    }

    /// Accesses that completed (everything but reservation failures).
    pub fn accesses(&self) -> u64 {
        self.hit + self.hit_reserved + self.miss + self.sector_miss
    }

    /// Misses that went to the next level (miss and sector miss).
    pub fn misses(&self) -> u64 {
        self.miss + self.sector_miss
    }
}

impl AddAssign for OutcomeCounts {
    fn add_assign(&mut self, other: Self) {
        self.hit += other.hit;
        self.hit_reserved += other.hit_reserved;
        self.miss += other.miss;
        self.sector_miss += other.sector_miss;
        self.reservation_fail += other.reservation_fail;
    }
}

impl AddAssign<&CacheReport> for CacheReport {
    fn add_assign(&mut self, other: &CacheReport) {
        self.reads += other.reads;
        self.writes += other.writes;
        self.atomics += other.atomics;
    }
}

/// DRAM figures over all channels.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DramReport {
    /// The channels' counters, summed.
    pub totals: DramStats,
    /// Bytes read and written.
    pub bytes: u64,
    /// Bytes per second over the run, at the configured clocks.
    pub bandwidth_bytes_per_s: f64,
    /// That bandwidth over the configured peak (0 to 1).
    pub bandwidth_utilization: f64,
    /// Row-buffer hits over column accesses (0 to 1).
    pub row_buffer_hit_rate: f64,
}

/// Where L1 read misses spent their time, in core cycles summed over misses
/// (the MDM paper's Fig. 3). Each miss's parts add up to its latency.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyBreakdown {
    /// L1 read misses measured.
    pub misses: u64,
    /// From the first attempt until the request entered the crossbar: waiting
    /// for an MSHR or miss-queue slot, then in the miss queue.
    pub mshr_wait_cycles: u64,
    /// In the request and reply crossbars, queueing and transfer.
    pub noc_cycles: u64,
    /// In the memory partition: ROP pipeline, L2 queues and the L2 access.
    pub l2_cycles: u64,
    /// Waiting for DRAM: the L2-to-DRAM queue and the DRAM scheduler's queue.
    pub dram_queue_cycles: u64,
    /// DRAM service: the fixed DRAM latency, row commands and the data burst.
    pub dram_service_cycles: u64,
}

impl LatencyBreakdown {
    /// Mean cycles per miss of each part, in the order mshr, noc, l2, dram queue, dram service.
    pub fn means(&self) -> [f64; 5] {
        let n = self.misses.max(1) as f64;
        [
            self.mshr_wait_cycles as f64 / n,
            self.noc_cycles as f64 / n,
            self.l2_cycles as f64 / n,
            self.dram_queue_cycles as f64 / n,
            self.dram_service_cycles as f64 / n,
        ]
    }

    /// Total cycles over all parts.
    pub fn total_cycles(&self) -> u64 {
        self.mshr_wait_cycles + self.noc_cycles + self.l2_cycles + self.dram_queue_cycles + self.dram_service_cycles
    }
}

/// Each SM keeps its own breakdown; the report adds them up.
impl AddAssign<&LatencyBreakdown> for LatencyBreakdown {
    fn add_assign(&mut self, other: &LatencyBreakdown) {
        self.misses += other.misses;
        self.mshr_wait_cycles += other.mshr_wait_cycles;
        self.noc_cycles += other.noc_cycles;
        self.l2_cycles += other.l2_cycles;
        self.dram_queue_cycles += other.dram_queue_cycles;
        self.dram_service_cycles += other.dram_service_cycles;
    }
}

/// What the warp schedulers did, one count per scheduler per cycle.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssueBreakdown {
    /// An instruction issued.
    pub issued: u64,
    /// Nothing issued: every warp waited on a memory result or the memory pipeline.
    pub memory: u64,
    /// Nothing issued: the warps not waiting on memory had empty instruction
    /// buffers (fetch and decode, or an instruction-cache miss).
    pub fetch: u64,
    /// Nothing issued: the ready-looking warps waited on an arithmetic result.
    pub dependence: u64,
    /// Nothing issued: warps waited at a barrier.
    pub barrier: u64,
    /// Nothing issued: a warp was ready but its unit was busy.
    pub structural: u64,
    /// No warp resident on this scheduler.
    pub no_warp: u64,
}

impl IssueBreakdown {
    /// Counts `n` scheduler cycles with `outcome`.
    pub(crate) fn add(&mut self, outcome: crate::sm::IssueOutcome, n: u64) {
        use crate::sm::{IssueOutcome, Stall};
        let slot = match outcome {
            IssueOutcome::Issued => &mut self.issued,
            IssueOutcome::NoWarp => &mut self.no_warp,
            IssueOutcome::Stalled(Stall::Memory) => &mut self.memory,
            IssueOutcome::Stalled(Stall::Fetch) => &mut self.fetch,
            IssueOutcome::Stalled(Stall::Barrier) => &mut self.barrier,
            IssueOutcome::Stalled(Stall::Dependence) => &mut self.dependence,
            IssueOutcome::Stalled(Stall::Structural) => &mut self.structural,
        };
        *slot += n;
    }
}

impl AddAssign for IssueBreakdown {
    fn add_assign(&mut self, other: Self) {
        self.issued += other.issued;
        self.memory += other.memory;
        self.fetch += other.fetch;
        self.dependence += other.dependence;
        self.barrier += other.barrier;
        self.structural += other.structural;
        self.no_warp += other.no_warp;
    }
}

/// Instructions issued to one pipeline.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PipelineIssue {
    /// Warp instructions.
    pub warp_insts: u64,
    /// Thread instructions: active lanes summed.
    pub thread_insts: u64,
}

/// Instructions issued per pipeline (all SMs).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssueByPipeline {
    /// The SP (FP32) units.
    pub sp: PipelineIssue,
    /// The INT units.
    pub int: PipelineIssue,
    /// The DP (FP64) units.
    pub dp: PipelineIssue,
    /// The SFUs.
    pub sfu: PipelineIssue,
    /// The tensor cores.
    pub tensor: PipelineIssue,
    /// The specialized units (`-specialized_unit_k`), slot 1 first.
    pub specialized: Vec<PipelineIssue>,
    /// The LD/ST unit (global, local, shared, texture and atomic accesses).
    pub memory: PipelineIssue,
}

/// A histogram of L1 MSHR entries in use, sampled every SM cycle.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MshrHistogram {
    /// Entries per SM (the cache string's MSHR count).
    pub entries: u32,
    /// Width of a bucket in entries.
    pub bucket_entries: u32,
    /// SM cycles per bucket: bucket k counts cycles with `k × bucket_entries`
    /// up to `(k + 1) × bucket_entries − 1` entries in use.
    pub cycles: Vec<u64>,
}

impl MshrHistogram {
    /// Buckets of a histogram (and one more for a full table).
    const BUCKETS: u32 = 16;

    /// An empty histogram of `config`'s L1 MSHRs (none without an L1).
    pub(crate) fn for_l1(config: &warplab_config::GpuConfig) -> Self {
        let entries = config.l1.dl1.as_ref().map_or(0, |c| c.mshr_entries);
        Self {
            entries,
            bucket_entries: entries.div_ceil(Self::BUCKETS).max(1),
            cycles: vec![0; Self::BUCKETS as usize + 1],
        }
    }

    /// Counts `n` SM cycles with `in_use` entries in use.
    pub(crate) fn add(&mut self, in_use: u32, n: u64) {
        let last = self.cycles.len().saturating_sub(1);
        let bucket = ((in_use / self.bucket_entries.max(1)) as usize).min(last);
        if let Some(cycles) = self.cycles.get_mut(bucket) {
            *cycles += n;
        }
    }
}

/// Each SM keeps its own histogram of the same L1; the report adds them up.
impl AddAssign<&MshrHistogram> for MshrHistogram {
    fn add_assign(&mut self, other: &MshrHistogram) {
        for (cycles, more) in self.cycles.iter_mut().zip(&other.cycles) {
            *cycles += more;
        }
    }
}

/// Producer stalls on full links, in cycles of the producer's clock.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueStalls {
    /// SM → crossbar (request network input full).
    pub sm_to_icnt: u64,
    /// ROP → L2 queue (`icnt to L2` full).
    pub icnt_to_l2: u64,
    /// L2 → DRAM queue full.
    pub l2_to_dram: u64,
    /// DRAM → L2 return queue full.
    pub dram_to_l2: u64,
    /// L2 → crossbar (`L2 to icnt` full).
    pub l2_to_icnt: u64,
    /// Slice → reply network input full.
    pub reply_to_icnt: u64,
    /// DRAM scheduler queue full.
    pub dram_queue: u64,
}

/// One kernel launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelReport {
    /// Kernel name from the trace header.
    pub name: String,
    /// Kernel id from the trace header.
    pub id: u64,
    /// CUDA stream.
    pub stream: u64,
    /// Core cycle of the launch (before the launch latency).
    pub start_cycle: u64,
    /// Core cycle the last CTA finished.
    pub end_cycle: u64,
    /// Warp instructions issued.
    pub warp_insts: u64,
    /// Thread instructions issued.
    pub thread_insts: u64,
    /// Thread instructions per cycle over the kernel's own span.
    pub ipc: f64,
    /// CTAs that ran.
    pub ctas: u64,
    /// CTAs per SM the occupancy rule allows.
    pub ctas_per_sm: u32,
    /// What limits them.
    pub occupancy_limiter: String,
}

/// One SM.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SmReport {
    /// Warp instructions issued.
    pub warp_insts: u64,
    /// Thread instructions issued.
    pub thread_insts: u64,
    /// Thread instructions per cycle of the whole run.
    pub ipc: f64,
    /// Cycles with at least one resident warp.
    pub active_cycles: u64,
    /// Resident warps per active cycle over the SM's warp slots (0 to 1).
    pub achieved_occupancy: f64,
    /// Active cycles in which nothing issued because every warp waited on memory.
    pub memory_stall_cycles: u64,
    /// The most CTAs resident at once.
    pub max_resident_ctas: u32,
}
