//! The semantic checker: the syntax tree to the typed program. It resolves
//! names (functions must be defined before use, as in C, which also makes
//! self-calls the only possible recursion), applies C's conversions, and
//! refuses what the subset does not support. `stmt.rs` checks statements and
//! declarations, `expr.rs` expressions and places, `convert.rs` implicit
//! conversions, `call.rs` calls and builtins, `host.rs` what only `host()`
//! may do, `constant.rs` array sizes.

mod call;
mod constant;
mod convert;
mod expr;
mod host;
mod stmt;

use std::collections::HashMap;

use crate::CheckOptions;
use crate::ast::{self, BaseType, FunctionKind, PointerSpec, TypeSpec};
use crate::diagnostic::{Error, Result, Span};
use crate::typed::{Function, FunctionId, Program, SharedArray, SharedId, VarId, Variable};
use crate::types::{Pointer, Scalar, Space, Type};

/// Checks a parsed file. `end` locates errors about the file as a whole.
pub(crate) fn check(unit: &ast::TranslationUnit, options: &CheckOptions, end: Span) -> Result<Program> {
    let mut signatures: Vec<Signature> = Vec::new();
    let mut names: HashMap<String, FunctionId> = HashMap::new();
    let mut functions = Vec::new();
    let mut host = None;
    for def in &unit.functions {
        let id = FunctionId(u32::try_from(functions.len()).unwrap_or(u32::MAX));
        let name = &def.name.name;
        if names.contains_key(name) || call::builtin_named(name).is_some() {
            return Err(Error::types(def.name.span, format!("redefinition of '{name}'")));
        }
        // Registered before its body is checked, so a call of itself is
        // found (and refused as recursion).
        signatures.push(signature(def)?);
        names.insert(name.clone(), id);
        if def.kind == FunctionKind::Host {
            host = Some(id);
        }
        let checker = FunctionChecker::new(options, &signatures, &names, id, def);
        functions.push(checker.check(def)?);
    }
    let host = host.ok_or_else(|| Error::syntax(end, "the file has no 'void host()' to launch its kernels"))?;
    Ok(Program { functions, host })
}

/// What a call needs to know of a function.
struct Signature {
    kind: FunctionKind,
    params: Vec<Type>,
    return_type: Type,
}

fn signature(def: &ast::FunctionDef) -> Result<Signature> {
    let return_type = return_type(def)?;
    let mut params = Vec::new();
    for param in &def.params {
        let (ty, _) = resolve_type(&param.ty, param.ty.pointer)?;
        match ty {
            Type::Scalar(_) | Type::Pointer(_) => params.push(ty),
            Type::Void => return Err(Error::types(param.ty.span, "parameter has incomplete type 'void'")),
            Type::Dim3 => return Err(Error::unsupported(param.ty.span, "'dim3' parameters are not supported")),
        }
    }
    if def.kind == FunctionKind::Host && !params.is_empty() {
        return Err(Error::types(def.name.span, "'host' must be declared 'void host()'"));
    }
    Ok(Signature { kind: def.kind, params, return_type })
}

fn return_type(def: &ast::FunctionDef) -> Result<Type> {
    let (ty, _) = resolve_type(&def.return_type, def.return_type.pointer)?;
    let span = def.return_type.span;
    match (def.kind, ty) {
        (FunctionKind::Device, Type::Scalar(_)) | (_, Type::Void) => Ok(ty),
        (FunctionKind::Kernel, _) => {
            Err(Error::types(span, format!("kernel function '{}' must have void return type", def.name.name)))
        }
        (FunctionKind::Host, _) => Err(Error::types(span, "'host' must be declared 'void host()'")),
        (FunctionKind::Device, _) => {
            Err(Error::unsupported(span, format!("'__device__' functions returning '{ty}' are not supported")))
        }
    }
}

