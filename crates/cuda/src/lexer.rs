//! The lexer: source text to tokens, with comments skipped and the
//! preprocessor's one supported directive, `#define NAME constant`, applied
//! as it goes (a use of `NAME` becomes the body's tokens, located at the use,
//! which is where a student looks when the expansion is wrong).

use std::collections::HashMap;

use crate::MAX_TOKENS;
use crate::diagnostic::{Error, Result, Span};
use crate::token::{Keyword, PUNCTUATORS, Punct, Tok, Token, keyword, unsupported_keyword};
use crate::types::Scalar;

/// Splits `source` into tokens, ending with one [`Tok::Eof`].
pub(crate) fn lex(source: &str) -> Result<Vec<Token>> {
    let mut lexer =
        Lexer { text: source.as_bytes(), pos: 0, line_start: true, defines: HashMap::new(), budget: MAX_TOKENS };
    let mut tokens = Vec::new();
    while let Some(token) = lexer.next_token(false)? {
        lexer.push_expanded(token, &mut tokens)?;
    }
    let end = lexer.offset();
    tokens.push(Token { kind: Tok::Eof, span: Span::point(end) });
    Ok(tokens)
}

struct Lexer<'a> {
    text: &'a [u8],
    pos: usize,
    /// Whether only blanks stand between the start of the line and `pos`,
    /// so that a `#` there starts a directive.
    line_start: bool,
    /// `#define`d names and their bodies, already expanded.
    defines: HashMap<String, Vec<Tok>>,
    /// Tokens still allowed, counting those kept in macro bodies, so nested
    /// macros cannot blow the token count up exponentially.
    budget: usize,
}

