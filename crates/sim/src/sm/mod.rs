//! One streaming multiprocessor: resident CTAs and warps, the sub-cores with
//! their warp schedulers and execution units, and the memory pipeline (LD/ST
//! unit, L1 data cache, MSHRs, miss queue).
//!
//! Per core cycle the SM works back to front, as GPGPU-Sim's
//! `shader_core_ctx::cycle` does, so that a result produced in a cycle is
//! consumed in the next one and the order never depends on which component
//! was written first:
//! 1. write back the results in the writeback register (see [`pipeline`]);
//! 2. advance the execution units, each taking its next instruction;
//! 3. the memory pipeline: take one reply from the crossbar (fill the L1,
//!    release its MSHR entry, complete the merged loads); complete
//!    shared-memory accesses whose latency has elapsed; send the head of the
//!    miss queue into the crossbar, then let the head of each L1 bank's
//!    lookup pipeline look up the tags; let the LD/ST unit work on its
//!    current instruction (coalesced accesses into the L1 banks' pipelines,
//!    one per bank), and take its next one when it is done;
//! 4. the operand collector's steps;
//! 5. let each sub-core's scheduler issue at most one instruction, into its
//!    pipeline's issue register;
//! 6. decode what the fetch stage fetched last into that warp's instruction
//!    buffer, and
//! 7. fetch for one more warp (instruction cache, see [`fetch`]); steps 6
//!    and 7 repeat `-gpgpu_inst_fetch_throughput` times.

pub(crate) mod fetch;
pub(crate) mod issue;
pub(crate) mod memory;
pub(crate) mod pipeline;
pub(crate) mod port;
pub(crate) mod scoreboard;

use std::collections::VecDeque;
use std::ops::{AddAssign, SubAssign};

use warplab_config::{GpuConfig, SchedulerPolicy};
use warplab_trace::{Cta, OpcodeTable, Reg};

use crate::ops::{N_UNIT_CLASSES, OpInfo, extend_op_table};
use crate::per_pc::PerPc;
use crate::report::{IssueBreakdown, LatencyBreakdown, MshrHistogram};
use crate::sampling::blocks::NO_BLOCK;
use crate::sampling::log::{BlockRecord, GapRecord, SampleLog, WarpRecord};

pub(crate) use issue::{IssueOutcome, Stall};
pub(crate) use memory::MemoryPipeline;
use scoreboard::{RegState, Scoreboard};

/// A wait with no known end: only an event (a load's data, a writeback, a
/// barrier releasing, an `ID_OC` slot freeing) ends it.
pub(crate) const PENDING: u64 = u64::MAX;

/// Resources one CTA holds on its SM.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CtaResources {
    /// Threads, padded to whole warps.
    pub threads: u32,
    /// Registers.
    pub regs: u32,
    /// Shared memory bytes.
    pub shmem_bytes: u32,
    /// Warps.
    pub warps: u32,
}

impl AddAssign for CtaResources {
    fn add_assign(&mut self, other: Self) {
        self.threads += other.threads;
        self.regs += other.regs;
        self.shmem_bytes += other.shmem_bytes;
        self.warps += other.warps;
    }
}

impl SubAssign for CtaResources {
    fn sub_assign(&mut self, other: Self) {
        self.threads -= other.threads;
        self.regs -= other.regs;
        self.shmem_bytes -= other.shmem_bytes;
        self.warps -= other.warps;
    }
}

/// One warp slot.
#[derive(Debug, Clone, Default)]
pub(crate) struct Warp {
    pub live: bool,
    pub cta_slot: u16,
    /// Launch index of its kernel.
    pub kernel: u32,
    /// Next instruction, an index into its CTA's instruction buffer.
    pub next: u32,
    /// Instructions `next..decoded` (at most two) are in the warp's
    /// instruction buffer; it is empty when `decoded == next`.
    pub decoded: u32,
    pub end: u32,
    pub at_barrier: bool,
    pub pending_loads: u32,
    pub pending_stores: u32,
    /// Instructions issued and not yet written back or taken by the LD/ST
    /// unit (GPGPU-Sim's `inst_in_pipeline`): the warp cannot retire before.
    pub in_pipeline: u32,
    /// Atomics issued and not yet complete: the warp issues nothing until
    /// they are (GPGPU-Sim's `m_n_atomic`, one of `shd_warp_t::waiting`'s reasons).
    pub atomics: u32,
    /// Sampling: the block it is in (`NO_BLOCK` before its first issue), the
    /// index of that block's first instruction and the cycle the block began.
    pub block: u32,
    pub block_first: u32,
    pub block_start: u64,
    /// Sampling: the cycle and opcode of its last issue (`NO_ISSUE`: none yet).
    pub last_issue: u64,
    pub last_opcode: u16,
}

