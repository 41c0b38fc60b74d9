//! Realistic kernels with the host code that allocates and launches them
//! (`examples/*.cu`) check into typed programs with the types, conversions,
//! shared-memory layouts and launches C and CUDA give them, and every node of
//! the typed tree is consistent with its children and within the source.

use warplab_cuda::ast::{BinaryOp, FunctionKind};
use warplab_cuda::typed::{
    ArrayInit, Block, Builtin, Expr, ExprKind, Function, Launch, Place, Program, Stmt, StmtKind, Value,
};
use warplab_cuda::types::{Pointer, Scalar, Space, Type};
use warplab_cuda::{CheckOptions, Span, check};

const VECADD: &str = include_str!("../examples/vecadd.cu");
const TRANSPOSE: &str = include_str!("../examples/transpose.cu");
const REDUCTION: &str = include_str!("../examples/reduction.cu");
const HISTOGRAM: &str = include_str!("../examples/histogram.cu");
const MATMUL: &str = include_str!("../examples/matmul.cu");

const VOLTA: CheckOptions = CheckOptions { shared_bytes_per_block: 48 * 1024 };

fn compile(name: &str, source: &str) -> Program {
    let program = check(name, source, &VOLTA).unwrap_or_else(|error| panic!("{error}"));
    let consistency = Consistency { program: &program, source_len: source.len() };
    for function in &program.functions {
        consistency.block(function, &function.body);
    }
    program
}

fn function<'a>(program: &'a Program, name: &str) -> &'a Function {
    program.functions.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no function {name}"))
}

fn variable_type(function: &Function, name: &str) -> Type {
    function.variables.iter().find(|v| v.name == name).unwrap_or_else(|| panic!("no variable {name}")).ty
}

/// The launches of `host()`, in source order, however deeply nested.
fn launches(program: &Program) -> Vec<&Launch> {
    fn walk<'a>(block: &'a Block, out: &mut Vec<&'a Launch>) {
        for stmt in &block.stmts {
            walk_stmt(stmt, out);
        }
    }
    fn walk_stmt<'a>(stmt: &'a Stmt, out: &mut Vec<&'a Launch>) {
        match &stmt.kind {
            StmtKind::Launch(launch) => out.push(launch),
            StmtKind::If { then, otherwise, .. } => {
                walk(then, out);
                otherwise.iter().for_each(|b| walk(b, out));
            }
            StmtKind::Loop { body, .. } | StmtKind::Block(body) => walk(body, out),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(&program.functions[program.host.0 as usize].body, &mut out);
    out
}

const fn global(elem: Scalar, is_const: bool) -> Type {
    Type::Pointer(Pointer { elem, is_const, space: Space::Global })
}

#[test]
fn vecadd_checks_with_its_launch() {
    let program = compile("vecadd.cu", VECADD);
    assert_eq!(program.functions.len(), 2);
    let kernel = function(&program, "vecadd");
    assert_eq!(kernel.kind, FunctionKind::Kernel);
    let params: Vec<Type> = kernel.params.iter().map(|id| kernel.variables[id.0 as usize].ty).collect();
    assert_eq!(
        params,
        [
            global(Scalar::Float, true),
            global(Scalar::Float, true),
            global(Scalar::Float, false),
            Type::Scalar(Scalar::Int)
        ]
    );
    // `int i = blockIdx.x * blockDim.x + threadIdx.x;` is computed in
    // `unsigned int` and converted to `int` implicitly.
    let StmtKind::Let { init: Some(init), .. } = &kernel.body.stmts[0].kind else { panic!("a declaration") };
    let ExprKind::Convert { operand, implicit: true } = &init.kind else { panic!("an implicit conversion: {init:?}") };
    assert!(matches!(operand.kind, ExprKind::Binary { op: BinaryOp::Add, operand_type: Scalar::Unsigned, .. }));
    assert_eq!(init.ty, Type::Scalar(Scalar::Int));

    let host = function(&program, "host");
    assert_eq!(variable_type(host, "a"), global(Scalar::Float, false));
    let StmtKind::Let { init: Some(array), .. } = &host.body.stmts[0].kind else { panic!("a declaration") };
    let ExprKind::DeviceArray { elem: Scalar::Float, init: ArrayInit::Uniform(lo, hi), .. } = &array.kind else {
        panic!("a device array: {array:?}")
    };
    assert_eq!((&lo.kind, &hi.kind), (&ExprKind::Const(Value::Float(0.0)), &ExprKind::Const(Value::Float(1.0))));
    let launches = launches(&program);
    assert_eq!(launches.len(), 1);
    assert_eq!(launches[0].kernel.0, 0);
    assert_eq!(launches[0].args.len(), 4);
}

