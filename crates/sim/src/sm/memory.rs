//! The memory pipeline of an SM: the LD/ST unit, the L1 data cache with its
//! MSHRs and miss queue, shared memory, and the replies coming back.
//!
//! The LD/ST unit holds one instruction at a time. A global, local or texture
//! access is split by the sub-warp sectored coalescer into sector accesses,
//! which enter the L1's lookup pipeline as GPGPU-Sim 4 has it: the L1 has
//! `-gpgpu_l1_banks` banks, sector-interleaved (GPGPU-Sim's default 32-B
//! interleaving, linear), each with a pipeline of `-gpgpu_l1_latency` stages;
//! each cycle the accesses enter in order, one per bank, until one finds its
//! bank already taken this cycle or its pipeline full (a bank conflict), so
//! up to `l1_banks` sectors a cycle. (With an L1 latency of 0 GPGPU-Sim has
//! one unbanked access a cycle, and so does warplab.) The cache string's data
//! port width does not limit the L1: GPGPU-Sim only consults it for the L2 and
//! the texture and constant caches. At the end of its bank's pipeline an access
//! looks up the tags: a hit completes; a miss needs an MSHR entry (or one to
//! merge into) and room in the miss queue (a read leaves one slot free for a
//! write-back, as GPGPU-Sim's `miss_queue_full(1)` does); otherwise it is a
//! reservation failure, stays at the head and blocks its bank until a retry
//! succeeds. The instruction leaves the LD/ST unit once all its accesses are in
//! the pipelines, so a memory-divergent load holds the unit for as many cycles
//! as its accesses need banks, and blocked banks hold it longer. Shared-memory
//! instructions hold the unit for as many cycles as their bank conflicts need,
//! and every one of those cycles but the last is counted as a bank-conflict
//! cycle (GPGPU-Sim's `gpgpu_n_shmem_bkconflict`).
//! Atomics and, with `-gpgpu_gmem_skip_L1D`, global loads go past the L1 to the
//! L2 (through the same pipeline, to the miss queue).

use std::collections::VecDeque;

use warplab_config::cache::WritePolicy;
use warplab_config::{CacheConfig, GpuConfig};
use warplab_trace::{Instruction, MemSpace, Reg};
use warplab_uarch::cache::{Access, AccessKind, Cache, Eviction, Outcome, SECTOR_BYTES, SECTORS_PER_LINE};
use warplab_uarch::coalescer::{SectorAccess, coalesce_atomic, coalesce_instruction};
use warplab_uarch::shared_memory::shared_memory_cycles;

use super::port::SmPort;
use super::scoreboard::RegState;
use super::{KernelView, Sm};
use crate::events::{EventKind, Queue, note_queue};
use crate::fifo::Fifo;
use crate::mshr::MshrTable;
use crate::network::Network;
use crate::ops::{OpInfo, OpKind};
use crate::report::{CacheReport, LatencyBreakdown};
use crate::request::{Request, RequestId, RequestKind, RequestPool, Slab, Stamps, Waiter};

/// A load (or atomic with a result) waiting for its accesses.
#[derive(Debug, Clone, Copy, Default)]
struct PendingLoad {
    warp: u16,
    /// Accesses still outstanding, plus one while the LD/ST unit still holds
    /// the instruction, so it cannot complete before all accesses were sent.
    remaining: u32,
    dst: [Reg; 2],
    n_dst: u8,
    /// An atomic: its warp waits for it to complete before issuing again.
    atomic: bool,
}

/// The instruction in the LD/ST unit.
#[derive(Debug, Clone, Copy)]
struct MemOp {
    warp: u16,
    kind: OpKind,
    space: MemSpace,
    /// The load record, for loads and atomics with a destination.
    load: Option<u32>,
    first_try: u64,
    /// Cycles of shared-memory bank work left.
    shared_cycles: u32,
}

/// The counter a blocked access bumps each cycle it is retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Retry {
    /// An L1 read found no MSHR entry, no room to merge or no miss-queue slot.
    Read,
    /// An L1 write found no miss-queue slot.
    Write,
    /// An access past the L1 found the miss queue full.
    MissQueue,
}

/// What the memory pipeline did in its last cycle, for deciding whether the
/// SM can sleep.
#[derive(Debug, Clone, Copy, Default)]
struct LastCycle {
    /// An access entered a bank or left one.
    progressed: bool,
    /// Bank heads that failed, by the counter each bumped.
    retries: [u64; 3],
}

/// One sector access in an L1 bank's lookup pipeline: it reaches the tags at `ready`.
#[derive(Debug, Clone, Copy)]
struct Lookup {
    ready: u64,
    op: MemOp,
    access: SectorAccess,
    /// Its last try at the head failed, and how, with the state that try read.
    failed: Option<(Retry, L1State)>,
}

/// What a bank head's try at the L1 gave: done, or refused, to be retried.
type Tried = Result<(), Refused>;

/// A try at the L1 that must be retried: the kind of failure, and the L1
/// set the access looked up.
#[derive(Debug, Clone, Copy)]
struct Refused {
    kind: Retry,
    set: u32,
}

/// What a refused try read that could let a retry through: the lines of its
/// L1 set, the room in the MSHR table, the miss queue's length. While these
/// are unchanged a retry is refused again in the same way, so a bank head
/// blocked for many cycles (an L1 out of MSHRs) is looked up once, not once
/// a cycle. Changes elsewhere in the L1 (fills of other sets) and MSHR takes
/// (which only use room) cannot let it through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct L1State {
    /// Times the L1 was replaced by one of another carve-out, whose sets
    /// count their changes afresh.
    replaced: u64,
    /// The set, and its changes so far ([`Cache::changes_in`]).
    set: u32,
    set_changes: u32,
    /// [`crate::mshr::MshrTable::room_made`].
    mshr_room: u64,
    miss_queue: usize,
}

