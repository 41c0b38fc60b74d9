//! The issue stage: each sub-core's warp scheduler orders its warps by policy
//! and issues the first whose next instruction has its operands (scoreboard:
//! no pending write to a source or destination register, so RAW and WAW
//! hazards wait), is not at a barrier, and finds its unit free.
//!
//! When nothing issues, the cycle is charged to one reason, in this order of
//! precedence: a ready warp found its unit busy (structural); a warp waited on
//! an arithmetic result (dependence); a warp waited at a barrier; a warp's
//! instruction buffer was empty (fetch); otherwise every warp waited on
//! memory (a load not returned, or the memory pipeline full). A warp issues
//! only what the fetch stage has decoded into its instruction buffer.
//! GPGPU-Sim's LRR, GTO, oldest-first, two-level and warp-limiting orders are
//! modelled; `rrr` (strict round robin) is treated as LRR. The two-level
//! scheduler issues from an active set of `active_warps` warps in the order
//! they joined it; its inner and outer prioritisation fields are read but, as
//! in GPGPU-Sim, only the outer round robin is implemented.

use std::ops::Range;

use warplab_config::SchedulerPolicy;
use warplab_trace::{Instruction, MAX_DST_REGS, MAX_SRC_REGS, Reg};

use super::pipeline::{MEMORY_PIPE, Staged};
use super::scoreboard::{RegState, Scoreboard};
use super::{KernelView, PENDING, Sm, WarpGate};
use crate::ops::{OpInfo, OpKind};
use crate::report::IssueBreakdown;
use crate::snapshot::WarpState;

/// The kind of unit a pipeline is, for the dual-issue rule: every
/// specialized unit is one kind (GPGPU-Sim's `exec_unit_type_t::SPECIALIZED`).
fn exec_kind(pipe: usize) -> usize {
    if pipe == MEMORY_PIPE {
        return MEMORY_PIPE;
    }
    match crate::ops::unit_class(pipe) {
        warplab_config::UnitClass::Specialized(_) => MEMORY_PIPE + 1,
        _ => pipe,
    }
}

/// Why a warp could not issue this cycle, from the least to the most
/// precedent (a cycle in which nothing issues is charged to the greatest).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub(crate) enum Stall {
    /// Waiting on a load or on the memory pipeline.
    #[default]
    Memory,
    /// Its instruction buffer was empty: waiting for fetch and decode.
    Fetch,
    /// At a barrier.
    Barrier,
    /// Waiting on an arithmetic result.
    Dependence,
    /// Ready, but its unit was busy.
    Structural,
}

/// The pipeline register a warp's next instruction waits for when that is all
/// it lacks: the pipeline's index (see [`super::pipeline`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UnitWait(pub u8);

/// Why a warp cannot issue now: the stall it is charged, the cycle before
/// which it surely cannot issue (see [`Sm::check`]), and the unit it waits
/// for when the rest of the check passed.
#[derive(Debug, Clone, Copy)]
struct Blocked {
    stall: Stall,
    until: u64,
    unit: Option<UnitWait>,
}

/// A scheduler's order of candidates, as age indexes: one first (GTO's
/// last issued), then two runs. Worked out once per scan, so the scan does
/// not ask the policy again for every warp.
struct ScanOrder {
    first: Option<usize>,
    then: Range<usize>,
    last: Range<usize>,
}

/// What a scheduler's scan learned of the warps that cannot issue: the
/// worst reason, and the first cycle one of them may issue.
struct Waits {
    /// The worst reason's [`Stall`] value plus one; 0 for none. (Noted for
    /// every warp the scan passes over: a byte's maximum costs less than an
    /// `Option`'s.)
    worst: u8,
    earliest: u64,
}

impl Waits {
    fn new(worst: Option<Stall>) -> Self {
        Self { worst: worst.map_or(0, |stall| stall as u8 + 1), earliest: PENDING }
    }

    fn note(&mut self, stall: Stall, until: u64) {
        self.worst = self.worst.max(stall as u8 + 1);
        self.earliest = self.earliest.min(until);
    }

    /// The worst reason noted.
    fn worst(&self) -> Option<Stall> {
        const BY_VALUE: [Stall; 5] =
            [Stall::Memory, Stall::Fetch, Stall::Barrier, Stall::Dependence, Stall::Structural];
        self.worst.checked_sub(1).map(|value| BY_VALUE[usize::from(value)])
    }
}