#[test]
fn transposes_lay_out_their_tiles_with_and_without_padding() {
    let program = compile("transpose.cu", TRANSPOSE);
    let naive = function(&program, "transpose_naive");
    assert_eq!(naive.shared_bytes, 0);
    assert_eq!(variable_type(naive, "x"), Type::Scalar(Scalar::Unsigned));
    let tiled = function(&program, "transpose_tiled");
    assert_eq!(tiled.shared_arrays[0].dims, [32, 32]);
    assert_eq!(tiled.shared_bytes, 32 * 32 * 4);
    let padded = function(&program, "transpose_padded");
    assert_eq!(padded.shared_arrays[0].dims, [32, 33]);
    assert_eq!(padded.shared_bytes, 32 * 33 * 4);
    let host = function(&program, "host");
    assert_eq!(variable_type(host, "grid"), Type::Dim3);
    let launches = launches(&program);
    assert_eq!(launches.iter().map(|l| l.kernel.0).collect::<Vec<_>>(), [0, 1, 2]);
    // `dim3(TILE, TILE, 1)` and the `dim3 block(TILE, TILE)` variable alike.
    let ExprKind::Dim3(sizes) = &launches[2].block.kind else { panic!("a dim3: {:?}", launches[2].block) };
    assert!(sizes.iter().all(|s| s.ty == Type::Scalar(Scalar::Unsigned)));
    assert!(matches!(launches[0].block.kind, ExprKind::Load(Place::Var(_))));
}

#[test]
fn reduction_variants_launch_from_a_loop() {
    let program = compile("reduction.cu", REDUCTION);
    for name in ["reduce_divergent", "reduce_sequential"] {
        let kernel = function(&program, name);
        assert_eq!(kernel.shared_bytes, 256 * 4);
        assert_eq!(variable_type(kernel, "s"), Type::Scalar(Scalar::Unsigned));
    }
    let launches = launches(&program);
    assert_eq!(launches.len(), 2);
    // `sum + 1` is pointer arithmetic.
    assert!(matches!(launches[1].args[1].kind, ExprKind::PointerOffset { subtract: false, .. }));
    // An integer grid becomes a dim3 of (n / BLOCK, 1, 1).
    assert_eq!(launches[0].grid.ty, Type::Dim3);
}

#[test]
fn histogram_adds_atomically_to_shared_and_global_memory() {
    let program = compile("histogram.cu", HISTOGRAM);
    let kernel = function(&program, "histogram");
    let atomics = builtins(&kernel.body, Builtin::AtomicAdd);
    assert_eq!(atomics.len(), 2);
    let spaces: Vec<_> = atomics.iter().map(|args| args[0].ty.pointer().map(|p| p.space)).collect();
    assert_eq!(spaces, [Some(Space::Shared), Some(Space::Global)]);
    // The literal 1 is converted to the element type, `unsigned int`.
    assert_eq!(atomics[0][1].ty, Type::Scalar(Scalar::Unsigned));
    assert!(launches(&program)[0].shared_bytes.is_some());
}