/// What the SM needs from the rest of the GPU for one cycle. It reads the
/// crossbars and changes nothing outside the SM but its own request pool and
/// port, so SMs can run their cycles on several threads ([`SmPort`]).
pub(crate) struct MemoryContext<'a> {
    /// The requests this SM made.
    pub requests: &'a mut RequestPool,
    pub request_network: &'a Network,
    pub reply_network: &'a Network,
    /// What the SM sends, takes and records this cycle.
    pub port: &'a mut SmPort,
    pub address_map: &'a warplab_uarch::address_map::AddressMap,
    /// The interconnect cycle whose deliveries the crossbars' consumers see
    /// (see [`crate::network::Network::peek`]).
    pub icnt_now: u64,
    /// The core cycle.
    pub now: u64,
}

/// The memory pipeline's state.
#[derive(Debug, Clone)]
pub(crate) struct MemoryPipeline {
    /// The L1, once built ([`MemoryPipeline::build_l1`]); `None` before, and
    /// in a GPU without one.
    l1: Option<Cache>,
    /// The L1's configuration and the ways it is to have, until the SM takes
    /// its first CTA and the L1 is built. The first kernel's carve-out sets
    /// the ways before then, so an L1 built with the SM was mostly built
    /// twice, and an SM that never takes a CTA builds none.
    l1_to_build: Option<(CacheConfig, u32)>,
    l1_sectored: bool,
    l1_write_back_local: bool,
    skip_l1_for_global: bool,
    l1_latency: u64,
    shmem_latency: u64,
    shmem_banks: u32,
    mshrs: MshrTable,
    pub(crate) miss_queue: Fifo<RequestId>,
    /// Replies out of the crossbar, in the SM's cluster (GPGPU-Sim's
    /// ejection buffer, `-gpgpu_n_cluster_ejection_buffer_size`).
    ejection: Fifo<RequestId>,
    /// Replies the LD/ST unit takes one a cycle (`-gpgpu_n_ldst_response_buffer_size`).
    responses: Fifo<RequestId>,
    /// Per L1 bank, the accesses in its lookup pipeline (GPGPU-Sim 4's L1
    /// latency queue), oldest first.
    /// Invariant: at most `l1_latency` entries each, `ready` non-decreasing.
    banks: Vec<VecDeque<Lookup>>,
    /// No bank head is `ready` before this cycle (`u64::MAX`: the banks are
    /// empty), so the lookup stage passes over the banks before it without
    /// reading their queues, which a busy SM's cycle would otherwise read
    /// from the host's memory every cycle. Never later than the earliest head.
    banks_due: u64,
    current: Option<MemOp>,
    /// When nothing progressed, the bank heads that failed fail the same way
    /// every cycle until a reply or the miss queue draining changes the L1's
    /// state.
    last_cycle: LastCycle,
    accesses: Vec<SectorAccess>,
    cursor: usize,
    /// Shared-memory loads in the LD/ST unit's pipeline: (the cycle they reach
    /// its end, load record).
    returns: VecDeque<(u64, u32)>,
    /// L1 MSHR entries whose line arrived: their merged accesses leave one a
    /// cycle through the writeback port, and the entry is freed with the last.
    l1_filled: VecDeque<u32>,
    /// Loads past the L1 whose data arrived, waiting for the writeback port.
    bypassed: VecDeque<u32>,
    /// The access the writeback port holds; its load completes next cycle
    /// (GPGPU-Sim's `m_next_wb`) once its registers are written.
    next_writeback: Option<u32>,
    /// Bit `k`: the held access's destination register `k` is still to be
    /// written (GPGPU-Sim clears a register from `m_next_wb` once its bank
    /// took the write, and retries the others next cycle).
    next_writeback_regs: u8,
    /// The writeback port's round robin among its clients.
    writeback_turn: u8,
    loads: Slab<PendingLoad>,
    /// L1 accesses by outcome.
    pub(crate) l1_stats: CacheReport,
    /// Cycles a shared-memory instruction held the LD/ST unit for its bank
    /// conflicts: every cycle but its last of bank work (GPGPU-Sim's
    /// `gpgpu_n_shmem_bkconflict`; counted where the unit works on it).
    pub(crate) shmem_bank_conflict_cycles: u64,
    /// The kernel launch, PC and opcode of the shared-memory instruction in
    /// the LD/ST unit, for its per-PC bank-conflict cycles.
    shared_at: (u32, u32, u16),
    /// Whether the L1 was accessed or filled since it was last invalidated.
    l1_used: bool,
    /// Times the L1 was replaced (see [`L1State`]).
    l1_replaced: u64,
    /// Per-cycle MSHR occupancy samples are taken by the GPU from here.
    pub(crate) outstanding: u32,
}

impl MemoryPipeline {
    pub(crate) fn new(config: &GpuConfig) -> Self {
        let dl1 = config.l1.dl1.as_ref();
        let (entries, merge, miss_queue) =
            dl1.map_or((64, 8, 8), |c| (c.mshrs_in_use(), c.mshr_max_merge, c.miss_queue_entries));
        let n_banks = config.l1.lookup_banks();
        Self {
            l1: None,
            l1_to_build: dl1.map(|config| (config.clone(), config.assoc)),
            l1_sectored: dl1.is_some_and(CacheConfig::is_sectored),
            l1_write_back_local: dl1.is_some_and(|c| {
                matches!(c.write_policy, WritePolicy::WriteBack | WritePolicy::LocalWriteBackGlobalWriteThrough)
            }),
            skip_l1_for_global: config.l1.gmem_skip_l1d,
            l1_latency: u64::from(config.l1.l1_latency_cycles.max(1)),
            shmem_latency: u64::from(config.l1.shmem_latency_cycles.max(1)),
            shmem_banks: config.l1.shmem_banks,
            mshrs: MshrTable::new(entries, merge),
            miss_queue: Fifo::new(miss_queue.max(1)),
            ejection: Fifo::new(config.l1.ejection_buffer_entries),
            responses: Fifo::new(config.l1.ldst_response_entries),
            banks: (0..n_banks).map(|_| VecDeque::new()).collect(),
            banks_due: u64::MAX,
            current: None,
            last_cycle: LastCycle::default(),
            accesses: Vec::with_capacity(64),
            cursor: 0,
            returns: VecDeque::new(),
            l1_filled: VecDeque::new(),
            bypassed: VecDeque::new(),
            next_writeback: None,
            next_writeback_regs: 0,
            writeback_turn: 0,
            loads: Slab::default(),
            l1_stats: CacheReport::default(),
            shmem_bank_conflict_cycles: 0,
            shared_at: (0, 0, 0),
            l1_used: false,
            l1_replaced: 0,
            outstanding: 0,
        }
    }

