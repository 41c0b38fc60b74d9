//! GPUMech's interval profile of one warp running alone: each instruction
//! issues at `max(previous issue + 1/R, the cycle its sources are ready)`,
//! and a gap in issue ends an interval, the gap being its stall.
//!
//! Latencies come from the config's opcode classes (the table the timing
//! model's issue stage uses); every load through the L1 gets the L1 hit
//! latency, shared-memory loads the shared-memory latency. The models later
//! replace the L1 hit latency of an awaited load by what its misses cost.
//!
//! A warp's intervals depend only on its instruction sequence (opcodes and
//! registers), not on its addresses, so warps that follow the same path
//! through the code share one stored copy ([`Paths`]): the profile of a
//! regular kernel stores a handful of paths however many warps it has.

use rustc_hash::FxHashMap;
use warplab_config::GpuConfig;
use warplab_trace::{Cta, Instruction, MemSpace, Reg, WarpTrace};
use warplab_uarch::ops::{OpInfo, OpKind, resolve_generic};

use crate::code_fetch::{CodeFetch, ColdLines};

/// Interval records a kernel's profile may hold (about 16 B each): a bound on
/// the memory of a kernel whose warps all take different paths.
pub const MAX_PROFILE_INTERVALS: usize = 8 << 20;

/// Registers the trace form can name (`R0`–`R255` and the uniform ones).
const N_REGS: usize = 1 << 16;

/// One interval of a warp as profiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct RawInterval {
    /// Warp instructions issued in the interval.
    pub insts: u32,
    /// Cycles from the interval's last issue to the next one, minus the
    /// 1/R cycle the next issue would take anyway.
    pub stall: u32,
    /// One past this interval's last memory instruction in the path's list.
    pub memops_end: u32,
    /// One past the last of the loads the stall waits for in the path's
    /// list of awaited loads (none when it waits for arithmetic only).
    pub awaited_end: u32,
}

/// What the interval profile needs of the kernel being profiled.
pub(crate) struct KernelContext<'a> {
    /// Opcode facts, indexed by `OpcodeId`.
    pub ops: &'a [OpInfo],
    /// The L1 hit latency in core cycles (rounded to whole cycles).
    pub l1_hit: u64,
    /// The shared-memory latency.
    pub shared: u64,
    pub shmem_base: u64,
    pub local_base: u64,
    /// Shared-memory banks.
    pub shmem_banks: u32,
}

/// A memory instruction that goes through the L1 (global, local, constant,
/// texture or atomic; shared memory does not), with its resolved space.
pub(crate) fn l1_space(cta: &Cta, instruction: &Instruction, op: OpInfo, k: &KernelContext<'_>) -> Option<MemSpace> {
    memory_space(cta, instruction, op, k).filter(|&space| space != MemSpace::Shared && space != MemSpace::None)
}

/// The space a memory instruction accesses, generic addresses resolved;
/// `None` for any other instruction.
pub(crate) fn memory_space(
    cta: &Cta,
    instruction: &Instruction,
    op: OpInfo,
    k: &KernelContext<'_>,
) -> Option<MemSpace> {
    let space = match op.kind {
        OpKind::Load(space) | OpKind::Store(space) | OpKind::Atomic(space) => space,
        _ => return None,
    };
    Some(if space == MemSpace::Generic {
        let first = cta.lane_addresses(instruction).next().map(|(_, address)| address);
        resolve_generic(first, k.shmem_base, k.local_base)
    } else {
        space
    })
}

/// Loads one stall may wait for: the stalled instruction's sources still in
/// flight (an instruction names at most a handful of registers).
const MAX_AWAITED: usize = 8;

/// When each register's value is ready, and which load wrote it.
#[derive(Debug, Clone, Copy, Default)]
struct RegState {
    ready: u64,
    /// Site index + 1 of the load that produces it, 0 for anything else.
    load: u32,
    /// The warp this entry belongs to; an older stamp means "ready at 0".
    stamp: u32,
}

/// The single-warp timeline, reused for every warp (no allocation per warp
/// once its buffers have grown).
pub(crate) struct Timeline {
    regs: Vec<RegState>,
    stamp: u32,
    /// The warp being profiled: its intervals, memory sites, and the loads
    /// each stall waits for (site indices).
    pub intervals: Vec<RawInterval>,
    pub memops: Vec<u32>,
    pub awaited: Vec<u32>,
    /// Cycles from the first issue to one past the last.
    pub cycles: u64,
    /// The L1 instruction cache across the workload's kernels, and the
    /// lines of its code the warp being profiled found missing from it.
    pub code: CodeFetch,
}

