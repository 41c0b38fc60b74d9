//! The SASS the code generator emits and the functional run executes.
//!
//! One instruction type serves both: the listing prints it, the warp
//! interpreter executes it and the trace carries its opcode text, so the
//! listing, the executed stream and the per-PC figures cannot disagree.
//! `text` is the opcode with its modifiers as Accel-Sim's tables read it
//! (`IMAD.WIDE.U32`, `LDG.E`); `op` is what the interpreter does.

use std::fmt::{self, Write};

use crate::diagnostic::Span;

/// Bytes between consecutive instructions (Volta and later encode 128 bits).
pub const PC_STEP: u32 = 16;

/// `RZ`, the register that reads zero, in traces.
pub const RZ: u16 = 255;

/// The predicate every comparison writes and every guard reads: each value
/// is consumed by the next branch or select, so one predicate suffices.
pub const P0: u8 = 0;

/// The offset of the first kernel parameter in constant bank 0 (Volta to
/// Ampere put `c[0x0][0x160]` first; `blockDim` and `gridDim` are at 0x0).
pub const PARAM_BASE: u32 = 0x160;

/// A reconvergence point meaning "only at exit" (the branch's immediate
/// post-dominator is the kernel's end).
pub const NO_RECONVERGENCE: u32 = u32::MAX;

/// A comparison: one of the comparison operators of the syntax tree.
pub use crate::ast::BinaryOp as Cmp;

impl Cmp {
    /// The SASS modifier (`NEU` for a float `!=`, which holds for NaN as C's does).
    pub fn modifier(self, float: bool) -> &'static str {
        match self {
            Cmp::Lt => "LT",
            Cmp::Le => "LE",
            Cmp::Gt => "GT",
            Cmp::Ge => "GE",
            Cmp::Eq => "EQ",
            Cmp::Ne if float => "NEU",
            _ => "NE",
        }
    }

    /// Whether `ordering` satisfies the comparison (false for an operator
    /// that is not one).
    pub fn holds(self, ordering: Option<std::cmp::Ordering>) -> bool {
        use std::cmp::Ordering::*;
        match (self, ordering) {
            (Cmp::Ne, None) => true,
            (_, None) => false,
            (Cmp::Lt, Some(o)) => o == Less,
            (Cmp::Le, Some(o)) => o != Greater,
            (Cmp::Gt, Some(o)) => o == Greater,
            (Cmp::Ge, Some(o)) => o != Less,
            (Cmp::Eq, Some(o)) => o == Equal,
            (Cmp::Ne, Some(o)) => o != Equal,
            _ => false,
        }
    }
}

/// The multi-function unit's functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MufuFn {
    /// `1/x`.
    Rcp,
    /// `sqrt(x)`.
    Sqrt,
    /// `2^x`.
    Ex2,
    /// `sin(2πx)`: the argument is in turns.
    Sin,
}

/// What an atomic does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    /// Integer add.
    AddInt,
    /// Float add.
    AddFloat,
    /// Signed maximum.
    MaxSigned,
    /// Unsigned maximum.
    MaxUnsigned,
    /// Compare and swap: source 1 is the compared value, source 2 the new one.
    Cas,
}

/// The memory an access goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memory {
    /// Global memory, 64-bit addresses.
    Global,
    /// The CTA's shared memory, 32-bit byte offsets.
    Shared,
}