    /// Gives the L1 `ways` ways (the adaptive carve-out; the cache string's
    /// own without it). A new geometry empties the L1; the same one keeps its
    /// lines, as GPGPU-Sim, which never flushes an L1 at a launch without
    /// `-gpgpu_flush_l1_cache`.
    pub(crate) fn configure_l1(&mut self, config: &GpuConfig, ways: Option<u32>) {
        let Some(dl1) = config.l1.dl1.as_ref() else { return };
        let ways = ways.unwrap_or(dl1.assoc).max(1);
        if let Some((_, to_build)) = &mut self.l1_to_build {
            *to_build = ways;
            return;
        }
        if self.l1.as_ref().is_some_and(|l1| l1.assoc() == ways) {
            return;
        }
        self.l1 = Some(counting_changes(Cache::with_ways(dl1, ways)));
        self.l1_replaced += 1;
        self.l1_used = false;
    }

    /// Builds the L1 with the ways last configured, if it is not built yet:
    /// called as the SM takes a CTA, before any of its accesses.
    pub(crate) fn build_l1(&mut self) {
        if let Some((config, ways)) = self.l1_to_build.take() {
            self.l1 = Some(counting_changes(Cache::with_ways(&config, ways)));
        }
    }

    /// Whether an access used the L1 since it was last emptied.
    pub(crate) fn l1_used(&self) -> bool {
        self.l1_used
    }

    /// Drops the L1's contents (GPGPU-Sim's `tag_array::invalidate`, which
    /// does nothing to a cache unused since its last invalidation).
    pub(crate) fn invalidate_l1(&mut self) {
        if !self.l1_used {
            return;
        }
        if let Some(l1) = self.l1.as_mut() {
            l1.invalidate_all();
        }
        self.l1_used = false;
    }

    /// Whether `op`'s accesses (global or local: shared ones never reach
    /// here) skip the L1: atomics (Accel-Sim gives them `CACHE_GLOBAL`),
    /// every access without an L1, and global accesses with
    /// `-gpgpu_gmem_skip_L1D`.
    fn bypasses_l1(&self, op: MemOp) -> bool {
        matches!(op.kind, OpKind::Atomic(_))
            || self.l1.is_none()
            || (self.skip_l1_for_global && op.space != MemSpace::Local)
    }

    /// Whether the LD/ST unit holds an instruction (it takes the next one
    /// only once it is done with it).
    pub(crate) fn is_busy(&self) -> bool {
        self.current.is_some()
    }

    /// Whether nothing is in the pipeline or outstanding.
    pub(crate) fn is_idle(&self) -> bool {
        self.current.is_none()
            && self.returns.is_empty()
            && self.l1_filled.is_empty()
            && self.bypassed.is_empty()
            && self.next_writeback.is_none()
            && self.ejection.is_empty()
            && self.responses.is_empty()
            && self.miss_queue.is_empty()
            && self.banks.iter().all(VecDeque::is_empty)
            && self.outstanding == 0
    }

    /// The first cycle after `now` at which the pipeline has work of its own
    /// (`u64::MAX`: none until a reply arrives). While accesses enter or leave
    /// the banks, go past the L1 or the miss queue drains, that is every
    /// cycle (a full crossbar port frees in the crossbars' cycle, which wakes
    /// no SM); when every
    /// ready bank head failed and the LD/ST unit's next access finds its bank
    /// full, nothing changes before a reply, a head reaching the end of its
    /// bank's pipeline or a result falling due.
    pub(crate) fn next_event(&self, now: u64) -> u64 {
        // The LD/ST unit sends an access past the L1 as soon as its crossbar
        // port has room, which the crossbars' cycle gives, not this SM's.
        let sending_past = self.current.is_some_and(|op| op.space != MemSpace::Shared && self.bypasses_l1(op))
            && self.cursor < self.accesses.len();
        let shared = self.current.is_some_and(|op| op.space == MemSpace::Shared);
        let writing_back = self.next_writeback.is_some() || !self.l1_filled.is_empty() || !self.bypassed.is_empty();
        let receiving = !self.ejection.is_empty() || !self.responses.is_empty();
        if !self.miss_queue.is_empty()
            || self.last_cycle.progressed
            || shared
            || sending_past
            || writing_back
            || receiving
        {
            return now + 1;
        }
        let returns = self.returns.front().map_or(u64::MAX, |&(ready, _)| ready);
        let heads =
            self.banks.iter().filter_map(|bank| bank.front()).map(|head| head.ready).filter(|&ready| ready > now);
        returns.min(heads.min().unwrap_or(u64::MAX)).max(now + 1)
    }

    /// Counts `n` cycles of retrying the blocked bank heads without doing it.
    pub(crate) fn count_retries(&mut self, n: u64) {
        let [reads, writes, queue] = self.last_cycle.retries;
        self.l1_stats.reads.reservation_fail += reads * n;
        self.l1_stats.writes.reservation_fail += writes * n;
        self.miss_queue.full_stalls += queue * n;
    }

