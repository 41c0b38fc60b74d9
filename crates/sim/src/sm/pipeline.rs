//! The stages between a scheduler's issue and the writeback of a result, after
//! GPGPU-Sim's shader core (`shader.cc`): the issue-to-collector pipeline
//! registers (`ID_OC_*`), the operand collector (`opndcoll_rfu_t`), the
//! collector-to-execute registers (`OC_EX_*`), the execution units
//! (`pipelined_simd_unit`) with the result buses (`shader_core_ctx::execute`),
//! and the writeback register (`EX_WB`).
//!
//! An instruction issues into its pipeline's `ID_OC` register (one slot per
//! scheduler under the sub-core model, any free slot otherwise). Each operand
//! collector step (`-gpgpu_reg_file_port_throughput` per cycle), in GPGPU-Sim's
//! order:
//! 1. each set's dispatch units (one per out port) move a collector unit whose
//!    operands are all read into its pipeline's `OC_EX` register, if that has
//!    room (round robin over the set, starting past the last one dispatched);
//! 2. each register bank serves the oldest read queued on it, unless the
//!    writeback took the bank this cycle;
//! 3. each port takes the oldest instruction of each `ID_OC` register it
//!    serves into a free collector unit of its sets (under the sub-core model,
//!    only the issuing scheduler's share of a set) and queues one read per
//!    distinct source register on that register's bank: the register number
//!    plus the warp slot, modulo the banks (the scheduler's share of them
//!    under the sub-core model).
//!
//! Each cycle, before the collector steps, each unit advances: the
//! instruction at the end of its pipeline moves to `EX_WB`; the one in its
//! dispatch register, once its initiation interval has passed, enters the
//! pipeline `latency − initiation` stages from the end; and the unit takes the
//! oldest instruction of its `OC_EX` register (its own slot under the
//! sub-core model) if its dispatch register is free, no instruction it holds
//! finishes in the same cycle, and a result bus (`EX_WB` width) is free then.
//! The writeback, first in the cycle, empties `EX_WB`: the results are ready,
//! and each destination register's bank is taken from the collector for the
//! cycle's first step.
//!
//! An instruction issued at cycle t with latency L and initiation I, on an
//! idle SM, is collected at t + 1, dispatched at t + 2, taken by its unit at
//! t + 3, enters the pipeline at t + 3 + I, reaches `EX_WB` at t + 4 + L and
//! is written back at t + 5 + L, when a dependent instruction can issue.
//! Memory instructions take the same path to the `OC_EX` register of the
//! LD/ST unit, which takes the oldest when it is free ([`Pipeline::take_memory`]).

use std::collections::VecDeque;

use warplab_config::{CollectorSetKind, GpuConfig, UnitClass};
use warplab_trace::{MAX_DST_REGS, MAX_SRC_REGS, Reg};
use warplab_uarch::dispatch::{Pipe as DispatchPipe, collector_ports};

use crate::bitset::{BitSet, for_each_bit};
use crate::ops::{N_UNIT_CLASSES, unit_index};
use crate::request::Slab;

/// The LD/ST unit's pipeline index, after the execution-unit classes.
pub(crate) const MEMORY_PIPE: usize = N_UNIT_CLASSES;

/// Pipelines: the execution-unit classes, then the LD/ST unit.
pub(crate) const N_PIPES: usize = N_UNIT_CLASSES + 1;

/// An instruction between issue and writeback.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Staged {
    /// The warp slot.
    pub warp: u16,
    /// The scheduler that issued it.
    pub scheduler: u8,
    /// Its pipeline ([`MEMORY_PIPE`] for the LD/ST unit).
    pub pipe: u8,
    /// Issue order: where a register holds several, the oldest goes first.
    pub uid: u64,
    /// Cycles in its unit's pipeline.
    pub latency: u16,
    /// Cycles its unit's dispatch register holds it.
    pub initiation: u16,
    /// Its index in its CTA's instruction buffer (the LD/ST unit reads it there).
    pub index: u32,
    /// The load record of a load, set by the issue stage.
    pub load: Option<u32>,
    pub n_dst: u8,
    pub dst: [Reg; MAX_DST_REGS],
    /// Distinct source registers (each is one register-file read).
    pub n_src: u8,
    pub src: [Reg; MAX_SRC_REGS],
}

impl Staged {
    /// The destination registers.
    pub fn dsts(&self) -> &[Reg] {
        &self.dst[..usize::from(self.n_dst)]
    }

    fn srcs(&self) -> &[Reg] {
        &self.src[..usize::from(self.n_src)]
    }
}

/// Where one pipeline register set (`ID_OC_*`, `OC_EX_*`, a slot per entry
/// of its width) keeps its slots in [`StageRegisters::slots`].
#[derive(Debug, Clone, Copy, Default)]
struct SetSlots {
    start: u32,
    len: u32,
    /// Slots holding an instruction.
    held: u32,
}

/// The pipeline registers of one stage (`ID_OC` or `OC_EX`): a set per
/// pipeline, and a bit per pipeline whose set holds an instruction, so that
/// the collector's steps and the units pass empty sets over without reading
/// them. Every set's slots are in one vector, each holding an instruction's
/// id and issue order (kept here so that finding the oldest reads only the set).
#[derive(Debug, Clone)]
#[repr(C)]
struct StageRegisters {
    /// Bit `pipe`: set `pipe` holds an instruction.
    held: u32,
    /// Bit `pipe`: some slot of set `pipe` is free.
    any_free: u32,
    /// Per scheduler (the first [`FAST_SCHEDULERS`]), bit `pipe`: the slot of
    /// set `pipe` that scheduler's instructions use under the sub-core model
    /// is free. The issue stage asks this for every warp it checks; one word
    /// beside the others answers it.
    free_for: [u32; FAST_SCHEDULERS],
    /// Schedulers with a word in `free_for`.
    n_fast: usize,
    /// The room emptied slots made since [`Pipeline::take_issue_room`] last
    /// took it (kept for both stages; only `ID_OC`'s is read).
    room: IssueRoom,
    sets: [SetSlots; N_PIPES],
    slots: Vec<Option<(u32, u64)>>,
}

/// Schedulers whose free `ID_OC` slots [`StageRegisters`] keeps as bits (more
/// than any GPU has); the slots of any further ones are looked up.
const FAST_SCHEDULERS: usize = 8;

/// One operand collector unit.
#[derive(Debug, Clone, Copy, Default)]
struct Collector {
    staged: Option<u32>,
    /// Bit i: source operand i not read yet.
    unread: u8,
    /// The pipeline whose `OC_EX` register it dispatches to.
    out_pipe: u8,
    /// The scheduler whose `OC_EX` slot it uses under the sub-core model
    /// (GPGPU-Sim's `reg_id`: the collector's index over the collectors per scheduler).
    owner: u8,
    /// Its set's index.
    set: u8,
}

/// A set of collector units: `collectors[first..first + len]`, with its dispatch units.
#[derive(Debug, Clone)]
struct CollectorSet {
    first: usize,
    len: usize,
    /// Per dispatch unit, the last collector (within the set) it dispatched.
    last_dispatched: Vec<usize>,
    /// Its collectors per scheduler under the sub-core model (none when the
    /// set has fewer collectors than there are schedulers).
    per_scheduler: usize,
    /// Its collectors holding an instruction whose operands are all read.
    complete: u32,
    /// Its collectors holding no instruction.
    free: u32,
}

