//! Per-kernel opcode facts, decided once per opcode instead of once per
//! instruction: which pipeline, its latency and initiation interval, and what
//! kind of memory operation it is. The timing model's issue stage and the
//! analytical models' interval profile read the same table, so both give an
//! opcode the same latency.

use crate::dispatch::{Pipe, dispatch};
use warplab_config::{GpuConfig, LatencyInitiation, UnitClass};
use warplab_trace::{MemSpace, OpCategory, OpcodeTable};

/// The execution-unit classes an SM can have, as dense indices: the five
/// fixed classes, then the eight specialized slots.
pub const N_UNIT_CLASSES: usize = 5 + warplab_config::units::N_SPECIALIZED_SLOTS as usize;

/// Dense index of a unit class.
pub fn unit_index(class: UnitClass) -> usize {
    match class {
        UnitClass::Sp => 0,
        UnitClass::Int => 1,
        UnitClass::Dp => 2,
        UnitClass::Sfu => 3,
        UnitClass::Tensor => 4,
        UnitClass::Specialized(k) => 4 + usize::from(k.clamp(1, warplab_config::units::N_SPECIALIZED_SLOTS)),
    }
}

/// The unit class of a dense index.
pub fn unit_class(index: usize) -> UnitClass {
    match index {
        0 => UnitClass::Sp,
        1 => UnitClass::Int,
        2 => UnitClass::Dp,
        3 => UnitClass::Sfu,
        4 => UnitClass::Tensor,
        k => UnitClass::Specialized((k - 4) as u8),
    }
}

/// What an instruction does beyond occupying a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    /// Arithmetic, moves, branches, constant loads: a fixed latency.
    Alu,
    /// A load from `space`.
    Load(MemSpace),
    /// A store to `space`.
    Store(MemSpace),
    /// An atomic or reduction in `space`.
    Atomic(MemSpace),
    /// `BAR`: wait for the CTA's other warps.
    Barrier,
    /// `MEMBAR`: wait until this warp's stores are acknowledged.
    MemoryBarrier,
    /// `EXIT`.
    Exit,
}

/// Everything the SM needs to know about one opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpInfo {
    /// The unit class it issues to (dense index), or `None` for the LD/ST unit.
    pub unit: Option<usize>,
    /// Cycles from issue to the result being readable.
    pub latency_cycles: u32,
    /// Cycles before the same unit accepts the next instruction.
    pub initiation_cycles: u32,
    /// What kind of operation it is.
    pub kind: OpKind,
    /// Bytes per thread of a memory access.
    pub access_bytes: u32,
}

/// Appends to `table` the opcode facts of the opcodes of `opcodes` it does
/// not hold yet (a trace reader interns opcodes as it meets them, so the table
/// grows as CTAs are read), returning diagnostics for those that fall back to
/// another unit.
pub fn extend_op_table(table: &mut Vec<OpInfo>, opcodes: &OpcodeTable, config: &GpuConfig) -> Vec<String> {
    let mut diagnostics = Vec::new();
    for (_, info) in opcodes.iter().skip(table.len()) {
        let decision = dispatch(info.unit, &config.units);
        if let Some(message) = &decision.fallback {
            diagnostics.push(format!("`{}`: {message}", info.text));
        }
        let kind = match info.category {
            OpCategory::Barrier => OpKind::Barrier,
            OpCategory::MemoryBarrier => OpKind::MemoryBarrier,
            OpCategory::Exit => OpKind::Exit,
            OpCategory::Load if info.space != MemSpace::None => OpKind::Load(info.space),
            OpCategory::Store if info.atomic => OpKind::Atomic(info.space),
            OpCategory::Store if info.space != MemSpace::None => OpKind::Store(info.space),
            _ if info.space == MemSpace::Tex => OpKind::Load(MemSpace::Tex),
            _ => OpKind::Alu,
        };
        let (unit, timing) = match decision.pipe {
            // A fallback is warplab's own (Accel-Sim would not run it): the
            // unit that runs it sets its timing.
            Pipe::Unit(class) if decision.fallback.is_some() => (Some(unit_index(class)), config.latency(class)),
            Pipe::Unit(class) => (Some(unit_index(class)), category_timing(info.category, config)),
            // Memory fences have no data to move; they wait in the issue stage.
            Pipe::Memory if kind == OpKind::MemoryBarrier || kind == OpKind::Alu => {
                let int = if config.has_unit(UnitClass::Int) { UnitClass::Int } else { UnitClass::Sp };
                (Some(unit_index(int)), config.latency(int))
            }
            Pipe::Memory => (None, config.latency(UnitClass::Int)),
        };
        table.push(OpInfo {
            unit,
            latency_cycles: timing.latency_cycles.max(1),
            initiation_cycles: timing.initiation_cycles.max(1),
            kind,
            access_bytes: u32::from(info.access_bytes).max(1),
        });
    }
    diagnostics
}

/// The latency and initiation interval of an opcode category, as Accel-Sim
/// gives them (`trace_config::set_latency`): by category, whichever unit runs
/// the instruction (on an SM without INT units an ALU instruction runs on SP
/// with the INT latency); the categories it gives none, such as `EXIT` and
/// `BAR`, take one cycle of each.
fn category_timing(category: OpCategory, config: &GpuConfig) -> LatencyInitiation {
    let class = match category {
        OpCategory::Alu | OpCategory::Intp | OpCategory::Branch | OpCategory::Call | OpCategory::Ret => UnitClass::Int,
        OpCategory::Sp => UnitClass::Sp,
        OpCategory::Dp => UnitClass::Dp,
        OpCategory::Sfu => UnitClass::Sfu,
        OpCategory::TensorCore => UnitClass::Tensor,
        OpCategory::Specialized(k) => UnitClass::Specialized(k),
        OpCategory::Load | OpCategory::Store | OpCategory::Barrier | OpCategory::MemoryBarrier | OpCategory::Exit => {
            return LatencyInitiation { latency_cycles: 1, initiation_cycles: 1 };
        }
    };
    config.latency(class)
}

/// Bytes above the kernel's local base that generic addresses resolve to
/// local memory.
pub const LOCAL_WINDOW_BYTES: u64 = 1 << 32;

/// The space a generic access goes to, from its first active lane's address
/// and the kernel's shared and local windows (0 = the trace gave none):
/// shared between the shared base and the local base, local within
/// [`LOCAL_WINDOW_BYTES`] above the local base, global otherwise.
pub fn resolve_generic(first_address: Option<u64>, shmem_base: u64, local_base: u64) -> MemSpace {
    let Some(address) = first_address else { return MemSpace::Global };
    if shmem_base != 0 && address >= shmem_base && address < local_base.max(shmem_base + 1) {
        MemSpace::Shared
    } else if local_base != 0 && address >= local_base && address - local_base < LOCAL_WINDOW_BYTES {
        MemSpace::Local
    } else {
        MemSpace::Global
    }
}
