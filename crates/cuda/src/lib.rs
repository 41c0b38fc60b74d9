//! The CUDA C subset students write kernels in: a lexer, a recursive-descent
//! parser and a semantic checker that turn a `.cu` file into a typed program
//! ([`typed::Program`]) for a code generator to lower to SASS.
//!
//! # The central design decision
//!
//! The front end is two trees: the parser builds the syntax as written
//! ([`ast`]), and the checker builds a second, typed tree ([`typed`]) in which
//! every name is resolved to an id, every expression has its type, every
//! conversion C makes implicitly is an explicit node, and every memory
//! access is a [`typed::Place`]. A code generator then never re-derives C's
//! rules: it lowers exactly what it is given. Every node of both trees keeps
//! its source span, so each generated instruction can name its source line.
//!
//! Every stage stops at the first error and reports it as a [`Diagnostic`]
//! located where clang locates it (a missing `;` just after the statement's
//! last token), printed as clang prints it. No input makes the front end
//! panic, and no input makes it recurse without bound: the source size, the
//! token count and the nesting depth have documented limits
//! ([`MAX_SOURCE_BYTES`], [`MAX_TOKENS`], [`MAX_NESTING_DEPTH`]).
//!
//! ```
//! use warplab_cuda::{CheckOptions, check};
//! use warplab_cuda::types::{Scalar, Type};
//!
//! let source = r#"
//! __global__ void scale(float* x, float a, int n) {
//!     int i = blockIdx.x * blockDim.x + threadIdx.x;
//!     if (i < n) x[i] = a * x[i];
//! }
//! void host() {
//!     int n = 1024;
//!     float* x = device_array<float>(n, iota());
//!     scale<<<n / 256, 256>>>(x, 2.0f, n);
//! }
//! "#;
//! let options = CheckOptions { shared_bytes_per_block: 48 * 1024 };
//! let program = check("scale.cu", source, &options)?;
//! let kernel = &program.functions[0];
//! assert_eq!(kernel.name, "scale");
//! assert_eq!(kernel.variables[3].ty, Type::Scalar(Scalar::Int)); // i
//!
//! let error = check("scale.cu", "void host() { int x = y; }", &options).unwrap_err();
//! assert_eq!(
//!     error.to_string(),
//!     "scale.cu:1:23: error: use of undeclared identifier 'y'\n\
//!      void host() { int x = y; }\n\
//!      \x20                     ^"
//! );
//! # Ok::<(), warplab_cuda::Diagnostic>(())
//! ```
//!
//! The language as supported, its limits and its error format are in
//! `docs/cuda.md`.
#![deny(missing_docs)]

pub mod ast;
mod cfg;
mod check;
pub mod codegen;
mod diagnostic;
pub mod fuzzing;
mod lexer;
mod parser;
mod regalloc;
pub mod run;
pub mod sass;
mod token;
pub mod typed;
pub mod types;

pub use codegen::CompiledKernel;
pub use diagnostic::{Diagnostic, ErrorKind, Span};
pub use run::{DEFAULT_MAX_WARP_INSTS, LaunchSummary, Run, RunOptions, run};
/// The workload a run produces, in the generators' form, and the binary
/// version a GPU's compute capability gives its SASS.
pub use warplab_kernels::{Command, Workload, binary_version_for};

/// The largest source accepted, in bytes (1 MiB): a teaching kernel is a few
/// kilobytes, and the limit keeps every offset in a `u32`.
pub const MAX_SOURCE_BYTES: usize = 1 << 20;

/// The most tokens a file may have after `#define`s are expanded (and kept in
/// their bodies), so that macros defined in terms of each other cannot grow
/// the program exponentially.
pub const MAX_TOKENS: usize = 1 << 18;

/// How deeply statements, parentheses, prefix operators, and chains of binary
/// and postfix operators may nest. The parser and the checker recurse once per
/// level, so this bounds their stack (tested on a 1 MiB stack, the size of a
/// WebAssembly worker's), whatever the input.
pub const MAX_NESTING_DEPTH: usize = 64;

