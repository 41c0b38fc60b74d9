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

use crate::ops::{N_UNIT_CLASSES, unit_index};
use crate::request::Slab;

/// The LD/ST unit's pipeline index, after the execution-unit classes.
pub(crate) const MEMORY_PIPE: usize = N_UNIT_CLASSES;

/// Pipelines: the execution-unit classes, then the LD/ST unit.
pub(crate) const N_PIPES: usize = N_UNIT_CLASSES + 1;

/// Entries of the result-bus reservation ring: more than any latency
/// (GPGPU-Sim's `MAX_ALU_LATENCY` is 512).
const RESULT_BUS_RING: usize = 1024;

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

/// One pipeline register set (`ID_OC_*`, `OC_EX_*`): a slot per entry of its width.
#[derive(Debug, Clone, Default)]
struct RegisterSet {
    slots: Vec<Option<u32>>,
}

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
}

/// A set of collector units: `collectors[first..first + len]`, with its dispatch units.
#[derive(Debug, Clone)]
struct CollectorSet {
    first: usize,
    len: usize,
    /// Per dispatch unit, the last collector (within the set) it dispatched.
    last_dispatched: Vec<usize>,
}

/// An operand collector input port: the pipelines whose `ID_OC` registers it
/// takes from and the sets (by index, in order of preference) it allocates in.
#[derive(Debug, Clone)]
struct Port {
    pipes: Vec<u8>,
    sets: Vec<usize>,
}

/// One execution unit (`pipelined_simd_unit`).
#[derive(Debug, Clone)]
struct ExecUnit {
    pipe: u8,
    /// The `OC_EX` slot it takes from under the sub-core model.
    slot: usize,
    dispatch: Option<u32>,
    /// Cycles its dispatch register still holds the instruction (GPGPU-Sim's `dispatch_delay`).
    dispatch_left: u16,
    /// Instructions in its pipeline, by the cycle they reach `EX_WB`, earliest first.
    stages: VecDeque<(u64, u32)>,
    /// The cycles at which instructions it took finish (GPGPU-Sim's `occupied`
    /// bit set: two may not finish in one cycle).
    finishing: VecDeque<u64>,
}

/// The pipeline registers, operand collector and execution units of one SM.
#[derive(Debug, Clone)]
pub(crate) struct Pipeline {
    staged: Slab<Staged>,
    /// Instructions anywhere between issue and writeback (or the LD/ST unit).
    in_flight: usize,
    next_uid: u64,
    sub_core: bool,
    n_schedulers: usize,
    steps_per_cycle: u32,
    id_oc: Vec<RegisterSet>,
    oc_ex: Vec<RegisterSet>,
    collectors: Vec<Collector>,
    busy_collectors: usize,
    sets: Vec<CollectorSet>,
    ports: Vec<Port>,
    /// Per register bank, the reads queued on it: (collector, operand).
    bank_reads: Vec<VecDeque<(u16, u8)>>,
    /// Banks the writeback took for this cycle's first collector step.
    bank_written: Vec<bool>,
    banks_per_scheduler: usize,
    units: Vec<ExecUnit>,
    /// Result-bus reservations: (cycle, buses taken) at `cycle % RESULT_BUS_RING`.
    result_buses: Vec<(u64, u8)>,
    n_result_buses: u8,
    ex_wb: Vec<u32>,
}

impl RegisterSet {
    fn new(width: u32) -> Self {
        Self { slots: vec![None; width as usize] }
    }

    /// The slot a scheduler's (or a partitioned unit's) instruction uses under
    /// the sub-core model; a set narrower than the schedulers wraps.
    fn slot_of(&self, index: usize) -> usize {
        index % self.slots.len().max(1)
    }

    fn has_free(&self, slot: Option<usize>) -> bool {
        match slot {
            Some(index) => self.slots.get(self.slot_of(index)).is_some_and(Option::is_none),
            None => self.slots.iter().any(Option::is_none),
        }
    }

    fn put(&mut self, slot: Option<usize>, id: u32) {
        let index = match slot {
            Some(index) => self.slot_of(index),
            None => self.slots.iter().position(Option::is_none).unwrap_or(0),
        };
        if let Some(entry) = self.slots.get_mut(index) {
            *entry = Some(id);
        }
    }

    /// The slot of the oldest instruction held (lowest uid).
    fn oldest(&self, staged: &Slab<Staged>) -> Option<usize> {
        let held = self.slots.iter().enumerate().filter_map(|(slot, id)| id.map(|id| (slot, staged[id].uid)));
        held.min_by_key(|&(_, uid)| uid).map(|(slot, _)| slot)
    }

