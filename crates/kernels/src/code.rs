//! A kernel's static code: the SASS listing a generator executes.
//!
//! Each static instruction gets its PC once, when the listing is written, so a
//! loop body revisits the same PCs on every iteration exactly as on hardware,
//! and its registers are fixed, so the dependences the timing model sees are
//! the ones the listing spells out.

use warplab_config::ComputeCapability;
use warplab_trace::{Diagnostic, Isa, MAX_DST_REGS, MAX_SRC_REGS, MemSpace, OpcodeId, OpcodeTable, Reg};

/// The binary version of a listing made without a GPU in mind (unit tests):
/// Volta (`sm_70`).
pub const BINARY_VERSION: u32 = 70;

/// The binary version, and so the opcode table, of the SASS generated for a
/// GPU of compute capability `cc`: the GPU's own where Accel-Sim has a table
/// for it (`trace_kernel_info_t`'s binary versions 60 and 61 Pascal, 70
/// Volta, 75 Turing, 80 and 86 Ampere), so that Accel-Sim dispatches each
/// instruction as that GPU's config expects: Volta's table sends `BRA` to
/// specialized unit 1, which a Pascal config does not define, where Pascal's
/// runs it on the SP (or INT) units. Accel-Sim exits on any other version:
/// Hopper and later get Ampere's table, the nearest it has; Maxwell and
/// older get Pascal's, since the generators' opcodes (`IADD3`, `LOP3`, ...)
/// are not in Kepler's.
pub fn binary_version_for(cc: ComputeCapability) -> u32 {
    match (cc.major, cc.minor) {
        (6, 0) => 60,
        (0..=6, _) => 61,
        (7, 5) => 75,
        (7, _) => 70,
        (8, 6) => 86,
        _ => 80,
    }
}

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
    binary_version: u32,
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
        Code::for_binary_version(BINARY_VERSION)
    }

    /// An empty listing in the SASS of `binary_version`.
    pub fn for_binary_version(binary_version: u32) -> Code {
        let (isa, _) = Isa::for_binary_version(binary_version);
        Code { binary_version, opcodes: OpcodeTable::new(isa), next_pc: 0, registers: 0 }
    }

    /// The binary version the kernel's header declares.
    pub fn binary_version(&self) -> u32 {
        self.binary_version
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
        assert!(!info.unknown, "generator listing uses `{opcode}`, which the {:?} table lacks", self.opcodes.isa());
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
