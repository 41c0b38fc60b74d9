//! Every class of compile error, each with its exact location and message:
//! syntax, unknown names, type mismatches, unsupported constructs named as
//! such, and limits. Locations follow clang (a missing `;` just after the last
//! token of the statement that lacks it).

use warplab_cuda::{CheckOptions, ErrorKind, check};

const OPTIONS: CheckOptions = CheckOptions { shared_bytes_per_block: 48 * 1024 };

/// Checks that `source` fails with `kind` and the headline `expect`.
fn check_error(source: &str, kind: ErrorKind, expect: &str) {
    match check("k.cu", source, &OPTIONS) {
        Ok(_) => panic!("accepted:\n{source}"),
        Err(error) => {
            assert_eq!(error.headline(), expect, "\n{error}");
            assert_eq!(error.kind, kind, "{expect}");
        }
    }
}

/// A kernel with `body` as its lines from line 2, and an empty host.
fn kernel(body: &str) -> String {
    format!("__global__ void k(float* p, const float* q, int n, unsigned u) {{\n{body}\n}}\nvoid host() {{}}\n")
}

/// A host whose body starts on line 2, after a kernel `k(float*, int)`.
fn host(body: &str) -> String {
    format!("void host() {{\n{body}\n}}\n__global__ void unused() {{}}\n")
}

fn host_after_kernel(body: &str) -> String {
    format!(
        "__global__ void k(float* p, int n) {{}}\n__device__ float f(float x) {{ return x; }}\nvoid host() {{\n{body}\n}}\n"
    )
}

mod syntax {
    use super::*;

    #[test]
    fn a_missing_semicolon_is_reported_after_the_statement_it_ends() {
        check_error(
            &kernel("    p[0] = 1.0f\n    p[1] = 2.0f;"),
            ErrorKind::Syntax,
            "k.cu:2:16: error: expected ';' after expression",
        );
        check_error(
            &kernel("    int x = 3 // three\n    x++;"),
            ErrorKind::Syntax,
            "k.cu:2:14: error: expected ';' at end of declaration",
        );
        check_error(
            "__device__ int f() {\n    return 1\n}\nvoid host() {}",
            ErrorKind::Syntax,
            "k.cu:2:13: error: expected ';' after return statement",
        );
        check_error(
            &kernel("    for (int i = 0; i < n; i++) {\n        continue\n    }"),
            ErrorKind::Syntax,
            "k.cu:3:17: error: expected ';' after continue statement",
        );
        check_error(
            &host_after_kernel("    k<<<1, 32>>>(0, 1)"),
            ErrorKind::Syntax,
            "k.cu:4:23: error: expected ';' after expression",
        );
    }

    #[test]
    fn grammar_errors_are_at_the_token_found() {
        check_error(&kernel("    int x = ;"), ErrorKind::Syntax, "k.cu:2:13: error: expected expression");
        check_error(&kernel("    int x = (1 + 2;"), ErrorKind::Syntax, "k.cu:2:19: error: expected ')'");
        check_error(&kernel("    if n > 0) {}"), ErrorKind::Syntax, "k.cu:2:8: error: expected '(' after 'if'");
        check_error(
            &kernel("    for (int i = 0 i < n; i++) {}"),
            ErrorKind::Syntax,
            "k.cu:2:20: error: expected ';' in 'for' statement specifier",
        );
        check_error("void host() {\n  int x = 1;\n", ErrorKind::Syntax, "k.cu:3:1: error: expected '}'");
        check_error(&kernel("    p[0 = 1.0f;"), ErrorKind::Syntax, "k.cu:2:15: error: expected ']'");
    }

    #[test]
    fn malformed_tokens_are_named() {
        check_error(&kernel("    /* never closed"), ErrorKind::Syntax, "k.cu:2:5: error: unterminated /* comment");
        check_error(
            &kernel("    int x = 12abc;"),
            ErrorKind::Syntax,
            "k.cu:2:13: error: invalid suffix 'abc' on integer constant",
        );
        check_error(
            &kernel("    int x = 1.5x;"),
            ErrorKind::Syntax,
            "k.cu:2:13: error: invalid suffix 'x' on floating constant",
        );
        check_error(&kernel("    int x = 3 @ 4;"), ErrorKind::Syntax, "k.cu:2:15: error: unexpected character '@'");
        check_error(
            &kernel("    int x = 08;"),
            ErrorKind::Syntax,
            "k.cu:2:13: error: invalid digit '8' in octal constant",
        );
    }

