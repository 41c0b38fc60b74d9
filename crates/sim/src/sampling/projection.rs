//! How long a CTA that is not simulated holds its SM, once warp or
//! basic-block sampling has taken over.
//!
//! Warp sampling gives every warp the mean duration of the last `n` warps,
//! so the CTA ends that long after its launch. Basic-block sampling walks
//! each warp's blocks: a block of a stable type takes its type's mean over
//! its last executions, a type seen but not yet stable its mean so far, and
//! a block never seen the interval estimate, the sum of the mean issue
//! intervals its opcodes have shown so far. The CTA ends when
//! its slowest warp does, as a real CTA frees its resources only then.

use warplab_trace::{Cta, Instruction};

use super::blocks::BlockTable;
use super::stability::StabilityWindow;

/// Per-opcode issue intervals seen in detail: cycles from an instruction's
/// issue to its warp's next issue.
#[derive(Debug, Clone, Default)]
pub(crate) struct OpcodeGaps {
    /// By opcode id: (sum of cycles, instructions).
    by_opcode: Vec<(u64, u64)>,
    all: (u64, u64),
}

impl OpcodeGaps {
    pub(crate) fn add(&mut self, opcode: u16, cycles: u64) {
        let k = usize::from(opcode);
        if self.by_opcode.len() <= k {
            self.by_opcode.resize(k + 1, (0, 0));
        }
        let entry = &mut self.by_opcode[k];
        entry.0 += cycles;
        entry.1 += 1;
        self.all.0 += cycles;
        self.all.1 += 1;
    }

    /// The interval estimate of `block`: each instruction's opcode's mean
    /// interval, an opcode never seen the mean over all, and 1 cycle per
    /// instruction before anything was seen.
    pub(crate) fn estimate(&self, block: &[Instruction]) -> u64 {
        let mean = |(sum, n): (u64, u64)| (sum + n / 2).checked_div(n);
        let fallback = mean(self.all).unwrap_or(1);
        block
            .iter()
            .map(|i| self.by_opcode.get(usize::from(i.opcode.0)).and_then(|&e| mean(e)).unwrap_or(fallback))
            .sum()
    }
}

/// One block type's executions in detail.
#[derive(Debug, Clone)]
pub(crate) struct BlockStats {
    pub window: StabilityWindow,
    /// Instructions executed in this type's blocks.
    pub executed_insts: u64,
    /// It passed the stability test (once stable, it stays so).
    pub stable: bool,
}

/// The cycles warp `w` of `cta` takes by basic-block sampling.
fn warp_cycles(
    cta: &Cta,
    w: usize,
    table: &mut BlockTable,
    ends: &[bool],
    stats: &[BlockStats],
    gaps: &OpcodeGaps,
) -> u64 {
    let mut cycles = 0;
    table.walk(cta, &cta.warps[w], ends, |block, instructions| {
        cycles += match stats.get(block as usize) {
            // A stable type's mean; a type seen but not yet stable still has
            // its own times, which hold what the opcodes' intervals miss (a
            // CTA's last block waits for its stores to be acknowledged
            // before the warp retires).
            Some(s) if s.window.seen() > 0 => s.window.mean_duration(),
            _ => gaps.estimate(instructions),
        };
    });
    cycles
}

/// The cycles `cta` holds its SM by basic-block sampling: its slowest warp's.
pub(crate) fn cta_cycles_by_blocks(
    cta: &Cta,
    table: &mut BlockTable,
    ends: &[bool],
    stats: &[BlockStats],
    gaps: &OpcodeGaps,
) -> u64 {
    (0..cta.warps.len()).map(|w| warp_cycles(cta, w, table, ends, stats, gaps)).max().unwrap_or(0).max(1)
}

#[cfg(test)]
mod tests {
    use warplab_trace::{OpcodeId, WarpTrace};

    use super::*;

    fn inst(pc: u32, opcode: u16) -> Instruction {
        Instruction { pc, opcode: OpcodeId(opcode), mask: 1, ..Instruction::default() }
    }

    #[test]
    fn the_interval_estimate_sums_opcode_means() {
        let mut gaps = OpcodeGaps::default();
        assert_eq!(gaps.estimate(&[inst(0, 0), inst(16, 1)]), 2);
        gaps.add(0, 4);
        gaps.add(0, 6);
        gaps.add(1, 30);
        // Opcode 2 was never seen: the mean over all, (4 + 6 + 30) / 3 ≈ 13.
        assert_eq!(gaps.estimate(&[inst(0, 0), inst(16, 1), inst(32, 2)]), 5 + 30 + 13);
    }

    #[test]
    fn a_cta_takes_its_slowest_warps_time() {
        // Opcode 1 is a branch: warp 0 runs block [0,16] once, warp 1 twice.
        let mut cta = Cta::default();
        for (w, pcs) in [vec![0, 16], vec![0, 16, 0, 16]].into_iter().enumerate() {
            let first = cta.instructions.len() as u32;
            cta.instructions.extend(pcs.iter().map(|&pc| inst(pc, u16::from(pc == 16))));
            cta.warps.push(WarpTrace { warp_id: w as u32, first, len: pcs.len() as u32 });
        }
        let ends = [false, true];
        let mut table = BlockTable::default();
        let mut window = StabilityWindow::new(2);
        for k in 0..4 {
            window.push(k * 10, k * 10 + 50);
        }
        let stats = vec![BlockStats { window, executed_insts: 8, stable: true }];
        table.intern(&cta.instructions[0..2]);
        let cycles = cta_cycles_by_blocks(&cta, &mut table, &ends, &stats, &OpcodeGaps::default());
        assert_eq!(cycles, 100);
        // Seen but not stable: still the type's own mean.
        let unstable = vec![BlockStats { stable: false, ..stats[0].clone() }];
        assert_eq!(cta_cycles_by_blocks(&cta, &mut table, &ends, &unstable, &OpcodeGaps::default()), 100);
        // Never seen: the interval estimate, 1 cycle per instruction.
        let unseen = vec![BlockStats { window: StabilityWindow::new(2), executed_insts: 0, stable: false }];
        assert_eq!(cta_cycles_by_blocks(&cta, &mut table, &ends, &unseen, &OpcodeGaps::default()), 4);
    }
}
