//! The scoreboard: for each warp and register, the cycle its pending write
//! lands (`PENDING` while a load is outstanding), so an instruction waits for
//! its sources (RAW) and destinations (WAW).
//!
//! Most registers are ready most of the time, and the ready cycles of 64
//! warps × 320 registers fill 160 KB per SM, more than a host CPU's cache
//! holds for 80 SMs. A per-warp bit per register says which ready cycles may
//! still lie ahead; a clear bit answers "ready" without touching the big
//! table. Bits are set on every write and cleared when an instruction that
//! read the register issues, so they are never clear for a register that is
//! not ready.

use warplab_trace::Reg;

/// Scoreboard slots per warp: 255 regular registers, RZ and 64 uniform
/// registers (`UR0` is 256).
pub(crate) const REGS_PER_WARP: usize = 320;

const WORDS: usize = REGS_PER_WARP.div_ceil(64);

/// The scoreboard of one SM's warp slots.
#[derive(Debug, Clone)]
pub(crate) struct Scoreboard {
    ready_at: Vec<u64>,
    maybe_busy: Vec<[u64; WORDS]>,
}

/// The slot of `reg`, or `None` for RZ and registers beyond the table.
fn slot(reg: Reg) -> Option<usize> {
    let index = reg.0 as usize;
    (reg != Reg::RZ && index < REGS_PER_WARP).then_some(index)
}

impl Scoreboard {
    pub(crate) fn new(n_warps: usize) -> Self {
        Self { ready_at: vec![0; n_warps * REGS_PER_WARP], maybe_busy: vec![[0; WORDS]; n_warps] }
    }

    /// Every register of warp `w` ready (a new warp in the slot).
    pub(crate) fn reset(&mut self, w: usize) {
        self.maybe_busy[w] = [0; WORDS];
    }

    /// The cycle `reg` of warp `w` is ready (0: long ago).
    pub(crate) fn ready_at(&self, w: usize, reg: Reg) -> u64 {
        match slot(reg) {
            Some(i) if self.maybe_busy[w][i / 64] & (1 << (i % 64)) != 0 => self.ready_at[w * REGS_PER_WARP + i],
            _ => 0,
        }
    }

    /// `reg` of warp `w` is written at cycle `at`.
    pub(crate) fn set(&mut self, w: usize, reg: Reg, at: u64) {
        if let Some(i) = slot(reg) {
            self.ready_at[w * REGS_PER_WARP + i] = at;
            self.maybe_busy[w][i / 64] |= 1 << (i % 64);
        }
    }

    /// `regs` of warp `w` are known ready (an instruction reading them issued).
    pub(crate) fn settle(&mut self, w: usize, regs: &[Reg]) {
        for &reg in regs {
            if let Some(i) = slot(reg) {
                self.maybe_busy[w][i / 64] &= !(1 << (i % 64));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_is_seen_until_settled_and_rz_is_always_ready() {
        let mut board = Scoreboard::new(2);
        board.set(1, Reg(7), 40);
        board.set(1, Reg::RZ, 99);
        assert_eq!(board.ready_at(1, Reg(7)), 40);
        assert_eq!(board.ready_at(0, Reg(7)), 0, "other warps are untouched");
        assert_eq!(board.ready_at(1, Reg::RZ), 0);
        board.settle(1, &[Reg(7)]);
        assert_eq!(board.ready_at(1, Reg(7)), 0);
        board.set(1, Reg(300), u64::MAX);
        board.reset(1);
        assert_eq!(board.ready_at(1, Reg(300)), 0);
    }
}