impl Lexer<'_> {
    fn offset(&self) -> u32 {
        u32::try_from(self.pos).unwrap_or(u32::MAX)
    }

    fn span_from(&self, start: usize) -> Span {
        Span::new(u32::try_from(start).unwrap_or(u32::MAX), self.offset())
    }

    fn peek_byte(&self, ahead: usize) -> u8 {
        self.text.get(self.pos + ahead).copied().unwrap_or(0)
    }

    /// Appends `token`, or the body of the macro it names, to `out`.
    fn push_expanded(&mut self, token: Token, out: &mut Vec<Token>) -> Result<()> {
        let body = match &token.kind {
            Tok::Ident(name) => self.defines.get(name).cloned(),
            _ => None,
        };
        let kinds = body.unwrap_or_else(|| vec![token.kind]);
        self.spend(kinds.len(), token.span)?;
        out.extend(kinds.into_iter().map(|kind| Token { kind, span: token.span }));
        Ok(())
    }

    fn spend(&mut self, n: usize, span: Span) -> Result<()> {
        self.budget = self.budget.checked_sub(n).ok_or_else(|| {
            Error::limit(span, format!("the program has more than {MAX_TOKENS} tokens after macro expansion"))
        })?;
        Ok(())
    }

    /// The next token, or `None` at the end of the input (or, inside a
    /// directive, at the end of its line). Directives are handled here.
    fn next_token(&mut self, in_directive: bool) -> Result<Option<Token>> {
        loop {
            self.skip_blanks(in_directive)?;
            if self.pos >= self.text.len() || (in_directive && self.peek_byte(0) == b'\n') {
                return Ok(None);
            }
            if self.peek_byte(0) == b'#' {
                if in_directive || !self.line_start {
                    return Err(Error::syntax(self.span_from(self.pos), "'#' must start a preprocessor line"));
                }
                self.directive()?;
                continue;
            }
            return self.token().map(Some);
        }
    }

    /// Skips spaces and comments (inside a directive, not past its line).
    fn skip_blanks(&mut self, in_directive: bool) -> Result<()> {
        loop {
            match (self.peek_byte(0), self.peek_byte(1)) {
                (b'\n', _) if in_directive => return Ok(()),
                (b'\n', _) => {
                    self.pos += 1;
                    self.line_start = true;
                }
                (b'\\', b'\n') if in_directive => self.pos += 2,
                (b'\\', b'\r') if in_directive && self.peek_byte(2) == b'\n' => self.pos += 3,
                (b' ' | b'\t' | b'\r' | 0x0b | 0x0c, _) => self.pos += 1,
                (b'/', b'/') => {
                    while self.pos < self.text.len() && self.peek_byte(0) != b'\n' {
                        self.pos += 1;
                    }
                }
                (b'/', b'*') => {
                    let start = self.pos;
                    let Some(len) = self.text[self.pos + 2..].windows(2).position(|w| w == b"*/") else {
                        return Err(Error::syntax(self.span_from(start), "unterminated /* comment"));
                    };
                    self.pos += len + 4;
                }
                _ => return Ok(()),
            }
        }
    }

    /// One token at `pos`, which is not a blank.
    fn token(&mut self) -> Result<Token> {
        self.line_start = false;
        let start = self.pos;
        let byte = self.peek_byte(0);
        let kind = if byte.is_ascii_alphabetic() || byte == b'_' {
            self.word(start)?
        } else if byte.is_ascii_digit() || (byte == b'.' && self.peek_byte(1).is_ascii_digit()) {
            self.number(start)?
        } else {
            self.punctuator(start)?
        };
        Ok(Token { kind, span: self.span_from(start) })
    }

    fn word(&mut self, start: usize) -> Result<Tok> {
        while self.peek_byte(0).is_ascii_alphanumeric() || self.peek_byte(0) == b'_' {
            self.pos += 1;
        }
        let word = std::str::from_utf8(&self.text[start..self.pos]).unwrap_or_default();
        if let Some(message) = unsupported_keyword(word) {
            return Err(Error::unsupported(self.span_from(start), message));
        }
        Ok(keyword(word).map_or_else(|| Tok::Ident(word.to_owned()), Tok::Keyword))
    }

    fn punctuator(&mut self, start: usize) -> Result<Tok> {
        let rest = &self.text[self.pos..];
        let known = !rest.starts_with(b"->") && !rest.starts_with(b"::");
        if let Some((text, punct)) = PUNCTUATORS.iter().find(|(text, _)| known && rest.starts_with(text.as_bytes())) {
            self.pos += text.len();
            return Ok(Tok::Punct(*punct));
        }
        let (message, len) = match rest {
            [b'-', b'>', ..] => ("'->' is not supported: the subset has no structs".to_owned(), 2),
            [b':', b':', ..] => ("'::' is not supported: the subset has no namespaces".to_owned(), 2),
            [b'"', ..] => ("string literals are not supported".to_owned(), 1),
            [b'\'', ..] => ("character literals are not supported".to_owned(), 1),
            _ => {
                let text = std::str::from_utf8(rest).ok().or_else(|| std::str::from_utf8(&rest[..1]).ok());
                let c = text.and_then(|t| t.chars().next()).unwrap_or('?');
                let shown = if c.is_control() { format!("{:#04x}", u32::from(c)) } else { c.to_string() };
                (format!("unexpected character '{shown}'"), c.len_utf8())
            }
        };
        self.pos += len.min(rest.len()).max(1);
        Err(Error::syntax(self.span_from(start), message))
    }

    /// A number: decimal, octal or hex integer with an optional `u`, or a
    /// float with the `f` suffix this subset requires.
    fn number(&mut self, start: usize) -> Result<Tok> {
        let hex = self.peek_byte(0) == b'0' && matches!(self.peek_byte(1), b'x' | b'X');
        let mut is_float = false;
        if hex {
            self.pos += 2;
            while self.peek_byte(0).is_ascii_hexdigit() {
                self.pos += 1;
            }
        } else {
            is_float = self.decimal_digits();
        }
        let digits_end = self.pos;
        while self.peek_byte(0).is_ascii_alphanumeric() || self.peek_byte(0) == b'_' {
            self.pos += 1;
        }
        let text = std::str::from_utf8(&self.text[start..self.pos]).unwrap_or_default();
        let digits = &text[..digits_end - start];
        let suffix = &text[digits_end - start..];
        let span = self.span_from(start);
        if is_float {
            float_literal(text, digits, suffix, span)
        } else {
            integer_literal(text, digits, suffix, hex, span)
        }
    }

    /// Decimal digits with an optional fraction and exponent; returns whether
    /// they make a floating constant.
    fn decimal_digits(&mut self) -> bool {
        let mut is_float = false;
        while self.peek_byte(0).is_ascii_digit() {
            self.pos += 1;
        }
        if self.peek_byte(0) == b'.' {
            is_float = true;
            self.pos += 1;
            while self.peek_byte(0).is_ascii_digit() {
                self.pos += 1;
            }
        }
        let sign = usize::from(matches!(self.peek_byte(1), b'+' | b'-'));
        if matches!(self.peek_byte(0), b'e' | b'E') && self.peek_byte(1 + sign).is_ascii_digit() {
            is_float = true;
            self.pos += 1 + sign;
            while self.peek_byte(0).is_ascii_digit() {
                self.pos += 1;
            }
        }
        is_float
    }

    /// `#define NAME body`, `#pragma` (ignored: unrolling hints change
    /// nothing in an unoptimised compiler) and errors for the rest.
    fn directive(&mut self) -> Result<()> {
        let hash = self.pos;
        self.pos += 1;
        let name = match self.next_token(true)? {
            Some(Token { kind: Tok::Ident(name), .. }) => name,
            _ => return Err(Error::syntax(self.span_from(hash), "expected a preprocessor directive after '#'")),
        };
        match name.as_str() {
            "define" => self.define(hash),
            "pragma" => {
                while self.pos < self.text.len() && self.peek_byte(0) != b'\n' {
                    self.pos += 1;
                }
                Ok(())
            }
            other => Err(Error::unsupported(
                self.span_from(hash),
                format!("'#{other}' is not supported; the only directive is '#define NAME value'"),
            )),
        }
    }

    fn define(&mut self, hash: usize) -> Result<()> {
        let (name, name_span) = match self.next_token(true)? {
            Some(Token { kind: Tok::Ident(name), span }) => (name, span),
            Some(token) => return Err(Error::syntax(token.span, "macro name must be an identifier")),
            None => return Err(Error::syntax(self.span_from(hash), "macro name missing")),
        };
        if self.peek_byte(0) == b'(' {
            return Err(Error::unsupported(
                self.span_from(self.pos),
                "function-like macros are not supported; use a '__device__' function",
            ));
        }
        if self.defines.contains_key(&name) {
            return Err(Error::syntax(name_span, format!("'{name}' macro redefined")));
        }
        let mut body = Vec::new();
        while let Some(token) = self.next_token(true)? {
            check_constant_token(&token, &self.defines)?;
            let mut expanded = Vec::new();
            self.push_expanded(token, &mut expanded)?;
            body.extend(expanded.into_iter().map(|t| t.kind));
        }
        if body.is_empty() {
            return Err(Error::syntax(name_span, format!("'#define {name}' needs a constant value")));
        }
        self.defines.insert(name, body);
        Ok(())
    }
}

