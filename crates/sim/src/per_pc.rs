//! Per-instruction figures (`--per-pc`): for each kernel and PC, the warp
//! instructions issued there, the cycles its shared-memory accesses held the
//! LD/ST unit for bank conflicts, and where the warps waiting there spent their
//! cycles, by stall reason.
//!
//! Issues are counted exactly, as they happen. Stalls are sampled the way
//! Nsight Compute samples warp states: every [`SAMPLE_INTERVAL`] core cycles
//! every resident warp of every SM is classified ([`WarpState`], the
//! animation's classification: the first reason the issue stage would find)
//! and the sample goes to the PC the warp waits to issue. A sample stands
//! for `SAMPLE_INTERVAL` warp-cycles, so the figures estimate cycles
//! without costing a classification of every warp every cycle. Cycles the
//! clock jumps over (every part only waiting) are sampled too: nothing
//! changes in them, so each warp's state at the jump holds for all of them.
//!
//! Bank-conflict cycles are counted exactly too: each cycle a shared-memory
//! instruction holds the LD/ST unit for a conflict (the run's
//! `shmem_bank_conflict_cycles`) goes to its PC.
//!
//! Off unless asked ([`crate::SimOptions::per_pc`]); then the SMs hold no
//! table, nothing is counted or sampled, and the run is what it was.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::snapshot::WarpState;

/// Core cycles between two samples of every warp's state: a power of two, as
/// Nsight Compute's intervals are (2^5 and up). Every 32 cycles cost a
/// memory-bound run (`strided:gs=32`, mdm-pascal-28sm) 10% more host
/// instructions, every 64 about 5%; a kernel of a few thousand cycles still
/// gets dozens of samples per warp.
pub const SAMPLE_INTERVAL: u64 = 64;

/// What one SM counted at one PC of one kernel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct PcCounts {
    /// Its opcode (an index into the kernel's opcode names).
    opcode: u16,
    issued: u64,
    /// Cycles its shared-memory accesses held the LD/ST unit for bank conflicts.
    bank_conflict_cycles: u64,
    /// Samples per [`WarpState`], in [`WarpState::ALL`]'s order.
    samples: [u64; N_STATES],
}

const N_STATES: usize = WarpState::ALL.len();

/// `state`'s place in [`WarpState::ALL`]; `None` for an empty slot.
const fn state_index(state: WarpState) -> Option<usize> {
    Some(match state {
        WarpState::Ready => 0,
        WarpState::Memory => 1,
        WarpState::Dependence => 2,
        WarpState::Barrier => 3,
        WarpState::Fetch => 4,
        WarpState::Structural => 5,
        WarpState::Done => 6,
        WarpState::Empty => return None,
    })
}

/// One SM's per-PC counts, keyed by kernel launch index and PC.
#[derive(Debug, Clone, Default)]
pub(crate) struct PerPc {
    /// Where each (kernel, PC) counts in `counts`.
    index: FxHashMap<(u32, u32), u32>,
    counts: Vec<((u32, u32), PcCounts)>,
    /// Per warp slot, the (kernel, PC) it was last sampled at and where that
    /// counts: a warp waiting on memory is sampled at one PC many times.
    last_sampled: Vec<((u32, u32), u32)>,
}

impl PerPc {
    /// One warp instruction issued at `pc` of kernel `kernel`.
    pub fn issued(&mut self, kernel: u32, pc: u32, opcode: u16) {
        let slot = self.slot((kernel, pc), opcode);
        self.counts[slot].1.issued += 1;
    }

    /// One cycle in which the shared-memory access of the instruction at
    /// `pc` of kernel `kernel` held the LD/ST unit for a bank conflict.
    pub fn bank_conflict(&mut self, (kernel, pc, opcode): (u32, u32, u16)) {
        let slot = self.slot((kernel, pc), opcode);
        self.counts[slot].1.bank_conflict_cycles += 1;
    }

    /// `n` samples of warp slot `w`, of kernel `kernel`, in `state` at `pc`.
    pub fn sample(&mut self, w: usize, (kernel, pc, opcode): (u32, u32, u16), state: WarpState, n: u64) {
        let Some(index) = state_index(state) else { return };
        if self.last_sampled.len() <= w {
            self.last_sampled.resize(w + 1, ((u32::MAX, u32::MAX), 0));
        }
        let slot = match self.last_sampled[w] {
            (key, slot) if key == (kernel, pc) => slot as usize,
            _ => {
                let slot = self.slot((kernel, pc), opcode);
                self.last_sampled[w] = ((kernel, pc), slot as u32);
                slot
            }
        };
        self.counts[slot].1.samples[index] += n;
    }

    /// Where `key`'s counts are, added with `opcode` if new.
    fn slot(&mut self, key: (u32, u32), opcode: u16) -> usize {
        let next = self.counts.len() as u32;
        let slot = *self.index.entry(key).or_insert(next) as usize;
        if slot == self.counts.len() {
            self.counts.push((key, PcCounts { opcode, ..PcCounts::default() }));
        }
        slot
    }

    /// Adds this SM's counts into `all`.
    fn merge_into(&self, all: &mut FxHashMap<(u32, u32), PcCounts>) {
        for (key, counts) in &self.counts {
            let total = all.entry(*key).or_default();
            total.opcode = counts.opcode;
            total.issued += counts.issued;
            total.bank_conflict_cycles += counts.bank_conflict_cycles;
            for (sum, n) in total.samples.iter_mut().zip(&counts.samples) {
                *sum += n;
            }
        }
    }
}

