//! The control-flow graph of a listing: basic blocks, their successors, and
//! each branch's immediate post-dominator, where GPGPU-Sim's SIMT stack
//! reconverges the paths a divergent branch splits.

use crate::sass::{Inst, NO_RECONVERGENCE, Op};

/// A listing's basic blocks.
pub(crate) struct Blocks {
    /// Each block's first instruction; the blocks are in listing order.
    pub starts: Vec<usize>,
    /// One past each block's last instruction.
    pub ends: Vec<usize>,
    /// Each block's successors.
    pub successors: Vec<Vec<usize>>,
}

impl Blocks {
    /// Splits `insts` at branch targets and after branches and exits.
    pub fn of(insts: &[Inst]) -> Blocks {
        let n = insts.len();
        let mut leader = vec![false; n + 1];
        leader[0] = true;
        for (index, inst) in insts.iter().enumerate() {
            if matches!(inst.op, Op::Bra | Op::Exit) {
                leader[index + 1] = true;
            }
            if inst.op == Op::Bra {
                leader[(inst.target as usize).min(n)] = true;
            }
        }
        let starts: Vec<usize> = (0..n).filter(|&i| leader[i]).collect();
        let mut block_of = vec![0; n + 1];
        let mut ends = Vec::with_capacity(starts.len());
        for (block, &start) in starts.iter().enumerate() {
            let end = starts.get(block + 1).copied().unwrap_or(n);
            block_of[start..end].fill(block);
            ends.push(end);
        }
        let successors = starts
            .iter()
            .zip(&ends)
            .map(|(_, &end)| {
                let last = &insts[end - 1];
                let mut next = Vec::with_capacity(2);
                let falls_through = match last.op {
                    Op::Bra | Op::Exit => last.guard.is_some(),
                    _ => true,
                };
                if last.op == Op::Bra && (last.target as usize) < n {
                    next.push(block_of[last.target as usize]);
                }
                if falls_through && end < n && !next.contains(&block_of[end]) {
                    next.push(block_of[end]);
                }
                next
            })
            .collect();
        Blocks { starts, ends, successors }
    }
}

/// Sets every branch's reconvergence point to the first instruction of its
/// block's immediate post-dominator.
pub(crate) fn set_reconvergence(insts: &mut [Inst]) {
    if insts.is_empty() {
        return;
    }
    let blocks = Blocks::of(insts);
    let ipdom = post_dominators(&blocks);
    for (block, &end) in blocks.ends.iter().enumerate() {
        let last = &mut insts[end - 1];
        if last.op == Op::Bra {
            last.reconverge = ipdom[block].map_or(NO_RECONVERGENCE, |b| blocks.starts[b] as u32);
        }
    }
}

/// Each block's immediate post-dominator (`None`: the exit, or a block from
/// which the exit cannot be reached), by Cooper, Harvey and Kennedy's
/// iterative algorithm on the reversed graph rooted at a virtual exit.
fn post_dominators(blocks: &Blocks) -> Vec<Option<usize>> {
    let n = blocks.starts.len();
    let exit = n;
    // Edges of the reversed graph: exit -> each block without successors,
    // and s -> b for each edge b -> s.
    let mut reversed: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    for (block, successors) in blocks.successors.iter().enumerate() {
        if successors.is_empty() {
            reversed[exit].push(block);
        }
        for &successor in successors {
            reversed[successor].push(block);
        }
    }
    let order = postorder(&reversed, exit);
    let mut number = vec![usize::MAX; n + 1];
    for (index, &node) in order.iter().enumerate() {
        number[node] = index;
    }
    let mut idom = vec![usize::MAX; n + 1];
    idom[exit] = exit;
    let mut changed = true;
    while changed {
        changed = false;
        for &node in order.iter().rev().filter(|&&node| node != exit) {
            // The node's predecessors in the reversed graph are its CFG
            // successors, and the exit for a block that ends the kernel.
            let exit_pred = blocks.successors[node].is_empty().then_some(exit);
            let mut new = usize::MAX;
            for pred in blocks.successors[node].iter().copied().chain(exit_pred) {
                if idom[pred] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX { pred } else { intersect(&idom, &number, pred, new) };
            }
            if new != usize::MAX && idom[node] != new {
                idom[node] = new;
                changed = true;
            }
        }
    }
    (0..n).map(|block| (idom[block] != usize::MAX && idom[block] != exit).then_some(idom[block])).collect()
}

fn intersect(idom: &[usize], number: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while number[a] < number[b] {
            a = idom[a];
        }
        while number[b] < number[a] {
            b = idom[b];
        }
    }
    a
}

/// The nodes reachable from `root`, in depth-first postorder (iteratively,
/// so a long listing cannot overflow the stack).
fn postorder(edges: &[Vec<usize>], root: usize) -> Vec<usize> {
    let mut visited = vec![false; edges.len()];
    let mut order = Vec::with_capacity(edges.len());
    let mut stack = vec![(root, 0)];
    visited[root] = true;
    while let Some(&mut (node, ref mut next)) = stack.last_mut() {
        if let Some(&child) = edges[node].get(*next) {
            *next += 1;
            if !visited[child] {
                visited[child] = true;
                stack.push((child, 0));
            }
        } else {
            order.push(node);
            stack.pop();
        }
    }
    order
}
