//! Integer constant expressions, for the sizes of `__shared__` arrays
//! (which `#define`d names have already been expanded into).

use crate::ast::{BinaryOp, Expr, ExprKind, UnaryOp};
use crate::types::Scalar;

/// The value of `expr` if it is an integer constant expression, computed in
/// 64 bits; `None` if it is not one, overflows or divides by zero.
pub(super) fn evaluate(expr: &Expr) -> Option<i64> {
    match &expr.kind {
        ExprKind::Int { value, .. } => Some(i64::from(*value)),
        ExprKind::Bool(value) => Some(i64::from(*value)),
        ExprKind::Unary { op, operand } => {
            let value = evaluate(operand)?;
            match op {
                UnaryOp::Neg => value.checked_neg(),
                UnaryOp::Plus => Some(value),
                UnaryOp::Not => Some(i64::from(value == 0)),
                UnaryOp::BitNot => Some(!value),
                _ => None,
            }
        }
        ExprKind::Binary { op, lhs, rhs, .. } => binary(*op, evaluate(lhs)?, evaluate(rhs)?),
        ExprKind::Conditional { cond, then, otherwise, .. } => {
            if evaluate(cond)? != 0 {
                evaluate(then)
            } else {
                evaluate(otherwise)
            }
        }
        ExprKind::Cast { ty, operand } if ty.pointer.is_none() => match ty.base {
            crate::ast::BaseType::Scalar(Scalar::Int | Scalar::Unsigned) => evaluate(operand),
            _ => None,
        },
        _ => None,
    }
}

fn binary(op: BinaryOp, lhs: i64, rhs: i64) -> Option<i64> {
    let shift = || u32::try_from(rhs).ok().filter(|&s| s < 63);
    Some(match op {
        BinaryOp::Add => lhs.checked_add(rhs)?,
        BinaryOp::Sub => lhs.checked_sub(rhs)?,
        BinaryOp::Mul => lhs.checked_mul(rhs)?,
        BinaryOp::Div => lhs.checked_div(rhs)?,
        BinaryOp::Rem => lhs.checked_rem(rhs)?,
        BinaryOp::Shl => lhs.checked_shl(shift()?)?,
        BinaryOp::Shr => lhs >> shift()?,
        BinaryOp::BitAnd => lhs & rhs,
        BinaryOp::BitOr => lhs | rhs,
        BinaryOp::BitXor => lhs ^ rhs,
        BinaryOp::Lt => i64::from(lhs < rhs),
        BinaryOp::Le => i64::from(lhs <= rhs),
        BinaryOp::Gt => i64::from(lhs > rhs),
        BinaryOp::Ge => i64::from(lhs >= rhs),
        BinaryOp::Eq => i64::from(lhs == rhs),
        BinaryOp::Ne => i64::from(lhs != rhs),
        BinaryOp::And => i64::from(lhs != 0 && rhs != 0),
        BinaryOp::Or => i64::from(lhs != 0 || rhs != 0),
    })
}

#[cfg(test)]
mod tests {
    use crate::ast::{ExprKind, StmtKind};

    /// The value of `expr`, parsed as the right side of an assignment.
    fn check(expr: &str, expect: Option<i64>) {
        let source = format!("#define W 32\nvoid host() {{ x = {expr}; }}");
        let unit = crate::parser::parse(crate::lexer::lex(&source).expect("lexes")).expect("parses");
        let StmtKind::Expr(assign) = &unit.functions[0].body.stmts[0].kind else { panic!("an expression") };
        let ExprKind::Assign { rhs, .. } = &assign.kind else { panic!("an assignment") };
        assert_eq!(super::evaluate(rhs), expect, "{expr}");
    }

    #[test]
    fn integer_constant_expressions() {
        check("W * (W + 1)", Some(1056));
        check("(1 << 10) / 4 % 7", Some(4));
        check("W > 16 ? W : 16", Some(32));
        check("(unsigned)(W - 1) & ~3", Some(28));
        check("-W + !0 + (2 == 2) + true", Some(-29));
    }

    #[test]
    fn anything_else_is_not_one() {
        check("n + 1", None);
        check("2.0f", None);
        check("(float)2", None);
        check("1 / 0", None);
        check("1 << 70", None);
        check("2147483647 * 2147483647 * 4", None);
    }
}