    #[test]
    fn defines_must_be_constants_defined_once() {
        check_error(
            "#define N 4\n#define N 5\nvoid host() {}",
            ErrorKind::Syntax,
            "k.cu:2:9: error: 'N' macro redefined",
        );
        check_error(
            "#define IDX threadIdx.x\nvoid host() {}",
            ErrorKind::Unsupported,
            "k.cu:1:13: error: '#define' must give a constant expression; 'threadIdx' is not a constant",
        );
        check_error(
            "#define SQ(x) ((x) * (x))\nvoid host() {}",
            ErrorKind::Unsupported,
            "k.cu:1:11: error: function-like macros are not supported; use a '__device__' function",
        );
        check_error(
            "#include <cuda.h>\nvoid host() {}",
            ErrorKind::Unsupported,
            "k.cu:1:1: error: '#include' is not supported; the only directive is '#define NAME value'",
        );
        check_error(
            "#define N\nvoid host() {}",
            ErrorKind::Syntax,
            "k.cu:1:9: error: '#define N' needs a constant value",
        );
    }
}

mod names {
    use super::*;

    #[test]
    fn undeclared_names_are_reported_where_used() {
        check_error(
            &kernel("    p[0] = m;"),
            ErrorKind::UnknownName,
            "k.cu:2:12: error: use of undeclared identifier 'm'",
        );
        check_error(
            &kernel("    p[0] = square(1.0f);"),
            ErrorKind::UnknownName,
            "k.cu:2:12: error: use of undeclared identifier 'square'",
        );
        check_error(
            &kernel("    size_t i = 0;"),
            ErrorKind::UnknownName,
            "k.cu:2:5: error: unknown type name 'size_t'",
        );
        check_error(
            &host("    missing<<<1, 1>>>();"),
            ErrorKind::UnknownName,
            "k.cu:2:5: error: use of undeclared identifier 'missing'",
        );
        // A variable is in scope only in its block.
        check_error(
            &kernel("    if (n > 0) { int t = 1; }\n    p[0] = t;"),
            ErrorKind::UnknownName,
            "k.cu:3:12: error: use of undeclared identifier 't'",
        );
        // Functions must be defined before their use, as in C.
        check_error(
            "__global__ void k(float* p) { p[0] = later(); }\n__device__ float later() { return 1.0f; }\nvoid host() {}",
            ErrorKind::UnknownName,
            "k.cu:1:38: error: use of undeclared identifier 'later'",
        );
    }

    #[test]
    fn special_registers_need_a_member() {
        check_error(
            &kernel("    int i = threadIdx;"),
            ErrorKind::Type,
            "k.cu:2:13: error: 'threadIdx' must be followed by '.x', '.y' or '.z'",
        );
        check_error(
            &kernel("    int i = threadIdx.w;"),
            ErrorKind::Type,
            "k.cu:2:23: error: no member named 'w' in 'uint3'",
        );
        check_error(
            &kernel("    int i = n.x;"),
            ErrorKind::Type,
            "k.cu:2:13: error: member reference base type 'int' is not a structure or union",
        );
    }

    #[test]
    fn redefinitions_are_refused() {
        check_error(
            &kernel("    int x = 1;\n    float x = 2.0f;"),
            ErrorKind::Type,
            "k.cu:3:11: error: redefinition of 'x'",
        );
        check_error(&kernel("    int n = 1;"), ErrorKind::Type, "k.cu:2:9: error: redefinition of 'n'");
        check_error(
            "__device__ int min() { return 0; }\nvoid host() {}",
            ErrorKind::Type,
            "k.cu:1:16: error: redefinition of 'min'",
        );
        check_error("void host() {}\nvoid host() {}", ErrorKind::Type, "k.cu:2:6: error: redefinition of 'host'");
        check_error(
            "__global__ void k() {}\n",
            ErrorKind::Syntax,
            "k.cu:2:1: error: the file has no 'void host()' to launch its kernels",
        );
    }
}

mod types {
    use super::*;