#[test]
fn matmul_calls_its_device_function() {
    let program = compile("matmul.cu", MATMUL);
    let kernel = function(&program, "matmul");
    assert_eq!(kernel.shared_arrays.len(), 2);
    assert_eq!(kernel.shared_arrays[1].offset_bytes, 16 * 16 * 4);
    assert_eq!(kernel.shared_bytes, 2 * 16 * 16 * 4);
    let helper = function(&program, "dot_tile");
    assert_eq!((helper.kind, helper.return_type), (FunctionKind::Device, Type::Scalar(Scalar::Float)));
    assert_eq!(builtins(&kernel.body, Builtin::SyncThreads).len(), 2);
}

#[test]
fn a_smaller_gpu_refuses_the_padded_tile() {
    let small = CheckOptions { shared_bytes_per_block: 4096 };
    let error = check("transpose.cu", TRANSPOSE, &small).expect_err("too much shared memory");
    assert_eq!(
        error.headline(),
        "transpose.cu:25:22: error: the '__shared__' arrays of kernel 'transpose_padded' need 4224 bytes, more than the 4096 bytes of shared memory per block"
    );
    assert_eq!(error.caret_line(), "                     ^");
}

/// The arguments of every call of `builtin` in `block`, in source order.
fn builtins(block: &Block, builtin: Builtin) -> Vec<Vec<Expr>> {
    let mut found = Vec::new();
    visit_block(block, &mut |expr| {
        if let ExprKind::Builtin { builtin: b, args } = &expr.kind
            && *b == builtin
        {
            found.push(args.clone());
        }
    });
    found
}

fn visit_block(block: &Block, f: &mut dyn FnMut(&Expr)) {
    for stmt in &block.stmts {
        visit_stmt(stmt, f);
    }
}

fn visit_stmt(stmt: &Stmt, f: &mut dyn FnMut(&Expr)) {
    match &stmt.kind {
        StmtKind::Let { init, .. } => init.iter().for_each(|e| visit_expr(e, f)),
        StmtKind::Expr(e) => visit_expr(e, f),
        StmtKind::Return(e) => e.iter().for_each(|e| visit_expr(e, f)),
        StmtKind::If { cond, then, otherwise } => {
            visit_expr(cond, f);
            visit_block(then, f);
            otherwise.iter().for_each(|b| visit_block(b, f));
        }
        StmtKind::Loop { init, cond, step, body } => {
            init.iter().for_each(|s| visit_stmt(s, f));
            cond.iter().chain(step).for_each(|e| visit_expr(e, f));
            visit_block(body, f);
        }
        StmtKind::Block(b) => visit_block(b, f),
        StmtKind::Launch(launch) => {
            [&launch.grid, &launch.block]
                .into_iter()
                .chain(&launch.shared_bytes)
                .chain(&launch.args)
                .for_each(|e| visit_expr(e, f));
        }
        StmtKind::Shared(_) | StmtKind::Break | StmtKind::Continue => {}
    }
}

fn visit_place(place: &Place, f: &mut dyn FnMut(&Expr)) {
    match place {
        Place::Var(_) => {}
        Place::Element { pointer, index } => {
            visit_expr(pointer, f);
            visit_expr(index, f);
        }
        Place::Shared { indices, .. } => indices.iter().for_each(|e| visit_expr(e, f)),
    }
}

