//! One DRAM channel, advanced at the DRAM command clock, after GPGPU-Sim's
//! DRAM model (`dram.cc`: `dram_t::cycle`, `issue_col_command`,
//! `issue_row_command`; `dram_sched.cc`: the FR-FCFS scheduler).
//!
//! Requests wait in a bounded queue until the scheduler hands them to a bank;
//! a bank serves one request at a time (GPGPU-Sim's `mrq`), and the channel
//! issues commands for the requests the banks hold. Each command clock, in
//! GPGPU-Sim's order:
//! 1. at most one finished request moves to the return queue (which the
//!    memory partition drains, one per cycle);
//! 2. the scheduler hands at most one request to a free bank, scanning the
//!    banks from the priority bank (`prio`), and moves the priority on by one.
//!    FR-FCFS drains one row of a bank at a time: with no row chosen, it
//!    takes the row the bank last opened if any request wants it (a row
//!    hit), else the oldest request's row (a row miss), then serves that
//!    row's requests oldest first until none is left. FIFO hands over only
//!    the queue's head, and only when its bank is free;
//! 3. one column command (read or write) and one row command (activate or
//!    precharge) with a dual bus interface, each from the first bank in
//!    priority order that may issue it; with one command bus, GPGPU-Sim's
//!    scan: the first bank that may issue a column command does, and a row
//!    command goes to the first bank that may issue one as long as nothing
//!    issued before it in the scan (so a row command can precede a column
//!    command in the same clock, never follow one). A row command moves the
//!    priority to the bank after it.
//!
//! A request moves `bursts` accesses of `burst_length × bus width × chips`
//! bytes: one column command each (a 128-B line is four on a 32-B channel),
//! and the bank holds it until the last. Its data is back `CL` clocks after
//! its last read command (`WL` for a write), in issue order: GPGPU-Sim's
//! read/write pipeline is a FIFO of that length.
//!
//! All times are absolute DRAM command cycles, and every timing rule is kept
//! as "the earliest cycle at which this may happen" rather than a counter
//! ticking down (GPGPU-Sim sets a counter to `t` and lets the command go when
//! it has counted down to 0, `t` cycles later: the same cycle). That is what
//! lets [`DramChannel::next_event`] say exactly when something can next
//! happen, so a driver may skip the clocks in between and get the same
//! completions at the same cycles as one that ticks every clock.
//!
//! Timing rules (from `-gpgpu_dram_timing_opt`, in command clocks;
//! `burst = burst_length / data_command_freq_ratio`):
//! - activate → column read: tRCD; activate → column write: tRCDWR = tRCD − (WL + 1)
//!   (GPGPU-Sim's derived value; floored at 0 here, where GPGPU-Sim's
//!   unsigned arithmetic would wrap and never let the write go);
//! - activate → activate: tRC in the bank, tRRD in the channel; precharge → activate: tRP;
//! - activate → precharge: tRAS; read → precharge: `burst` in the bank and
//!   tRTPL in its bank group; write → precharge: tWTP = WL + burst + tWR;
//! - column → column: tCCD in the channel, tCCDL in the bank group;
//! - read → write: tRTW = CL + burst + 2 − WL; write → read: tWTR = WL + burst + tCDLR.
//!
//! The bank and bank group of a request come from `-dram_bnk_indexing_policy`
//! and `-dram_bnkgrp_indexing_policy`.
//!
//! Left out from GPGPU-Sim: refresh (GPGPU-Sim has none either), the separate
//! write queue with its watermarks (`-dram_seperate_write_queue_enable`, off
//! in every Accel-Sim preset), and the read/write pipeline's own bound of CL + 1
//! commands, which only binds once the return queue is full; here a full
//! return queue stops column commands directly.

use std::collections::VecDeque;
use std::ops::AddAssign;

use crate::set_index::ipoly_hash;
use serde::{Deserialize, Serialize};
use warplab_config::{BankIndexing, DramConfig, DramScheduler};

use crate::bitset::BitSet;

/// The request-queue bound used when `-gpgpu_frfcfs_dram_sched_queue_size` is 0.
///
/// GPGPU-Sim treats 0 as unlimited; a bound keeps memory finite. 65,536 is also
/// the largest size the config accepts, so no finite setting is more generous.
pub const UNBOUNDED_QUEUE_ENTRIES: usize = 65_536;

/// The FIFO scheduler's queue: GPGPU-Sim's `mrqq` holds two requests.
pub const FIFO_QUEUE_ENTRIES: usize = 2;

/// The return-queue bound used when `-gpgpu_dram_return_queue_size` is 0
/// (GPGPU-Sim's own choice for 0).
pub const DEFAULT_RETURN_QUEUE_ENTRIES: usize = 1024;

/// One access sent to the channel: which bank, row and column it touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DramRequest {
    /// Opaque to the channel; returned in the request's [`DramCompletion`].
    pub tag: u32,
    /// The address's bank bits; the channel applies the bank-indexing policy
    /// and takes the result modulo its bank count, so no value panics.
    pub bank: u32,
    /// The row within the bank.
    pub row: u32,
    /// The column within the row; it does not affect timing.
    pub column: u32,
    /// A write (true) or a read (false).
    pub is_write: bool,
    /// Column commands the request needs: its bytes over the channel's
    /// access size, rounded up (at least 1).
    pub bursts: u32,
}

/// A request whose data transfer has finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DramCompletion {
    /// The request's tag.
    pub tag: u32,
    /// Whether the request was a write.
    pub is_write: bool,
    /// Cycles from [`DramChannel::push`] to the first command issued for the
    /// request (its precharge, activate, or column command).
    pub queued_cycles: u64,
    /// Cycles from that first command to the end of the request's data.
    pub service_cycles: u64,
}

/// Counters of one DRAM channel; they merge with `+=` across channels or launches.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DramStats {
    /// Read column commands issued (a request of n bursts issues n; GPGPU-Sim's `n_rd`).
    pub reads: u64,
    /// Write column commands issued (GPGPU-Sim's `n_wr` plus `n_wr_WB`).
    pub writes: u64,
    /// Requests the scheduler handed to a bank.
    #[serde(default)]
    pub requests: u64,
    /// Of those, row hits by GPGPU-Sim's count: a request taken from the row
    /// its bank last opened (FR-FCFS), or whose row was open when it reached
    /// its bank (FIFO).
    pub row_hits: u64,
    /// Activate commands issued.
    pub activates: u64,
    /// Precharge commands issued (each one closes a row for a row miss).
    pub precharges: u64,
    /// Command clocks of data transfer (`burst_length / data_command_freq_ratio` per column command).
    pub data_bus_busy_cycles: u64,
    /// Command clocks with anything queued, held by a bank, or transferring data.
    pub active_cycles: u64,
    /// Command clocks that began with the request queue at its bound.
    pub queue_full_cycles: u64,
    /// The longest the request queue got (requests not yet handed to a bank).
    pub max_queue_len: u64,
    /// Requests pushed while the queue was full; they were accepted anyway.
    pub overflow_pushes: u64,
    /// Sum of [`DramCompletion::queued_cycles`] over served requests.
    pub total_queued_cycles: u64,
    /// Sum of [`DramCompletion::service_cycles`] over served requests.
    pub total_service_cycles: u64,
}