    #[test]
    fn pointers_do_not_mix_with_scalars() {
        check_error(
            &kernel("    float x = p * 2;"),
            ErrorKind::Type,
            "k.cu:2:17: error: invalid operands to binary expression ('float *' and 'int')",
        );
        check_error(
            &kernel("    float* r = n;"),
            ErrorKind::Type,
            "k.cu:2:16: error: cannot initialize a variable of type 'float *' with an lvalue of type 'int'",
        );
        check_error(
            &kernel("    float x = p;"),
            ErrorKind::Type,
            "k.cu:2:15: error: cannot initialize a variable of type 'float' with an lvalue of type 'float *'",
        );
        check_error(
            &kernel("    n = p + 1;"),
            ErrorKind::Type,
            "k.cu:2:9: error: assigning to 'int' from incompatible type 'float *'",
        );
        check_error(
            &kernel("    if (p) n = 1;"),
            ErrorKind::Type,
            "k.cu:2:9: error: value of type 'float *' is not contextually convertible to 'bool'",
        );
        check_error(
            &kernel("    float x = n > 0 ? p : 1.0f;"),
            ErrorKind::Type,
            "k.cu:2:21: error: incompatible operand types ('float *' and 'float')",
        );
        check_error(
            &kernel("    float x = -p;"),
            ErrorKind::Type,
            "k.cu:2:15: error: invalid argument type 'float *' to unary expression",
        );
    }

    #[test]
    fn two_pointer_types_do_not_mix() {
        check_error(
            "__global__ void k(float* p, int* r) { r = p; }\nvoid host() {}",
            ErrorKind::Type,
            "k.cu:1:43: error: assigning to 'int *' from incompatible type 'float *'",
        );
        check_error(
            &kernel("    float* r = q;"),
            ErrorKind::Type,
            "k.cu:2:16: error: cannot initialize a variable of type 'float *' with an lvalue of type 'const float *'",
        );
        check_error(
            &kernel("    float x = p + q;"),
            ErrorKind::Type,
            "k.cu:2:17: error: invalid operands to binary expression ('float *' and 'const float *')",
        );
        check_error(
            "__device__ void g(float* x) {}\n__global__ void k(const float* q) { g(q); }\nvoid host() {}",
            ErrorKind::Type,
            "k.cu:2:39: error: passing 'const float *' to parameter of incompatible type 'float *'",
        );
        check_error(
            &host_after_kernel("    int* a = device_array<int>(4);\n    k<<<1, 32>>>(a, 4);"),
            ErrorKind::Type,
            "k.cu:5:18: error: passing 'int *' to parameter of incompatible type 'float *'",
        );
        check_error(
            &host_after_kernel("    int* a = device_array<float>(4);"),
            ErrorKind::Type,
            "k.cu:4:14: error: cannot initialize a variable of type 'int *' with an rvalue of type 'float *'",
        );
    }

    #[test]
    fn integer_operators_refuse_floats() {
        check_error(
            &kernel("    float x = 1.0f % 2.0f;"),
            ErrorKind::Type,
            "k.cu:2:20: error: invalid operands to binary expression ('float' and 'float')",
        );
        check_error(
            &kernel("    int x = n << 1.5f;"),
            ErrorKind::Type,
            "k.cu:2:15: error: invalid operands to binary expression ('int' and 'float')",
        );
        check_error(
            &kernel("    int x = ~1.5f;"),
            ErrorKind::Type,
            "k.cu:2:13: error: invalid argument type 'float' to unary expression",
        );
        check_error(
            &kernel("    p[1.0f] = 0.0f;"),
            ErrorKind::Type,
            "k.cu:2:7: error: array subscript is not an integer",
        );
    }

    #[test]
    fn only_places_that_may_change_are_assigned() {
        check_error(
            &kernel("    q[0] = 1.0f;"),
            ErrorKind::Type,
            "k.cu:2:5: error: read-only variable is not assignable",
        );
        check_error(
            &kernel("    const int c = 1;\n    c += 2;"),
            ErrorKind::Type,
            "k.cu:3:5: error: cannot assign to variable 'c' with const-qualified type 'const int'",
        );
        check_error(&kernel("    threadIdx.x = 0;"), ErrorKind::Type, "k.cu:2:5: error: expression is not assignable");
        check_error(&kernel("    n + 1 = 2;"), ErrorKind::Type, "k.cu:2:5: error: expression is not assignable");
        check_error(
            &kernel("    const int c;"),
            ErrorKind::Type,
            "k.cu:2:15: error: default initialization of an object of const type 'const int'",
        );
        check_error(
            &kernel("    bool b = true;\n    b++;"),
            ErrorKind::Type,
            "k.cu:3:6: error: ISO C++17 does not allow incrementing expression of type bool",
        );
        check_error(
            &kernel("    int x = n[0];"),
            ErrorKind::Type,
            "k.cu:2:13: error: subscripted value is not an array, pointer, or vector",
        );
        check_error(
            &kernel("    int x = *n;"),
            ErrorKind::Type,
            "k.cu:2:13: error: indirection requires pointer operand ('int' invalid)",
        );
        check_error(
            &kernel("    float* r = &(n + 1);"),
            ErrorKind::Type,
            "k.cu:2:16: error: cannot take the address of an rvalue of type 'int'",
        );
    }

