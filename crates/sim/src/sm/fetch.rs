//! The front end of an SM: instruction fetch through the L1 instruction cache
//! and decode into each warp's two-entry instruction buffer, as GPGPU-Sim's
//! `shader_core_ctx::fetch` and `decode` run under Accel-Sim's traces.
//!
//! An SM makes `-gpgpu_inst_fetch_throughput` fetch-and-decode steps per
//! cycle, after the issue stage. A step first decodes what the previous step
//! fetched: that warp's next two trace instructions enter its instruction
//! buffer and may issue from the next cycle on. Then it fetches for one warp.
//! A line that came back from memory hands out one of the warps waiting on it
//! (one per step, oldest first; its MSHR entry stays busy until the last one).
//! Otherwise the first warp after the one fetched last, in warp-slot order,
//! whose buffer is empty and that has instructions left looks up the line
//! holding its next instruction (at [`code_address`] of its PC) in the
//! instruction cache. A hit is decoded at the next step. A miss merges into
//! the MSHR entry of its line, or takes a free entry and sends a read of the
//! whole line through the SM's crossbar port to the L2, like a data miss; the
//! warp fetches nothing more until its line returns. A full miss queue, or no
//! MSHR entry or merge slot, is a reservation failure, retried at a later
//! step. So a kernel's first warps wait a whole memory round trip for their
//! first instruction, and every other 128-B line of code costs another when
//! the first warp reaches it.
//!
//! Trace-driven fetch reads the line of the next instruction's PC, but decode
//! takes the next two trace instructions whatever their PCs (Accel-Sim's
//! `get_next_inst`), so a branch never refetches. The cache allocates lines as
//! its `il1` string says (allocate-on-fill in every shipped config); it is not
//! flushed between kernels (GPGPU-Sim flushes only the data cache), and since
//! every trace's PCs start at 0, kernels share lines as they do in Accel-Sim.
//! With `-gpgpu_perfect_inst_const_cache`, or an `il1` of `none`, every
//! lookup hits: fetch then limits only how fast instruction buffers refill.

use std::collections::VecDeque;

use warplab_config::GpuConfig;
use warplab_uarch::cache::{Access, AccessKind, Cache, FULL_SECTOR_MASK, Outcome};

use super::Sm;
use super::memory::MemoryContext;
use crate::bitset::BitSet;
use crate::fifo::Fifo;
use crate::mshr::MshrTable;
use crate::report::OutcomeCounts;
use crate::request::{Request, RequestId, RequestKind, Stamps, Waiter};

use warplab_uarch::fetch::{INSTRUCTIONS_PER_FETCH, code_address};

/// The fetch stage's state. Which instructions a warp has decoded is
/// [`super::Warp::decoded`].
#[derive(Debug, Clone)]
pub(crate) struct FetchUnit {
    /// The instruction cache; `None` when every lookup hits.
    l1i: Option<Cache>,
    line_bytes: u32,
    mshrs: MshrTable,
    miss_queue: Fifo<RequestId>,
    /// MSHR entries whose line has come back, in arrival order; their warps
    /// are handed out one per step.
    filled: VecDeque<u32>,
    /// The warp fetched at the last step, decoded at the next (GPGPU-Sim's
    /// fetch buffer).
    buffer: Option<u16>,
    /// Bit `w`: warp slot `w` may fetch (live, buffer empty, instructions
    /// left, no miss outstanding).
    fetchable: BitSet,
    /// Bit `w`: warp slot `w` has run its last instruction and nothing it
    /// sent is outstanding; it exits when the round robin passes it.
    finished: BitSet,
    last_fetched: usize,
    steps_per_cycle: u32,
    /// Instruction-cache lookups by outcome: a miss merged into its line's
    /// MSHR entry is a pending hit.
    pub(crate) stats: OutcomeCounts,
}

/// What one lookup did.
enum Lookup {
    /// The line is present: decode at the next step.
    Hit,
    /// A miss: the warp waits for the line; `Some(entry)` when it took a new
    /// MSHR entry, whose read must be sent.
    Miss(Option<u32>),
    /// No room in the miss queue or the MSHRs: try again later.
    ReservationFail,
}

impl FetchUnit {
    /// The fetch stage of an SM of `config` with `n_warps` warp slots.
    pub(crate) fn new(config: &GpuConfig, n_warps: usize) -> Self {
        let il1 = config.l1i.as_ref();
        let perfect = config.scheduling.perfect_inst_const_cache;
        let (entries, merge, queue) =
            il1.map_or((1, 1, 1), |c| (c.mshr_entries, c.mshr_max_merge, c.miss_queue_entries));
        Self {
            l1i: il1.filter(|_| !perfect).map(Cache::new),
            line_bytes: il1.map_or(128, |c| c.line_size_bytes),
            mshrs: MshrTable::new(entries, merge),
            miss_queue: Fifo::new(queue),
            filled: VecDeque::new(),
            buffer: None,
            fetchable: BitSet::new(n_warps.max(1)),
            finished: BitSet::new(n_warps.max(1)),
            // GPGPU-Sim starts its round robin after warp slot 0
            // (`m_last_warp_fetched = 0`), so slot 1 fetches first.
            last_fetched: 0,
            steps_per_cycle: config.scheduling.inst_fetch_throughput.max(1),
            stats: OutcomeCounts::default(),
        }
    }

