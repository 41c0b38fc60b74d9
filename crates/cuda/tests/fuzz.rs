//! Property tests: no input makes the front end panic or overflow its stack,
//! every error is located inside the source, and random expressions over the
//! scalar types get the type C's usual arithmetic conversions give them.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use warplab_cuda::typed::{ExprKind, StmtKind};
use warplab_cuda::types::{Scalar, Type};
use warplab_cuda::{CheckOptions, MAX_NESTING_DEPTH, check, fuzzing};

const OPTIONS: CheckOptions = CheckOptions { shared_bytes_per_block: 48 * 1024 };
const EXAMPLES: [&str; 5] = [
    include_str!("../examples/vecadd.cu"),
    include_str!("../examples/transpose.cu"),
    include_str!("../examples/reduction.cu"),
    include_str!("../examples/histogram.cu"),
    include_str!("../examples/matmul.cu"),
];

/// Pieces of CUDA C to splice into the examples.
const PIECES: [&str; 24] = [
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    "<<<",
    ">>>",
    "*",
    "&",
    "=",
    "+=",
    "?",
    ":",
    "__shared__",
    "int",
    "float*",
    "threadIdx.x",
    "#define X 3\n",
    "/*",
    "1.5f",
    "device_array<float>(4)",
];

/// An example with some byte ranges deleted, duplicated or replaced.
fn mutated_example() -> impl Strategy<Value = String> {
    (
        0..EXAMPLES.len(),
        prop::collection::vec((any::<prop::sample::Index>(), 0..4u8, 0..PIECES.len(), 0..12usize), 1..8),
    )
        .prop_map(|(example, edits)| {
            let mut text = EXAMPLES[example].as_bytes().to_vec();
            for (at, kind, piece, len) in edits {
                let at = at.index(text.len() + 1);
                let end = (at + len).min(text.len());
                match kind {
                    0 => drop(text.drain(at..end)),
                    1 => {
                        let copy = text[at..end].to_vec();
                        text.splice(at..at, copy);
                    }
                    _ => drop(text.splice(at..end, PIECES[piece].bytes())),
                }
            }
            String::from_utf8_lossy(&text).into_owned()
        })
}

/// A random expression over `i` (int), `u` (unsigned), `f` (float) and
/// `b` (bool), with the type C gives it.
fn typed_expression() -> impl Strategy<Value = (String, Scalar)> {
    let leaf = prop_oneof![
        Just(("i".to_owned(), Scalar::Int)),
        Just(("u".to_owned(), Scalar::Unsigned)),
        Just(("f".to_owned(), Scalar::Float)),
        Just(("b".to_owned(), Scalar::Bool)),
        Just(("7".to_owned(), Scalar::Int)),
        Just(("7u".to_owned(), Scalar::Unsigned)),
        Just(("0.5f".to_owned(), Scalar::Float)),
        Just(("true".to_owned(), Scalar::Bool)),
    ];
    leaf.prop_recursive(5, 40, 3, |inner| {
        prop_oneof![
            (inner.clone(), prop::sample::select(vec!["+", "-", "*", "/"]), inner.clone())
                .prop_map(|((a, x), op, (b, y))| (format!("({a} {op} {b})"), arithmetic(x, y))),
            (inner.clone(), prop::sample::select(vec!["<", "<=", "==", "!=", "&&", "||"]), inner.clone())
                .prop_map(|((a, _), op, (b, _))| (format!("({a} {op} {b})"), Scalar::Bool)),
            (inner.clone(), prop::sample::select(vec!["%", "&", "|", "^"]), inner.clone()).prop_map(
                |((a, x), op, (b, y))| {
                    // Integer operators: a float operand is cast first.
                    let (a, x) = integral(a, x);
                    let (b, y) = integral(b, y);
                    (format!("({a} {op} {b})"), arithmetic(x, y))
                }
            ),
            (inner.clone(), inner.clone()).prop_map(|((a, x), (b, y))| {
                let (a, x) = integral(a, x);
                let (b, _) = integral(b, y);
                (format!("({a} << {b})"), promoted(x))
            }),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(|((c, _), (a, x), (b, y))| {
                let ty = if x == y { x } else { arithmetic(x, y) };
                (format!("({c} ? {a} : {b})"), ty)
            }),
            (inner.clone(), prop::sample::select(vec![Scalar::Int, Scalar::Unsigned, Scalar::Float, Scalar::Bool]))
                .prop_map(|((a, _), to)| (format!("(({to}) {a})"), to)),
            inner.clone().prop_map(|(a, x)| (format!("(-{a})"), promoted(x))),
            inner.prop_map(|(a, _)| (format!("(!{a})"), Scalar::Bool)),
        ]
    })
}