    #[test]
    fn calls_take_their_parameters() {
        let device = "__device__ float f(float a, float b) { return a + b; }\n";
        check_error(
            &format!("{device}__global__ void k(float* p) {{ p[0] = f(1.0f); }}\nvoid host() {{}}"),
            ErrorKind::Type,
            "k.cu:2:44: error: too few arguments to function call, expected 2, have 1",
        );
        check_error(
            &format!("{device}__global__ void k(float* p) {{ p[0] = f(1.0f, 2.0f, 3.0f); }}\nvoid host() {{}}"),
            ErrorKind::Type,
            "k.cu:2:52: error: too many arguments to function call, expected 2, have 3",
        );
        check_error(
            &host_after_kernel("    k<<<1, 32>>>(0);"),
            ErrorKind::Type,
            "k.cu:4:19: error: too few arguments to function call, expected 2, have 1",
        );
        check_error(
            &kernel("    p[0] = sqrtf(1.0f, 2.0f);"),
            ErrorKind::Type,
            "k.cu:2:24: error: too many arguments to function call, expected 1, have 2",
        );
        check_error(
            &kernel("    __syncthreads(1);"),
            ErrorKind::Type,
            "k.cu:2:19: error: too many arguments to function call, expected 0, have 1",
        );
        check_error(
            &kernel("    atomicAdd(n, 1);"),
            ErrorKind::Type,
            "k.cu:2:15: error: the first argument of 'atomicAdd' must be a pointer, not 'int'",
        );
        check_error(
            &kernel("    atomicAdd(q, 1.0f);"),
            ErrorKind::Type,
            "k.cu:2:15: error: the first argument of 'atomicAdd' points to const memory",
        );
        check_error(
            &kernel("    p[0] = min(p, 1);"),
            ErrorKind::Type,
            "k.cu:2:12: error: no matching function for call to 'min' with arguments of type 'float *' and 'int'",
        );
        check_error(
            &kernel("    int x = n;\n    x(1);"),
            ErrorKind::Type,
            "k.cu:3:5: error: called object type 'int' is not a function",
        );
    }

    #[test]
    fn returns_match_the_function() {
        check_error(
            "__device__ void g() {\n    return 1;\n}\nvoid host() {}",
            ErrorKind::Type,
            "k.cu:2:5: error: void function 'g' should not return a value",
        );
        check_error(
            "__device__ int g() {\n    return;\n}\nvoid host() {}",
            ErrorKind::Type,
            "k.cu:2:5: error: non-void function 'g' should return a value",
        );
        check_error(
            "__device__ float g(float* p) {\n    return p;\n}\nvoid host() {}",
            ErrorKind::Type,
            "k.cu:2:12: error: returning 'float *' from a function with incompatible result type 'float'",
        );
        check_error(
            "__global__ int k() { return 0; }\nvoid host() {}",
            ErrorKind::Type,
            "k.cu:1:12: error: kernel function 'k' must have void return type",
        );
    }

    #[test]
    fn loops_own_break_and_continue() {
        check_error(
            &kernel("    break;"),
            ErrorKind::Type,
            "k.cu:2:5: error: 'break' statement not in loop or switch statement",
        );
        check_error(
            &kernel("    if (n) { continue; }"),
            ErrorKind::Type,
            "k.cu:2:14: error: 'continue' statement not in loop statement",
        );
    }