    /// Warp slot `w`'s instruction buffer is empty and it has instructions left.
    pub(crate) fn set_fetchable(&mut self, w: usize) {
        self.fetchable.insert(w);
    }

    fn clear_fetchable(&mut self, w: usize) {
        self.fetchable.remove(w);
    }

    /// Warp slot `w` is finished and waits for the round robin to exit it.
    pub(crate) fn mark_finished(&mut self, w: usize) {
        self.finished.insert(w);
    }

    /// The first fetchable warp after the one fetched last, round robin.
    fn next_fetchable(&self) -> Option<usize> {
        self.fetchable.next_from(self.last_fetched + 1)
    }

    /// Whether the stage has nothing to do: no warp may fetch, nothing waits
    /// to be decoded, handed out or sent. A cycle of a quiet stage changes
    /// nothing, so skipping it is safe.
    pub(crate) fn is_quiet(&self) -> bool {
        self.fetchable.count() == 0
            && self.finished.count() == 0
            && self.buffer.is_none()
            && self.filled.is_empty()
            && self.miss_queue.is_empty()
    }

    /// Looks up the line of `addr` for warp `w` at cycle `now`.
    fn look_up(&mut self, addr: u64, w: usize, now: u64) -> Lookup {
        let Some(l1i) = &mut self.l1i else {
            self.stats.count(Outcome::Hit);
            return Lookup::Hit;
        };
        let access = Access { addr, kind: AccessKind::Read, byte_mask: FULL_SECTOR_MASK, local: false };
        let probe = l1i.prepare(&access);
        let outcome = probe.outcome();
        if outcome == Outcome::Hit {
            l1i.commit_prepared(&access, probe, now);
            self.stats.count(Outcome::Hit);
            return Lookup::Hit;
        }
        let line = l1i.line_addr(addr);
        // GPGPU-Sim's read-only cache refuses every miss, even one that would
        // merge, while its miss queue is full.
        if outcome == Outcome::ReservationFail || !self.miss_queue.can_push() || !self.mshrs.can_take(line) {
            self.stats.count(Outcome::ReservationFail);
            return Lookup::ReservationFail;
        }
        // Reserves the line under allocation on miss; nothing under allocation on fill.
        l1i.commit_prepared(&access, probe, now);
        let (entry, new) = self.mshrs.take(line, w as u32);
        self.stats.count(if new { Outcome::Miss } else { Outcome::HitReserved });
        Lookup::Miss(new.then_some(entry))
    }

    /// The line of MSHR entry `entry` (at `addr`) arrived at cycle `now`.
    pub(crate) fn fill(&mut self, entry: u32, addr: u64, now: u64) {
        if let Some(l1i) = &mut self.l1i {
            l1i.fill(addr, now);
        }
        self.filled.push_back(entry);
    }

    /// The next warp whose line has arrived.
    fn next_filled(&mut self) -> Option<usize> {
        while let Some(&entry) = self.filled.front() {
            if let Some(w) = self.mshrs.pop_waiter(entry) {
                if self.mshrs.waiting(entry) == 0 {
                    self.filled.pop_front();
                }
                return Some(w as usize);
            }
            self.filled.pop_front();
        }
        None
    }
}

impl Sm {
    /// Steps 6 and 7 of the SM's cycle: `-gpgpu_inst_fetch_throughput` times,
    /// decode what the last step fetched, then fetch for one warp.
    pub(crate) fn fetch_cycle(&mut self, now: u64, ctx: &mut MemoryContext<'_>) {
        if self.fetch.is_quiet() {
            return;
        }
        for _ in 0..self.fetch.steps_per_cycle {
            self.decode();
            self.fetch(now, ctx);
            self.send_fetch_miss(now, ctx);
        }
    }

    /// Warp `w` issued an instruction: once its buffer is empty and it has
    /// instructions left, it may fetch again.
    pub(crate) fn after_issue(&mut self, w: usize) {
        let warp = &self.warps[w];
        if warp.next == warp.decoded && warp.next < warp.end {
            self.fetch.set_fetchable(w);
        }
    }

    fn decode(&mut self) {
        let Some(w) = self.fetch.buffer.take() else { return };
        let w = usize::from(w);
        let warp = &mut self.warps[w];
        warp.decoded = (warp.next + INSTRUCTIONS_PER_FETCH).min(warp.end);
        self.wake(w);
    }