/// What the issue stage reads of a warp before anything else: whether it is
/// known to be unable to issue, until when and why. Kept apart from [`Warp`],
/// each scheduler's in the order of its warps, oldest first ([`Sm::gate_of`]),
/// so that a scheduler's scan of its warps reads its gates one after another
/// and looks a warp up only when its gate is open.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct WarpGate {
    /// The warp cannot issue before this cycle (`PENDING`: before one of its
    /// loads returns), for the reason `blocked_on`; saves re-reading its
    /// scoreboard every cycle while it waits.
    pub blocked_until: u64,
    pub blocked_on: issue::Stall,
    /// The unit its next instruction lacked at its last check, when that was
    /// all it lacked. Invariant: `None` once the warp issues or is woken.
    pub waits_for_unit: Option<issue::UnitWait>,
}

/// What the issue stage reads of a scheduler every cycle, kept apart from
/// [`Scheduler`] and beside the other schedulers' (one host cache line).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SchedulerGate {
    /// No warp of this scheduler can issue before this cycle (the earliest of
    /// their waits), charged to `sleep_reason`; any event that may free a warp
    /// resets it. Idle schedulers then cost one comparison per cycle.
    pub sleep_until: u64,
    pub sleep_reason: Option<issue::Stall>,
    /// Its resident warps (the length of its [`Scheduler::warps`]).
    pub warps: u16,
}

/// A warp's `last_issue` before its first issue.
pub(crate) const NO_ISSUE: u64 = u64::MAX;

/// One CTA slot.
#[derive(Debug, Clone, Default)]
pub(crate) struct CtaSlot {
    pub live: bool,
    pub kernel: u32,
    pub cta: Cta,
    /// Per instruction of `cta`, what the issue stage reads of it.
    pub issue_views: Vec<issue::IssueView>,
    pub warp_slots: Vec<u16>,
    /// The warp slots it owns while resident, whether their warps run or not.
    pub warp_range: std::ops::Range<usize>,
    pub live_warps: u32,
    /// Warps that have not issued their last instruction: those a barrier
    /// waits for (GPGPU-Sim's `barrier_set_t` drops a warp from them when
    /// its exit issues, `warp_exit`).
    pub running_warps: u32,
    pub at_barrier: u32,
    pub resources: CtaResources,
    /// Sampling: per instruction, the id of the basic block it starts
    /// (`NO_BLOCK` inside a block); empty when blocks are not tracked.
    pub block_at: Vec<u32>,
    /// Sampling: the cycle it launched, and its warps' numbers among the
    /// kernel's warps launched in detail.
    pub launched_at: u64,
    pub warp_seqs: std::ops::Range<u64>,
}

/// One sub-core's warp scheduler.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scheduler {
    /// Its warps, oldest first.
    pub warps: Vec<u16>,
    /// Two-level scheduling: the active set, in the order its warps joined.
    pub active: Vec<u16>,
    /// Two-level scheduling: the other warps, in the order they left the
    /// active set or arrived.
    pub pending: VecDeque<u16>,
    /// Where in `warps` the warp that issued last is, while it lives: the
    /// scan starts from it without searching for it.
    pub last_position: Option<u16>,
    /// Instructions issued since the start (snapshots, events).
    pub issued: u64,
    /// The warp that issued last; unlike `last_position`, kept when it retires.
    pub issued_warp: u16,
}

/// What the SM needs to know about each launched kernel.
#[derive(Debug, Clone)]
pub(crate) struct KernelView {
    pub ops: Vec<OpInfo>,
    /// Opcode names as traced, by opcode id (for events).
    pub names: Vec<String>,
    pub shmem_base: u64,
    pub local_base: u64,
}

impl KernelView {
    /// Adds the opcodes `opcodes` has gained since the last call (a trace's
    /// table grows as its CTAs are read); returns the dispatch fallbacks.
    pub(crate) fn extend(&mut self, opcodes: &OpcodeTable, config: &GpuConfig) -> Vec<String> {
        let known = self.names.len();
        self.names.extend(opcodes.iter().skip(known).map(|(_, info)| info.text.clone()));
        extend_op_table(&mut self.ops, opcodes, config)
    }
}

/// Counters of one SM.
#[derive(Debug, Clone, Default)]
pub(crate) struct SmCounters {
    pub warp_insts: u64,
    pub thread_insts: u64,
    pub active_cycles: u64,
    pub resident_warp_cycles: u64,
    pub memory_stall_cycles: u64,
    pub issue: IssueBreakdown,
    /// Per kernel launch: warp and thread instructions.
    pub by_kernel: Vec<[u64; 2]>,
    /// Per unit class (dense index), then the LD/ST unit: warp and thread instructions.
    pub by_unit: [[u64; 2]; N_UNIT_CLASSES + 1],
}

/// Counts the core cycles in which an SM has a CTA resident, without
/// ticking: GPGPU-Sim's `shader_core_ctx::cycle` returns at once on an SM
/// with no CTA, so its scheduler rotation (`Issue_Prio`) advances only in
/// these cycles, and an SM's first active cycle always starts with
/// scheduler 0.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ActiveCycles {
    /// Active cycles before the current active stretch.
    before: u64,
    /// The first cycle of the current active stretch, if the SM is active.
    since: Option<u64>,
}