/// What an instruction does. Sources are `src[0..3]`; a 64-bit operand is a
/// register pair named by its first register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `d = a`.
    Mov,
    /// `d = a + b + c`.
    IAdd3,
    /// `d = a * b + c`.
    IMad,
    /// `d = high 32 bits of a * b (unsigned) + c`.
    IMadHi,
    /// 64-bit `d = a * b + c` with `a` and `b` extended from 32 bits
    /// (sign-extended when `signed`) and `c` 64-bit.
    IMadWide {
        /// Sign-extend the factors.
        signed: bool,
    },
    /// `d = a << b` (0 past 31).
    Shl,
    /// `d = c >> b`, logical.
    ShrU,
    /// `d = c >> b`, arithmetic.
    ShrS,
    /// A three-input bitwise function given by its truth table.
    Lop3(u8),
    /// `P = a cmp b` on integers.
    ISetp {
        /// The comparison.
        cmp: Cmp,
        /// Signed rather than unsigned.
        signed: bool,
    },
    /// `P = a cmp b` on floats.
    FSetp(Cmp),
    /// `d = P ? a : b`.
    Sel,
    /// `d = a + b`.
    FAdd,
    /// `d = a * b`.
    FMul,
    /// `d = a * b + c`, fused.
    FFma,
    /// `d = P ? min(a, b) : max(a, b)` on floats.
    FMnMx,
    /// `d = P ? min(a, b) : max(a, b)` on integers.
    IMnMx {
        /// Signed rather than unsigned.
        signed: bool,
    },
    /// A multi-function unit operation.
    Mufu(MufuFn),
    /// Integer to float, rounded to nearest.
    I2F {
        /// From a signed integer.
        signed: bool,
    },
    /// Unsigned to float, rounded up (the reciprocal in integer division).
    I2FRoundUp,
    /// Float to integer, truncated, saturated.
    F2I {
        /// To a signed integer.
        signed: bool,
    },
    /// `d = |a|` on integers.
    IAbs,
    /// `d = [a]`.
    Load(Memory),
    /// `[a] = b`.
    Store(Memory),
    /// `d = atomic(op, [a], b[, c])`; a reduction (`RED`) has no `d`.
    Atomic(Memory, AtomicOp),
    /// Jump to `target`.
    Bra,
    /// End the active threads.
    Exit,
    /// Wait for the CTA's other warps.
    Bar,
    /// `d = threadIdx` (`false`) or `blockIdx` (`true`) along an axis.
    S2R {
        /// `SR_CTAID` rather than `SR_TID`.
        block: bool,
        /// 0, 1, 2 for x, y, z.
        axis: u8,
    },
}

/// Where an operand's value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// `RZ`, or no operand.
    Zero,
    /// A register (virtual before allocation, physical after).
    Reg(u32),
    /// An immediate.
    Imm(u32),
    /// `c[0x0][offset]`: a launch parameter, `blockDim` or `gridDim`.
    Const(u32),
}

/// A source operand with its modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Src {
    /// The value.
    pub operand: Operand,
    /// Negated (two's complement for integers, the sign for floats).
    pub negate: bool,
    /// Absolute value (floats).
    pub abs: bool,
}

impl Src {
    /// The operand as it is.
    pub fn of(operand: Operand) -> Src {
        Src { operand, negate: false, abs: false }
    }

    /// The operand negated.
    pub fn neg(operand: Operand) -> Src {
        Src { operand, negate: true, abs: false }
    }
}

/// A predicate read: `P` or `!P` (index 7 is `PT`, always true).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pred {
    /// `P0`..`P6`, or 7 for `PT`.
    pub index: u8,
    /// Read as `!P`.
    pub negate: bool,
}

/// `PT`.
pub const PT: Pred = Pred { index: 7, negate: false };

/// One SASS instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    /// What it does.
    pub op: Op,
    /// The opcode and modifiers, as the listing and the trace spell it.
    pub text: String,
    /// The destination register (`Operand::Zero` for none).
    pub dst: Operand,
    /// Up to three sources.
    pub src: [Src; 3],
    /// How many of `src` the listing prints.
    pub n_src: u8,
    /// The predicate `SEL` and `MNMX` read.
    pub pred: Pred,
    /// `@P` / `@!P`: the instruction runs only where it holds.
    pub guard: Option<Pred>,
    /// `BRA`: the target instruction's index.
    pub target: u32,
    /// `BRA`: the index of its immediate post-dominator, where divergent
    /// paths reconverge ([`NO_RECONVERGENCE`] when that is the exit).
    pub reconverge: u32,
    /// Source 0 is an integer divisor: a zero in an active lane is a fault.
    pub divisor: bool,
    /// The source the instruction comes from.
    pub span: Span,
}