impl ScanOrder {
    /// The order as three runs of age indexes, each cut at `limit`: the scan
    /// walks plain ranges, with no test per warp of which run it is in.
    fn runs(&self, limit: usize) -> [Range<usize>; 3] {
        let first = self.first.map_or(0..0, |p| p..p + 1);
        let cut = |run: &Range<usize>| run.start.min(limit)..run.end.min(limit);
        [cut(&first), cut(&self.then), cut(&self.last)]
    }
}

/// What the issue stage and fetch read of an instruction, copied from its
/// record when its CTA launches, while the record the workload just made is
/// in the host's cache. A warp's instructions are read one by one as it
/// issues, each long after the last, and on long warps (`maxflops`) the
/// issue stage waited on that read more than on anything else. These 28
/// bytes put less through the host's caches than the 72-byte records, and
/// a long warp's run 6–12% faster (docs/performance.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct IssueView {
    pub(crate) pc: u32,
    mask: u32,
    opcode: u16,
    n_src: u8,
    n_dst: u8,
    /// The sources, then the destinations.
    regs: [Reg; MAX_SRC_REGS + MAX_DST_REGS],
}

impl IssueView {
    /// What the issue stage reads of `instruction`.
    pub(crate) fn of(instruction: &Instruction) -> Self {
        let mut regs = [Reg::RZ; MAX_SRC_REGS + MAX_DST_REGS];
        let (srcs, dsts) = (instruction.srcs(), instruction.dsts());
        // Register by register: `copy_from_slice` called `memcpy` twice for
        // these few bytes, at every instruction of every CTA launched.
        for (to, &reg) in regs.iter_mut().zip(srcs.iter().chain(dsts)) {
            *to = reg;
        }
        Self {
            pc: instruction.pc,
            mask: instruction.mask,
            opcode: instruction.opcode.0,
            n_src: srcs.len() as u8,
            n_dst: dsts.len() as u8,
            regs,
        }
    }

    /// Its source and destination registers (the scoreboard's RAW and WAW checks).
    fn regs(&self) -> &[Reg] {
        &self.regs[..usize::from(self.n_src + self.n_dst)]
    }

    fn srcs(&self) -> &[Reg] {
        &self.regs[..usize::from(self.n_src)]
    }

    fn dsts(&self) -> &[Reg] {
        &self.regs[usize::from(self.n_src)..usize::from(self.n_src + self.n_dst)]
    }
}

/// What the issue stage checks and issues of a warp's next instruction,
/// copied from its [`IssueView`] when the warp reaches it (at launch, and at
/// the issue of the one before), with the scoreboard's word on each of its
/// registers. A warp is checked again each time something wakes it, often
/// hundreds of cycles later; reading these 32 bytes, kept with the other
/// warps' of its SM, instead of the instruction among its CTA's and the
/// warp's 80 bytes of scoreboard was the issue stage's most frequent
/// host-cache miss.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct NextOp {
    op: IssueView,
    /// Bit `i`: `op.regs()[i]` waits for a load's data ([`RegState::Pending`]).
    pending: u8,
    /// Bit `i`: `op.regs()[i]` waits for an arithmetic result ([`RegState::Computing`]).
    computing: u8,
}

// The register masks are bytes.
const _: () = assert!(MAX_SRC_REGS + MAX_DST_REGS <= 8);

impl NextOp {
    /// The instruction `view` shows, of warp `w`, with what `scoreboard`
    /// says of its registers now.
    pub(crate) fn of(view: &IssueView, scoreboard: &Scoreboard, w: usize) -> Self {
        let mut next = Self { op: *view, pending: 0, computing: 0 };
        for (i, &reg) in view.regs().iter().enumerate() {
            next.mark(i, scoreboard.state(w, reg));
        }
        next
    }

    fn mark(&mut self, i: usize, state: RegState) {
        let bit = 1u8 << i;
        self.pending &= !bit;
        self.computing &= !bit;
        match state {
            RegState::Ready => {}
            RegState::Pending => self.pending |= bit,
            RegState::Computing => self.computing |= bit,
        }
    }

    /// Keeps the copy true to the scoreboard: `reg` now waits for `state`.
    pub(crate) fn note(&mut self, reg: Reg, state: RegState) {
        for i in 0..self.op.regs().len() {
            if self.op.regs[i] == reg && reg != Reg::RZ {
                self.mark(i, state);
            }
        }
    }

