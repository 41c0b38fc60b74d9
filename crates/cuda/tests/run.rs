//! The functional run (issue 41): the example kernels compute what a host
//! reference computes, divergent branches reconverge where GPGPU-Sim's SIMT
//! stack does, and every fault and limit stops the run at its source with
//! compute-sanitizer's words.

use warplab_cuda::run::DeviceArray;
use warplab_cuda::{CheckOptions, Run, RunOptions, compile, run};
use warplab_trace::{Isa, OpcodeTable};

const VECADD: &str = include_str!("../examples/vecadd.cu");
const TRANSPOSE: &str = include_str!("../examples/transpose.cu");
const REDUCTION: &str = include_str!("../examples/reduction.cu");
const HISTOGRAM: &str = include_str!("../examples/histogram.cu");
const MATMUL: &str = include_str!("../examples/matmul.cu");
const EXAMPLES: [(&str, &str); 5] = [
    ("vecadd.cu", VECADD),
    ("transpose.cu", TRANSPOSE),
    ("reduction.cu", REDUCTION),
    ("histogram.cu", HISTOGRAM),
    ("matmul.cu", MATMUL),
];

const VOLTA: CheckOptions = CheckOptions { shared_bytes_per_block: 48 * 1024 };

fn options(record: bool) -> RunOptions {
    RunOptions {
        max_warp_insts: warplab_cuda::DEFAULT_MAX_WARP_INSTS,
        budget_hint: "set with --max-warp-insts".to_owned(),
        record,
        shared_bytes_per_block: 48 * 1024,
        registers_per_block: 65_536,
        binary_version: 70,
    }
}

fn execute(file: &str, source: &str) -> Run {
    let compiled = compile(file, source, &VOLTA).unwrap_or_else(|error| panic!("{error}"));
    run(file, source, &compiled, &options(false)).unwrap_or_else(|error| panic!("{error}"))
}

/// The error a run stops with, as printed.
fn failure(source: &str, options: &RunOptions) -> String {
    let compiled = compile("k.cu", source, &VOLTA).unwrap_or_else(|error| panic!("{error}"));
    run("k.cu", source, &compiled, options).expect_err("the run should fail").to_string()
}

fn array<'a>(run: &'a Run, name: &str) -> &'a DeviceArray {
    run.arrays.iter().find(|array| array.name == name).unwrap_or_else(|| panic!("no array {name}"))
}

fn floats(run: &Run, name: &str) -> Vec<f32> {
    array(run, name).words.iter().map(|&w| f32::from_bits(w)).collect()
}

fn ints(run: &Run, name: &str) -> Vec<i32> {
    array(run, name).words.iter().map(|&w| w as i32).collect()
}

#[test]
fn vecadd_adds() {
    let run = execute("vecadd.cu", VECADD);
    let (a, b, c) = (floats(&run, "a"), floats(&run, "b"), floats(&run, "c"));
    assert_eq!(c.len(), 1 << 20);
    let expect: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(c, expect);
    assert!(a.iter().all(|&x| (0.0..1.0).contains(&x)), "uniform(0, 1) stays in [0, 1)");
    assert_eq!(run.launches[0].registers, 6);
}

#[test]
fn vecadd_compiles_to_the_listing_nvcc_would_write_unoptimised() {
    let compiled = compile("vecadd.cu", VECADD, &VOLTA).unwrap();
    let kernel = &compiled.kernels[0];
    let listing: Vec<String> = warplab_cuda::listing(kernel, VECADD)
        .lines()
        .map(|line| line.split(" //").next().unwrap_or_default().trim_end().to_owned())
        .collect();
    let expect = "\
/*0000*/  S2R R0, SR_CTAID.X ;
/*0010*/  IMAD R1, R0, c[0x0][0x0], RZ ;
/*0020*/  S2R R0, SR_TID.X ;
/*0030*/  IADD3 R2, R1, R0, RZ ;
/*0040*/  ISETP.LT.AND P0, PT, R2, c[0x0][0x178], PT ;
/*0050*/  @!P0 BRA 0x00d0 ;
/*0060*/  IMAD.WIDE R0.64, R2, 0x4, c[0x0][0x170] ;
/*0070*/  IMAD.WIDE R4.64, R2, 0x4, c[0x0][0x160] ;
/*0080*/  LDG.E R3, [R4.64] ;
/*0090*/  IMAD.WIDE R4.64, R2, 0x4, c[0x0][0x168] ;
/*00a0*/  LDG.E R2, [R4.64] ;
/*00b0*/  FADD R4, R3, R2 ;
/*00c0*/  STG.E [R0.64], R4 ;
/*00d0*/  EXIT ;";
    assert_eq!(listing.join("\n"), expect);
    assert_eq!(kernel.registers, 6);
}