/// What the checker needs to know about the GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckOptions {
    /// The shared memory one block may use, in bytes: a kernel whose
    /// `__shared__` arrays need more is an error.
    pub shared_bytes_per_block: u32,
}

/// Parses `source` (named `file` in errors) into its syntax tree.
///
/// # Errors
/// The first lexical or syntax error, or a source over [`MAX_SOURCE_BYTES`].
pub fn parse(file: &str, source: &str) -> Result<ast::TranslationUnit, Diagnostic> {
    parse_unit(source).map_err(|error| Diagnostic::new(file, source, error))
}

/// Parses and checks `source` (named `file` in errors) into a typed program.
///
/// # Errors
/// The first lexical, syntax or semantic error.
pub fn check(file: &str, source: &str, options: &CheckOptions) -> Result<typed::Program, Diagnostic> {
    parse_unit(source)
        .and_then(|unit| check::check(&unit, options, source_end(source)))
        .map_err(|error| Diagnostic::new(file, source, error))
}

/// A checked file with its kernels compiled.
#[derive(Clone, Debug, PartialEq)]
pub struct Compiled {
    /// The typed program.
    pub program: typed::Program,
    /// Every `__global__` kernel, in source order, launched or not.
    pub kernels: Vec<CompiledKernel>,
}

/// Parses, checks and compiles `source` (named `file` in errors).
///
/// # Errors
/// The first compile error, or a kernel too large or needing more registers
/// than a thread has.
pub fn compile(file: &str, source: &str, options: &CheckOptions) -> Result<Compiled, Diagnostic> {
    let program = check(file, source, options)?;
    let mut kernels = Vec::new();
    for (index, function) in program.functions.iter().enumerate() {
        if function.kind == ast::FunctionKind::Kernel {
            let id = typed::FunctionId(index as u32);
            kernels.push(codegen::compile_kernel(&program, id).map_err(|error| Diagnostic::new(file, source, error))?);
        }
    }
    Ok(Compiled { program, kernels })
}

/// One row of a kernel's listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListingRow {
    /// The instruction's PC.
    pub pc: u32,
    /// Its SASS text (`IMAD.WIDE R2.64, R0, 0x4, c[0x0][0x160] ;`).
    pub sass: String,
    /// The 1-based source line it comes from.
    pub line: u32,
}

/// A kernel's listing as rows: PC, SASS and source line of each instruction.
pub fn listing_rows(kernel: &CompiledKernel, source: &str) -> Vec<ListingRow> {
    let lines = run::LineIndex::new(source);
    kernel
        .insts
        .iter()
        .enumerate()
        .map(|(index, inst)| ListingRow {
            pc: index as u32 * sass::PC_STEP,
            sass: inst.assembly(),
            line: lines.line(inst.span.start),
        })
        .collect()
}

/// A kernel's SASS listing as text: PC, instruction, and the source line it
/// comes from (its number and text).
pub fn listing(kernel: &CompiledKernel, source: &str) -> String {
    let texts: Vec<&str> = source.lines().collect();
    let mut out = String::new();
    for row in listing_rows(kernel, source) {
        let text = texts.get(row.line as usize - 1).map_or("", |text| text.trim());
        out.push_str(&format!("/*{:04x}*/  {:<52} // {:>3}: {text}\n", row.pc, row.sass, row.line));
    }
    out
}

fn parse_unit(source: &str) -> diagnostic::Result<ast::TranslationUnit> {
    if source.len() > MAX_SOURCE_BYTES {
        return Err(diagnostic::Error::limit(
            Span::point(0),
            format!("the source is {} bytes, more than the {MAX_SOURCE_BYTES} bytes supported", source.len()),
        ));
    }
    parser::parse(lexer::lex(source)?)
}

/// Where errors about the file as a whole (no `host()`) are reported.
fn source_end(source: &str) -> Span {
    Span::point(u32::try_from(source.len()).unwrap_or(u32::MAX))
}
