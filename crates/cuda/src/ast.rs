//! The syntax tree, as written: what the parser builds and the checker reads.
//! Names are unresolved and nothing is typed yet; every node has its span.

use crate::diagnostic::Span;
use crate::types::Scalar;

/// A whole source file.
#[derive(Clone, Debug, PartialEq)]
pub struct TranslationUnit {
    /// The functions, in source order.
    pub functions: Vec<FunctionDef>,
}

/// What a function is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    /// `__global__`: a kernel, launched from the host.
    Kernel,
    /// `__device__`: called from device code and inlined.
    Device,
    /// `void host()`: run once on the host.
    Host,
}

/// A function definition.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDef {
    /// Kernel, device function or host.
    pub kind: FunctionKind,
    /// The return type as written.
    pub return_type: TypeSpec,
    /// The name.
    pub name: Ident,
    /// The parameters.
    pub params: Vec<Param>,
    /// The body.
    pub body: Block,
    /// From the first qualifier to the closing brace.
    pub span: Span,
}

/// A name where it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    /// The name.
    pub name: String,
    /// Where.
    pub span: Span,
}

/// The base of a written type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseType {
    /// `void`.
    Void,
    /// A scalar type.
    Scalar(Scalar),
    /// `dim3`.
    Dim3,
}

/// A type as written: `const unsigned int`, `float *`, `const int *__restrict__`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeSpec {
    /// The base type.
    pub base: BaseType,
    /// `const` on the base type.
    pub is_const: bool,
    /// A `*` after it, if any.
    pub pointer: Option<PointerSpec>,
    /// Where it is written.
    pub span: Span,
}

/// The `*` of a pointer declarator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointerSpec {
    /// `* const`: the pointer itself cannot be reassigned.
    pub is_const: bool,
    /// Where the `*` is.
    pub span: Span,
}

/// A function parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Its type.
    pub ty: TypeSpec,
    /// Its name.
    pub name: Ident,
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
    /// What it is.
    pub kind: StmtKind,
    /// Where.
    pub span: Span,
}

/// The kinds of statement.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// A declaration of one or more variables.
    Decl(Decl),
    /// An expression followed by `;`.
    Expr(Expr),
    /// `if (cond) then [else otherwise]`.
    If {
        /// The condition.
        cond: Expr,
        /// The statement run when it holds.
        then: Box<Stmt>,
        /// The `else` branch.
        otherwise: Option<Box<Stmt>>,
    },
    /// `for (init; cond; step) body`.
    For {
        /// A declaration or expression statement, or `None` for `;`.
        init: Option<Box<Stmt>>,
        /// The condition; none means forever.
        cond: Option<Expr>,
        /// The step.
        step: Option<Expr>,
        /// The body.
        body: Box<Stmt>,
    },
    /// `while (cond) body`.
    While {
        /// The condition.
        cond: Expr,
        /// The body.
        body: Box<Stmt>,
    },
    /// `break;`.
    Break,
    /// `continue;`.
    Continue,
    /// `return [value];`.
    Return(Option<Expr>),
    /// A nested block.
    Block(Block),
    /// `;` alone.
    Empty,
    /// `kernel<<<grid, block[, shared_bytes]>>>(args);`.
    Launch(Launch),
}

/// A declaration: `[__shared__] [const] type declarator, declarator;`.
#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    /// `__shared__`.
    pub is_shared: bool,
    /// The type before the declarators (without any `*`, which belongs to
    /// each declarator as in C).
    pub ty: TypeSpec,
    /// The declared names.
    pub declarators: Vec<Declarator>,
}

/// One declared name.
#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    /// The name.
    pub name: Ident,
    /// `*` before the name.
    pub pointer: Option<PointerSpec>,
    /// `[N]` or `[N][M]` after it: array sizes, as written.
    pub dims: Vec<Expr>,
    /// `= value`, or `(x, y, z)` for a `dim3`.
    pub init: Option<Init>,
}