    #[test]
    fn device_and_host_code_stay_apart() {
        check_error(
            &host("    int i = threadIdx.x;"),
            ErrorKind::Type,
            "k.cu:2:13: error: 'threadIdx' is only available in device code",
        );
        check_error(
            &host("    __syncthreads();"),
            ErrorKind::Type,
            "k.cu:2:5: error: '__syncthreads' is only available in device code",
        );
        check_error(
            &host_after_kernel("    float* a = device_array<float>(4);\n    a[0] = 1.0f;"),
            ErrorKind::Unsupported,
            "k.cu:5:5: error: host code cannot read or write device memory; use a kernel",
        );
        check_error(
            &host_after_kernel("    float x = f(1.0f);"),
            ErrorKind::Type,
            "k.cu:4:15: error: '__device__' function 'f' cannot be called from host code",
        );
        check_error(
            &host_after_kernel("    f<<<1, 1>>>(1.0f);"),
            ErrorKind::Type,
            "k.cu:4:5: error: 'f' is not a '__global__' kernel",
        );
        check_error(
            "__global__ void k(float* p) {}\n__global__ void j(float* p) { k(p); }\nvoid host() {}",
            ErrorKind::Type,
            "k.cu:2:31: error: kernel 'k' must be launched as k<<<grid, block>>>(...) from host()",
        );
        check_error(
            &kernel("    float* r = device_array<float>(4);"),
            ErrorKind::Type,
            "k.cu:2:16: error: device_array<T>(n) is only allowed as the initializer of a pointer variable in host()",
        );
    }

    #[test]
    fn host_arrays_and_launches_take_their_forms() {
        check_error(
            &host_after_kernel("    int* a = device_array<int>(4, uniform(0.0f, 1.0f));"),
            ErrorKind::Type,
            "k.cu:4:35: error: uniform(lo, hi) gives floats; use randint(lo, hi) for an array of 'int'",
        );
        check_error(
            &host_after_kernel("    int* a = device_array<int>(4, 7);"),
            ErrorKind::Type,
            "k.cu:4:35: error: the second argument of device_array must be zeros(), iota(), fill(v), uniform(lo, hi) or randint(lo, hi)",
        );
        check_error(
            &host_after_kernel("    int* a = device_array<int>(2.5f);"),
            ErrorKind::Type,
            "k.cu:4:32: error: the length of a device_array must be an integer, not 'float'",
        );
        check_error(
            &host_after_kernel("    int x = iota();"),
            ErrorKind::Type,
            "k.cu:4:13: error: 'iota()' is only valid as the second argument of device_array<T>(n, init)",
        );
        check_error(
            &host_after_kernel("    k<<<1.5f, 32>>>(0, 1);"),
            ErrorKind::Type,
            "k.cu:4:9: error: a launch's grid and block must be 'dim3' or integers, not 'float'",
        );
        check_error(
            &host_after_kernel("    dim3 b(2, 2, 2, 2);"),
            ErrorKind::Type,
            "k.cu:4:21: error: too many arguments to function call, expected at most 3, have 4",
        );
    }

    #[test]
    fn shared_arrays_have_constant_positive_sizes() {
        check_error(
            &kernel("    __shared__ float s[n];"),
            ErrorKind::Type,
            "k.cu:2:24: error: size of '__shared__' array 's' must be an integer constant expression",
        );
        check_error(
            &kernel("    __shared__ float s[4 - 4];"),
            ErrorKind::Type,
            "k.cu:2:24: error: '__shared__' array 's' must have a positive size",
        );
        check_error(
            &kernel("    __shared__ float s[4][4];\n    s[0] = 1.0f;"),
            ErrorKind::Type,
            "k.cu:3:5: error: '__shared__' array 's' has 2 dimensions; index it as 's[i][j]'",
        );
        check_error(
            &kernel("    __shared__ float s[4];\n    float x = s;"),
            ErrorKind::Type,
            "k.cu:3:15: error: the '__shared__' array 's' can only be used indexed, as 's[i]'",
        );
    }
}

mod unsupported {
    use super::*;