    /// Notes a failed bank head (see [`LastCycle`]).
    fn note_retry(&mut self, kind: Retry) {
        self.last_cycle.retries[kind as usize] += 1;
    }

    /// Counts a bank head's failed try at the L1: a reservation failure of
    /// its kind, retried next cycle.
    fn fail_lookup(&mut self, kind: Retry) {
        let stats = if kind == Retry::Write { &mut self.l1_stats.writes } else { &mut self.l1_stats.reads };
        stats.count(Outcome::ReservationFail);
        self.note_retry(kind);
    }

    /// What a try in L1 set `set` reads now (see [`L1State`]).
    fn l1_state(&self, set: u32) -> L1State {
        L1State {
            replaced: self.l1_replaced,
            set,
            set_changes: self.l1.as_ref().map_or(0, |l1| l1.changes_in(set)),
            mshr_room: self.mshrs.room_made(),
            miss_queue: self.miss_queue.len(),
        }
    }

    /// L1 MSHR entries.
    pub(crate) fn mshr_capacity(&self) -> usize {
        self.mshrs.capacity()
    }

    /// L1 MSHR entries in use.
    pub(crate) fn mshrs_in_use(&self) -> usize {
        self.mshrs.in_use()
    }

    /// The L1 bank of a sector: sectors are interleaved over the banks.
    fn bank_of(&self, sector_addr: u64) -> usize {
        ((sector_addr / u64::from(SECTOR_BYTES)) % self.banks.len() as u64) as usize
    }
}

impl Sm {
    /// The issue stage's part of a memory instruction: a load's destination
    /// registers wait for its data and a load record counts its accesses; a
    /// store (or an atomic without a result) holds the warp until
    /// acknowledged. Returns the load record.
    ///
    /// An atomic always has a record, result or not: GPGPU-Sim counts its
    /// lanes outstanding (`inc_n_atomic`), and its warp issues nothing more
    /// until every one is back.
    pub(crate) fn reserve_memory(&mut self, w: usize, dsts: &[Reg], op: OpInfo) -> Option<u32> {
        let atomic = matches!(op.kind, OpKind::Atomic(_));
        let has_result = atomic || (!dsts.is_empty() && matches!(op.kind, OpKind::Load(_)));
        if !has_result {
            self.warps[w].pending_stores += 1;
            return None;
        }
        if atomic {
            self.warps[w].atomics += 1;
        }
        let mut dst = [Reg::RZ; 2];
        let n_dst = dsts.len().min(2);
        dst[..n_dst].copy_from_slice(&dsts[..n_dst]);
        self.set_ready(w, &dst[..n_dst], RegState::Pending);
        self.warps[w].pending_loads += 1;
        let record = PendingLoad { warp: w as u16, remaining: 1, dst, n_dst: n_dst as u8, atomic };
        Some(self.memory.loads.insert_index(record))
    }

    /// The LD/ST unit takes the oldest memory instruction waiting in the
    /// pipeline's `OC_EX` register, if it is free (GPGPU-Sim's `execute`
    /// feeding `ldst_unit`): its accesses are coalesced (or its shared-memory
    /// bank conflicts counted) and it starts next cycle.
    pub(crate) fn take_memory_instruction(&mut self, now: u64, kernels: &[KernelView]) {
        if self.memory.current.is_some() {
            return;
        }
        let Some(staged) = self.pipeline.take_memory() else { return };
        let w = usize::from(staged.warp);
        self.warps[w].in_pipeline -= 1;
        let slot = self.warps[w].cta_slot as usize;
        let instruction = self.ctas[slot].cta.instructions[staged.index as usize];
        let view = &kernels[self.warps[w].kernel as usize];
        let op = view.ops[instruction.opcode.0 as usize];
        let space = match op.kind {
            OpKind::Load(space) | OpKind::Store(space) | OpKind::Atomic(space) => space,
            _ => MemSpace::Global,
        };
        let space =
            if space == MemSpace::Generic { resolve_generic(&self.ctas[slot].cta, &instruction, view) } else { space };
        let lanes = self.ctas[slot].cta.lane_addresses(&instruction);
        let memory = &mut self.memory;
        let mut shared_cycles = 0;
        memory.accesses.clear();
        memory.cursor = 0;
        if space == MemSpace::Shared {
            shared_cycles = shared_memory_cycles(lanes, op.access_bytes, memory.shmem_banks, 1).max(1);
            memory.shared_at = (self.warps[w].kernel, instruction.pc, instruction.opcode.0);
        } else if matches!(op.kind, OpKind::Atomic(_)) {
            coalesce_atomic(lanes, op.access_bytes, 1, &mut memory.accesses);
        } else {
            coalesce_instruction(&instruction, lanes, op.access_bytes, space, 1, &mut memory.accesses);
        }
        let load = staged.load;
        memory.current = Some(MemOp { warp: staged.warp, kind: op.kind, space, load, first_try: now, shared_cycles });
        // A new instruction: the unit works on it next cycle.
        memory.last_cycle.progressed = true;
    }

    /// One memory-pipeline cycle: steps 1 to 4 of the SM's order.
    pub(crate) fn memory_cycle(&mut self, now: u64, ctx: &mut MemoryContext<'_>) {
        self.memory.last_cycle = LastCycle::default();
        self.receive_replies(now, ctx);
        self.write_back_loads(now);
        self.take_reply(now, ctx);
        self.send_miss(now, ctx);
        self.look_up(ctx);
        self.work_on_current(now, ctx);
    }

    fn send_miss(&mut self, now: u64, ctx: &mut MemoryContext<'_>) {
        send_head(&mut self.memory.miss_queue, now, ctx);
    }