impl ActiveCycles {
    fn start(&mut self, now: u64) {
        self.since = Some(now);
    }

    /// The SM's last CTA ended during cycle `now`, which was still active.
    fn stop(&mut self, now: u64) {
        if let Some(since) = self.since.take() {
            self.before += now + 1 - since;
        }
    }

    /// Active cycles before cycle `now`.
    pub(crate) fn before(&self, now: u64) -> u64 {
        self.before + self.since.map_or(0, |since| now.saturating_sub(since))
    }
}

/// One SM.
#[derive(Debug, Clone)]
pub struct Sm {
    pub(crate) id: u32,
    pub(crate) warps: Vec<Warp>,
    /// Each warp slot's next instruction as the issue stage checks it.
    pub(crate) next_ops: Vec<issue::NextOp>,
    pub(crate) scoreboard: Scoreboard,
    pub(crate) ctas: Vec<CtaSlot>,
    pub(crate) schedulers: Vec<Scheduler>,
    /// Each scheduler's [`SchedulerGate`].
    pub(crate) scheduler_gates: Vec<SchedulerGate>,
    /// No scheduler holding warps may issue before this cycle: at most the
    /// earliest of their `sleep_until` (0 once any is woken). Memory-bound
    /// SMs are ticked for hundreds of cycles while every scheduler sleeps;
    /// this one comparison then stands for reading each scheduler's gate.
    pub(crate) schedulers_wake: u64,
    /// Each resident warp's [`WarpGate`], at [`Sm::gate_of`]: scheduler `k`'s
    /// from `k * gates_per_scheduler` on, in the order of its
    /// [`Scheduler::warps`]; then one gate that no resident warp uses.
    pub(crate) warp_gates: Vec<WarpGate>,
    /// Warp slot `w`'s gate is `warp_gates[gate_slots[w]]` ([`Sm::gate_of`]);
    /// a warp that is not resident points at the unused last gate.
    gate_slots: Vec<u16>,
    /// The most warps a scheduler holds: the room each has in `warp_gates`.
    gates_per_scheduler: usize,
    pub(crate) policy: SchedulerPolicy,
    /// `-gpgpu_max_insn_issue_per_warp`: 2 lets a warp issue its next
    /// instruction in the same cycle.
    pub(crate) max_issue_per_warp: u32,
    /// `-gpgpu_dual_issue_diff_exec_units`: the two must go to different kinds of unit.
    pub(crate) dual_issue_diff_units: bool,
    /// Without concurrent kernels on an SM, each CTA slot owns a fixed run
    /// of warp slots ([`Sm::first_warp_slot`]).
    pub(crate) warps_by_cta_slot: bool,
    /// Pipeline registers, operand collector and execution units.
    pub(crate) pipeline: pipeline::Pipeline,
    /// The instructions the last writeback completed (reused).
    written_back: Vec<pipeline::Staged>,
    pub(crate) memory: MemoryPipeline,
    pub(crate) fetch: fetch::FetchUnit,
    pub(crate) used: CtaResources,
    pub(crate) resident_ctas: u32,
    /// Cycles with a CTA resident: they set which scheduler issues first.
    pub(crate) active_cycles: ActiveCycles,
    /// Resources and CTA slots held by CTAs that sampling predicts instead of
    /// simulating: they only keep other CTAs out until they end.
    pub(crate) predicted: CtaResources,
    pub(crate) predicted_ctas: u32,
    /// What the SM records for sampling.
    pub(crate) sample_log: SampleLog,
    /// The most CTAs resident at once (occupancy checks).
    pub(crate) max_resident_ctas: u32,
    pub(crate) counters: SmCounters,
    /// Where this SM's L1 read misses spent their time.
    pub(crate) breakdown: LatencyBreakdown,
    /// This SM's L1 MSHR entries in use, cycle by cycle.
    pub(crate) mshr_occupancy: MshrHistogram,
    /// CTAs finished since the scheduler last asked: kernel launch index and CTA slot.
    pub(crate) finished_ctas: Vec<(u32, u16)>,
    pub(crate) limits: CtaResources,
    pub(crate) max_ctas: u32,
    /// The core cycle through which the counters are charged; cycles the SM
    /// slept through are charged when it wakes ([`Sm::settle`]).
    pub(crate) charged_through: u64,
    /// Ticked cycles in which every scheduler slept, whose issue slots are
    /// not counted yet ([`Sm::issue_cycle`]): each counts every scheduler's
    /// resting outcome under the gates as they are, which nothing changes
    /// before [`Sm::charge_rest`] counts them.
    rested_ticks: u64,
    /// Whether every resident warp waited on memory in those cycles.
    rested_all_memory: bool,
    /// Per-PC issues and stall samples, when the run counts them.
    pub(crate) per_pc: Option<PerPc>,
}

