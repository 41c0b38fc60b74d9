//! Expressions: values into registers, memory accesses, conditions as
//! branches, calls inlined, builtins.

use super::{Frame, Generator, Label, assigned_variables, width_of};
use crate::ast::BinaryOp;
use crate::diagnostic::{Error, Result};
use crate::sass::{AtomicOp, Memory, MufuFn, Op, Operand, P0, Pred, Src};
use crate::typed::{Builtin, Expr, ExprKind, FunctionId, Place, Special, UnaryOp, Value};
use crate::types::{Scalar, Space, Type};

/// Where a memory place is: a global address (a register pair) or a shared
/// byte offset.
#[derive(Clone, Copy)]
pub(super) enum Address {
    Global(u32),
    Shared(Operand),
}

impl Generator<'_> {
    /// Lowers `expr` for its value, into `want` if given.
    pub(super) fn value(&mut self, expr: &Expr, want: Option<u32>) -> Result<Operand> {
        let span = expr.span;
        self.span = span;
        let wide = width_of(expr.ty) == 2;
        let result = match &expr.kind {
            ExprKind::Const(value) => Operand::Imm(constant_bits(*value)),
            ExprKind::Load(place) => return self.load(place, expr.ty, want),
            ExprKind::AddressOf(place) => self.address(place)?.operand(),
            ExprKind::Special(special, axis) => self.special(*special, *axis as u8, want),
            ExprKind::Unary(op, operand) => return self.unary(*op, operand, want),
            ExprKind::Binary { op, operand_type, lhs, rhs } => {
                let (a, b) = (self.value(lhs, None)?, self.value(rhs, None)?);
                self.span = span;
                return self.binary(*op, *operand_type, a, b, want);
            }
            ExprKind::Logical { .. } => return self.boolean(expr, want),
            ExprKind::PointerOffset { pointer, offset, subtract } => {
                return self.pointer_offset(pointer, offset, *subtract, want);
            }
            ExprKind::Conditional { cond, then, otherwise } => {
                let reg = self.result_reg(want, width_of(expr.ty));
                let (other, end) = (self.new_label(), self.new_label());
                self.branch_if(cond, false, other)?;
                self.value(then, Some(reg))?;
                self.span = span;
                self.branch(end, None);
                self.place(other);
                self.value(otherwise, Some(reg))?;
                self.place(end);
                Operand::Reg(reg)
            }
            ExprKind::Convert { operand, .. } => {
                let from = operand.ty.scalar();
                if let (Some(from), Some(to)) = (from, expr.ty.scalar())
                    && from.is_integer()
                    && to.is_integer()
                    && to != Scalar::Bool
                {
                    // The same bits: no instruction, the value goes where it is wanted.
                    return self.value(operand, want);
                }
                let value = self.value(operand, None)?;
                self.span = span;
                match (from, expr.ty.scalar()) {
                    (Some(from), Some(to)) => return Ok(self.convert(value, from, to, want)),
                    _ => value,
                }
            }
            ExprKind::Assign { place, op, value } => return self.assign(place, *op, value, want),
            ExprKind::Step { place, increment, prefix } => {
                return self.step(place, *increment, *prefix, true, want);
            }
            ExprKind::Call { function, args } => self.call(*function, args)?,
            ExprKind::Builtin { builtin, args } => return self.builtin(*builtin, args, expr.ty, true, want),
            ExprKind::DeviceArray { .. } | ExprKind::Dim3(_) => {
                return Err(Error::unsupported(span, "host-only construct in device code"));
            }
        };
        self.span = span;
        Ok(self.place_in(result, want, wide))
    }

    /// Lowers an expression evaluated only for its effects: an atomic whose
    /// old value nobody reads is a reduction (`RED`), and `i++` keeps no
    /// copy of the old value.
    pub(super) fn effect(&mut self, expr: &Expr) -> Result<()> {
        self.span = expr.span;
        match &expr.kind {
            ExprKind::Step { place, increment, prefix } => self.step(place, *increment, *prefix, false, None)?,
            ExprKind::Builtin { builtin, args } => self.builtin(*builtin, args, expr.ty, false, None)?,
            _ => self.value(expr, None)?,
        };
        Ok(())
    }

    /// `value` in register `want` if one is asked for.
    fn place_in(&mut self, value: Operand, want: Option<u32>, wide: bool) -> Operand {
        match want {
            Some(reg) => {
                self.copy(value, reg, wide);
                Operand::Reg(reg)
            }
            None => value,
        }
    }

    /// Jumps to `label` when `cond` (a scalar compared with zero) is `want`,
    /// with `&&` and `||` short-circuiting as branches.
    pub(super) fn branch_if(&mut self, cond: &Expr, want: bool, label: Label) -> Result<()> {
        self.span = cond.span;
        match &cond.kind {
            ExprKind::Logical { and, lhs, rhs } if *and != want => {
                self.branch_if(lhs, want, label)?;
                self.branch_if(rhs, want, label)
            }
            ExprKind::Logical { lhs, rhs, .. } => {
                let skip = self.new_label();
                self.branch_if(lhs, !want, skip)?;
                self.branch_if(rhs, want, label)?;
                self.place(skip);
                Ok(())
            }
            ExprKind::Unary(UnaryOp::Not, operand) => self.branch_if(operand, !want, label),
            ExprKind::Binary { op, operand_type, lhs, rhs } if is_comparison(*op) => {
                let (a, b) = (self.value(lhs, None)?, self.value(rhs, None)?);
                self.span = cond.span;
                self.set_predicate(*op, *operand_type, a, b);
                self.branch(label, Some(Pred { index: P0, negate: !want }));
                Ok(())
            }
            ExprKind::Const(Value::Bool(value)) => {
                if *value == want {
                    self.branch(label, None);
                }
                Ok(())
            }
            _ => {
                // A scalar compared with zero: a conversion to `bool` is
                // tested on the value it converts.
                let tested = match &cond.kind {
                    ExprKind::Convert { operand, .. } if operand.ty.scalar().is_some() => operand,
                    _ => cond,
                };
                let scalar = tested.ty.scalar().unwrap_or(Scalar::Int);
                let value = self.value(tested, None)?;
                self.span = cond.span;
                self.set_predicate(BinaryOp::Ne, scalar, value, Operand::Zero);
                self.branch(label, Some(Pred { index: P0, negate: !want }));
                Ok(())
            }
        }
    }

    /// A `bool` value computed with branches (`&&`, `||`).
    fn boolean(&mut self, expr: &Expr, want: Option<u32>) -> Result<Operand> {
        // A register of its own: the operands may read the variable the
        // value is assigned to (`b = b && c`), so it is written at the end.
        let reg = self.new_reg(1);
        let done = self.new_label();
        self.emit(Op::Mov, "MOV", Operand::Reg(reg), &[Src::of(Operand::Zero)]);
        self.branch_if(expr, false, done)?;
        self.span = expr.span;
        self.emit(Op::Mov, "MOV", Operand::Reg(reg), &[Src::of(Operand::Imm(1))]);
        self.place(done);
        Ok(self.place_in(Operand::Reg(reg), want, false))
    }

    fn special(&mut self, special: Special, axis: u8, want: Option<u32>) -> Operand {
        let block = match special {
            Special::ThreadIdx => false,
            Special::BlockIdx => true,
            // The shapes live in constant bank 0: `c[0x0][0x0]` is blockDim.x.
            Special::BlockDim => return Operand::Const(4 * u32::from(axis)),
            Special::GridDim => return Operand::Const(0xc + 4 * u32::from(axis)),
        };
        let reg = self.result_reg(want, 1);
        self.emit(Op::S2R { block, axis }, "S2R", Operand::Reg(reg), &[]);
        Operand::Reg(reg)
    }

    fn unary(&mut self, op: UnaryOp, operand: &Expr, want: Option<u32>) -> Result<Operand> {
        let span = self.span;
        let value = self.value(operand, None)?;
        self.span = span;
        let reg = self.result_reg(want, 1);
        let dst = Operand::Reg(reg);
        let float = operand.ty.scalar() == Some(Scalar::Float);
        match op {
            UnaryOp::Neg if float => {
                self.emit(Op::FAdd, "FADD", dst, &[Src::neg(value), Src::neg(Operand::Zero)]);
            }
            UnaryOp::Neg => {
                let zero = Src::of(Operand::Zero);
                self.emit(Op::IAdd3, "IADD3", dst, &[Src::neg(value), zero, zero]);
            }
            UnaryOp::BitNot => self.lop3(dst, value, Operand::Zero, 0x0f),
            UnaryOp::Not => self.lop3(dst, value, Operand::Imm(1), 0x3c),
        }
        Ok(dst)
    }

    fn pointer_offset(&mut self, pointer: &Expr, offset: &Expr, subtract: bool, want: Option<u32>) -> Result<Operand> {
        let span = self.span;
        let base = self.value(pointer, None)?;
        let index = self.value(offset, None)?;
        self.span = span;
        let signed = offset.ty.scalar() != Some(Scalar::Unsigned);
        let index = Src { operand: index, negate: subtract, abs: false };
        Ok(match pointer.ty.pointer().map(|p| p.space) {
            Some(Space::Shared) => {
                let reg = self.result_reg(want, 1);
                self.emit(Op::IMad, "IMAD", Operand::Reg(reg), &[index, Src::of(Operand::Imm(4)), Src::of(base)]);
                Operand::Reg(reg)
            }
            _ => Operand::Reg(self.wide_address(index, signed, base, want)),
        })
    }

    /// `IMAD.WIDE d, index, 4, base`: the address of element `index`.
    fn wide_address(&mut self, index: Src, signed: bool, base: Operand, want: Option<u32>) -> u32 {
        let reg = self.result_reg(want, 2);
        let (op, text) = if signed {
            (Op::IMadWide { signed: true }, "IMAD.WIDE")
        } else {
            (Op::IMadWide { signed: false }, "IMAD.WIDE.U32")
        };
        self.emit(op, text, Operand::Reg(reg), &[index, Src::of(Operand::Imm(4)), Src::of(base)]);
        reg
    }

    /// The address of a memory place.
    pub(super) fn address(&mut self, place: &Place) -> Result<Address> {
        let span = self.span;
        match place {
            Place::Var(_) => Err(Error::unsupported(span, "the address of a variable is not supported")),
            Place::Element { pointer, index } => {
                let base = self.value(pointer, None)?;
                let signed = index.ty.scalar() != Some(Scalar::Unsigned);
                let index = self.value(index, None)?;
                self.span = span;
                match pointer.ty.pointer().map(|p| p.space) {
                    Some(Space::Shared) => {
                        let reg = self.new_reg(1);
                        let src = [Src::of(index), Src::of(Operand::Imm(4)), Src::of(base)];
                        self.emit(Op::IMad, "IMAD", Operand::Reg(reg), &src);
                        Ok(Address::Shared(Operand::Reg(reg)))
                    }
                    _ => Ok(Address::Global(self.wide_address(Src::of(index), signed, base, None))),
                }
            }
            Place::Shared { array, indices } => {
                let function = self.function_id();
                let shared = &self.program.functions[function.0 as usize].shared_arrays[array.0 as usize];
                let (dims, offset) = (shared.dims.clone(), shared.offset_bytes);
                let mut values = Vec::with_capacity(indices.len());
                for index in indices {
                    values.push(self.value(index, None)?);
                }
                self.span = span;
                let mut linear = values[0];
                if let (Some(&inner), Some(&column)) = (dims.get(1), values.get(1)) {
                    let reg = self.new_reg(1);
                    let src = [Src::of(linear), Src::of(Operand::Imm(inner)), Src::of(column)];
                    self.emit(Op::IMad, "IMAD", Operand::Reg(reg), &src);
                    linear = Operand::Reg(reg);
                }
                let reg = self.new_reg(1);
                let src = [Src::of(linear), Src::of(Operand::Imm(4)), Src::of(Operand::Imm(offset))];
                self.emit(Op::IMad, "IMAD", Operand::Reg(reg), &src);
                Ok(Address::Shared(Operand::Reg(reg)))
            }
        }
    }

    fn load(&mut self, place: &Place, ty: Type, want: Option<u32>) -> Result<Operand> {
        if let Place::Var(var) = place {
            let value = self.var(*var)?;
            return Ok(self.place_in(value, want, width_of(ty) == 2));
        }
        let address = self.address(place)?;
        let reg = self.result_reg(want, 1);
        self.load_from(address, reg);
        Ok(Operand::Reg(reg))
    }

    pub(super) fn load_from(&mut self, address: Address, reg: u32) {
        match address {
            Address::Global(addr) => {
                self.emit(Op::Load(Memory::Global), "LDG.E", Operand::Reg(reg), &[Src::of(Operand::Reg(addr))])
            }
            Address::Shared(offset) => {
                self.emit(Op::Load(Memory::Shared), "LDS", Operand::Reg(reg), &[Src::of(offset)])
            }
        };
    }

    pub(super) fn store_to(&mut self, address: Address, value: Operand) {
        match address {
            Address::Global(addr) => {
                let src = [Src::of(Operand::Reg(addr)), Src::of(value)];
                self.emit(Op::Store(Memory::Global), "STG.E", Operand::Zero, &src)
            }
            Address::Shared(offset) => {
                self.emit(Op::Store(Memory::Shared), "STS", Operand::Zero, &[Src::of(offset), Src::of(value)])
            }
        };
    }

    /// `place = value` or `place op= value`.
    fn assign(
        &mut self,
        place: &Place,
        op: Option<(BinaryOp, Scalar)>,
        value: &Expr,
        want: Option<u32>,
    ) -> Result<Operand> {
        let span = self.span;
        if let Place::Var(var) = place {
            let Operand::Reg(reg) = self.var(*var)? else {
                return Err(Error::unsupported(span, "assignment to a parameter held in the constant bank"));
            };
            let ty = self.var_type(*var);
            match op {
                None => {
                    self.value(value, Some(reg))?;
                }
                Some((op, operand_type)) => {
                    let rhs = self.value(value, None)?;
                    self.span = span;
                    self.combine(Operand::Reg(reg), ty, op, operand_type, rhs, value, Some(reg))?;
                }
            }
            return Ok(self.place_in(Operand::Reg(reg), want, width_of(ty) == 2));
        }
        let address = self.address(place)?;
        let ty = self.place_scalar_type(place);
        let result = match op {
            None => self.value(value, None)?,
            Some((op, operand_type)) => {
                let old = self.new_reg(1);
                self.load_from(address, old);
                let rhs = self.value(value, None)?;
                self.span = span;
                self.combine(Operand::Reg(old), ty, op, operand_type, rhs, value, None)?
            }
        };
        self.span = span;
        self.store_to(address, result);
        Ok(self.place_in(result, want, false))
    }

    /// `old op rhs` in `operand_type`, converted back to `ty` (the place's):
    /// a compound assignment's new value, or a pointer moved by an offset.
    #[allow(clippy::too_many_arguments)]
    fn combine(
        &mut self,
        old: Operand,
        ty: Type,
        op: BinaryOp,
        operand_type: Scalar,
        rhs: Operand,
        rhs_expr: &Expr,
        want: Option<u32>,
    ) -> Result<Operand> {
        if let Type::Pointer(pointer) = ty {
            let signed = rhs_expr.ty.scalar() != Some(Scalar::Unsigned);
            let index = Src { operand: rhs, negate: op == BinaryOp::Sub, abs: false };
            if pointer.space == Space::Shared {
                let reg = self.result_reg(want, 1);
                self.emit(Op::IMad, "IMAD", Operand::Reg(reg), &[index, Src::of(Operand::Imm(4)), Src::of(old)]);
                return Ok(Operand::Reg(reg));
            }
            return Ok(Operand::Reg(self.wide_address(index, signed, old, want)));
        }
        let scalar = ty.scalar().unwrap_or(Scalar::Int);
        let old = self.convert(old, scalar, operand_type, None);
        if scalar == operand_type || (scalar.is_integer() && operand_type.is_integer() && scalar != Scalar::Bool) {
            return self.binary(op, operand_type, old, rhs, want);
        }
        let result = self.binary(op, operand_type, old, rhs, None)?;
        Ok(self.convert(result, operand_type, scalar, want))
    }

    /// `++`/`--`: the new value (`prefix`) or a copy of the old one.
    fn step(&mut self, place: &Place, increment: bool, prefix: bool, used: bool, want: Option<u32>) -> Result<Operand> {
        let span = self.span;
        let (current, address, ty) = match place {
            Place::Var(var) => (self.var(*var)?, None, self.var_type(*var)),
            _ => {
                let address = self.address(place)?;
                let reg = self.new_reg(1);
                self.load_from(address, reg);
                let ty = self.place_scalar_type(place);
                (Operand::Reg(reg), Some(address), ty)
            }
        };
        self.span = span;
        let wide = width_of(ty) == 2;
        let old_copy = if used && !prefix {
            let reg = self.result_reg(want, width_of(ty));
            self.copy(current, reg, wide);
            Some(reg)
        } else {
            None
        };
        let target = match (current, address) {
            (Operand::Reg(reg), None) => Some(reg),
            _ => None,
        };
        let new = self.bump(current, ty, increment, target)?;
        if let Some(address) = address {
            self.store_to(address, new);
        }
        Ok(match old_copy {
            Some(reg) => Operand::Reg(reg),
            None => self.place_in(new, want.filter(|_| used), wide),
        })
    }

    fn bump(&mut self, value: Operand, ty: Type, increment: bool, want: Option<u32>) -> Result<Operand> {
        let one = if increment { 1 } else { u32::MAX };
        match ty {
            Type::Pointer(pointer) if pointer.space == Space::Global => {
                Ok(Operand::Reg(self.wide_address(Src::of(Operand::Imm(one)), true, value, want)))
            }
            Type::Pointer(_) => {
                let reg = self.result_reg(want, 1);
                let src = [Src::of(Operand::Imm(one)), Src::of(Operand::Imm(4)), Src::of(value)];
                self.emit(Op::IMad, "IMAD", Operand::Reg(reg), &src);
                Ok(Operand::Reg(reg))
            }
            Type::Scalar(Scalar::Float) => {
                let step = Operand::Imm(if increment { 1.0f32 } else { -1.0f32 }.to_bits());
                self.binary(BinaryOp::Add, Scalar::Float, value, step, want)
            }
            _ => self.binary(BinaryOp::Add, Scalar::Int, value, Operand::Imm(one), want),
        }
    }

    fn place_scalar_type(&self, place: &Place) -> Type {
        match place {
            Place::Var(var) => self.var_type(*var),
            Place::Element { pointer, .. } => pointer.ty.pointer().map_or(Type::Void, |p| Type::Scalar(p.elem)),
            Place::Shared { array, .. } => {
                let function = self.function_id();
                Type::Scalar(self.program.functions[function.0 as usize].shared_arrays[array.0 as usize].elem)
            }
        }
    }

    /// Inlines a call of a `__device__` function.
    fn call(&mut self, function: FunctionId, args: &[Expr]) -> Result<Operand> {
        let span = self.span;
        if self.frames.len() > super::MAX_INLINE_DEPTH {
            let message = format!(
                "'__device__' calls nested more than {} deep are not supported (each call is inlined)",
                super::MAX_INLINE_DEPTH
            );
            return Err(Error::limit(crate::diagnostic::Span::point(span.start), message));
        }
        let callee = &self.program.functions[function.0 as usize];
        let assigned = assigned_variables(callee.variables.len(), &callee.body);
        let mut vars = vec![None; callee.variables.len()];
        for (&param, arg) in callee.params.iter().zip(args) {
            let value = if assigned[param.0 as usize] {
                let reg = self.new_reg(width_of(arg.ty));
                self.value(arg, Some(reg))?
            } else {
                self.value(arg, None)?
            };
            vars[param.0 as usize] = Some(value);
        }
        let result = match callee.return_type {
            Type::Void => None,
            ty => Some(self.new_reg(width_of(ty))),
        };
        let end = self.new_label();
        self.frames.push(Frame { function, vars, exit: Some((end, result)), loops: Vec::new() });
        let lowered = self.block(&callee.body);
        self.frames.pop();
        lowered?;
        self.place(end);
        self.span = span;
        Ok(result.map_or(Operand::Zero, Operand::Reg))
    }

    fn builtin(&mut self, builtin: Builtin, args: &[Expr], ty: Type, used: bool, want: Option<u32>) -> Result<Operand> {
        let span = self.span;
        let mut values = Vec::with_capacity(args.len());
        // An atomic's first argument is an address, not a value to load.
        let atomic = matches!(builtin, Builtin::AtomicAdd | Builtin::AtomicMax | Builtin::AtomicCas);
        for arg in args {
            values.push(self.value(arg, None)?);
        }
        self.span = span;
        if atomic {
            let space = args[0].ty.pointer().map_or(Space::Global, |p| p.space);
            let elem = args[0].ty.pointer().map_or(Scalar::Int, |p| p.elem);
            return Ok(self.atomic(builtin, space, elem, &values, used, want));
        }
        let reg = self.result_reg(want, 1);
        let d = Operand::Reg(reg);
        match builtin {
            Builtin::SyncThreads => {
                self.emit(Op::Bar, "BAR.SYNC", Operand::Zero, &[]);
                return Ok(Operand::Zero);
            }
            Builtin::Sqrtf => self.mufu(MufuFn::Sqrt, d, values[0]),
            Builtin::Expf => {
                let scaled = self.scale(values[0], std::f32::consts::LOG2_E);
                self.mufu(MufuFn::Ex2, d, scaled);
            }
            Builtin::Sinf => {
                let turns = self.scale(values[0], std::f32::consts::FRAC_1_PI / 2.0);
                self.mufu(MufuFn::Sin, d, turns);
            }
            Builtin::Fabsf => {
                let src = [Src { operand: values[0], negate: false, abs: true }, Src::neg(Operand::Zero)];
                self.emit(Op::FAdd, "FADD", d, &src);
            }
            Builtin::Fdividef => {
                let reciprocal = self.new_reg(1);
                self.mufu(MufuFn::Rcp, Operand::Reg(reciprocal), values[1]);
                self.emit(Op::FMul, "FMUL", d, &[Src::of(values[0]), Src::of(Operand::Reg(reciprocal))]);
            }
            Builtin::Min | Builtin::Max => {
                let min = builtin == Builtin::Min;
                let scalar = ty.scalar().unwrap_or(Scalar::Int);
                self.min_max(scalar, min, d, values[0], values[1]);
            }
            Builtin::AtomicAdd | Builtin::AtomicMax | Builtin::AtomicCas => {}
        }
        Ok(d)
    }

    fn scale(&mut self, value: Operand, factor: f32) -> Operand {
        let reg = self.new_reg(1);
        self.emit(Op::FMul, "FMUL", Operand::Reg(reg), &[Src::of(value), Src::of(Operand::Imm(factor.to_bits()))]);
        Operand::Reg(reg)
    }

    pub(super) fn mufu(&mut self, function: MufuFn, dst: Operand, value: Operand) {
        let text = match function {
            MufuFn::Rcp => "MUFU.RCP",
            MufuFn::Sqrt => "MUFU.SQRT",
            MufuFn::Ex2 => "MUFU.EX2",
            MufuFn::Sin => "MUFU.SIN",
        };
        self.emit(Op::Mufu(function), text, dst, &[Src::of(value)]);
    }

    fn min_max(&mut self, scalar: Scalar, min: bool, dst: Operand, a: Operand, b: Operand) {
        let (op, text) = match scalar {
            Scalar::Float => (Op::FMnMx, "FMNMX"),
            Scalar::Unsigned => (Op::IMnMx { signed: false }, "IMNMX.U32"),
            _ => (Op::IMnMx { signed: true }, "IMNMX"),
        };
        let inst = self.emit(op, text, dst, &[Src::of(a), Src::of(b)]);
        inst.pred = Pred { index: 7, negate: !min };
    }

    fn atomic(
        &mut self,
        builtin: Builtin,
        space: Space,
        elem: Scalar,
        values: &[Operand],
        used: bool,
        want: Option<u32>,
    ) -> Operand {
        let op = match (builtin, elem) {
            (Builtin::AtomicAdd, Scalar::Float) => AtomicOp::AddFloat,
            (Builtin::AtomicAdd, _) => AtomicOp::AddInt,
            (Builtin::AtomicMax, Scalar::Unsigned) => AtomicOp::MaxUnsigned,
            (Builtin::AtomicMax, _) => AtomicOp::MaxSigned,
            _ => AtomicOp::Cas,
        };
        let function = match op {
            AtomicOp::AddFloat => "ADD.F32.FTZ.RN",
            AtomicOp::AddInt => "ADD",
            AtomicOp::MaxSigned => "MAX.S32",
            AtomicOp::MaxUnsigned => "MAX.U32",
            AtomicOp::Cas => "CAS",
        };
        // A global atomic whose result is unused is a reduction, as nvcc
        // compiles it; a CAS always returns its old value.
        let reduction = !used && space == Space::Global && op != AtomicOp::Cas;
        let (memory, text) = match space {
            Space::Shared => (Memory::Shared, format!("ATOMS.{function}")),
            Space::Global if reduction => (Memory::Global, format!("RED.E.{function}.STRONG.GPU")),
            Space::Global => (Memory::Global, format!("ATOMG.E.{function}.STRONG.GPU")),
        };
        let dst = if reduction { Operand::Zero } else { Operand::Reg(self.result_reg(want, 1)) };
        let src: Vec<Src> = values.iter().map(|&v| Src::of(v)).collect();
        self.emit(Op::Atomic(memory, op), &text, dst, &src);
        dst
    }
}

impl Address {
    fn operand(self) -> Operand {
        match self {
            Address::Global(reg) => Operand::Reg(reg),
            Address::Shared(offset) => offset,
        }
    }
}

pub(super) fn is_comparison(op: BinaryOp) -> bool {
    matches!(op, BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne)
}

fn constant_bits(value: Value) -> u32 {
    match value {
        Value::Int(v) => v as u32,
        Value::Unsigned(v) => v,
        Value::Float(v) => v.to_bits(),
        Value::Bool(v) => u32::from(v),
    }
}
