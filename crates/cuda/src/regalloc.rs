//! Register allocation: liveness over the control-flow graph, one live
//! interval per virtual register (from its first to its last live point in
//! listing order, so a value live around a loop covers the whole loop), and
//! linear scan onto `R0`..`R254`, a 64-bit value on an aligned pair. There is
//! no spilling: a kernel that needs more registers is an error.

use crate::cfg::Blocks;
use crate::codegen::MAX_REGISTERS;
use crate::sass::{Inst, Operand};

/// Rewrites `insts` from virtual registers (of the `widths` given) onto
/// physical ones and returns the registers per thread.
///
/// # Errors
/// The registers live at once at the point where none was left.
pub(crate) fn allocate(insts: &mut [Inst], widths: &[u8]) -> Result<u32, u32> {
    let (start, end) = live_intervals(insts, widths.len());
    let mut order: Vec<usize> = (0..widths.len()).filter(|&v| start[v] != u32::MAX).collect();
    order.sort_by_key(|&v| (start[v], v));
    let mut physical = vec![0u32; widths.len()];
    let mut busy = [false; MAX_REGISTERS as usize];
    let mut active: Vec<usize> = Vec::new();
    let mut registers = 0;
    for v in order {
        active.retain(|&other| {
            let live = end[other] >= start[v];
            if !live {
                let base = physical[other] as usize;
                busy[base..base + usize::from(widths[other])].fill(false);
            }
            live
        });
        let width = usize::from(widths[v]);
        let Some(base) =
            (0..busy.len() + 1 - width).step_by(width).find(|&base| busy[base..base + width].iter().all(|used| !used))
        else {
            let live: usize = active.iter().map(|&other| usize::from(widths[other])).sum();
            return Err((live + width) as u32);
        };
        busy[base..base + width].fill(true);
        physical[v] = base as u32;
        registers = registers.max((base + width) as u32);
        active.push(v);
    }
    for inst in insts.iter_mut() {
        rename(&mut inst.dst, &physical);
        for src in &mut inst.src {
            rename(&mut src.operand, &physical);
        }
    }
    Ok(registers)
}

fn rename(operand: &mut Operand, physical: &[u32]) {
    if let Operand::Reg(v) = operand {
        *v = physical[*v as usize];
    }
}

/// The registers an instruction reads: its sources, and its destination
/// when a guard may leave the old value in some lanes.
fn uses(inst: &Inst) -> impl Iterator<Item = usize> + '_ {
    let partial = match inst.dst {
        Operand::Reg(v) if inst.guard.is_some() => Some(v as usize),
        _ => None,
    };
    inst.source_registers().map(|v| v as usize).chain(partial)
}

fn def(inst: &Inst) -> Option<usize> {
    match inst.dst {
        Operand::Reg(v) => Some(v as usize),
        _ => None,
    }
}

/// Each register's first and last live instruction (`u32::MAX`, 0 when it
/// is never named).
fn live_intervals(insts: &[Inst], n_regs: usize) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![u32::MAX; n_regs];
    let mut end = vec![0u32; n_regs];
    if insts.is_empty() {
        return (start, end);
    }
    let blocks = Blocks::of(insts);
    let (live_in, live_out, words) = liveness(insts, &blocks, n_regs);
    let mut extend = |v: usize, at: usize| {
        start[v] = start[v].min(at as u32);
        end[v] = end[v].max(at as u32);
    };
    for (block, (&first, &last)) in blocks.starts.iter().zip(&blocks.ends).enumerate() {
        for v in set_bits(&live_in[block * words..(block + 1) * words]) {
            extend(v, first);
        }
        for v in set_bits(&live_out[block * words..(block + 1) * words]) {
            extend(v, last - 1);
        }
        for (at, inst) in insts[first..last].iter().enumerate() {
            for v in uses(inst).chain(def(inst)) {
                extend(v, first + at);
            }
        }
    }
    (start, end)
}

/// Live-in and live-out bit sets per block (`words` 64-bit words each), by
/// the usual backward data-flow iteration.
fn liveness(insts: &[Inst], blocks: &Blocks, n_regs: usize) -> (Vec<u64>, Vec<u64>, usize) {
    let words = n_regs.div_ceil(64).max(1);
    let n_blocks = blocks.starts.len();
    let mut used = vec![0u64; n_blocks * words];
    let mut defined = vec![0u64; n_blocks * words];
    for block in 0..n_blocks {
        let (used, defined) = (&mut used[block * words..], &mut defined[block * words..]);
        for inst in &insts[blocks.starts[block]..blocks.ends[block]] {
            for v in uses(inst) {
                if defined[v / 64] & (1 << (v % 64)) == 0 {
                    used[v / 64] |= 1 << (v % 64);
                }
            }
            if let Some(v) = def(inst) {
                defined[v / 64] |= 1 << (v % 64);
            }
        }
    }
    let mut live_in = used.clone();
    let mut live_out = vec![0u64; n_blocks * words];
    let mut changed = true;
    while changed {
        changed = false;
        for block in (0..n_blocks).rev() {
            for word in 0..words {
                let out = blocks.successors[block].iter().fold(0, |acc, &s| acc | live_in[s * words + word]);
                let index = block * words + word;
                let input = used[index] | (out & !defined[index]);
                if out != live_out[index] || input != live_in[index] {
                    (live_out[index], live_in[index]) = (out, input);
                    changed = true;
                }
            }
        }
    }
    (live_in, live_out, words)
}

fn set_bits(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(index, &word)| {
        let mut word = word;
        std::iter::from_fn(move || {
            (word != 0).then(|| {
                let bit = word.trailing_zeros() as usize;
                word &= word - 1;
                index * 64 + bit
            })
        })
    })
}