    #[test]
    fn left_out_keywords_are_named() {
        check_error(
            &kernel("    double x = 1;"),
            ErrorKind::Unsupported,
            "k.cu:2:5: error: 'double' is not supported; use 'float'",
        );
        check_error(
            "struct point { float x; };\nvoid host() {}",
            ErrorKind::Unsupported,
            "k.cu:1:1: error: 'struct' is not supported; use separate variables or arrays",
        );
        check_error(
            "template <typename T> __device__ T f(T x) { return x; }\nvoid host() {}",
            ErrorKind::Unsupported,
            "k.cu:1:1: error: 'template' is not supported; the only template is device_array<T>",
        );
        check_error(
            &kernel("    goto done;"),
            ErrorKind::Unsupported,
            "k.cu:2:5: error: 'goto' is not supported; use loops, 'break' and 'continue'",
        );
        check_error(
            &kernel("    switch (n) {}"),
            ErrorKind::Unsupported,
            "k.cu:2:5: error: 'switch' is not supported; use 'if' and 'else'",
        );
        check_error(
            &kernel("    do { n++; } while (n < 4);"),
            ErrorKind::Unsupported,
            "k.cu:2:5: error: 'do' is not supported; use a 'while' loop",
        );
        check_error(
            &kernel("    long x = 1;"),
            ErrorKind::Unsupported,
            "k.cu:2:5: error: 'long' is not supported; use 'int' or 'unsigned'",
        );
        check_error(
            &kernel("    int x = sizeof(int);"),
            ErrorKind::Unsupported,
            "k.cu:2:13: error: 'sizeof' is not supported; write the size in bytes",
        );
    }

    #[test]
    fn left_out_literals_and_operators_are_named() {
        check_error(
            &kernel("    float x = 0.5;"),
            ErrorKind::Unsupported,
            "k.cu:2:15: error: double-precision constant '0.5' is not supported; write '0.5f'",
        );
        check_error(
            &kernel("    int x = 5000000000;"),
            ErrorKind::Unsupported,
            "k.cu:2:13: error: integer constant '5000000000' does not fit in 'unsigned int' ('long' is not supported)",
        );
        check_error(
            &kernel("    int x = 3000000000;"),
            ErrorKind::Unsupported,
            "k.cu:2:13: error: integer constant '3000000000' does not fit in 'int' ('long' is not supported); write '3000000000u'",
        );
        check_error(
            &kernel("    int x = 1L;"),
            ErrorKind::Unsupported,
            "k.cu:2:13: error: 'long' integer constants are not supported",
        );
        check_error(
            &kernel("    for (int i = 0; i < n; i++, n--) {}"),
            ErrorKind::Unsupported,
            "k.cu:2:31: error: the comma operator is not supported",
        );
        check_error(
            &kernel("    int* r = (int*)p;"),
            ErrorKind::Unsupported,
            "k.cu:2:15: error: casts to 'int *' are not supported",
        );
        check_error(
            &kernel("    int x = (int)p;"),
            ErrorKind::Unsupported,
            "k.cu:2:13: error: casts from 'float *' are not supported",
        );
        check_error(
            &kernel("    int d = p - p;"),
            ErrorKind::Unsupported,
            "k.cu:2:15: error: '-' between pointers is not supported; compare or subtract indices instead",
        );
        check_error(
            &kernel("    char* s = \"hi\";"),
            ErrorKind::Unsupported,
            "k.cu:2:5: error: 'char' is not supported; use 'int' or 'unsigned'",
        );
        check_error(
            &kernel("    p->x = 1;"),
            ErrorKind::Syntax,
            "k.cu:2:6: error: '->' is not supported: the subset has no structs",
        );
    }

    #[test]
    fn recursion_is_refused_since_device_functions_are_inlined() {
        check_error(
            "__device__ int fact(int n) {\n    return n <= 1 ? 1 : n * fact(n - 1);\n}\nvoid host() {}",
            ErrorKind::Unsupported,
            "k.cu:2:29: error: recursive call to 'fact' is not supported: '__device__' functions are inlined",
        );
    }

