//! Where a kernel's code lives and how much one fetch brings, as Accel-Sim's
//! trace-driven front end has them: the timing model's fetch stage and the
//! analytical profile's count of the lines a warp waits for both read these.

/// Where GPGPU-Sim places code in the address space: the instruction at PC
/// `pc` is fetched from this address plus `pc` (every trace's PCs start at
/// 0, so kernels share lines).
pub const PROGRAM_MEM_START: u64 = 0xF000_0000;

/// Trace instructions one fetch brings into a warp's instruction buffer
/// (GPGPU-Sim's `IBUFFER_SIZE`): the fetch reads the line of the first one's
/// PC, and decode takes the next two trace instructions whatever their PCs
/// (Accel-Sim's `get_next_inst`).
pub const INSTRUCTIONS_PER_FETCH: u32 = 2;

/// The address the instruction at `pc` is fetched from.
#[must_use]
pub fn code_address(pc: u32) -> u64 {
    PROGRAM_MEM_START + u64::from(pc)
}