/// One DRAM channel: request queue, banks, timing state and return queue.
#[derive(Debug, Clone)]
pub struct DramChannel {
    timing: ChannelTiming,
    scheduler: DramScheduler,
    dual_bus_interface: bool,
    /// No command can issue before this cycle: the earliest cycle any held
    /// request may issue its next command, found after a scan that issued
    /// nothing, so the cycles before it skip the scan. Only a hand-over (a
    /// new held request) and a taken return (room for column commands) can
    /// make a command possible sooner, and both set it back to 0; a command
    /// issued leaves it at 0 until the next scan that issues nothing.
    no_command_before: u64,
    /// Requests queued before they reach a bank may not exceed this (see `push`).
    queue_capacity: usize,
    /// FIFO: the one queue, oldest first. Unused by FR-FCFS, which queues per bank.
    fifo_queue: VecDeque<QueuedRequest>,
    /// Invariant: equals `fifo_queue.len()` or the sum of the banks' queue lengths.
    queued_len: usize,
    /// Indexed by bank.
    banks: Vec<Bank>,
    /// Banks holding a request: every command scan looks only at these
    /// (the banks' records are many host cache lines; these are one word).
    held_banks: BitSet,
    /// FR-FCFS: banks with queued requests.
    queued_banks: BitSet,
    /// Indexed by bank: its bank group, by `-dram_bnkgrp_indexing_policy`.
    group_of_bank: Vec<usize>,
    /// Indexed by bank group.
    bank_groups: Vec<BankGroup>,
    bank_indexing: BankIndexing,
    /// The bank every scan starts from (GPGPU-Sim's `prio`): the scheduler
    /// moves it on by one when it hands a bank a request, a row command moves
    /// it to the bank after the one that issued.
    priority_bank: usize,
    /// tCCD: earliest next column command of any bank.
    column_ready_cycle: u64,
    /// tRRD: earliest next activate of any bank.
    activate_ready_cycle: u64,
    /// tWTR: earliest next read command after a write.
    read_ready_cycle: u64,
    /// tRTW: earliest next write command after a read.
    write_ready_cycle: u64,
    /// Requests whose last column command has issued, in issue order.
    /// Invariant: `done_cycle` never decreases along the queue.
    in_flight: VecDeque<InFlight>,
    /// Finished requests for the memory partition to take, oldest first.
    returned: VecDeque<DramCompletion>,
    return_capacity: usize,
    /// The first cycle not yet counted in the per-cycle stats.
    next_unaccounted_cycle: u64,
    /// No call to `cycle` may change anything before this cycle: one past the
    /// last cycle processed, or the cycle of the latest push.
    floor_cycle: u64,
    stats: DramStats,
}

/// The config's timing, converted once to `u64` command clocks.
#[derive(Debug, Clone, Copy)]
struct ChannelTiming {
    t_ccd_cycles: u64,
    t_ccdl_cycles: u64,
    t_rrd_cycles: u64,
    t_rcd_cycles: u64,
    t_rcd_write_cycles: u64,
    t_ras_cycles: u64,
    t_rp_cycles: u64,
    t_rc_cycles: u64,
    read_latency_cycles: u64,
    write_latency_cycles: u64,
    burst_cycles: u64,
    read_to_write_cycles: u64,
    write_to_read_cycles: u64,
    write_to_precharge_cycles: u64,
    read_to_precharge_group_cycles: u64,
}

#[derive(Debug, Clone, Copy)]
struct QueuedRequest {
    request: DramRequest,
    pushed_cycle: u64,
}

/// The request a bank is serving, from the scheduler's hand-over to its last
/// column command.
#[derive(Debug, Clone, Copy)]
struct HeldRequest {
    queued: QueuedRequest,
    /// Column commands still to issue.
    bursts_left: u32,
    first_command_cycle: Option<u64>,
}

#[derive(Debug, Clone)]
struct Bank {
    /// The row last activated (GPGPU-Sim's `curr_row`, kept after a
    /// precharge: the FR-FCFS scheduler still prefers it).
    row: u32,
    /// Whether `row` is open (activated and not precharged since).
    active: bool,
    /// tRP after a precharge, tRC after an activate.
    activate_ready_cycle: u64,
    /// tRCD after an activate.
    read_ready_cycle: u64,
    /// tRCDWR after an activate.
    write_ready_cycle: u64,
    /// tRAS after an activate, tWTP after a write, the burst after a read.
    precharge_ready_cycle: u64,
    held: Option<HeldRequest>,
    /// FR-FCFS: the row whose requests this bank serves until none is left
    /// (GPGPU-Sim's `m_last_row`).
    draining_row: Option<u32>,
    /// FR-FCFS: this bank's queued requests, oldest first. (A `Vec`: each
    /// choice searches it two or three times, and a `VecDeque`'s search, over
    /// two slices, cost more than the shift after a request leaves.)
    queue: Vec<QueuedRequest>,
}

#[derive(Debug, Clone, Copy, Default)]
struct BankGroup {
    /// tCCDL after a column command in the group.
    column_ready_cycle: u64,
    /// tRTPL after a read in the group.
    precharge_ready_cycle: u64,
}

#[derive(Debug, Clone, Copy)]
struct InFlight {
    completion: DramCompletion,
    done_cycle: u64,
}

impl ChannelTiming {
    fn new(config: &DramConfig) -> Self {
        let timing = &config.timing;
        let cl = u64::from(timing.cl);
        let wl = u64::from(timing.wl);
        // Validated configs have a burst length that is a non-zero multiple of
        // the ratio; `max(1)` only keeps a hand-built config from dividing by 0.
        let burst_cycles = (u64::from(config.burst_length) / u64::from(config.data_command_freq_ratio.max(1))).max(1);
        Self {
            t_ccd_cycles: u64::from(timing.t_ccd),
            t_ccdl_cycles: u64::from(timing.t_ccdl),
            t_rrd_cycles: u64::from(timing.t_rrd),
            t_rcd_cycles: u64::from(timing.t_rcd),
            t_rcd_write_cycles: u64::from(timing.t_rcd).saturating_sub(wl + 1),
            t_ras_cycles: u64::from(timing.t_ras),
            t_rp_cycles: u64::from(timing.t_rp),
            t_rc_cycles: u64::from(timing.t_rc),
            read_latency_cycles: cl,
            write_latency_cycles: wl,
            burst_cycles,
            read_to_write_cycles: (cl + burst_cycles + 2).saturating_sub(wl),
            write_to_read_cycles: wl + burst_cycles + u64::from(timing.t_cdlr),
            write_to_precharge_cycles: wl + burst_cycles + u64::from(timing.t_wr),
            read_to_precharge_group_cycles: u64::from(timing.t_rtpl),
        }
    }
}

impl Bank {
    fn new() -> Self {
        Self {
            row: 0,
            active: false,
            activate_ready_cycle: 0,
            read_ready_cycle: 0,
            write_ready_cycle: 0,
            precharge_ready_cycle: 0,
            held: None,
            draining_row: None,
            queue: Vec::new(),
        }
    }