    /// Replies reach the LD/ST unit as in GPGPU-Sim's `simt_core_cluster::icnt_cycle`:
    /// the head of the cluster's ejection buffer moves to the unit's response
    /// buffer (an instruction-cache line goes to the fetch stage instead), then
    /// one more reply leaves the crossbar for the ejection buffer, each while
    /// its buffer has room; a reply is used the cycle after it left the crossbar.
    fn receive_replies(&mut self, now: u64, ctx: &mut MemoryContext<'_>) {
        if let Some(&id) = self.memory.ejection.front() {
            let request = *ctx.requests.get(id);
            if let Waiter::Fetch(entry) = request.waiter {
                self.memory.ejection.pop();
                ctx.requests.remove(id);
                self.fetch.fill(entry, request.address, now);
            } else if self.memory.responses.can_push() {
                self.memory.ejection.pop();
                self.memory.responses.push(id);
            }
        }
        if self.memory.ejection.can_push()
            && let Some(id) = ctx.port.peek_reply(ctx.reply_network, ctx.icnt_now)
        {
            ctx.port.take_reply();
            let requests = &*ctx.requests;
            note_queue(ctx.port, || *requests.get(id), now, Queue::ReplyNetwork, id, false);
            self.memory.ejection.push(id);
        }
    }

    /// The head of the LD/ST unit's response buffer: an L1 fill, a store's
    /// acknowledgement, or the data of a load past the L1 (one a cycle).
    fn take_reply(&mut self, now: u64, ctx: &mut MemoryContext<'_>) {
        let Some(id) = self.memory.responses.pop() else { return };
        let request = *ctx.requests.get(id);
        // Only a load's latency is broken down: a store's stamps stay unread.
        let is_load = matches!(request.waiter, Waiter::Load(_) | Waiter::Mshr(_));
        let stamps = if is_load { *ctx.requests.stamps(id) } else { Stamps::default() };
        ctx.requests.remove(id);
        self.memory.outstanding -= 1;
        match request.waiter {
            Waiter::None | Waiter::Fetch(_) => {}
            Waiter::Store(w) => self.store_done(w as usize),
            Waiter::Load(load) => {
                record_latency(&mut self.breakdown, stamps, now);
                self.memory.bypassed.push_back(load);
            }
            Waiter::Mshr(entry) => {
                record_latency(&mut self.breakdown, stamps, now);
                if let Some(l1) = self.memory.l1.as_mut()
                    && let Some(eviction) = l1.fill(request.address, now)
                {
                    self.write_back(eviction, now, ctx);
                }
                let sm = self.id;
                ctx.port.record_sm(now, || EventKind::MshrFreed { sm, address: request.address });
                self.memory.l1_filled.push_back(entry);
            }
        }
    }

    /// The LD/ST unit's writeback port (GPGPU-Sim's `ldst_unit::writeback`):
    /// the access it took last cycle writes its registers and completes its
    /// load, then it takes one more, its clients in round robin: shared-memory
    /// loads at the end of the unit's pipeline, loads past the L1, and the L1's
    /// filled misses (one merged access a cycle; the MSHR entry is freed with
    /// its last). An access whose register bank the core's writeback took
    /// this cycle stays, and the port takes nothing new until it is written.
    fn write_back_loads(&mut self, now: u64) {
        if let Some(load) = self.memory.next_writeback {
            if !self.write_load_registers(load) {
                return;
            }
            self.memory.next_writeback = None;
            self.complete_access(load);
        }
        // Most ticks of a memory-bound SM find no client with a load.
        let memory = &self.memory;
        if memory.returns.is_empty() && memory.bypassed.is_empty() && memory.l1_filled.is_empty() {
            return;
        }
        const CLIENTS: u8 = 3;
        let mut client = self.memory.writeback_turn;
        for _ in 0..CLIENTS {
            let memory = &mut self.memory;
            let taken = match client {
                0 if memory.returns.front().is_some_and(|&(ready, _)| ready <= now) => {
                    memory.returns.pop_front().map(|(_, load)| load)
                }
                1 => memory.bypassed.pop_front(),
                2 => match memory.l1_filled.front() {
                    Some(&entry) => {
                        let load = memory.mshrs.pop_waiter(entry);
                        if memory.mshrs.waiting(entry) == 0 {
                            memory.l1_filled.pop_front();
                        }
                        load
                    }
                    None => None,
                },
                _ => None,
            };
            // The next client in turn, without a division on every look.
            client = if client + 1 == CLIENTS { 0 } else { client + 1 };
            if let Some(load) = taken {
                memory.next_writeback = taken;
                memory.next_writeback_regs = (1u8 << memory.loads[load].n_dst) - 1;
                memory.writeback_turn = client;
                return;
            }
        }
    }

    /// Writes the destination registers of the access the writeback port
    /// holds, in order, each taking its register bank for this cycle, up to
    /// the first bank already taken (GPGPU-Sim's `opndcoll_rfu_t::writeback`
    /// returns false there; the registers written stay written). True when
    /// all are written.
    fn write_load_registers(&mut self, load: u32) -> bool {
        let record = self.memory.loads[load];
        let scheduler = (usize::from(record.warp) % self.schedulers.len()) as u8;
        for k in 0..usize::from(record.n_dst) {
            if self.memory.next_writeback_regs & (1 << k) == 0 {
                continue;
            }
            if !self.pipeline.take_write_bank(record.dst[k], record.warp, scheduler) {
                return false;
            }
            self.memory.next_writeback_regs &= !(1 << k);
        }
        true
    }