impl Sm {
    /// An empty SM of `config`.
    pub(crate) fn new(id: u32, config: &GpuConfig) -> Self {
        let n_warps = config.cores.max_warps_per_sm() as usize;
        let n_sched = config.scheduling.schedulers_per_sm.max(1) as usize;
        let max_ctas = config.cores.max_ctas_per_sm;
        Self {
            id,
            warps: vec![Warp::default(); n_warps],
            next_ops: vec![issue::NextOp::default(); n_warps],
            scoreboard: Scoreboard::new(n_warps),
            ctas: (0..max_ctas).map(|_| CtaSlot::default()).collect(),
            schedulers: vec![Scheduler::default(); n_sched],
            scheduler_gates: vec![SchedulerGate::default(); n_sched],
            schedulers_wake: 0,
            warp_gates: vec![WarpGate::default(); n_warps.div_ceil(n_sched) * n_sched + 1],
            gate_slots: vec![(n_warps.div_ceil(n_sched) * n_sched) as u16; n_warps],
            gates_per_scheduler: n_warps.div_ceil(n_sched),
            policy: config.scheduling.policy.clone(),
            max_issue_per_warp: config.scheduling.max_insn_issue_per_warp,
            dual_issue_diff_units: config.scheduling.dual_issue_diff_exec_units,
            warps_by_cta_slot: !config.kernels.concurrent_kernel_sm,
            pipeline: pipeline::Pipeline::new(config),
            written_back: Vec::new(),
            memory: MemoryPipeline::new(config),
            fetch: fetch::FetchUnit::new(config, n_warps),
            used: CtaResources::default(),
            resident_ctas: 0,
            active_cycles: ActiveCycles::default(),
            predicted: CtaResources::default(),
            predicted_ctas: 0,
            sample_log: SampleLog::default(),
            max_resident_ctas: 0,
            counters: SmCounters::default(),
            breakdown: LatencyBreakdown::default(),
            mshr_occupancy: MshrHistogram::for_l1(config),
            finished_ctas: Vec::new(),
            charged_through: 0,
            rested_ticks: 0,
            rested_all_memory: false,
            per_pc: None,
            limits: CtaResources {
                threads: config.cores.max_threads_per_sm,
                regs: config.cores.regs_per_sm,
                shmem_bytes: config.l1.shmem_per_sm_bytes,
                warps: n_warps as u32,
            },
            max_ctas,
        }
    }

    /// Whether a CTA needing `needs` fits next to the resident ones.
    pub(crate) fn fits(&self, needs: CtaResources) -> bool {
        let (used, held) = (self.used, self.predicted);
        self.resident_ctas + self.predicted_ctas < self.max_ctas
            && used.threads + held.threads + needs.threads <= self.limits.threads
            && used.regs + held.regs + needs.regs <= self.limits.regs
            && used.shmem_bytes + held.shmem_bytes + needs.shmem_bytes <= self.limits.shmem_bytes
            && used.warps + held.warps + needs.warps <= self.limits.warps
            && (self.warps_by_cta_slot || self.first_warp_slot(0, needs.warps as usize).is_some())
    }

    /// The first of the `n` warp slots a CTA launched into CTA slot `slot`
    /// takes, as GPGPU-Sim places a CTA's threads
    /// (`shader_core_ctx::issue_block2core`): without concurrent kernels CTA
    /// slot `slot` owns warp slots `slot × n` on; with them, the first run of
    /// `n` free slots that starts at a multiple of `n`
    /// (`find_available_hwtid`). A CTA keeps its warp slots until it ends,
    /// even those whose warps have exited.
    fn first_warp_slot(&self, slot: usize, n: usize) -> Option<usize> {
        let n = n.max(1);
        if self.warps_by_cta_slot {
            return Some(slot * n).filter(|&first| first + n <= self.warps.len());
        }
        let free = |first: usize| {
            let taken = |cta: &CtaSlot| cta.live && cta.warp_range.start < first + n && first < cta.warp_range.end;
            !self.ctas.iter().any(taken)
        };
        (0..=self.warps.len().saturating_sub(n)).step_by(n).find(|&first| free(first))
    }

    /// A predicted CTA needing `needs` starts holding resources here.
    pub(crate) fn hold_predicted(&mut self, needs: CtaResources) {
        self.predicted += needs;
        self.predicted_ctas += 1;
    }

    /// A predicted CTA needing `needs` ended.
    pub(crate) fn release_predicted(&mut self, needs: CtaResources) {
        self.predicted -= needs;
        self.predicted_ctas -= 1;
    }

    /// Charges the cycles after the last charged one through `through`, which
    /// the SM slept through: nothing in it changed, so each counts what a
    /// tick would have counted. An idle SM's schedulers count "no warp" while
    /// some kernel runs (`any_running`) and nothing otherwise.
    // At every tick, and mostly with nothing slept through since the last
    // one: the test is inlined and only a sleep pays for a call.
    #[inline(always)]
    pub(crate) fn settle(&mut self, through: u64, any_running: bool) {
        if through > self.charged_through {
            self.settle_slept(through, any_running);
        }
    }