    /// FR-FCFS choice for this free bank (GPGPU-Sim's `frfcfs_scheduler::schedule`):
    /// the oldest request of the row being drained; with none chosen, the
    /// last opened row if a request wants it, else the oldest request's row.
    /// Returns the request's index in `queue` and whether it is a row hit.
    fn pick_frfcfs(&mut self) -> Option<(usize, bool)> {
        let oldest_of_row = |queue: &[QueuedRequest], row: u32| queue.iter().position(|q| q.request.row == row);
        let draining = self.draining_row.filter(|&row| oldest_of_row(&self.queue, row).is_some());
        let (row, hit) = match draining {
            Some(row) => (row, true),
            None if oldest_of_row(&self.queue, self.row).is_some() => (self.row, true),
            None => (self.queue.first()?.request.row, false),
        };
        let index = oldest_of_row(&self.queue, row)?;
        let more = self.queue.iter().skip(index + 1).any(|q| q.request.row == row);
        self.draining_row = more.then_some(row);
        Some((index, hit))
    }
}

impl DramChannel {
    /// A channel with all banks precharged and nothing queued.
    pub fn new(config: &DramConfig) -> Self {
        // Validation guarantees at least one bank and that groups divide the
        // banks evenly; the `max(1)`s keep a hand-built config from panicking.
        let n_banks = config.timing.n_banks.max(1) as usize;
        let n_bank_groups = (config.timing.n_bank_groups.max(1) as usize).min(n_banks);
        let queue_capacity = match (config.scheduler, config.scheduler_queue_entries) {
            (DramScheduler::Fifo, _) => FIFO_QUEUE_ENTRIES,
            (DramScheduler::FrFcfs, 0) => UNBOUNDED_QUEUE_ENTRIES,
            (DramScheduler::FrFcfs, entries) => entries as usize,
        };
        let return_capacity = match config.return_queue_entries {
            0 => DEFAULT_RETURN_QUEUE_ENTRIES,
            entries => entries as usize,
        };
        Self {
            timing: ChannelTiming::new(config),
            scheduler: config.scheduler,
            dual_bus_interface: config.dual_bus_interface,
            no_command_before: 0,
            queue_capacity,
            fifo_queue: VecDeque::new(),
            queued_len: 0,
            banks: vec![Bank::new(); n_banks],
            held_banks: BitSet::new(n_banks),
            queued_banks: BitSet::new(n_banks),
            group_of_bank: (0..n_banks as u32)
                .map(|bank| config.bank_group_indexing.group_of(bank, n_banks as u32, n_bank_groups as u32) as usize)
                .collect(),
            bank_groups: vec![BankGroup::default(); n_bank_groups],
            bank_indexing: config.bank_indexing,
            priority_bank: 0,
            column_ready_cycle: 0,
            activate_ready_cycle: 0,
            read_ready_cycle: 0,
            write_ready_cycle: 0,
            in_flight: VecDeque::new(),
            returned: VecDeque::new(),
            return_capacity,
            next_unaccounted_cycle: 0,
            floor_cycle: 0,
            stats: DramStats::default(),
        }
    }

    /// Whether the request queue has room for one more request (GPGPU-Sim's `dram_t::full`).
    pub fn can_accept(&self) -> bool {
        self.queued_len < self.queue_capacity
    }

    /// Requests queued and not yet handed to a bank.
    pub fn queue_len(&self) -> usize {
        self.queued_len
    }

    /// The bound on [`Self::queue_len`] that [`Self::can_accept`] checks.
    pub fn queue_capacity(&self) -> usize {
        self.queue_capacity
    }

    /// Queues `request` at DRAM command cycle `now`, after that cycle's
    /// [`Self::cycle`] (a push reaches a bank at the next cycle at the earliest).
    ///
    /// Precondition: [`Self::can_accept`]. A push into a full queue is still
    /// accepted (dropping a request would lose a memory access) and counted in
    /// [`DramStats::overflow_pushes`], so a caller's bug shows in the stats
    /// instead of a panic.
    pub fn push(&mut self, request: DramRequest, now: u64) {
        self.account_before(now);
        if !self.can_accept() {
            self.stats.overflow_pushes += 1;
        }
        let bank_index = self.bank_of(request.bank, request.row);
        let request = DramRequest { bank: bank_index as u32, bursts: request.bursts.max(1), ..request };
        let queued = QueuedRequest { request, pushed_cycle: now };
        match self.scheduler {
            DramScheduler::Fifo => self.fifo_queue.push_back(queued),
            DramScheduler::FrFcfs => {
                self.banks[bank_index].queue.push(queued);
                self.queued_banks.insert(bank_index);
            }
        }
        self.queued_len += 1;
        self.stats.max_queue_len = self.stats.max_queue_len.max(self.queued_len as u64);
        self.floor_cycle = self.floor_cycle.max(now + 1);
    }

    /// Advances one DRAM command clock (see the module doc for its steps).
    ///
    /// Cycles must go forward: a call for a cycle already processed does
    /// nothing, so a repeated call can never issue a second command in one clock.
    pub fn cycle(&mut self, now: u64) {
        if !self.count(now) {
            return;
        }
        self.return_one(now);
        self.schedule();
        self.issue_commands(now);
    }

    /// A clock before [`Self::next_event`], at which [`Self::cycle`] would
    /// schedule, issue and return nothing: only counted in the per-cycle
    /// stats, as `cycle` counts it, so a caller that knows nothing else
    /// reaches the channel may pass its cycles over this cheaply.
    pub fn pass(&mut self, now: u64) {
        debug_assert!(self.next_event().is_none_or(|next| now < next), "cycle {now} passed over with work due");
        self.count(now);
    }

    /// Counts clock `now` and those before it not yet counted; `false` if it
    /// was counted already.
    #[inline]
    fn count(&mut self, now: u64) -> bool {
        if now < self.next_unaccounted_cycle {
            return false;
        }
        self.account_before(now);
        self.account_cycle(now);
        self.floor_cycle = self.floor_cycle.max(now + 1);
        true
    }

    /// The oldest finished request in the return queue, removed.
    pub fn pop_completed(&mut self) -> Option<DramCompletion> {
        let done = self.returned.pop_front();
        if done.is_some() {
            self.no_command_before = 0;
        }
        done
    }

    /// The oldest finished request in the return queue.
    pub fn peek_completed(&self) -> Option<DramCompletion> {
        self.returned.front().copied()
    }

    /// Whether the return queue holds a finished request.
    pub fn has_completed(&self) -> bool {
        !self.returned.is_empty()
    }

    /// The earliest cycle at which [`Self::cycle`] could schedule, issue or
    /// return something (or, after the return queue filled, a cycle before
    /// it: see `earliest_command_from`; never a later one). Never earlier
    /// than one past the last cycle processed, nor than the cycle after the
    /// latest push. `None` when nothing is queued, held by a bank or in
    /// flight; requests already in the return queue do not count (the caller
    /// takes them).
    pub fn next_event(&self) -> Option<u64> {
        let floor = self.floor_cycle.max(self.next_unaccounted_cycle);
        let done = self.in_flight.front().filter(|_| self.returned.len() < self.return_capacity).map(|t| t.done_cycle);
        // Nothing is earlier than the floor: the scan of the held banks'
        // commands is needed only when neither of these reaches it.
        if self.can_schedule() || done.is_some_and(|cycle| cycle <= floor) {
            return Some(floor);
        }
        let command = Some(self.earliest_command_from(floor)).filter(|&cycle| cycle != u64::MAX);
        done.into_iter().chain(command).min().map(|cycle| cycle.max(floor))
    }