    /// What its first register with an outstanding write (in the order
    /// sources, then destinations) waits for: the stall it is charged.
    fn register_wait(&self) -> Option<Stall> {
        let waiting = self.pending | self.computing;
        if waiting == 0 {
            return None;
        }
        let first = 1u8 << waiting.trailing_zeros();
        Some(if self.pending & first != 0 { Stall::Memory } else { Stall::Dependence })
    }

    /// Whether a source waits for a load's data (the two-level scheduler's long wait).
    fn source_waits_for_load(&self) -> bool {
        self.pending & ((1u8 << self.op.n_src) - 1) != 0
    }
}

/// What one scheduler did in one cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IssueOutcome {
    Issued,
    Stalled(Stall),
    NoWarp,
}

impl IssueOutcome {
    /// Whether the scheduler's warps, if any, all waited on memory (what
    /// makes an SM cycle a memory stall when every scheduler says so).
    fn waits_on_memory(self) -> bool {
        matches!(self, IssueOutcome::NoWarp | IssueOutcome::Stalled(Stall::Memory))
    }
}

impl Sm {
    /// Runs every scheduler once; returns whether anything issued and whether
    /// every resident warp waited on memory.
    ///
    /// The scheduler that goes first rotates every cycle, as GPGPU-Sim's
    /// `shader_core_ctx::issue` (`Issue_Prio`) does: the first scheduler wins
    /// whatever the schedulers share (the LD/ST unit), so a fixed order would
    /// let one sub-core's warps take it every time. The rotation counts the
    /// SM's active cycles ([`super::ActiveCycles`]), slept through or not,
    /// so a sleeping SM wakes to the order it would have had.
    ///
    /// A cycle in which every scheduler sleeps is only counted here
    /// ([`Sm::rest_tick`]): memory-bound SMs are ticked for their memory
    /// pipeline while their schedulers sleep for hundreds of cycles.
    pub(crate) fn issue_cycle(&mut self, now: u64, kernels: &[KernelView]) -> (bool, bool) {
        debug_assert!(self.schedulers_wake <= self.earliest_scheduler_wake(), "a scheduler woke unseen");
        if self.schedulers_wake > now {
            return (false, self.rest_tick());
        }
        // `earliest_scheduler_wake() > now`, spelled out so that it stops at
        // the first scheduler awake: most ticks that get here scan.
        if self.scheduler_gates.iter().all(|gate| gate.warps == 0 || gate.sleep_until > now) {
            self.schedulers_wake = self.earliest_scheduler_wake();
            return (false, self.rest_tick());
        }
        self.charge_rest();
        let mut issued_any = false;
        let mut all_memory = true;
        let n_schedulers = self.schedulers.len();
        let first = (self.active_cycles.before(now) % n_schedulers as u64) as usize;
        for turn in 0..n_schedulers {
            let k = if first + turn >= n_schedulers { first + turn - n_schedulers } else { first + turn };
            let outcome = self.schedule(k, now, kernels);
            self.counters.issue.add(outcome, 1);
            issued_any |= outcome == IssueOutcome::Issued;
            all_memory &= outcome.waits_on_memory();
        }
        (issued_any, all_memory && self.used.warps > 0)
    }

    /// The earliest `sleep_until` of the schedulers holding warps
    /// (`u64::MAX`: none holds any).
    fn earliest_scheduler_wake(&self) -> u64 {
        let holding = self.scheduler_gates.iter().filter(|gate| gate.warps > 0);
        holding.map(|gate| gate.sleep_until).min().unwrap_or(u64::MAX)
    }

    /// Charges `n` cycles in which every scheduler slept (the SM was not
    /// ticked): each scheduler's outcome is what [`Sm::schedule`] would have
    /// returned, its sleep reason. Returns whether every resident warp waited
    /// on memory.
    pub(crate) fn issue_slept(&mut self, n: u64) -> bool {
        for k in 0..self.schedulers.len() {
            let outcome = self.resting_outcome(k);
            self.counters.issue.add(outcome, n);
        }
        self.resting_all_memory()
    }

    /// Whether every resident warp waits on memory while every scheduler sleeps.
    fn resting_all_memory(&self) -> bool {
        (0..self.schedulers.len()).all(|k| self.resting_outcome(k).waits_on_memory()) && self.used.warps > 0
    }

