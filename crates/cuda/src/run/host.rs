//! The host interpreter: `void host()` walked statement by statement on the
//! typed tree, with C's arithmetic, device arrays in the functional memory
//! image, and each launch run on the GPU functionally, CTA by CTA.

use warplab_kernels::Random;

use super::memory::DeviceMemory;
use super::record::LaunchRecord;
use super::warp::{CtaRunner, Launch as CtaLaunch};
use super::{LaunchSummary, RunOptions};
use crate::ast::BinaryOp;
use crate::codegen::CompiledKernel;
use crate::diagnostic::{Error, ErrorKind, Result, Span};
use crate::sass::PARAM_BASE;
use crate::typed::{ArrayInit, Block, Builtin, Expr, ExprKind, Launch, Place, Program, Stmt, StmtKind, UnaryOp, Value};
use crate::types::{Scalar, Type};

/// The most statements and loop tests host code may run: it bounds a host
/// loop that never ends, as the warp-instruction budget bounds a kernel.
pub const MAX_HOST_STEPS: u64 = 100_000_000;

/// The most elements all `device_array`s together may have (512 MiB of
/// 4-byte words): more than any simulated workload walks, and it bounds the
/// memory a file can ask of the host (or of a browser tab).
pub const MAX_ARRAY_ELEMENTS: u64 = 1 << 27;

/// A host value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum HostValue {
    Scalar(Value),
    Pointer { array: usize, offset: i64 },
    Dim3([u32; 3]),
    Void,
}

/// A command the host issued, in order.
pub(crate) enum HostCommand {
    /// A `device_array` copied in.
    Copy(usize),
    /// A launch with its recorded streams.
    Launch(Box<LaunchRecord>),
}

enum Flow {
    Next,
    Break,
    Continue,
    Return,
}

pub(crate) struct Host<'a> {
    program: &'a Program,
    /// Indexed by function id; kernels only.
    kernels: &'a [Option<CompiledKernel>],
    options: &'a RunOptions,
    vars: Vec<HostValue>,
    pub memory: DeviceMemory,
    pub commands: Vec<HostCommand>,
    pub launches: Vec<LaunchSummary>,
    runner: CtaRunner,
    steps: u64,
    /// The variable a `device_array` being evaluated is assigned to.
    naming: Option<String>,
}