    /// [`DramChannel::earliest_command`] for a caller at `floor`, taken from
    /// the last scan that issued nothing while its answer is still ahead:
    /// nothing scanned since (the scans wait for it), and what would move a
    /// command sooner (a hand-over, a taken return) sets it back to 0, which
    /// is never ahead (a scan at cycle t answers t + 1 at the soonest).
    /// Otherwise the held banks are read again. The one change it misses, the
    /// return queue filling, only moves the true answer later, and a channel
    /// cycled early does what the cycles passed over would have.
    fn earliest_command_from(&self, floor: u64) -> u64 {
        if self.no_command_before >= floor.max(1) { self.no_command_before } else { self.earliest_command() }
    }

    /// Nothing queued, held by a bank, in flight, or waiting to be taken.
    pub fn is_idle(&self) -> bool {
        self.queued_len == 0 && self.in_flight.is_empty() && self.returned.is_empty() && self.held_banks.count() == 0
    }

    /// The channel's counters so far.
    pub fn stats(&self) -> &DramStats {
        &self.stats
    }

    /// Counts the cycles in `[next_unaccounted_cycle, now)`, which no call to
    /// `cycle` processed: the state did not change during them, except that
    /// transfers finished at their known cycles.
    fn account_before(&mut self, now: u64) {
        let first = self.next_unaccounted_cycle;
        if now <= first {
            return;
        }
        let skipped = now - first;
        if self.holds_requests() {
            self.stats.active_cycles += skipped;
        } else {
            let transfers_end = self.in_flight.back().map_or(0, |transfer| transfer.done_cycle);
            self.stats.active_cycles += transfers_end.clamp(first, now) - first;
        }
        if self.queued_len >= self.queue_capacity {
            self.stats.queue_full_cycles += skipped;
        }
        self.next_unaccounted_cycle = now;
    }

    /// Counts cycle `now` itself, by the state at its start.
    fn account_cycle(&mut self, now: u64) {
        let transferring = self.in_flight.back().is_some_and(|transfer| transfer.done_cycle > now);
        if self.holds_requests() || transferring {
            self.stats.active_cycles += 1;
        }
        if self.queued_len >= self.queue_capacity {
            self.stats.queue_full_cycles += 1;
        }
        self.next_unaccounted_cycle = now + 1;
    }

    fn holds_requests(&self) -> bool {
        self.queued_len > 0 || self.held_banks.count() > 0
    }

    /// Whether some bank with queued requests holds none (FR-FCFS).
    fn free_bank_has_queue(&self) -> bool {
        (0..self.queued_banks.n_words()).any(|w| self.queued_banks.word(w) & !self.held_banks.word(w) != 0)
    }

    /// Moves the oldest request whose data is done by `now` into the return
    /// queue, if it has room (GPGPU-Sim pops its read/write pipeline once a
    /// clock, and not while the return queue is full).
    fn return_one(&mut self, now: u64) {
        if self.returned.len() >= self.return_capacity {
            return;
        }
        if let Some(front) = self.in_flight.front()
            && front.done_cycle <= now
            && let Some(done) = self.in_flight.pop_front()
        {
            self.returned.push_back(done.completion);
        }
    }

    /// Whether `schedule` would hand some free bank a request.
    fn can_schedule(&self) -> bool {
        match self.scheduler {
            DramScheduler::Fifo => {
                self.fifo_queue.front().is_some_and(|front| self.banks[front.request.bank as usize].held.is_none())
            }
            DramScheduler::FrFcfs => self.free_bank_has_queue(),
        }
    }

    /// Hands at most one request to a free bank. FIFO moves the head of its
    /// single queue when the head's bank is free (head-of-line blocking, as
    /// GPGPU-Sim's `scheduler_fifo`); FR-FCFS gives the first free bank with
    /// queued requests, from the priority bank on, its pick, and moves the
    /// priority on by one (`scheduler_frfcfs`).
    fn schedule(&mut self) {
        match self.scheduler {
            DramScheduler::Fifo => {
                let Some(front) = self.fifo_queue.front() else { return };
                let bank_index = front.request.bank as usize;
                if self.banks[bank_index].held.is_some() {
                    return;
                }
                let Some(queued) = self.fifo_queue.pop_front() else { return };
                let bank = &self.banks[bank_index];
                let hit = bank.active && bank.row == queued.request.row;
                self.hand_over(bank_index, queued, hit);
            }
            DramScheduler::FrFcfs => {
                if !self.free_bank_has_queue() {
                    return;
                }
                let n_banks = self.banks.len();
                // The banks from the priority bank on, visiting only those with a queue.
                let mut step = 0;
                while let Some((bank_index, at)) = self.queued_banks.next_in_scan(self.priority_bank, step) {
                    step = at + 1;
                    if self.held_banks.contains(bank_index) {
                        continue;
                    }
                    let bank = &mut self.banks[bank_index];
                    let Some((index, hit)) = bank.pick_frfcfs() else { continue };
                    let queued = bank.queue.remove(index);
                    if bank.queue.is_empty() {
                        self.queued_banks.remove(bank_index);
                    }
                    self.priority_bank = (self.priority_bank + 1) % n_banks;
                    self.hand_over(bank_index, queued, hit);
                    return;
                }
            }
        }
    }

    fn hand_over(&mut self, bank_index: usize, queued: QueuedRequest, hit: bool) {
        self.no_command_before = 0;
        self.queued_len -= 1;
        self.stats.requests += 1;
        self.stats.row_hits += u64::from(hit);
        let bursts_left = queued.request.bursts;
        self.banks[bank_index].held = Some(HeldRequest { queued, bursts_left, first_command_cycle: None });
        self.held_banks.insert(bank_index);
    }

    /// The earliest cycle bank `bank_index`'s held request may issue its next
    /// command, by every timing rule (`None`: it holds nothing).
    fn next_command_cycle(&self, bank_index: usize) -> Option<u64> {
        let bank = &self.banks[bank_index];
        let held = bank.held?;
        let group = &self.bank_groups[self.group_of(bank_index)];
        let request = held.queued.request;
        Some(match (bank.active, bank.row == request.row) {
            (false, _) => bank.activate_ready_cycle.max(self.activate_ready_cycle),
            (true, false) => bank.precharge_ready_cycle.max(group.precharge_ready_cycle),
            (true, true) if self.returned.len() >= self.return_capacity => return None,
            (true, true) => {
                let (bank_ready, direction_ready) = if request.is_write {
                    (bank.write_ready_cycle, self.write_ready_cycle)
                } else {
                    (bank.read_ready_cycle, self.read_ready_cycle)
                };
                bank_ready.max(direction_ready).max(self.column_ready_cycle).max(group.column_ready_cycle)
            }
        })
    }

    /// Whether bank `bank_index`'s next command is a column command that may issue at `now`.
    fn column_ready(&self, bank_index: usize, now: u64) -> bool {
        let bank = &self.banks[bank_index];
        bank.held.is_some_and(|held| bank.active && bank.row == held.queued.request.row)
            && self.next_command_cycle(bank_index).is_some_and(|ready| ready <= now)
    }