/// Issue 41: "No optimisation. Nothing the source says is removed: no loop,
/// however empty, and no dead store."
#[test]
fn an_empty_loop_and_dead_stores_stay_in_the_listing_and_run() {
    let source = "__global__ void k(int* a, int n) {\n    for (int i = 0; i < n; i++) {\n    }\n    int unused = n * 3;\n    a[0] = 1;\n    a[0] = 2;\n}\nvoid host() {\n    int* a = device_array<int>(1);\n    k<<<1, 32>>>(a, 10);\n}\n";
    let compiled = compile("k.cu", source, &VOLTA).unwrap();
    let rows: Vec<(String, u32)> = warplab_cuda::listing_rows(&compiled.kernels[0], source)
        .into_iter()
        .map(|row| (format!("/*{:04x}*/  {}", row.pc, row.sass), row.line))
        .collect();
    let expect = [
        ("/*0000*/  MOV R0, 0x0 ;", 2),
        ("/*0010*/  ISETP.LT.AND P0, PT, R0, c[0x0][0x168], PT ;", 2),
        ("/*0020*/  @!P0 BRA 0x0050 ;", 2),
        ("/*0030*/  IADD3 R0, R0, 0x1, RZ ;", 2),
        ("/*0040*/  BRA 0x0010 ;", 2),
        ("/*0050*/  IMAD R0, c[0x0][0x168], 0x3, RZ ;", 4),
        ("/*0060*/  IMAD.WIDE R0.64, 0x0, 0x4, c[0x0][0x160] ;", 5),
        ("/*0070*/  STG.E [R0.64], 0x1 ;", 5),
        ("/*0080*/  IMAD.WIDE R0.64, 0x0, 0x4, c[0x0][0x160] ;", 6),
        ("/*0090*/  STG.E [R0.64], 0x2 ;", 6),
        ("/*00a0*/  EXIT ;", 7),
    ];
    assert_eq!(rows, expect.map(|(sass, line)| (sass.to_owned(), line)));
    // The one warp runs the loop's test 11 times and its increment 10 times:
    // 1 + 11 * 2 + 10 * 2 + 1 + 2 * 2 + 1 warp instructions.
    let run = run("k.cu", source, &compiled, &options(false)).unwrap();
    assert_eq!(run.warp_insts, 49);
    assert_eq!(ints(&run, "a"), [2], "the second store wins");
}

#[test]
fn every_transpose_transposes() {
    let run = execute("transpose.cu", TRANSPOSE);
    let input = floats(&run, "in");
    let width = 512;
    for name in ["naive", "tiled", "padded"] {
        let out = floats(&run, name);
        for y in 0..width {
            for x in 0..width {
                assert_eq!(out[x * width + y], input[y * width + x], "{name} at ({x}, {y})");
            }
        }
    }
}