    fn is_empty(&self) -> bool {
        self.slots.iter().all(Option::is_none)
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
        Self {
            staged: Slab::default(),
            in_flight: 0,
            next_uid: 0,
            sub_core,
            n_schedulers,
            steps_per_cycle: oc.reg_file_port_throughput.max(1),
            id_oc,
            oc_ex,
            collectors,
            busy_collectors: 0,
            sets,
            ports,
            bank_reads: vec![VecDeque::new(); n_banks],
            bank_written: vec![false; n_banks],
            banks_per_scheduler: (n_banks / n_schedulers).max(1),
            units: build_units(config),
            result_buses: vec![(u64::MAX, 0); RESULT_BUS_RING],
            n_result_buses: u8::try_from(units.widths.ex_wb.max(1)).unwrap_or(u8::MAX),
            ex_wb: Vec::new(),
        }
    }

    /// Whether nothing is between issue and writeback.
    pub(crate) fn is_empty(&self) -> bool {
        self.in_flight == 0
    }

    /// Whether scheduler `scheduler` may issue into pipeline `pipe` now: its
    /// `ID_OC` register has room (GPGPU-Sim's `has_free`).
    pub(crate) fn can_issue(&self, pipe: usize, scheduler: usize) -> bool {
        self.id_oc[pipe].has_free(self.sub_core.then_some(scheduler))
    }

