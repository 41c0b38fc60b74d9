//! Top-level items and written types: `__global__` kernels, `__device__`
//! functions, `void host()`, and type specifiers such as
//! `const float *__restrict__`.

use super::Parser;
use crate::ast::{BaseType, FunctionDef, FunctionKind, Param, PointerSpec, TypeSpec};
use crate::diagnostic::{Error, Result};
use crate::token::{Keyword, Punct, Tok};
use crate::types::Scalar;

impl Parser {
    /// One function definition.
    pub(super) fn function(&mut self) -> Result<FunctionDef> {
        let start = self.span();
        let mut qualifier = None;
        loop {
            match self.peek() {
                Tok::Keyword(Keyword::Global) => qualifier = Some(FunctionKind::Kernel),
                Tok::Keyword(Keyword::Device) => qualifier = Some(FunctionKind::Device),
                Tok::Keyword(Keyword::Inline) => {}
                Tok::Keyword(Keyword::Shared) => {
                    return Err(Error::unsupported(
                        self.span(),
                        "'__shared__' variables must be declared inside a kernel",
                    ));
                }
                _ => break,
            }
            self.bump();
        }
        let return_type = self.type_spec()?;
        let name = self.ident()?;
        if !self.at(Punct::LParen) {
            return Err(Error::unsupported(
                name.span,
                "global variables are not supported; use '#define' for constants or pass values as parameters",
            ));
        }
        let params = self.params()?;
        if self.at(Punct::Semi) {
            return Err(Error::unsupported(
                self.span(),
                "function declarations without a body are not supported; define the function before its first use",
            ));
        }
        let kind = match qualifier {
            Some(kind) if name.name != "host" => kind,
            None if name.name == "host" => FunctionKind::Host,
            Some(_) => return Err(Error::syntax(name.span, "'host' must be declared 'void host()'")),
            None => {
                return Err(Error::unsupported(
                    name.span,
                    format!(
                        "function '{}' needs '__global__' or '__device__'; host code goes in 'void host()'",
                        name.name
                    ),
                ));
            }
        };
        let body = self.block()?;
        let span = start.to(body.span);
        Ok(FunctionDef { kind, return_type, name, params, body, span })
    }

    /// `(type name, ...)`, `()` or `(void)`.
    fn params(&mut self) -> Result<Vec<Param>> {
        self.expect(Punct::LParen)?;
        let mut params = Vec::new();
        if self.at_keyword(Keyword::Void) && self.peek_at(1) == &Tok::Punct(Punct::RParen) {
            self.bump();
        }
        if self.eat(Punct::RParen) {
            return Ok(params);
        }
        loop {
            let ty = self.type_spec()?;
            let name = self.ident()?;
            if self.at(Punct::LBracket) {
                return Err(Error::unsupported(self.span(), "array parameters are not supported; use a pointer"));
            }
            params.push(Param { ty, name });
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect(Punct::RParen)?;
        Ok(params)
    }

    /// Whether the cursor is at the start of a type (a declaration or a cast).
    pub(super) fn at_type(&self) -> bool {
        starts_type(self.peek())
    }

    /// A full type: base type then an optional `*`.
    pub(super) fn type_spec(&mut self) -> Result<TypeSpec> {
        let mut spec = self.base_type()?;
        spec.pointer = self.pointer()?;
        if let Some(pointer) = spec.pointer {
            spec.span = spec.span.to(pointer.span);
        }
        Ok(spec)
    }

    /// `[const] base [const]`, without any `*`.
    pub(super) fn base_type(&mut self) -> Result<TypeSpec> {
        let start = self.span();
        let mut is_const = self.eat_keyword(Keyword::Const);
        let base = match self.peek() {
            Tok::Keyword(Keyword::Void) => BaseType::Void,
            Tok::Keyword(Keyword::Int) => BaseType::Scalar(Scalar::Int),
            Tok::Keyword(Keyword::Unsigned) => BaseType::Scalar(Scalar::Unsigned),
            Tok::Keyword(Keyword::Float) => BaseType::Scalar(Scalar::Float),
            Tok::Keyword(Keyword::Bool) => BaseType::Scalar(Scalar::Bool),
            Tok::Keyword(Keyword::Dim3) => BaseType::Dim3,
            Tok::Ident(name) => {
                return Err(Error::unknown(self.span(), format!("unknown type name '{name}'")));
            }
            _ => return Err(Error::syntax(self.span(), "expected a type")),
        };
        let mut end = self.bump().span;
        if base == BaseType::Scalar(Scalar::Unsigned) && self.at_keyword(Keyword::Int) {
            end = self.bump().span;
        }
        if self.at_keyword(Keyword::Const) {
            is_const = true;
            end = self.bump().span;
        }
        Ok(TypeSpec { base, is_const, pointer: None, span: start.to(end) })
    }

    /// `* [const] [__restrict__]`, if present. A second `*` is refused.
    pub(super) fn pointer(&mut self) -> Result<Option<PointerSpec>> {
        if !self.at(Punct::Star) {
            return Ok(None);
        }
        let mut span = self.bump().span;
        let mut is_const = false;
        loop {
            if self.at_keyword(Keyword::Const) {
                is_const = true;
            } else if !self.at_keyword(Keyword::Restrict) {
                break;
            }
            span = span.to(self.bump().span);
        }
        if self.at(Punct::Star) {
            return Err(Error::unsupported(self.span(), "pointers to pointers are not supported"));
        }
        Ok(Some(PointerSpec { is_const, span }))
    }
}

/// Whether `tok` can start a type.
pub(super) fn starts_type(tok: &Tok) -> bool {
    matches!(
        tok,
        Tok::Keyword(
            Keyword::Const
                | Keyword::Void
                | Keyword::Int
                | Keyword::Unsigned
                | Keyword::Float
                | Keyword::Bool
                | Keyword::Dim3
        )
    )
}

#[cfg(test)]
mod tests {
    use super::super::tests::parse_error;

    #[test]
    fn top_level_mistakes_are_named() {
        assert_eq!(
            parse_error("int n = 4;"),
            "k.cu:1:5: error: global variables are not supported; use '#define' for constants or pass values as parameters"
        );
        assert_eq!(
            parse_error("void helper() {}"),
            "k.cu:1:6: error: function 'helper' needs '__global__' or '__device__'; host code goes in 'void host()'"
        );
        assert_eq!(
            parse_error("__device__ float f(float x);"),
            "k.cu:1:28: error: function declarations without a body are not supported; define the function before its first use"
        );
        assert_eq!(
            parse_error("__global__ void k(float **p) {}"),
            "k.cu:1:26: error: pointers to pointers are not supported"
        );
        assert_eq!(parse_error("__global__ void k(size_t n) {}"), "k.cu:1:19: error: unknown type name 'size_t'");
    }
}