/// Lab 4's steps (docs/labs/kernels/): each file's one kernel transposes
/// `in` into `out`, and the tiled ones take twice the naive one's warp
/// instructions (the shared-memory store, the barrier and the load).
#[test]
fn every_lab_4_step_transposes() {
    let steps = [
        ("4a-naive.cu", include_str!("../../../docs/labs/kernels/4a-naive.cu")),
        ("4b-tiled.cu", include_str!("../../../docs/labs/kernels/4b-tiled.cu")),
        ("4c-padded.cu", include_str!("../../../docs/labs/kernels/4c-padded.cu")),
    ];
    let width = 512;
    let mut warp_insts = Vec::new();
    for (file, source) in steps {
        let run = execute(file, source);
        let (input, out) = (floats(&run, "in"), floats(&run, "out"));
        assert_eq!(input.len(), width * width, "{file}");
        assert!(input.iter().any(|&v| v != 0.0), "{file}: the input is random");
        for y in 0..width {
            for x in 0..width {
                assert_eq!(out[x * width + y], input[y * width + x], "{file} at ({x}, {y})");
            }
        }
        warp_insts.push(run.launches.iter().map(|launch| launch.warp_insts).sum::<u64>());
    }
    assert!(warp_insts[1] > warp_insts[0] && warp_insts[1] == warp_insts[2], "{warp_insts:?}");
}

#[test]
fn both_reductions_sum_the_input() {
    let run = execute("reduction.cu", REDUCTION);
    let sum: i32 = ints(&run, "in").iter().sum();
    // Launched from a loop, the divergent form into sum[0], the other into sum[1].
    assert_eq!(ints(&run, "sum"), [sum, sum]);
    // The divergent form keeps every warp busy for more steps.
    assert!(run.launches[0].warp_insts > run.launches[1].warp_insts);
}

#[test]
fn histogram_counts_every_value() {
    let run = execute("histogram.cu", HISTOGRAM);
    let mut expect = vec![0; 64];
    assert_eq!(array(&run, "data").words.len(), 65536);
    for value in ints(&run, "data") {
        assert!((0..=1000).contains(&value), "randint(0, 1000) includes both ends only");
        expect[value as usize % 64] += 1;
    }
    assert_eq!(ints(&run, "bins"), expect);
}

#[test]
fn matmul_multiplies_in_the_kernels_order() {
    let run = execute("matmul.cu", MATMUL);
    let (a, b, c) = (floats(&run, "A"), floats(&run, "B"), floats(&run, "C"));
    let n = 256;
    for row in (0..n).step_by(37) {
        for col in 0..n {
            // FMUL then FADD, as `acc + a * b` compiles: the same rounding.
            let expect = (0..n).fold(0.0f32, |acc, k| acc + a[row * n + k] * b[k * n + col]);
            assert_eq!(c[row * n + col], expect, "C[{row}][{col}]");
        }
    }
}

#[test]
fn the_same_file_gives_the_same_data() {
    let (first, second) = (execute("histogram.cu", HISTOGRAM), execute("histogram.cu", HISTOGRAM));
    assert_eq!(first.arrays, second.arrays);
    assert_eq!(first.warp_insts, second.warp_insts);
}

#[test]
fn every_emitted_opcode_is_in_accel_sims_tables() {
    for (file, source) in EXAMPLES.iter().copied().chain([("division", DIVISION)]) {
        let compiled = compile(file, source, &VOLTA).unwrap_or_else(|error| panic!("{error}"));
        for version in [70, 75, 80, 86] {
            let mut table = OpcodeTable::new(Isa::for_binary_version(version).0);
            for kernel in &compiled.kernels {
                for inst in &kernel.insts {
                    let id = table.intern(&inst.text, &mut Vec::new()).expect("room");
                    assert!(!table.info(id).unknown, "{file}: {} unknown to sm_{version}", inst.text);
                }
            }
        }
    }
}

const DIVISION: &str = r#"
__global__ void divide(const int* a, const int* b, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int d = i % 2 == 0 ? b[i] : -b[i];
        out[i] = a[i] / d;
        out[n + i] = a[i] % d;
        unsigned ua = a[i];
        unsigned ud = d;
        out[2 * n + i] = ua / ud;
        out[3 * n + i] = ua % ud;
    }
}
void host() {
    int n = 4096;
    int* a = device_array<int>(n, randint(-2147483647, 2147483647));
    int* b = device_array<int>(n, randint(1, 70000));
    int* small = device_array<int>(4 * n);
    int* large = device_array<int>(4 * n);
    divide<<<n / 128, 128>>>(a, b, small, n);
    divide<<<n / 128, 128>>>(b, a, large, n);
}
"#;