/// An operand collector input port: the pipelines whose `ID_OC` registers it
/// takes from and the sets (by index, in order of preference) it allocates in.
/// Its lists are kept inline (a port serves each pipeline at most once and
/// allocates in at most its own set and the generic one), so that the
/// allocation step reads one record per port.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Port {
    pipes: [u8; N_PIPES],
    n_pipes: u8,
    /// Bit `pipe` for each of its pipelines.
    pipe_mask: u32,
    sets: [u8; MAX_PORT_SETS],
    n_sets: u8,
    /// It serves the same pipelines from the same sets as the port before it.
    same_as_previous: bool,
    /// The first port that allocates in the same sets: ports of one group
    /// find the same free collectors.
    sets_group: u8,
}

/// The most collector sets a port allocates in.
const MAX_PORT_SETS: usize = 2;

impl Port {
    fn pipes(&self) -> &[u8] {
        &self.pipes[..usize::from(self.n_pipes)]
    }

    fn sets(&self) -> &[u8] {
        &self.sets[..usize::from(self.n_sets)]
    }
}

/// One execution unit (`pipelined_simd_unit`).
///
/// Two instructions it took may not finish in one cycle (GPGPU-Sim's
/// `occupied` bit set, the cycle a result is due counted from when the unit
/// took it). Each instruction keeps its own due cycle: one that has left the
/// pipeline was due before now, so only those in the dispatch register and
/// the pipeline can clash with a new one.
#[derive(Debug, Clone)]
struct ExecUnit {
    pipe: u8,
    /// The `OC_EX` slot it takes from under the sub-core model.
    slot: usize,
    dispatch: Option<InUnit>,
    /// Cycles its dispatch register still holds the instruction (GPGPU-Sim's `dispatch_delay`).
    dispatch_left: u16,
    /// Instructions in its pipeline, by the cycle they reach `EX_WB` (`exit`),
    /// earliest first. (A `Vec`: it is searched at every feed and entry, and
    /// a `VecDeque`'s search over two slices cost more than the shift when
    /// its head leaves.)
    stages: Vec<InUnit>,
}

/// An instruction in an execution unit.
#[derive(Debug, Clone, Copy)]
struct InUnit {
    id: u32,
    /// The cycle its result was due when the unit took it.
    due: u64,
    /// The cycle it reaches `EX_WB` (set when it enters the pipeline).
    exit: u64,
}

impl ExecUnit {
    /// Whether an instruction it holds is due at `cycle`.
    fn due_at(&self, cycle: u64) -> bool {
        self.dispatch.is_some_and(|held| held.due == cycle) || self.stages.iter().any(|held| held.due == cycle)
    }

    fn is_busy(&self) -> bool {
        self.dispatch.is_some() || !self.stages.is_empty()
    }
}

/// The pipeline registers, operand collector and execution units of one SM.
///
/// Most cycles most of it is empty, so it keeps what is busy as bits (the
/// registers' [`StageRegisters::held`], the busy units, the banks with reads
/// queued, the collectors whose operands are all read) and each step visits
/// only those, in the order a full scan would have.
#[derive(Debug, Clone)]
#[repr(C)]
pub(crate) struct Pipeline {
    // What every cycle reads first, together at the start (`repr(C)` keeps
    // the order): most cycles find most of the pipeline empty and read no more.
    /// Instructions anywhere between issue and writeback (or the LD/ST unit).
    in_flight: usize,
    busy_collectors: usize,
    /// Units whose dispatch register holds an instruction.
    dispatching: usize,
    /// The last dispatch step moved nothing, and since then no collector has
    /// read its last operand and no `OC_EX` slot has freed: the next would
    /// move nothing either.
    dispatch_stuck: bool,
    /// The last allocation step filled no collector, and since then nothing
    /// has entered `ID_OC` and no collector has freed: the next would fill none.
    allocate_stuck: bool,
    /// Bit `pipe`: the oldest instruction of that pipeline's `ID_OC` register
    /// found no free collector for its scheduler in the sets of port group
    /// `refused_group[pipe]`, and that still holds ([`Pipeline::allocate_from`]).
    refused: u32,
    /// Per pipeline, the port group ([`Port::sets_group`]) its bit in `refused` holds for.
    refused_group: [u8; N_PIPES],
    /// Per scheduler under the sub-core model (else one mask), the bits of
    /// `refused` that one of its share's collectors freeing clears.
    refused_by_share: Vec<u32>,
    id_oc: StageRegisters,
    oc_ex: StageRegisters,
    /// Units holding an instruction (in their dispatch register or pipeline).
    busy_units: BitSet,
    /// Banks with a read queued.
    queued_banks: BitSet,
    /// Banks the writeback took for this cycle's first collector step.
    bank_written: BitSet,
    ex_wb: Vec<u32>,
    staged: Slab<Staged>,
    next_uid: u64,
    sub_core: bool,
    steps_per_cycle: u32,
    collectors: Vec<Collector>,
    sets: Vec<CollectorSet>,
    ports: Vec<Port>,
    /// Per register bank, the reads queued on it: (collector, operand).
    bank_reads: Vec<VecDeque<(u16, u8)>>,
    banks_per_scheduler: usize,
    units: Vec<ExecUnit>,
    /// Per pipeline, the units that take from its `OC_EX` register.
    /// (`build_units` makes a pipeline's units consecutive: a range each.)
    pipe_units: [std::ops::Range<usize>; N_PIPES],
    /// Result-bus reservations still ahead: (cycle, buses taken then). A
    /// few at a time, so a short list (not a ring as long as the longest
    /// latency, which would spread over the host's cache).
    result_buses: Vec<(u64, u8)>,
    n_result_buses: u8,
}

/// The `ID_OC` room that emptied slots made since it was last taken
/// ([`Pipeline::take_issue_room`]). Over one collector cycle issue puts
/// nothing into `ID_OC` and allocation only empties it, so a slot emptied
/// then is room its schedulers did not have before the cycle: this says
/// which schedulers may issue now where they could not, without comparing
/// the registers' state before and after.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct IssueRoom {
    sub_core: bool,
    /// Some slot emptied.
    any_slot: bool,
    /// A slot of a full set emptied: that set had no room before.
    full_set: bool,
    /// Bit `k`: a slot scheduler `k`'s instructions use under the sub-core
    /// model emptied (the first [`FAST_SCHEDULERS`] schedulers).
    own_slot: u32,
}

impl IssueRoom {
    /// Whether no slot emptied.
    pub(crate) fn is_empty(&self) -> bool {
        !self.any_slot
    }

    /// Whether scheduler `k` can issue into a pipeline it could not (for a
    /// scheduler without a bit of its own: whether any slot emptied, which
    /// may wake it needlessly but never misses).
    pub(crate) fn gained_for(&self, k: usize) -> bool {
        match (self.sub_core, k < FAST_SCHEDULERS) {
            (false, _) => self.full_set,
            (true, true) => self.own_slot & (1 << k) != 0,
            (true, false) => self.any_slot,
        }
    }
}

