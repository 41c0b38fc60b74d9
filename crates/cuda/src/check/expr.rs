//! Expressions and places: names, the index registers, memory accesses,
//! operators with C's usual arithmetic conversions, pointer arithmetic,
//! assignment, `?:` and casts.

use super::call::CallSite;
use super::convert::Context;
use super::{Binding, FunctionChecker, resolve_type};
use crate::ast::{self, BinaryOp, ExprKind as Ast, UnaryOp as AstUnary};
use crate::diagnostic::{Error, Result, Span};
use crate::typed::{Axis, Expr, ExprKind, Place, Special, UnaryOp, Value};
use crate::types::{Pointer, Scalar, Space, Type};

/// A place with what reading and writing it needs.
pub(super) struct Access {
    pub place: Place,
    pub ty: Type,
    /// Why it cannot be written, if it cannot.
    pub read_only: Option<String>,
}

impl FunctionChecker<'_> {
    /// Checks an expression.
    pub(super) fn expr(&mut self, expr: &ast::Expr) -> Result<Expr> {
        let span = expr.span;
        let (kind, ty) = match &expr.kind {
            Ast::Int { value, ty } => (ExprKind::Const(integer(*value, *ty)), Type::Scalar(*ty)),
            Ast::Float(value) => (ExprKind::Const(Value::Float(*value)), Type::Scalar(Scalar::Float)),
            Ast::Bool(value) => (ExprKind::Const(Value::Bool(*value)), Type::Scalar(Scalar::Bool)),
            Ast::Name(_) | Ast::Index { .. } | Ast::Unary { op: AstUnary::Deref, .. } => {
                let access = self.place(expr)?;
                (ExprKind::Load(access.place), access.ty)
            }
            Ast::Member { base, member } => return self.member(base, member, span),
            Ast::Call { callee, args, close } => return self.call(CallSite { callee, args, close: *close, span }),
            Ast::DeviceArray { .. } => {
                return Err(Error::types(
                    span,
                    "device_array<T>(n) is only allowed as the initializer of a pointer variable in host()",
                ));
            }
            Ast::Dim3 { args, close } => return self.dim3_of(args, span.to(*close)),
            Ast::Unary { op, operand } => return self.unary(*op, operand, span),
            Ast::Postfix { increment, operand } => return self.step(operand, *increment, false, span),
            Ast::Binary { op, op_span, lhs, rhs } => return self.binary(*op, *op_span, lhs, rhs, span),
            Ast::Assign { op, op_span, lhs, rhs } => return self.assign(*op, *op_span, lhs, rhs, span),
            Ast::Conditional { cond, question, then, otherwise } => {
                return self.conditional(cond, *question, [then, otherwise], span);
            }
            Ast::Cast { ty, operand } => return self.cast(ty, operand, span),
        };
        Ok(Expr { kind, ty, span })
    }

    /// An expression that names memory or a variable.
    pub(super) fn place(&mut self, expr: &ast::Expr) -> Result<Access> {
        match &expr.kind {
            Ast::Name(name) => self.named_place(name, expr.span),
            Ast::Index { base, index } => {
                if let Some(access) = self.shared_element(expr)? {
                    return Ok(access);
                }
                let pointer = self.expr(base)?;
                let index = self.index(index)?;
                self.element(pointer, index, base.span)
            }
            Ast::Unary { op: AstUnary::Deref, operand } => self.deref(operand, expr.span),
            _ => Err(Error::types(expr.span, "expression is not assignable")),
        }
    }

    /// `*pointer`, element 0.
    fn deref(&mut self, operand: &ast::Expr, span: Span) -> Result<Access> {
        let pointer = self.expr(operand)?;
        if pointer.ty.pointer().is_none() {
            let message = format!("indirection requires pointer operand ('{}' invalid)", pointer.ty);
            return Err(Error::types(span, message));
        }
        let zero = Expr { kind: ExprKind::Const(Value::Int(0)), ty: Type::Scalar(Scalar::Int), span };
        self.element(pointer, zero, span)
    }

    fn named_place(&self, name: &str, span: Span) -> Result<Access> {
        match self.lookup(name) {
            Some(Binding::Var(id)) => {
                let variable = self.variable(id);
                let read_only = variable.is_const.then(|| {
                    let shown = match variable.ty {
                        Type::Pointer(_) => format!("{} const", variable.ty),
                        ty => format!("const {ty}"),
                    };
                    format!("cannot assign to variable '{name}' with const-qualified type '{shown}'")
                });
                Ok(Access { place: crate::typed::Place::Var(id), ty: variable.ty, read_only })
            }
            Some(Binding::Shared(id)) => {
                let dims = self.shared_array(id).dims.len();
                let usage = if dims == 2 { format!("{name}[i][j]") } else { format!("{name}[i]") };
                Err(Error::types(
                    span,
                    format!("the '__shared__' array '{name}' can only be used indexed, as '{usage}'"),
                ))
            }
            None => Err(self.unknown_name(name, span)),
        }
    }

    /// The error for a name that is not a variable.
    pub(super) fn unknown_name(&self, name: &str, span: Span) -> Error {
        if special(name).is_some() {
            return Error::types(span, format!("'{name}' must be followed by '.x', '.y' or '.z'"));
        }
        if self.names.contains_key(name) || super::call::builtin_named(name).is_some() {
            return Error::types(span, format!("function '{name}' must be called"));
        }
        Error::unknown(span, format!("use of undeclared identifier '{name}'"))
    }

    /// `tile[i]` or `tile[i][j]` of a `__shared__` array, if `expr` is one.
    fn shared_element(&mut self, expr: &ast::Expr) -> Result<Option<Access>> {
        let mut indices = Vec::new();
        let mut base = expr;
        while let Ast::Index { base: inner, index } = &base.kind {
            indices.push(index.as_ref());
            base = inner;
        }
        let Ast::Name(name) = &base.kind else { return Ok(None) };
        let Some(Binding::Shared(id)) = self.lookup(name) else { return Ok(None) };
        let (elem, dims) = {
            let array = self.shared_array(id);
            (array.elem, array.dims.len())
        };
        if indices.len() != dims {
            let usage = if dims == 2 { format!("{name}[i][j]") } else { format!("{name}[i]") };
            let message = format!(
                "'__shared__' array '{name}' has {dims} dimension{}; index it as '{usage}'",
                if dims == 2 { "s" } else { "" }
            );
            return Err(Error::types(expr.span, message));
        }
        let indices = indices.into_iter().rev().map(|index| self.index(index)).collect::<Result<Vec<_>>>()?;
        Ok(Some(Access { place: Place::Shared { array: id, indices }, ty: Type::Scalar(elem), read_only: None }))
    }

    /// `pointer[index]` (in device code only: host code cannot touch GPU memory).
    fn element(&self, pointer: Expr, index: Expr, base_span: Span) -> Result<Access> {
        let Type::Pointer(Pointer { elem, is_const, .. }) = pointer.ty else {
            return Err(Error::types(base_span, "subscripted value is not an array, pointer, or vector"));
        };
        if self.in_host() {
            return Err(Error::unsupported(
                pointer.span.to(index.span),
                "host code cannot read or write device memory; use a kernel",
            ));
        }
        let read_only = is_const.then(|| "read-only variable is not assignable".to_owned());
        let place = Place::Element { pointer: Box::new(pointer), index: Box::new(index) };
        Ok(Access { place, ty: Type::Scalar(elem), read_only })
    }

    /// An array index: an integer, promoted.
    fn index(&mut self, index: &ast::Expr) -> Result<Expr> {
        let index = self.expr(index)?;
        match index.ty {
            Type::Scalar(scalar) if scalar.is_integer() => Ok(self.implicit(index, scalar.promoted())),
            _ => Err(Error::types(index.span, "array subscript is not an integer")),
        }
    }

    /// `threadIdx.x` and its kind; anything else with a dot is an error.
    fn member(&mut self, base: &ast::Expr, member: &ast::Ident, span: Span) -> Result<Expr> {
        let special_name = match &base.kind {
            Ast::Name(name) if self.lookup(name).is_none() => special(name).map(|s| (name, s)),
            _ => None,
        };
        let Some((name, special)) = special_name else {
            let base = self.expr(base)?;
            if base.ty == Type::Dim3 {
                return Err(Error::unsupported(span, "reading the members of a 'dim3' is not supported"));
            }
            let message = format!("member reference base type '{}' is not a structure or union", base.ty);
            return Err(Error::types(base.span, message));
        };
        if self.in_host() {
            return Err(Error::types(base.span, format!("'{name}' is only available in device code")));
        }
        let axis = match member.name.as_str() {
            "x" => Axis::X,
            "y" => Axis::Y,
            "z" => Axis::Z,
            other => {
                let ty = if matches!(special, Special::ThreadIdx | Special::BlockIdx) { "uint3" } else { "dim3" };
                return Err(Error::types(member.span, format!("no member named '{other}' in '{ty}'")));
            }
        };
        Ok(Expr { kind: ExprKind::Special(special, axis), ty: Type::Scalar(Scalar::Unsigned), span })
    }

    fn unary(&mut self, op: AstUnary, operand: &ast::Expr, span: Span) -> Result<Expr> {
        let (op, integer_only) = match op {
            AstUnary::Neg => (Some(UnaryOp::Neg), false),
            AstUnary::Plus => (None, false),
            AstUnary::BitNot => (Some(UnaryOp::BitNot), true),
            AstUnary::Not => {
                let value = self.expr(operand)?;
                let ty = value.ty;
                let value = self.to_bool(value).map_err(|_| invalid_argument(&ty, span))?;
                return Ok(Expr {
                    kind: ExprKind::Unary(UnaryOp::Not, Box::new(value)),
                    ty: Type::Scalar(Scalar::Bool),
                    span,
                });
            }
            AstUnary::AddressOf => return self.address_of(operand, span),
            AstUnary::PreIncrement => return self.step(operand, true, true, span),
            AstUnary::PreDecrement => return self.step(operand, false, true, span),
            AstUnary::Deref => {
                let access = self.deref(operand, span)?;
                return Ok(Expr { kind: ExprKind::Load(access.place), ty: access.ty, span });
            }
        };
        let value = self.expr(operand)?;
        let scalar = match value.ty {
            Type::Scalar(scalar) if scalar.is_integer() || !integer_only => scalar.promoted(),
            ty => return Err(invalid_argument(&ty, span)),
        };
        let value = self.implicit(value, scalar);
        let Some(op) = op else { return Ok(Expr { span, ..value }) };
        Ok(Expr { kind: ExprKind::Unary(op, Box::new(value)), ty: Type::Scalar(scalar), span })
    }

    fn address_of(&mut self, operand: &ast::Expr, span: Span) -> Result<Expr> {
        let is_place =
            matches!(operand.kind, Ast::Name(_) | Ast::Index { .. } | Ast::Unary { op: AstUnary::Deref, .. });
        if !is_place {
            let value = self.expr(operand)?;
            return Err(Error::types(span, format!("cannot take the address of an rvalue of type '{}'", value.ty)));
        }
        let access = self.place(operand)?;
        let (Type::Scalar(elem), Some(space)) = (access.ty, memory_space(&access.place, &access.ty)) else {
            return Err(Error::unsupported(span, "taking the address of a variable is not supported"));
        };
        let is_const = access.read_only.is_some();
        let ty = Type::Pointer(Pointer { elem, is_const, space });
        Ok(Expr { kind: ExprKind::AddressOf(access.place), ty, span })
    }

    fn step(&mut self, operand: &ast::Expr, increment: bool, prefix: bool, span: Span) -> Result<Expr> {
        let access = self.writable(operand)?;
        match access.ty {
            Type::Scalar(Scalar::Bool) => {
                let verb = if increment { "incrementing" } else { "decrementing" };
                // clang reports at the operator: the first two bytes of a
                // prefix step, the last two of a postfix one.
                let at = if prefix {
                    Span::new(span.start, span.start + 2)
                } else {
                    Span::new(span.end.saturating_sub(2), span.end)
                };
                Err(Error::types(at, format!("ISO C++17 does not allow {verb} expression of type bool")))
            }
            Type::Scalar(_) | Type::Pointer(_) => {
                Ok(Expr { kind: ExprKind::Step { place: access.place, increment, prefix }, ty: access.ty, span })
            }
            ty => Err(invalid_argument(&ty, span)),
        }
    }

    /// A place that may be assigned.
    fn writable(&mut self, expr: &ast::Expr) -> Result<Access> {
        if let Ast::Member { .. } = expr.kind {
            return Err(Error::types(expr.span, "expression is not assignable"));
        }
        let access = self.place(expr)?;
        match &access.read_only {
            Some(message) => Err(Error::types(expr.span, message.clone())),
            None => Ok(access),
        }
    }

    fn binary(&mut self, op: BinaryOp, op_span: Span, lhs: &ast::Expr, rhs: &ast::Expr, span: Span) -> Result<Expr> {
        let lhs = self.expr(lhs)?;
        let rhs = self.expr(rhs)?;
        if matches!(op, BinaryOp::And | BinaryOp::Or) {
            let invalid = || invalid_operands(lhs.ty, rhs.ty, op_span);
            let (l, r) =
                (self.to_bool(lhs.clone()).map_err(|_| invalid())?, self.to_bool(rhs.clone()).map_err(|_| invalid())?);
            let kind = ExprKind::Logical { and: op == BinaryOp::And, lhs: Box::new(l), rhs: Box::new(r) };
            return Ok(Expr { kind, ty: Type::Scalar(Scalar::Bool), span });
        }
        match (lhs.ty, rhs.ty) {
            (Type::Scalar(a), Type::Scalar(b)) => {
                let operand_type = operand_type(op, a, b).ok_or_else(|| invalid_operands(lhs.ty, rhs.ty, op_span))?;
                let ty = if op.is_comparison() { Scalar::Bool } else { operand_type };
                let (lhs, rhs) = (self.implicit(lhs, operand_type), self.implicit(rhs, operand_type));
                let kind = ExprKind::Binary { op, operand_type, lhs: Box::new(lhs), rhs: Box::new(rhs) };
                Ok(Expr { kind, ty: Type::Scalar(ty), span })
            }
            (Type::Pointer(_), Type::Scalar(s)) if s.is_integer() && matches!(op, BinaryOp::Add | BinaryOp::Sub) => {
                Ok(self.offset(lhs, rhs, op == BinaryOp::Sub, span))
            }
            (Type::Scalar(s), Type::Pointer(_)) if s.is_integer() && op == BinaryOp::Add => {
                Ok(self.offset(rhs, lhs, false, span))
            }
            (Type::Pointer(_), Type::Pointer(_)) if op == BinaryOp::Sub || op.is_comparison() => {
                Err(Error::unsupported(
                    op_span,
                    format!(
                        "'{}' between pointers is not supported; compare or subtract indices instead",
                        op.spelling()
                    ),
                ))
            }
            _ => Err(invalid_operands(lhs.ty, rhs.ty, op_span)),
        }
    }

    fn offset(&self, pointer: Expr, offset: Expr, subtract: bool, span: Span) -> Expr {
        let ty = pointer.ty;
        let scalar = offset.ty.scalar().map_or(Scalar::Int, Scalar::promoted);
        let offset = self.implicit(offset, scalar);
        let kind = ExprKind::PointerOffset { pointer: Box::new(pointer), offset: Box::new(offset), subtract };
        Expr { kind, ty, span }
    }

    fn assign(
        &mut self,
        op: Option<BinaryOp>,
        op_span: Span,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Result<Expr> {
        let access = self.writable(lhs)?;
        let value = self.expr(rhs)?;
        let ty = access.ty;
        let Some(op) = op else {
            let value = self.convert(value, ty, Context::Assign)?;
            return Ok(Expr {
                kind: ExprKind::Assign { place: access.place, op: None, value: Box::new(value) },
                ty,
                span,
            });
        };
        let operand_type = match (ty, value.ty) {
            (Type::Scalar(a), Type::Scalar(b)) => operand_type(op, a, b),
            (Type::Pointer(_), Type::Scalar(b)) if b.is_integer() && matches!(op, BinaryOp::Add | BinaryOp::Sub) => {
                Some(b.promoted())
            }
            _ => None,
        }
        .ok_or_else(|| invalid_operands(ty, value.ty, op_span))?;
        let value = self.implicit(value, operand_type);
        let kind = ExprKind::Assign { place: access.place, op: Some((op, operand_type)), value: Box::new(value) };
        Ok(Expr { kind, ty, span })
    }

    fn conditional(&mut self, cond: &ast::Expr, question: Span, arms: [&ast::Expr; 2], span: Span) -> Result<Expr> {
        let [then, otherwise] = arms;
        let cond = self.condition(cond)?;
        let then = self.expr(then)?;
        let otherwise = self.expr(otherwise)?;
        let ty = match (then.ty, otherwise.ty) {
            (a, b) if a == b => a,
            (Type::Scalar(a), Type::Scalar(b)) => Type::Scalar(a.common(b)),
            (Type::Pointer(a), Type::Pointer(b)) if a.elem == b.elem && a.space == b.space => {
                Type::Pointer(Pointer { is_const: a.is_const || b.is_const, ..a })
            }
            (a, b) => return Err(Error::types(question, format!("incompatible operand types ('{a}' and '{b}')"))),
        };
        let (then, otherwise) = match ty {
            Type::Scalar(scalar) => (self.implicit(then, scalar), self.implicit(otherwise, scalar)),
            _ => (Expr { ty, ..then }, Expr { ty, ..otherwise }),
        };
        let kind = ExprKind::Conditional { cond: Box::new(cond), then: Box::new(then), otherwise: Box::new(otherwise) };
        Ok(Expr { kind, ty, span })
    }

    fn cast(&mut self, spec: &ast::TypeSpec, operand: &ast::Expr, span: Span) -> Result<Expr> {
        let (target, _) = resolve_type(spec, spec.pointer)?;
        let Type::Scalar(to) = target else {
            return Err(Error::unsupported(spec.span, format!("casts to '{target}' are not supported")));
        };
        let value = self.expr(operand)?;
        if value.ty.scalar().is_none() {
            return Err(Error::unsupported(span, format!("casts from '{}' are not supported", value.ty)));
        }
        let kind = ExprKind::Convert { operand: Box::new(value), implicit: false };
        Ok(Expr { kind, ty: Type::Scalar(to), span })
    }
}

