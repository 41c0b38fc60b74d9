//! A kernel's static code: the SASS listing a generator executes.
//!
//! Each static instruction gets its PC once, when the listing is written, so a
//! loop body revisits the same PCs on every iteration exactly as on hardware,
//! and its registers are fixed, so the dependences the timing model sees are
//! the ones the listing spells out.

use warplab_trace::{Diagnostic, Isa, MAX_DST_REGS, MAX_SRC_REGS, MemSpace, OpcodeId, OpcodeTable, Reg};

/// The binary version generated traces carry: Volta (`sm_70`), whose opcode
/// table every bundled preset reads without a fallback diagnostic.
pub const BINARY_VERSION: u32 = 70;

/// Bytes between consecutive instructions (Volta and later encode 128-bit
/// instructions).
const PC_STEP: u32 = 16;

/// `RZ`, the register that reads zero.
pub const RZ: u16 = 255;

/// One static instruction: everything but the mask and the addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Op {
    pub(crate) pc: u32,
    pub(crate) opcode: OpcodeId,
    pub(crate) space: MemSpace,
    pub(crate) n_dst: u8,
    pub(crate) n_src: u8,
    pub(crate) dst: [Reg; MAX_DST_REGS],
    pub(crate) src: [Reg; MAX_SRC_REGS],
    /// Bytes per thread for memory instructions, 0 otherwise.
    pub(crate) mem_width: u16,
}

impl Op {
    /// The instruction's PC.
    pub fn pc(&self) -> u32 {
        self.pc
    }
}

/// A kernel's listing under construction, and the opcode table its
/// instructions are interned in.
#[derive(Debug, Clone)]
pub struct Code {
    opcodes: OpcodeTable,
    next_pc: u32,
    /// One past the highest general-purpose register named so far.
    registers: u16,
}

impl Default for Code {
    fn default() -> Self {
        Self::new()
    }
}

impl Code {
    /// An empty listing for [`BINARY_VERSION`].
    pub fn new() -> Code {
        let (isa, _) = Isa::for_binary_version(BINARY_VERSION);
        Code { opcodes: OpcodeTable::new(isa), next_pc: 0, registers: 0 }
    }

    /// Appends `opcode dst.. , src..` at the next PC. Memory opcodes (those
    /// with a memory space) carry addresses; their width comes from the
    /// opcode's modifiers, as Accel-Sim reads it.
    ///
    /// # Panics
    /// On an opcode the table does not know or more registers than an
    /// instruction line holds: listings are written by this crate, so either
    /// is a bug in a generator that every test of it would hit.
    pub fn op(&mut self, opcode: &str, dst: &[u16], src: &[u16]) -> Op {
        assert!(dst.len() <= MAX_DST_REGS && src.len() <= MAX_SRC_REGS, "`{opcode}` has too many registers");
        let mut diagnostics: Vec<Diagnostic> = Vec::new();
        let id = self.opcodes.intern(opcode, &mut diagnostics).expect("opcode table has room");
        let info = self.opcodes.info(id);
        assert!(!info.unknown, "generator listing uses `{opcode}`, which the sm_70 table lacks");
        let mut op = Op {
            pc: self.next_pc,
            opcode: id,
            space: info.space,
            n_dst: u8::try_from(dst.len()).expect("few destinations"),
            n_src: u8::try_from(src.len()).expect("few sources"),
            // Unused slots hold what the trace reader leaves there.
            dst: [Reg::default(); MAX_DST_REGS],
            src: [Reg::default(); MAX_SRC_REGS],
            mem_width: if info.space == MemSpace::None { 0 } else { u16::from(info.access_bytes) },
        };
        for (slot, reg) in op.dst.iter_mut().zip(dst) {
            *slot = Reg(*reg);
        }
        for (slot, reg) in op.src.iter_mut().zip(src) {
            *slot = Reg(*reg);
        }
        for &reg in dst.iter().chain(src).filter(|&&reg| reg < RZ) {
            // A 64-bit operand `Rn` also occupies `Rn+1`; counting one more
            // register than named keeps pairs inside the allocation.
            self.registers = self.registers.max(reg + 2);
        }
        self.next_pc += PC_STEP;
        op
    }

    /// Registers per thread the kernel's header declares: enough for every
    /// register the listing names, the way `ptxas` reports it.
    pub fn registers_per_thread(&self) -> u32 {
        u32::from(self.registers)
    }

    /// The opcode table the listing's instructions are interned in.
    pub fn opcodes(&self) -> &OpcodeTable {
        &self.opcodes
    }
}
