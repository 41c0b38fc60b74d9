//! Expressions, by C's precedence: assignment, `?:`, the binary operators
//! by precedence climbing (one function for ten levels keeps the recursion
//! per parenthesis shallow), prefix operators and casts, postfix operators,
//! and primary expressions.

use super::Parser;
use crate::ast::{BinaryOp, Expr, ExprKind, UnaryOp};
use crate::diagnostic::{Error, Result};
use crate::token::{Keyword, Punct, Tok};

impl Parser {
    /// A full expression. The comma operator is refused by name.
    pub(super) fn expression(&mut self) -> Result<Expr> {
        let expr = self.assignment()?;
        if self.at(Punct::Comma) {
            return Err(Error::unsupported(self.span(), "the comma operator is not supported"));
        }
        Ok(expr)
    }

    /// An assignment expression (what a function argument is).
    pub(super) fn assignment(&mut self) -> Result<Expr> {
        self.nested(|parser| {
            let lhs = parser.conditional()?;
            let Some(op) = assignment_op(parser.peek()) else { return Ok(lhs) };
            let op_span = parser.bump().span;
            let rhs = parser.assignment()?;
            let span = lhs.span.to(rhs.span);
            Ok(Expr { kind: ExprKind::Assign { op, op_span, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span })
        })
    }

    fn conditional(&mut self) -> Result<Expr> {
        let cond = self.binary(1)?;
        if !self.at(Punct::Question) {
            return Ok(cond);
        }
        let question = self.bump().span;
        let then = self.expression()?;
        self.expect(Punct::Colon)?;
        let otherwise = self.nested(Parser::conditional)?;
        let span = cond.span.to(otherwise.span);
        let kind = ExprKind::Conditional {
            cond: Box::new(cond),
            question,
            then: Box::new(then),
            otherwise: Box::new(otherwise),
        };
        Ok(Expr { kind, span })
    }

    /// Binary operators of precedence `min_precedence` and tighter.
    fn binary(&mut self, min_precedence: u8) -> Result<Expr> {
        let depth = self.depth;
        let mut lhs = self.unary()?;
        while let Some((op, precedence)) = binary_op(self.peek()) {
            if precedence < min_precedence {
                break;
            }
            // Each operator folded here puts the tree built so far one level
            // deeper, so it counts as nesting: the checker and the drop of
            // the tree recurse that deep.
            self.deeper()?;
            let op_span = self.bump().span;
            let rhs = self.binary(precedence + 1)?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr { kind: ExprKind::Binary { op, op_span, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span };
        }
        self.depth = depth;
        Ok(lhs)
    }

    /// Prefix operators and casts.
    fn unary(&mut self) -> Result<Expr> {
        let start = self.span();
        let op = match self.peek() {
            Tok::Punct(Punct::Minus) => UnaryOp::Neg,
            Tok::Punct(Punct::Plus) => UnaryOp::Plus,
            Tok::Punct(Punct::Bang) => UnaryOp::Not,
            Tok::Punct(Punct::Tilde) => UnaryOp::BitNot,
            Tok::Punct(Punct::Star) => UnaryOp::Deref,
            Tok::Punct(Punct::Amp) => UnaryOp::AddressOf,
            Tok::Punct(Punct::PlusPlus) => UnaryOp::PreIncrement,
            Tok::Punct(Punct::MinusMinus) => UnaryOp::PreDecrement,
            Tok::Punct(Punct::LParen) if self.cast_follows() => return self.cast(),
            _ => return self.postfix(),
        };
        self.bump();
        let operand = self.nested(Parser::unary)?;
        let span = start.to(operand.span);
        Ok(Expr { kind: ExprKind::Unary { op, operand: Box::new(operand) }, span })
    }

    fn cast_follows(&self) -> bool {
        super::item::starts_type(self.peek_at(1))
    }

    /// `(type) operand`.
    fn cast(&mut self) -> Result<Expr> {
        let open = self.bump().span;
        let ty = self.type_spec()?;
        self.expect(Punct::RParen)?;
        let operand = self.nested(Parser::unary)?;
        let span = open.to(operand.span);
        Ok(Expr { kind: ExprKind::Cast { ty, operand: Box::new(operand) }, span })
    }

    fn postfix(&mut self) -> Result<Expr> {
        let depth = self.depth;
        let mut expr = self.primary()?;
        loop {
            if binds_postfix(self.peek()) {
                // As for binary operators: each postfix operator nests the
                // tree one level deeper.
                self.deeper()?;
            }
            expr = match self.peek() {
                Tok::Punct(Punct::LBracket) => {
                    self.bump();
                    let index = self.expression()?;
                    let close = self.expect(Punct::RBracket)?;
                    let span = expr.span.to(close);
                    Expr { kind: ExprKind::Index { base: Box::new(expr), index: Box::new(index) }, span }
                }
                Tok::Punct(Punct::Dot) => {
                    self.bump();
                    let member = self.ident()?;
                    let span = expr.span.to(member.span);
                    Expr { kind: ExprKind::Member { base: Box::new(expr), member }, span }
                }
                Tok::Punct(punct @ (Punct::PlusPlus | Punct::MinusMinus)) => {
                    let increment = *punct == Punct::PlusPlus;
                    let span = expr.span.to(self.bump().span);
                    Expr { kind: ExprKind::Postfix { increment, operand: Box::new(expr) }, span }
                }
                Tok::Punct(Punct::LParen) => self.call(expr)?,
                _ => {
                    self.depth = depth;
                    return Ok(expr);
                }
            };
        }
    }

    fn call(&mut self, callee: Expr) -> Result<Expr> {
        let ExprKind::Name(name) = callee.kind else {
            return Err(Error::types(callee.span, "called object is not a function"));
        };
        let (args, close) = self.arguments()?;
        let callee = crate::ast::Ident { name, span: callee.span };
        let span = callee.span.to(close);
        Ok(Expr { kind: ExprKind::Call { callee, args, close }, span })
    }

    fn primary(&mut self) -> Result<Expr> {
        let span = self.span();
        let kind = match self.peek().clone() {
            Tok::Int { value, ty } => ExprKind::Int { value, ty },
            Tok::Float(value) => ExprKind::Float(value),
            Tok::Keyword(Keyword::True) => ExprKind::Bool(true),
            Tok::Keyword(Keyword::False) => ExprKind::Bool(false),
            Tok::Ident(name) if name == "device_array" && self.peek_at(1) == &Tok::Punct(Punct::Lt) => {
                return self.device_array();
            }
            Tok::Ident(name) => ExprKind::Name(name),
            Tok::Keyword(Keyword::Dim3) => {
                self.bump();
                let (args, close) = self.arguments()?;
                return Ok(Expr { kind: ExprKind::Dim3 { args, close }, span: span.to(close) });
            }
            Tok::Punct(Punct::LParen) => {
                self.bump();
                // No extra level here: the expression inside nests one.
                let inner = self.expression()?;
                let close = self.expect(Punct::RParen)?;
                return Ok(Expr { kind: inner.kind, span: span.to(close) });
            }
            _ => return Err(Error::syntax(span, "expected expression")),
        };
        self.bump();
        Ok(Expr { kind, span })
    }

    /// `device_array<T>(args)`.
    fn device_array(&mut self) -> Result<Expr> {
        let start = self.bump().span;
        self.bump();
        let elem = self.type_spec()?;
        if !self.eat(Punct::Gt) {
            return Err(Error::syntax(self.span(), "expected '>'"));
        }
        let (args, close) = self.arguments()?;
        Ok(Expr { kind: ExprKind::DeviceArray { elem, args, close }, span: start.to(close) })
    }
}

fn binds_postfix(tok: &Tok) -> bool {
    matches!(tok, Tok::Punct(Punct::LBracket | Punct::Dot | Punct::PlusPlus | Punct::MinusMinus | Punct::LParen))
}

/// The operator of an assignment token: `None` inside for `=`.
fn assignment_op(tok: &Tok) -> Option<Option<BinaryOp>> {
    let Tok::Punct(punct) = tok else { return None };
    Some(match punct {
        Punct::Assign => None,
        Punct::PlusAssign => Some(BinaryOp::Add),
        Punct::MinusAssign => Some(BinaryOp::Sub),
        Punct::StarAssign => Some(BinaryOp::Mul),
        Punct::SlashAssign => Some(BinaryOp::Div),
        Punct::PercentAssign => Some(BinaryOp::Rem),
        Punct::ShlAssign => Some(BinaryOp::Shl),
        Punct::ShrAssign => Some(BinaryOp::Shr),
        Punct::AmpAssign => Some(BinaryOp::BitAnd),
        Punct::PipeAssign => Some(BinaryOp::BitOr),
        Punct::CaretAssign => Some(BinaryOp::BitXor),
        _ => return None,
    })
}

/// A binary operator and its precedence (higher binds tighter).
fn binary_op(tok: &Tok) -> Option<(BinaryOp, u8)> {
    let Tok::Punct(punct) = tok else { return None };
    Some(match punct {
        Punct::OrOr => (BinaryOp::Or, 1),
        Punct::AndAnd => (BinaryOp::And, 2),
        Punct::Pipe => (BinaryOp::BitOr, 3),
        Punct::Caret => (BinaryOp::BitXor, 4),
        Punct::Amp => (BinaryOp::BitAnd, 5),
        Punct::EqEq => (BinaryOp::Eq, 6),
        Punct::Ne => (BinaryOp::Ne, 6),
        Punct::Lt => (BinaryOp::Lt, 7),
        Punct::Le => (BinaryOp::Le, 7),
        Punct::Gt => (BinaryOp::Gt, 7),
        Punct::Ge => (BinaryOp::Ge, 7),
        Punct::Shl => (BinaryOp::Shl, 8),
        Punct::Shr => (BinaryOp::Shr, 8),
        Punct::Plus => (BinaryOp::Add, 9),
        Punct::Minus => (BinaryOp::Sub, 9),
        Punct::Star => (BinaryOp::Mul, 10),
        Punct::Slash => (BinaryOp::Div, 10),
        Punct::Percent => (BinaryOp::Rem, 10),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use crate::ast::{BinaryOp, ExprKind, StmtKind};

    /// The expression statement of `void host() { EXPR; }`, printed with
    /// full parentheses.
    fn check(expr: &str, expect: &str) {
        let source = format!("void host() {{ {expr}; }}");
        let unit = super::super::parse(crate::lexer::lex(&source).expect("lexes")).expect("parses");
        let StmtKind::Expr(expr) = &unit.functions[0].body.stmts[0].kind else { panic!("not an expression") };
        assert_eq!(print(&expr.kind), expect);
    }

    fn print(kind: &ExprKind) -> String {
        match kind {
            ExprKind::Name(name) => name.clone(),
            ExprKind::Int { value, .. } => value.to_string(),
            ExprKind::Binary { op, lhs, rhs, .. } => {
                format!("({} {} {})", print(&lhs.kind), op.spelling(), print(&rhs.kind))
            }
            ExprKind::Assign { op, lhs, rhs, .. } => {
                let op = op.map_or("", BinaryOp::spelling);
                format!("({} {op}= {})", print(&lhs.kind), print(&rhs.kind))
            }
            ExprKind::Conditional { cond, then, otherwise, .. } => {
                format!("({} ? {} : {})", print(&cond.kind), print(&then.kind), print(&otherwise.kind))
            }
            ExprKind::Unary { op, operand } => format!("({op:?} {})", print(&operand.kind)),
            ExprKind::Cast { operand, .. } => format!("(cast {})", print(&operand.kind)),
            ExprKind::Index { base, index } => format!("{}[{}]", print(&base.kind), print(&index.kind)),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn precedence_and_associativity_are_cs() {
        check("a + b * c - d", "((a + (b * c)) - d)");
        check("a = b += c", "(a = (b += c))");
        check("a < b == c < d && e || f", "((((a < b) == (c < d)) && e) || f)");
        check("a ? b : c ? d : e", "(a ? b : (c ? d : e))");
        check("a << 1 + 2 & 3 | 4 ^ 5", "(((a << (1 + 2)) & 3) | (4 ^ 5))");
        check("-*p + (float)x[2]", "((Neg (Deref p)) + (cast x[2]))");
    }
}
