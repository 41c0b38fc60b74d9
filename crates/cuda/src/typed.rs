//! The typed program the checker produces and a code generator lowers:
//! names resolved to ids, every expression typed, every implicit conversion
//! written out as a [`ExprKind::Convert`], every builtin and memory access
//! made explicit, and every node still carrying its source span so that each
//! generated instruction can name its line.

use crate::ast::{BinaryOp, FunctionKind};
use crate::diagnostic::Span;
use crate::types::{Scalar, Type};

/// A checked file.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// Every function, in source order; [`FunctionId`]s index this.
    pub functions: Vec<Function>,
    /// Which of them is `void host()`.
    pub host: FunctionId,
}

/// A function's index in [`Program::functions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FunctionId(pub u32);

/// A variable's index in [`Function::variables`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VarId(pub u32);

/// A shared array's index in [`Function::shared_arrays`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SharedId(pub u32);

/// A checked function.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// Its name.
    pub name: String,
    /// Kernel, device function or host.
    pub kind: FunctionKind,
    /// `Type::Void` or a scalar.
    pub return_type: Type,
    /// The parameters, the first variables.
    pub params: Vec<VarId>,
    /// Every variable of the function (parameters and locals), each once:
    /// a name shadowed in an inner block is another variable.
    pub variables: Vec<Variable>,
    /// The `__shared__` arrays (kernels only).
    pub shared_arrays: Vec<SharedArray>,
    /// Their total size: the kernel's static shared memory.
    pub shared_bytes: u32,
    /// The body.
    pub body: Block,
    /// The whole definition.
    pub span: Span,
}

/// A parameter or local variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Declared `const` (for a pointer: the pointer itself).
    pub is_const: bool,
    /// Where it is declared.
    pub span: Span,
}

/// A `__shared__` array.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedArray {
    /// Its name.
    pub name: String,
    /// The element type.
    pub elem: Scalar,
    /// One or two sizes, outermost first.
    pub dims: Vec<u32>,
    /// Its size in bytes.
    pub bytes: u32,
    /// Its offset in the kernel's shared memory, in declaration order.
    pub offset_bytes: u32,
    /// Where it is declared.
    pub span: Span,
}

/// `{ ... }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// The statements.
    pub stmts: Vec<Stmt>,
    /// From `{` to `}`.
    pub span: Span,
}

/// A statement and its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// What it does.
    pub kind: StmtKind,
    /// Where.
    pub span: Span,
}

/// The kinds of statement.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// A variable comes into scope, with its initial value if it has one.
    Let {
        /// The variable.
        var: VarId,
        /// Its initial value, already of its type (a pointer may lack the
        /// variable's `const`).
        init: Option<Expr>,
    },
    /// A `__shared__` array's declaration: no code, but it keeps the line.
    Shared(SharedId),
    /// An expression evaluated for its effects.
    Expr(Expr),
    /// `if`.
    If {
        /// A `bool`.
        cond: Expr,
        /// Run when it holds.
        then: Block,
        /// Run otherwise.
        otherwise: Option<Block>,
    },
    /// `for` (a `while` is a `for` with neither `init` nor `step`).
    Loop {
        /// Run once before, in the loop's own scope.
        init: Option<Box<Stmt>>,
        /// A `bool`; none means forever.
        cond: Option<Expr>,
        /// Run after each iteration and each `continue`.
        step: Option<Expr>,
        /// The body.
        body: Block,
    },
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// `return`, with a value of the function's return type.
    Return(Option<Expr>),
    /// A nested block.
    Block(Block),
    /// A kernel launch, in host code.
    Launch(Launch),
}

/// `kernel<<<grid, block, shared_bytes>>>(args)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    /// The kernel.
    pub kernel: FunctionId,
    /// The grid shape, of type `dim3`.
    pub grid: Expr,
    /// The block shape, of type `dim3`.
    pub block: Expr,
    /// Dynamic shared memory in bytes, an `unsigned int`.
    pub shared_bytes: Option<Expr>,
    /// One per parameter, already of its type (a pointer argument may lack
    /// the parameter's `const`).
    pub args: Vec<Expr>,
}

/// A typed expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What it computes.
    pub kind: ExprKind,
    /// Its type.
    pub ty: Type,
    /// Where.
    pub span: Span,
}