    /// Notes a ticked cycle in which every scheduler slept, to be counted
    /// later by [`Sm::charge_rest`] as [`Sm::issue_slept`] counts cycles the
    /// SM slept through; returns whether every resident warp waited on memory.
    fn rest_tick(&mut self) -> bool {
        if self.rested_ticks == 0 {
            self.rested_all_memory = self.resting_all_memory();
        }
        self.rested_ticks += 1;
        self.rested_all_memory
    }

    /// Counts the ticked cycles in which every scheduler slept. Called before
    /// anything changes a scheduler's gate or the resident warps, so that
    /// those cycles count the outcomes they had.
    #[inline(always)]
    pub(crate) fn charge_rest(&mut self) {
        if self.rested_ticks > 0 {
            let n = std::mem::take(&mut self.rested_ticks);
            self.issue_slept(n);
        }
    }

    /// The issue slots counted so far, with those of rested cycles not yet charged.
    pub(crate) fn issue_counts(&self) -> IssueBreakdown {
        let mut counts = self.counters.issue;
        for k in 0..self.schedulers.len() {
            counts.add(self.resting_outcome(k), self.rested_ticks);
        }
        counts
    }

    /// What scheduler `k` reports without looking at its warps: no warp, or
    /// the reason it went to sleep.
    fn resting_outcome(&self, k: usize) -> IssueOutcome {
        let gate = &self.scheduler_gates[k];
        if gate.warps == 0 {
            IssueOutcome::NoWarp
        } else {
            IssueOutcome::Stalled(gate.sleep_reason.unwrap_or(Stall::Memory))
        }
    }

    fn schedule(&mut self, k: usize, now: u64, kernels: &[KernelView]) -> IssueOutcome {
        let gate = &self.scheduler_gates[k];
        if gate.warps == 0 || gate.sleep_until > now {
            return self.resting_outcome(k);
        }
        if let SchedulerPolicy::TwoLevelActive { active_warps, .. } = self.policy {
            self.refresh_active_set(k, active_warps.max(1) as usize);
        }
        let n = self.candidates(k).len();
        let mut waits = Waits::new(self.pending_set_stall(k));
        let runs = self.scan_order(k, n).runs(self.eligible_warps(n));
        // The scheduler's warps have their gates in their order, from
        // `first_gate`: the scan reads a candidate's warp slot only once its
        // gate is open. The two-level active set has its own order.
        let (two_level, first_gate) = (self.two_level(), self.first_gate_of(k));
        // The candidates borrowed from the scheduler's own field, not through
        // `self`, so the gates can be written while the scan reads them.
        let scheduler = &self.schedulers[k];
        let candidates = if two_level { &scheduler.active } else { &scheduler.warps };
        for run in runs {
            for index in run {
                let at = if two_level { self.gate_of(usize::from(candidates[index])) } else { first_gate + index };
                // Only the wait is read of a closed gate.
                let until = self.warp_gates[at].blocked_until;
                if until > now {
                    waits.note(self.warp_gates[at].blocked_on, until);
                    continue;
                }
                let gate = self.warp_gates[at];
                let w = usize::from(candidates[index]);
                debug_assert_eq!(at, self.gate_of(w), "warp {w}'s gate is out of its scheduler's order");
                let verdict = match self.unit_still_busy(gate, k, now) {
                    Some(blocked) => Err(blocked),
                    None => self.check(w, k, now, kernels),
                };
                match verdict {
                    Ok(()) => {
                        let pipe = self.next_pipe(w, kernels);
                        self.issue(w, k, now, kernels);
                        self.dual_issue(w, k, pipe, now, kernels);
                        return IssueOutcome::Issued;
                    }
                    Err(Blocked { stall, until, unit }) => {
                        self.warp_gates[at] =
                            WarpGate { blocked_until: until, blocked_on: stall, waits_for_unit: unit };
                        // A warp waiting for its unit's `ID_OC` slot looks again
                        // next cycle, but the scheduler need not: the slot frees
                        // only in the operand collector's step, which then wakes it
                        // ([`Sm::wake_for_issue_slots`]).
                        waits.note(stall, if unit.is_some() { PENDING } else { until });
                    }
                }
            }
        }
        // Nothing can change before the earliest wait ends unless an event
        // wakes a warp (a load returning, a barrier releasing, an `ID_OC`
        // slot freeing).
        let gate = &mut self.scheduler_gates[k];
        let worst = waits.worst();
        gate.sleep_until = waits.earliest;
        gate.sleep_reason = worst;
        worst.map_or(IssueOutcome::Stalled(Stall::Memory), IssueOutcome::Stalled)
    }

