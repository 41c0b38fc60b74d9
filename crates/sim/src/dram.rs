//! One DRAM channel, advanced at the DRAM command clock, after GPGPU-Sim's DRAM model.
//!
//! The channel holds a bounded request queue, one request at a time per bank
//! (GPGPU-Sim's "bank holds an `mrq`" structure), the per-bank timers of a
//! DDR-style DRAM, and a data bus. Each command clock the scheduler hands every
//! free bank its next request (FR-FCFS: the oldest row-buffer hit first, else
//! the oldest; FCFS: the head of one queue only), then the channel issues at most
//! one command (or, with `dual_bus_interface`, one row and one column command,
//! as HBM's separate row and column buses allow).
//!
//! All times are absolute DRAM command cycles (`u64`), and every timing rule is
//! kept as "the earliest cycle at which this may happen" rather than a counter
//! ticking down. That is what lets [`DramChannel::next_event`] say exactly when
//! the next command can go, so a driver may skip the clocks in between and get
//! the same completions at the same cycles as one that ticks every clock.
//!
//! Timing rules (all from the config's `-gpgpu_dram_timing_opt`, in command clocks;
//! `burst = burst_length / data_command_freq_ratio`):
//! - activate → column read: tRCD; activate → column write: tRCDWR = tRCD − (WL + 1)
//!   (GPGPU-Sim's derived value, floored at 0);
//! - activate → activate, same bank: tRC; precharge → activate: tRP;
//!   activate → activate, any two banks: tRRD;
//! - activate → precharge: tRAS; read → precharge: `burst` in the bank and tRTPL
//!   in its bank group; write → precharge: tWTP = WL + burst + tWR;
//! - column → column: tCCD in the channel, tCCDL in the bank group;
//! - read → write: tRTW = CL + burst + 2 − WL; write → read: tWTR = WL + burst + tCDLR;
//! - data bus: a read's data starts CL cycles after its command (WL for a write)
//!   and holds the bus for `burst` cycles; no two bursts overlap. GPGPU-Sim leaves
//!   this to tCCD; it only binds here when a config sets tCCD below `burst`.
//!
//! A request is one whole access of [`DramConfig::access_bytes`] bytes: one
//! column command and one burst. The L2 sends 32-byte sector requests; when a
//! config's access is larger than 32 bytes the request still takes exactly one
//! burst (the extra bytes are simply not used), as GPGPU-Sim does for a request
//! no larger than its access size.
//!
//! Left out from GPGPU-Sim: refresh (GPGPU-Sim has none either), the separate
//! write queue with its watermarks, bank-index hashing (the caller passes the
//! bank), the return queue (the memory partition owns it: it calls
//! [`DramChannel::pop_completed`] only when it has room), and the read/write
//! pipeline's length limit of CL + 1 commands (the data-bus rule bounds the
//! commands in flight similarly).

use std::collections::VecDeque;
use std::ops::AddAssign;

use serde::{Deserialize, Serialize};
use warplab_config::{DramConfig, DramScheduler};

/// The request-queue bound used when `-gpgpu_frfcfs_dram_sched_queue_size` is 0.
///
/// GPGPU-Sim treats 0 as unlimited; a bound keeps memory finite. 65,536 is also
/// the largest size the config accepts, so no finite setting is more generous.
pub const UNBOUNDED_QUEUE_ENTRIES: usize = 65_536;

/// One access sent to the channel: which bank, row and column it touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DramRequest {
    /// Opaque to the channel; returned in the request's [`DramCompletion`].
    pub tag: u32,
    /// The bank within the channel; taken modulo the config's bank count, so an
    /// out-of-range bank never panics.
    pub bank: u32,
    /// The row within the bank.
    pub row: u32,
    /// The column within the row; it does not affect timing (one access is one burst).
    pub column: u32,
    /// A write (true) or a read (false).
    pub is_write: bool,
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
    /// Cycles from that first command to the end of the request's data burst.
    pub service_cycles: u64,
}