/// An initializer.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    /// `= value`.
    Assign(Expr),
    /// `name(args)`, constructor syntax (`dim3 block(16, 16)`).
    Construct(Vec<Expr>, Span),
}

/// A kernel launch.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    /// The kernel's name.
    pub kernel: Ident,
    /// The grid shape.
    pub grid: Expr,
    /// The block shape.
    pub block: Expr,
    /// Dynamic shared memory in bytes.
    pub shared_bytes: Option<Expr>,
    /// The kernel's arguments.
    pub args: Vec<Expr>,
    /// The closing `)` of the arguments (where clang reports too few).
    pub close: Span,
}

/// An expression and its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where.
    pub span: Span,
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal, typed by C's rules.
    Int {
        /// The value.
        value: u32,
        /// `int` or `unsigned int`.
        ty: Scalar,
    },
    /// A float literal.
    Float(f32),
    /// `true` or `false`.
    Bool(bool),
    /// A name.
    Name(String),
    /// `base.member`: only `threadIdx.x` and its kind.
    Member {
        /// Before the dot.
        base: Box<Expr>,
        /// After it.
        member: Ident,
    },
    /// `base[index]`.
    Index {
        /// The pointer or array.
        base: Box<Expr>,
        /// The index.
        index: Box<Expr>,
    },
    /// `callee(args)`.
    Call {
        /// The function or builtin called.
        callee: Ident,
        /// The arguments.
        args: Vec<Expr>,
        /// The closing `)`.
        close: Span,
    },
    /// `device_array<T>(args)`.
    DeviceArray {
        /// The element type.
        elem: TypeSpec,
        /// The arguments.
        args: Vec<Expr>,
        /// The closing `)`.
        close: Span,
    },
    /// `dim3(args)`.
    Dim3 {
        /// One to three sizes.
        args: Vec<Expr>,
        /// The closing `)`.
        close: Span,
    },
    /// A prefix operator.
    Unary {
        /// Which.
        op: UnaryOp,
        /// Its operand.
        operand: Box<Expr>,
    },
    /// `operand++` or `operand--`.
    Postfix {
        /// `true` for `++`.
        increment: bool,
        /// The operand.
        operand: Box<Expr>,
    },
    /// A binary operator.
    Binary {
        /// Which.
        op: BinaryOp,
        /// Where the operator is.
        op_span: Span,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `lhs = rhs` or `lhs op= rhs`.
    Assign {
        /// For compound assignment, the operator.
        op: Option<BinaryOp>,
        /// Where the operator is.
        op_span: Span,
        /// The place assigned.
        lhs: Box<Expr>,
        /// The value.
        rhs: Box<Expr>,
    },
    /// `cond ? then : otherwise`.
    Conditional {
        /// The condition.
        cond: Box<Expr>,
        /// Where the `?` is.
        question: Span,
        /// Its value when the condition holds.
        then: Box<Expr>,
        /// Otherwise.
        otherwise: Box<Expr>,
    },
    /// `(type) operand`.
    Cast {
        /// The type cast to.
        ty: TypeSpec,
        /// The operand.
        operand: Box<Expr>,
    },
}

/// Prefix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-x`.
    Neg,
    /// `+x`.
    Plus,
    /// `!x`.
    Not,
    /// `~x`.
    BitNot,
    /// `*p`.
    Deref,
    /// `&x`.
    AddressOf,
    /// `++x`.
    PreIncrement,
    /// `--x`.
    PreDecrement,
}

/// Binary operators (arithmetic, comparison, logical).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Rem,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
    /// `&`.
    BitAnd,
    /// `|`.
    BitOr,
    /// `^`.
    BitXor,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `&&`.
    And,
    /// `||`.
    Or,
}

impl BinaryOp {
    /// The operator as written.
    pub fn spelling(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
        }
    }

    /// Whether the result is a `bool` comparison.
    pub fn is_comparison(self) -> bool {
        matches!(self, BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne)
    }
}