    /// The warps scheduler `k` chooses from, oldest first: its active set
    /// under the two-level policy, else all of its warps.
    fn candidates(&self, k: usize) -> &[u16] {
        let scheduler = &self.schedulers[k];
        if self.two_level() { &scheduler.active } else { &scheduler.warps }
    }

    /// Whether the schedulers are two-level (they choose from an active set).
    fn two_level(&self) -> bool {
        matches!(self.policy, SchedulerPolicy::TwoLevelActive { .. })
    }

    /// Two-level scheduling: active warps that wait on a long-latency
    /// operation (a load, a barrier, draining at exit) move to the back of the
    /// pending set; pending warps that no longer wait fill the active set in
    /// pending order. GPGPU-Sim promotes the pending head whether or not it
    /// waits; promoting only warps that can run keeps the sets unchanged
    /// while nothing happens, so a sleeping scheduler needs no update.
    fn refresh_active_set(&mut self, k: usize, max_active: usize) {
        let mut active = std::mem::take(&mut self.schedulers[k].active);
        let mut pending = std::mem::take(&mut self.schedulers[k].pending);
        let mut i = 0;
        while i < active.len() {
            if self.long_wait(active[i] as usize) {
                pending.push_back(active.remove(i));
            } else {
                i += 1;
            }
        }
        let mut j = 0;
        while active.len() < max_active && j < pending.len() {
            if self.long_wait(pending[j] as usize) {
                j += 1;
            } else if let Some(w) = pending.remove(j) {
                active.push(w);
            }
        }
        self.schedulers[k].active = active;
        self.schedulers[k].pending = pending;
    }

    /// Whether warp `w` waits on something with no known end: a barrier,
    /// its last memory operations, or a load result its next instruction reads.
    fn long_wait(&self, w: usize) -> bool {
        let warp = &self.warps[w];
        if warp.at_barrier || warp.next >= warp.end {
            return true;
        }
        self.next_ops[w].source_waits_for_load()
    }

    /// The stall the pending set's warps add to an idle cycle (two-level).
    fn pending_set_stall(&self, k: usize) -> Option<Stall> {
        let pending = &self.schedulers[k].pending;
        if !matches!(self.policy, SchedulerPolicy::TwoLevelActive { .. }) || pending.is_empty() {
            return None;
        }
        let at_barrier = pending.iter().any(|&w| self.warps[w as usize].at_barrier);
        Some(if at_barrier { Stall::Barrier } else { Stall::Memory })
    }

    /// How many of the oldest warps may issue: all, except under warp limiting.
    fn eligible_warps(&self, n: usize) -> usize {
        match self.policy {
            SchedulerPolicy::WarpLimiting { warps_to_limit, .. } => {
                let per_scheduler = (warps_to_limit as usize).div_ceil(self.schedulers.len());
                per_scheduler.clamp(1, n)
            }
            _ => n,
        }
    }

    /// The age indexes of scheduler `k`'s `n` candidates in the order it
    /// considers them, from the warp that issued last.
    fn scan_order(&self, k: usize, n: usize) -> ScanOrder {
        let last = self.schedulers[k].last_position.map(usize::from).filter(|&p| p < n);
        match (&self.policy, last) {
            // Loose round robin: start after the warp that issued last.
            (SchedulerPolicy::Lrr | SchedulerPolicy::Rrr, Some(p)) => {
                ScanOrder { first: None, then: p + 1..n, last: 0..p + 1 }
            }
            // Greedy then oldest: the last warp first, then by age.
            (SchedulerPolicy::Gto | SchedulerPolicy::WarpLimiting { .. }, Some(p)) => {
                ScanOrder { first: Some(p), then: 0..p, last: p + 1..n }
            }
            // Oldest first; the two-level active set in the order its warps
            // joined it; and any order before a warp has issued.
            _ => ScanOrder { first: None, then: 0..n, last: 0..0 },
        }
    }

