//! Code generation: a kernel of the typed program lowered to SASS.
//!
//! Lowering is direct and unoptimised: every statement becomes the
//! instructions that do what it says, in order, into virtual registers
//! (`__device__` functions inlined at each call); then [`crate::regalloc`]
//! maps them onto physical registers by linear scan and [`crate::cfg`] finds
//! each branch's immediate post-dominator, where the SIMT stack reconverges.

mod arith;
mod expr;
mod stmt;

use crate::diagnostic::{Error, Result, Span};
use crate::sass::{Inst, NO_RECONVERGENCE, Op, Operand, PARAM_BASE, PT, Pred, Src};
use crate::typed::{Block, ExprKind, FunctionId, Place, Program, StmtKind, VarId};
use crate::types::{Space, Type};

/// The most instructions one kernel may compile to (inlining can multiply a
/// program's size): far above any teaching kernel, and it bounds compile time.
pub const MAX_KERNEL_INSTRUCTIONS: usize = 1 << 16;

/// How deeply `__device__` calls may nest (each level is inlined inside the
/// last): it bounds the code generator's recursion, which nests once more
/// per level, on a 1 MiB stack.
pub const MAX_INLINE_DEPTH: usize = 8;

/// The most registers a thread may use (`R0`..`R254`; `R255` is `RZ`). The
/// allocator does not spill, so a kernel needing more is an error.
pub const MAX_REGISTERS: u32 = 255;

/// A compiled kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledKernel {
    /// Its name.
    pub name: String,
    /// The function it was compiled from.
    pub function: FunctionId,
    /// The listing; an instruction's PC is its index times [`crate::sass::PC_STEP`].
    pub insts: Vec<Inst>,
    /// Registers per thread: one past the highest the listing names.
    pub registers: u32,
    /// Static shared memory in bytes.
    pub shared_bytes: u32,
    /// Each parameter's offset in constant bank 0 and whether it is 64-bit.
    pub params: Vec<(u32, bool)>,
    /// Each `__shared__` array's name, byte offset and element count.
    pub shared_arrays: Vec<(String, u32, u32)>,
}

/// Compiles kernel `function` of `program`.
///
/// # Errors
/// A kernel too large or needing more than [`MAX_REGISTERS`] registers.
pub(crate) fn compile_kernel(program: &Program, function: FunctionId) -> Result<CompiledKernel> {
    let kernel = &program.functions[function.0 as usize];
    let mut generator = Generator::new(program, kernel.span);
    let params = generator.enter_kernel(function);
    generator.block(&kernel.body)?;
    generator.span = Span::point(kernel.span.end.saturating_sub(1));
    generator.emit(Op::Exit, "EXIT", Operand::Zero, &[]);
    let mut insts = generator.finish()?;
    let registers = crate::regalloc::allocate(&mut insts, &generator.widths)
        .map_err(|needed| too_many_registers(&kernel.name, needed, kernel.span))?;
    crate::cfg::set_reconvergence(&mut insts);
    Ok(CompiledKernel {
        name: kernel.name.clone(),
        function,
        insts,
        registers,
        shared_bytes: kernel.shared_bytes,
        params,
        shared_arrays: kernel
            .shared_arrays
            .iter()
            .map(|array| (array.name.clone(), array.offset_bytes, array.dims.iter().product()))
            .collect(),
    })
}

fn too_many_registers(name: &str, needed: u32, span: Span) -> Error {
    let message = format!(
        "kernel '{name}' needs more than {MAX_REGISTERS} registers per thread ({needed} live at once); \
         the code generator does not spill"
    );
    Error::limit(Span::point(span.start), message)
}

/// A label: an index into [`Generator::labels`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Label(u32);

/// An inlined function's context.
struct Frame {
    function: FunctionId,
    /// Where each variable lives (registers, or the constant bank for a
    /// kernel parameter never assigned).
    vars: Vec<Option<Operand>>,
    /// Where `return` goes and the register its value goes to; `None` in
    /// the kernel itself, where `return` is `EXIT`.
    exit: Option<(Label, Option<u32>)>,
    /// The innermost loop last: (`break` target, `continue` target).
    loops: Vec<(Label, Label)>,
}

struct Generator<'p> {
    program: &'p Program,
    insts: Vec<Inst>,
    /// Each virtual register's width in 32-bit registers (1 or 2).
    widths: Vec<u8>,
    /// Each label's instruction index, `u32::MAX` until placed.
    labels: Vec<u32>,
    frames: Vec<Frame>,
    /// The source of the instructions being emitted.
    span: Span,
}