    /// Whether bank `bank_index`'s next command is a row command that may issue at `now`.
    fn row_ready(&self, bank_index: usize, now: u64) -> bool {
        let bank = &self.banks[bank_index];
        bank.held.is_some_and(|held| !bank.active || bank.row != held.queued.request.row)
            && self.next_command_cycle(bank_index).is_some_and(|ready| ready <= now)
    }

    fn group_of(&self, bank_index: usize) -> usize {
        self.group_of_bank[bank_index]
    }

    /// The bank a request with the address's bank bits `bank` and row `row`
    /// goes to, by `-dram_bnk_indexing_policy` (GPGPU-Sim's `dram_req_t`).
    fn bank_of(&self, bank: u32, row: u32) -> usize {
        let n_banks = self.banks.len() as u32;
        let hashed = match self.bank_indexing {
            BankIndexing::Linear => bank,
            BankIndexing::XorRow => bank ^ (row & (n_banks - 1)),
            BankIndexing::Ipoly => ipoly_hash(u64::from(row), bank, n_banks),
        };
        (hashed % n_banks) as usize
    }

    /// Issues this cycle's commands, scanning the banks from the priority
    /// bank as GPGPU-Sim's `dram_t::cycle` does (see the module doc).
    fn issue_commands(&mut self, now: u64) {
        if self.held_banks.count() == 0 || now < self.no_command_before {
            return;
        }
        if !self.scan_for_commands(now) {
            // A scan that issues nothing changes nothing: until some held
            // request's next command is due, the scans would issue nothing.
            self.no_command_before = self.earliest_command();
        }
    }

    /// The earliest cycle any held request may issue its next command
    /// (`u64::MAX`: none may, as when the return queue is full).
    fn earliest_command(&self) -> u64 {
        let mut earliest = u64::MAX;
        self.held_banks.for_each(|bank_index| {
            earliest = earliest.min(self.next_command_cycle(bank_index).unwrap_or(u64::MAX));
        });
        earliest
    }

    /// The scans of [`DramChannel::issue_commands`]; returns whether a command issued.
    fn scan_for_commands(&mut self, now: u64) -> bool {
        // Both kinds of command need a held request: the scans visit only
        // the banks holding one ([`BitSet::next_in_scan`]).
        if self.dual_bus_interface {
            let column = self.first_held(|b| self.column_ready(b, now));
            if let Some(bank_index) = column {
                self.column(bank_index, now);
            }
            let row = self.first_held(|b| self.row_ready(b, now));
            if let Some(bank_index) = row {
                self.row_command(bank_index, now);
            }
            return column.is_some() || row.is_some();
        }
        // One command bus: GPGPU-Sim re-reads the priority at every step of
        // the scan, so a row command moves the rest of the scan with it.
        let (mut issued_column, mut issued_row) = (false, false);
        let mut step = 0;
        while let Some((bank_index, at)) = self.held_banks.next_in_scan(self.priority_bank, step) {
            step = at + 1;
            if issued_column {
                // Nothing further can issue in this scan.
                break;
            }
            if self.column_ready(bank_index, now) {
                self.column(bank_index, now);
                issued_column = true;
            }
            if !issued_column && !issued_row && self.row_ready(bank_index, now) {
                self.row_command(bank_index, now);
                issued_row = true;
            }
        }
        issued_column || issued_row
    }

    /// The first bank holding a request, from the priority bank on, that is `ready`.
    fn first_held(&self, ready: impl Fn(usize) -> bool) -> Option<usize> {
        let mut step = 0;
        while let Some((bank_index, at)) = self.held_banks.next_in_scan(self.priority_bank, step) {
            if ready(bank_index) {
                return Some(bank_index);
            }
            step = at + 1;
        }
        None
    }

    fn note_first_command(&mut self, bank_index: usize, now: u64) {
        if let Some(held) = &mut self.banks[bank_index].held {
            held.first_command_cycle.get_or_insert(now);
        }
    }

    /// An activate (closed bank) or a precharge (another row open).
    fn row_command(&mut self, bank_index: usize, now: u64) {
        self.note_first_command(bank_index, now);
        let timing = self.timing;
        let bank = &mut self.banks[bank_index];
        if bank.active {
            bank.active = false;
            bank.activate_ready_cycle = bank.activate_ready_cycle.max(now + timing.t_rp_cycles);
            self.stats.precharges += 1;
        } else {
            bank.row = bank.held.map_or(bank.row, |held| held.queued.request.row);
            bank.active = true;
            bank.read_ready_cycle = now + timing.t_rcd_cycles;
            bank.write_ready_cycle = now + timing.t_rcd_write_cycles;
            bank.precharge_ready_cycle = bank.precharge_ready_cycle.max(now + timing.t_ras_cycles);
            bank.activate_ready_cycle = bank.activate_ready_cycle.max(now + timing.t_rc_cycles);
            self.activate_ready_cycle = now + timing.t_rrd_cycles;
            self.stats.activates += 1;
        }
        self.priority_bank = (bank_index + 1) % self.banks.len();
    }

    fn column(&mut self, bank_index: usize, now: u64) {
        self.note_first_command(bank_index, now);
        let timing = self.timing;
        let group_index = self.group_of(bank_index);
        let bank = &mut self.banks[bank_index];
        let Some(mut held) = bank.held.take() else { return };
        let is_write = held.queued.request.is_write;
        let latency = if is_write {
            bank.precharge_ready_cycle = bank.precharge_ready_cycle.max(now + timing.write_to_precharge_cycles);
            self.read_ready_cycle = self.read_ready_cycle.max(now + timing.write_to_read_cycles);
            self.stats.writes += 1;
            timing.write_latency_cycles
        } else {
            bank.precharge_ready_cycle = bank.precharge_ready_cycle.max(now + timing.burst_cycles);
            let group = &mut self.bank_groups[group_index];
            group.precharge_ready_cycle = group.precharge_ready_cycle.max(now + timing.read_to_precharge_group_cycles);
            self.write_ready_cycle = self.write_ready_cycle.max(now + timing.read_to_write_cycles);
            self.stats.reads += 1;
            timing.read_latency_cycles
        };
        self.column_ready_cycle = now + timing.t_ccd_cycles;
        self.bank_groups[group_index].column_ready_cycle = now + timing.t_ccdl_cycles;
        self.stats.data_bus_busy_cycles += timing.burst_cycles;
        held.bursts_left -= 1;
        if held.bursts_left > 0 {
            self.banks[bank_index].held = Some(held);
            return;
        }
        self.held_banks.remove(bank_index);
        // The pipeline returns data in issue order.
        let done_cycle = self.in_flight.back().map_or(0, |last| last.done_cycle).max(now + latency);
        let first_command_cycle = held.first_command_cycle.unwrap_or(now);
        let completion = DramCompletion {
            tag: held.queued.request.tag,
            is_write,
            queued_cycles: first_command_cycle.saturating_sub(held.queued.pushed_cycle),
            service_cycles: done_cycle - first_command_cycle,
        };
        self.stats.total_queued_cycles += completion.queued_cycles;
        self.stats.total_service_cycles += completion.service_cycles;
        self.in_flight.push_back(InFlight { completion, done_cycle });
    }
}

