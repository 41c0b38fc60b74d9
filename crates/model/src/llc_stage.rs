//! The functional cache pass's LLC stage: the requests the L1s send past
//! themselves, applied to every LLC of the pass in the order they were sent,
//! on the walking thread or on a second one.
//!
//! Nothing the L1 stage decides depends on what the LLCs answer: whether an
//! access hits the L1, what it sends and how many MSHRs a round has left are
//! the L1's alone. The LLCs' answers (a read that misses, or waits for a fill
//! another request started this round) only go into per-site counts. So the
//! L1 stage can log its requests ([`LlcOp`]) and go on, and the LLC stage can
//! apply the log behind it: the same requests in the same order give the
//! same counts, on one thread or two (the profile's determinism tests check
//! it). On a host with a second core the LLC stage runs there, in batches, so
//! a profile costs about what its L1 stage costs (the LLC stage was 38% of a
//! profile's host instructions on `spmv-csr`, SM7_QV100; docs/performance.md).

use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};

use rustc_hash::FxHashSet;

use crate::llc::SlicedLlc;

/// A memory site the LLC stage credits nothing to (a walk that keeps no
/// per-site counts).
pub(crate) const NO_SITE: u32 = u32::MAX;

/// One request past the L1s, or the start of a new round of the walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LlcOp {
    /// A read (or atomic) request for the sector at `addr`, made by memory
    /// site `site`.
    Read { addr: u64, site: u32 },
    /// A write of `byte_mask` in the sector at `addr`.
    Write { addr: u64, byte_mask: u32, local: bool },
    /// The walk's next round: the fills fetched before have arrived.
    NewRound,
}

/// What one memory site's reads found at the first LLC.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SiteLlc {
    /// Reads that missed it.
    pub misses: u64,
    /// Reads that hit a block another read fetched from DRAM in the same
    /// round (the L2's `HIT_RESERVED`): in a run they wait for that fill.
    pub waits: u64,
}

/// The LLCs and what their answers add up to. The first LLC is the one
/// whose misses the per-site counts are of; the others see the same
/// requests in the same order.
#[derive(Default)]
pub(crate) struct LlcStage {
    pub llcs: Vec<SlicedLlc>,
    /// The blocks the first LLC fetched from DRAM in this round, over all
    /// SMs: the L2 is shared, so another SM's request for one waits too.
    in_flight: FxHashSet<u64>,
    /// Clears the offset within the first LLC's fetch block (a 32-B sector,
    /// or a line for a non-sectored L2; both powers of two in a valid
    /// config): its blocks in `in_flight`.
    block_mask: u64,
    /// Per memory site (the walk's sink's numbering), this kernel's answers.
    pub sites: Vec<SiteLlc>,
    /// Reads that waited for a fill in flight, over all sites.
    pub read_waits: u64,
}

impl LlcStage {
    /// The LLCs of `llcs`, whose first fetches blocks of `fetch_bytes`.
    pub fn new(llcs: Vec<SlicedLlc>, fetch_bytes: u64) -> Self {
        Self { llcs, block_mask: !(fetch_bytes.max(1) - 1), ..Self::default() }
    }

    /// Starts a kernel's counts: the LLCs keep their contents.
    pub fn start_kernel(&mut self) {
        for llc in &mut self.llcs {
            llc.reset_counts();
        }
        self.sites.clear();
        self.read_waits = 0;
    }

    /// Applies one request (or round boundary).
    pub fn apply(&mut self, op: LlcOp) {
        match op {
            LlcOp::Read { addr, site } => self.read(addr, site),
            LlcOp::Write { addr, byte_mask, local } => self.write(addr, byte_mask, local),
            LlcOp::NewRound => {
                if !self.in_flight.is_empty() {
                    self.in_flight.clear();
                }
            }
        }
    }

    /// A write: a block it fetches is in flight for the rest of the round,
    /// for reads and writes alike.
    fn write(&mut self, addr: u64, byte_mask: u32, local: bool) {
        let Some((first, others)) = self.llcs.split_first_mut() else { return };
        let block = addr & self.block_mask;
        if first.write(addr, byte_mask, local, self.in_flight.contains(&block)) {
            self.in_flight.insert(block);
        }
        for llc in others {
            llc.write(addr, byte_mask, local, false);
        }
    }