impl<'p> Generator<'p> {
    fn new(program: &'p Program, span: Span) -> Generator<'p> {
        Generator { program, insts: Vec::new(), widths: Vec::new(), labels: Vec::new(), frames: Vec::new(), span }
    }

    /// Lays out the parameters in constant bank 0 and gives each a home:
    /// the bank itself, or a register when the kernel assigns to it.
    fn enter_kernel(&mut self, function: FunctionId) -> Vec<(u32, bool)> {
        let kernel = &self.program.functions[function.0 as usize];
        let assigned = assigned_variables(kernel.variables.len(), &kernel.body);
        let mut vars = vec![None; kernel.variables.len()];
        let mut layout = Vec::new();
        let mut offset = PARAM_BASE;
        for &param in &kernel.params {
            let variable = &kernel.variables[param.0 as usize];
            let wide = width_of(variable.ty) == 2;
            let size = if wide { 8 } else { 4 };
            offset = offset.next_multiple_of(size);
            layout.push((offset, wide));
            self.span = variable.span;
            vars[param.0 as usize] = Some(if assigned[param.0 as usize] {
                let reg = self.new_reg(width_of(variable.ty));
                self.copy(Operand::Const(offset), reg, wide);
                Operand::Reg(reg)
            } else {
                Operand::Const(offset)
            });
            offset += size;
        }
        self.frames.push(Frame { function, vars, exit: None, loops: Vec::new() });
        layout
    }

    /// Resolves labels into targets.
    fn finish(&mut self) -> Result<Vec<Inst>> {
        let mut insts = std::mem::take(&mut self.insts);
        for inst in &mut insts {
            if inst.op == Op::Bra {
                inst.target = self.labels[inst.target as usize];
            }
        }
        Ok(insts)
    }

    fn frame(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a function is being lowered")
    }

    fn function_id(&self) -> FunctionId {
        self.frames.last().expect("a function is being lowered").function
    }

    fn new_reg(&mut self, width: u8) -> u32 {
        self.widths.push(width);
        (self.widths.len() - 1) as u32
    }

    fn new_label(&mut self) -> Label {
        self.labels.push(u32::MAX);
        Label((self.labels.len() - 1) as u32)
    }

    fn place(&mut self, label: Label) {
        self.labels[label.0 as usize] = self.insts.len() as u32;
    }

    /// Appends an instruction at the current source span.
    fn emit(&mut self, op: Op, text: &str, dst: Operand, src: &[Src]) -> &mut Inst {
        let mut sources = [Src::of(Operand::Zero); 3];
        sources[..src.len()].copy_from_slice(src);
        self.insts.push(Inst {
            op,
            text: text.to_owned(),
            dst,
            src: sources,
            n_src: src.len() as u8,
            pred: PT,
            guard: None,
            target: 0,
            reconverge: NO_RECONVERGENCE,
            divisor: false,
            span: self.span,
        });
        self.insts.last_mut().expect("just pushed")
    }

    /// `BRA label`, under `guard` if given.
    fn branch(&mut self, label: Label, guard: Option<Pred>) {
        let inst = self.emit(Op::Bra, "BRA", Operand::Zero, &[]);
        inst.target = label.0;
        inst.guard = guard;
    }

    /// Copies `value` into register `dst` (a pair when `wide`).
    fn copy(&mut self, value: Operand, dst: u32, wide: bool) {
        if value == Operand::Reg(dst) {
            return;
        }
        if wide {
            let zero = Src::of(Operand::Zero);
            self.emit(
                Op::IMadWide { signed: false },
                "IMAD.WIDE.U32",
                Operand::Reg(dst),
                &[zero, zero, Src::of(value)],
            );
        } else {
            self.emit(Op::Mov, "MOV", Operand::Reg(dst), &[Src::of(value)]);
        }
    }

    /// A register for a result: the one asked for, or a new one.
    fn result_reg(&mut self, want: Option<u32>, width: u8) -> u32 {
        want.unwrap_or_else(|| self.new_reg(width))
    }

    /// Where variable `var` of the current function lives.
    fn var(&mut self, var: VarId) -> Result<Operand> {
        let function = self.function_id();
        let ty = self.program.functions[function.0 as usize].variables[var.0 as usize].ty;
        let slot = &mut self.frames.last_mut().expect("a function is being lowered").vars[var.0 as usize];
        if let Some(operand) = *slot {
            return Ok(operand);
        }
        // A variable read before its declaration ran cannot be written in
        // C, but give it a register rather than fail.
        let reg = self.new_reg(width_of(ty));
        self.frame().vars[var.0 as usize] = Some(Operand::Reg(reg));
        Ok(Operand::Reg(reg))
    }

    fn var_type(&self, var: VarId) -> Type {
        let function = self.function_id();
        self.program.functions[function.0 as usize].variables[var.0 as usize].ty
    }

    fn check_size(&self) -> Result<()> {
        if self.insts.len() > MAX_KERNEL_INSTRUCTIONS {
            let message = format!(
                "the kernel compiles to more than {MAX_KERNEL_INSTRUCTIONS} instructions (inlined calls count each time)"
            );
            return Err(Error::limit(Span::point(self.span.start), message));
        }
        Ok(())
    }
}

/// A value's width in 32-bit registers: a global pointer takes a pair.
fn width_of(ty: Type) -> u8 {
    match ty {
        Type::Pointer(pointer) if pointer.space == Space::Global => 2,
        _ => 1,
    }
}

/// Which variables of a function are ever assigned (so a parameter needs a
/// register of its own rather than its caller's value or the constant bank).
fn assigned_variables(n_vars: usize, body: &Block) -> Vec<bool> {
    let mut assigned = vec![false; n_vars];
    visit_block(body, &mut |kind| {
        if let ExprKind::Assign { place: Place::Var(var), .. } | ExprKind::Step { place: Place::Var(var), .. } = kind
            && let Some(slot) = assigned.get_mut(var.0 as usize)
        {
            *slot = true;
        }
    });
    assigned
}

fn visit_block(block: &Block, visit: &mut impl FnMut(&ExprKind)) {
    for stmt in &block.stmts {
        visit_stmt(&stmt.kind, visit);
    }
}

fn visit_stmt(kind: &StmtKind, visit: &mut impl FnMut(&ExprKind)) {
    match kind {
        StmtKind::Let { init, .. } => init.iter().for_each(|e| visit_expr(&e.kind, visit)),
        StmtKind::Expr(e) => visit_expr(&e.kind, visit),
        StmtKind::Return(e) => e.iter().for_each(|e| visit_expr(&e.kind, visit)),
        StmtKind::If { cond, then, otherwise } => {
            visit_expr(&cond.kind, visit);
            visit_block(then, visit);
            otherwise.iter().for_each(|b| visit_block(b, visit));
        }
        StmtKind::Loop { init, cond, step, body } => {
            init.iter().for_each(|s| visit_stmt(&s.kind, visit));
            cond.iter().chain(step.iter()).for_each(|e| visit_expr(&e.kind, visit));
            visit_block(body, visit);
        }
        StmtKind::Block(block) => visit_block(block, visit),
        StmtKind::Shared(_) | StmtKind::Break | StmtKind::Continue | StmtKind::Launch(_) => {}
    }
}

/// Visits every expression in `kind`, outermost first. The checker bounds
/// the nesting depth, so the recursion is bounded.
fn visit_expr(kind: &ExprKind, visit: &mut impl FnMut(&ExprKind)) {
    visit(kind);
    let mut each = |e: &crate::typed::Expr| visit_expr(&e.kind, visit);
    match kind {
        ExprKind::Load(place) | ExprKind::AddressOf(place) => visit_place(place, &mut each),
        ExprKind::Unary(_, e) | ExprKind::Convert { operand: e, .. } => each(e),
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } => {
            each(lhs);
            each(rhs);
        }
        ExprKind::PointerOffset { pointer, offset, .. } => {
            each(pointer);
            each(offset);
        }
        ExprKind::Conditional { cond, then, otherwise } => {
            each(cond);
            each(then);
            each(otherwise);
        }
        ExprKind::Assign { place, value, .. } => {
            visit_place(place, &mut each);
            each(value);
        }
        ExprKind::Step { place, .. } => visit_place(place, &mut each),
        ExprKind::Call { args, .. } | ExprKind::Builtin { args, .. } => args.iter().for_each(each),
        ExprKind::Const(_) | ExprKind::Special(..) | ExprKind::DeviceArray { .. } | ExprKind::Dim3(_) => {}
    }
}

fn visit_place(place: &Place, each: &mut impl FnMut(&crate::typed::Expr)) {
    match place {
        Place::Var(_) => {}
        Place::Element { pointer, index } => {
            each(pointer);
            each(index);
        }
        Place::Shared { indices, .. } => indices.iter().for_each(each),
    }
}