    /// Issues warp `w`'s next instruction in the same cycle as the one it just
    /// issued to pipeline `first_pipe`, if the config allows two
    /// (`-gpgpu_max_insn_issue_per_warp 2`) and it passes the same checks:
    /// GPGPU-Sim's `scheduler_unit::cycle` looks at the second instruction of
    /// the warp's instruction buffer once the first has issued, and with
    /// `-gpgpu_dual_issue_diff_exec_units` only if it goes to another kind of
    /// unit (memory, SP, INT, DP, SFU, tensor, specialized).
    fn dual_issue(&mut self, w: usize, k: usize, first_pipe: usize, now: u64, kernels: &[KernelView]) {
        if self.max_issue_per_warp < 2 || self.warps[w].next >= self.warps[w].decoded {
            return;
        }
        let pipe = self.next_pipe(w, kernels);
        if self.dual_issue_diff_units && exec_kind(pipe) == exec_kind(first_pipe) {
            return;
        }
        if self.check(w, k, now, kernels).is_ok() {
            self.issue(w, k, now, kernels);
        }
    }

    /// The pipeline warp `w`'s next instruction goes to.
    fn next_pipe(&self, w: usize, kernels: &[KernelView]) -> usize {
        let op = kernels[self.warps[w].kernel as usize].ops[usize::from(self.next_ops[w].op.opcode)];
        op.unit.unwrap_or(MEMORY_PIPE)
    }

    fn instruction(&self, w: usize) -> &Instruction {
        let warp = &self.warps[w];
        &self.ctas[warp.cta_slot as usize].cta.instructions[warp.next as usize]
    }

    /// What the issue stage reads of warp `w`'s next instruction.
    pub(crate) fn issue_view(&self, w: usize) -> &IssueView {
        let warp = &self.warps[w];
        &self.ctas[warp.cta_slot as usize].issue_views[warp.next as usize]
    }

    /// What [`Sm::check`] would say at `now` of the warp whose gate is
    /// `gate`, when its last check found it lacking only its unit and that
    /// unit is still busy; `None` when the warp must be checked. Nothing but
    /// the unit can have changed since (its registers stay ready, it cannot
    /// reach a barrier or lose decoded instructions without issuing, and
    /// whatever else could change wakes it), so the answer saves reading its
    /// instruction and scoreboard, which are rarely in the host's cache, for
    /// every warp of a crowd waiting for one unit.
    fn unit_still_busy(&self, gate: WarpGate, k: usize, now: u64) -> Option<Blocked> {
        let unit = gate.waits_for_unit?;
        if self.pipeline.can_issue(usize::from(unit.0), k) {
            return None;
        }
        Some(Blocked { stall: stall_for_pipe(usize::from(unit.0)), until: now + 1, unit: Some(unit) })
    }

    /// Whether warp `w` can issue now, or why not and until when it surely
    /// cannot (`PENDING`: until an event, such as one of its memory
    /// operations completing or an instruction it waits for being written
    /// back, resets the warp's wait).
    // Inlined into the hot issue loop; `warp_state` (snapshots, events) calls
    // it too, which otherwise makes it an out-of-line call on the batch path.
    #[inline(always)]
    fn check(&self, w: usize, k: usize, now: u64, kernels: &[KernelView]) -> Result<(), Blocked> {
        let blocked = |stall, until| Err(Blocked { stall, until, unit: None });
        let warp = &self.warps[w];
        if warp.at_barrier {
            return blocked(Stall::Barrier, PENDING);
        }
        if warp.atomics > 0 {
            return blocked(Stall::Memory, PENDING);
        }
        if warp.next >= warp.end {
            // Finished its stream; waiting for its loads and stores to drain.
            return blocked(Stall::Memory, PENDING);
        }
        if warp.next >= warp.decoded {
            // Decode wakes the warp.
            return blocked(Stall::Fetch, PENDING);
        }
        let next = &self.next_ops[w];
        debug_assert_eq!(
            *next,
            NextOp::of(&IssueView::of(self.instruction(w)), &self.scoreboard, w),
            "warp {w}'s next instruction or its registers changed unseen"
        );
        let op = kernels[warp.kernel as usize].ops[usize::from(next.op.opcode)];
        if let Some(stall) = next.register_wait() {
            return blocked(stall, PENDING);
        }
        if op.kind == OpKind::MemoryBarrier && (warp.pending_stores > 0 || warp.pending_loads > 0) {
            return blocked(Stall::Memory, PENDING);
        }
        let pipe = op.unit.unwrap_or(MEMORY_PIPE);
        if self.pipeline.can_issue(pipe, k) {
            return Ok(());
        }
        Err(Blocked { stall: stall_for_pipe(pipe), until: now + 1, unit: Some(UnitWait(pipe as u8)) })
    }