impl StageRegisters {
    /// The registers of sets of `widths` slots.
    fn new(widths: [u32; N_PIPES], n_schedulers: usize) -> Self {
        let mut sets = [SetSlots::default(); N_PIPES];
        let mut start = 0;
        for (set, &len) in sets.iter_mut().zip(&widths) {
            *set = SetSlots { start, len, held: 0 };
            start += len;
        }
        let n_fast = n_schedulers.min(FAST_SCHEDULERS);
        let slots = vec![None; start as usize];
        let mut registers = Self {
            held: 0,
            any_free: 0,
            free_for: [0; FAST_SCHEDULERS],
            n_fast,
            room: IssueRoom::default(),
            sets,
            slots,
        };
        for (pipe, &width) in widths.iter().enumerate() {
            for slot in 0..width as usize {
                registers.refresh(pipe, slot, true);
            }
        }
        // Empty from the start: no room was made.
        registers.room = IssueRoom::default();
        registers
    }

    /// Set `pipe`'s slots.
    fn set(&self, pipe: usize) -> &[Option<(u32, u64)>] {
        let SetSlots { start, len, .. } = self.sets[pipe];
        &self.slots[start as usize..(start + len) as usize]
    }

    /// The slot of set `pipe` a scheduler's (or a partitioned unit's)
    /// instruction uses under the sub-core model; a set narrower than the
    /// schedulers wraps. (The division is skipped when it changes nothing:
    /// this is on the issue stage's every check.)
    fn slot_of(&self, pipe: usize, index: usize) -> usize {
        let len = (self.sets[pipe].len as usize).max(1);
        if index < len { index } else { index % len }
    }

    /// Brings pipeline `pipe`'s bits up to date after slot `slot` of its set
    /// became `free` or not (the caller knows which): the schedulers whose
    /// slot that is are those `slot`, `slot + width`, ...
    /// ([`StageRegisters::slot_of`]).
    fn refresh(&mut self, pipe: usize, slot: usize, free: bool) {
        let SetSlots { len, held, .. } = self.sets[pipe];
        let bit = 1 << pipe;
        // Without a branch: this runs at every issue, allocation and dispatch.
        let assign = |mask: &mut u32, on: bool| *mask = (*mask & !bit) | (bit * u32::from(on));
        assign(&mut self.held, held > 0);
        assign(&mut self.any_free, held < len);
        // A plain loop: `step_by`'s setup cost more than the one or two steps.
        let step = (len as usize).max(1);
        let mut scheduler = slot;
        while scheduler < self.n_fast {
            assign(&mut self.free_for[scheduler], free);
            self.room.own_slot |= u32::from(free) << scheduler;
            scheduler += step;
        }
    }

    /// Whether no pipeline's set holds an instruction.
    fn is_empty(&self) -> bool {
        self.held == 0
    }

    /// Whether pipeline `pipe`'s set holds an instruction.
    fn holds(&self, pipe: usize) -> bool {
        self.held & (1 << pipe) != 0
    }

    /// Whether pipeline `pipe`'s set has room: in the slot of scheduler
    /// `slot` under the sub-core model, anywhere otherwise.
    fn has_free(&self, pipe: usize, slot: Option<usize>) -> bool {
        let mask = match slot {
            Some(scheduler) if scheduler < self.free_for.len() => self.free_for[scheduler],
            Some(index) => return self.set(pipe).get(self.slot_of(pipe, index)).is_some_and(Option::is_none),
            None => self.any_free,
        };
        mask & (1 << pipe) != 0
    }

    /// Puts instruction `id` (issue order `uid`) into set `pipe`: in scheduler
    /// `slot`'s slot, or the first free one.
    fn put(&mut self, pipe: usize, slot: Option<usize>, id: u32, uid: u64) {
        let index = match slot {
            Some(index) => self.slot_of(pipe, index),
            None => self.set(pipe).iter().position(Option::is_none).unwrap_or(0),
        };
        let SetSlots { start, len, .. } = self.sets[pipe];
        if index < len as usize {
            let entry = &mut self.slots[start as usize + index];
            self.sets[pipe].held += u32::from(entry.is_none());
            *entry = Some((id, uid));
        }
        // Taken now, or no slot at all (a set without slots).
        self.refresh(pipe, index, false);
    }

    /// Empties slot `slot` of pipeline `pipe`'s set; returns what it held.
    fn take(&mut self, pipe: usize, slot: usize) -> Option<u32> {
        let SetSlots { start, len, .. } = self.sets[pipe];
        if slot >= len as usize {
            return None;
        }
        let (id, _) = self.slots[start as usize + slot].take()?;
        self.room.any_slot = true;
        self.room.full_set |= self.sets[pipe].held == len;
        self.sets[pipe].held -= 1;
        self.refresh(pipe, slot, true);
        Some(id)
    }

    /// What slot `slot` of pipeline `pipe`'s set holds.
    fn at(&self, pipe: usize, slot: usize) -> Option<u32> {
        self.set(pipe).get(slot).copied().flatten().map(|(id, _)| id)
    }

    /// The slot of the oldest instruction (lowest issue order) pipeline
    /// `pipe`'s set holds, and that instruction.
    fn oldest(&self, pipe: usize) -> Option<(usize, u32)> {
        if !self.holds(pipe) {
            return None;
        }
        // A plain loop: the iterator chain (`filter_map`, `min_by_key`) cost
        // twice its instructions, on every allocation and LD/ST take.
        let mut oldest: Option<(usize, u32, u64)> = None;
        for (slot, held) in self.set(pipe).iter().enumerate() {
            if let &Some((id, uid)) = held
                && oldest.is_none_or(|(_, _, best)| uid < best)
            {
                oldest = Some((slot, id, uid));
            }
        }
        oldest.map(|(slot, id, _)| (slot, id))
    }
}

impl Pipeline {
    /// The pipeline of an SM of `config`.
    pub(crate) fn new(config: &GpuConfig) -> Self {
        let units = &config.units;
        let oc = &units.operand_collector;
        let sub_core = config.scheduling.sub_core_model;
        let n_schedulers = config.scheduling.schedulers_per_sm.max(1) as usize;
        let (id_oc, oc_ex) = register_sets(config);
        let (collectors, sets, set_index) = build_collectors(config, n_schedulers);
        let ports = build_ports(config, &set_index);
        let n_banks = oc.reg_banks.max(1) as usize;
        let exec_units = build_units(config);
        let pipe_units = std::array::from_fn(|pipe| {
            let first = exec_units.iter().position(|unit| usize::from(unit.pipe) == pipe).unwrap_or(0);
            let count = exec_units.iter().filter(|unit| usize::from(unit.pipe) == pipe).count();
            first..first + count
        });
        Self {
            staged: Slab::default(),
            in_flight: 0,
            next_uid: 0,
            sub_core,
            steps_per_cycle: oc.reg_file_port_throughput.max(1),
            id_oc: StageRegisters::new(id_oc, n_schedulers),
            oc_ex: StageRegisters::new(oc_ex, n_schedulers),
            collectors,
            busy_collectors: 0,
            sets,
            ports,
            bank_reads: vec![VecDeque::new(); n_banks],
            queued_banks: BitSet::new(n_banks),
            bank_written: BitSet::new(n_banks),
            banks_per_scheduler: (n_banks / n_schedulers).max(1),
            busy_units: BitSet::new(exec_units.len().max(1)),
            pipe_units,
            dispatching: 0,
            dispatch_stuck: false,
            allocate_stuck: false,
            refused: 0,
            refused_group: [0; N_PIPES],
            refused_by_share: vec![0; if sub_core { n_schedulers } else { 1 }],
            units: exec_units,
            result_buses: Vec::new(),
            n_result_buses: u8::try_from(units.widths.ex_wb.max(1)).unwrap_or(u8::MAX),
            ex_wb: Vec::new(),
        }
    }