    /// [`Sm::settle`] after a sleep.
    fn settle_slept(&mut self, through: u64, any_running: bool) {
        let n = through - self.charged_through;
        self.charged_through = through;
        if self.is_idle() {
            if any_running {
                self.counters.issue.no_warp += n * self.schedulers.len() as u64;
            }
            return;
        }
        let all_memory = self.issue_slept(n);
        self.count_cycles(n, all_memory);
        self.memory.count_retries(n);
    }

    /// Counts `n` ticked or slept cycles of a busy SM: activity, resident
    /// warps, memory stalls and MSHR occupancy.
    pub(crate) fn count_cycles(&mut self, n: u64, memory_stalled: bool) {
        let warps = self.resident_warps();
        if warps > 0 {
            self.counters.active_cycles += n;
            self.counters.resident_warp_cycles += u64::from(warps) * n;
            if memory_stalled {
                self.counters.memory_stall_cycles += n;
            }
        }
        self.mshr_occupancy.add(self.memory.mshrs_in_use() as u32, n);
    }

    /// The next core cycle after `now` at which the SM must be ticked even if
    /// no reply arrives (`u64::MAX`: never).
    pub(crate) fn next_wake(&self, now: u64) -> u64 {
        if self.is_idle() {
            return u64::MAX;
        }
        let next = now + 1;
        if !self.fetch.is_quiet() {
            return next;
        }
        // No part wakes before the next cycle, so the first that asks for it
        // decides; the memory pipeline, busiest on memory-bound runs, first.
        let memory = self.memory.next_event(now);
        if memory == next {
            return next;
        }
        let pipeline = self.pipeline.next_event(now, self.memory.is_busy());
        if pipeline == next {
            return next;
        }
        // `PENDING` (no issue before an event) is `u64::MAX`, the same as never.
        self.next_issue_chance(now).min(memory).min(pipeline)
    }

    /// Whether `-gpgpu_flush_l1_cache` has an L1 to empty here: no CTA is
    /// resident, simulated or predicted, and the L1 was used since its last flush.
    pub(crate) fn l1_to_flush(&self) -> bool {
        self.resident_ctas == 0 && self.predicted_ctas == 0 && self.memory.l1_used()
    }

    /// Whether nothing is resident and nothing is in flight.
    pub(crate) fn is_idle(&self) -> bool {
        self.resident_ctas == 0 && self.memory.is_idle() && self.pipeline.is_empty()
    }

    /// A free CTA slot's buffer to fill with the next CTA, or `None` when full.
    pub(crate) fn free_cta_slot(&mut self) -> Option<usize> {
        self.ctas.iter().position(|slot| !slot.live)
    }

    /// The buffer of CTA slot `slot`.
    pub(crate) fn cta_buffer(&mut self, slot: usize) -> &mut Cta {
        &mut self.ctas[slot].cta
    }

    /// Makes the CTA already read into slot `slot` resident: its warps take free
    /// warp slots, assigned to the schedulers round-robin by slot number.
    /// Its warps are numbered from `first_seq` on in launch order; returns how
    /// many it launched. The caller ticks the SM from this cycle on
    /// (`SmWake::at`).
    pub(crate) fn launch_cta(
        &mut self,
        slot: usize,
        kernel: u32,
        needs: CtaResources,
        now: u64,
        first_seq: u64,
    ) -> u64 {
        self.charge_rest();
        self.memory.build_l1();
        let n_sched = self.schedulers.len();
        let cta = &mut self.ctas[slot];
        cta.live = true;
        cta.kernel = kernel;
        cta.live_warps = 0;
        cta.running_warps = 0;
        cta.at_barrier = 0;
        cta.resources = needs;
        cta.warp_slots.clear();
        cta.issue_views.clear();
        cta.issue_views.extend(cta.cta.instructions.iter().map(issue::IssueView::of));
        let n = needs.warps as usize;
        let first_slot = self.first_warp_slot(slot, n).unwrap_or(0);
        self.ctas[slot].warp_range = first_slot..first_slot + n;
        for k in 0..self.ctas[slot].cta.warps.len() {
            let warp = self.ctas[slot].cta.warps[k];
            let index = first_slot + k;
            if warp.len == 0 {
                continue;
            }
            if k >= n || index >= self.warps.len() || self.warps[index].live {
                break;
            }
            let (first, end) = (warp.first, warp.first + warp.len);
            self.warps[index] = Warp {
                live: true,
                cta_slot: slot as u16,
                kernel,
                next: first,
                decoded: first,
                end,
                at_barrier: false,
                pending_loads: 0,
                pending_stores: 0,
                in_pipeline: 0,
                atomics: 0,
                block: NO_BLOCK,
                block_first: first,
                block_start: now,
                last_issue: NO_ISSUE,
                last_opcode: 0,
            };
            self.scoreboard.reset(index);
            self.next_ops[index] = issue::NextOp::of(self.issue_view(index), &self.scoreboard, index);
            // Warp slots go to the schedulers round-robin by slot number.
            let k = index % n_sched;
            let gate = k * self.gates_per_scheduler + self.schedulers[k].warps.len();
            self.gate_slots[index] = gate as u16;
            self.warp_gates[gate] = WarpGate::default();
            self.open_scheduler(k);
            self.scheduler_gates[k].warps += 1;
            self.fetch.set_fetchable(index);
            let cta = &mut self.ctas[slot];
            cta.warp_slots.push(index as u16);
            cta.live_warps += 1;
            cta.running_warps += 1;
            let scheduler = &mut self.schedulers[k];
            scheduler.warps.push(index as u16);
            if matches!(self.policy, SchedulerPolicy::TwoLevelActive { .. }) {
                scheduler.pending.push_back(index as u16);
            }
        }
        self.used += needs;
        if self.resident_ctas == 0 {
            self.active_cycles.start(now);
        }
        self.resident_ctas += 1;
        self.max_resident_ctas = self.max_resident_ctas.max(self.resident_ctas);
        let launched = u64::from(self.ctas[slot].live_warps);
        self.ctas[slot].launched_at = now;
        self.ctas[slot].warp_seqs = first_seq..first_seq + launched;
        if launched == 0 {
            self.finish_cta(slot, now);
        }
        launched
    }