    fn fetch(&mut self, now: u64, ctx: &mut MemoryContext<'_>) {
        if self.fetch.buffer.is_some() {
            return;
        }
        if let Some(w) = self.fetch.next_filled() {
            self.fetch.buffer = Some(w as u16);
            return;
        }
        let next = self.fetch.next_fetchable();
        self.exit_passed_warps(next, now);
        let Some(w) = next else { return };
        self.fetch.last_fetched = w;
        let pc = self.issue_view(w).pc;
        match self.fetch.look_up(code_address(pc), w, now) {
            Lookup::Hit => {
                self.fetch.clear_fetchable(w);
                self.fetch.buffer = Some(w as u16);
            }
            Lookup::Miss(new_entry) => {
                self.fetch.clear_fetchable(w);
                if let Some(entry) = new_entry {
                    self.send_fetch_read(entry, now, ctx);
                }
            }
            Lookup::ReservationFail => {}
        }
    }

    /// Exits the finished warps the round robin passes on its way from the
    /// warp after the one fetched last to `next`, the one it fetches for (all
    /// of them when none can fetch): GPGPU-Sim releases a warp there
    /// (`shader_core_ctx::fetch`), so a warp's exit, and its CTA's end, waits
    /// for the round robin to reach it.
    fn exit_passed_warps(&mut self, next: Option<usize>, now: u64) {
        if self.fetch.finished.count() == 0 {
            return;
        }
        let n = self.warps.len();
        let start = (self.fetch.last_fetched + 1) % n;
        let span = next.map_or(n, |f| (f + n - start) % n);
        while let Some(w) = self.fetch.finished.next_from(start) {
            if (w + n - start) % n >= span {
                break;
            }
            self.fetch.finished.remove(w);
            self.retire(w, now);
        }
    }

    /// Queues the read of MSHR entry `entry`'s line.
    fn send_fetch_read(&mut self, entry: u32, now: u64, ctx: &mut MemoryContext<'_>) {
        let address = self.fetch.mshrs.address(entry);
        let request = Request {
            kind: RequestKind::Read,
            source: self.id,
            sub_partition: ctx.address_map.sub_partition(address),
            address,
            bytes: self.fetch.line_bytes,
            byte_mask: u32::MAX,
            local: false,
            waiter: Waiter::Fetch(entry),
            l2_entry: 0,
        };
        let id = ctx.requests.insert(request, Stamps { first_try: now, ..Stamps::default() });
        self.fetch.miss_queue.push(id);
    }

    /// Sends the head of the instruction cache's miss queue into the crossbar.
    fn send_fetch_miss(&mut self, now: u64, ctx: &mut MemoryContext<'_>) {
        super::memory::send_head(&mut self.fetch.miss_queue, now, ctx);
    }
}

#[cfg(test)]
mod tests {
    use warplab_config::CacheConfig;
    use warplab_uarch::fetch::PROGRAM_MEM_START;

    use super::*;

    /// A fetch unit of QV100 with the GTX 1080's instruction cache: 8 sets
    /// of four 128-B lines, allocated on fill, 2 MSHR entries merging up to 48
    /// fetches, a 4-entry miss queue.
    fn gtx1080_l1i(perfect: bool) -> FetchUnit {
        let mut config = warplab_config::preset("QV100").unwrap().config().unwrap();
        config.l1i = CacheConfig::parse("N:8:128:4,L:R:f:N:L,A:2:48,4").unwrap();
        config.scheduling.perfect_inst_const_cache = perfect;
        FetchUnit::new(&config, 64)
    }

    fn counts(unit: &FetchUnit) -> [u64; 4] {
        let s = unit.stats;
        [s.hit, s.hit_reserved, s.miss, s.reservation_fail]
    }

    #[test]
    fn misses_merge_per_line_and_their_warps_come_back_one_by_one() {
        let mut unit = gtx1080_l1i(false);
        let line = |k: u64| PROGRAM_MEM_START + 128 * k;
        let first = match unit.look_up(line(0) + 8, 0, 1) {
            Lookup::Miss(Some(entry)) => entry,
            _ => panic!("a cold line misses and takes an MSHR entry"),
        };
        assert!(matches!(unit.look_up(line(0) + 0x48, 1, 2), Lookup::Miss(None)), "merges into its line's entry");
        assert!(matches!(unit.look_up(line(1), 2, 3), Lookup::Miss(Some(_))), "the second entry");
        assert!(matches!(unit.look_up(line(2), 3, 4), Lookup::ReservationFail), "both entries busy");
        unit.fill(first, line(0), 10);
        assert_eq!(unit.next_filled(), Some(0));
        assert!(matches!(unit.look_up(line(2), 3, 11), Lookup::ReservationFail), "busy until its last warp is out");
        assert_eq!(unit.next_filled(), Some(1));
        assert_eq!(unit.next_filled(), None);
        assert!(matches!(unit.look_up(line(0) + 0x78, 4, 12), Lookup::Hit), "the line is cached now");
        assert!(matches!(unit.look_up(line(2), 3, 13), Lookup::Miss(Some(_))), "the entry is free again");
        assert_eq!(counts(&unit), [1, 1, 3, 2]);
    }

    #[test]
    fn a_perfect_instruction_cache_always_hits() {
        let mut unit = gtx1080_l1i(true);
        for k in 0..100 {
            assert!(matches!(unit.look_up(PROGRAM_MEM_START + 128 * k, 0, k), Lookup::Hit));
        }
        assert_eq!(counts(&unit), [100, 0, 0, 0]);
    }
}