/// The kinds of typed expression. Operands already have the types the
/// operation needs: the usual arithmetic conversions are explicit.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A constant.
    Const(Value),
    /// The value stored in a place.
    Load(Place),
    /// The address of a place in memory (`&a[i]`): a pointer.
    AddressOf(Place),
    /// A built-in index register, an `unsigned int`.
    Special(Special, Axis),
    /// `-x`, `~x`, `!x` (`+x` is its operand).
    Unary(UnaryOp, Box<Expr>),
    /// Arithmetic or comparison; both operands have type `operand_type`.
    Binary {
        /// The operator (not `&&` or `||`).
        op: BinaryOp,
        /// The type the operation is done in.
        operand_type: Scalar,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `&&` or `||` on two `bool`s, evaluated left to right with short-circuit.
    Logical {
        /// `true` for `&&`.
        and: bool,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand, evaluated only when needed.
        rhs: Box<Expr>,
    },
    /// `pointer + offset` (or `-` when `subtract`), in elements.
    PointerOffset {
        /// The pointer.
        pointer: Box<Expr>,
        /// The offset, an `int` or `unsigned int`.
        offset: Box<Expr>,
        /// Whether the offset is subtracted.
        subtract: bool,
    },
    /// `cond ? then : otherwise`, only one side evaluated.
    Conditional {
        /// A `bool`.
        cond: Box<Expr>,
        /// Its value when `cond` holds.
        then: Box<Expr>,
        /// Otherwise.
        otherwise: Box<Expr>,
    },
    /// A conversion between scalar types.
    Convert {
        /// The value converted, to this expression's type.
        operand: Box<Expr>,
        /// Written as a cast, or made by C's conversion rules.
        implicit: bool,
    },
    /// `place = value` or `place op= value`; its value is the place's new value.
    Assign {
        /// Where.
        place: Place,
        /// For compound assignment, the operation and the type it is done in
        /// (the place's old value is converted to it, the result back).
        op: Option<(BinaryOp, Scalar)>,
        /// The value, of the place's type for `=`, of the operation's type
        /// for compound assignment (an offset, for a pointer).
        value: Box<Expr>,
    },
    /// `++`/`--`, prefix or postfix.
    Step {
        /// Where.
        place: Place,
        /// `++` rather than `--`.
        increment: bool,
        /// Whether the value is the new one (`++x`) or the old (`x++`).
        prefix: bool,
    },
    /// A call of a `__device__` function (to be inlined).
    Call {
        /// The function.
        function: FunctionId,
        /// One per parameter, already of its type (a pointer argument may
        /// lack the parameter's `const`).
        args: Vec<Expr>,
    },
    /// A builtin function.
    Builtin {
        /// Which.
        builtin: Builtin,
        /// Its arguments, already of the types it takes.
        args: Vec<Expr>,
    },
    /// `device_array<T>(n, init)`, host code only: a new global array.
    DeviceArray {
        /// The element type.
        elem: Scalar,
        /// The number of elements, an `unsigned int`.
        length: Box<Expr>,
        /// The initial contents.
        init: ArrayInit,
    },
    /// `dim3(x, y, z)`, host code only; each an `unsigned int` (1 when left out).
    Dim3(Box<[Expr; 3]>),
}

/// Something that can be read and assigned.
#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    /// A variable.
    Var(VarId),
    /// An element of memory: `pointer[index]` (`*p` is index 0).
    Element {
        /// The pointer.
        pointer: Box<Expr>,
        /// The index, an `int` or `unsigned int`.
        index: Box<Expr>,
    },
    /// An element of a `__shared__` array, one index per dimension.
    Shared {
        /// The array.
        array: SharedId,
        /// The indices, each an `int` or `unsigned int`.
        indices: Vec<Expr>,
    },
}

/// A constant's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// An `int`.
    Int(i32),
    /// An `unsigned int`.
    Unsigned(u32),
    /// A `float`.
    Float(f32),
    /// A `bool`.
    Bool(bool),
}

/// Prefix operators left after checking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// Arithmetic negation.
    Neg,
    /// Bitwise complement.
    BitNot,
    /// Logical not, on a `bool`.
    Not,
}

/// The built-in index registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// `threadIdx`.
    ThreadIdx,
    /// `blockIdx`.
    BlockIdx,
    /// `blockDim`.
    BlockDim,
    /// `gridDim`.
    GridDim,
}

/// `.x`, `.y` or `.z`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// `.x`.
    X,
    /// `.y`.
    Y,
    /// `.z`.
    Z,
}

/// The builtin functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `__syncthreads()`.
    SyncThreads,
    /// `atomicAdd(p, v)`: the old value.
    AtomicAdd,
    /// `atomicMax(p, v)` on integers: the old value.
    AtomicMax,
    /// `atomicCAS(p, compare, v)` on integers: the old value.
    AtomicCas,
    /// `sqrtf(x)`.
    Sqrtf,
    /// `expf(x)`.
    Expf,
    /// `sinf(x)`.
    Sinf,
    /// `fabsf(x)`.
    Fabsf,
    /// `__fdividef(x, y)`.
    Fdividef,
    /// `min(a, b)` in the operands' common type.
    Min,
    /// `max(a, b)` in the operands' common type.
    Max,
}

/// How a `device_array` is filled.
#[derive(Clone, Debug, PartialEq)]
pub enum ArrayInit {
    /// `zeros()`, the default.
    Zeros,
    /// `iota()`: 0, 1, 2, ... in the element type.
    Iota,
    /// `fill(v)`, `v` of the element type.
    Fill(Box<Expr>),
    /// `uniform(lo, hi)`: seeded floats in `[lo, hi)`, both `float`.
    Uniform(Box<Expr>, Box<Expr>),
    /// `randint(lo, hi)`: seeded integers in `[lo, hi]`, both `int`.
    RandInt(Box<Expr>, Box<Expr>),
}