fn visit_expr(expr: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(expr);
    match &expr.kind {
        ExprKind::Const(_) | ExprKind::Special(..) => {}
        ExprKind::Load(place) | ExprKind::AddressOf(place) | ExprKind::Step { place, .. } => visit_place(place, f),
        ExprKind::Unary(_, e) | ExprKind::Convert { operand: e, .. } => visit_expr(e, f),
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } => {
            visit_expr(lhs, f);
            visit_expr(rhs, f);
        }
        ExprKind::PointerOffset { pointer, offset, .. } => {
            visit_expr(pointer, f);
            visit_expr(offset, f);
        }
        ExprKind::Conditional { cond, then, otherwise } => {
            [cond, then, otherwise].into_iter().for_each(|e| visit_expr(e, f));
        }
        ExprKind::Assign { place, value, .. } => {
            visit_place(place, f);
            visit_expr(value, f);
        }
        ExprKind::Call { args, .. } | ExprKind::Builtin { args, .. } => args.iter().for_each(|e| visit_expr(e, f)),
        ExprKind::DeviceArray { length, init, .. } => {
            visit_expr(length, f);
            match init {
                ArrayInit::Fill(v) => visit_expr(v, f),
                ArrayInit::Uniform(a, b) | ArrayInit::RandInt(a, b) => {
                    visit_expr(a, f);
                    visit_expr(b, f);
                }
                ArrayInit::Zeros | ArrayInit::Iota => {}
            }
        }
        ExprKind::Dim3(sizes) => sizes.iter().for_each(|e| visit_expr(e, f)),
    }
}

/// The typed tree's invariants, checked on every node.
struct Consistency<'a> {
    program: &'a Program,
    source_len: usize,
}

impl Consistency<'_> {
    fn block(&self, function: &Function, block: &Block) {
        self.span(block.span);
        visit_block(block, &mut |expr| self.expr(function, expr));
    }

    fn span(&self, span: Span) {
        assert!(span.start <= span.end && span.end as usize <= self.source_len, "span {span:?}");
    }

    fn expr(&self, function: &Function, expr: &Expr) {
        self.span(expr.span);
        match &expr.kind {
            ExprKind::Binary { op, operand_type, lhs, rhs } => {
                assert_eq!((lhs.ty, rhs.ty), (Type::Scalar(*operand_type), Type::Scalar(*operand_type)));
                let result = if op.is_comparison() { Scalar::Bool } else { *operand_type };
                assert_eq!(expr.ty, Type::Scalar(result));
            }
            ExprKind::Logical { lhs, rhs, .. } => {
                assert_eq!([lhs.ty, rhs.ty, expr.ty], [Type::Scalar(Scalar::Bool); 3]);
            }
            ExprKind::Load(Place::Var(id)) => assert_eq!(expr.ty, function.variables[id.0 as usize].ty),
            ExprKind::Load(Place::Shared { array, indices }) => {
                let array = &function.shared_arrays[array.0 as usize];
                assert_eq!((expr.ty, indices.len()), (Type::Scalar(array.elem), array.dims.len()));
            }
            ExprKind::Convert { operand, .. } => {
                assert!(operand.ty.scalar().is_some() && expr.ty.scalar().is_some(), "{expr:?}");
            }
            ExprKind::Call { function: callee, args } => {
                let callee = &self.program.functions[callee.0 as usize];
                let params: Vec<Type> =
                    callee.params.iter().map(|p| without_const(callee.variables[p.0 as usize].ty)).collect();
                assert_eq!(args.iter().map(|a| without_const(a.ty)).collect::<Vec<_>>(), params);
                assert_eq!(expr.ty, callee.return_type);
            }
            _ => {}
        }
    }
}

fn without_const(ty: Type) -> Type {
    match ty {
        Type::Pointer(pointer) => Type::Pointer(Pointer { is_const: false, ..pointer }),
        ty => ty,
    }
}

