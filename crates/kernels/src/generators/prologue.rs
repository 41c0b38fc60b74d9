//! The prologue most one-thread-per-item kernels open with.

use crate::{Code, Op, WarpWriter};

/// The prologue of a one-thread-per-item kernel: `i = blockIdx.x *
/// blockDim.x + threadIdx.x` into `R0`, then `if (i >= n) return;`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ThreadIndex {
    setup: [Op; 4],
    guard: Op,
    exit_guard: Op,
}

impl ThreadIndex {
    /// Writes the prologue (it uses `R0`, `R1` and `R3`).
    pub(crate) fn listing(code: &mut Code) -> ThreadIndex {
        ThreadIndex {
            setup: [
                code.op("MOV", &[1], &[]),
                code.op("S2R", &[0], &[]),
                code.op("S2R", &[3], &[]),
                code.op("IMAD", &[0], &[0, 3]),
            ],
            guard: code.op("ISETP.GE.AND", &[], &[0]),
            exit_guard: code.op("EXIT", &[], &[]),
        }
    }

    /// Executes the prologue for the lanes `exist`, of which `inside` pass
    /// the bound check; the others take the `@P0 EXIT`.
    pub(crate) fn exec(&self, w: &mut WarpWriter<'_>, exist: u32, inside: u32) {
        for op in self.setup {
            w.exec(op, exist);
        }
        w.exec(self.guard, exist);
        w.exec(self.exit_guard, exist & !inside);
    }
}