    #[test]
    fn left_out_declarations_are_named() {
        check_error(
            &kernel("    float local[4];"),
            ErrorKind::Unsupported,
            "k.cu:2:11: error: local arrays are not supported; use a '__shared__' array",
        );
        check_error(
            "__device__ void g() {\n    __shared__ float s[4];\n}\nvoid host() {}",
            ErrorKind::Unsupported,
            "k.cu:2:22: error: '__shared__' arrays can only be declared in a '__global__' kernel",
        );
        check_error(
            &kernel("    __shared__ float total;"),
            ErrorKind::Unsupported,
            "k.cu:2:22: error: '__shared__' scalars are not supported; declare 'float total[1]' and use 'total[0]'",
        );
        check_error(
            &kernel("    __shared__ float s[2][2][2];"),
            ErrorKind::Unsupported,
            "k.cu:2:22: error: '__shared__' arrays of more than 2 dimensions are not supported",
        );
        check_error(
            "float scale = 2.0f;\nvoid host() {}",
            ErrorKind::Unsupported,
            "k.cu:1:7: error: global variables are not supported; use '#define' for constants or pass values as parameters",
        );
        check_error(
            "__device__ float f(float x);\nvoid host() {}",
            ErrorKind::Unsupported,
            "k.cu:1:28: error: function declarations without a body are not supported; define the function before its first use",
        );
        check_error(
            "void helper() {}\nvoid host() {}",
            ErrorKind::Unsupported,
            "k.cu:1:6: error: function 'helper' needs '__global__' or '__device__'; host code goes in 'void host()'",
        );
        check_error(
            &kernel("    bool* b = 0;"),
            ErrorKind::Unsupported,
            "k.cu:2:5: error: pointers to 'bool' are not supported",
        );
        check_error(
            &kernel("    dim3 b(1);"),
            ErrorKind::Unsupported,
            "k.cu:2:5: error: 'dim3' is only available in host code",
        );
    }

    #[test]
    fn left_out_operations_are_named() {
        check_error(
            &kernel("    __shared__ float s[4];\n    float* r = &s[0];"),
            ErrorKind::Unsupported,
            "k.cu:3:16: error: a pointer into shared memory cannot be stored or passed; index the '__shared__' array instead",
        );
        check_error(
            &kernel("    atomicMax(p, 1.0f);"),
            ErrorKind::Unsupported,
            "k.cu:2:5: error: 'atomicMax' on 'float' is not supported",
        );
        check_error(
            &kernel("    atomicSub(p, 1.0f);"),
            ErrorKind::Unsupported,
            "k.cu:2:5: error: 'atomicSub' is not supported; the subset's builtins are listed in docs/cuda.md",
        );
        check_error(
            &kernel("    k<<<1, 1>>>(p, q, n, u);"),
            ErrorKind::Unsupported,
            "k.cu:2:5: error: kernel launches are only supported in host(); device-side launches are not",
        );
        check_error(
            &host("    cudaMalloc(0, 4);"),
            ErrorKind::Unsupported,
            "k.cu:2:5: error: CUDA runtime calls such as 'cudaMalloc' are not supported; allocate with device_array<T>(n)",
        );
        check_error(
            &host("    int x = 1;\n    int* r = &x;"),
            ErrorKind::Unsupported,
            "k.cu:3:14: error: taking the address of a variable is not supported",
        );
        check_error(
            &host_after_kernel("    bool* a = device_array<bool>(4);"),
            ErrorKind::Unsupported,
            "k.cu:4:5: error: pointers to 'bool' are not supported",
        );
    }
}

mod limits {
    use super::*;

    #[test]
    fn shared_memory_is_limited_by_the_callers_gpu() {
        let source = kernel("    __shared__ float a[8192];\n    __shared__ float b[4097];");
        check_error(
            &source,
            ErrorKind::Limit,
            "k.cu:3:22: error: the '__shared__' arrays of kernel 'k' need 49156 bytes, more than the 49152 bytes of shared memory per block",
        );
    }

    #[test]
    fn nesting_source_size_and_tokens_are_limited() {
        let deep = kernel(&format!("    int x = {}1{};", "-(".repeat(130), ")".repeat(130)));
        check_error(&deep, ErrorKind::Limit, "k.cu:2:76: error: nesting deeper than 64 levels is not supported");
        let long_sum = kernel(&format!("    int x = 1{};", " + 1".repeat(200)));
        check_error(&long_sum, ErrorKind::Limit, "k.cu:2:263: error: nesting deeper than 64 levels is not supported");
        let big = format!("void host() {{}}\n{}", " ".repeat(warplab_cuda::MAX_SOURCE_BYTES));
        check_error(
            &big,
            ErrorKind::Limit,
            "k.cu:1:1: error: the source is 1048591 bytes, more than the 1048576 bytes supported",
        );
        let mut macros = String::from("#define A0 1\n");
        for i in 1..30 {
            macros.push_str(&format!("#define A{i} (A{} + A{})\n", i - 1, i - 1));
        }
        check_error(
            &format!("{macros}void host() {{}}"),
            ErrorKind::Limit,
            "k.cu:17:14: error: the program has more than 262144 tokens after macro expansion",
        );
    }
}