/// The type a written type and declarator pointer name, and whether the
/// variable itself is `const`.
fn resolve_type(spec: &TypeSpec, pointer: Option<PointerSpec>) -> Result<(Type, bool)> {
    let span = pointer.map_or(spec.span, |p| spec.span.to(p.span));
    match (spec.base, pointer) {
        (BaseType::Void, None) => Ok((Type::Void, spec.is_const)),
        (BaseType::Dim3, None) => Ok((Type::Dim3, spec.is_const)),
        (BaseType::Scalar(scalar), None) => Ok((Type::Scalar(scalar), spec.is_const)),
        (BaseType::Scalar(Scalar::Bool) | BaseType::Void | BaseType::Dim3, Some(_)) => {
            let name = match spec.base {
                BaseType::Void => "void",
                BaseType::Dim3 => "dim3",
                _ => "bool",
            };
            Err(Error::unsupported(span, format!("pointers to '{name}' are not supported")))
        }
        (BaseType::Scalar(elem), Some(pointer)) => {
            let ty = Pointer { elem, is_const: spec.is_const, space: Space::Global };
            Ok((Type::Pointer(ty), pointer.is_const))
        }
    }
}

/// What a name in scope refers to.
#[derive(Clone, Copy)]
enum Binding {
    Var(VarId),
    Shared(SharedId),
}

/// The state of checking one function.
struct FunctionChecker<'a> {
    options: &'a CheckOptions,
    signatures: &'a [Signature],
    names: &'a HashMap<String, FunctionId>,
    this: FunctionId,
    kind: FunctionKind,
    name: String,
    return_type: Type,
    variables: Vec<Variable>,
    shared_arrays: Vec<SharedArray>,
    shared_bytes: u32,
    /// Innermost last.
    scopes: Vec<HashMap<String, Binding>>,
    /// How many loops enclose the statement being checked.
    loops: usize,
}

impl<'a> FunctionChecker<'a> {
    fn new(
        options: &'a CheckOptions,
        signatures: &'a [Signature],
        names: &'a HashMap<String, FunctionId>,
        this: FunctionId,
        def: &ast::FunctionDef,
    ) -> FunctionChecker<'a> {
        let return_type = signatures.last().map_or(Type::Void, |s| s.return_type);
        FunctionChecker {
            options,
            signatures,
            names,
            this,
            kind: def.kind,
            name: def.name.name.clone(),
            return_type,
            variables: Vec::new(),
            shared_arrays: Vec::new(),
            shared_bytes: 0,
            scopes: vec![HashMap::new()],
            loops: 0,
        }
    }

    fn check(mut self, def: &ast::FunctionDef) -> Result<Function> {
        let mut params = Vec::new();
        for param in &def.params {
            let (ty, is_const) = resolve_type(&param.ty, param.ty.pointer)?;
            params.push(self.declare_variable(&param.name, ty, is_const)?);
        }
        // The parameters and the body's outermost statements share a scope,
        // as in C++: redeclaring a parameter there is a redefinition.
        let mut stmts = Vec::new();
        for stmt in &def.body.stmts {
            self.statement(stmt, &mut stmts)?;
        }
        let body = crate::typed::Block { stmts, span: def.body.span };
        Ok(Function {
            name: self.name,
            kind: self.kind,
            return_type: self.return_type,
            params,
            variables: self.variables,
            shared_arrays: self.shared_arrays,
            shared_bytes: self.shared_bytes,
            body,
            span: def.span,
        })
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes.iter().rev().find_map(|scope| scope.get(name).copied())
    }

    fn declare(&mut self, name: &ast::Ident, binding: Binding) -> Result<()> {
        let scope = self.scopes.last_mut().ok_or_else(|| Error::syntax(name.span, "no scope"))?;
        if scope.contains_key(&name.name) {
            return Err(Error::types(name.span, format!("redefinition of '{}'", name.name)));
        }
        scope.insert(name.name.clone(), binding);
        Ok(())
    }

    fn declare_variable(&mut self, name: &ast::Ident, ty: Type, is_const: bool) -> Result<VarId> {
        let id = VarId(u32::try_from(self.variables.len()).unwrap_or(u32::MAX));
        self.declare(name, Binding::Var(id))?;
        self.variables.push(Variable { name: name.name.clone(), ty, is_const, span: name.span });
        Ok(id)
    }

    fn variable(&self, id: VarId) -> &Variable {
        // Invariant: ids are only made by `declare_variable`.
        &self.variables[id.0 as usize]
    }

    fn shared_array(&self, id: SharedId) -> &SharedArray {
        // Invariant: ids are only made when an array is pushed.
        &self.shared_arrays[id.0 as usize]
    }

    fn in_scope<T>(&mut self, check: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.scopes.push(HashMap::new());
        let result = check(self);
        self.scopes.pop();
        result
    }

    fn in_host(&self) -> bool {
        self.kind == FunctionKind::Host
    }
}