    /// One access of load record `load` finished.
    fn complete_access(&mut self, load: u32) {
        let record = &mut self.memory.loads[load];
        record.remaining -= 1;
        if record.remaining > 0 {
            return;
        }
        let record = *record;
        self.memory.loads.remove_index(load);
        let w = record.warp as usize;
        if record.atomic {
            self.warps[w].atomics -= 1;
        }
        self.set_ready(w, &record.dst[..record.n_dst as usize], RegState::Ready);
        self.warps[w].pending_loads -= 1;
        self.maybe_finish(w);
    }

    fn work_on_current(&mut self, now: u64, ctx: &mut MemoryContext<'_>) {
        let Some(mut op) = self.memory.current else { return };
        // Shared memory first: a shared atomic (`ATOMS`) is not one of the
        // atomics sent past the L1 but a shared access like `LDS`, its bank
        // conflicts and its latency included, after which its warp may issue
        // again (GPGPU-Sim decrements the atomic count at the shared pipeline's
        // writeback); nor does `-gpgpu_gmem_skip_L1D` or a GPU without an L1
        // move shared memory onto the crossbar.
        if op.space == MemSpace::Shared {
            op.shared_cycles -= 1;
            self.memory.current = Some(op);
            if op.shared_cycles > 0 {
                // A bank-conflict cycle, counted as GPGPU-Sim's
                // `ldst_unit::shared_cycle` counts one: the instruction
                // starts with its bank cycles as its `dispatch_delay`, which
                // takes one off each cycle the unit runs, and a cycle after
                // which some are left stalls the unit and is a conflict. So an
                // access taking n cycles has n - 1, and one without a conflict
                // none. The unit runs every cycle while it holds a shared
                // instruction (`MemoryPipeline::next_event`), so none is missed.
                self.memory.shmem_bank_conflict_cycles += 1;
                if let Some(per_pc) = &mut self.per_pc {
                    per_pc.bank_conflict(self.memory.shared_at);
                }
                return;
            }
            if let Some(load) = op.load {
                self.memory.loads[load].remaining += 1;
                self.memory.returns.push_back((now + self.memory.shmem_latency, load));
            }
            self.finish_current(op);
            return;
        }
        if self.memory.bypasses_l1(op) {
            self.send_one_past_l1(op, now, ctx);
            return;
        }
        // One access per bank per cycle, in order, up to the first conflict.
        let mut banks_taken = 0u64;
        while self.memory.cursor < self.memory.accesses.len() {
            let access = self.memory.accesses[self.memory.cursor];
            let bank = self.memory.bank_of(access.sector_addr);
            if banks_taken & (1 << bank) != 0 || self.memory.banks[bank].len() as u64 >= self.memory.l1_latency {
                break;
            }
            banks_taken |= 1 << bank;
            self.hold_for_access(op);
            let ready = now + self.memory.l1_latency;
            self.memory.banks[bank].push_back(Lookup { ready, op, access, failed: None });
            self.memory.banks_due = self.memory.banks_due.min(ready);
            self.memory.cursor += 1;
            self.memory.last_cycle.progressed = true;
        }
        if self.memory.cursor >= self.memory.accesses.len() {
            self.finish_current(op);
        }
    }

    /// Keeps `op`'s load (or, for a store or an atomic without a result, its
    /// warp) waiting for one more access; [`Sm::access_done`] or the access's
    /// reply releases it.
    fn hold_for_access(&mut self, op: MemOp) {
        match op.load {
            Some(load) => self.memory.loads[load].remaining += 1,
            None if matches!(op.kind, OpKind::Load(_)) => {}
            None => self.warps[op.warp as usize].pending_stores += 1,
        }
    }

    /// The heads of the L1 banks' pipelines look up the tags, one per bank per
    /// cycle; an access that fails stays and is retried next cycle. A retry
    /// that would read the same state as the failed try before it fails the
    /// same way, so it is counted without being made (see [`L1State`]).
    fn look_up(&mut self, ctx: &mut MemoryContext<'_>) {
        let now = ctx.now;
        if self.memory.banks_due > now {
            return;
        }
        let mut due = u64::MAX;
        for bank in 0..self.memory.banks.len() {
            due = due.min(self.look_up_head(bank, now, ctx));
        }
        self.memory.banks_due = due;
    }

    /// Bank `bank`'s head looks up the tags if it is due. Returns when the
    /// bank's head is next due (`u64::MAX`: the bank is empty); one that
    /// failed stays due, to be retried (or counted) next cycle.
    fn look_up_head(&mut self, bank: usize, now: u64, ctx: &mut MemoryContext<'_>) -> u64 {
        // Read in place: most heads are not due or are refused again.
        let Some(head) = self.memory.banks[bank].front() else { return u64::MAX };
        let ready = head.ready;
        if ready > now {
            return ready;
        }
        if let Some((kind, before)) = head.failed
            && before == self.memory.l1_state(before.set)
        {
            self.memory.fail_lookup(kind);
            return ready;
        }
        let (op, access) = (head.op, head.access);
        match self.try_access(op, access, now, ctx) {
            Ok(()) => {
                self.memory.banks[bank].pop_front();
                self.memory.last_cycle.progressed = true;
                self.memory.banks[bank].front().map_or(u64::MAX, |head| head.ready)
            }
            Err(Refused { kind, set }) => {
                self.memory.fail_lookup(kind);
                // A failed try changed nothing: the state after it is the one it read.
                let state = self.memory.l1_state(set);
                if let Some(head) = self.memory.banks[bank].front_mut() {
                    head.failed = Some((kind, state));
                }
                ready
            }
        }
    }

    /// An access is done with the L1 and nobody waits for a reply for it: the
    /// count it held is released.
    fn access_done(&mut self, op: MemOp) {
        match op.load {
            Some(load) => self.complete_access(load),
            None if matches!(op.kind, OpKind::Load(_)) => {}
            None => self.store_done(op.warp as usize),
        }
    }