/// A macro body may hold literals, operators, casts and earlier macros: it
/// must be a constant expression.
fn check_constant_token(token: &Token, defines: &HashMap<String, Vec<Tok>>) -> Result<()> {
    match &token.kind {
        Tok::Ident(name) if !defines.contains_key(name) => Err(Error::unsupported(
            token.span,
            format!("'#define' must give a constant expression; '{name}' is not a constant"),
        )),
        Tok::Punct(Punct::Semi) => Err(Error::syntax(token.span, "a '#define' value must not end in ';'")),
        Tok::Keyword(
            Keyword::True | Keyword::False | Keyword::Int | Keyword::Unsigned | Keyword::Float | Keyword::Bool,
        )
        | Tok::Ident(_)
        | Tok::Int { .. }
        | Tok::Float(_)
        | Tok::Punct(_) => Ok(()),
        _ => Err(Error::unsupported(token.span, "'#define' must give a constant expression")),
    }
}

fn float_literal(text: &str, digits: &str, suffix: &str, span: Span) -> Result<Tok> {
    match suffix {
        "f" | "F" => {}
        "" => {
            return Err(Error::unsupported(
                span,
                format!("double-precision constant '{text}' is not supported; write '{text}f'"),
            ));
        }
        _ => return Err(Error::syntax(span, format!("invalid suffix '{suffix}' on floating constant"))),
    }
    let value: f32 = digits.parse().map_err(|_| Error::syntax(span, format!("invalid floating constant '{text}'")))?;
    if value.is_infinite() {
        return Err(Error::syntax(span, format!("floating constant '{text}' is too large for 'float'")));
    }
    Ok(Tok::Float(value))
}

