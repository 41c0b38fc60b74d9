//! Basic blocks of a warp's dynamic instruction stream, as Photon cuts them:
//! a block ends at a branch (or call, return, exit) and at a barrier, and a
//! jump the trace shows without a branch we recognise (the next PC is not the
//! fall-through) starts a new one too.
//!
//! A block type is named by the PCs of its first and last instruction, so the
//! same code gets the same name in every kernel launch of a program; a
//! kernel's `BlockTable` interns those names into dense ids for its per-type
//! statistics.

use rustc_hash::FxHashMap;
use warplab_trace::{Cta, Instruction, OpcodeTable, WarpTrace};

/// No block starts at this instruction (`block_at` entries).
pub(crate) const NO_BLOCK: u32 = u32::MAX;

/// A block starts here, but its kernel's table is full: executions are not
/// tracked (such blocks are timed by the interval estimate).
pub(crate) const UNTRACKED: u32 = u32::MAX - 1;

/// The most block types one kernel's table tracks. Each holds a stability
/// window of 2n executions (64 KiB at the default n = 2,048), so 1,024 types
/// bound a kernel's windows at 64 MiB, far above the few dozen types a
/// kernel has in practice.
pub const MAX_BLOCK_TYPES: usize = 1_024;

/// Opcode mnemonics (the text before the first `.`) after which a block
/// ends: control transfers of every SASS generation and barriers.
const BLOCK_ENDERS: &[&str] = &[
    "BRA", "BRX", "BRXU", "JMP", "JMX", "JMXU", "CALL", "JCAL", "RET", "BRK", "CONT", "EXIT", "KILL", "BPT", "BAR",
    "BSYNC", "SYNC", "WARPSYNC",
];

/// The furthest the next instruction's PC may be and still be the
/// fall-through: 16-byte instructions, and Maxwell/Pascal's 8-byte ones with a
/// control word every fourth slot, never step further.
const MAX_FALL_THROUGH: u32 = 32;

/// Whether an instruction with this opcode text ends its block.
pub(crate) fn ends_block(opcode: &str) -> bool {
    let base = opcode.split('.').next().unwrap_or(opcode);
    BLOCK_ENDERS.contains(&base)
}

/// Extends `ends` (by opcode id: whether it ends a block) to the opcodes
/// `opcodes` has gained since (a trace's table grows as CTAs are read).
pub(crate) fn extend_ends(ends: &mut Vec<bool>, opcodes: &OpcodeTable) {
    let known = ends.len();
    ends.extend(opcodes.iter().skip(known).map(|(_, info)| ends_block(&info.text)));
}

/// A block type's name: the PCs of its first and last instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct BlockKey {
    pub first_pc: u32,
    pub last_pc: u32,
}

/// One block type of a kernel.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BlockType {
    /// Warp instructions in one execution.
    pub insts: u32,
}

/// Calls `f(first, end)` for each block of `instructions` (indices, `end`
/// exclusive), in order; `ends[opcode]` says whether an opcode ends a block.
pub(crate) fn for_each_block(instructions: &[Instruction], ends: &[bool], mut f: impl FnMut(usize, usize)) {
    let mut first = 0;
    for (i, instruction) in instructions.iter().enumerate() {
        let last = i + 1 == instructions.len();
        let ender = ends.get(instruction.opcode.0 as usize).copied().unwrap_or(false);
        let jump = !last && {
            let next = instructions[i + 1].pc;
            next <= instruction.pc || next - instruction.pc > MAX_FALL_THROUGH
        };
        if last || ender || jump {
            f(first, i + 1);
            first = i + 1;
        }
    }
}

/// A kernel's block types, interned by key.
#[derive(Debug, Default)]
pub(crate) struct BlockTable {
    ids: FxHashMap<BlockKey, u32>,
    pub types: Vec<BlockType>,
}

impl BlockTable {
    /// The id of the block `instructions[first..end]`: a new one the first
    /// time its key is seen, `UNTRACKED` once the table is full.
    pub(crate) fn intern(&mut self, block: &[Instruction]) -> u32 {
        let (Some(head), Some(tail)) = (block.first(), block.last()) else { return UNTRACKED };
        let key = BlockKey { first_pc: head.pc, last_pc: tail.pc };
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        if self.types.len() >= MAX_BLOCK_TYPES {
            return UNTRACKED;
        }
        let id = self.types.len() as u32;
        self.types.push(BlockType { insts: u32::try_from(block.len()).unwrap_or(u32::MAX) });
        self.ids.insert(key, id);
        id
    }

    /// Fills `block_at` (one entry per instruction of `cta`) with the id of
    /// the block each instruction starts, `NO_BLOCK` inside a block.
    pub(crate) fn annotate(&mut self, cta: &Cta, ends: &[bool], block_at: &mut Vec<u32>) {
        block_at.clear();
        block_at.resize(cta.instructions.len(), NO_BLOCK);
        for warp in &cta.warps {
            let base = warp.first as usize;
            let instructions = cta.warp_instructions(warp);
            for_each_block(instructions, ends, |first, end| {
                block_at[base + first] = self.intern(&instructions[first..end]);
            });
        }
    }

    /// Calls `f(block id, instructions)` for each block warp `warp` of `cta` runs.
    pub(crate) fn walk(&mut self, cta: &Cta, warp: &WarpTrace, ends: &[bool], mut f: impl FnMut(u32, &[Instruction])) {
        let instructions = cta.warp_instructions(warp);
        for_each_block(instructions, ends, |first, end| {
            let block = &instructions[first..end];
            f(self.intern(block), block);
        });
    }
}

#[cfg(test)]
mod tests {
    use warplab_trace::OpcodeId;

    use super::*;

    fn inst(pc: u32, opcode: u16) -> Instruction {
        Instruction { pc, opcode: OpcodeId(opcode), mask: u32::MAX, ..Instruction::default() }
    }

    fn blocks(instructions: &[Instruction], ends: &[bool]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for_each_block(instructions, ends, |a, b| out.push((a, b)));
        out
    }

    #[test]
    fn branches_and_barriers_end_blocks() {
        assert!(ends_block("BRA"));
        assert!(ends_block("BAR.SYNC"));
        assert!(ends_block("EXIT"));
        assert!(!ends_block("BRAX"));
        assert!(!ends_block("FADD"));
        // Opcode 1 is a branch; the loop body runs twice, then falls through.
        let ends = [false, true];
        let stream = [inst(0, 0), inst(16, 0), inst(32, 1), inst(16, 0), inst(32, 1), inst(48, 0), inst(64, 0)];
        assert_eq!(blocks(&stream, &ends), vec![(0, 3), (3, 5), (5, 7)]);
    }

    #[test]
    fn a_jump_without_a_branch_starts_a_block() {
        let stream = [inst(0, 0), inst(16, 0), inst(256, 0), inst(272, 0), inst(8, 0)];
        assert_eq!(blocks(&stream, &[false]), vec![(0, 2), (2, 4), (4, 5)]);
    }

    #[test]
    fn the_same_code_gets_the_same_id() {
        let ends = [false, true];
        // The loop body [16, 32] runs twice.
        let stream =
            [inst(0, 0), inst(16, 0), inst(32, 1), inst(16, 0), inst(32, 1), inst(16, 0), inst(32, 1), inst(48, 0)];
        let mut table = BlockTable::default();
        let mut ids = Vec::new();
        for (a, b) in blocks(&stream, &ends) {
            ids.push(table.intern(&stream[a..b]));
        }
        assert_eq!(ids, vec![0, 1, 1, 2]);
        assert_eq!(table.types[1].insts, 2);
    }
}
