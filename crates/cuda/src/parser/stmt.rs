//! Statements: blocks, declarations, control flow and kernel launches.

use super::Parser;
use crate::ast::{Block, Decl, Declarator, Init, Launch, Stmt, StmtKind};
use crate::diagnostic::{Error, Result, Span};
use crate::token::{Keyword, Punct, Tok};

impl Parser {
    /// `{ statements }`.
    pub(super) fn block(&mut self) -> Result<Block> {
        let open = self.expect(Punct::LBrace)?;
        let mut stmts = Vec::new();
        while !self.at(Punct::RBrace) {
            if self.peek() == &Tok::Eof {
                return Err(Error::syntax(self.span(), "expected '}'"));
            }
            stmts.push(self.statement()?);
        }
        let close = self.bump().span;
        Ok(Block { stmts, span: open.to(close) })
    }

    /// One statement, one nesting level deeper.
    fn statement(&mut self) -> Result<Stmt> {
        self.nested(|parser| {
            let start = parser.span();
            let kind = parser.statement_kind()?;
            Ok(Stmt { kind, span: start.to(parser.previous_end()) })
        })
    }

    fn statement_kind(&mut self) -> Result<StmtKind> {
        match self.peek().clone() {
            Tok::Punct(Punct::LBrace) => Ok(StmtKind::Block(self.block()?)),
            Tok::Punct(Punct::Semi) => {
                self.bump();
                Ok(StmtKind::Empty)
            }
            Tok::Keyword(Keyword::If) => self.if_statement(),
            Tok::Keyword(Keyword::For) => self.for_statement(),
            Tok::Keyword(Keyword::While) => self.while_statement(),
            Tok::Keyword(keyword @ (Keyword::Break | Keyword::Continue)) => {
                self.bump();
                let (kind, word) = if keyword == Keyword::Break {
                    (StmtKind::Break, "break")
                } else {
                    (StmtKind::Continue, "continue")
                };
                self.expect_semi(&format!("after {word} statement"))?;
                Ok(kind)
            }
            Tok::Keyword(Keyword::Return) => {
                self.bump();
                let value = if self.at(Punct::Semi) { None } else { Some(self.expression()?) };
                self.expect_semi("after return statement")?;
                Ok(StmtKind::Return(value))
            }
            Tok::Keyword(Keyword::Shared) => self.declaration_statement(),
            _ if self.at_type() && self.peek_at(1) != &Tok::Punct(Punct::LParen) => self.declaration_statement(),
            Tok::Ident(_) if self.peek_at(1) == &Tok::Punct(Punct::LaunchOpen) => self.launch(),
            Tok::Ident(name) if matches!(self.peek_at(1), Tok::Ident(_)) => {
                Err(Error::unknown(self.span(), format!("unknown type name '{name}'")))
            }
            _ => {
                let expr = self.expression()?;
                self.expect_semi("after expression")?;
                Ok(StmtKind::Expr(expr))
            }
        }
    }

    fn declaration_statement(&mut self) -> Result<StmtKind> {
        let decl = self.declaration()?;
        self.expect_semi("at end of declaration")?;
        Ok(StmtKind::Decl(decl))
    }

