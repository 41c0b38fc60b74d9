//! Calls: `__device__` functions (never recursive, since they are inlined),
//! the builtins, and argument lists with clang's count messages.

use super::convert::Context;
use super::{Binding, FunctionChecker, Signature};
use crate::ast::{self, FunctionKind};
use crate::diagnostic::{Error, Result, Span};
use crate::typed::{Builtin, Expr, ExprKind};
use crate::types::{Pointer, Scalar, Type};

/// The builtin called `name`, if there is one.
pub(super) fn builtin_named(name: &str) -> Option<Builtin> {
    Some(match name {
        "__syncthreads" => Builtin::SyncThreads,
        "atomicAdd" => Builtin::AtomicAdd,
        "atomicMax" => Builtin::AtomicMax,
        "atomicCAS" => Builtin::AtomicCas,
        "sqrtf" => Builtin::Sqrtf,
        "expf" => Builtin::Expf,
        "sinf" => Builtin::Sinf,
        "fabsf" => Builtin::Fabsf,
        "__fdividef" => Builtin::Fdividef,
        "min" => Builtin::Min,
        "max" => Builtin::Max,
        _ => return None,
    })
}

/// A call as written.
#[derive(Clone, Copy)]
pub(super) struct CallSite<'a> {
    pub callee: &'a ast::Ident,
    pub args: &'a [ast::Expr],
    /// The closing parenthesis, where too few arguments are reported.
    pub close: Span,
    /// The whole call.
    pub span: Span,
}

/// The initializers `device_array`'s second argument may be.
pub(super) const ARRAY_INITS: [&str; 5] = ["zeros", "iota", "fill", "uniform", "randint"];