    /// What warp slot `w` is doing, as the issue stage would find it at
    /// cycle `now` (reads the model, changes nothing).
    pub(crate) fn warp_state(&self, w: usize, now: u64, kernels: &[KernelView]) -> WarpState {
        let warp = &self.warps[w];
        if !warp.live {
            return WarpState::Empty;
        }
        if warp.next >= warp.end && !warp.at_barrier {
            return WarpState::Done;
        }
        let Err(blocked) = self.check(w, w % self.schedulers.len(), now, kernels) else { return WarpState::Ready };
        match blocked.stall {
            Stall::Memory => WarpState::Memory,
            Stall::Fetch => WarpState::Fetch,
            Stall::Barrier => WarpState::Barrier,
            Stall::Dependence => WarpState::Dependence,
            Stall::Structural => WarpState::Structural,
        }
    }

    /// Where warp `w` waits, for a per-PC sample: its kernel, and the PC and
    /// opcode of the instruction it waits to issue (its last one once it
    /// has none left); `None` for an empty slot.
    pub(crate) fn waiting_at(&self, w: usize) -> Option<(u32, u32, u16)> {
        let warp = &self.warps[w];
        if !warp.live {
            return None;
        }
        // A warp's instructions are `next..end` of its CTA's buffer; one
        // with none left waits at its last.
        let index = if warp.next < warp.end { warp.next } else { warp.end.checked_sub(1)? };
        let instruction = self.ctas[warp.cta_slot as usize].cta.instructions.get(index as usize)?;
        Some((warp.kernel, instruction.pc, instruction.opcode.0))
    }

    /// The first cycle after `now` at which some scheduler may issue
    /// (`PENDING` when only an event can wake one).
    pub(crate) fn next_issue_chance(&self, now: u64) -> u64 {
        let waking = self.scheduler_gates.iter().filter(|s| s.warps > 0).map(|s| s.sleep_until.max(now + 1));
        waking.min().unwrap_or(PENDING)
    }

    /// Issues warp `w`'s next instruction from what [`NextOp`] copied of it,
    /// without reading its record again: it was read when the instruction
    /// before it issued, often hundreds of cycles ago, and is rarely in the
    /// host's cache any more; reading it here made the rest of the issue wait
    /// for it (on `maxflops`, seven tenths of the issue stage's time).
    fn issue(&mut self, w: usize, k: usize, now: u64, kernels: &[KernelView]) {
        let next = self.next_ops[w].op;
        let kernel = self.warps[w].kernel;
        let op: OpInfo = kernels[kernel as usize].ops[usize::from(next.opcode)];
        self.count_instruction(kernel, op.unit, next.mask.count_ones());
        if let Some(per_pc) = &mut self.per_pc {
            per_pc.issued(kernel, next.pc, next.opcode);
        }
        if self.sample_log.on {
            self.record_issue(w, self.warps[w].next, next.opcode, now);
        }
        let position = self.position_of(w) as u16;
        let scheduler = &mut self.schedulers[k];
        scheduler.last_position = Some(position);
        scheduler.issued += 1;
        scheduler.issued_warp = w as u16;
        let load = match op.unit {
            Some(_) => {
                self.set_ready(w, next.dsts(), RegState::Computing);
                None
            }
            None => self.reserve_memory(w, next.dsts(), op),
        };
        let index = self.warps[w].next;
        self.pipeline.issue(staged(w, k, &next, op, index, load));
        self.warps[w].in_pipeline += 1;
        if op.kind == OpKind::Barrier {
            let slot = self.warps[w].cta_slot as usize;
            self.warps[w].at_barrier = true;
            self.ctas[slot].at_barrier += 1;
        }
        self.warps[w].next += 1;
        if self.warps[w].next < self.warps[w].end {
            // Copied now; the checks and the issue that follow read only this.
            self.next_ops[w] = NextOp::of(self.issue_view(w), &self.scoreboard, w);
        }
        // Its next instruction is another: what it waited for no longer holds.
        let gate = self.gate_of(w);
        self.warp_gates[gate].waits_for_unit = None;
        self.after_issue(w);
        let slot = self.warps[w].cta_slot as usize;
        let exited = self.warps[w].next == self.warps[w].end;
        if exited {
            // Its exit has issued: barriers no longer wait for it
            // (GPGPU-Sim's `barrier_set_t::warp_exit`, at issue).
            self.ctas[slot].running_warps -= 1;
        }
        if op.kind == OpKind::Barrier || exited {
            self.release_barrier_if_complete(slot);
        }
        self.maybe_finish(w);
    }
}

