//! What only `void host()` may do: allocate device arrays with their
//! initial contents, build `dim3` shapes and launch kernels.

use super::call::{ARRAY_INITS, check_count};
use super::convert::Context;
use super::{FunctionChecker, resolve_type};
use crate::ast::{self, ExprKind as Ast, FunctionKind};
use crate::diagnostic::{Error, Result, Span};
use crate::typed::{ArrayInit, Expr, ExprKind, Launch};
use crate::types::{Pointer, Scalar, Space, Type};

impl FunctionChecker<'_> {
    /// `device_array<T>(n[, init])`: a new global array of `n` elements.
    pub(super) fn device_array(
        &mut self,
        elem: &ast::TypeSpec,
        args: &[ast::Expr],
        close: Span,
        span: Span,
    ) -> Result<Expr> {
        let elem = match resolve_type(elem, elem.pointer)? {
            (Type::Scalar(scalar @ (Scalar::Int | Scalar::Unsigned | Scalar::Float)), _) => scalar,
            (ty, _) => {
                let message = format!("device_array<{ty}> is not supported; use int, unsigned or float");
                return Err(Error::unsupported(elem.span, message));
            }
        };
        if args.is_empty() {
            return Err(Error::types(close, "too few arguments to function call, expected at least 1, have 0"));
        }
        if let Some(extra) = args.get(2) {
            let message = format!("too many arguments to function call, expected at most 2, have {}", args.len());
            return Err(Error::types(extra.span, message));
        }
        let length = self.expr(&args[0])?;
        let length = match length.ty {
            Type::Scalar(scalar) if scalar.is_integer() => self.implicit(length, Scalar::Unsigned),
            ty => {
                let message = format!("the length of a device_array must be an integer, not '{ty}'");
                return Err(Error::types(length.span, message));
            }
        };
        let init = match args.get(1) {
            Some(init) => self.array_init(init, elem)?,
            None => ArrayInit::Zeros,
        };
        let ty = Type::Pointer(Pointer { elem, is_const: false, space: Space::Global });
        Ok(Expr { kind: ExprKind::DeviceArray { elem, length: Box::new(length), init }, ty, span })
    }

    fn array_init(&mut self, init: &ast::Expr, elem: Scalar) -> Result<ArrayInit> {
        let Ast::Call { callee, args, close } = &init.kind else {
            return Err(bad_init(init.span));
        };
        let name = callee.name.as_str();
        if !ARRAY_INITS.contains(&name) || self.lookup(name).is_some() {
            return Err(bad_init(init.span));
        }
        let float = Type::Scalar(Scalar::Float);
        let int = Type::Scalar(Scalar::Int);
        let values = |this: &mut Self, params: &[Type]| -> Result<Vec<Box<Expr>>> {
            Ok(this.arguments(params, args, *close)?.into_iter().map(Box::new).collect())
        };
        Ok(match name {
            "zeros" => {
                check_count(0, args, *close)?;
                ArrayInit::Zeros
            }
            "iota" => {
                check_count(0, args, *close)?;
                ArrayInit::Iota
            }
            "fill" => {
                let mut v = values(self, &[Type::Scalar(elem)])?;
                ArrayInit::Fill(v.remove(0))
            }
            "uniform" if elem != Scalar::Float => {
                let message = format!("uniform(lo, hi) gives floats; use randint(lo, hi) for an array of '{elem}'");
                return Err(Error::types(callee.span, message));
            }
            "uniform" => {
                let mut v = values(self, &[float, float])?;
                let lo = v.remove(0);
                ArrayInit::Uniform(lo, v.remove(0))
            }
            _ => {
                let mut v = values(self, &[int, int])?;
                let lo = v.remove(0);
                ArrayInit::RandInt(lo, v.remove(0))
            }
        })
    }

    /// `dim3(x[, y[, z]])`: each size an `unsigned int`, 1 when left out.
    pub(super) fn dim3_of(&mut self, args: &[ast::Expr], span: Span) -> Result<Expr> {
        if !self.in_host() {
            return Err(Error::unsupported(span, "'dim3' is only available in host code"));
        }
        if let Some(extra) = args.get(3) {
            let message = format!("too many arguments to function call, expected at most 3, have {}", args.len());
            return Err(Error::types(extra.span, message));
        }
        let mut sizes = Vec::new();
        for arg in args {
            let size = self.expr(arg)?;
            match size.ty {
                Type::Scalar(scalar) if scalar.is_integer() => sizes.push(self.implicit(size, Scalar::Unsigned)),
                ty => return Err(Error::types(size.span, format!("dim3 sizes must be integers, not '{ty}'"))),
            }
        }
        while sizes.len() < 3 {
            sizes.push(Self::unsigned_constant(1, span));
        }
        let [x, y, z]: [Expr; 3] = sizes.try_into().map_err(|_| Error::syntax(span, "dim3 takes three sizes"))?;
        Ok(Expr { kind: ExprKind::Dim3(Box::new([x, y, z])), ty: Type::Dim3, span })
    }

    /// `kernel<<<grid, block[, shared_bytes]>>>(args)`.
    pub(super) fn launch(&mut self, launch: &ast::Launch) -> Result<Launch> {
        let name = &launch.kernel.name;
        if !self.in_host() {
            return Err(Error::unsupported(
                launch.kernel.span,
                "kernel launches are only supported in host(); device-side launches are not",
            ));
        }
        let kernel = match self.names.get(name) {
            Some(&id) if self.lookup(name).is_none() => id,
            _ => return Err(Error::unknown(launch.kernel.span, format!("use of undeclared identifier '{name}'"))),
        };
        // Invariant: every id in `names` has its signature.
        let signature = &self.signatures[kernel.0 as usize];
        if signature.kind != FunctionKind::Kernel {
            return Err(Error::types(launch.kernel.span, format!("'{name}' is not a '__global__' kernel")));
        }
        let params = signature.params.clone();
        let grid = self.launch_shape(&launch.grid)?;
        let block = self.launch_shape(&launch.block)?;
        let shared_bytes = match &launch.shared_bytes {
            Some(bytes) => {
                let bytes = self.expr(bytes)?;
                Some(self.convert(bytes, Type::Scalar(Scalar::Unsigned), Context::Argument)?)
            }
            None => None,
        };
        let args = self.arguments(&params, &launch.args, launch.close)?;
        Ok(Launch { kernel, grid, block, shared_bytes, args })
    }

    /// A grid or block: a `dim3`, or an integer for a one-dimensional shape.
    fn launch_shape(&mut self, shape: &ast::Expr) -> Result<Expr> {
        let value = self.expr(shape)?;
        match value.ty {
            Type::Dim3 => Ok(value),
            Type::Scalar(scalar) if scalar.is_integer() => {
                let span = value.span;
                let x = self.implicit(value, Scalar::Unsigned);
                let one = || Self::unsigned_constant(1, span);
                Ok(Expr { kind: ExprKind::Dim3(Box::new([x, one(), one()])), ty: Type::Dim3, span })
            }
            ty => {
                let message = format!("a launch's grid and block must be 'dim3' or integers, not '{ty}'");
                Err(Error::types(value.span, message))
            }
        }
    }
}

fn bad_init(span: Span) -> Error {
    Error::types(
        span,
        "the second argument of device_array must be zeros(), iota(), fill(v), uniform(lo, hi) or randint(lo, hi)",
    )
}