    /// One of warp `w`'s stores (or atomics without a result) is
    /// acknowledged: it may run a memory barrier, or finish, now.
    fn store_done(&mut self, w: usize) {
        self.warps[w].pending_stores -= 1;
        self.wake(w);
        self.maybe_finish(w);
    }

    /// The LD/ST unit is done with `op`: drop the placeholder counts.
    fn finish_current(&mut self, op: MemOp) {
        self.memory.current = None;
        match op.load {
            Some(load) => self.complete_access(load),
            None => self.store_done(op.warp as usize),
        }
    }

    /// Looks one sector access up in the L1 (or sends it past) at the end of
    /// its bank's pipeline; the kind of failure when it must be retried, having
    /// changed nothing. On success the count the access held
    /// ([`Sm::hold_for_access`]) passes to whatever now answers it (an MSHR
    /// entry, a request's reply) or is released.
    fn try_access(&mut self, op: MemOp, access: SectorAccess, now: u64, ctx: &mut MemoryContext<'_>) -> Tried {
        let local = op.space == MemSpace::Local;
        let is_write = matches!(op.kind, OpKind::Store(_));
        let kind = if is_write { AccessKind::Write } else { AccessKind::Read };
        let cache_access = Access { addr: access.sector_addr, kind, byte_mask: access.byte_mask, local };
        self.memory.l1_used = true;
        if is_write {
            self.write_through_l1(op, cache_access, now, ctx)
        } else {
            self.read_through_l1(op, cache_access, now, ctx)
        }
    }

    fn fetch_address(&self, addr: u64) -> u64 {
        match (&self.memory.l1, self.memory.l1_sectored) {
            (Some(l1), false) => l1.line_addr(addr),
            _ => addr & !u64::from(SECTOR_BYTES - 1),
        }
    }

    fn read_through_l1(&mut self, op: MemOp, access: Access, now: u64, ctx: &mut MemoryContext<'_>) -> Tried {
        let Some(load) = op.load else { return Ok(()) };
        let Some(l1) = &self.memory.l1 else { return Ok(()) };
        let fetch_addr = self.fetch_address(access.addr);
        let probe = l1.prepare(&access);
        let outcome = probe.outcome();
        let room_for_miss = self.miss_queue_room(true);
        let memory = &mut self.memory;
        // Every read that is not a hit, merged or not, needs the miss queue
        // to have room for two requests (GPGPU-Sim's `rd_miss_base`).
        let fits = match outcome {
            Outcome::Hit => true,
            Outcome::HitReserved | Outcome::Miss | Outcome::SectorMiss => {
                room_for_miss && memory.mshrs.can_take(fetch_addr)
            }
            Outcome::ReservationFail => false,
        };
        if !fits {
            return Err(Refused { kind: Retry::Read, set: probe.set() });
        }
        memory.l1_stats.reads.count(outcome);
        let Some(l1) = memory.l1.as_mut() else { return Ok(()) };
        let effect = l1.commit_prepared(&access, probe, now);
        let line_bytes = l1.line_size_bytes();
        if outcome == Outcome::Hit {
            self.complete_access(load);
            return Ok(());
        }
        let (entry, new) = memory.mshrs.take(fetch_addr, load);
        if new {
            let sm = self.id;
            ctx.port.record_sm(now, || EventKind::MshrAllocated { sm, address: fetch_addr });
            let bytes = if memory.l1_sectored { SECTOR_BYTES } else { line_bytes };
            let id = self.new_request(
                RequestKind::Read,
                fetch_addr,
                bytes,
                0,
                access.local,
                Waiter::Mshr(entry),
                op.first_try,
                ctx,
            );
            self.memory.miss_queue.push(id);
        }
        if let Some(eviction) = effect.eviction {
            self.write_back(eviction, now, ctx);
        }
        Ok(())
    }

    fn write_through_l1(&mut self, op: MemOp, access: Access, now: u64, ctx: &mut MemoryContext<'_>) -> Tried {
        let Some(l1) = &self.memory.l1 else { return Ok(()) };
        let probe = l1.prepare(&access);
        let outcome = probe.outcome();
        if outcome == Outcome::ReservationFail || !self.miss_queue_room(false) {
            return Err(Refused { kind: Retry::Write, set: probe.set() });
        }
        self.memory.l1_stats.writes.count(outcome);
        let Some(l1) = self.memory.l1.as_mut() else { return Ok(()) };
        let effect = l1.commit_prepared(&access, probe, now);
        if effect.write_down {
            let bytes = access.byte_mask.count_ones();
            let sector = access.addr & !u64::from(SECTOR_BYTES - 1);
            let waiter = Waiter::Store(u32::from(op.warp));
            let id = self.new_request(
                RequestKind::Write,
                sector,
                bytes,
                access.byte_mask,
                access.local,
                waiter,
                op.first_try,
                ctx,
            );
            self.memory.miss_queue.push(id);
        } else {
            self.access_done(op);
        }
        if let Some(eviction) = effect.eviction {
            self.write_back(eviction, now, ctx);
        }
        Ok(())
    }

    /// Sends `op`'s next access that skips the L1 straight into the crossbar,
    /// one a cycle, as GPGPU-Sim's `ldst_unit::memory_cycle` does: past the
    /// L1's lookup pipeline and miss queue, waiting while the crossbar port is full.
    fn send_one_past_l1(&mut self, op: MemOp, now: u64, ctx: &mut MemoryContext<'_>) {
        if let Some(&access) = self.memory.accesses.get(self.memory.cursor) {
            if !ctx.port.can_send(ctx.request_network) {
                ctx.port.count_full();
                self.memory.note_retry(Retry::MissQueue);
                return;
            }
            let is_write = matches!(op.kind, OpKind::Store(_));
            let (kind, waiter) = match (op.kind, op.load) {
                (OpKind::Atomic(_), Some(load)) => (RequestKind::Atomic, Waiter::Load(load)),
                (_, _) if is_write => (RequestKind::Write, Waiter::Store(u32::from(op.warp))),
                (_, Some(load)) => (RequestKind::Read, Waiter::Load(load)),
                (_, None) => (RequestKind::Read, Waiter::None),
            };
            if waiter != Waiter::None {
                self.hold_for_access(op);
                let bytes = if kind == RequestKind::Read { SECTOR_BYTES } else { access.byte_mask.count_ones() };
                let local = op.space == MemSpace::Local;
                let id = self.new_request(
                    kind,
                    access.sector_addr,
                    bytes,
                    access.byte_mask,
                    local,
                    waiter,
                    op.first_try,
                    ctx,
                );
                inject(id, now, ctx);
            }
            self.memory.cursor += 1;
            self.memory.last_cycle.progressed = true;
        }
        if self.memory.cursor >= self.memory.accesses.len() {
            self.finish_current(op);
        }
    }