impl Timeline {
    pub fn new(config: &GpuConfig) -> Self {
        Self {
            code: CodeFetch::new(config),
            regs: vec![RegState::default(); N_REGS],
            stamp: 0,
            intervals: Vec::new(),
            memops: Vec::new(),
            awaited: Vec::new(),
            cycles: 0,
        }
    }

    /// Profiles one warp. `site_index` names a memory instruction by its PC
    /// and its ordinal among the warp's memory instructions (a dense
    /// per-kernel index): the cache pass measures each such site, so a loop's
    /// first load, which misses, is told apart from its later ones, which hit.
    pub fn profile_warp(
        &mut self,
        cta: &Cta,
        warp: &WarpTrace,
        k: &KernelContext<'_>,
        site_index: &mut impl FnMut(u32, u32) -> u32,
    ) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.regs.fill(RegState::default());
            self.stamp = 1;
        }
        self.intervals.clear();
        self.memops.clear();
        self.awaited.clear();
        self.code.start_warp(self.stamp);
        let empty = RawInterval { insts: 0, stall: 0, memops_end: 0, awaited_end: 0 };
        let mut current = empty;
        let mut next_free = 0u64;
        for (index, instruction) in cta.warp_instructions(warp).iter().enumerate() {
            self.code.instruction(index, instruction.pc);
            let Some(&op) = k.ops.get(instruction.opcode.0 as usize) else { continue };
            let ready = self.sources_ready(instruction);
            let issue = next_free.max(ready);
            if issue > next_free && current.insts > 0 {
                current.stall = (issue - next_free) as u32;
                self.await_loads(instruction, next_free);
                current.awaited_end = self.awaited.len() as u32;
                current.memops_end = self.memops.len() as u32;
                self.intervals.push(current);
                current = empty;
            }
            current.insts += 1;
            let through_l1 = l1_space(cta, instruction, op, k);
            let mut produced_by = 0;
            let latency = match (op.kind, through_l1) {
                (OpKind::Load(_) | OpKind::Atomic(_), Some(_)) => k.l1_hit,
                (OpKind::Load(_) | OpKind::Atomic(_), None) => k.shared,
                _ => u64::from(op.latency_cycles),
            };
            if through_l1.is_some() {
                let index = site_index(instruction.pc, self.memops.len() as u32);
                self.memops.push(index);
                if matches!(op.kind, OpKind::Load(_) | OpKind::Atomic(_)) {
                    produced_by = index + 1;
                }
            }
            for dst in instruction.dsts() {
                if *dst != Reg::RZ {
                    self.regs[usize::from(dst.0)] =
                        RegState { ready: issue + latency, load: produced_by, stamp: self.stamp };
                }
            }
            next_free = issue + 1;
        }
        if current.insts > 0 {
            current.memops_end = self.memops.len() as u32;
            current.awaited_end = self.awaited.len() as u32;
            self.intervals.push(current);
        }
        self.cycles = next_free;
    }

    /// The register state of `src` in this warp, if it was written.
    fn state(&self, src: Reg) -> Option<RegState> {
        let state = self.regs[usize::from(src.0)];
        (src != Reg::RZ && state.stamp == self.stamp).then_some(state)
    }

    /// The cycle the last of `instruction`'s sources is ready.
    fn sources_ready(&self, instruction: &Instruction) -> u64 {
        instruction.srcs().iter().filter_map(|&src| self.state(src)).map(|s| s.ready).max().unwrap_or(0)
    }

    /// Records every load whose result `instruction` needs and that is still
    /// in flight at `now`: the stall waits for all of them. With every load
    /// at the L1 hit latency the last to arrive is the youngest, but in a run
    /// an older load that misses arrives later, so which one the stall
    /// really waits for is left to the cache pass's figures.
    fn await_loads(&mut self, instruction: &Instruction, now: u64) {
        let first = self.awaited.len();
        for &src in instruction.srcs() {
            let Some(state) = self.state(src) else { continue };
            let site = state.load.wrapping_sub(1);
            if state.load != 0 && state.ready > now && !self.awaited[first..].contains(&site) {
                if self.awaited.len() - first == MAX_AWAITED {
                    break;
                }
                self.awaited.push(site);
            }
        }
    }
}