    /// Whether nothing is between issue and writeback.
    pub(crate) fn is_empty(&self) -> bool {
        self.in_flight == 0
    }

    /// The `ID_OC` room made since the last call ([`IssueRoom`]).
    pub(crate) fn take_issue_room(&mut self) -> IssueRoom {
        IssueRoom { sub_core: self.sub_core, ..std::mem::take(&mut self.id_oc.room) }
    }

    /// Whether scheduler `scheduler` may issue into pipeline `pipe` now: its
    /// `ID_OC` register has room (GPGPU-Sim's `has_free`).
    pub(crate) fn can_issue(&self, pipe: usize, scheduler: usize) -> bool {
        self.id_oc.has_free(pipe, self.sub_core.then_some(scheduler))
    }

    /// Issues `staged` into its pipeline's `ID_OC` register (the caller checked
    /// [`Pipeline::can_issue`]); numbers it in issue order.
    pub(crate) fn issue(&mut self, mut staged: Staged) {
        staged.uid = self.next_uid;
        self.next_uid += 1;
        let (pipe, scheduler) = (usize::from(staged.pipe), usize::from(staged.scheduler));
        let id = self.staged.insert_index(staged);
        self.id_oc.put(pipe, self.sub_core.then_some(scheduler), id, staged.uid);
        self.allocate_stuck = false;
        self.in_flight += 1;
    }

    /// Empties `EX_WB` into `done` (cleared first): their results are ready
    /// now. Each destination register's bank is taken for the cycle's first
    /// collector step (up to the first bank already taken, as GPGPU-Sim's
    /// `opndcoll_rfu_t::writeback` stops there).
    pub(crate) fn writeback(&mut self, done: &mut Vec<Staged>) {
        done.clear();
        for k in 0..self.ex_wb.len() {
            let id = self.ex_wb[k];
            let staged = self.staged[id];
            for &reg in staged.dsts() {
                let bank = self.bank_of(reg, staged.warp, staged.scheduler);
                if self.bank_written.contains(bank) {
                    break;
                }
                self.bank_written.insert(bank);
            }
            self.staged.remove_index(id);
            self.in_flight -= 1;
            done.push(staged);
        }
        self.ex_wb.clear();
    }

    /// Advances every execution unit one cycle and lets each take an
    /// instruction from its `OC_EX` register; a unit with nothing in it and
    /// nothing waiting for it has nothing to do and is passed over.
    pub(crate) fn execute(&mut self, now: u64) {
        if self.in_flight == 0 {
            return;
        }
        for word in 0..self.busy_units.n_words() {
            let mut visit = self.busy_units.word(word);
            for_each_bit(0, u64::from(self.oc_ex.held), |pipe| visit |= word_of_range(&self.pipe_units[pipe], word));
            for_each_bit(word, visit, |u| {
                let was_dispatching = self.units[u].dispatch.is_some();
                self.advance_unit(u, now);
                self.feed_unit(u, now);
                let unit = &self.units[u];
                self.busy_units.set(u, unit.is_busy());
                self.dispatching =
                    self.dispatching + usize::from(unit.dispatch.is_some()) - usize::from(was_dispatching);
            });
        }
    }

    /// Takes the bank of register `reg` of warp `warp` for the LD/ST unit's
    /// writeback of a load's result (GPGPU-Sim's `opndcoll_rfu_t::writeback`
    /// called from `ldst_unit::writeback`, after the core's writeback in the
    /// same cycle): false when the bank is already taken for a write this
    /// cycle. A bank taken here serves no read in this cycle's first step.
    pub(crate) fn take_write_bank(&mut self, reg: Reg, warp: u16, scheduler: u8) -> bool {
        let bank = self.bank_of(reg, warp, scheduler);
        let taken = self.bank_written.contains(bank);
        self.bank_written.insert(bank);
        !taken
    }

    /// The oldest instruction waiting for the LD/ST unit, taken out of the
    /// pipeline (the LD/ST unit calls this when its dispatch register is free).
    pub(crate) fn take_memory(&mut self) -> Option<Staged> {
        if self.in_flight == 0 {
            return None;
        }
        let (slot, _) = self.oc_ex.oldest(MEMORY_PIPE)?;
        let id = self.oc_ex.take(MEMORY_PIPE, slot)?;
        self.dispatch_stuck = false;
        let staged = self.staged[id];
        self.staged.remove_index(id);
        self.in_flight -= 1;
        Some(staged)
    }

    /// The operand collector's steps of one cycle.
    pub(crate) fn read_operands(&mut self) {
        if self.in_flight == 0 {
            // Nothing to collect; only the writeback's bank claims expire.
            self.bank_written.clear();
            return;
        }
        for _ in 0..self.steps_per_cycle {
            if self.busy_collectors > 0 {
                self.dispatch_ready();
                self.read_banks();
            }
            self.allocate_collectors();
            self.bank_written.clear();
        }
    }

    /// The first cycle after `now` at which the pipeline has work: the next
    /// cycle while something may move ([`Pipeline::moves_next_cycle`]), else
    /// the first instruction reaching the end of a unit's pipeline
    /// (`u64::MAX`: nothing in flight). `ldst_busy`: the LD/ST unit holds an
    /// instruction, and takes none from `OC_EX` before it is done with it.
    pub(crate) fn next_event(&self, now: u64, ldst_busy: bool) -> u64 {
        if self.in_flight == 0 {
            return u64::MAX;
        }
        if self.moves_next_cycle(ldst_busy) {
            return now + 1;
        }
        let mut exit = u64::MAX;
        self.busy_units.for_each(|u| {
            if let Some(held) = self.units[u].stages.first() {
                exit = exit.min(held.exit);
            }
        });
        exit.max(now + 1)
    }