#[test]
fn integer_division_sequences_divide_exactly() {
    // Small divisors (b) and huge ones (a), signed and unsigned, against
    // Rust's division.
    let run = execute("division.cu", DIVISION);
    let (a, b) = (ints(&run, "a"), ints(&run, "b"));
    let n = a.len();
    for (name, dividend, divisor) in [("small", &a, &b), ("large", &b, &a)] {
        let out = ints(&run, name);
        for i in 0..n {
            let (x, y) = (dividend[i], if i % 2 == 0 { divisor[i] } else { divisor[i].wrapping_neg() });
            assert_eq!((out[i], out[n + i]), (x.wrapping_div(y), x.wrapping_rem(y)), "{x} / {y}");
            let (ux, uy) = (x as u32, y as u32);
            assert_eq!((out[2 * n + i] as u32, out[3 * n + i] as u32), (ux / uy, ux % uy), "{ux} / {uy}");
        }
    }
}

#[test]
fn divergent_paths_reconverge_at_the_immediate_post_dominator() {
    let source = r#"
__global__ void k(int* out) {
    int t = threadIdx.x;
    if (t % 2 == 0) {
        out[t] = 1;
    } else {
        out[t] = 2;
    }
    out[t + 32] = 3;
}
void host() {
    int* out = device_array<int>(64);
    k<<<1, 32>>>(out);
}
"#;
    let compiled = compile("k.cu", source, &VOLTA).unwrap();
    let result = run("k.cu", source, &compiled, &options(true)).unwrap();
    assert_eq!(ints(&result, "out")[..4], [1, 2, 1, 2]);
    let workload = result.workload.expect("recorded");
    let kernel = workload.kernels().next().unwrap();
    let mut stores = Vec::new();
    kernel.for_each_cta(|cta| {
        for inst in &cta.instructions {
            if kernel.opcodes().info(inst.opcode).text.starts_with("STG") {
                stores.push(inst.mask);
            }
        }
    });
    // The taken path (odd lanes jump to `else`) runs first, then the other,
    // then the store after the `if` with every lane again.
    assert_eq!(stores, [0xaaaa_aaaa, 0x5555_5555, u32::MAX]);
}

#[test]
fn an_out_of_bounds_read_names_the_array_index_thread_and_block() {
    let source = "__global__ void k(const float* a, float* b, int n) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    b[i] = a[i + 1];\n}\nvoid host() {\n    float* a = device_array<float>(64);\n    float* b = device_array<float>(64);\n    k<<<2, 32>>>(a, b, 64);\n}\n";
    assert_eq!(
        failure(source, &options(false)),
        "k.cu:3:12: error: invalid __global__ read of size 4 bytes by thread (31,0,0) in block (1,0,0): index 64 is \
         out of bounds for 'a' (64 elements)\n    b[i] = a[i + 1];\n           ^"
    );
}

#[test]
fn an_out_of_bounds_write_before_the_array_is_caught() {
    let source = "__global__ void k(int* a) {\n    a[(int)threadIdx.x - 1] = 0;
}\nvoid host() {\n    int* a = device_array<int>(32);\n    k<<<1, 32>>>(a);\n}\n";
    let message = failure(source, &options(false));
    assert!(
        message.starts_with(
            "k.cu:2:5: error: invalid __global__ write of size 4 bytes by thread (0,0,0) in block (0,0,0): index -1 \
             is out of bounds for 'a' (32 elements)"
        ),
        "{message}"
    );
}

#[test]
fn an_out_of_bounds_shared_access_names_the_shared_array() {
    let source = "__global__ void k(int* a) {\n    __shared__ int s[32];\n    s[threadIdx.x + 1] = 1;\n    a[0] = s[0];\n}\nvoid host() {\n    int* a = device_array<int>(32);\n    k<<<1, 32>>>(a);\n}\n";
    assert_eq!(
        failure(source, &options(false)).lines().next().unwrap(),
        "k.cu:3:5: error: invalid __shared__ write of size 4 bytes by thread (31,0,0) in block (0,0,0): index 32 is \
         out of bounds for 's' (32 elements)"
    );
}