/// The type a binary operator works in, or `None` when its operands do not
/// suit it (`%`, shifts and bitwise operators take integers only).
fn operand_type(op: BinaryOp, a: Scalar, b: Scalar) -> Option<Scalar> {
    let common = a.common(b);
    match op {
        BinaryOp::Shl | BinaryOp::Shr if a.is_integer() && b.is_integer() => Some(a.promoted()),
        BinaryOp::Rem | BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor | BinaryOp::Shl | BinaryOp::Shr => {
            common.is_integer().then_some(common)
        }
        _ => Some(common),
    }
}

fn integer(value: u32, ty: Scalar) -> Value {
    match ty {
        // The lexer types a literal `int` only when it fits.
        Scalar::Int => Value::Int(i32::try_from(value).unwrap_or(i32::MAX)),
        _ => Value::Unsigned(value),
    }
}

fn special(name: &str) -> Option<Special> {
    Some(match name {
        "threadIdx" => Special::ThreadIdx,
        "blockIdx" => Special::BlockIdx,
        "blockDim" => Special::BlockDim,
        "gridDim" => Special::GridDim,
        _ => return None,
    })
}

fn memory_space(place: &Place, ty: &Type) -> Option<Space> {
    match place {
        Place::Var(_) => None,
        Place::Shared { .. } => Some(Space::Shared),
        Place::Element { pointer, .. } => pointer.ty.pointer().map(|p| p.space).filter(|_| ty.scalar().is_some()),
    }
}

fn invalid_argument(ty: &Type, span: Span) -> Error {
    Error::types(span, format!("invalid argument type '{ty}' to unary expression"))
}

pub(super) fn invalid_operands(a: Type, b: Type, op_span: Span) -> Error {
    Error::types(op_span, format!("invalid operands to binary expression ('{a}' and '{b}')"))
}