impl AddAssign<&DramStats> for DramStats {
    fn add_assign(&mut self, other: &DramStats) {
        self.reads += other.reads;
        self.writes += other.writes;
        self.requests += other.requests;
        self.row_hits += other.row_hits;
        self.activates += other.activates;
        self.precharges += other.precharges;
        self.data_bus_busy_cycles += other.data_bus_busy_cycles;
        self.active_cycles += other.active_cycles;
        self.queue_full_cycles += other.queue_full_cycles;
        // The longest queue of any channel merged: a maximum, not a sum.
        self.max_queue_len = self.max_queue_len.max(other.max_queue_len);
        self.overflow_pushes += other.overflow_pushes;
        self.total_queued_cycles += other.total_queued_cycles;
        self.total_service_cycles += other.total_service_cycles;
    }
}

impl AddAssign for DramStats {
    fn add_assign(&mut self, other: DramStats) {
        *self += &other;
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use warplab_config::{BankGroupIndexing, DramConfig};

    use super::*;

    /// More command clocks than any test stream needs; a driver stuck longer is a bug.
    const CYCLE_LIMIT: u64 = 1_000_000;

    fn preset_dram(name: &str) -> DramConfig {
        warplab_config::preset(name).unwrap().config().unwrap().dram
    }

    fn read(tag: u32, bank: u32, row: u32) -> DramRequest {
        DramRequest { tag, bank, row, column: tag, is_write: false, bursts: 1 }
    }

    fn write(tag: u32, bank: u32, row: u32) -> DramRequest {
        DramRequest { is_write: true, ..read(tag, bank, row) }
    }

    /// `burst_length / data_command_freq_ratio`: command clocks of one burst.
    fn burst_cycles(config: &DramConfig) -> u64 {
        u64::from(config.burst_length / config.data_command_freq_ratio)
    }

    /// Runs `requests` (arrival cycle, request; sorted by arrival) to the end,
    /// as the memory partition does: each visited cycle, `cycle(now)`, take
    /// every returned request, then push what has arrived while there is
    /// room. With `skip`, it visits only the cycles that `next_event` and the
    /// arrivals name; else every cycle. Returns (cycle taken, completion) in
    /// order, and the stats.
    fn drive(
        config: &DramConfig,
        requests: &[(u64, DramRequest)],
        skip: bool,
    ) -> (Vec<(u64, DramCompletion)>, DramStats) {
        drive_scanning(config, requests, skip, false)
    }

    /// Pushes the requests of `pending` that have arrived by `now`, in order,
    /// while the channel accepts them.
    fn push_arrived(channel: &mut DramChannel, pending: &mut VecDeque<(u64, DramRequest)>, now: u64) {
        while let Some(&(arrival, request)) = pending.front()
            && arrival <= now
            && channel.can_accept()
        {
            channel.push(request, now);
            pending.pop_front();
        }
    }

    /// [`drive`]; with `scan_always`, the channel forgets before every cycle
    /// when its next command can come, so it scans its banks each cycle.
    fn drive_scanning(
        config: &DramConfig,
        requests: &[(u64, DramRequest)],
        skip: bool,
        scan_always: bool,
    ) -> (Vec<(u64, DramCompletion)>, DramStats) {
        let mut channel = DramChannel::new(config);
        let mut pending: VecDeque<(u64, DramRequest)> = requests.iter().copied().collect();
        let mut completions = Vec::new();
        let mut now = 0;
        while now < CYCLE_LIMIT {
            if scan_always {
                channel.no_command_before = 0;
            }
            channel.cycle(now);
            while let Some(completion) = channel.pop_completed() {
                completions.push((now, completion));
            }
            push_arrived(&mut channel, &mut pending, now);
            if pending.is_empty() && channel.is_idle() {
                break;
            }
            now = if skip {
                let arrival = pending.front().map(|&(arrival, _)| arrival).filter(|&arrival| arrival > now);
                [channel.next_event(), arrival].into_iter().flatten().min().unwrap_or(now + 1)
            } else {
                now + 1
            };
        }
        assert!(now < CYCLE_LIMIT, "the channel never drained");
        (completions, channel.stats().clone())
    }

    /// The stats after every cycle of `requests`, each cycle run, or with
    /// `passing` passed over ([`DramChannel::pass`]) while no event is due,
    /// as the memory side passes over a waiting channel.
    fn stats_by_cycle(config: &DramConfig, requests: &[(u64, DramRequest)], passing: bool) -> Vec<DramStats> {
        let mut channel = DramChannel::new(config);
        let mut pending: VecDeque<(u64, DramRequest)> = requests.iter().copied().collect();
        let mut by_cycle = Vec::new();
        for now in 0..CYCLE_LIMIT {
            if passing && channel.next_event().is_none_or(|next| now < next) {
                channel.pass(now);
            } else {
                channel.cycle(now);
            }
            while channel.pop_completed().is_some() {}
            push_arrived(&mut channel, &mut pending, now);
            by_cycle.push(channel.stats().clone());
            if pending.is_empty() && channel.is_idle() {
                break;
            }
        }
        by_cycle
    }

    /// Runs `requests` cycle by cycle and expects (tag, cycle its data is back)
    /// in completion order; the skipping driver must agree exactly.
    fn check(config: &DramConfig, requests: &[(u64, DramRequest)], expect: &[(u32, u64)]) -> DramStats {
        let (completions, stats) = drive(config, requests, false);
        let got: Vec<(u32, u64)> = completions.iter().map(|(cycle, completion)| (completion.tag, *cycle)).collect();
        assert_eq!(got, expect);
        assert_eq!(drive(config, requests, true), (completions.clone(), stats.clone()), "skipping changed the outcome");
        let scanning = drive_scanning(config, requests, false, true);
        assert_eq!(scanning, (completions, stats.clone()), "passing over the scans changed the outcome");
        stats
    }

    #[test]
    fn a_request_handed_to_a_free_bank_does_not_wait_for_another_banks_command() {
        // Bank 0's second read needs a precharge, due only tRAS after its
        // activate: a scan finds nothing to issue until then. Bank 1's read,
        // handed over meanwhile, may activate at once and finishes first.
        let config = preset_dram("QV100");
        let requests = [(0, read(1, 0, 0)), (1, read(2, 0, 1)), (4, read(3, 1, 0))];
        let (completions, _) = drive(&config, &requests, false);
        let order: Vec<u32> = completions.iter().map(|(_, completion)| completion.tag).collect();
        assert_eq!(order, [1, 3, 2]);
        assert_eq!(drive_scanning(&config, &requests, false, true).0, completions);
    }

    #[test]
    fn a_read_to_a_closed_bank_pays_activate_and_cas() {
        for name in ["QV100", "mdm-pascal-28sm"] {
            let config = preset_dram(name);
            let t = config.timing;
            // Pushed after cycle 0's step; at 1 the scheduler hands it to its
            // bank and the bank activates; the read follows tRCD later and its
            // data is back CL after that.
            let done = 1 + u64::from(t.t_rcd + t.cl);
            let stats = check(&config, &[(0, read(7, 3, 5))], &[(7, done)]);
            assert_eq!((stats.reads, stats.activates, stats.requests, stats.precharges), (1, 1, 1, 0), "{name}");
            assert_eq!((stats.total_queued_cycles, stats.total_service_cycles), (1, done - 1), "{name}");
            assert_eq!(stats.data_bus_busy_cycles, burst_cycles(&config), "{name}");
        }
    }

    #[test]
    fn a_line_request_issues_one_column_command_per_access() {
        // A 128-B fill on a 32-B channel: four reads, tCCD (and tCCDL: one bank
        // is one bank group) apart; done CL after the last.
        let config = preset_dram("mdm-pascal-28sm");
        let t = config.timing;
        let first_column = 1 + u64::from(t.t_rcd);
        let gap = u64::from(t.t_ccd.max(t.t_ccdl)).max(1);
        let done = first_column + 3 * gap + u64::from(t.cl);
        let request = DramRequest { bursts: 4, ..read(1, 2, 9) };
        let stats = check(&config, &[(0, request)], &[(1, done)]);
        assert_eq!((stats.reads, stats.requests, stats.activates), (4, 1, 1));
    }

    #[test]
    fn a_write_to_a_closed_bank_uses_the_write_timings() {
        let config = preset_dram("QV100");
        let t = config.timing;
        // GPGPU-Sim's tRCDWR = tRCD - (WL + 1); the data follows WL after the command.
        let t_rcd_write = u64::from(t.t_rcd - (t.wl + 1));
        let done = 1 + t_rcd_write + u64::from(t.wl);
        let stats = check(&config, &[(0, write(1, 0, 0))], &[(1, done)]);
        assert_eq!((stats.reads, stats.writes, stats.activates), (0, 1, 1));
    }

    #[test]
    fn a_read_to_the_open_row_is_a_row_hit() {
        for name in ["QV100", "mdm-pascal-28sm"] {
            let config = preset_dram(name);
            let t = config.timing;
            let first_column = 1 + u64::from(t.t_rcd);
            // The second request reaches the bank the cycle after the first
            // one's column command (the bank is busy until then), then waits
            // for tCCD and tCCDL (same bank group).
            let second_column = first_column + 1.max(u64::from(t.t_ccd)).max(u64::from(t.t_ccdl));
            // A read long after, to the row still open: no activate, only CL.
            let late = 1_000;
            let requests = [(0, read(1, 2, 9)), (0, read(2, 2, 9)), (late, read(3, 2, 9))];
            let expect = [
                (1, first_column + u64::from(t.cl)),
                (2, second_column + u64::from(t.cl)),
                (3, late + 1 + u64::from(t.cl)),
            ];
            let stats = check(&config, &requests, &expect);
            assert_eq!((stats.reads, stats.activates, stats.requests, stats.row_hits), (3, 1, 3, 2), "{name}");
        }
    }

    #[test]
    fn a_read_to_another_row_of_the_bank_precharges_and_activates() {
        for name in ["QV100", "mdm-pascal-28sm"] {
            let config = preset_dram(name);
            let t = config.timing;
            let burst = burst_cycles(&config);
            let first_column = 1 + u64::from(t.t_rcd);
            // The precharge waits for tRAS after the activate at 1, the read's
            // burst (read to precharge), tRTPL in the bank group, and the second
            // request reaching the bank the cycle after the first read.
            let precharge = (1 + u64::from(t.t_ras))
                .max(first_column + burst)
                .max(first_column + u64::from(t.t_rtpl))
                .max(first_column + 1);
            // The activate waits tRP after the precharge and tRC after the first activate.
            let activate = (precharge + u64::from(t.t_rp)).max(1 + u64::from(t.t_rc));
            let second_done = activate + u64::from(t.t_rcd + t.cl);
            let expect = [(1, first_column + u64::from(t.cl)), (2, second_done)];
            let stats = check(&config, &[(0, read(1, 4, 1)), (0, read(2, 4, 2))], &expect);
            assert_eq!((stats.activates, stats.precharges, stats.row_hits), (2, 1, 0), "{name}");
        }
    }

    #[test]
    fn fr_fcfs_drains_the_open_row_before_an_older_row_miss() {
        let mut config = preset_dram("mdm-pascal-28sm");
        let t = config.timing;
        let burst = burst_cycles(&config);
        let first_done = 1 + u64::from(t.t_rcd + t.cl);
        // Row 1 is open from request 1; request 2 (row 2) is older than request 3 (row 1).
        let requests = [(0, read(1, 0, 1)), (100, read(2, 0, 2)), (100, read(3, 0, 1))];

        config.scheduler = DramScheduler::FrFcfs;
        let hit_done = 101 + u64::from(t.cl);
        // The miss reaches the bank the cycle after the hit's column command and
        // precharges once the hit's burst and tRTPL allow (tRAS and tRC are long past).
        let precharge = 101 + 1.max(burst).max(u64::from(t.t_rtpl));
        let miss_done = precharge + u64::from(t.t_rp + t.t_rcd + t.cl);
        let stats = check(&config, &requests, &[(1, first_done), (3, hit_done), (2, miss_done)]);
        assert_eq!((stats.requests, stats.row_hits), (3, 1));

        config.scheduler = DramScheduler::Fifo;
        let (completions, stats) = drive(&config, &requests, false);
        let order: Vec<u32> = completions.iter().map(|(_, completion)| completion.tag).collect();
        assert_eq!(order, [1, 2, 3], "FIFO serves the older miss first");
        // The miss precharges at 101; request 3 then needs row 1 opened again.
        assert_eq!((stats.row_hits, stats.activates, stats.precharges), (0, 3, 2));
        assert_eq!(completions[1].0, 101 + u64::from(t.t_rp + t.t_rcd + t.cl));
    }

    #[test]
    fn the_bank_group_policy_decides_which_banks_share_tccdl() {
        // Row hits to banks 0, 1, 2, 3 in turn: with the low-bit policy they
        // are in four different groups, so only tCCD (1) spaces the reads;
        // with the high-bit policy all four are in group 0 and tCCDL (2) does.
        let mut config = preset_dram("QV100");
        assert!(config.timing.t_ccdl > config.timing.t_ccd);
        let requests: Vec<(u64, DramRequest)> = (0..64).map(|tag| (0, read(tag, tag % 4, 1))).collect();
        let span = |config: &DramConfig| {
            let (completions, stats) = drive(config, &requests, false);
            assert_eq!(stats.reads, 64);
            completions.last().unwrap().0 - completions.first().unwrap().0
        };
        config.bank_group_indexing = BankGroupIndexing::LowBits;
        let low = span(&config);
        config.bank_group_indexing = BankGroupIndexing::HighBits;
        let high = span(&config);
        assert!(low + 50 < high, "low bits {low} cycles, high bits {high}");
    }

    #[test]
    fn bank_indexing_hashes_the_row_into_the_bank() {
        let mut config = preset_dram("QV100");
        let channel = |config: &DramConfig| DramChannel::new(config);
        config.bank_indexing = BankIndexing::Linear;
        assert_eq!(channel(&config).bank_of(3, 5), 3);
        config.bank_indexing = BankIndexing::XorRow;
        assert_eq!(channel(&config).bank_of(3, 5), 3 ^ 5);
        assert_eq!(channel(&config).bank_of(3, 0x15), 3 ^ 5, "only the row's low bits");
        config.bank_indexing = BankIndexing::Ipoly;
        assert_eq!(channel(&config).bank_of(3, 0), 3, "no row bits, no change");
        assert_ne!(channel(&config).bank_of(3, 1), 3);
    }

    #[test]
    fn row_hit_reads_across_bank_groups_keep_the_column_bus_busy() {
        for name in ["QV100", "mdm-pascal-28sm"] {
            let config = preset_dram(name);
            let n_banks = config.timing.n_banks;
            let requests: Vec<(u64, DramRequest)> = (0..8_192).map(|tag| (0, read(tag, tag % n_banks, 3))).collect();
            let (completions, stats) = drive(&config, &requests, false);
            assert_eq!(completions.len(), requests.len());
            assert_eq!(stats.activates, u64::from(n_banks), "{name}: one activate per bank, then all row hits");
            // Peak bandwidth is bytes_per_clock = bus width x chips x ratio; one
            // burst of burst_length / ratio clocks moves access_bytes at that rate.
            let bytes_moved = stats.data_bus_busy_cycles * u64::from(config.bytes_per_clock());
            assert_eq!(bytes_moved, stats.reads * u64::from(config.access_bytes()), "{name}");
            // busy / active >= 90%, in integers (the queue refills one request a cycle).
            assert!(
                stats.data_bus_busy_cycles * 100 >= stats.active_cycles * 90,
                "{name}: bus busy {} of {} active cycles",
                stats.data_bus_busy_cycles,
                stats.active_cycles
            );
        }
    }

    #[test]
    fn a_full_queue_refuses_pushes_and_counts_overflows() {
        let mut config = preset_dram("QV100");
        let mut channel = DramChannel::new(&config);
        let capacity = config.scheduler_queue_entries as usize;
        assert_eq!(channel.queue_capacity(), capacity);
        for tag in 0..capacity as u32 {
            assert!(channel.can_accept());
            channel.push(read(tag, 0, tag), 0);
        }
        assert!(!channel.can_accept());
        channel.push(read(999, 0, 0), 0);
        assert_eq!((channel.queue_len(), channel.stats().overflow_pushes), (capacity + 1, 1));
        assert_eq!(channel.stats().max_queue_len, capacity as u64 + 1);
        // Cycle 1 hands one request to bank 0, but the queue is still over its bound.
        channel.cycle(1);
        assert!(!channel.can_accept());
        assert_eq!(channel.stats().queue_full_cycles, 2, "cycles 0 and 1");

        config.scheduler_queue_entries = 0;
        assert_eq!(DramChannel::new(&config).queue_capacity(), UNBOUNDED_QUEUE_ENTRIES);
        config.scheduler = DramScheduler::Fifo;
        assert_eq!(DramChannel::new(&config).queue_capacity(), FIFO_QUEUE_ENTRIES);
    }

    #[test]
    fn stats_count_reads_writes_row_hits_and_activates() {
        let config = preset_dram("QV100");
        // Bank 0: read row 1, write row 1 (hit), read row 2 (miss). Bank 1: write row 1.
        let requests = [(0, read(1, 0, 1)), (0, write(2, 0, 1)), (0, read(3, 0, 2)), (5, write(4, 1, 1))];
        let (completions, stats) = drive(&config, &requests, false);
        assert_eq!(completions.len(), 4);
        assert_eq!(completions.iter().filter(|(_, completion)| completion.is_write).count(), 2);
        assert_eq!((stats.reads, stats.writes, stats.activates, stats.precharges), (2, 2, 3, 1));
        // Bank 1's request finds row 0 (its `curr_row` before any activate)
        // wanted by nobody, so it is a miss; bank 0's second is a hit.
        assert_eq!((stats.requests, stats.row_hits), (4, 1));
        assert_eq!(stats.data_bus_busy_cycles, 4 * burst_cycles(&config));
        let queued: u64 = completions.iter().map(|(_, completion)| completion.queued_cycles).sum();
        assert_eq!(stats.total_queued_cycles, queued);

        let mut merged = stats.clone();
        merged += &stats;
        assert_eq!((merged.reads, merged.activates, merged.max_queue_len), (4, 6, stats.max_queue_len));
    }

    #[test]
    fn an_idle_channel_has_no_event() {
        let config = preset_dram("QV100");
        let mut channel = DramChannel::new(&config);
        assert!(channel.is_idle());
        assert_eq!(channel.next_event(), None);
        channel.push(read(1, 40, 0), 10);
        assert_eq!(channel.next_event(), Some(11), "a push reaches a bank the next cycle");
        assert!(!channel.is_idle());
        // Cycle 11 schedules and activates; nothing can happen until tRCD has passed.
        channel.cycle(11);
        channel.cycle(11);
        assert_eq!(channel.stats().activates, 1, "a repeated cycle does nothing");
        let column = 11 + u64::from(config.timing.t_rcd);
        assert_eq!(channel.next_event(), Some(column));
        channel.cycle(column);
        // Then only the data's return is left.
        let done = column + u64::from(config.timing.cl);
        assert_eq!(channel.next_event(), Some(done));
        channel.cycle(done - 1);
        assert_eq!(channel.pop_completed(), None);
        channel.cycle(done);
        assert_eq!(channel.pop_completed().map(|completion| completion.tag), Some(1));
        assert!(channel.is_idle());
        assert_eq!(channel.next_event(), None);
    }

    fn arb_stream() -> impl Strategy<Value = Vec<(u64, DramRequest)>> {
        prop::collection::vec((0u64..12, 0u32..20, 0u32..4, any::<bool>(), 1u32..5), 1..150).prop_map(|items| {
            let mut arrival = 0;
            let mut tag = 0;
            items
                .into_iter()
                .map(|(gap, bank, row, is_write, bursts)| {
                    arrival += gap;
                    tag += 1;
                    (arrival, DramRequest { tag, bank, row, column: 0, is_write, bursts })
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn skipping_to_next_event_matches_ticking_every_cycle(
            requests in arb_stream(),
            pascal in any::<bool>(),
            fr_fcfs in any::<bool>(),
            dual_bus in any::<bool>(),
            queue_entries in 0u32..12,
            return_entries in 0u32..4,
            high_bits in any::<bool>(),
        ) {
            let mut config = preset_dram(if pascal { "mdm-pascal-28sm" } else { "QV100" });
            config.scheduler = if fr_fcfs { DramScheduler::FrFcfs } else { DramScheduler::Fifo };
            config.dual_bus_interface = dual_bus;
            config.scheduler_queue_entries = queue_entries;
            config.return_queue_entries = return_entries;
            config.bank_group_indexing = if high_bits { BankGroupIndexing::HighBits } else { BankGroupIndexing::LowBits };
            let every_cycle = drive(&config, &requests, false);
            prop_assert_eq!(every_cycle.0.len(), requests.len());
            prop_assert_eq!(drive(&config, &requests, true), every_cycle.clone());
            // Passing over the scans until a command is due changes nothing.
            prop_assert_eq!(drive_scanning(&config, &requests, false, true), every_cycle);
            // Nor does passing over the cycles before the next event, counted
            // as they pass: the stats agree at every cycle, not only at the end.
            prop_assert_eq!(stats_by_cycle(&config, &requests, true), stats_by_cycle(&config, &requests, false));
        }
    }
}