#[test]
fn an_integer_division_by_zero_stops_at_the_division() {
    let source = "__global__ void k(int* a, int d) {\n    a[threadIdx.x] = 10 / (d - threadIdx.x);\n}\nvoid host() {\n    int* a = device_array<int>(32);\n    k<<<1, 32>>>(a, 5);\n}\n";
    assert_eq!(
        failure(source, &options(false)).lines().next().unwrap(),
        "k.cu:2:22: error: integer division by zero by thread (5,0,0) in block (0,0,0)"
    );
    let host = "void host() {\n    int zero = 0;\n    int x = 1 % zero;\n}\n";
    assert_eq!(
        failure(host, &options(false)).lines().next().unwrap(),
        "k.cu:3:13: error: integer division by zero in host code"
    );
}

#[test]
fn a_kernel_past_its_budget_stops_where_the_budget_ran_out() {
    let source = "__global__ void spin(int* a) {\n    while (a[0] == 0) {\n        a[1] += 1;\n    }\n}\nvoid host() {\n    int* a = device_array<int>(2);\n    spin<<<1, 32>>>(a);\n}\n";
    let limited = RunOptions { max_warp_insts: 1000, ..options(false) };
    // 1,000 warp instructions run out in the loop's test, at `a[0]`.
    assert_eq!(
        failure(source, &limited),
        "k.cu:2:12: error: kernel 'spin' ran past its budget of 1000 warp instructions in one launch (set with \
         --max-warp-insts)\n    while (a[0] == 0) {\n           ^"
    );
    // The hint is the caller's: the page names its own limit, not the flag.
    let page = RunOptions { budget_hint: "the page's limit per launch".to_owned(), ..limited.clone() };
    assert_eq!(
        failure(source, &page).lines().next().unwrap(),
        "k.cu:2:12: error: kernel 'spin' ran past its budget of 1000 warp instructions in one launch (the page's \
         limit per launch)"
    );
    let silent = RunOptions { budget_hint: String::new(), ..limited };
    assert_eq!(
        failure(source, &silent).lines().next().unwrap(),
        "k.cu:2:12: error: kernel 'spin' ran past its budget of 1000 warp instructions in one launch"
    );
}

#[test]
fn launches_the_gpu_cannot_hold_stop_at_the_launch() {
    let source = "__global__ void k(int* a) {\n    a[threadIdx.x] = 1;\n}\nvoid host() {\n    int* a = device_array<int>(2048);\n    k<<<1, 32, 65536>>>(a);\n}\n";
    assert_eq!(
        failure(source, &options(false)).lines().next().unwrap(),
        "k.cu:6:5: error: too many resources requested for launch: 'k' needs 65536 bytes of shared memory per block, \
         more than the GPU's 49152"
    );
    let wide = source.replace("k<<<1, 32, 65536>>>(a)", "k<<<1, 2048>>>(a)");
    assert_eq!(
        failure(&wide, &options(false)).lines().next().unwrap(),
        "k.cu:6:5: error: invalid configuration argument: a block of 2048x1x1 threads for 'k' (at most 1024 \
         threads, 1024x1024x64)"
    );
}