/// One distinct path: where its intervals and memory PCs are stored, and the
/// warps that took it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Path {
    pub first_interval: u32,
    pub n_intervals: u32,
    pub first_memop: u32,
    pub n_memops: u32,
    pub first_awaited: u32,
    pub n_awaited: u32,
    /// Single-warp cycles and warp instructions.
    pub cycles: u64,
    pub insts: u64,
    /// Lines of its code the path found missing from the L1I.
    pub cold_lines: ColdLines,
    /// Warps that took this path.
    pub warps: u64,
}

/// The distinct paths of a kernel's warps.
#[derive(Debug, Default)]
pub(crate) struct Paths {
    pub paths: Vec<Path>,
    pub intervals: Vec<RawInterval>,
    pub memops: Vec<u32>,
    pub awaited: Vec<u32>,
    by_hash: FxHashMap<u64, Vec<u32>>,
}

impl Paths {
    /// Counts the warp `timeline` just profiled, storing its path if new.
    ///
    /// # Errors
    /// The kernel's distinct paths would exceed [`MAX_PROFILE_INTERVALS`].
    pub fn add(&mut self, timeline: &Timeline) -> Result<(), String> {
        let hash = path_hash(timeline);
        let known = self.by_hash.get(&hash).into_iter().flatten().copied().find(|&id| {
            let stored = self.stored(id as usize);
            stored.intervals == timeline.intervals.as_slice()
                && stored.memops == timeline.memops.as_slice()
                && stored.awaited == timeline.awaited.as_slice()
                && self.paths[id as usize].cold_lines == timeline.code.warp_cold_lines()
        });
        if let Some(id) = known {
            self.paths[id as usize].warps += 1;
            return Ok(());
        }
        if self.intervals.len() + timeline.intervals.len() > MAX_PROFILE_INTERVALS {
            return Err(format!(
                "the kernel's warps take more distinct paths than the profile holds ({MAX_PROFILE_INTERVALS} intervals)"
            ));
        }
        self.by_hash.entry(hash).or_default().push(self.paths.len() as u32);
        self.paths.push(Path {
            first_interval: self.intervals.len() as u32,
            n_intervals: timeline.intervals.len() as u32,
            first_memop: self.memops.len() as u32,
            n_memops: timeline.memops.len() as u32,
            first_awaited: self.awaited.len() as u32,
            n_awaited: timeline.awaited.len() as u32,
            cycles: timeline.cycles,
            insts: timeline.intervals.iter().map(|i| u64::from(i.insts)).sum(),
            cold_lines: timeline.code.warp_cold_lines(),
            warps: 1,
        });
        self.intervals.extend_from_slice(&timeline.intervals);
        self.memops.extend_from_slice(&timeline.memops);
        self.awaited.extend_from_slice(&timeline.awaited);
        Ok(())
    }

    /// The stored intervals, memory sites and awaited loads of path `id`.
    pub fn stored(&self, id: usize) -> StoredPath<'_> {
        let path = &self.paths[id];
        StoredPath {
            intervals: &self.intervals[path.first_interval as usize..][..path.n_intervals as usize],
            memops: &self.memops[path.first_memop as usize..][..path.n_memops as usize],
            awaited: &self.awaited[path.first_awaited as usize..][..path.n_awaited as usize],
        }
    }
}

/// One path's stored lists; the intervals' `memops_end` and `awaited_end`
/// index the other two.
pub(crate) struct StoredPath<'a> {
    pub intervals: &'a [RawInterval],
    pub memops: &'a [u32],
    pub awaited: &'a [u32],
}

/// FNV-1a over the path's fields: cheap, deterministic, and only a filter
/// (equal hashes are compared in full).
fn path_hash(timeline: &Timeline) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |word: u32| {
        for byte in word.to_le_bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for interval in &timeline.intervals {
        eat(interval.insts);
        eat(interval.stall);
        eat(interval.memops_end);
        eat(interval.awaited_end);
    }
    timeline.memops.iter().chain(&timeline.awaited).for_each(|&site| eat(site));
    let cold = timeline.code.warp_cold_lines();
    eat(cold.misses);
    eat(cold.llc_misses);
    hash
}