impl FunctionChecker<'_> {
    pub(super) fn call(&mut self, site: CallSite<'_>) -> Result<Expr> {
        let CallSite { callee, args, close, span } = site;
        let name = callee.name.as_str();
        if let Some(Binding::Var(id)) = self.lookup(name) {
            let ty = self.variable(id).ty;
            return Err(Error::types(callee.span, format!("called object type '{ty}' is not a function")));
        }
        if let Some(builtin) = builtin_named(name) {
            return self.builtin(builtin, site);
        }
        if ARRAY_INITS.contains(&name) {
            return Err(Error::types(
                callee.span,
                format!("'{name}()' is only valid as the second argument of device_array<T>(n, init)"),
            ));
        }
        let Some(&id) = self.names.get(name) else {
            return Err(unknown_function(callee));
        };
        // Invariant: every id in `names` has its signature.
        let signature: &Signature = &self.signatures[id.0 as usize];
        match signature.kind {
            FunctionKind::Kernel => {
                return Err(Error::types(
                    callee.span,
                    format!("kernel '{name}' must be launched as {name}<<<grid, block>>>(...) from host()"),
                ));
            }
            FunctionKind::Host => return Err(Error::types(callee.span, "'host' cannot be called")),
            FunctionKind::Device if self.in_host() => {
                let message = format!("'__device__' function '{name}' cannot be called from host code");
                return Err(Error::types(callee.span, message));
            }
            FunctionKind::Device => {}
        }
        if id == self.this {
            return Err(Error::unsupported(
                callee.span,
                format!("recursive call to '{name}' is not supported: '__device__' functions are inlined"),
            ));
        }
        let params = signature.params.clone();
        let return_type = signature.return_type;
        let args = self.arguments(&params, args, close)?;
        Ok(Expr { kind: ExprKind::Call { function: id, args }, ty: return_type, span })
    }

    /// Each argument converted to its parameter's type.
    pub(super) fn arguments(&mut self, params: &[Type], args: &[ast::Expr], close: Span) -> Result<Vec<Expr>> {
        check_count(params.len(), args, close)?;
        params
            .iter()
            .zip(args)
            .map(|(&param, arg)| {
                let value = self.expr(arg)?;
                self.convert(value, param, Context::Argument)
            })
            .collect()
    }

    fn builtin(&mut self, builtin: Builtin, site: CallSite<'_>) -> Result<Expr> {
        let CallSite { callee, args, close, span } = site;
        let name = callee.name.as_str();
        let float = Type::Scalar(Scalar::Float);
        let (args, ty) = match builtin {
            Builtin::SyncThreads | Builtin::AtomicAdd | Builtin::AtomicMax | Builtin::AtomicCas if self.in_host() => {
                return Err(Error::types(callee.span, format!("'{name}' is only available in device code")));
            }
            Builtin::SyncThreads => (self.arguments(&[], args, close)?, Type::Void),
            Builtin::Sqrtf | Builtin::Expf | Builtin::Sinf | Builtin::Fabsf => {
                (self.arguments(&[float], args, close)?, float)
            }
            Builtin::Fdividef => (self.arguments(&[float, float], args, close)?, float),
            Builtin::Min | Builtin::Max => return self.min_max(builtin, site),
            Builtin::AtomicAdd | Builtin::AtomicMax | Builtin::AtomicCas => return self.atomic(builtin, site),
        };
        Ok(Expr { kind: ExprKind::Builtin { builtin, args }, ty, span })
    }

    /// `min`/`max` in the common type of their operands, as CUDA's
    /// overloads for `int`, `unsigned int` and `float` give.
    fn min_max(&mut self, builtin: Builtin, site: CallSite<'_>) -> Result<Expr> {
        let CallSite { callee, args, close, span } = site;
        check_count(2, args, close)?;
        let a = self.expr(&args[0])?;
        let b = self.expr(&args[1])?;
        let (Type::Scalar(x), Type::Scalar(y)) = (a.ty, b.ty) else {
            return Err(Error::types(
                callee.span,
                format!(
                    "no matching function for call to '{}' with arguments of type '{}' and '{}'",
                    callee.name, a.ty, b.ty
                ),
            ));
        };
        let common = x.common(y);
        let args = vec![self.implicit(a, common), self.implicit(b, common)];
        Ok(Expr { kind: ExprKind::Builtin { builtin, args }, ty: Type::Scalar(common), span })
    }

    /// `atomicAdd(p, v)`, `atomicMax(p, v)`, `atomicCAS(p, compare, v)` on
    /// global or shared memory.
    fn atomic(&mut self, builtin: Builtin, site: CallSite<'_>) -> Result<Expr> {
        let CallSite { callee, args, close, span } = site;
        let name = callee.name.as_str();
        let n_values = if builtin == Builtin::AtomicCas { 2 } else { 1 };
        check_count(1 + n_values, args, close)?;
        let pointer = self.expr(&args[0])?;
        let Type::Pointer(Pointer { elem, is_const, .. }) = pointer.ty else {
            let message = format!("the first argument of '{name}' must be a pointer, not '{}'", pointer.ty);
            return Err(Error::types(pointer.span, message));
        };
        if is_const {
            return Err(Error::types(pointer.span, format!("the first argument of '{name}' points to const memory")));
        }
        if elem == Scalar::Float && builtin != Builtin::AtomicAdd {
            return Err(Error::unsupported(callee.span, format!("'{name}' on 'float' is not supported")));
        }
        let mut typed = vec![pointer];
        for arg in &args[1..] {
            let value = self.expr(arg)?;
            typed.push(self.convert(value, Type::Scalar(elem), Context::Argument)?);
        }
        Ok(Expr { kind: ExprKind::Builtin { builtin, args: typed }, ty: Type::Scalar(elem), span })
    }
}

/// clang's messages for a wrong number of arguments: too few at the closing
/// parenthesis, too many at the first extra argument.
pub(super) fn check_count(expected: usize, args: &[ast::Expr], close: Span) -> Result<()> {
    let have = args.len();
    if have < expected {
        let message = format!("too few arguments to function call, expected {expected}, have {have}");
        return Err(Error::types(close, message));
    }
    if let Some(extra) = args.get(expected) {
        let message = format!("too many arguments to function call, expected {expected}, have {have}");
        return Err(Error::types(extra.span, message));
    }
    Ok(())
}

fn unknown_function(callee: &ast::Ident) -> Error {
    let name = callee.name.as_str();
    if name.starts_with("cuda") {
        return Error::unsupported(
            callee.span,
            format!("CUDA runtime calls such as '{name}' are not supported; allocate with device_array<T>(n)"),
        );
    }
    if matches!(name, "printf" | "assert") {
        return Error::unsupported(callee.span, format!("'{name}' is not supported"));
    }
    Error::unknown(callee.span, format!("use of undeclared identifier '{name}'"))
}