#[test]
fn a_register_demand_the_gpu_cannot_hold_stops_at_the_launch() {
    // Eighty loads before the first add keep eighty values live at once, so
    // the kernel needs more than 64 registers per thread: a block of 1,024
    // threads asks for more than the GPU's 65,536, a block of 512 fits.
    let loads: String = (0..80).map(|i| format!("    float v{i} = a[{i}];\n")).collect();
    let sum: String = (1..80).map(|i| format!(" s += v{i};")).collect();
    let kernel = format!("__global__ void wide(float* a) {{\n{loads}    float s = v0;{sum} a[threadIdx.x] = s;\n}}\n");
    let launch = |threads: u32| {
        format!(
            "{kernel}void host() {{\n    float* a = device_array<float>(1024);\n    wide<<<1, {threads}>>>(a);\n}}\n"
        )
    };
    let registers = compile("k.cu", &launch(1024), &VOLTA).unwrap().kernels[0].registers;
    assert_eq!(registers, 82);
    // Registers are allocated four at a time (84 x 1,024); the launch is line
    // 86, after the kernel's 83 lines and the host's first two.
    assert_eq!(
        failure(&launch(1024), &options(false)),
        "k.cu:86:5: error: too many resources requested for launch: 'wide' needs 86016 registers per block (82 per \
         thread), more than the GPU's 65536\n    wide<<<1, 1024>>>(a);\n    ^"
    );
    let fits = launch(512);
    let compiled = compile("k.cu", &fits, &VOLTA).unwrap();
    assert!(run("k.cu", &fits, &compiled, &options(false)).is_ok(), "84 x 512 registers fit in 65,536");
}

#[test]
fn host_limits_stop_at_the_statement() {
    let arrays = "void host() {\n    float* a = device_array<float>(1 << 26);\n    float* b = device_array<float>(1 << 26);\n    float* c = device_array<float>(1);\n}\n";
    assert_eq!(
        failure(arrays, &options(false)).lines().next().unwrap(),
        "k.cu:4:16: error: device arrays of 134217729 elements in all are more than the 134217728 supported"
    );
    let spin = "void host() {\n    int x = 0;\n    while (true) {\n        x++;\n    }\n}\n";
    assert!(failure(spin, &options(false)).contains("error: host code ran past its budget of 100000000 steps"));
}

#[test]
fn device_calls_nest_only_so_deep() {
    let mut source = String::from("__device__ int f0(int x) { return x + 1; }\n");
    for level in 1..=10 {
        source += &format!("__device__ int f{level}(int x) {{ return f{}(x) + 1; }}\n", level - 1);
    }
    source += "__global__ void k(int* a) { a[0] = f10(a[0]); }\nvoid host() { int* a = device_array<int>(1); k<<<1, 1>>>(a); }\n";
    let error = compile("k.cu", &source, &VOLTA).expect_err("too deep");
    assert_eq!(
        error.headline(),
        "k.cu:4:35: error: '__device__' calls nested more than 8 deep are not supported (each call is inlined)"
    );
}

const CONSTRUCTS: &str = r#"
__device__ int clamp_add(int a, int b) {
    int s = a + b;
    if (s > 100) return 100;
    return s < -100 ? -100 : s;
}

__global__ void constructs(const int* in, int* out, float* f, unsigned* u, int* counters, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = in[i];
    out[8 * i] = clamp_add(x, x / 3);
    out[8 * i + 1] = (x > 0 && x % 2 == 0) || x < -50 ? 1 : 0;
    int a = x;
    a += 2.5f;
    a -= (unsigned)3;
    a <<= 2;
    a >>= 1;
    a ^= 0x55;
    out[8 * i + 2] = a;
    int loops = 0;
    for (int k = 0; k < 20; k++) {
        if (k % 3 == 0) continue;
        if (k * x > 500) break;
        loops += k;
    }
    while (loops > 40) loops -= 7;
    out[8 * i + 3] = loops;
    bool flag = x != 0;
    flag = !(x & 1) && flag;
    out[8 * i + 4] = flag;
    out[8 * i + 5] = min(x, 7) + max(-x, 3);
    out[8 * i + 6] = ~x >> 3;
    out[8 * i + 7] = x++ + ++x;
    f[i] = (float)x / 4.0f - fabsf((float)-x) * 0.5f;
    u[i] = -(unsigned)x % 1000u;
    atomicMax(&counters[0], x);
    atomicCAS(&counters[1], 0, i + 1);
    atomicAdd(&counters[2], 1);
}

void host() {
    int n = 200;
    int* in = device_array<int>(n, randint(-120, 120));
    int* out = device_array<int>(8 * n);
    float* f = device_array<float>(n);
    unsigned* u = device_array<unsigned>(n);
    int* counters = device_array<int>(3);
    constructs<<<(n + 63) / 64, 64>>>(in, out, f, u, counters, n);
}
"#;