    /// Issues `staged` into its pipeline's `ID_OC` register (the caller checked
    /// [`Pipeline::can_issue`]); numbers it in issue order.
    pub(crate) fn issue(&mut self, mut staged: Staged) {
        staged.uid = self.next_uid;
        self.next_uid += 1;
        let (pipe, scheduler) = (usize::from(staged.pipe), usize::from(staged.scheduler));
        let id = self.staged.insert_index(staged);
        self.id_oc[pipe].put(self.sub_core.then_some(scheduler), id);
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
                if self.bank_written[bank] {
                    break;
                }
                self.bank_written[bank] = true;
            }
            self.staged.remove_index(id);
            self.in_flight -= 1;
            done.push(staged);
        }
        self.ex_wb.clear();
    }

    /// Advances every execution unit one cycle and lets each take an
    /// instruction from its `OC_EX` register.
    pub(crate) fn execute(&mut self, now: u64) {
        for u in 0..self.units.len() {
            self.advance_unit(u, now);
            self.feed_unit(u, now);
        }
    }

    /// Takes the bank of register `reg` of warp `warp` for the LD/ST unit's
    /// writeback of a load's result (GPGPU-Sim's `opndcoll_rfu_t::writeback`
    /// called from `ldst_unit::writeback`, after the core's writeback in the
    /// same cycle): false when the bank is already taken for a write this
    /// cycle. A bank taken here serves no read in this cycle's first step.
    pub(crate) fn take_write_bank(&mut self, reg: Reg, warp: u16, scheduler: u8) -> bool {
        let bank = self.bank_of(reg, warp, scheduler);
        !std::mem::replace(&mut self.bank_written[bank], true)
    }

    /// The oldest instruction waiting for the LD/ST unit, taken out of the
    /// pipeline (the LD/ST unit calls this when its dispatch register is free).
    pub(crate) fn take_memory(&mut self) -> Option<Staged> {
        let slot = self.oc_ex[MEMORY_PIPE].oldest(&self.staged)?;
        let id = self.oc_ex[MEMORY_PIPE].slots[slot].take()?;
        let staged = self.staged[id];
        self.staged.remove_index(id);
        self.in_flight -= 1;
        Some(staged)
    }

    /// The operand collector's steps of one cycle.
    pub(crate) fn read_operands(&mut self) {
        for _ in 0..self.steps_per_cycle {
            if self.busy_collectors > 0 {
                self.dispatch_ready();
                self.read_banks();
            }
            self.allocate_collectors();
            self.bank_written.fill(false);
        }
    }

    /// The first cycle after `now` at which the pipeline has work: the next
    /// cycle while anything waits in a register, a collector, a dispatch
    /// register or `EX_WB`, else the first instruction reaching the end of a
    /// unit's pipeline (`u64::MAX`: nothing in flight).
    pub(crate) fn next_event(&self, now: u64) -> u64 {
        if self.in_flight == 0 {
            return u64::MAX;
        }
        let waiting = !self.ex_wb.is_empty()
            || self.busy_collectors > 0
            || self.units.iter().any(|unit| unit.dispatch.is_some())
            || self.id_oc.iter().chain(&self.oc_ex).any(|set| !set.is_empty());
        if waiting {
            return now + 1;
        }
        let exits = self.units.iter().filter_map(|unit| unit.stages.front().map(|&(exit, _)| exit));
        exits.min().unwrap_or(u64::MAX).max(now + 1)
    }

    /// GPGPU-Sim's `register_bank`: the register's number (SASS's plus one)
    /// plus the warp slot, modulo the banks, within the scheduler's share of
    /// them under the sub-core model.
    fn bank_of(&self, reg: Reg, warp: u16, scheduler: u8) -> usize {
        let number = usize::from(reg.0) + 1 + usize::from(warp);
        if self.sub_core {
            let share = self.banks_per_scheduler;
            (number % share + usize::from(scheduler) * share) % self.bank_reads.len()
        } else {
            number % self.bank_reads.len()
        }
    }

    /// The unit's pipeline moves on: the instruction at its end goes to
    /// `EX_WB`, the dispatch register counts down and enters the pipeline
    /// when its initiation interval has passed.
    fn advance_unit(&mut self, u: usize, now: u64) {
        let unit = &mut self.units[u];
        while let Some(&(exit, id)) = unit.stages.front() {
            if exit > now {
                break;
            }
            unit.stages.pop_front();
            self.ex_wb.push(id);
        }
        while unit.finishing.front().is_some_and(|&cycle| cycle < now) {
            unit.finishing.pop_front();
        }
        let Some(id) = unit.dispatch else { return };
        unit.dispatch_left = unit.dispatch_left.saturating_sub(1);
        if unit.dispatch_left > 0 {
            return;
        }
        let staged = &self.staged[id];
        let stage = u64::from(staged.latency.saturating_sub(staged.initiation));
        let exit = now + stage + 1;
        if unit.stages.iter().any(|&(e, _)| e == exit) {
            return;
        }
        let at = unit.stages.partition_point(|&(e, _)| e < exit);
        unit.stages.insert(at, (exit, id));
        unit.dispatch = None;
    }

    /// The unit takes an instruction from its `OC_EX` register if it can
    /// (GPGPU-Sim's `can_issue` and the result-bus test of `execute`).
    fn feed_unit(&mut self, u: usize, now: u64) {
        let unit = &self.units[u];
        if unit.dispatch.is_some() {
            return;
        }
        let register = &self.oc_ex[usize::from(unit.pipe)];
        let slot = if self.sub_core { Some(register.slot_of(unit.slot)) } else { register.oldest(&self.staged) };
        let Some(slot) = slot else { return };
        let Some(id) = register.slots.get(slot).copied().flatten() else { return };
        let finish = now + u64::from(self.staged[id].latency);
        if unit.finishing.contains(&finish) || !self.reserve_result_bus(finish) {
            return;
        }
        self.oc_ex[usize::from(self.units[u].pipe)].slots[slot] = None;
        let unit = &mut self.units[u];
        unit.dispatch = Some(id);
        unit.dispatch_left = self.staged[id].initiation.max(1);
        let at = unit.finishing.partition_point(|&cycle| cycle < finish);
        unit.finishing.insert(at, finish);
    }

    /// Takes a result bus for cycle `finish`, if one is free then.
    fn reserve_result_bus(&mut self, finish: u64) -> bool {
        let entry = &mut self.result_buses[(finish % RESULT_BUS_RING as u64) as usize];
        if entry.0 != finish {
            *entry = (finish, 0);
        }
        if entry.1 >= self.n_result_buses {
            return false;
        }
        entry.1 += 1;
        true
    }

    /// Step 1: each set's dispatch units move ready collectors into `OC_EX`.
    fn dispatch_ready(&mut self) {
        for s in 0..self.sets.len() {
            for d in 0..self.sets[s].last_dispatched.len() {
                let Some(c) = self.find_ready(s, d) else { break };
                self.sets[s].last_dispatched[d] = c - self.sets[s].first;
                let collector = self.collectors[c];
                let Some(id) = collector.staged else { continue };
                let owner = self.sub_core.then_some(usize::from(collector.owner));
                self.oc_ex[usize::from(collector.out_pipe)].put(owner, id);
                self.collectors[c] = Collector { owner: collector.owner, ..Collector::default() };
                self.busy_collectors -= 1;
            }
        }
    }

    /// GPGPU-Sim's `dispatch_unit_t::find_ready`: round robin over the set
    /// from past the last collector dispatched (under the sub-core model,
    /// from the next scheduler's share).
    fn find_ready(&self, s: usize, d: usize) -> Option<usize> {
        let set = &self.sets[s];
        let last = set.last_dispatched[d];
        let per_scheduler = (set.len / self.n_schedulers).max(1);
        let increment = if self.sub_core { per_scheduler - last % per_scheduler } else { 1 };
        (0..set.len).map(|n| set.first + (last + n + increment) % set.len).find(|&c| self.is_ready(c))
    }

    fn is_ready(&self, c: usize) -> bool {
        let collector = &self.collectors[c];
        collector.staged.is_some()
            && collector.unread == 0
            && self.oc_ex[usize::from(collector.out_pipe)]
                .has_free(self.sub_core.then_some(usize::from(collector.owner)))
    }

    /// Step 2: every bank not written this step serves its oldest read.
    fn read_banks(&mut self) {
        for bank in 0..self.bank_reads.len() {
            if self.bank_written[bank] {
                continue;
            }
            if let Some((c, operand)) = self.bank_reads[bank].pop_front() {
                self.collectors[usize::from(c)].unread &= !(1 << operand);
            }
        }
    }

    /// Step 3: each port moves the oldest instruction of each `ID_OC` register
    /// it serves into a free collector unit.
    fn allocate_collectors(&mut self) {
        if self.id_oc.iter().all(RegisterSet::is_empty) {
            return;
        }
        for p in 0..self.ports.len() {
            for i in 0..self.ports[p].pipes.len() {
                let pipe = usize::from(self.ports[p].pipes[i]);
                let Some(slot) = self.id_oc[pipe].oldest(&self.staged) else { continue };
                let Some(id) = self.id_oc[pipe].slots[slot] else { continue };
                let scheduler = usize::from(self.staged[id].scheduler);
                let Some(c) = self.free_collector(p, scheduler) else { continue };
                self.id_oc[pipe].slots[slot] = None;
                self.start_collecting(c, id, pipe);
            }
        }
    }

    /// A free collector of port `p`'s sets, in order, within the scheduler's
    /// share of each set under the sub-core model.
    fn free_collector(&self, p: usize, scheduler: usize) -> Option<usize> {
        for &s in &self.ports[p].sets {
            let set = &self.sets[s];
            let range = if self.sub_core {
                let share = set.len / self.n_schedulers;
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
            unread |= 1 << operand;
        }
        let owner = self.collectors[c].owner;
        self.collectors[c] = Collector { staged: Some(id), unread, out_pipe: pipe as u8, owner };
        self.busy_collectors += 1;
    }
}