fn promoted(x: Scalar) -> Scalar {
    if x == Scalar::Bool { Scalar::Int } else { x }
}

/// C's usual arithmetic conversions, written out again independently.
fn arithmetic(x: Scalar, y: Scalar) -> Scalar {
    let (x, y) = (promoted(x), promoted(y));
    if x == Scalar::Float || y == Scalar::Float {
        Scalar::Float
    } else if x == Scalar::Unsigned || y == Scalar::Unsigned {
        Scalar::Unsigned
    } else {
        Scalar::Int
    }
}

fn integral(text: String, ty: Scalar) -> (String, Scalar) {
    if ty == Scalar::Float { (format!("((int) {text})"), Scalar::Int) } else { (text, ty) }
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..1024)) {
        fuzzing::parse_check(&bytes);
    }

    #[test]
    fn mutated_kernels_give_a_program_or_a_located_error(source in mutated_example()) {
        if let Err(error) = check("k.cu", &source, &OPTIONS) {
            prop_assert!(error.line >= 1 && error.line as usize <= source.split('\n').count());
            prop_assert!(error.column >= 1);
            prop_assert!(error.span.end as usize <= source.len());
            let prefix = format!("k.cu:{}:{}: error: ", error.line, error.column);
            prop_assert!(error.to_string().starts_with(&prefix));
        }
    }

    #[test]
    fn expressions_take_the_usual_arithmetic_conversions((expr, expect) in typed_expression()) {
        let source = format!(
            "__global__ void k(float* out, int i, unsigned u, float f, bool b) {{\n    out[0] = {expr};\n}}\nvoid host() {{}}\n"
        );
        let program = check("k.cu", &source, &OPTIONS).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let StmtKind::Expr(assign) = &program.functions[0].body.stmts[0].kind else {
            return Err(TestCaseError::fail("not an expression statement"));
        };
        let ExprKind::Assign { value, .. } = &assign.kind else { return Err(TestCaseError::fail("not an assignment")) };
        // The stored value is converted to float implicitly unless it is one.
        let ty = match &value.kind {
            ExprKind::Convert { operand, implicit: true } => operand.ty,
            _ => value.ty,
        };
        prop_assert_eq!(ty, Type::Scalar(expect), "{}", expr);
    }
}

/// Inputs at and just past the nesting limit, of every kind that nests,
/// parsed and checked on a 1 MiB stack (a WebAssembly worker's) in this
/// unoptimised build: each gives a program or a limit error, never a stack
/// overflow.
#[test]
fn the_deepest_inputs_fit_a_small_stack() {
    let n = MAX_NESTING_DEPTH;
    let wrap =
        |statements: String| format!("__global__ void k(int* p, int x) {{\n{statements}\n}}\nvoid host() {{}}\n");
    let cases: Vec<(String, usize)> = (n - 4..n + 4)
        .flat_map(|depth| {
            [
                wrap(format!("x = {}1{};", "(".repeat(depth), ")".repeat(depth))),
                wrap(format!("x = {}1{};", "-(".repeat(depth), ")".repeat(depth))),
                wrap(format!("x = {}1{};", "p[".repeat(depth), "]".repeat(depth))),
                wrap(format!("x = 1{};", " + x".repeat(depth))),
                wrap(format!("x = {}x;", "x ? x : ".repeat(depth))),
                wrap(format!("{}x = 1;", "if (x) ".repeat(depth))),
                wrap(format!("{}x = 1;{}", "{".repeat(depth), "}".repeat(depth))),
                wrap(format!("{}x = 1;", "while (x) for (;;) ".repeat(depth / 2))),
                wrap(format!("x = {}1;", "!".repeat(depth))),
            ]
            .map(|source| (source, depth))
        })
        .collect();
    let outcomes = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            cases
                .iter()
                .map(|(source, depth)| match check("k.cu", source, &OPTIONS) {
                    Ok(_) => (*depth, None),
                    Err(error) => (*depth, Some(error.message)),
                })
                .collect::<Vec<_>>()
        })
        .expect("spawns")
        .join()
        .expect("no stack overflow");
    let limit = format!("nesting deeper than {n} levels is not supported");
    for (depth, error) in &outcomes {
        assert!(error.as_deref().is_none_or(|message| message == limit), "depth {depth}: {error:?}");
    }
    // Well inside the limit everything checks; well past it nothing does.
    assert!(outcomes.iter().filter(|(depth, _)| *depth == n - 4).any(|(_, error)| error.is_none()));
    assert!(outcomes.iter().filter(|(depth, _)| *depth == n + 3).all(|(_, error)| error.is_some()));
}