#[test]
fn every_construct_computes_what_c_says() {
    let run = execute("constructs.cu", CONSTRUCTS);
    let (input, out) = (ints(&run, "in"), ints(&run, "out"));
    let (f, u) = (floats(&run, "f"), ints(&run, "u"));
    for (i, &x) in input.iter().enumerate() {
        let s = x + x / 3;
        let clamped = s.clamp(-100, 100);
        let mut a = ((x as f32) + 2.5f32) as i32;
        a = (a as u32).wrapping_sub(3) as i32;
        a <<= 2;
        a >>= 1;
        a ^= 0x55;
        let mut loops = 0;
        for k in 0..20 {
            if k % 3 == 0 {
                continue;
            }
            if k * x > 500 {
                break;
            }
            loops += k;
        }
        while loops > 40 {
            loops -= 7;
        }
        let expect = [
            clamped,
            i32::from((x > 0 && x % 2 == 0) || x < -50),
            a,
            loops,
            i32::from(x & 1 == 0 && x != 0),
            x.min(7) + (-x).max(3),
            !x >> 3,
            x + (x + 2),
        ];
        assert_eq!(out[8 * i..8 * i + 8], expect, "x = {x}");
        let bumped = x + 2;
        assert_eq!(f[i], bumped as f32 / 4.0 - (bumped as f32).abs() * 0.5, "x = {x}");
        assert_eq!(u[i] as u32, (bumped as u32).wrapping_neg() % 1000, "x = {x}");
    }
    let counters = ints(&run, "counters");
    assert_eq!(counters[0], input.iter().map(|x| x + 2).max().unwrap().max(0));
    assert_eq!(counters[1], 1, "thread 0's CAS runs first and wins");
    assert_eq!(counters[2], 200);
}

const MATH: &str = r#"
__global__ void math(const float* x, const float* y, const float* filled, const int* counts, float* out, int* ints, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i];
    float b = y[i];
    out[8 * i] = expf(a);
    out[8 * i + 1] = sinf(a);
    out[8 * i + 2] = sqrtf(b);
    out[8 * i + 3] = __fdividef(a, b);
    out[8 * i + 4] = fabsf(a);
    out[8 * i + 5] = min(a, b);
    out[8 * i + 6] = max(a, b);
    out[8 * i + 7] = filled[i] * a;
    ints[2 * i] = min(counts[i], i - 100);
    ints[2 * i + 1] = max(counts[i], i - 100);
}

void host() {
    int n = 256;
    float* x = device_array<float>(n, uniform(-10.0f, 10.0f));
    float* y = device_array<float>(n, uniform(0.5f, 100.0f));
    float* filled = device_array<float>(n, fill(2.5f));
    int* counts = device_array<int>(n, fill(-7));
    float* out = device_array<float>(8 * n);
    int* ints = device_array<int>(2 * n);
    math<<<n / 64, 64>>>(x, y, filled, counts, out, ints, n);
}
"#;

