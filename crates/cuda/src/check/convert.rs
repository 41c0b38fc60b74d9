//! Implicit conversions, as C++ makes them where a value of one type is
//! given where another is expected: between scalar types always (C's
//! conversions), between pointers only to add `const`, never between a
//! pointer and a scalar or between pointers to different types.

use super::FunctionChecker;
use crate::diagnostic::{Error, Result};
use crate::typed::{Expr, ExprKind};
use crate::types::{Scalar, Space, Type};

/// Where a value is converted, which decides clang's wording of a mismatch.
#[derive(Clone, Copy)]
pub(super) enum Context {
    Initialize,
    Assign,
    Argument,
    Return,
}

impl FunctionChecker<'_> {
    /// `value` as a value of type `to`.
    pub(super) fn convert(&self, value: Expr, to: Type, context: Context) -> Result<Expr> {
        match (value.ty, to) {
            (Type::Scalar(from), Type::Scalar(to)) if from == to => Ok(value),
            (Type::Scalar(_), Type::Scalar(to)) => Ok(self.implicit(value, to)),
            (Type::Dim3, Type::Dim3) => Ok(value),
            (Type::Pointer(from), Type::Pointer(target))
                if from.elem == target.elem && from.space == target.space && (!from.is_const || target.is_const) =>
            {
                // Adding `const` changes nothing a code generator does, and
                // the value keeps its own type (a load keeps its variable's).
                Ok(value)
            }
            (Type::Pointer(from), Type::Pointer(target))
                if from.space == Space::Shared && target.space == Space::Global =>
            {
                Err(Error::unsupported(
                    value.span,
                    "a pointer into shared memory cannot be stored or passed; index the '__shared__' array instead",
                ))
            }
            (from, to) => Err(Error::types(value.span, mismatch(context, from, to, is_lvalue(&value)))),
        }
    }

    /// `value` converted to `to` by C's rules, not by a written cast.
    pub(super) fn implicit(&self, value: Expr, to: Scalar) -> Expr {
        if value.ty == Type::Scalar(to) {
            return value;
        }
        let span = value.span;
        Expr { kind: ExprKind::Convert { operand: Box::new(value), implicit: true }, ty: Type::Scalar(to), span }
    }
}

fn is_lvalue(value: &Expr) -> bool {
    matches!(value.kind, ExprKind::Load(_))
}

fn mismatch(context: Context, from: Type, to: Type, lvalue: bool) -> String {
    match context {
        Context::Initialize => {
            let kind = if lvalue { "an lvalue" } else { "an rvalue" };
            format!("cannot initialize a variable of type '{to}' with {kind} of type '{from}'")
        }
        Context::Assign => format!("assigning to '{to}' from incompatible type '{from}'"),
        Context::Argument => format!("passing '{from}' to parameter of incompatible type '{to}'"),
        Context::Return => format!("returning '{from}' from a function with incompatible result type '{to}'"),
    }
}