#[test]
fn everyday_c_details_are_accepted() {
    let source = "// CRLF line ends, pragmas, qualifiers and C's corners.\r\n\
        #define SCALE (2.0f * 1.5f)\r\n\
        #define MASK 0xffu\r\n\
        __device__ __forceinline__ float clamp01(const float x) { return min(max(x, 0.0f), 1.0f); }\r\n\
        __global__ void k(const float* __restrict__ in, float* const out, unsigned int n) {\r\n\
            #pragma unroll\r\n\
            for (int i = 0, j = n - 1; i < j; ++i, --j) {}\r\n\
        }\r\n\
        void host() {}\r\n";
    // The comma operator in the loop's step is outside the subset...
    let error = check("k.cu", source, &VOLTA).expect_err("the comma operator");
    assert_eq!(error.headline(), "k.cu:7:38: error: the comma operator is not supported");
    // ...and everything else is inside it.
    let source = source.replace("++i, --j", "++i");
    let program = compile("k.cu", &source);
    let kernel = function(&program, "k");
    assert!(kernel.variables[1].is_const, "float* const out");
    assert_eq!(variable_type(kernel, "j"), Type::Scalar(Scalar::Int));
    let StmtKind::Loop { init: Some(init), .. } = &kernel.body.stmts[0].kind else { panic!("a loop") };
    assert!(matches!(init.kind, StmtKind::Block(ref b) if b.stmts.len() == 2), "two declarators: {init:?}");
    let clamp = function(&program, "clamp01");
    let StmtKind::Return(Some(value)) = &clamp.body.stmts[0].kind else { panic!("a return") };
    assert!(matches!(value.kind, ExprKind::Builtin { builtin: Builtin::Min, .. }));
    assert_eq!(value.ty, Type::Scalar(Scalar::Float));
}

#[test]
fn host_code_computes_shapes_and_loops_over_launches() {
    let source = "\
__global__ void step(float* x, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] + dt * expf(-x[i]) - __fdividef(x[i], 8.0f) + sinf(fabsf(x[i])) * sqrtf(2.0f);
}
void host() {
    int n = 5000;
    int threads = 128;
    int blocks = max(1, (n + threads - 1) / threads);
    float* x = device_array<float>(n, fill(1));
    dim3 grid = dim3(blocks);
    for (int t = 0; t < 10; t++) {
        if (t % 2 == 0) step<<<blocks, threads>>>(x, n, 0.01f * t);
        else step<<<grid, dim3(threads), 0>>>(x, n, 0.02f);
    }
    int* counts = device_array<int>(n, randint(0, 9));
    unsigned* ids = device_array<unsigned>(n, iota());
}
";
    let program = compile("step.cu", source);
    let host = function(&program, "host");
    assert_eq!(variable_type(host, "blocks"), Type::Scalar(Scalar::Int));
    let launches = launches(&program);
    assert_eq!(launches.len(), 2);
    assert_eq!(variable_type(host, "grid"), Type::Dim3);
    // `0.01f * t` is a float; `fill(1)` converts its int to the element type.
    assert_eq!(launches[0].args[2].ty, Type::Scalar(Scalar::Float));
    let StmtKind::Let { init: Some(x), .. } = &host.body.stmts[3].kind else { panic!("x") };
    assert_eq!(host.variables[3].name, "x");
    let ExprKind::DeviceArray { init: ArrayInit::Fill(value), .. } = &x.kind else { panic!("a fill: {x:?}") };
    assert_eq!(value.ty, Type::Scalar(Scalar::Float));
    assert_eq!(variable_type(host, "ids"), global(Scalar::Unsigned, false));
}

#[test]
fn a_name_comes_into_scope_after_its_initializer() {
    let source = "__global__ void k(int* p, int n) {\n    if (n > 0) {\n        int n = n + 1;\n        p[0] = n;\n    }\n}\nvoid host() {}\n";
    let program = compile("k.cu", source);
    let kernel = function(&program, "k");
    let StmtKind::If { then, .. } = &kernel.body.stmts[0].kind else { panic!("an if") };
    let StmtKind::Let { var, init: Some(init) } = &then.stmts[0].kind else { panic!("a declaration") };
    assert_eq!(var.0, 2, "a new variable after p and n");
    let ExprKind::Binary { lhs, .. } = &init.kind else { panic!("n + 1") };
    assert_eq!(lhs.kind, ExprKind::Load(Place::Var(kernel.params[1])), "the parameter n");
    // The store reads the inner n.
    let StmtKind::Expr(store) = &then.stmts[1].kind else { panic!("a store") };
    let ExprKind::Assign { value, .. } = &store.kind else { panic!("an assignment") };
    assert_eq!(value.kind, ExprKind::Load(Place::Var(*var)));
}