/// The builtins' values against Rust's `f32` functions. The functional run
/// evaluates each `MUFU` with Rust's `f32` function of its operand
/// (`exp2`, `sin`, `sqrt`, `1.0 / x`), so what separates `expf`, `sinf` and
/// `__fdividef` from Rust's `exp`, `sin` and `/` is only the rounding of the
/// SASS sequence nvcc's fast forms use, in units of `f32::EPSILON` (2^-23):
/// `expf(x)` is `MUFU.EX2` of `x * log2(e)`, the constant and the product
/// each rounded to `f32`, an argument off by 2^-23 relative and so a result
/// off by |x| * 2^-23 relative; `sinf(x)` is `MUFU.SIN` of `x * (1 / 2pi)`
/// in turns, scaled back by 2pi, four roundings that put the argument, and
/// so the result, off by up to |x| * 2^-22 absolute; `__fdividef(a, b)` is
/// `a * MUFU.RCP(b)`, two roundings where `/` has one. Each bound adds two
/// epsilons for the rounding of the two results. The hardware's `MUFU` is
/// an approximation itself (CUDA's programming guide bounds `__expf` by a
/// few ulp growing with |x|, and `__sinf` by 2^-21.41 absolute on
/// [-pi, pi]), which the functional run does not model. `sqrtf` (one `MUFU.SQRT`), `fabsf`, `min`,
/// `max` and `fill(v)` are exact.
#[test]
fn builtins_and_fill_compute_what_rust_computes() {
    let run = execute("math.cu", MATH);
    let (x, y, out, int_out) = (floats(&run, "x"), floats(&run, "y"), floats(&run, "out"), ints(&run, "ints"));
    assert_eq!(floats(&run, "filled"), vec![2.5; 256], "fill(2.5f)");
    assert_eq!(ints(&run, "counts"), vec![-7; 256], "fill(-7)");
    let ulp = f32::EPSILON;
    for i in 0..256 {
        let (a, b, got) = (x[i], y[i], &out[8 * i..8 * i + 8]);
        let relative = |got: f32, expect: f32| ((got - expect) / expect).abs();
        assert!(relative(got[0], a.exp()) <= (a.abs() + 2.0) * ulp, "expf({a}) = {} against {}", got[0], a.exp());
        assert!((got[1] - a.sin()).abs() <= (2.0 * a.abs() + 2.0) * ulp, "sinf({a}) = {} against {}", got[1], a.sin());
        assert_eq!(got[2], b.sqrt(), "sqrtf({b})");
        assert!(relative(got[3], a / b) <= 2.0 * ulp, "__fdividef({a}, {b}) = {} against {}", got[3], a / b);
        assert_eq!(got[4..8], [a.abs(), a.min(b), a.max(b), 2.5 * a], "fabsf, min, max, fill at x = {a}, y = {b}");
        let k = i as i32 - 100;
        assert_eq!(int_out[2 * i..2 * i + 2], [(-7).min(k), (-7).max(k)], "min and max of ints at {i}");
    }
    assert!(x.iter().any(|&a| a < -9.0) && x.iter().any(|&a| a > 9.0), "the inputs span [-10, 10)");
}

/// The examples with every integer literal replaced by one of a few values
/// that provoke faults (empty grids, indices past the end, divisions by
/// zero, blocks too large) without asking for much memory.
fn renumbered_example() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    const VALUES: [&str; 12] = ["0", "1", "2", "3", "7", "31", "32", "33", "64", "255", "256", "1000"];
    (0..EXAMPLES.len(), prop::collection::vec(0..VALUES.len() * 3, 64)).prop_map(|(example, picks)| {
        let source = EXAMPLES[example].1;
        let mut out = String::with_capacity(source.len());
        let (mut rest, mut literal) = (source, 0);
        while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
            let end = rest[start..].find(|c: char| !c.is_ascii_alphanumeric()).map_or(rest.len(), |e| start + e);
            let inside_name = rest[..start].chars().last().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
            out.push_str(&rest[..start]);
            // Two literals in three keep their value, so most programs still run far.
            match picks.get(literal).map(|&pick| pick / 3 == 0 || pick % 3 != 0) {
                Some(false) if !inside_name => out.push_str(VALUES[picks[literal] / 3]),
                _ => out.push_str(&rest[start..end]),
            }
            literal += 1;
            rest = &rest[end..];
        }
        out.push_str(rest);
        out
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// The functional run never panics: a renumbered example runs, or stops
    /// with one error located inside the source.
    #[test]
    fn renumbered_examples_run_or_stop_at_a_located_error(source in renumbered_example()) {
        let Ok(compiled) = compile("k.cu", &source, &VOLTA) else { return Ok(()) };
        let limited = RunOptions { max_warp_insts: 20_000, ..options(true) };
        if let Err(error) = run("k.cu", &source, &compiled, &limited) {
            proptest::prop_assert!(error.line >= 1 && error.line as usize <= source.split('\n').count(), "{error}");
            proptest::prop_assert!(error.span.end as usize <= source.len(), "{error}");
        }
    }
}