/// The figures of one PC of one kernel, over every SM.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PcStalls {
    /// Launch index of the kernel (0 for the first launch).
    pub kernel: u32,
    /// The instruction's PC in the trace.
    pub pc: u32,
    /// Its opcode as the trace names it.
    pub opcode: String,
    /// Warp instructions issued at this PC.
    pub issued: u64,
    /// Cycles this instruction's shared-memory accesses held the LD/ST unit
    /// for bank conflicts, every cycle of bank work but the first of each
    /// access (GPGPU-Sim's `gpgpu_n_shmem_bkconflict` at this PC; counted
    /// exactly, not sampled). 0 for any other instruction.
    pub bank_conflict_cycles: u64,
    /// Warp-cycles the warps whose next instruction this is spent waiting,
    /// by reason, estimated from the samples (each one [`SAMPLE_INTERVAL`]
    /// cycles).
    pub stalls: StallCycles,
}

/// Warp-cycles by what the warp waited for (the animation's warp states).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StallCycles {
    /// Ready to issue, but its scheduler issued another warp's instruction.
    pub not_selected: u64,
    /// A load's result, a fence, or room in the memory pipeline.
    pub memory: u64,
    /// An arithmetic result.
    pub dependence: u64,
    /// The other warps of its CTA at a barrier.
    pub barrier: u64,
    /// Its instruction to be fetched and decoded.
    pub fetch: u64,
    /// A free unit for its instruction.
    pub structural: u64,
    /// Done: its last loads and stores draining.
    pub draining: u64,
}

impl StallCycles {
    /// The cycles of `samples`, in [`WarpState::ALL`]'s order.
    fn of(samples: &[u64; N_STATES]) -> Self {
        let mut cycles = Self::default();
        for (state, &n) in WarpState::ALL.iter().zip(samples) {
            let slot = match state {
                WarpState::Ready => &mut cycles.not_selected,
                WarpState::Memory => &mut cycles.memory,
                WarpState::Dependence => &mut cycles.dependence,
                WarpState::Barrier => &mut cycles.barrier,
                WarpState::Fetch => &mut cycles.fetch,
                WarpState::Structural => &mut cycles.structural,
                WarpState::Done => &mut cycles.draining,
                WarpState::Empty => continue,
            };
            *slot += n * SAMPLE_INTERVAL;
        }
        cycles
    }

    /// Every stall cycle, whatever its reason.
    pub fn total(&self) -> u64 {
        self.not_selected + self.memory + self.dependence + self.barrier + self.fetch + self.structural + self.draining
    }
}

/// Every SM's counts as report rows, by kernel and PC; `names(kernel,
/// opcode)` gives an opcode's name.
pub(crate) fn rows<'a>(sms: impl Iterator<Item = &'a PerPc>, names: impl Fn(u32, u16) -> String) -> Vec<PcStalls> {
    let mut all = FxHashMap::default();
    for sm in sms {
        sm.merge_into(&mut all);
    }
    let mut rows: Vec<PcStalls> = all
        .into_iter()
        .map(|((kernel, pc), counts)| PcStalls {
            kernel,
            pc,
            opcode: names(kernel, counts.opcode),
            issued: counts.issued,
            bank_conflict_cycles: counts.bank_conflict_cycles,
            stalls: StallCycles::of(&counts.samples),
        })
        .collect();
    rows.sort_by_key(|row| (row.kernel, row.pc));
    rows
}

/// How many of the core cycles `from..=to` are sample cycles.
pub(crate) fn samples_in(from: u64, to: u64) -> u64 {
    if to < from { 0 } else { (to / SAMPLE_INTERVAL + 1) - from.div_ceil(SAMPLE_INTERVAL) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_indices_follow_the_legend() {
        for (index, &state) in WarpState::ALL.iter().enumerate() {
            let expected = (state != WarpState::Empty).then_some(index);
            assert_eq!(state_index(state), expected, "{state:?}");
        }
    }

    #[test]
    fn sample_cycles_in_a_range() {
        let i = SAMPLE_INTERVAL;
        assert_eq!(samples_in(1, i - 1), 0);
        assert_eq!(samples_in(1, i), 1);
        assert_eq!(samples_in(i, i), 1);
        assert_eq!(samples_in(0, 2 * i), 3);
        assert_eq!(samples_in(i + 1, 3 * i - 1), 1);
        assert_eq!(samples_in(10, 5), 0);
    }

    #[test]
    fn samples_become_cycles_by_reason_and_sms_add_up() {
        let (mut a, mut b) = (PerPc::default(), PerPc::default());
        a.issued(0, 0x10, 3);
        a.sample(0, (0, 0x10, 3), WarpState::Memory, 2);
        b.issued(0, 0x10, 3);
        b.sample(0, (0, 0x10, 3), WarpState::Ready, 1);
        b.sample(0, (1, 0x20, 4), WarpState::Barrier, 5);
        b.sample(1, (1, 0x20, 4), WarpState::Empty, 7);
        let rows = rows([&a, &b].into_iter(), |kernel, opcode| format!("k{kernel}op{opcode}"));
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].kernel, rows[0].pc, rows[0].opcode.as_str(), rows[0].issued), (0, 0x10, "k0op3", 2));
        assert_eq!(rows[0].stalls.memory, 2 * SAMPLE_INTERVAL);
        assert_eq!(rows[0].stalls.not_selected, SAMPLE_INTERVAL);
        assert_eq!(rows[1].stalls, StallCycles { barrier: 5 * SAMPLE_INTERVAL, ..StallCycles::default() });
        assert_eq!(rows[1].stalls.total(), 5 * SAMPLE_INTERVAL);
    }
}