/// Counters of one DRAM channel; they merge with `+=` across channels or launches.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DramStats {
    /// Read column commands issued (one per read request served).
    pub reads: u64,
    /// Write column commands issued (one per write request served).
    pub writes: u64,
    /// Requests served without an activate of their own: their row was already open.
    pub row_hits: u64,
    /// Activate commands issued.
    pub activates: u64,
    /// Precharge commands issued (each one closes a row for a row miss).
    pub precharges: u64,
    /// Command clocks during which the data bus carried a burst
    /// (`burst_length / data_command_freq_ratio` per request).
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

/// One DRAM channel: request queue, banks, timing state and data bus.
#[derive(Debug, Clone)]
pub struct DramChannel {
    timing: ChannelTiming,
    scheduler: DramScheduler,
    dual_bus_interface: bool,
    /// Requests queued before they reach a bank may not exceed this (see `push`).
    queue_capacity: usize,
    /// FCFS: the one queue, oldest first. Unused by FR-FCFS, which queues per bank.
    fifo_queue: VecDeque<QueuedRequest>,
    /// Invariant: equals `fifo_queue.len()` or the sum of the banks' queue lengths.
    queued_len: usize,
    /// Indexed by bank.
    banks: Vec<Bank>,
    /// Indexed by bank group.
    bank_groups: Vec<BankGroup>,
    banks_per_group: usize,
    /// The bank that the command scan starts from; it rotates past each bank
    /// that issues, so no bank starves.
    priority_bank: usize,
    /// Earliest cycle of the next column command of any bank (tCCD).
    column_ready_cycle: u64,
    /// Earliest cycle of the next activate of any bank (tRRD).
    activate_ready_cycle: u64,
    /// Earliest cycle of the next read command (write → read turnaround).
    read_ready_cycle: u64,
    /// Earliest cycle of the next write command (read → write turnaround).
    write_ready_cycle: u64,
    /// The cycle at which the data bus finishes its last scheduled burst.
    data_bus_free_cycle: u64,
    /// Requests whose column command has issued, in order of their data's end.
    /// Invariant: `done_cycle` never decreases along the queue, because bursts
    /// are issued in order and never overlap.
    in_flight: VecDeque<InFlight>,
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

/// The request a bank is serving, from its first command to its column command.
#[derive(Debug, Clone, Copy)]
struct HeldRequest {
    queued: QueuedRequest,
    first_command_cycle: Option<u64>,
    /// Set when the channel activated a row for this request: not a row hit.
    needed_activate: bool,
}

#[derive(Debug, Clone)]
struct Bank {
    /// The open row, or `None` when the bank is precharged.
    open_row: Option<u32>,
    /// tRP after a precharge, tRC after an activate.
    activate_ready_cycle: u64,
    /// tRCD after an activate.
    read_ready_cycle: u64,
    /// tRCDWR after an activate.
    write_ready_cycle: u64,
    /// tRAS after an activate, tWTP after a write, the burst after a read.
    precharge_ready_cycle: u64,
    held: Option<HeldRequest>,
    /// FR-FCFS: the row whose requests this bank keeps serving while any remain
    /// queued, as GPGPU-Sim drains one row's requests before choosing again.
    committed_row: Option<u32>,
    /// FR-FCFS: this bank's queued requests, oldest first.
    queue: VecDeque<QueuedRequest>,
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

/// Which command a bank's held request needs next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Command {
    Activate,
    Precharge,
    Column,
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
            // GPGPU-Sim lets a write follow an activate sooner than a read, since
            // its data arrives WL cycles after the command anyway.
            t_rcd_write_cycles: u64::from(timing.t_rcd).saturating_sub(wl + 1),
            t_ras_cycles: u64::from(timing.t_ras),
            t_rp_cycles: u64::from(timing.t_rp),
            t_rc_cycles: u64::from(timing.t_rc),
            read_latency_cycles: cl,
            write_latency_cycles: wl,
            burst_cycles,
            // The write's data must start after the read's data has left the bus,
            // plus two cycles of bus turnaround.
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
            open_row: None,
            activate_ready_cycle: 0,
            read_ready_cycle: 0,
            write_ready_cycle: 0,
            precharge_ready_cycle: 0,
            held: None,
            committed_row: None,
            queue: VecDeque::new(),
        }
    }

    /// FR-FCFS choice for a free bank: keep draining the committed row, else
    /// take the oldest hit on the open row, else the oldest request (and commit
    /// to its row). Returns the index in `queue`.
    fn pick_frfcfs(&mut self) -> Option<usize> {
        let oldest_of_row =
            |queue: &VecDeque<QueuedRequest>, row: u32| queue.iter().position(|queued| queued.request.row == row);
        if let Some(index) = self.committed_row.and_then(|row| oldest_of_row(&self.queue, row)) {
            return Some(index);
        }
        let index = match self.open_row.and_then(|row| oldest_of_row(&self.queue, row)) {
            Some(index) => index,
            None => {
                if self.queue.is_empty() {
                    self.committed_row = None;
                    return None;
                }
                0
            }
        };
        self.committed_row = Some(self.queue[index].request.row);
        Some(index)
    }
}