    /// Whether a cycle from now could change anything but the units'
    /// pipelines, whose ends [`Pipeline::next_event`] times. It could not when
    /// `EX_WB` and the dispatch registers are empty, each collector step would
    /// move nothing (no read queued on a bank, dispatch and allocation stuck
    /// as their flags record, allocation behind busy collectors) and `OC_EX`
    /// holds only instructions for a busy LD/ST unit. Then only the LD/ST
    /// unit taking its next instruction, which the memory pipeline's own wake
    /// covers, or an issue, which wakes the SM, ends the wait.
    /// Memory-divergent runs spend most cycles there: collectors full of
    /// loads behind one the L1 cannot take yet.
    fn moves_next_cycle(&self, ldst_busy: bool) -> bool {
        let memory_pipe = 1 << MEMORY_PIPE;
        let collecting = self.busy_collectors > 0 && !(self.dispatch_stuck && self.queued_banks.count() == 0);
        // Allocation waits for a busy collector to free; with none busy, an
        // instruction that finds no collector never will (a config whose
        // port has none), and the SM keeps retrying it every cycle, as
        // GPGPU-Sim does until its deadlock check stops the run.
        let behind_busy_collectors = self.allocate_stuck && self.busy_collectors > 0;
        let allocating = !(self.id_oc.is_empty() || behind_busy_collectors);
        let feeding = self.oc_ex.held & !memory_pipe != 0 || (self.oc_ex.held & memory_pipe != 0 && !ldst_busy);
        !self.ex_wb.is_empty() || self.dispatching > 0 || collecting || allocating || feeding
    }

    /// GPGPU-Sim's `register_bank`: the register's number (SASS's plus one)
    /// plus the warp slot, modulo the banks, within the scheduler's share of
    /// them under the sub-core model.
    fn bank_of(&self, reg: Reg, warp: u16, scheduler: u8) -> usize {
        let number = usize::from(reg.0) + 1 + usize::from(warp);
        if self.sub_core {
            let share = self.banks_per_scheduler;
            let bank = number % share + usize::from(scheduler) * share;
            // Below the bank count unless there are fewer banks than
            // schedulers: the second division is rarely needed.
            if bank < self.bank_reads.len() { bank } else { bank % self.bank_reads.len() }
        } else {
            number % self.bank_reads.len()
        }
    }

    /// The unit's pipeline moves on: the instruction at its end goes to
    /// `EX_WB`, the dispatch register counts down and enters the pipeline
    /// when its initiation interval has passed.
    fn advance_unit(&mut self, u: usize, now: u64) {
        let unit = &mut self.units[u];
        while let Some(&held) = unit.stages.first() {
            if held.exit > now {
                break;
            }
            unit.stages.remove(0);
            self.ex_wb.push(held.id);
        }
        let Some(held) = unit.dispatch else { return };
        unit.dispatch_left = unit.dispatch_left.saturating_sub(1);
        if unit.dispatch_left > 0 {
            return;
        }
        let staged = &self.staged[held.id];
        let stage = u64::from(staged.latency.saturating_sub(staged.initiation));
        let exit = now + stage + 1;
        if unit.stages.iter().any(|other| other.exit == exit) {
            return;
        }
        let at = unit.stages.partition_point(|other| other.exit < exit);
        unit.stages.insert(at, InUnit { exit, ..held });
        unit.dispatch = None;
    }

    /// The unit takes an instruction from its `OC_EX` register if it can
    /// (GPGPU-Sim's `can_issue` and the result-bus test of `execute`).
    fn feed_unit(&mut self, u: usize, now: u64) {
        let unit = &self.units[u];
        let pipe = usize::from(unit.pipe);
        if unit.dispatch.is_some() || !self.oc_ex.holds(pipe) {
            return;
        }
        let slot = if self.sub_core {
            Some(self.oc_ex.slot_of(pipe, unit.slot))
        } else {
            self.oc_ex.oldest(pipe).map(|(slot, _)| slot)
        };
        let Some(slot) = slot else { return };
        let Some(id) = self.oc_ex.at(pipe, slot) else { return };
        let finish = now + u64::from(self.staged[id].latency);
        if unit.due_at(finish) || !self.reserve_result_bus(finish, now) {
            return;
        }
        self.oc_ex.take(pipe, slot);
        self.dispatch_stuck = false;
        let unit = &mut self.units[u];
        unit.dispatch = Some(InUnit { id, due: finish, exit: 0 });
        unit.dispatch_left = self.staged[id].initiation.max(1);
    }

    /// Takes a result bus for cycle `finish`, if one is free then. Past
    /// reservations (before `now`, so before `finish`) never match; they are
    /// dropped only once there are several, not on every call.
    fn reserve_result_bus(&mut self, finish: u64, now: u64) -> bool {
        if self.result_buses.len() >= PAST_RESERVATIONS_KEPT {
            self.result_buses.retain(|&(cycle, _)| cycle >= now);
        }
        match self.result_buses.iter_mut().find(|(cycle, _)| *cycle == finish) {
            Some((_, taken)) if *taken >= self.n_result_buses => false,
            Some((_, taken)) => {
                *taken += 1;
                true
            }
            None => {
                self.result_buses.push((finish, 1));
                true
            }
        }
    }

    /// Step 1: each set's dispatch units move ready collectors into `OC_EX`.
    /// A set with no collector whose operands are all read has nothing to move.
    fn dispatch_ready(&mut self) {
        if self.dispatch_stuck {
            return;
        }
        let busy_before = self.busy_collectors;
        for s in 0..self.sets.len() {
            if self.sets[s].complete == 0 {
                continue;
            }
            for d in 0..self.sets[s].last_dispatched.len() {
                // With no complete collector left, the next unit's search
                // would visit the whole set to find none.
                if self.sets[s].complete == 0 {
                    break;
                }
                let Some(c) = self.find_ready(s, d) else { break };
                self.sets[s].last_dispatched[d] = c - self.sets[s].first;
                let collector = self.collectors[c];
                let Some(id) = collector.staged else { continue };
                let owner = self.sub_core.then_some(usize::from(collector.owner));
                self.oc_ex.put(usize::from(collector.out_pipe), owner, id, self.staged[id].uid);
                self.collectors[c] = Collector { owner: collector.owner, set: collector.set, ..Collector::default() };
                self.busy_collectors -= 1;
                if self.refused != 0 {
                    self.forget_refusals_at(s, c);
                }
                self.sets[s].complete -= 1;
                self.sets[s].free += 1;
                self.allocate_stuck = false;
            }
        }
        self.dispatch_stuck = self.busy_collectors == busy_before;
    }

    /// GPGPU-Sim's `dispatch_unit_t::find_ready`: round robin over the set
    /// from past the last collector dispatched (under the sub-core model,
    /// from the next scheduler's share).
    fn find_ready(&self, s: usize, d: usize) -> Option<usize> {
        let set = &self.sets[s];
        let last = set.last_dispatched[d];
        let share = set.per_scheduler.max(1);
        let increment = if self.sub_core { share - last % share } else { 1 };
        // `last` is below the set's length and the increment at most that
        // length: one subtraction wraps it.
        let next = last + increment;
        let mut next = if next >= set.len { next - set.len } else { next };
        for _ in 0..set.len {
            if self.is_ready(set.first + next) {
                return Some(set.first + next);
            }
            next = if next + 1 == set.len { 0 } else { next + 1 };
        }
        None
    }

    fn is_ready(&self, c: usize) -> bool {
        let collector = &self.collectors[c];
        collector.staged.is_some()
            && collector.unread == 0
            && self
                .oc_ex
                .has_free(usize::from(collector.out_pipe), self.sub_core.then_some(usize::from(collector.owner)))
    }