/// The stall a full pipeline register charges: the LD/ST unit's is a memory
/// stall (f_mem counts a full memory pipeline), the others structural.
fn stall_for_pipe(pipe: usize) -> Stall {
    if pipe == MEMORY_PIPE { Stall::Memory } else { Stall::Structural }
}

/// What the pipeline carries of an instruction warp `w` issued on scheduler
/// `k`: its distinct source registers (one register-file read each) and its
/// destinations.
fn staged(w: usize, k: usize, next: &IssueView, op: OpInfo, index: u32, load: Option<u32>) -> Staged {
    let mut src = [Reg::RZ; MAX_SRC_REGS];
    let mut n_src = 0;
    for &reg in next.srcs() {
        if !src[..n_src].contains(&reg) {
            src[n_src] = reg;
            n_src += 1;
        }
    }
    Staged {
        warp: w as u16,
        scheduler: k as u8,
        pipe: op.unit.unwrap_or(MEMORY_PIPE) as u8,
        uid: 0,
        latency: u16::try_from(op.latency_cycles).unwrap_or(u16::MAX),
        initiation: u16::try_from(op.initiation_cycles).unwrap_or(u16::MAX),
        index,
        load,
        n_dst: next.n_dst.min(MAX_DST_REGS as u8),
        dst: std::array::from_fn(|i| next.dsts().get(i).copied().unwrap_or(Reg::RZ)),
        n_src: n_src as u8,
        src,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `R1 = R2 op R1`: sources R2 and R1, destination R1.
    fn instruction() -> Instruction {
        let mut instruction = Instruction { n_src: 2, n_dst: 1, ..Instruction::default() };
        instruction.src[..2].copy_from_slice(&[Reg(2), Reg(1)]);
        instruction.dst[0] = Reg(1);
        instruction
    }

    #[test]
    fn waits_keep_the_worst_stall_noted() {
        let all = [Stall::Memory, Stall::Fetch, Stall::Barrier, Stall::Dependence, Stall::Structural];
        assert_eq!(Waits::new(None).worst(), None);
        for (i, &first) in all.iter().enumerate() {
            assert_eq!(Waits::new(Some(first)).worst(), Some(first));
            for &then in &all {
                let mut waits = Waits::new(None);
                waits.note(first, 10 + i as u64);
                waits.note(then, PENDING);
                assert_eq!(waits.worst(), Some(first.max(then)));
                assert_eq!(waits.earliest, 10 + i as u64);
            }
        }
    }

    #[test]
    fn the_next_instruction_keeps_the_scoreboards_word_on_its_registers() {
        let mut board = Scoreboard::new(2);
        board.set(1, Reg(1), RegState::Computing);
        let mut next = NextOp::of(&IssueView::of(&instruction()), &board, 1);
        assert_eq!(next.register_wait(), Some(Stall::Dependence));
        assert!(!next.source_waits_for_load());
        assert_eq!(
            NextOp::of(&IssueView::of(&instruction()), &board, 0).register_wait(),
            None,
            "another warp's registers"
        );

        // The first register in order (sources, then destinations) decides.
        for (reg, state) in [(Reg(2), RegState::Pending), (Reg(1), RegState::Ready)] {
            board.set(1, reg, state);
            next.note(reg, state);
            assert_eq!(next, NextOp::of(&IssueView::of(&instruction()), &board, 1), "the copy follows the scoreboard");
        }
        assert_eq!(next.register_wait(), Some(Stall::Memory));
        assert!(next.source_waits_for_load());
        next.note(Reg(2), RegState::Ready);
        next.note(Reg(9), RegState::Pending);
        next.note(Reg::RZ, RegState::Pending);
        assert_eq!(next.register_wait(), None, "other registers and RZ change nothing");
    }
}