    /// Whether the miss queue can take a request and the write-backs a
    /// victim line could need: a read keeps one more slot free (GPGPU-Sim's
    /// `miss_queue_full(1)`), an L1 that writes local data back the slots of
    /// a whole dirty line.
    fn miss_queue_room(&self, read: bool) -> bool {
        let queue = &self.memory.miss_queue;
        let reserve = if self.memory.l1_write_back_local {
            1 + SECTORS_PER_LINE as usize
        } else if read {
            2
        } else {
            1
        };
        queue.len() + reserve <= queue.capacity().max(reserve)
    }

    fn write_back(&mut self, eviction: Eviction, now: u64, ctx: &mut MemoryContext<'_>) {
        for addr in eviction.dirty_sector_addrs() {
            let id =
                self.new_request(RequestKind::Writeback, addr, SECTOR_BYTES, u32::MAX, true, Waiter::None, now, ctx);
            self.memory.miss_queue.push(id);
        }
    }

    /// A new request from this SM, outstanding until its reply if it has one.
    #[allow(clippy::too_many_arguments)]
    fn new_request(
        &mut self,
        kind: RequestKind,
        address: u64,
        bytes: u32,
        byte_mask: u32,
        local: bool,
        waiter: Waiter,
        first_try: u64,
        ctx: &mut MemoryContext<'_>,
    ) -> RequestId {
        let request = Request {
            kind,
            source: self.id,
            sub_partition: ctx.address_map.sub_partition(address),
            address,
            bytes,
            byte_mask,
            local,
            waiter,
            l2_entry: 0,
        };
        let id = ctx.requests.insert(request, Stamps { first_try, ..Stamps::default() });
        // Write-backs carry no reply; every other request is outstanding until one arrives.
        if kind != RequestKind::Writeback {
            self.memory.outstanding += 1;
        }
        id
    }
}

/// Sends the head of a miss queue into the SM's crossbar port, or counts
/// the port full. A read carries no data on the way down.
// Asked at every tick, for the L1's queue and for fetch's, and mostly
// empty: the test is inlined and only a send pays for a call.
#[inline(always)]
pub(crate) fn send_head(queue: &mut Fifo<RequestId>, now: u64, ctx: &mut MemoryContext<'_>) {
    if !queue.is_empty() {
        send_queued_head(queue, now, ctx);
    }
}

/// [`send_head`] of a queue holding a request.
fn send_queued_head(queue: &mut Fifo<RequestId>, now: u64, ctx: &mut MemoryContext<'_>) {
    let Some(&id) = queue.front() else { return };
    if !ctx.port.can_send(ctx.request_network) {
        ctx.port.count_full();
        return;
    }
    queue.pop();
    inject(id, now, ctx);
}

/// Puts request `id` into the SM's crossbar port (the caller checked it
/// has room). A read carries no data on the way down.
fn inject(id: RequestId, now: u64, ctx: &mut MemoryContext<'_>) {
    let requests = &*ctx.requests;
    note_queue(ctx.port, || *requests.get(id), now, Queue::RequestNetwork, id, true);
    ctx.requests.stamps_mut(id).injected = now;
    let request = ctx.requests.get(id);
    let data = if matches!(request.kind, RequestKind::Read) { 0 } else { request.bytes };
    ctx.port.send(id, request.sub_partition, data);
}

/// The space a generic access resolves to, by its first address against the
/// kernel's shared and local windows (Accel-Sim's rule).
fn resolve_generic(cta: &warplab_trace::Cta, instruction: &Instruction, view: &KernelView) -> MemSpace {
    let first = cta.lane_addresses(instruction).next().map(|(_, address)| address);
    warplab_uarch::ops::resolve_generic(first, view.shmem_base, view.local_base)
}

/// An L1 that counts its sets' changes, which its refused bank heads wait on
/// ([`L1State`]).
fn counting_changes(mut l1: Cache) -> Cache {
    l1.count_changes();
    l1
}

/// Adds one L1 miss's latency, split into its parts, to the breakdown. The
/// parts come from the request's timestamps; the memory partition's share is
/// what remains, so the parts always add up to the whole.
fn record_latency(breakdown: &mut LatencyBreakdown, s: Stamps, now: u64) {
    let total = now.saturating_sub(s.first_try);
    let mshr = s.injected.saturating_sub(s.first_try).min(total);
    let noc = (s.at_partition.saturating_sub(s.injected) + now.saturating_sub(s.reply_injected)).min(total - mshr);
    let rest = total - mshr - noc;
    let dram_service = s.dram_service.min(rest);
    let dram_queue = s.dram_queue.min(rest - dram_service);
    breakdown.misses += 1;
    breakdown.mshr_wait_cycles += mshr;
    breakdown.noc_cycles += noc;
    breakdown.dram_service_cycles += dram_service;
    breakdown.dram_queue_cycles += dram_queue;
    breakdown.l2_cycles += rest - dram_service - dram_queue;
}