    /// Step 2: every bank not written this step serves its oldest read.
    fn read_banks(&mut self) {
        for word in 0..self.queued_banks.n_words() {
            let serving = self.queued_banks.word(word) & !self.bank_written.word(word);
            for_each_bit(word, serving, |bank| {
                let reads = &mut self.bank_reads[bank];
                let Some((c, operand)) = reads.pop_front() else { return };
                if reads.is_empty() {
                    self.queued_banks.remove(bank);
                }
                let collector = &mut self.collectors[usize::from(c)];
                collector.unread &= !(1 << operand);
                if collector.unread == 0 {
                    self.sets[usize::from(collector.set)].complete += 1;
                    self.dispatch_stuck = false;
                }
            });
        }
    }

    /// Step 3: each port moves the oldest instruction of each `ID_OC` register
    /// it serves into a free collector unit.
    ///
    /// Allocation only fills collectors, so once every register is empty or
    /// every collector busy the remaining ports can do nothing, and a port
    /// like the one before it can do nothing if that one did nothing: its
    /// registers' oldest instructions found no free collector there and still
    /// find none.
    fn allocate_collectors(&mut self) {
        if self.allocate_stuck {
            return;
        }
        let busy_at_start = self.busy_collectors;
        let mut previous_allocated = true;
        for p in 0..self.ports.len() {
            if self.id_oc.is_empty() || self.busy_collectors == self.collectors.len() {
                break;
            }
            if self.ports[p].same_as_previous && !previous_allocated {
                continue;
            }
            let busy_before = self.busy_collectors;
            self.allocate_for_port(p);
            previous_allocated = self.busy_collectors > busy_before;
        }
        self.allocate_stuck = self.busy_collectors == busy_at_start;
    }

    /// Port `p` moves the oldest instruction of each `ID_OC` register it
    /// serves into a free collector unit.
    ///
    /// Only the registers holding an instruction are visited: allocation
    /// puts nothing into `ID_OC`, so those the port serves are known at the
    /// start, and the port stops once it has visited them all. (A generic
    /// port serves six registers and one per enabled specialized unit; a
    /// compute-bound SM usually has one or two holding an instruction.)
    fn allocate_for_port(&mut self, p: usize) {
        let mut waiting = self.ports[p].pipe_mask & self.id_oc.held;
        // Most often one register holds an instruction: no order to follow.
        if waiting.is_power_of_two() {
            self.allocate_from(p, waiting.trailing_zeros() as usize);
            return;
        }
        for i in 0..self.ports[p].pipes().len() {
            if waiting == 0 {
                return;
            }
            let pipe = usize::from(self.ports[p].pipes[i]);
            if waiting & (1 << pipe) != 0 {
                waiting &= !(1 << pipe);
                self.allocate_from(p, pipe);
            }
        }
    }

    /// Port `p` moves the oldest instruction of pipeline `pipe`'s `ID_OC`
    /// register into a free collector unit, if it has one for it.
    ///
    /// A look that finds none is remembered ([`Pipeline::refused`]): until
    /// allocation takes from that register or a collector of the scheduler's
    /// share frees, a port of the same group would find none again, since
    /// the same instruction is still the oldest (those issued since are
    /// younger) and nothing has freed for it. On a compute-bound SM most
    /// allocation steps end with such a look, repeated while the scheduler's
    /// collectors read their operands.
    fn allocate_from(&mut self, p: usize, pipe: usize) {
        if self.refused & (1 << pipe) != 0 && self.refused_group[pipe] == self.ports[p].sets_group {
            debug_assert!(self.finds_no_collector(p, pipe), "a kept refusal must hold");
            return;
        }
        let Some((slot, id)) = self.id_oc.oldest(pipe) else { return };
        let scheduler = usize::from(self.staged[id].scheduler);
        let Some(c) = self.free_collector(p, scheduler) else {
            self.refuse(pipe, self.ports[p].sets_group, scheduler);
            return;
        };
        self.id_oc.take(pipe, slot);
        self.refused &= !(1 << pipe);
        self.start_collecting(c, id, pipe);
    }

    /// Remembers that pipeline `pipe`'s oldest instruction, of scheduler
    /// `scheduler`, found no collector in port group `sets_group`'s sets.
    fn refuse(&mut self, pipe: usize, sets_group: u8, scheduler: usize) {
        let share = if self.sub_core { scheduler } else { 0 };
        if let Some(mask) = self.refused_by_share.get_mut(share) {
            // A bit left in another share's mask by an earlier refusal only
            // clears this one early: a look taken again, never one skipped.
            *mask |= 1 << pipe;
            self.refused |= 1 << pipe;
            self.refused_group[pipe] = sets_group;
        }
    }

    /// Collector `c` of set `s` freed: the refusals its share's looks made
    /// no longer hold. (A scheduler's look covers its range of each set,
    /// [`Pipeline::free_collector`]; without the sub-core model, all of it.)
    fn forget_refusals_at(&mut self, s: usize, c: usize) {
        let share = if self.sub_core {
            let set = &self.sets[s];
            (c - set.first) / set.per_scheduler.max(1)
        } else {
            0
        };
        if let Some(mask) = self.refused_by_share.get_mut(share) {
            self.refused &= !*mask;
            *mask = 0;
        }
    }

    /// Whether port `p` finds no free collector for the oldest instruction
    /// of pipeline `pipe`'s `ID_OC` register, looking again.
    fn finds_no_collector(&self, p: usize, pipe: usize) -> bool {
        let scheduler_of = |id: u32| usize::from(self.staged[id].scheduler);
        self.id_oc.oldest(pipe).is_none_or(|(_, id)| self.free_collector(p, scheduler_of(id)).is_none())
    }

    /// A free collector of port `p`'s sets, in order, within the scheduler's
    /// share of each set under the sub-core model.
    fn free_collector(&self, p: usize, scheduler: usize) -> Option<usize> {
        for &s in self.ports[p].sets() {
            let set = &self.sets[usize::from(s)];
            if set.free == 0 {
                continue;
            }
            let range = if self.sub_core {
                let share = set.per_scheduler;
                set.first + scheduler * share..set.first + (scheduler + 1) * share
            } else {
                set.first..set.first + set.len
            };
            if let Some(c) = range.into_iter().find(|&c| self.collectors[c].staged.is_none()) {
                return Some(c);
            }
        }
        None
    }

    fn start_collecting(&mut self, c: usize, id: u32, pipe: usize) {
        let staged = self.staged[id];
        let mut unread = 0u8;
        for (operand, &reg) in staged.srcs().iter().enumerate() {
            let bank = self.bank_of(reg, staged.warp, staged.scheduler);
            self.bank_reads[bank].push_back((c as u16, operand as u8));
            self.queued_banks.insert(bank);
            unread |= 1 << operand;
        }
        let Collector { owner, set, .. } = self.collectors[c];
        self.collectors[c] = Collector { staged: Some(id), unread, out_pipe: pipe as u8, owner, set };
        self.busy_collectors += 1;
        self.sets[usize::from(set)].free -= 1;
        if unread == 0 {
            self.sets[usize::from(set)].complete += 1;
            self.dispatch_stuck = false;
        }
    }
}

/// Result-bus reservations kept before the past ones are dropped.
const PAST_RESERVATIONS_KEPT: usize = 8;

