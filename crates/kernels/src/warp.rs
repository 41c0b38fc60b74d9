//! Appending one warp's dynamic instruction stream to a CTA.

use warplab_trace::{Addresses, Cta, Instruction, WARP_SIZE, WarpTrace};

use crate::code::Op;

/// All 32 lanes.
pub const FULL_MASK: u32 = u32::MAX;

/// Writes the instructions one warp executes, in order, into a [`Cta`]. The
/// warp joins the CTA's warp list at [`WarpWriter::finish`].
#[derive(Debug)]
pub struct WarpWriter<'a> {
    cta: &'a mut Cta,
    warp_id: u32,
    first: u32,
}

impl<'a> WarpWriter<'a> {
    /// Starts warp `warp_id` of `cta`.
    pub fn new(cta: &'a mut Cta, warp_id: u32) -> WarpWriter<'a> {
        let first = cta.instructions.len() as u32;
        WarpWriter { cta, warp_id, first }
    }

    /// Executes a non-memory instruction with the active lanes `mask`. A mask
    /// of 0 is kept: the trace records predicated-off instructions too (an
    /// `@P0 EXIT` no lane takes).
    pub fn exec(&mut self, op: Op, mask: u32) {
        debug_assert_eq!(op.mem_width, 0, "memory instruction without addresses");
        self.push(op, mask, Addresses::None);
    }

    /// Executes a memory instruction; `address(lane)` is the byte address
    /// lane `lane` accesses, asked only for active lanes, in lane order.
    pub fn mem(&mut self, op: Op, mask: u32, mut address: impl FnMut(u32) -> u64) {
        debug_assert!(op.mem_width > 0, "addresses for a non-memory instruction");
        let addresses = if mask == 0 {
            Addresses::Strided { base: 0, stride: 0 }
        } else {
            self.cta.push_addresses(lanes(mask).map(&mut address))
        };
        self.push(op, mask, addresses);
    }

    /// Ends the warp.
    pub fn finish(self) {
        let len = self.cta.instructions.len() as u32 - self.first;
        self.cta.warps.push(WarpTrace { warp_id: self.warp_id, first: self.first, len });
    }

    fn push(&mut self, op: Op, mask: u32, addresses: Addresses) {
        self.cta.instructions.push(Instruction {
            pc: op.pc,
            mask,
            opcode: op.opcode,
            space: op.space,
            n_dst: op.n_dst,
            n_src: op.n_src,
            dst: op.dst,
            src: op.src,
            mem_width: op.mem_width,
            addresses,
            immediate: 0,
            source_line: 0,
        });
    }
}

/// The active lanes of `mask`, ascending.
pub fn lanes(mask: u32) -> impl Iterator<Item = u32> {
    // Bit by bit: a generator asks this for every memory instruction.
    let mut left = mask;
    std::iter::from_fn(move || {
        let lane = (left != 0).then(|| left.trailing_zeros())?;
        left &= left - 1;
        Some(lane)
    })
}

/// The mask of lanes for which `active(lane)` holds.
pub fn mask_where(mut active: impl FnMut(u32) -> bool) -> u32 {
    (0..WARP_SIZE as u32).filter(|&lane| active(lane)).fold(0, |mask, lane| mask | (1 << lane))
}

/// The lanes of `mask` for which `holds(lane)` is true; `holds` is asked
/// only about lanes of `mask`.
pub fn within(mask: u32, mut holds: impl FnMut(u32) -> bool) -> u32 {
    mask_where(|lane| mask & (1 << lane) != 0 && holds(lane))
}

/// Which threads of a CTA one warp holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarpLanes {
    /// The warp's index in the CTA.
    pub warp: u32,
    /// The CTA-relative thread index of lane 0.
    pub first_thread: u64,
    /// Lanes that exist: all 32 unless the CTA size is not a multiple of 32.
    pub mask: u32,
}

impl WarpLanes {
    /// The CTA-relative thread index of `lane`.
    pub fn thread(&self, lane: u32) -> u64 {
        self.first_thread + u64::from(lane)
    }
}

/// Runs `body` for each warp of a CTA of `block_threads` threads, in warp
/// order, each with its own [`WarpWriter`].
pub fn for_each_warp(cta: &mut Cta, block_threads: u64, mut body: impl FnMut(&mut WarpWriter<'_>, WarpLanes)) {
    let warp_size = WARP_SIZE as u64;
    for warp in 0..block_threads.div_ceil(warp_size) {
        let first_thread = warp * warp_size;
        let lanes = (block_threads - first_thread).min(warp_size);
        let mask = if lanes == warp_size { FULL_MASK } else { (1u32 << lanes) - 1 };
        let mut writer = WarpWriter::new(cta, warp as u32);
        body(&mut writer, WarpLanes { warp: warp as u32, first_thread, mask });
        writer.finish();
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// The lanes of a mask are its set bits, ascending, each once.
        #[test]
        fn lanes_are_the_set_bits_in_order(mask in any::<u32>()) {
            let expected: Vec<u32> = (0..WARP_SIZE as u32).filter(|lane| mask & (1 << lane) != 0).collect();
            prop_assert_eq!(lanes(mask).collect::<Vec<_>>(), expected);
        }
    }
}