    /// Marks warp `w` finished if it has run its last instruction and
    /// nothing it sent is outstanding; the fetch stage's round robin exits it
    /// when it passes it ([`Sm::exit_passed_warps`]).
    pub(crate) fn maybe_finish(&mut self, w: usize) {
        let warp = &self.warps[w];
        if !warp.live
            || warp.next < warp.end
            || warp.pending_loads > 0
            || warp.pending_stores > 0
            || warp.in_pipeline > 0
        {
            return;
        }
        self.fetch.mark_finished(w);
    }

    /// Retires finished warp `w`; frees its CTA when it was the last.
    pub(crate) fn retire(&mut self, w: usize, now: u64) {
        self.charge_rest();
        let slot = self.warps[w].cta_slot as usize;
        if self.sample_log.on {
            self.record_retire(w, now);
        }
        self.warps[w].live = false;
        let n_sched = self.schedulers.len();
        let scheduler = &mut self.schedulers[w % n_sched];
        let position = scheduler.warps.iter().position(|&x| x as usize == w);
        if let Some(at) = position {
            scheduler.warps.remove(at);
            // Their gates move up with them.
            let first = (w % n_sched) * self.gates_per_scheduler;
            let end = first + scheduler.warps.len();
            self.warp_gates.copy_within(first + at + 1..=end, first + at);
            for &later in &scheduler.warps[at..] {
                self.gate_slots[usize::from(later)] -= 1;
            }
            self.gate_slots[w] = (self.warp_gates.len() - 1) as u16;
            // The warps after it move up one place.
            scheduler.last_position = match scheduler.last_position {
                Some(last) if usize::from(last) == at => None,
                Some(last) if usize::from(last) > at => Some(last - 1),
                last => last,
            };
        }
        self.scheduler_gates[w % n_sched].warps = scheduler.warps.len() as u16;
        scheduler.active.retain(|&x| x as usize != w);
        scheduler.pending.retain(|&x| x as usize != w);
        let cta = &mut self.ctas[slot];
        cta.live_warps -= 1;
        if cta.live_warps == 0 {
            if self.sample_log.on {
                self.record_cta_end(slot, now);
            }
            self.finish_cta(slot, now);
        }
    }

    fn finish_cta(&mut self, slot: usize, now: u64) {
        let cta = &mut self.ctas[slot];
        cta.live = false;
        self.used -= cta.resources;
        self.resident_ctas -= 1;
        if self.resident_ctas == 0 {
            self.active_cycles.stop(now);
        }
        self.finished_ctas.push((cta.kernel, slot as u16));
    }

    /// Sampling: warp `w` issued instruction `index` with `opcode` at `now`.
    /// Ends its block when this instruction starts another, and records the
    /// previous instruction's issue interval.
    pub(crate) fn record_issue(&mut self, w: usize, index: u32, opcode: u16, now: u64) {
        let warp = &mut self.warps[w];
        let block_at = &self.ctas[warp.cta_slot as usize].block_at;
        if block_at.is_empty() {
            // Blocks are not tracked for this kernel: neither are intervals.
            return;
        }
        let log = &mut self.sample_log;
        if warp.last_issue != NO_ISSUE {
            log.gaps.push(GapRecord { kernel: warp.kernel, opcode: warp.last_opcode, cycles: now - warp.last_issue });
        }
        warp.last_issue = now;
        warp.last_opcode = opcode;
        let starts = block_at.get(index as usize).copied().unwrap_or(NO_BLOCK);
        if starts == NO_BLOCK {
            return;
        }
        if warp.block != NO_BLOCK {
            let insts = index - warp.block_first;
            let (kernel, block, start) = (warp.kernel, warp.block, warp.block_start);
            log.blocks.push(BlockRecord { kernel, block, insts, start, end: now });
            warp.block_start = now;
        }
        warp.block = starts;
        warp.block_first = index;
    }