/// The members of `range` among the ids of word `word` (`64 * word ..`), as its bits.
fn word_of_range(range: &std::ops::Range<usize>, word: usize) -> u64 {
    let (low, high) = (word * 64, word * 64 + 64);
    let (start, end) = (range.start.clamp(low, high), range.end.clamp(low, high));
    if start >= end {
        return 0;
    }
    let ones = |n: usize| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    ones(end - low) & !ones(start - low)
}

/// The widths of the `ID_OC` and `OC_EX` register sets of every pipeline.
fn register_sets(config: &GpuConfig) -> ([u32; N_PIPES], [u32; N_PIPES]) {
    let w = &config.units.widths;
    let mut id_oc = [0; N_PIPES];
    let mut oc_ex = [0; N_PIPES];
    let fixed = [
        (UnitClass::Sp, w.id_oc_sp, w.oc_ex_sp),
        (UnitClass::Int, w.id_oc_int, w.oc_ex_int),
        (UnitClass::Dp, w.id_oc_dp, w.oc_ex_dp),
        (UnitClass::Sfu, w.id_oc_sfu, w.oc_ex_sfu),
        (UnitClass::Tensor, w.id_oc_tensor, w.oc_ex_tensor),
    ];
    for (class, id, ex) in fixed {
        id_oc[unit_index(class)] = id;
        oc_ex[unit_index(class)] = ex;
    }
    for unit in config.units.specialized.iter().filter(|unit| unit.enabled) {
        let pipe = unit_index(UnitClass::Specialized(unit.id));
        id_oc[pipe] = unit.id_oc_width;
        oc_ex[pipe] = unit.oc_ex_width;
    }
    id_oc[MEMORY_PIPE] = w.id_oc_mem;
    oc_ex[MEMORY_PIPE] = w.oc_ex_mem;
    (id_oc, oc_ex)
}

/// The collector units and sets GPGPU-Sim builds (`create_exec_pipeline`):
/// the generic set, then the specialized ones when enabled; and for each set
/// kind built, its index.
fn build_collectors(
    config: &GpuConfig,
    n_schedulers: usize,
) -> (Vec<Collector>, Vec<CollectorSet>, Vec<(CollectorSetKind, usize)>) {
    let oc = &config.units.operand_collector;
    let mut sets = Vec::new();
    let mut index = Vec::new();
    let mut total = 0;
    for set in oc.built_sets() {
        index.push((set.kind, sets.len()));
        sets.push(CollectorSet {
            first: total,
            len: set.units as usize,
            last_dispatched: vec![0; set.out_ports as usize],
            per_scheduler: set.units as usize / n_schedulers,
            complete: 0,
            free: set.units,
        });
        total += set.units as usize;
    }
    // GPGPU-Sim numbers a collector's scheduler over all collectors.
    let per_scheduler = (total / n_schedulers).max(1);
    let set_of = |c: usize| sets.iter().position(|set: &CollectorSet| (set.first..set.first + set.len).contains(&c));
    let collectors = (0..total)
        .map(|c| Collector {
            owner: (c / per_scheduler) as u8,
            set: set_of(c).unwrap_or(0) as u8,
            ..Collector::default()
        })
        .collect();
    (collectors, sets, index)
}

/// The collector's input ports ([`collector_ports`]), with pipelines and
/// sets as indices here; a set that is not built is left out.
fn build_ports(config: &GpuConfig, set_index: &[(CollectorSetKind, usize)]) -> Vec<Port> {
    let set_of = |kind: CollectorSetKind| set_index.iter().find(|(k, _)| *k == kind).map(|&(_, s)| s);
    let pipe_index = |pipe: DispatchPipe| match pipe {
        DispatchPipe::Unit(class) => unit_index(class) as u8,
        DispatchPipe::Memory => MEMORY_PIPE as u8,
    };
    let mut ports: Vec<Port> = collector_ports(config)
        .into_iter()
        .map(|port| {
            let mut built = Port {
                pipes: [0; N_PIPES],
                n_pipes: 0,
                pipe_mask: 0,
                sets: [0; MAX_PORT_SETS],
                n_sets: 0,
                same_as_previous: false,
                sets_group: 0,
            };
            for pipe in port.pipes.into_iter().map(pipe_index) {
                if built.pipe_mask & (1 << pipe) == 0 {
                    built.pipes[usize::from(built.n_pipes)] = pipe;
                    built.n_pipes += 1;
                    built.pipe_mask |= 1 << pipe;
                }
            }
            for set in port.sets.into_iter().filter_map(set_of).take(MAX_PORT_SETS) {
                built.sets[usize::from(built.n_sets)] = set as u8;
                built.n_sets += 1;
            }
            built
        })
        .collect();
    for p in 0..ports.len() {
        let group = (0..p).find(|&q| ports[q].sets() == ports[p].sets()).unwrap_or(p);
        ports[p].sets_group = u8::try_from(group).unwrap_or(u8::MAX);
    }
    for p in 1..ports.len() {
        ports[p].same_as_previous = ports[p] == Port { same_as_previous: false, ..ports[p - 1].clone() };
    }
    ports
}