impl DramChannel {
    /// A channel with all banks precharged and nothing queued.
    pub fn new(config: &DramConfig) -> Self {
        // Validation guarantees at least one bank and that groups divide the
        // banks evenly; the `max(1)`s keep a hand-built config from panicking.
        let n_banks = config.timing.n_banks.max(1) as usize;
        let n_bank_groups = (config.timing.n_bank_groups.max(1) as usize).min(n_banks);
        let queue_capacity = match config.scheduler_queue_entries {
            0 => UNBOUNDED_QUEUE_ENTRIES,
            entries => entries as usize,
        };
        Self {
            timing: ChannelTiming::new(config),
            scheduler: config.scheduler,
            dual_bus_interface: config.dual_bus_interface,
            queue_capacity,
            fifo_queue: VecDeque::new(),
            queued_len: 0,
            banks: vec![Bank::new(); n_banks],
            bank_groups: vec![BankGroup::default(); n_bank_groups],
            banks_per_group: (n_banks / n_bank_groups).max(1),
            priority_bank: 0,
            column_ready_cycle: 0,
            activate_ready_cycle: 0,
            read_ready_cycle: 0,
            write_ready_cycle: 0,
            data_bus_free_cycle: 0,
            in_flight: VecDeque::new(),
            next_unaccounted_cycle: 0,
            floor_cycle: 0,
            stats: DramStats::default(),
        }
    }

    /// Whether the request queue has room for one more request.
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