    /// Sampling: warp `w` retires at `now`: its last block and instruction end.
    fn record_retire(&mut self, w: usize, now: u64) {
        let warp = &self.warps[w];
        let log = &mut self.sample_log;
        if warp.last_issue != NO_ISSUE {
            log.gaps.push(GapRecord { kernel: warp.kernel, opcode: warp.last_opcode, cycles: now - warp.last_issue });
        }
        if warp.block != NO_BLOCK {
            let insts = warp.end - warp.block_first;
            let (kernel, block, start) = (warp.kernel, warp.block, warp.block_start);
            log.blocks.push(BlockRecord { kernel, block, insts, start, end: now });
        }
    }

    /// Sampling: the CTA in `slot` ended at `now`, and with it the time its
    /// warps held their resources (a CTA's resources are freed together).
    fn record_cta_end(&mut self, slot: usize, now: u64) {
        let cta = &self.ctas[slot];
        for seq in cta.warp_seqs.clone() {
            self.sample_log.warps.push(WarpRecord { kernel: cta.kernel, seq, start: cta.launched_at, end: now });
        }
    }

    /// Frees the warps of CTA `slot` waiting at a barrier once every warp that
    /// has not issued its exit arrived.
    pub(crate) fn release_barrier_if_complete(&mut self, slot: usize) {
        let cta = &mut self.ctas[slot];
        if cta.at_barrier == 0 || cta.at_barrier < cta.running_warps {
            return;
        }
        cta.at_barrier = 0;
        for i in 0..self.ctas[slot].warp_slots.len() {
            let w = usize::from(self.ctas[slot].warp_slots[i]);
            self.warps[w].at_barrier = false;
            self.wake(w);
        }
    }

    /// Registers `regs` of warp `w` now wait for `state` (ready: their write landed).
    // Inlined: each call site passes one `state`, which the inlined copy's
    // scoreboard and next-op updates are specialized for.
    #[inline(always)]
    pub(crate) fn set_ready(&mut self, w: usize, regs: &[Reg], state: RegState) {
        for &reg in regs {
            self.scoreboard.set(w, reg, state);
            self.next_ops[w].note(reg, state);
        }
        // A result arrived (or a new wait began): look at the warp afresh.
        self.wake(w);
    }

    /// Makes warp `w` and its scheduler look again at the next issue.
    // A few stores, at every result and every issue: inlined, the call cost
    // as much as they do.
    #[inline(always)]
    pub(crate) fn wake(&mut self, w: usize) {
        let gate = self.gate_of(w);
        self.warp_gates[gate].blocked_until = 0;
        self.warp_gates[gate].waits_for_unit = None;
        self.wake_scheduler_of(w);
    }

    #[inline(always)]
    fn wake_scheduler_of(&mut self, w: usize) {
        self.charge_rest();
        self.open_scheduler(w % self.schedulers.len());
    }

    /// Scheduler `k` may issue from the next scan on. Every wake goes
    /// through here, so that the sleeping schedulers' bound
    /// ([`Sm::schedulers_wake`]) is never left above a gate it no longer bounds.
    #[inline(always)]
    fn open_scheduler(&mut self, k: usize) {
        self.scheduler_gates[k].sleep_until = 0;
        self.schedulers_wake = 0;
    }

    /// Where warp slot `w`'s [`WarpGate`] is: the gates of one scheduler's
    /// warps (slots `k`, `k + n`, `k + 2n`, ... of `n` schedulers) side by
    /// side, in the order of the scheduler's warps.
    pub(crate) fn gate_of(&self, w: usize) -> usize {
        usize::from(self.gate_slots[w])
    }

    /// Where resident warp `w` is in its scheduler's warps (oldest first).
    pub(crate) fn position_of(&self, w: usize) -> usize {
        self.gate_of(w) - (w % self.schedulers.len()) * self.gates_per_scheduler
    }

    /// Where the gates of scheduler `k`'s warps begin.
    pub(crate) fn first_gate_of(&self, k: usize) -> usize {
        k * self.gates_per_scheduler
    }

    /// Resident warps.
    pub(crate) fn resident_warps(&self) -> u32 {
        self.used.warps
    }

    /// Counts `warp_insts`/`thread_insts` against kernel launch `kernel` and
    /// the unit class `unit` (`None`: the LD/ST unit).
    pub(crate) fn count_instruction(&mut self, kernel: u32, unit: Option<usize>, threads: u32) {
        let counters = &mut self.counters;
        counters.warp_insts += 1;
        counters.thread_insts += u64::from(threads);
        let by_unit = &mut counters.by_unit[unit.unwrap_or(N_UNIT_CLASSES)];
        by_unit[0] += 1;
        by_unit[1] += u64::from(threads);
        let k = kernel as usize;
        if counters.by_kernel.len() <= k {
            counters.by_kernel.resize(k + 1, [0, 0]);
        }
        counters.by_kernel[k][0] += 1;
        counters.by_kernel[k][1] += u64::from(threads);
    }

