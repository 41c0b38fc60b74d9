//! Statements and declarations: scopes, loops, returns, `__shared__`
//! arrays and the shared-memory limit.

use super::convert::Context;
use super::{Binding, FunctionChecker, constant, resolve_type};
use crate::ast::{self, Decl, Declarator, ExprKind as AstExpr, FunctionKind, Init, StmtKind as Ast};
use crate::diagnostic::{Error, Result, Span};
use crate::typed::{Block, Expr, ExprKind, SharedArray, SharedId, Stmt, StmtKind, Value};
use crate::types::{Scalar, Type};

impl FunctionChecker<'_> {
    /// Checks `stmt`, appending what it becomes (a declaration of several
    /// names becomes one statement per name).
    pub(super) fn statement(&mut self, stmt: &ast::Stmt, out: &mut Vec<Stmt>) -> Result<()> {
        let span = stmt.span;
        let kind = match &stmt.kind {
            Ast::Decl(decl) => return self.declaration(decl, span, out),
            Ast::Expr(expr) => StmtKind::Expr(self.expr(expr)?),
            Ast::If { cond, then, otherwise } => {
                let cond = self.condition(cond)?;
                let then = self.sub_block(then)?;
                let otherwise = otherwise.as_deref().map(|s| self.sub_block(s)).transpose()?;
                StmtKind::If { cond, then, otherwise }
            }
            Ast::For { init, cond, step, body } => {
                self.in_scope(|this| this.for_loop(init.as_deref(), cond, step, body))?
            }
            Ast::While { cond, body } => {
                let cond = Some(self.condition(cond)?);
                let body = self.loop_body(body)?;
                StmtKind::Loop { init: None, cond, step: None, body }
            }
            Ast::Break if self.loops == 0 => {
                return Err(Error::types(span, "'break' statement not in loop or switch statement"));
            }
            Ast::Continue if self.loops == 0 => {
                return Err(Error::types(span, "'continue' statement not in loop statement"));
            }
            Ast::Break => StmtKind::Break,
            Ast::Continue => StmtKind::Continue,
            Ast::Return(value) => StmtKind::Return(self.return_value(value.as_ref(), span)?),
            Ast::Block(block) => StmtKind::Block(self.block(block)?),
            Ast::Empty => return Ok(()),
            Ast::Launch(launch) => StmtKind::Launch(self.launch(launch)?),
        };
        out.push(Stmt { kind, span });
        Ok(())
    }

    /// A block in its own scope.
    fn block(&mut self, block: &ast::Block) -> Result<Block> {
        self.in_scope(|this| {
            let mut stmts = Vec::new();
            for stmt in &block.stmts {
                this.statement(stmt, &mut stmts)?;
            }
            Ok(Block { stmts, span: block.span })
        })
    }

    /// The statement under an `if`, `else` or loop, as a block in its own
    /// scope (C++ gives a lone statement there a scope of its own).
    fn sub_block(&mut self, stmt: &ast::Stmt) -> Result<Block> {
        if let Ast::Block(block) = &stmt.kind {
            return self.block(block);
        }
        self.in_scope(|this| {
            let mut stmts = Vec::new();
            this.statement(stmt, &mut stmts)?;
            Ok(Block { stmts, span: stmt.span })
        })
    }

    fn loop_body(&mut self, body: &ast::Stmt) -> Result<Block> {
        self.loops += 1;
        let body = self.sub_block(body);
        self.loops -= 1;
        body
    }

    fn for_loop(
        &mut self,
        init: Option<&ast::Stmt>,
        cond: &Option<ast::Expr>,
        step: &Option<ast::Expr>,
        body: &ast::Stmt,
    ) -> Result<StmtKind> {
        let init = match init {
            Some(stmt) => {
                let mut stmts = Vec::new();
                self.statement(stmt, &mut stmts)?;
                // Several declarators become a block that does not open a scope
                // of its own in the lowering; one stays as it is.
                match stmts.len() {
                    1 => stmts.pop().map(Box::new),
                    _ => Some(Box::new(Stmt {
                        kind: StmtKind::Block(Block { stmts, span: stmt.span }),
                        span: stmt.span,
                    })),
                }
            }
            None => None,
        };
        let cond = cond.as_ref().map(|c| self.condition(c)).transpose()?;
        let step = step.as_ref().map(|s| self.expr(s)).transpose()?;
        let body = self.loop_body(body)?;
        Ok(StmtKind::Loop { init, cond, step, body })
    }

    fn return_value(&mut self, value: Option<&ast::Expr>, span: Span) -> Result<Option<Expr>> {
        let at_return = Span::point(span.start);
        match (value, self.return_type) {
            (None, Type::Void) => Ok(None),
            (Some(_), Type::Void) => {
                Err(Error::types(at_return, format!("void function '{}' should not return a value", self.name)))
            }
            (None, _) => {
                Err(Error::types(at_return, format!("non-void function '{}' should return a value", self.name)))
            }
            (Some(value), ty) => {
                let value = self.expr(value)?;
                Ok(Some(self.convert(value, ty, Context::Return)?))
            }
        }
    }

    fn declaration(&mut self, decl: &Decl, span: Span, out: &mut Vec<Stmt>) -> Result<()> {
        for declarator in &decl.declarators {
            let kind = if decl.is_shared {
                StmtKind::Shared(self.shared_declaration(decl, declarator)?)
            } else {
                self.variable_declaration(decl, declarator)?
            };
            out.push(Stmt { kind, span });
        }
        Ok(())
    }

    fn variable_declaration(&mut self, decl: &Decl, declarator: &Declarator) -> Result<StmtKind> {
        let name = &declarator.name;
        if !declarator.dims.is_empty() {
            return Err(Error::unsupported(name.span, "local arrays are not supported; use a '__shared__' array"));
        }
        let (ty, is_const) = resolve_type(&decl.ty, declarator.pointer)?;
        match ty {
            Type::Void => return Err(Error::types(name.span, "variable has incomplete type 'void'")),
            Type::Dim3 if !self.in_host() => {
                return Err(Error::unsupported(decl.ty.span, "'dim3' is only available in host code"));
            }
            _ => {}
        }
        let init = self.initializer(declarator.init.as_ref(), ty)?;
        if init.is_none() && is_const {
            let shown = if ty.pointer().is_some() { format!("{ty} const") } else { format!("const {ty}") };
            return Err(Error::types(
                name.span,
                format!("default initialization of an object of const type '{shown}'"),
            ));
        }
        // Declared after its initializer is checked: `int x = x;` names an
        // outer `x` (or none), never the variable being made.
        let var = self.declare_variable(name, ty, is_const)?;
        Ok(StmtKind::Let { var, init })
    }

    fn initializer(&mut self, init: Option<&Init>, ty: Type) -> Result<Option<Expr>> {
        match init {
            None if ty == Type::Dim3 => Ok(Some(self.dim3_of(&[], Span::default())?)),
            None => Ok(None),
            Some(Init::Construct(args, span)) if ty == Type::Dim3 => Ok(Some(self.dim3_of(args, *span)?)),
            Some(Init::Construct(_, span)) => {
                Err(Error::unsupported(*span, "constructor-style initialization is only supported for 'dim3'"))
            }
            Some(Init::Assign(value)) => {
                let value = match &value.kind {
                    AstExpr::DeviceArray { elem, args, close } if self.in_host() => {
                        self.device_array(elem, args, *close, value.span)?
                    }
                    _ => self.expr(value)?,
                };
                Ok(Some(self.convert(value, ty, Context::Initialize)?))
            }
        }
    }

    fn shared_declaration(&mut self, decl: &Decl, declarator: &Declarator) -> Result<SharedId> {
        let name = &declarator.name;
        let unsupported = |message: &str| Err(Error::unsupported(name.span, message.to_owned()));
        if self.kind != FunctionKind::Kernel {
            return unsupported("'__shared__' arrays can only be declared in a '__global__' kernel");
        }
        if declarator.pointer.is_some() {
            return unsupported("'__shared__' pointers are not supported");
        }
        if declarator.init.is_some() {
            return unsupported("initializers on '__shared__' arrays are not supported");
        }
        if decl.ty.is_const {
            return unsupported("'const' '__shared__' arrays are not supported");
        }
        let (Type::Scalar(elem), _) = resolve_type(&decl.ty, None)? else {
            return Err(Error::unsupported(
                decl.ty.span,
                "'__shared__' arrays must be of int, unsigned, float or bool",
            ));
        };
        let dims = match declarator.dims.len() {
            0 => {
                return Err(Error::unsupported(
                    name.span,
                    format!(
                        "'__shared__' scalars are not supported; declare '{elem} {0}[1]' and use '{0}[0]'",
                        name.name
                    ),
                ));
            }
            1 | 2 => self.shared_dims(declarator)?,
            _ => return unsupported("'__shared__' arrays of more than 2 dimensions are not supported"),
        };
        let array = self.place_shared_array(name, elem, dims)?;
        let id = SharedId(u32::try_from(self.shared_arrays.len()).unwrap_or(u32::MAX));
        self.declare(name, Binding::Shared(id))?;
        self.shared_arrays.push(array);
        Ok(id)
    }

    fn shared_dims(&self, declarator: &Declarator) -> Result<Vec<u32>> {
        let name = &declarator.name.name;
        declarator
            .dims
            .iter()
            .map(|dim| match constant::evaluate(dim) {
                Some(size) if size > 0 => u32::try_from(size)
                    .map_err(|_| Error::limit(dim.span, format!("'__shared__' array '{name}' is too large"))),
                Some(_) => {
                    Err(Error::types(dim.span, format!("'__shared__' array '{name}' must have a positive size")))
                }
                None => Err(Error::types(
                    dim.span,
                    format!("size of '__shared__' array '{name}' must be an integer constant expression"),
                )),
            })
            .collect()
    }

    /// Lays the array out after the kernel's others (4-byte aligned) and
    /// checks the kernel's total against the GPU's shared memory per block.
    fn place_shared_array(&mut self, name: &ast::Ident, elem: Scalar, dims: Vec<u32>) -> Result<SharedArray> {
        let elements: u64 = dims.iter().map(|&d| u64::from(d)).product();
        let bytes = elements * u64::from(elem.size_bytes());
        let offset = u64::from(self.shared_bytes).div_ceil(4) * 4;
        let total = offset + bytes;
        let limit = self.options.shared_bytes_per_block;
        if total > u64::from(limit) {
            return Err(Error::limit(
                name.span,
                format!(
                    "the '__shared__' arrays of kernel '{}' need {total} bytes, more than the {limit} bytes of shared memory per block",
                    self.name
                ),
            ));
        }
        // Both fit in a u32: they are at most `limit`.
        self.shared_bytes = u32::try_from(total).unwrap_or(u32::MAX);
        Ok(SharedArray {
            name: name.name.clone(),
            elem,
            dims,
            bytes: u32::try_from(bytes).unwrap_or(u32::MAX),
            offset_bytes: u32::try_from(offset).unwrap_or(u32::MAX),
            span: name.span,
        })
    }

    /// A `bool` from a condition: a scalar compared with zero.
    pub(super) fn condition(&mut self, cond: &ast::Expr) -> Result<Expr> {
        let value = self.expr(cond)?;
        self.to_bool(value)
    }

    pub(super) fn to_bool(&self, value: Expr) -> Result<Expr> {
        match value.ty {
            Type::Scalar(Scalar::Bool) => Ok(value),
            Type::Scalar(_) => Ok(self.implicit(value, Scalar::Bool)),
            ty => {
                Err(Error::types(value.span, format!("value of type '{ty}' is not contextually convertible to 'bool'")))
            }
        }
    }

    /// A constant of type `unsigned int`.
    pub(super) fn unsigned_constant(value: u32, span: Span) -> Expr {
        Expr { kind: ExprKind::Const(Value::Unsigned(value)), ty: Type::Scalar(Scalar::Unsigned), span }
    }
}