impl Inst {
    /// Whether the destination is a register pair.
    pub fn wide_dst(&self) -> bool {
        matches!(self.op, Op::IMadWide { .. })
    }

    /// Whether source `index` is a register pair.
    pub fn wide_src(&self, index: usize) -> bool {
        match self.op {
            Op::IMadWide { .. } => index == 2,
            Op::Load(Memory::Global) | Op::Store(Memory::Global) | Op::Atomic(Memory::Global, _) => index == 0,
            _ => false,
        }
    }

    /// Whether the instruction writes predicate `P0` rather than a register.
    pub fn writes_predicate(&self) -> bool {
        matches!(self.op, Op::ISetp { .. } | Op::FSetp(_))
    }

    /// Whether it accesses memory.
    pub fn is_memory(&self) -> bool {
        matches!(self.op, Op::Load(_) | Op::Store(_) | Op::Atomic(..))
    }

    /// The registers it reads, the first of a pair for a 64-bit operand.
    pub fn source_registers(&self) -> impl Iterator<Item = u32> + '_ {
        self.src[..usize::from(self.n_src)].iter().filter_map(|src| match src.operand {
            Operand::Reg(reg) => Some(reg),
            _ => None,
        })
    }

    /// The SASS text of the instruction, `@!P0 BRA 0x0120` style.
    pub fn assembly(&self) -> String {
        let mut out = String::new();
        if let Some(guard) = self.guard {
            let _ = write!(out, "@{} ", PredText(guard));
        }
        out.push_str(&self.text);
        let mut operands: Vec<String> = Vec::new();
        if self.writes_predicate() {
            operands.extend(["P0".to_owned(), "PT".to_owned()]);
        } else if self.dst != Operand::Zero {
            operands.push(operand_text(self.dst, self.wide_dst()));
        } else if matches!(self.op, Op::Atomic(..)) && !self.text.starts_with("RED") {
            operands.push("RZ".to_owned());
        }
        for (index, src) in self.src[..usize::from(self.n_src)].iter().enumerate() {
            let mut text = src_text(src, self.wide_src(index));
            if self.is_memory() && index == 0 {
                text = format!("[{text}]");
            }
            operands.push(text);
        }
        match self.op {
            Op::Lop3(lut) => operands.push(format!("{lut:#04x}")),
            Op::ISetp { .. } | Op::FSetp(_) => operands.push("PT".to_owned()),
            Op::Sel | Op::FMnMx | Op::IMnMx { .. } => operands.push(PredText(self.pred).to_string()),
            Op::Bra => operands.push(format!("{:#06x}", self.target * PC_STEP)),
            Op::S2R { block, axis } => {
                let axis = ["X", "Y", "Z"][usize::from(axis.min(2))];
                operands.push(format!("{}.{axis}", if block { "SR_CTAID" } else { "SR_TID" }));
            }
            Op::Bar => operands.push("0x0".to_owned()),
            _ => {}
        }
        if !operands.is_empty() {
            out.push(' ');
            out.push_str(&operands.join(", "));
        }
        out.push_str(" ;");
        out
    }
}

struct PredText(Pred);

impl fmt::Display for PredText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bang = if self.0.negate { "!" } else { "" };
        if self.0.index >= 7 { write!(f, "{bang}PT") } else { write!(f, "{bang}P{}", self.0.index) }
    }
}

fn operand_text(operand: Operand, wide: bool) -> String {
    match operand {
        Operand::Zero => "RZ".to_owned(),
        Operand::Reg(reg) if wide => format!("R{reg}.64"),
        Operand::Reg(reg) => format!("R{reg}"),
        Operand::Imm(value) => format!("{value:#x}"),
        Operand::Const(offset) => format!("c[0x0][{offset:#x}]"),
    }
}

fn src_text(src: &Src, wide: bool) -> String {
    let text = operand_text(src.operand, wide);
    let text = if src.abs { format!("|{text}|") } else { text };
    if src.negate { format!("-{text}") } else { text }
}
