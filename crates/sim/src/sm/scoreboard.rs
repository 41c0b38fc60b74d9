//! The scoreboard: for each warp and register, whether a write to it is
//! outstanding, so an instruction waits for its sources (RAW) and
//! destinations (WAW).
//!
//! A register is written by a load (outstanding until its data returns) or by
//! an arithmetic instruction (outstanding until its writeback), and is ready
//! from the cycle that write lands on: no write is known to land at a later
//! cycle in advance (results come through the pipeline's stages). So each
//! register needs two bits, not a ready cycle: 64 warps × 320 registers as
//! two bit sets is 5 KB per SM, where a table of ready cycles would be 160 KB,
//! more than a host CPU's cache holds for 80 SMs.

use warplab_trace::Reg;

/// Scoreboard slots per warp: 255 regular registers, RZ and 64 uniform
/// registers (`UR0` is 256).
pub(crate) const REGS_PER_WARP: usize = 320;

const WORDS: usize = REGS_PER_WARP.div_ceil(64);

/// What a register waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RegState {
    /// Nothing: it may be read and written.
    Ready,
    /// An arithmetic instruction's result, until its writeback.
    Computing,
    /// A load's data.
    Pending,
}

/// One warp slot's outstanding writes, both bit sets in two host cache lines.
#[derive(Debug, Clone, Copy, Default)]
struct WarpRegs {
    computing: [u64; WORDS],
    pending: [u64; WORDS],
}

/// The scoreboard of one SM's warp slots.
#[derive(Debug, Clone)]
pub(crate) struct Scoreboard {
    warps: Vec<WarpRegs>,
}

/// The slot of `reg`, or `None` for RZ and registers beyond the table.
fn slot(reg: Reg) -> Option<usize> {
    let index = reg.0 as usize;
    (reg != Reg::RZ && index < REGS_PER_WARP).then_some(index)
}

impl Scoreboard {
    pub(crate) fn new(n_warps: usize) -> Self {
        Self { warps: vec![WarpRegs::default(); n_warps] }
    }

    /// Every register of warp `w` ready (a new warp in the slot).
    pub(crate) fn reset(&mut self, w: usize) {
        self.warps[w] = WarpRegs::default();
    }

    /// What `reg` of warp `w` waits for.
    pub(crate) fn state(&self, w: usize, reg: Reg) -> RegState {
        let Some(i) = slot(reg) else { return RegState::Ready };
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        let regs = &self.warps[w];
        if regs.pending[word] & bit != 0 {
            RegState::Pending
        } else if regs.computing[word] & bit != 0 {
            RegState::Computing
        } else {
            RegState::Ready
        }
    }

    /// `reg` of warp `w` now waits for `state`.
    pub(crate) fn set(&mut self, w: usize, reg: Reg, state: RegState) {
        let Some(i) = slot(reg) else { return };
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        let regs = &mut self.warps[w];
        regs.pending[word] &= !bit;
        regs.computing[word] &= !bit;
        match state {
            RegState::Ready => {}
            RegState::Computing => regs.computing[word] |= bit,
            RegState::Pending => regs.pending[word] |= bit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_is_seen_until_it_lands_and_rz_is_always_ready() {
        let mut board = Scoreboard::new(2);
        board.set(1, Reg(7), RegState::Pending);
        board.set(1, Reg::RZ, RegState::Pending);
        assert_eq!(board.state(1, Reg(7)), RegState::Pending);
        assert_eq!(board.state(0, Reg(7)), RegState::Ready, "other warps are untouched");
        assert_eq!(board.state(1, Reg::RZ), RegState::Ready);
        board.set(1, Reg(7), RegState::Computing);
        assert_eq!(board.state(1, Reg(7)), RegState::Computing);
        board.set(1, Reg(7), RegState::Ready);
        assert_eq!(board.state(1, Reg(7)), RegState::Ready);
        board.set(1, Reg(300), RegState::Pending);
        board.reset(1);
        assert_eq!(board.state(1, Reg(300)), RegState::Ready);
    }
}
