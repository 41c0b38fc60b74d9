//! The recursive-descent parser: tokens to the syntax tree of [`crate::ast`].
//! One file per level of the grammar (`item.rs` functions and types,
//! `stmt.rs` statements, `expr.rs` expressions); this one holds the cursor
//! and the nesting guard that keeps recursion bounded on any input.

mod expr;
mod item;
mod stmt;

use crate::MAX_NESTING_DEPTH;
use crate::ast::TranslationUnit;
use crate::diagnostic::{Error, Result, Span};
use crate::token::{Keyword, Punct, Tok, Token, spelling};

/// Parses a whole file.
pub(crate) fn parse(tokens: Vec<Token>) -> Result<TranslationUnit> {
    let mut parser = Parser { tokens, pos: 0, depth: 0 };
    let mut functions = Vec::new();
    while parser.peek() != &Tok::Eof {
        functions.push(parser.function()?);
    }
    Ok(TranslationUnit { functions })
}

struct Parser {
    /// Ends with one [`Tok::Eof`], which the cursor never passes.
    tokens: Vec<Token>,
    pos: usize,
    /// How deeply statements, parentheses and prefix operators nest here.
    depth: usize,
}

impl Parser {
    fn current(&self) -> &Token {
        // Invariant: `pos` never passes the final `Eof`.
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn peek(&self) -> &Tok {
        &self.current().kind
    }

    fn peek_at(&self, ahead: usize) -> &Tok {
        let last = self.tokens.len() - 1;
        &self.tokens[(self.pos + ahead).min(last)].kind
    }

    fn span(&self) -> Span {
        self.current().span
    }

    /// The end of the token before the cursor: where clang reports a
    /// missing `;`.
    fn previous_end(&self) -> Span {
        let end = self.pos.checked_sub(1).map_or(0, |i| self.tokens[i].span.end);
        Span::point(end)
    }

    fn bump(&mut self) -> Token {
        let token = self.current().clone();
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
        token
    }

    fn at(&self, punct: Punct) -> bool {
        self.peek() == &Tok::Punct(punct)
    }

    fn at_keyword(&self, keyword: Keyword) -> bool {
        self.peek() == &Tok::Keyword(keyword)
    }

    fn eat(&mut self, punct: Punct) -> bool {
        let found = self.at(punct);
        if found {
            self.bump();
        }
        found
    }

    fn eat_keyword(&mut self, keyword: Keyword) -> bool {
        let found = self.at_keyword(keyword);
        if found {
            self.bump();
        }
        found
    }

    /// Takes `punct` or reports `expected 'punct'` at the token found.
    fn expect(&mut self, punct: Punct) -> Result<Span> {
        if self.at(punct) {
            return Ok(self.bump().span);
        }
        Err(Error::syntax(self.span(), format!("expected '{}'", spelling(punct))))
    }

    /// Takes the `;` ending a statement, or reports it missing just after
    /// the statement's last token, as clang does (`what`: "after expression",
    /// "at end of declaration", ...).
    fn expect_semi(&mut self, what: &str) -> Result<()> {
        if self.eat(Punct::Semi) {
            return Ok(());
        }
        Err(Error::syntax(self.previous_end(), format!("expected ';' {what}")))
    }

    fn ident(&mut self) -> Result<crate::ast::Ident> {
        match self.peek() {
            Tok::Ident(name) => {
                let name = name.clone();
                let span = self.bump().span;
                Ok(crate::ast::Ident { name, span })
            }
            _ => Err(Error::syntax(self.span(), "expected identifier")),
        }
    }

    /// Goes one nesting level deeper, refusing past [`MAX_NESTING_DEPTH`];
    /// the caller restores the depth.
    fn deeper(&mut self) -> Result<()> {
        if self.depth >= MAX_NESTING_DEPTH {
            return Err(Error::limit(
                self.span(),
                format!("nesting deeper than {MAX_NESTING_DEPTH} levels is not supported"),
            ));
        }
        self.depth += 1;
        Ok(())
    }

    /// Runs `parse` one nesting level deeper, refusing past
    /// [`MAX_NESTING_DEPTH`] so that no input can exhaust the stack.
    fn nested<T>(&mut self, parse: impl FnOnce(&mut Parser) -> Result<T>) -> Result<T> {
        self.deeper()?;
        let result = parse(self);
        self.depth -= 1;
        result
    }
}

#[cfg(test)]
mod tests {
    use crate::diagnostic::Diagnostic;

    /// Parses `source` and returns the first error's headline.
    pub(super) fn parse_error(source: &str) -> String {
        let tokens = crate::lexer::lex(source).expect("lexes");
        let error = super::parse(tokens).expect_err("a syntax error");
        Diagnostic::new("k.cu", source, error).headline()
    }

    #[test]
    fn missing_semicolon_is_after_the_last_token() {
        assert_eq!(
            parse_error("void host() {\n  int x = 1\n  x = 2;\n}"),
            "k.cu:2:12: error: expected ';' at end of declaration"
        );
        assert_eq!(parse_error("void host() { return 1 }"), "k.cu:1:23: error: expected ';' after return statement");
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = format!("void host() {{ int x = {}1{}; }}", "(".repeat(200), ")".repeat(200));
        assert!(parse_error(&deep).ends_with("nesting deeper than 64 levels is not supported"));
    }
}