fn integer_literal(text: &str, digits: &str, suffix: &str, hex: bool, span: Span) -> Result<Tok> {
    let unsigned = match suffix {
        "" => false,
        "u" | "U" => true,
        s if s.contains(['l', 'L']) => {
            return Err(Error::unsupported(span, "'long' integer constants are not supported"));
        }
        _ => return Err(Error::syntax(span, format!("invalid suffix '{suffix}' on integer constant"))),
    };
    let octal = !hex && digits.len() > 1 && digits.starts_with('0');
    let (radix, body) = if hex {
        (16, &digits[2..])
    } else if octal {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    if let Some(bad) = body.chars().find(|c| !c.is_digit(radix)) {
        return Err(Error::syntax(span, format!("invalid digit '{bad}' in octal constant")));
    }
    if body.is_empty() {
        return Err(Error::syntax(span, "expected hexadecimal digits after '0x'"));
    }
    let too_large = || {
        Error::unsupported(
            span,
            format!("integer constant '{text}' does not fit in 'unsigned int' ('long' is not supported)"),
        )
    };
    let value = u64::from_str_radix(body, radix).ok().and_then(|v| u32::try_from(v).ok()).ok_or_else(too_large)?;
    let ty = if unsigned || value > i32::MAX as u32 {
        if !unsigned && radix == 10 {
            // C makes a large decimal constant a `long`, never `unsigned`.
            return Err(Error::unsupported(
                span,
                format!("integer constant '{text}' does not fit in 'int' ('long' is not supported); write '{text}u'"),
            ));
        }
        Scalar::Unsigned
    } else {
        Scalar::Int
    };
    Ok(Tok::Int { value, ty })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(source: &str) -> Vec<Tok> {
        lex(source).expect("lexes").into_iter().map(|t| t.kind).collect()
    }

    fn error(source: &str) -> (u32, String) {
        let error = lex(source).expect_err("an error");
        (error.span.start, error.message)
    }

    #[test]
    fn numbers_take_c_types() {
        let int = |value| Tok::Int { value, ty: Scalar::Int };
        let unsigned = |value| Tok::Int { value, ty: Scalar::Unsigned };
        assert_eq!(
            kinds("10 010 0x10 7u 0xffffffff"),
            [int(10), int(8), int(16), unsigned(7), unsigned(u32::MAX), Tok::Eof]
        );
        assert_eq!(
            kinds("1.5f .5f 1e3f 2.F"),
            [Tok::Float(1.5), Tok::Float(0.5), Tok::Float(1000.0), Tok::Float(2.0), Tok::Eof]
        );
    }

    #[test]
    fn longest_punctuator_wins() {
        let p = Tok::Punct;
        assert_eq!(
            kinds("<<<>>> <<= < <"),
            [p(Punct::LaunchOpen), p(Punct::LaunchClose), p(Punct::ShlAssign), p(Punct::Lt), p(Punct::Lt), Tok::Eof]
        );
    }

    #[test]
    fn defines_expand_at_their_use() {
        let tokens = lex("#define N (2 * M)\n").expect_err("M is unknown");
        assert_eq!(tokens.message, "'#define' must give a constant expression; 'M' is not a constant");
        let tokens = lex("#define M 4\n#define N (M*2)\nN").expect("lexes");
        assert_eq!(tokens.len(), 6);
        assert!(tokens[..5].iter().all(|t| t.span == Span::new(28, 29)));
    }

    #[test]
    fn bad_tokens_are_named() {
        assert_eq!(error("x = 1.0;"), (4, "double-precision constant '1.0' is not supported; write '1.0f'".to_owned()));
        assert_eq!(error("/* open"), (0, "unterminated /* comment".to_owned()));
        assert_eq!(error("a @"), (2, "unexpected character '@'".to_owned()));
        assert_eq!(error("09"), (0, "invalid digit '9' in octal constant".to_owned()));
        assert_eq!(
            error("#include <x>"),
            (0, "'#include' is not supported; the only directive is '#define NAME value'".to_owned())
        );
    }

    #[test]
    fn exponential_macros_hit_the_token_limit() {
        let mut source = String::from("#define A0 1\n");
        for i in 1..40 {
            source.push_str(&format!("#define A{i} A{} + A{}\n", i - 1, i - 1));
        }
        assert!(error(&source).1.contains("tokens after macro expansion"));
    }
}