    /// `[__shared__] type declarator {, declarator}`, without the `;`.
    fn declaration(&mut self) -> Result<Decl> {
        let is_shared = self.eat_keyword(Keyword::Shared);
        let ty = self.base_type()?;
        let mut declarators = Vec::new();
        loop {
            declarators.push(self.declarator()?);
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        Ok(Decl { is_shared, ty, declarators })
    }

    fn declarator(&mut self) -> Result<Declarator> {
        let pointer = self.pointer()?;
        let name = self.ident()?;
        let mut dims = Vec::new();
        while self.eat(Punct::LBracket) {
            if self.at(Punct::RBracket) {
                return Err(Error::unsupported(self.span(), "arrays without a size are not supported"));
            }
            dims.push(self.expression()?);
            self.expect(Punct::RBracket)?;
        }
        let init = if self.eat(Punct::Assign) {
            Some(Init::Assign(self.assignment()?))
        } else if self.at(Punct::LParen) {
            let open = self.span();
            let (args, close) = self.arguments()?;
            Some(Init::Construct(args, open.to(close)))
        } else {
            None
        };
        Ok(Declarator { name, pointer, dims, init })
    }

    fn condition(&mut self, keyword: &str) -> Result<crate::ast::Expr> {
        if !self.eat(Punct::LParen) {
            return Err(Error::syntax(self.span(), format!("expected '(' after '{keyword}'")));
        }
        let cond = self.expression()?;
        self.expect(Punct::RParen)?;
        Ok(cond)
    }

    fn if_statement(&mut self) -> Result<StmtKind> {
        self.bump();
        let cond = self.condition("if")?;
        let then = Box::new(self.statement()?);
        let otherwise = if self.eat_keyword(Keyword::Else) { Some(Box::new(self.statement()?)) } else { None };
        Ok(StmtKind::If { cond, then, otherwise })
    }

    fn while_statement(&mut self) -> Result<StmtKind> {
        self.bump();
        let cond = self.condition("while")?;
        let body = Box::new(self.statement()?);
        Ok(StmtKind::While { cond, body })
    }

    fn for_statement(&mut self) -> Result<StmtKind> {
        self.bump();
        if !self.eat(Punct::LParen) {
            return Err(Error::syntax(self.span(), "expected '(' after 'for'"));
        }
        let init = self.for_init()?;
        let cond = if self.at(Punct::Semi) { None } else { Some(self.expression()?) };
        self.for_semi()?;
        let step = if self.at(Punct::RParen) { None } else { Some(self.expression()?) };
        self.expect(Punct::RParen)?;
        let body = Box::new(self.statement()?);
        Ok(StmtKind::For { init, cond, step, body })
    }

    fn for_init(&mut self) -> Result<Option<Box<Stmt>>> {
        let start = self.span();
        let kind = if self.eat(Punct::Semi) {
            return Ok(None);
        } else if self.at_type() || self.at_keyword(Keyword::Shared) {
            StmtKind::Decl(self.declaration()?)
        } else {
            StmtKind::Expr(self.expression()?)
        };
        let span = start.to(self.previous_end());
        self.for_semi()?;
        Ok(Some(Box::new(Stmt { kind, span })))
    }

    fn for_semi(&mut self) -> Result<()> {
        if self.eat(Punct::Semi) {
            return Ok(());
        }
        Err(Error::syntax(self.span(), "expected ';' in 'for' statement specifier"))
    }

    /// `kernel<<<grid, block[, shared_bytes]>>>(args);`
    fn launch(&mut self) -> Result<StmtKind> {
        let kernel = self.ident()?;
        self.bump();
        let grid = self.assignment()?;
        self.expect(Punct::Comma)?;
        let block = self.assignment()?;
        let shared_bytes = if self.eat(Punct::Comma) { Some(self.assignment()?) } else { None };
        if self.at(Punct::Comma) {
            return Err(Error::unsupported(self.span(), "launches on streams are not supported"));
        }
        self.expect(Punct::LaunchClose)?;
        let (args, close) = self.arguments()?;
        self.expect_semi("after expression")?;
        Ok(StmtKind::Launch(Launch { kernel, grid, block, shared_bytes, args, close }))
    }

    /// `( [expr {, expr}] )`: the arguments and the closing parenthesis.
    pub(super) fn arguments(&mut self) -> Result<(Vec<crate::ast::Expr>, Span)> {
        self.expect(Punct::LParen)?;
        let mut args = Vec::new();
        if !self.at(Punct::RParen) {
            loop {
                args.push(self.assignment()?);
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
        }
        let close = self.expect(Punct::RParen)?;
        Ok((args, close))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::parse_error;

    #[test]
    fn statement_errors_are_where_clang_puts_them() {
        assert_eq!(parse_error("void host() { if x) {} }"), "k.cu:1:18: error: expected '(' after 'if'");
        assert_eq!(
            parse_error("void host() { for (int i = 0, i < 3; i++) {} }"),
            "k.cu:1:33: error: expected ';' in 'for' statement specifier"
        );
        assert_eq!(parse_error("void host() {\n  break\n}"), "k.cu:2:8: error: expected ';' after break statement");
        assert_eq!(parse_error("void host() { int x"), "k.cu:1:20: error: expected ';' at end of declaration");
        assert_eq!(parse_error("void host() { x = 1; "), "k.cu:1:22: error: expected '}'");
    }
}