    fn read(&mut self, addr: u64, site: u32) {
        let Some((first, others)) = self.llcs.split_first_mut() else { return };
        let block = addr & self.block_mask;
        let (miss, wait) = if first.read(addr) {
            self.in_flight.insert(block);
            (1, 0)
        } else {
            (0, u64::from(self.in_flight.contains(&block)))
        };
        self.read_waits += wait;
        for llc in others {
            llc.read(addr);
        }
        if site != NO_SITE {
            let index = site as usize;
            if index >= self.sites.len() {
                self.sites.resize(index + 1, SiteLlc::default());
            }
            self.sites[index].misses += miss;
            self.sites[index].waits += wait;
        }
    }
}

/// The threads the host offers: 1 where there are none to start (the
/// page's wasm worker), else the available parallelism.
pub fn host_threads() -> usize {
    if cfg!(target_arch = "wasm32") {
        1
    } else {
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
    }
}

/// Ops the L1 stage gathers before handing them on: large enough that a
/// hand-over costs nothing next to applying them, small enough to stay in
/// the host's caches.
const BATCH_OPS: usize = 4096;

/// Batches of ops sent to the stage's thread and back empty.
const BATCHES_IN_FLIGHT: usize = 4;

/// Where the L1 stage's ops go: gathered in a batch, then applied here or
/// sent to the LLC stage's thread.
pub(crate) struct LlcQueue {
    batch: Vec<LlcOp>,
    /// The LLC stage while it is on this thread; an empty one while it is
    /// on its own (`thread`).
    stage: LlcStage,
    thread: Option<Pipe>,
}

/// The way to the LLC stage's thread: full batches go there, empty ones come
/// back to be filled again (so the pipe allocates nothing once it runs).
struct Pipe {
    full: SyncSender<Vec<LlcOp>>,
    empty: Receiver<Vec<LlcOp>>,
}

impl LlcQueue {
    /// A queue in front of `stage`, applied on this thread.
    pub fn new(stage: LlcStage) -> Self {
        Self { batch: Vec::with_capacity(BATCH_OPS), stage, thread: None }
    }

    /// Logs `op`; a full batch is handed on.
    pub fn push(&mut self, op: LlcOp) {
        self.batch.push(op);
        if self.batch.len() >= BATCH_OPS {
            self.hand_on();
        }
    }

    /// The LLC stage, every op logged so far applied. Read it between
    /// walks, not during an [`overlapped`] one (its stage is elsewhere then).
    pub fn stage(&mut self) -> &mut LlcStage {
        debug_assert!(self.thread.is_none(), "the LLC stage is on its own thread");
        self.hand_on();
        &mut self.stage
    }

    /// Applies or sends the batch gathered so far.
    fn hand_on(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        match &self.thread {
            None => {
                for op in self.batch.drain(..) {
                    self.stage.apply(op);
                }
            }
            Some(pipe) => {
                let next = pipe.empty.try_recv().unwrap_or_else(|_| Vec::with_capacity(BATCH_OPS));
                let batch = std::mem::replace(&mut self.batch, next);
                // The worker stops only once the sender is dropped, so a send
                // fails only if it panicked, which `join` reports.
                let _ = pipe.full.send(batch);
            }
        }
    }
}

/// Runs `walk` on `owner` with the LLC stage of `owner`'s queue (`queue`
/// finds it) on a second thread, so the two stages overlap. When it returns,
/// every op is applied, in order, and the stage is back on this thread.
pub(crate) fn overlapped<O, T>(owner: &mut O, queue: fn(&mut O) -> &mut LlcQueue, walk: impl FnOnce(&mut O) -> T) -> T {
    let stage = std::mem::take(&mut queue(owner).stage);
    std::thread::scope(|scope| {
        let (full, to_apply) = sync_channel(BATCHES_IN_FLIGHT);
        let (give_back, empty) = channel();
        let worker = scope.spawn(move || apply_batches(stage, &to_apply, &give_back));
        queue(owner).thread = Some(Pipe { full, empty });
        let result = walk(owner);
        let q = queue(owner);
        q.hand_on();
        // Dropping the sender ends the worker's loop.
        q.thread = None;
        match worker.join() {
            Ok(stage) => q.stage = stage,
            Err(panic) => std::panic::resume_unwind(panic),
        }
        result
    })
}