/// The execution units in GPGPU-Sim's order (SP, DP, INT, SFU, tensor,
/// specialized); unit k of a class takes slot k of its `OC_EX` register under
/// the sub-core model.
fn build_units(config: &GpuConfig) -> Vec<ExecUnit> {
    let units = &config.units;
    let mut classes = vec![
        (UnitClass::Sp, units.n_sp_units),
        (UnitClass::Dp, units.n_dp_units),
        (UnitClass::Int, units.n_int_units),
        (UnitClass::Sfu, units.n_sfu_units),
        (UnitClass::Tensor, units.n_units(UnitClass::Tensor)),
    ];
    for unit in units.specialized.iter().filter(|unit| unit.enabled) {
        classes.push((UnitClass::Specialized(unit.id), unit.n_units));
    }
    let mut built = Vec::new();
    for (class, count) in classes {
        for k in 0..count as usize {
            built.push(ExecUnit {
                pipe: unit_index(class) as u8,
                slot: k,
                dispatch: None,
                dispatch_left: 0,
                stages: Vec::new(),
            });
        }
    }
    built
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_of_units_becomes_the_bits_of_each_word() {
        assert_eq!(word_of_range(&(0..4), 0), 0b1111);
        assert_eq!(word_of_range(&(4..8), 0), 0b1111_0000);
        assert_eq!(word_of_range(&(4..8), 1), 0);
        assert_eq!(word_of_range(&(60..70), 0), 0b1111 << 60);
        assert_eq!(word_of_range(&(60..70), 1), 0b11_1111);
        assert_eq!(word_of_range(&(0..64), 0), u64::MAX);
        assert_eq!(word_of_range(&(3..3), 0), 0);
    }

    #[test]
    fn register_slots_track_what_is_free_for_each_scheduler() {
        // Two slots for four schedulers: schedulers 0 and 2 share slot 0.
        let mut widths = [0; N_PIPES];
        widths[MEMORY_PIPE] = 2;
        let mut registers = StageRegisters::new(widths, 4);
        assert!(registers.is_empty() && registers.has_free(MEMORY_PIPE, Some(2)));
        registers.put(MEMORY_PIPE, Some(2), 7, 40);
        assert!(!registers.has_free(MEMORY_PIPE, Some(0)) && registers.has_free(MEMORY_PIPE, Some(1)));
        assert!(registers.has_free(MEMORY_PIPE, None));
        registers.put(MEMORY_PIPE, None, 8, 41);
        assert!(!registers.has_free(MEMORY_PIPE, None) && !registers.has_free(MEMORY_PIPE, Some(3)));
        assert_eq!(registers.oldest(MEMORY_PIPE), Some((0, 7)));
        assert_eq!(registers.take(MEMORY_PIPE, 0), Some(7));
        assert_eq!((registers.oldest(MEMORY_PIPE), registers.at(MEMORY_PIPE, 1)), (Some((1, 8)), Some(8)));
        assert!(registers.has_free(MEMORY_PIPE, Some(2)) && !registers.has_free(MEMORY_PIPE, Some(1)));
        // The oldest by issue order, not by slot.
        registers.put(MEMORY_PIPE, Some(0), 9, 42);
        assert_eq!(registers.oldest(MEMORY_PIPE), Some((1, 8)));
        assert!(!registers.has_free(0, Some(0)), "a pipeline without slots is never free");
    }

    /// Pipelines the register tests use: few, so that sets fill.
    const PIPES_USED: usize = 3;

    proptest::proptest! {
        /// After issue's puts, a collector cycle's takes record as room
        /// exactly the schedulers that gained a free `ID_OC` slot (those past
        /// the first [`FAST_SCHEDULERS`]: at least those). Fails if a take
        /// records no room, or room for a scheduler whose slot it was not, or
        /// for a set that was not full without the sub-core model.
        #[test]
        fn the_room_taken_is_the_room_schedulers_gained(
            sub_core: bool,
            n_schedulers in 1usize..=10,
            widths in proptest::collection::vec(0u32..=4, PIPES_USED),
            puts in proptest::collection::vec((0..PIPES_USED, 0usize..10), 0..24),
            takes in proptest::collection::vec((0..PIPES_USED, 0usize..4), 0..8),
        ) {
            let mut all_widths = [0; N_PIPES];
            all_widths[..PIPES_USED].copy_from_slice(&widths);
            let mut registers = StageRegisters::new(all_widths, n_schedulers);
            for (uid, &(pipe, k)) in puts.iter().enumerate() {
                let slot = sub_core.then_some(k % n_schedulers);
                if registers.has_free(pipe, slot) {
                    registers.put(pipe, slot, uid as u32, uid as u64);
                }
            }
            registers.room = IssueRoom::default();
            let free = |registers: &StageRegisters, k: usize| {
                (0..N_PIPES).map(|pipe| registers.has_free(pipe, sub_core.then_some(k))).collect::<Vec<_>>()
            };
            let before: Vec<_> = (0..n_schedulers).map(|k| free(&registers, k)).collect();
            for &(pipe, slot) in &takes {
                registers.take(pipe, slot);
            }
            let room = IssueRoom { sub_core, ..registers.room };
            for (k, before) in before.iter().enumerate() {
                let after = free(&registers, k);
                let gained = (0..N_PIPES).any(|pipe| after[pipe] && !before[pipe]);
                if sub_core && k >= FAST_SCHEDULERS {
                    proptest::prop_assert!(room.gained_for(k) || !gained, "scheduler {} missed", k);
                } else {
                    proptest::prop_assert_eq!(room.gained_for(k), gained, "scheduler {}", k);
                }
            }
        }
    }

    /// An SP instruction of warp `warp` writing `R(i)` from `n_src` registers
    /// in one bank (16 apart), read one per cycle: its collector stays busy
    /// that long.
    fn sp_instruction(warp: u16, scheduler: u8, i: u16, n_src: u8) -> Staged {
        let src = std::array::from_fn(|s| if s < usize::from(n_src) { Reg(i + 16 * (s as u16 + 1)) } else { Reg::RZ });
        let mut dst = [Reg::RZ; MAX_DST_REGS];
        dst[0] = Reg(i);
        let pipe = unit_index(UnitClass::Sp) as u8;
        Staged {
            warp,
            scheduler,
            pipe,
            uid: 0,
            latency: 4,
            initiation: 1,
            index: 0,
            load: None,
            n_dst: 1,
            dst,
            n_src,
            src,
        }
    }

    /// QV100 with the sub-core model on or off and, if `sets` is given, only
    /// these collector sets (kind, units), specialized, each with one port
    /// in and one out.
    fn with_sets(sub_core: bool, sets: Option<&[(CollectorSetKind, u32)]>) -> GpuConfig {
        let mut config = warplab_config::preset("QV100").unwrap().config().unwrap();
        config.scheduling.sub_core_model = sub_core;
        if let Some(sets) = sets {
            let oc = &mut config.units.operand_collector;
            oc.specialized_sets = true;
            for set in &mut oc.sets {
                let (units, ports) = sets.iter().find(|(kind, _)| *kind == set.kind).map_or((0, 0), |&(_, n)| (n, 1));
                (set.units, set.in_ports, set.out_ports) = (units, ports, ports);
            }
        }
        config
    }

    /// A kept refusal holds: [`Pipeline::allocate_from`] looks again each
    /// time it keeps one and asserts that the look finds no collector (in
    /// builds with debug assertions, as tests are). Two of the four
    /// schedulers (not the first: its share is where a wrong share would
    /// land) issue more than their collectors hold, so many allocation steps
    /// are refused while other collectors stay free (allocation looks only
    /// while one is), and every refused instruction goes once collectors
    /// free. The configurations: the sub-core model's shares of one set; one
    /// set for SP without it (beside an idle one); two port groups serving
    /// SP, with and without it.
    #[test]
    fn a_kept_refusal_holds_until_an_instruction_goes_or_a_collector_frees() {
        use CollectorSetKind::{Generic, Memory, Sp};
        let configs = [
            with_sets(true, None),
            with_sets(false, Some(&[(Sp, 4), (Memory, 4)])),
            with_sets(false, Some(&[(Generic, 2), (Sp, 4), (Memory, 4)])),
            with_sets(true, Some(&[(Generic, 4), (Sp, 8)])),
        ];
        let mut kept_at_cycle_end = 0;
        for (case, config) in configs.iter().enumerate() {
            let mut pipeline = Pipeline::new(config);
            let mut done = Vec::new();
            let (mut issued, mut retired) = (0, 0);
            for now in 0..400 {
                for k in 1..3 {
                    let staged = sp_instruction(k as u16, k as u8, (now % 8) as u16, if k == 1 { 4 } else { 3 });
                    if now < 40 && pipeline.can_issue(usize::from(staged.pipe), k) {
                        pipeline.issue(staged);
                        issued += 1;
                    }
                }
                pipeline.read_operands();
                kept_at_cycle_end += pipeline.refused.count_ones();
                pipeline.execute(now);
                pipeline.writeback(&mut done);
                retired += done.len();
            }
            assert!(issued > pipeline.collectors.len(), "case {case}: {issued} issued");
            assert_eq!(retired, issued, "case {case}: every instruction retires");
        }
        assert!(kept_at_cycle_end > 0, "refusals were kept");
    }
}