impl<'a> Host<'a> {
    pub fn new(program: &'a Program, kernels: &'a [Option<CompiledKernel>], options: &'a RunOptions) -> Host<'a> {
        let host = &program.functions[program.host.0 as usize];
        Host {
            program,
            kernels,
            options,
            vars: vec![HostValue::Void; host.variables.len()],
            memory: DeviceMemory::default(),
            commands: Vec::new(),
            launches: Vec::new(),
            runner: CtaRunner::default(),
            steps: 0,
            naming: None,
        }
    }

    /// Runs `host()`.
    pub fn run(&mut self) -> Result<()> {
        let body = &self.program.functions[self.program.host.0 as usize].body;
        self.block(body).map(|_| ())
    }

    fn block(&mut self, block: &Block) -> Result<Flow> {
        for stmt in &block.stmts {
            match self.stmt(stmt)? {
                Flow::Next => {}
                flow => return Ok(flow),
            }
        }
        Ok(Flow::Next)
    }

    fn tick(&mut self, span: Span) -> Result<()> {
        self.steps += 1;
        if self.steps > MAX_HOST_STEPS {
            let message = format!("host code ran past its budget of {MAX_HOST_STEPS} steps (a loop that never ends?)");
            return Err(Error { span: Span::point(span.start), kind: ErrorKind::Limit, message });
        }
        Ok(())
    }

    fn stmt(&mut self, stmt: &Stmt) -> Result<Flow> {
        self.tick(stmt.span)?;
        match &stmt.kind {
            StmtKind::Let { var, init } => {
                let variable = &self.program.functions[self.program.host.0 as usize].variables[var.0 as usize];
                self.naming = Some(variable.name.clone());
                let value = match init {
                    Some(init) => self.eval(init)?,
                    None => zero_of(variable.ty),
                };
                self.naming = None;
                self.vars[var.0 as usize] = value;
            }
            StmtKind::Expr(expr) => {
                self.eval(expr)?;
            }
            StmtKind::If { cond, then, otherwise } => {
                return if self.truth(cond)? {
                    self.block(then)
                } else {
                    otherwise.as_ref().map_or(Ok(Flow::Next), |block| self.block(block))
                };
            }
            StmtKind::Loop { init, cond, step, body } => {
                return self.for_loop(init.as_deref(), cond.as_ref(), step.as_ref(), body);
            }
            StmtKind::Break => return Ok(Flow::Break),
            StmtKind::Continue => return Ok(Flow::Continue),
            StmtKind::Return(_) => return Ok(Flow::Return),
            StmtKind::Block(block) => return self.block(block),
            StmtKind::Launch(launch) => self.launch(launch, stmt.span)?,
            StmtKind::Shared(_) => {}
        }
        Ok(Flow::Next)
    }

    fn for_loop(
        &mut self,
        init: Option<&Stmt>,
        cond: Option<&Expr>,
        step: Option<&Expr>,
        body: &Block,
    ) -> Result<Flow> {
        if let Some(init) = init {
            self.stmt(init)?;
        }
        loop {
            self.tick(body.span)?;
            if let Some(cond) = cond
                && !self.truth(cond)?
            {
                return Ok(Flow::Next);
            }
            match self.block(body)? {
                Flow::Break => return Ok(Flow::Next),
                Flow::Return => return Ok(Flow::Return),
                Flow::Next | Flow::Continue => {}
            }
            if let Some(step) = step {
                self.eval(step)?;
            }
        }
    }

    fn truth(&mut self, expr: &Expr) -> Result<bool> {
        Ok(match self.eval(expr)? {
            HostValue::Scalar(value) => truth(value),
            _ => false,
        })
    }

    fn scalar(&mut self, expr: &Expr) -> Result<Value> {
        match self.eval(expr)? {
            HostValue::Scalar(value) => Ok(value),
            _ => Err(Error::types(expr.span, "expected a scalar")),
        }
    }

    fn eval(&mut self, expr: &Expr) -> Result<HostValue> {
        let span = expr.span;
        Ok(match &expr.kind {
            ExprKind::Const(value) => HostValue::Scalar(*value),
            ExprKind::Load(Place::Var(var)) => self.vars[var.0 as usize],
            ExprKind::Unary(op, operand) => HostValue::Scalar(unary(*op, self.scalar(operand)?)),
            ExprKind::Binary { op, lhs, rhs, .. } => {
                let (a, b) = (self.scalar(lhs)?, self.scalar(rhs)?);
                HostValue::Scalar(binary(*op, a, b).ok_or_else(|| division_by_zero(span))?)
            }
            ExprKind::Logical { and, lhs, rhs } => {
                let left = self.truth(lhs)?;
                let value = if left != *and { left } else { self.truth(rhs)? };
                HostValue::Scalar(Value::Bool(value))
            }
            ExprKind::PointerOffset { pointer, offset, subtract } => {
                let pointer = self.eval(pointer)?;
                let offset = as_i64(self.scalar(offset)?);
                offset_pointer(pointer, if *subtract { -offset } else { offset })
            }
            ExprKind::Conditional { cond, then, otherwise } => {
                if self.truth(cond)? {
                    self.eval(then)?
                } else {
                    self.eval(otherwise)?
                }
            }
            ExprKind::Convert { operand, .. } => match (self.eval(operand)?, expr.ty) {
                (HostValue::Scalar(value), Type::Scalar(to)) => HostValue::Scalar(convert(value, to)),
                (value, _) => value,
            },
            ExprKind::Assign { place: Place::Var(var), op, value } => self.assign(*var, *op, value, span)?,
            ExprKind::Step { place: Place::Var(var), increment, prefix } => {
                let old = self.vars[var.0 as usize];
                let new = match old {
                    HostValue::Scalar(value) => HostValue::Scalar(step(value, *increment)),
                    pointer => offset_pointer(pointer, if *increment { 1 } else { -1 }),
                };
                self.vars[var.0 as usize] = new;
                if *prefix { new } else { old }
            }
            ExprKind::Builtin { builtin, args } => {
                let mut values = Vec::with_capacity(args.len());
                for arg in args {
                    values.push(self.scalar(arg)?);
                }
                HostValue::Scalar(host_builtin(*builtin, &values, span)?)
            }
            ExprKind::DeviceArray { elem, length, init } => self.device_array(*elem, length, init, span)?,
            ExprKind::Dim3(sizes) => {
                let mut shape = [1u32; 3];
                for (slot, size) in shape.iter_mut().zip(sizes.iter()) {
                    *slot = as_i64(self.scalar(size)?) as u32;
                }
                HostValue::Dim3(shape)
            }
            _ => return Err(Error::unsupported(span, "this expression is not supported in host code")),
        })
    }

    fn assign(
        &mut self,
        var: crate::typed::VarId,
        op: Option<(BinaryOp, Scalar)>,
        value: &Expr,
        span: Span,
    ) -> Result<HostValue> {
        let variable = &self.program.functions[self.program.host.0 as usize].variables[var.0 as usize];
        self.naming = Some(variable.name.clone());
        let ty = variable.ty;
        let rhs = self.eval(value);
        self.naming = None;
        let rhs = rhs?;
        let new = match (op, self.vars[var.0 as usize], rhs) {
            (None, _, rhs) => rhs,
            (Some((op, _)), pointer @ HostValue::Pointer { .. }, HostValue::Scalar(offset)) => {
                let offset = as_i64(offset);
                offset_pointer(pointer, if op == BinaryOp::Sub { -offset } else { offset })
            }
            (Some((op, operand_type)), HostValue::Scalar(old), HostValue::Scalar(rhs)) => {
                let result = binary(op, convert(old, operand_type), rhs).ok_or_else(|| division_by_zero(span))?;
                HostValue::Scalar(convert(result, ty.scalar().unwrap_or(operand_type)))
            }
            (_, old, _) => old,
        };
        self.vars[var.0 as usize] = new;
        Ok(new)
    }

    fn device_array(&mut self, elem: Scalar, length: &Expr, init: &ArrayInit, span: Span) -> Result<HostValue> {
        let length = u64::from(as_i64(self.scalar(length)?) as u32);
        let allocated: u64 = self.memory.arrays.iter().map(|array| array.words.len() as u64).sum();
        if allocated + length > MAX_ARRAY_ELEMENTS {
            let message = format!(
                "device arrays of {} elements in all are more than the {MAX_ARRAY_ELEMENTS} supported",
                allocated + length
            );
            return Err(Error::limit(Span::point(span.start), message));
        }
        let name = self.naming.take().unwrap_or_else(|| format!("array{}", self.memory.arrays.len()));
        let seed = self.memory.arrays.len() as u64 + 1;
        let words = self.initial_words(elem, length as usize, init, seed)?;
        let array = self.memory.allocate(name, elem, words);
        self.commands.push(HostCommand::Copy(array));
        Ok(HostValue::Pointer { array, offset: 0 })
    }

    /// The initial contents; the random ones seeded by the array's position
    /// in allocation order, so the same file always gives the same data.
    fn initial_words(&mut self, elem: Scalar, length: usize, init: &ArrayInit, seed: u64) -> Result<Vec<u32>> {
        let float = elem == Scalar::Float;
        Ok(match init {
            ArrayInit::Zeros => vec![0; length],
            ArrayInit::Iota => (0..length).map(|i| if float { (i as f32).to_bits() } else { i as u32 }).collect(),
            ArrayInit::Fill(value) => {
                let value = convert(self.scalar(value)?, elem);
                vec![bits(value); length]
            }
            ArrayInit::Uniform(low, high) => {
                let (low, high) = (as_f32(self.scalar(low)?), as_f32(self.scalar(high)?));
                let mut random = Random::new(seed);
                (0..length)
                    .map(|_| {
                        // 24 random bits make every float in [0, 1) a multiple of 2^-24.
                        let unit = (random.next_u64() >> 40) as f32 / (1u32 << 24) as f32;
                        let value = low + (high - low) * unit;
                        let value = if value >= high && high > low { low } else { value };
                        if float { value.to_bits() } else { value as i32 as u32 }
                    })
                    .collect()
            }
            ArrayInit::RandInt(low, high) => {
                let (low, high) = (as_i64(self.scalar(low)?), as_i64(self.scalar(high)?));
                let (low, high) = (low.min(high), low.max(high));
                let mut random = Random::new(seed);
                (0..length)
                    .map(|_| {
                        let value = low + random.below((high - low + 1) as u64) as i64;
                        if float { (value as f32).to_bits() } else { value as u32 }
                    })
                    .collect()
            }
        })
    }

    fn launch(&mut self, launch: &Launch, span: Span) -> Result<()> {
        let grid = self.shape(&launch.grid)?;
        let block = self.shape(&launch.block)?;
        let dynamic = match &launch.shared_bytes {
            Some(bytes) => as_i64(self.scalar(bytes)?) as u32,
            None => 0,
        };
        let Some(Some(kernel)) = self.kernels.get(launch.kernel.0 as usize) else {
            return Err(Error::types(span, "not a kernel"));
        };
        let shared_bytes = kernel.shared_bytes.saturating_add(dynamic);
        super::limits::check_launch(kernel, grid, block, shared_bytes, self.options)
            .map_err(|message| Error::limit(Span::point(span.start), message))?;
        let mut constants = vec![0u32; PARAM_BASE as usize / 4];
        constants[..3].copy_from_slice(&block);
        constants[3..6].copy_from_slice(&grid);
        for (arg, &(offset, wide)) in launch.args.iter().zip(&kernel.params) {
            let value = self.eval(arg)?;
            let word = offset as usize / 4;
            constants.resize(constants.len().max(word + 2), 0);
            let raw = self.argument_bits(value);
            constants[word] = raw as u32;
            if wide {
                constants[word + 1] = (raw >> 32) as u32;
            }
        }
        let context = CtaLaunch { kernel, constants: &constants, grid, block, shared_bytes };
        let record = super::record::run_launch(&context, &mut self.memory, &mut self.runner, self.options)?;
        self.launches.push(LaunchSummary {
            kernel: kernel.name.clone(),
            grid,
            block,
            shared_bytes,
            registers: kernel.registers,
            warp_insts: record.warp_insts,
        });
        self.commands.push(HostCommand::Launch(Box::new(record)));
        Ok(())
    }

    fn shape(&mut self, expr: &Expr) -> Result<[u32; 3]> {
        match self.eval(expr)? {
            HostValue::Dim3(shape) => Ok(shape),
            HostValue::Scalar(value) => Ok([as_i64(value) as u32, 1, 1]),
            _ => Err(Error::types(expr.span, "expected a dim3")),
        }
    }

    fn argument_bits(&self, value: HostValue) -> u64 {
        match value {
            HostValue::Scalar(value) => u64::from(bits(value)),
            HostValue::Pointer { array, offset } => {
                let base = self.memory.arrays.get(array).map_or(0, |a| a.base);
                base.wrapping_add((offset as u64).wrapping_mul(4))
            }
            _ => 0,
        }
    }
}

fn division_by_zero(span: Span) -> Error {
    Error {
        span: Span::point(span.start),
        kind: ErrorKind::Fault,
        message: "integer division by zero in host code".to_owned(),
    }
}

fn zero_of(ty: Type) -> HostValue {
    match ty {
        Type::Scalar(scalar) => HostValue::Scalar(convert(Value::Int(0), scalar)),
        Type::Dim3 => HostValue::Dim3([1, 1, 1]),
        _ => HostValue::Void,
    }
}

fn offset_pointer(pointer: HostValue, by: i64) -> HostValue {
    match pointer {
        HostValue::Pointer { array, offset } => HostValue::Pointer { array, offset: offset.wrapping_add(by) },
        other => other,
    }
}

/// A value's 32 bits, as a kernel argument or an array element.
pub(crate) fn bits(value: Value) -> u32 {
    match value {
        Value::Int(v) => v as u32,
        Value::Unsigned(v) => v,
        Value::Float(v) => v.to_bits(),
        Value::Bool(v) => u32::from(v),
    }
}

fn truth(value: Value) -> bool {
    match value {
        Value::Int(v) => v != 0,
        Value::Unsigned(v) => v != 0,
        Value::Float(v) => v != 0.0,
        Value::Bool(v) => v,
    }
}

fn as_i64(value: Value) -> i64 {
    match value {
        Value::Int(v) => i64::from(v),
        Value::Unsigned(v) => i64::from(v),
        Value::Float(v) => v as i64,
        Value::Bool(v) => i64::from(v),
    }
}

fn as_f32(value: Value) -> f32 {
    match value {
        Value::Float(v) => v,
        Value::Int(v) => v as f32,
        Value::Unsigned(v) => v as f32,
        Value::Bool(v) => f32::from(u8::from(v)),
    }
}

/// C's conversion of `value` to `to` (float to integer truncates, saturating
/// where C leaves it undefined).
pub(crate) fn convert(value: Value, to: Scalar) -> Value {
    match to {
        Scalar::Float => Value::Float(as_f32(value)),
        Scalar::Bool => Value::Bool(truth(value)),
        Scalar::Int => Value::Int(match value {
            Value::Float(v) => v as i32,
            other => bits(other) as i32,
        }),
        Scalar::Unsigned => Value::Unsigned(match value {
            Value::Float(v) => v as u32,
            other => bits(other),
        }),
    }
}

fn step(value: Value, increment: bool) -> Value {
    let delta = if increment { 1 } else { -1 };
    match value {
        Value::Int(v) => Value::Int(v.wrapping_add(delta)),
        Value::Unsigned(v) => Value::Unsigned(v.wrapping_add(delta as u32)),
        Value::Float(v) => Value::Float(v + delta as f32),
        Value::Bool(_) => Value::Bool(increment),
    }
}

fn unary(op: UnaryOp, value: Value) -> Value {
    match (op, value) {
        (UnaryOp::Not, value) => Value::Bool(!truth(value)),
        (UnaryOp::Neg, Value::Float(v)) => Value::Float(-v),
        (UnaryOp::Neg, Value::Unsigned(v)) => Value::Unsigned(v.wrapping_neg()),
        (UnaryOp::Neg, value) => Value::Int((bits(value) as i32).wrapping_neg()),
        (UnaryOp::BitNot, Value::Unsigned(v)) => Value::Unsigned(!v),
        (UnaryOp::BitNot, value) => Value::Int(!(bits(value) as i32)),
    }
}

/// `a op b` with both operands of one type; `None` for an integer division
/// by zero.
pub(crate) fn binary(op: BinaryOp, a: Value, b: Value) -> Option<Value> {
    use BinaryOp::*;
    let compare = |ordering: Option<std::cmp::Ordering>| Value::Bool(op.holds(ordering));
    Some(match (a, b) {
        (Value::Float(a), Value::Float(b)) => match op {
            Add => Value::Float(a + b),
            Sub => Value::Float(a - b),
            Mul => Value::Float(a * b),
            Div => Value::Float(a / b),
            _ => compare(a.partial_cmp(&b)),
        },
        (Value::Unsigned(a), Value::Unsigned(b)) => match op {
            Lt | Le | Gt | Ge | Eq | Ne => compare(Some(a.cmp(&b))),
            _ => Value::Unsigned(integer(op, a, b, false)?),
        },
        (a, b) => {
            let (a, b) = (bits(a) as i32, bits(b) as i32);
            match op {
                Lt | Le | Gt | Ge | Eq | Ne => compare(Some(a.cmp(&b))),
                _ => Value::Int(integer(op, a as u32, b as u32, true)? as i32),
            }
        }
    })
}

fn integer(op: BinaryOp, a: u32, b: u32, signed: bool) -> Option<u32> {
    use BinaryOp::*;
    let (sa, sb) = (a as i32, b as i32);
    Some(match op {
        Add => a.wrapping_add(b),
        Sub => a.wrapping_sub(b),
        Mul => a.wrapping_mul(b),
        Div if b == 0 => return None,
        Rem if b == 0 => return None,
        Div if signed => sa.wrapping_div(sb) as u32,
        Rem if signed => sa.wrapping_rem(sb) as u32,
        Div => a / b,
        Rem => a % b,
        Shl => a.checked_shl(b).unwrap_or(0),
        Shr if signed => (sa >> b.min(31)) as u32,
        Shr => a.checked_shr(b).unwrap_or(0),
        BitAnd => a & b,
        BitOr => a | b,
        BitXor => a ^ b,
        _ => 0,
    })
}

fn host_builtin(builtin: Builtin, args: &[Value], span: Span) -> Result<Value> {
    let float = |i: usize| args.get(i).copied().map_or(0.0, as_f32);
    Ok(match builtin {
        Builtin::Sqrtf => Value::Float(float(0).sqrt()),
        Builtin::Expf => Value::Float(float(0).exp()),
        Builtin::Sinf => Value::Float(float(0).sin()),
        Builtin::Fabsf => Value::Float(float(0).abs()),
        Builtin::Fdividef => Value::Float(float(0) / float(1)),
        Builtin::Min | Builtin::Max => {
            let (a, b) =
                (args.first().copied().unwrap_or(Value::Int(0)), args.get(1).copied().unwrap_or(Value::Int(0)));
            let a_less = binary(BinaryOp::Lt, a, b) == Some(Value::Bool(true));
            if a_less == (builtin == Builtin::Min) { a } else { b }
        }
        _ => return Err(Error::unsupported(span, "this builtin is not supported in host code")),
    })
}