/// The LLC stage's thread: applies every batch in the order sent, gives
/// each back empty, and returns the stage once the L1 stage is done.
fn apply_batches(mut stage: LlcStage, batches: &Receiver<Vec<LlcOp>>, give_back: &Sender<Vec<LlcOp>>) -> LlcStage {
    for mut batch in batches {
        for op in batch.drain(..) {
            stage.apply(op);
        }
        // The L1 stage may be gone already (it dropped its receiver last).
        let _ = give_back.send(batch);
    }
    stage
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stage of SM7_QV100, whose L2 is sectored: a miss fetches one
    /// 32-B sector from DRAM.
    fn qv100_stage() -> LlcStage {
        let config = warplab_config::preset("SM7_QV100").expect("a bundled preset").config().expect("valid");
        LlcStage::new(vec![SlicedLlc::new(&config)], u64::from(config.memory.l2.fetch_bytes()))
    }

    #[test]
    fn writes_to_a_fill_in_flight_go_on_to_dram_under_naive_write_allocate() {
        // mdm-pascal-28sm's L2 (`L:B:m:W:L`, 128-B lines): a write that
        // misses goes on to DRAM and fetches its line; the line's other
        // sectors, written in the same round, find that fill in flight and
        // go on too; a round later the line is here and a write stays.
        let config = warplab_config::preset("mdm-pascal-28sm").expect("a bundled preset").config().expect("valid");
        let mut stage = LlcStage::new(vec![SlicedLlc::new(&config)], u64::from(config.memory.l2.fetch_bytes()));
        let write = |addr| LlcOp::Write { addr, byte_mask: u32::MAX, local: false };
        [0x1000, 0x1020, 0x1040].into_iter().for_each(|addr| stage.apply(write(addr)));
        assert_eq!((stage.llcs[0].counts.writes_to_dram, stage.llcs[0].counts.fetches), (3, 1));
        stage.apply(LlcOp::NewRound);
        stage.apply(write(0x1060));
        assert_eq!(stage.llcs[0].counts.writes_to_dram, 3);
        // QV100's write-back L2 with lazy fetch on read keeps every write.
        let mut qv100 = qv100_stage();
        [0x1000, 0x1000].into_iter().for_each(|addr| qv100.apply(write(addr)));
        assert_eq!(qv100.llcs[0].counts.writes_to_dram, 0);
    }

    #[test]
    fn an_l2_hit_on_a_block_fetched_in_the_same_round_waits_for_it() {
        let mut stage = qv100_stage();
        // First request: an L2 miss, fetched from DRAM this round.
        stage.apply(LlcOp::Read { addr: 0x1000, site: 0 });
        assert_eq!(stage.sites[0], SiteLlc { misses: 1, waits: 0 });
        // Another SM's request for the same sector in the same round waits;
        // one for the next sector is a miss of its own.
        stage.apply(LlcOp::Read { addr: 0x1000, site: 0 });
        stage.apply(LlcOp::Read { addr: 0x1020, site: 0 });
        assert_eq!(stage.sites[0], SiteLlc { misses: 2, waits: 1 });
        // A round later the fills have arrived: a plain hit.
        stage.apply(LlcOp::NewRound);
        stage.apply(LlcOp::Read { addr: 0x1000, site: 2 });
        assert_eq!(stage.sites[2], SiteLlc::default());
        assert_eq!(stage.read_waits, 1);
        // A walk without sites is counted in the totals only.
        stage.apply(LlcOp::Read { addr: 0x2000, site: NO_SITE });
        assert_eq!(stage.sites.len(), 3);
        assert_eq!(stage.llcs[0].counts.fetches, 3);
    }

    /// The ops of a small stream: reads from three sites over two rounds,
    /// with writes between them.
    fn stream(n: u64) -> Vec<LlcOp> {
        (0..n)
            .map(|i| match i % 7 {
                0 => LlcOp::NewRound,
                3 => LlcOp::Write { addr: (i * 96) % 8192, byte_mask: u32::MAX, local: false },
                // Neighbours read one sector: the second waits for the first.
                _ => LlcOp::Read { addr: (i / 2 * 32) % 16384, site: (i % 3) as u32 },
            })
            .collect()
    }

    #[test]
    fn a_second_thread_applies_the_same_ops_in_the_same_order() {
        let ops = stream(3 * BATCH_OPS as u64 + 17);
        let mut here = LlcQueue::new(qv100_stage());
        ops.iter().for_each(|&op| here.push(op));
        let mut threaded = LlcQueue::new(qv100_stage());
        overlapped(&mut threaded, |queue| queue, |queue| ops.iter().for_each(|&op| queue.push(op)));
        let (a, b) = (here.stage(), threaded.stage());
        assert_eq!(a.sites, b.sites);
        assert_eq!(a.read_waits, b.read_waits);
        assert_eq!(a.llcs[0].counts, b.llcs[0].counts);
        assert!(a.read_waits > 0 && a.llcs[0].counts.fetches > 0, "the stream exercises both answers");
    }
}