    /// Steps 1 to 5 of the SM's cycle: the writeback, the execution units, the
    /// memory pipeline (the LD/ST unit then takes its next instruction), and
    /// the operand collector.
    pub(crate) fn execute_cycle(&mut self, now: u64, ctx: &mut memory::MemoryContext<'_>, kernels: &[KernelView]) {
        if !self.pipeline.is_empty() {
            self.writeback();
            self.pipeline.execute(now);
        }
        self.memory_cycle(now, ctx);
        self.take_memory_instruction(now, kernels);
        self.pipeline.read_operands();
        self.wake_for_issue_slots();
    }

    /// Wakes each scheduler for which the operand collector freed an `ID_OC`
    /// slot this cycle: its warps that waited for one may issue now.
    fn wake_for_issue_slots(&mut self) {
        let room = self.pipeline.take_issue_room();
        if room.is_empty() {
            return;
        }
        self.charge_rest();
        for k in 0..self.scheduler_gates.len() {
            if room.gained_for(k) {
                self.open_scheduler(k);
            }
        }
    }

    /// The results in the writeback register are ready: their warps may use
    /// them from this cycle's issue on, and may retire.
    fn writeback(&mut self) {
        let mut done = std::mem::take(&mut self.written_back);
        self.pipeline.writeback(&mut done);
        for staged in &done {
            let w = usize::from(staged.warp);
            self.set_ready(w, staged.dsts(), RegState::Ready);
            self.warps[w].in_pipeline -= 1;
            self.maybe_finish(w);
        }
        self.written_back = done;
    }

    /// Sets the L1 ways for a kernel's shared-memory carve-out.
    pub(crate) fn configure_l1(&mut self, config: &GpuConfig, ways: Option<u32>) {
        self.memory.configure_l1(config, ways);
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use warplab_trace::{Cta, Instruction, WarpTrace};

    use super::*;

    /// An SM of QV100 whose CTA slots each hold a CTA of `warps` warps of
    /// one instruction.
    fn sm_with_ctas(warps: u32) -> Sm {
        let config = warplab_config::preset("QV100").unwrap().config().unwrap();
        let mut sm = Sm::new(0, &config);
        for slot in &mut sm.ctas {
            slot.cta = Cta {
                warps: (0..warps).map(|k| WarpTrace { warp_id: k, first: k, len: 1 }).collect(),
                instructions: vec![Instruction::default(); warps as usize],
                ..Cta::default()
            };
        }
        sm
    }

    /// Every resident warp's gate is at its place in its scheduler's order,
    /// and still holds what was written into it (`marks`).
    fn check_gates(sm: &Sm, marks: &[u64]) {
        for (k, scheduler) in sm.schedulers.iter().enumerate() {
            for (position, &w) in scheduler.warps.iter().enumerate() {
                let w = usize::from(w);
                assert_eq!(sm.gate_of(w), sm.first_gate_of(k) + position, "warp {w}'s gate");
                assert_eq!(sm.position_of(w), position);
                assert_eq!(sm.warp_gates[sm.gate_of(w)].blocked_until, marks[w], "warp {w}'s gate kept its state");
            }
        }
    }

    proptest! {
        /// CTAs end out of launch order and others take their slots, so a
        /// scheduler's warps (oldest first) stop being in slot order; their
        /// gates follow them. Fails if a retiring warp's later gates do not
        /// move up with their warps, or a launch puts a gate elsewhere.
        #[test]
        fn gates_stay_in_their_schedulers_order(
            warps in 1u32..=8,
            steps in prop::collection::vec((any::<bool>(), any::<prop::sample::Index>()), 1..120),
        ) {
            let mut sm = sm_with_ctas(warps);
            let needs = CtaResources { threads: 32 * warps, regs: 0, shmem_bytes: 0, warps };
            let mut marks = vec![0; sm.warps.len()];
            for (now, (launch, pick)) in (1u64..).zip(steps) {
                let resident: Vec<usize> = (0..sm.warps.len()).filter(|&w| sm.warps[w].live).collect();
                let free_slot = (0..sm.ctas.len()).find(|&slot| !sm.ctas[slot].live && sm.fits(needs));
                match free_slot {
                    Some(slot) if launch || resident.is_empty() => {
                        sm.launch_cta(slot, 0, needs, now, 0);
                        for w in sm.ctas[slot].warp_range.clone() {
                            marks[w] = 1000 * now + w as u64;
                            let gate = sm.gate_of(w);
                            sm.warp_gates[gate].blocked_until = marks[w];
                        }
                    }
                    _ if !resident.is_empty() => sm.retire(*pick.get(&resident), now),
                    _ => {}
                }
                check_gates(&sm, &marks);
            }
        }
    }
}