    /// Queues `request` at DRAM command cycle `now`.
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
        let bank_index = request.bank as usize % self.banks.len();
        let request = DramRequest { bank: bank_index as u32, ..request };
        let queued = QueuedRequest { request, pushed_cycle: now };
        match self.scheduler {
            DramScheduler::Fifo => self.fifo_queue.push_back(queued),
            DramScheduler::FrFcfs => self.banks[bank_index].queue.push_back(queued),
        }
        self.queued_len += 1;
        self.stats.max_queue_len = self.stats.max_queue_len.max(self.queued_len as u64);
        self.floor_cycle = self.floor_cycle.max(now);
    }

    /// Advances one DRAM command clock: hands free banks their next request,
    /// then issues at most one command (one row and one column command with a
    /// dual bus interface).
    ///
    /// Cycles must go forward: a call for a cycle already processed does
    /// nothing, so a repeated call can never issue a second command in one clock.
    pub fn cycle(&mut self, now: u64) {
        if now < self.next_unaccounted_cycle {
            return;
        }
        self.account_before(now);
        self.account_cycle(now);
        self.schedule();
        self.issue_commands(now);
        self.floor_cycle = self.floor_cycle.max(now + 1);
    }

    /// The oldest request whose data transfer finished by cycle `now`, if any.
    pub fn pop_completed(&mut self, now: u64) -> Option<DramCompletion> {
        match self.in_flight.front() {
            Some(front) if front.done_cycle <= now => self.in_flight.pop_front().map(|done| done.completion),
            _ => None,
        }
    }

    /// The earliest cycle at which [`Self::cycle`] could issue or schedule
    /// something, or at which a data transfer finishes (so that a driver that
    /// sleeps until this cycle also wakes to [`Self::pop_completed`]).
    ///
    /// Never earlier than one past the last cycle processed, nor than the
    /// latest push. `None` when nothing is queued, held by a bank or still
    /// transferring; completions already finished but not yet popped do not
    /// count (they are ready now).
    pub fn next_event(&self) -> Option<u64> {
        let floor = self.floor_cycle;
        let mut earliest: Option<u64> = None;
        let mut consider = |cycle: u64| {
            let cycle = cycle.max(floor);
            earliest = Some(earliest.map_or(cycle, |e: u64| e.min(cycle)));
        };
        if self.can_schedule() {
            consider(floor);
        }
        for bank_index in 0..self.banks.len() {
            if let Some((_, ready_cycle)) = self.next_command(bank_index) {
                consider(ready_cycle);
            }
        }
        if let Some(transfer) = self.in_flight.iter().find(|transfer| transfer.done_cycle >= floor) {
            consider(transfer.done_cycle);
        }
        earliest
    }

    /// Nothing queued, held by a bank, transferring, or waiting to be popped.
    pub fn is_idle(&self) -> bool {
        self.queued_len == 0 && self.in_flight.is_empty() && self.banks.iter().all(|bank| bank.held.is_none())
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
        self.queued_len > 0 || self.banks.iter().any(|bank| bank.held.is_some())
    }

    /// Whether `schedule` would hand some free bank a request.
    fn can_schedule(&self) -> bool {
        match self.scheduler {
            DramScheduler::Fifo => {
                self.fifo_queue.front().is_some_and(|front| self.banks[front.request.bank as usize].held.is_none())
            }
            DramScheduler::FrFcfs => self.banks.iter().any(|bank| bank.held.is_none() && !bank.queue.is_empty()),
        }
    }

    /// Hands requests to free banks. FCFS moves at most the head of its single
    /// queue, and only when the head's bank is free (head-of-line blocking, as
    /// in GPGPU-Sim); FR-FCFS gives every free bank its pick.
    fn schedule(&mut self) {
        match self.scheduler {
            DramScheduler::Fifo => {
                let head_bank_free =
                    self.fifo_queue.front().is_some_and(|front| self.banks[front.request.bank as usize].held.is_none());
                if head_bank_free && let Some(queued) = self.fifo_queue.pop_front() {
                    self.queued_len -= 1;
                    let bank = &mut self.banks[queued.request.bank as usize];
                    bank.held = Some(HeldRequest { queued, first_command_cycle: None, needed_activate: false });
                }
            }
            DramScheduler::FrFcfs => {
                for bank in &mut self.banks {
                    if bank.held.is_some() {
                        continue;
                    }
                    if let Some(index) = bank.pick_frfcfs()
                        && let Some(queued) = bank.queue.remove(index)
                    {
                        self.queued_len -= 1;
                        bank.held = Some(HeldRequest { queued, first_command_cycle: None, needed_activate: false });
                    }
                }
            }
        }
    }

    /// The command that bank `bank_index`'s held request needs next and the
    /// earliest cycle every timing rule allows it.
    fn next_command(&self, bank_index: usize) -> Option<(Command, u64)> {
        let bank = &self.banks[bank_index];
        let held = bank.held?;
        let request = held.queued.request;
        let group = &self.bank_groups[self.group_of(bank_index)];
        let timing = &self.timing;
        match bank.open_row {
            None => Some((Command::Activate, bank.activate_ready_cycle.max(self.activate_ready_cycle))),
            Some(row) if row != request.row => {
                Some((Command::Precharge, bank.precharge_ready_cycle.max(group.precharge_ready_cycle)))
            }
            Some(_) => {
                let (bank_ready, direction_ready, latency) = if request.is_write {
                    (bank.write_ready_cycle, self.write_ready_cycle, timing.write_latency_cycles)
                } else {
                    (bank.read_ready_cycle, self.read_ready_cycle, timing.read_latency_cycles)
                };
                // The burst may not start before the bus is free.
                let bus_ready = self.data_bus_free_cycle.saturating_sub(latency);
                let ready = bank_ready
                    .max(direction_ready)
                    .max(self.column_ready_cycle)
                    .max(group.column_ready_cycle)
                    .max(bus_ready);
                Some((Command::Column, ready))
            }
        }
    }

    fn group_of(&self, bank_index: usize) -> usize {
        (bank_index / self.banks_per_group).min(self.bank_groups.len() - 1)
    }

    /// Issues this cycle's commands. With one command bus, column commands go
    /// first (they keep the data bus busy), else a row command; with a dual
    /// bus interface, one of each. Banks are scanned from `priority_bank`.
    fn issue_commands(&mut self, now: u64) {
        let issued_column = self.issue_first_ready(now, |command| command == Command::Column);
        if !issued_column || self.dual_bus_interface {
            self.issue_first_ready(now, |command| command != Command::Column);
        }
    }

    /// Issues the first ready command that `wanted` accepts, scanning banks
    /// round-robin; returns whether one issued.
    fn issue_first_ready(&mut self, now: u64, wanted: impl Fn(Command) -> bool) -> bool {
        let n_banks = self.banks.len();
        for offset in 0..n_banks {
            let bank_index = (self.priority_bank + offset) % n_banks;
            let Some((command, ready_cycle)) = self.next_command(bank_index) else { continue };
            if ready_cycle > now || !wanted(command) {
                continue;
            }
            match command {
                Command::Activate => self.activate(bank_index, now),
                Command::Precharge => self.precharge(bank_index, now),
                Command::Column => self.column(bank_index, now),
            }
            self.priority_bank = (bank_index + 1) % n_banks;
            return true;
        }
        false
    }

    fn note_first_command(&mut self, bank_index: usize, now: u64, is_activate: bool) {
        if let Some(held) = &mut self.banks[bank_index].held {
            held.first_command_cycle.get_or_insert(now);
            held.needed_activate |= is_activate;
        }
    }

    fn activate(&mut self, bank_index: usize, now: u64) {
        self.note_first_command(bank_index, now, true);
        let timing = self.timing;
        let bank = &mut self.banks[bank_index];
        bank.open_row = bank.held.map(|held| held.queued.request.row);
        bank.read_ready_cycle = now + timing.t_rcd_cycles;
        bank.write_ready_cycle = now + timing.t_rcd_write_cycles;
        bank.precharge_ready_cycle = bank.precharge_ready_cycle.max(now + timing.t_ras_cycles);
        bank.activate_ready_cycle = bank.activate_ready_cycle.max(now + timing.t_rc_cycles);
        self.activate_ready_cycle = now + timing.t_rrd_cycles;
        self.stats.activates += 1;
    }

    fn precharge(&mut self, bank_index: usize, now: u64) {
        self.note_first_command(bank_index, now, false);
        let bank = &mut self.banks[bank_index];
        bank.open_row = None;
        bank.activate_ready_cycle = bank.activate_ready_cycle.max(now + self.timing.t_rp_cycles);
        self.stats.precharges += 1;
    }

    fn column(&mut self, bank_index: usize, now: u64) {
        self.note_first_command(bank_index, now, false);
        let timing = self.timing;
        let group_index = self.group_of(bank_index);
        let bank = &mut self.banks[bank_index];
        let Some(held) = bank.held.take() else { return };
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
        let done_cycle = now + latency + timing.burst_cycles;
        self.data_bus_free_cycle = done_cycle;
        self.stats.data_bus_busy_cycles += timing.burst_cycles;
        if !held.needed_activate {
            self.stats.row_hits += 1;
        }
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
    use warplab_config::DramConfig;

    use super::*;

    /// More command clocks than any test stream needs; a driver stuck longer is a bug.
    const CYCLE_LIMIT: u64 = 1_000_000;

    fn preset_dram(name: &str) -> DramConfig {
        warplab_config::preset(name).unwrap().config().unwrap().dram
    }

    fn read(tag: u32, bank: u32, row: u32) -> DramRequest {
        DramRequest { tag, bank, row, column: tag, is_write: false }
    }

    fn write(tag: u32, bank: u32, row: u32) -> DramRequest {
        DramRequest { is_write: true, ..read(tag, bank, row) }
    }

    /// `burst_length / data_command_freq_ratio`: command clocks of one burst.
    fn burst_cycles(config: &DramConfig) -> u64 {
        u64::from(config.burst_length / config.data_command_freq_ratio)
    }

    /// Runs `requests` (arrival cycle, request; sorted by arrival) to the end.
    /// Each visited cycle: push what has arrived while there is room,
    /// `cycle(now)`, pop every completion, and push again. With `skip`, it visits only the cycles
    /// that `next_event` and the arrivals name; else every cycle.
    /// Returns (cycle popped, completion) in pop order, and the stats.
    fn drive(
        config: &DramConfig,
        requests: &[(u64, DramRequest)],
        skip: bool,
    ) -> (Vec<(u64, DramCompletion)>, DramStats) {
        let mut channel = DramChannel::new(config);
        let mut pending: VecDeque<(u64, DramRequest)> = requests.iter().copied().collect();
        let mut completions = Vec::new();
        let mut now = 0;
        let push_arrived = |channel: &mut DramChannel, pending: &mut VecDeque<(u64, DramRequest)>, now: u64| {
            while let Some(&(arrival, request)) = pending.front()
                && arrival <= now
                && channel.can_accept()
            {
                channel.push(request, now);
                pending.pop_front();
            }
        };
        while now < CYCLE_LIMIT {
            push_arrived(&mut channel, &mut pending, now);
            channel.cycle(now);
            while let Some(completion) = channel.pop_completed(now) {
                completions.push((now, completion));
            }
            // Scheduling may have made room: a waiting request goes in now, to
            // reach a bank next cycle.
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

    /// Runs `requests` cycle by cycle and expects (tag, cycle its data is done)
    /// in completion order; the skipping driver must agree exactly.
    fn check(config: &DramConfig, requests: &[(u64, DramRequest)], expect: &[(u32, u64)]) -> DramStats {
        let (completions, stats) = drive(config, requests, false);
        let got: Vec<(u32, u64)> = completions.iter().map(|(cycle, completion)| (completion.tag, *cycle)).collect();
        assert_eq!(got, expect);
        assert_eq!(drive(config, requests, true), (completions, stats.clone()), "skipping changed the outcome");
        stats
    }

    #[test]
    fn a_read_to_a_closed_bank_pays_activate_cas_and_burst() {
        for name in ["QV100", "mdm-pascal-28sm"] {
            let config = preset_dram(name);
            let t = config.timing;
            // Activate at 0, read at tRCD, data from tRCD + CL for one burst.
            let done = u64::from(t.t_rcd + t.cl) + burst_cycles(&config);
            let stats = check(&config, &[(0, read(7, 3, 5))], &[(7, done)]);
            assert_eq!((stats.reads, stats.activates, stats.row_hits, stats.precharges), (1, 1, 0, 0), "{name}");
            assert_eq!((stats.total_queued_cycles, stats.total_service_cycles), (0, done), "{name}");
            assert_eq!(stats.active_cycles, done, "{name}: busy from the push until the data is done");
            assert_eq!(stats.data_bus_busy_cycles, burst_cycles(&config), "{name}");
        }
    }

    #[test]
    fn a_write_to_a_closed_bank_uses_the_write_timings() {
        let config = preset_dram("QV100");
        let t = config.timing;
        // GPGPU-Sim's tRCDWR = tRCD - (WL + 1); the data follows WL after the command.
        let t_rcd_write = u64::from(t.t_rcd - (t.wl + 1));
        let done = t_rcd_write + u64::from(t.wl) + burst_cycles(&config);
        let stats = check(&config, &[(0, write(1, 0, 0))], &[(1, done)]);
        assert_eq!((stats.reads, stats.writes, stats.activates), (0, 1, 1));
    }

    #[test]
    fn a_read_to_the_open_row_is_a_row_hit() {
        for name in ["QV100", "mdm-pascal-28sm"] {
            let config = preset_dram(name);
            let t = config.timing;
            let burst = burst_cycles(&config);
            let first_done = u64::from(t.t_rcd + t.cl) + burst;
            // The second read reaches the bank the cycle after the first one's
            // column command, then waits for tCCD, tCCDL (same bank group) and
            // the first burst to leave the data bus.
            let second_column = u64::from(t.t_rcd) + 1.max(u64::from(t.t_ccd)).max(u64::from(t.t_ccdl)).max(burst);
            let second_done = second_column + u64::from(t.cl) + burst;
            // A read long after, to the row still open: no activate, only CL + burst.
            let late = 1_000;
            let late_done = late + u64::from(t.cl) + burst;
            let requests = [(0, read(1, 2, 9)), (0, read(2, 2, 9)), (late, read(3, 2, 9))];
            let stats = check(&config, &requests, &[(1, first_done), (2, second_done), (3, late_done)]);
            assert_eq!((stats.reads, stats.activates, stats.row_hits), (3, 1, 2), "{name}");
        }
    }

    #[test]
    fn a_read_to_another_row_of_the_bank_precharges_and_activates() {
        for name in ["QV100", "mdm-pascal-28sm"] {
            let config = preset_dram(name);
            let t = config.timing;
            let burst = burst_cycles(&config);
            let first_column = u64::from(t.t_rcd);
            let first_done = first_column + u64::from(t.cl) + burst;
            // The precharge waits for tRAS after the activate at 0, the read's
            // burst (read to precharge), tRTPL in the bank group, and the second
            // request reaching the bank the cycle after the first read.
            let precharge = u64::from(t.t_ras)
                .max(first_column + burst)
                .max(first_column + u64::from(t.t_rtpl))
                .max(first_column + 1);
            // The activate waits tRP after the precharge and tRC after the first activate.
            let activate = (precharge + u64::from(t.t_rp)).max(u64::from(t.t_rc)).max(u64::from(t.t_rrd));
            let second_done = activate + u64::from(t.t_rcd + t.cl) + burst;
            let stats = check(&config, &[(0, read(1, 4, 1)), (0, read(2, 4, 2))], &[(1, first_done), (2, second_done)]);
            assert_eq!((stats.activates, stats.precharges, stats.row_hits), (2, 1, 0), "{name}");
        }
    }

    #[test]
    fn fr_fcfs_serves_a_younger_row_hit_before_an_older_row_miss() {
        let mut config = preset_dram("mdm-pascal-28sm");
        let t = config.timing;
        let burst = burst_cycles(&config);
        let first_done = u64::from(t.t_rcd + t.cl) + burst;
        // Row 1 is open from request 1; request 2 (row 2) is older than request 3 (row 1).
        let requests = [(0, read(1, 0, 1)), (100, read(2, 0, 2)), (100, read(3, 0, 1))];

        config.scheduler = DramScheduler::FrFcfs;
        let hit_done = 100 + u64::from(t.cl) + burst;
        // The miss reaches the bank the cycle after the hit's column command and
        // precharges once the hit's burst and tRTPL allow (tRAS and tRC are long past).
        let precharge = 100 + 1.max(burst).max(u64::from(t.t_rtpl));
        let miss_done = precharge + u64::from(t.t_rp + t.t_rcd + t.cl) + burst;
        let stats = check(&config, &requests, &[(1, first_done), (3, hit_done), (2, miss_done)]);
        assert_eq!(stats.row_hits, 1);

        config.scheduler = DramScheduler::Fifo;
        let (completions, stats) = drive(&config, &requests, false);
        let order: Vec<u32> = completions.iter().map(|(_, completion)| completion.tag).collect();
        assert_eq!(order, [1, 2, 3], "FCFS serves the older miss first");
        // The miss precharges at 100; request 3 then needs row 1 opened again.
        assert_eq!((stats.row_hits, stats.activates, stats.precharges), (0, 3, 2));
        assert_eq!(completions[1].0, 100 + u64::from(t.t_rp + t.t_rcd + t.cl) + burst);
    }

    #[test]
    fn row_hit_reads_across_banks_keep_the_data_bus_busy() {
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
            // busy / active >= 95%, in integers.
            assert!(
                stats.data_bus_busy_cycles * 100 >= stats.active_cycles * 95,
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
        // Cycle 0 hands one request to bank 0, but the queue is still over its bound.
        channel.cycle(0);
        assert!(!channel.can_accept());
        assert_eq!(channel.stats().queue_full_cycles, 1);

        config.scheduler_queue_entries = 0;
        assert_eq!(DramChannel::new(&config).queue_capacity(), UNBOUNDED_QUEUE_ENTRIES);
    }

    #[test]
    fn stats_count_reads_writes_row_hits_and_activates() {
        let config = preset_dram("QV100");
        // Bank 0: read row 1, write row 1 (hit), read row 2 (miss). Bank 1: write row 1.
        let requests = [(0, read(1, 0, 1)), (0, write(2, 0, 1)), (0, read(3, 0, 2)), (5, write(4, 1, 1))];
        let (completions, stats) = drive(&config, &requests, false);
        assert_eq!(completions.len(), 4);
        assert_eq!(completions.iter().filter(|(_, completion)| completion.is_write).count(), 2);
        assert_eq!((stats.reads, stats.writes, stats.row_hits, stats.activates, stats.precharges), (2, 2, 1, 3, 1));
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
        assert_eq!(channel.next_event(), Some(10), "the push is scheduled at its own cycle");
        assert!(!channel.is_idle());
        // Cycle 10 activates; nothing can happen until tRCD has passed.
        channel.cycle(10);
        channel.cycle(10);
        assert_eq!(channel.stats().activates, 1, "a repeated cycle does nothing");
        let column = 10 + u64::from(config.timing.t_rcd);
        assert_eq!(channel.next_event(), Some(column));
        channel.cycle(column);
        // Then only the end of the data transfer is left.
        let done = column + u64::from(config.timing.cl) + burst_cycles(&config);
        assert_eq!(channel.next_event(), Some(done));
        assert_eq!(channel.pop_completed(done - 1), None);
        assert_eq!(channel.pop_completed(done).map(|completion| completion.tag), Some(1));
        assert!(channel.is_idle());
        assert_eq!(channel.next_event(), None);
    }

    fn arb_stream() -> impl Strategy<Value = Vec<(u64, DramRequest)>> {
        prop::collection::vec((0u64..12, 0u32..20, 0u32..4, any::<bool>()), 1..150).prop_map(|items| {
            let mut arrival = 0;
            let mut tag = 0;
            items
                .into_iter()
                .map(|(gap, bank, row, is_write)| {
                    arrival += gap;
                    tag += 1;
                    (arrival, DramRequest { tag, bank, row, column: 0, is_write })
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
        ) {
            let mut config = preset_dram(if pascal { "mdm-pascal-28sm" } else { "QV100" });
            config.scheduler = if fr_fcfs { DramScheduler::FrFcfs } else { DramScheduler::Fifo };
            config.dual_bus_interface = dual_bus;
            config.scheduler_queue_entries = queue_entries;
            let every_cycle = drive(&config, &requests, false);
            prop_assert_eq!(every_cycle.0.len(), requests.len());
            prop_assert_eq!(drive(&config, &requests, true), every_cycle);
        }
    }
}