/// The `ID_OC` and `OC_EX` register sets of every pipeline, by their widths.
fn register_sets(config: &GpuConfig) -> (Vec<RegisterSet>, Vec<RegisterSet>) {
    let w = &config.units.widths;
    let mut id_oc = vec![RegisterSet::default(); N_PIPES];
    let mut oc_ex = vec![RegisterSet::default(); N_PIPES];
    let fixed = [
        (UnitClass::Sp, w.id_oc_sp, w.oc_ex_sp),
        (UnitClass::Int, w.id_oc_int, w.oc_ex_int),
        (UnitClass::Dp, w.id_oc_dp, w.oc_ex_dp),
        (UnitClass::Sfu, w.id_oc_sfu, w.oc_ex_sfu),
        (UnitClass::Tensor, w.id_oc_tensor, w.oc_ex_tensor),
    ];
    for (class, id, ex) in fixed {
        id_oc[unit_index(class)] = RegisterSet::new(id);
        oc_ex[unit_index(class)] = RegisterSet::new(ex);
    }
    for unit in config.units.specialized.iter().filter(|unit| unit.enabled) {
        let pipe = unit_index(UnitClass::Specialized(unit.id));
        id_oc[pipe] = RegisterSet::new(unit.id_oc_width);
        oc_ex[pipe] = RegisterSet::new(unit.oc_ex_width);
    }
    id_oc[MEMORY_PIPE] = RegisterSet::new(w.id_oc_mem);
    oc_ex[MEMORY_PIPE] = RegisterSet::new(w.oc_ex_mem);
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
        });
        total += set.units as usize;
    }
    // GPGPU-Sim numbers a collector's scheduler over all collectors.
    let per_scheduler = (total / n_schedulers).max(1);
    let collectors =
        (0..total).map(|c| Collector { owner: (c / per_scheduler) as u8, ..Collector::default() }).collect();
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
    collector_ports(config)
        .into_iter()
        .map(|port| Port {
            pipes: port.pipes.into_iter().map(pipe_index).collect(),
            sets: port.sets.into_iter().filter_map(set_of).collect(),
        })
        .collect()
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
                stages: VecDeque::new(),
                finishing: VecDeque::new(),
            });
        }
    }
    built
}
