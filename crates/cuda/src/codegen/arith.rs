//! Arithmetic, comparisons and conversions, as the SASS sequences nvcc
//! uses: integer division by a reciprocal and two corrections, float
//! division by a refined reciprocal.

use super::Generator;
use crate::ast::BinaryOp;
use crate::diagnostic::Result;
use crate::sass::{MufuFn, Op, Operand, P0, Pred, Src};
use crate::types::Scalar;

const ON_P0: Pred = Pred { index: P0, negate: false };

impl Generator<'_> {
    /// `a op b` in `operand_type`, into `want` if given.
    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        operand_type: Scalar,
        a: Operand,
        b: Operand,
        want: Option<u32>,
    ) -> Result<Operand> {
        let dst = Operand::Reg(self.result_reg(want, 1));
        let (sa, sb, zero) = (Src::of(a), Src::of(b), Src::of(Operand::Zero));
        let float = operand_type == Scalar::Float;
        let signed = operand_type != Scalar::Unsigned;
        match op {
            _ if super::expr::is_comparison(op) => {
                self.set_predicate(op, operand_type, a, b);
                let inst = self.emit(Op::Sel, "SEL", dst, &[zero, Src::of(Operand::Imm(1))]);
                inst.pred = Pred { index: P0, negate: true };
            }
            BinaryOp::Add if float => _ = self.emit(Op::FAdd, "FADD", dst, &[sa, sb]),
            BinaryOp::Sub if float => _ = self.emit(Op::FAdd, "FADD", dst, &[sa, Src::neg(b)]),
            BinaryOp::Mul if float => _ = self.emit(Op::FMul, "FMUL", dst, &[sa, sb]),
            BinaryOp::Div if float => self.float_divide(dst, a, b),
            BinaryOp::Add => _ = self.emit(Op::IAdd3, "IADD3", dst, &[sa, sb, zero]),
            BinaryOp::Sub => _ = self.emit(Op::IAdd3, "IADD3", dst, &[sa, Src::neg(b), zero]),
            BinaryOp::Mul => _ = self.emit(Op::IMad, "IMAD", dst, &[sa, sb, zero]),
            BinaryOp::Div | BinaryOp::Rem => self.integer_divide(dst, a, b, signed, op == BinaryOp::Rem),
            BinaryOp::Shl => _ = self.emit(Op::Shl, "SHF.L.U32", dst, &[sa, sb, zero]),
            BinaryOp::Shr if signed => _ = self.emit(Op::ShrS, "SHF.R.S32.HI", dst, &[zero, sb, sa]),
            BinaryOp::Shr => _ = self.emit(Op::ShrU, "SHF.R.U32.HI", dst, &[zero, sb, sa]),
            BinaryOp::BitAnd => self.lop3(dst, a, b, 0xc0),
            BinaryOp::BitOr => self.lop3(dst, a, b, 0xfc),
            BinaryOp::BitXor => self.lop3(dst, a, b, 0x3c),
            // `&&` and `||` are `Logical` nodes; float `%` does not check.
            _ => _ = self.emit(Op::Mov, "MOV", dst, &[zero]),
        }
        Ok(dst)
    }

    /// `LOP3.LUT d, a, b, RZ, lut`.
    pub(super) fn lop3(&mut self, dst: Operand, a: Operand, b: Operand, lut: u8) {
        self.emit(Op::Lop3(lut), "LOP3.LUT", dst, &[Src::of(a), Src::of(b), Src::of(Operand::Zero)]);
    }

    /// `ISETP`/`FSETP` writing the comparison into `P0`.
    pub(super) fn set_predicate(&mut self, op: BinaryOp, operand_type: Scalar, a: Operand, b: Operand) {
        let cmp = op;
        let src = [Src::of(a), Src::of(b)];
        match operand_type {
            Scalar::Float => {
                let text = format!("FSETP.{}.AND", cmp.modifier(true));
                self.emit(Op::FSetp(cmp), &text, Operand::Zero, &src);
            }
            Scalar::Unsigned => {
                let text = format!("ISETP.{}.U32.AND", cmp.modifier(false));
                self.emit(Op::ISetp { cmp, signed: false }, &text, Operand::Zero, &src);
            }
            _ => {
                let text = format!("ISETP.{}.AND", cmp.modifier(false));
                self.emit(Op::ISetp { cmp, signed: true }, &text, Operand::Zero, &src);
            }
        }
    }

    /// Converts `value` between scalar types. `int` and `unsigned int` (and
    /// `bool` to either) share their bits, so those take no instruction, as
    /// on the GPU.
    pub(super) fn convert(&mut self, value: Operand, from: Scalar, to: Scalar, want: Option<u32>) -> Operand {
        let same_bits = from == to || (from.is_integer() && to.is_integer() && to != Scalar::Bool);
        if same_bits {
            return match want {
                Some(reg) => {
                    self.copy(value, reg, false);
                    Operand::Reg(reg)
                }
                None => value,
            };
        }
        let dst = Operand::Reg(self.result_reg(want, 1));
        let src = [Src::of(value)];
        match (from, to) {
            (_, Scalar::Bool) => {
                self.set_predicate(BinaryOp::Ne, from, value, Operand::Zero);
                let inst = self.emit(Op::Sel, "SEL", dst, &[Src::of(Operand::Zero), Src::of(Operand::Imm(1))]);
                inst.pred = Pred { index: P0, negate: true };
            }
            (Scalar::Unsigned, Scalar::Float) => _ = self.emit(Op::I2F { signed: false }, "I2F.U32", dst, &src),
            (_, Scalar::Float) => _ = self.emit(Op::I2F { signed: true }, "I2F", dst, &src),
            (_, Scalar::Unsigned) => _ = self.emit(Op::F2I { signed: false }, "F2I.U32.TRUNC.NTZ", dst, &src),
            _ => _ = self.emit(Op::F2I { signed: true }, "F2I.TRUNC.NTZ", dst, &src),
        }
        dst
    }

    /// `a / b` in floats: a reciprocal refined by one Newton step, then the
    /// quotient refined by one more (nvcc's fast path without the `FCHK`
    /// check for denormal and huge operands).
    fn float_divide(&mut self, dst: Operand, a: Operand, b: Operand) {
        let (r, t) = (Operand::Reg(self.new_reg(1)), Operand::Reg(self.new_reg(1)));
        let q = Operand::Reg(self.new_reg(1));
        let one = Operand::Imm(1.0f32.to_bits());
        self.mufu(MufuFn::Rcp, r, b);
        self.emit(Op::FFma, "FFMA", t, &[Src::neg(b), Src::of(r), Src::of(one)]);
        self.emit(Op::FFma, "FFMA", r, &[Src::of(r), Src::of(t), Src::of(r)]);
        self.emit(Op::FFma, "FFMA", q, &[Src::of(a), Src::of(r), Src::of(Operand::Zero)]);
        self.emit(Op::FFma, "FFMA", t, &[Src::neg(b), Src::of(q), Src::of(a)]);
        self.emit(Op::FFma, "FFMA", dst, &[Src::of(r), Src::of(t), Src::of(q)]);
    }

    /// `a / b` or `a % b` on integers, as nvcc compiles it: a float
    /// reciprocal of `b` scaled to 2^32, one Newton step in integers, the
    /// quotient's high product, and two corrections. Signed operands are
    /// divided as magnitudes and the signs put back.
    fn integer_divide(&mut self, dst: Operand, a: Operand, b: Operand, signed: bool, remainder: bool) {
        let (ua, ub) = if signed {
            let (ua, ub) = (Operand::Reg(self.new_reg(1)), Operand::Reg(self.new_reg(1)));
            self.emit(Op::IAbs, "IABS", ub, &[Src::of(b)]).divisor = true;
            self.emit(Op::IAbs, "IABS", ua, &[Src::of(a)]);
            (ua, ub)
        } else {
            (a, b)
        };
        let magnitude = if signed { Operand::Reg(self.new_reg(1)) } else { dst };
        self.unsigned_divide(magnitude, ua, ub, remainder, !signed);
        if signed {
            // The quotient is negative when the signs differ, the remainder
            // when the dividend is negative.
            let sign = if remainder {
                a
            } else {
                let sign = Operand::Reg(self.new_reg(1));
                self.lop3(sign, a, b, 0x3c);
                sign
            };
            self.set_predicate(BinaryOp::Lt, Scalar::Int, sign, Operand::Zero);
            self.emit(Op::Mov, "MOV", dst, &[Src::of(magnitude)]);
            let zero = Src::of(Operand::Zero);
            self.emit(Op::IAdd3, "IADD3", dst, &[Src::neg(magnitude), zero, zero]).guard = Some(ON_P0);
        }
    }

    fn unsigned_divide(&mut self, dst: Operand, a: Operand, b: Operand, remainder: bool, check_divisor: bool) {
        let mut reg = || Operand::Reg(self.new_reg(1));
        let (f, r, t, q, m) = (reg(), reg(), reg(), reg(), reg());
        let zero = Src::of(Operand::Zero);
        self.emit(Op::I2FRoundUp, "I2F.U32.RP", f, &[Src::of(b)]).divisor = check_divisor;
        self.mufu(MufuFn::Rcp, f, f);
        // Adding 0x0ffffffe to the bits multiplies by 2^32 and steps just
        // below, so the estimate never exceeds 2^32 / b.
        self.emit(Op::IAdd3, "IADD3", f, &[Src::of(f), Src::of(Operand::Imm(0x0fff_fffe)), zero]);
        self.emit(Op::F2I { signed: false }, "F2I.FTZ.U32.TRUNC.NTZ", r, &[Src::of(f)]);
        self.emit(Op::IAdd3, "IADD3", t, &[Src::neg(r), zero, zero]);
        self.emit(Op::IMad, "IMAD", t, &[Src::of(t), Src::of(b), zero]);
        self.emit(Op::IMadHi, "IMAD.HI.U32", r, &[Src::of(r), Src::of(t), Src::of(r)]);
        self.emit(Op::IMadHi, "IMAD.HI.U32", q, &[Src::of(r), Src::of(a), zero]);
        self.emit(Op::IAdd3, "IADD3", t, &[Src::neg(q), zero, zero]);
        self.emit(Op::IMad, "IMAD", m, &[Src::of(b), Src::of(t), Src::of(a)]);
        for last in [false, true] {
            self.set_predicate(BinaryOp::Ge, Scalar::Unsigned, m, b);
            if !last || remainder {
                let src = [Src::of(m), Src::neg(b), zero];
                self.emit(Op::IAdd3, "IADD3", m, &src).guard = Some(ON_P0);
            }
            if !last || !remainder {
                let src = [Src::of(q), Src::of(Operand::Imm(1)), zero];
                self.emit(Op::IAdd3, "IADD3", q, &src).guard = Some(ON_P0);
            }
        }
        let result = if remainder { m } else { q };
        self.emit(Op::Mov, "MOV", dst, &[Src::of(result)]);
    }
}
