//! `gemm-naive` and `gemm-tiled`: C = A × B for row-major float matrices,
//! A of M × K, B of K × N, C of M × N, one thread per element of C.
//!
//! `gemm-naive` runs 16 × 16 CTAs; each thread walks its row of A and its
//! column of B straight from global memory: per `kk`, a load of `A[row][kk]`
//! (the 16 lanes of a warp that share a row share one address), a coalesced
//! load of `B[kk][col]`, an `FFMA` into the accumulator, the pointer bumps and
//! the loop test. Every element of A is loaded N times and every element of B
//! M times.
//!
//! `gemm-tiled` is the classic shared-memory version with `tile` × `tile`
//! CTAs: per step of `tile` along K, each thread copies one element of A and
//! one of B into the two shared tiles (`As[ty][tx]` at byte 0, `Bs[ty][tx]`
//! right after it), `BAR.SYNC`, runs `tile` iterations of two `LDS` and an
//! `FFMA`, and `BAR.SYNC` again. Global loads drop by a factor of `tile`:
//! every element of A is loaded N / tile times and every element of B
//! M / tile times.
//!
//! Both kernels keep loop control in every iteration (`#pragma unroll 1`), so
//! the instruction counts stay comparable: about 9 warp instructions per
//! `kk` and warp for either kernel, M × N / 32 warps. The matrix sizes must
//! be multiples of the tile (16 for the naive kernel). Every dimension stops
//! at 1024: a 1024³ product is about 0.3 G warp instructions per launch. The
//! data values never change an address, so only the arrays' places are
//! allocated.
//!
//! `gemm-tiled` has a `launches` knob: L launches of the same kernel over the
//! same matrices (A and B copied in once), L kernels with the same CTAs and L
//! times the instructions, a multi-kernel workload for sampled simulation.

use warplab_trace::{Cta, Dim3};

use crate::generator::{Knob, LAUNCHES, Params, size};
use crate::generators::grid_x;
use crate::spec::GenError;
use crate::{Array, Code, CtaBody, DeviceMemory, Generator, Kernel, Launch, Op, RZ, WarpLanes, WarpWriter, Workload};
use crate::{for_each_warp, mask_where};

/// Rows of C per unit of `size`.
const ROWS_PER_SIZE: u64 = 16;
/// The naive kernel's CTA edge.
const NAIVE_TILE: u64 = 16;
/// Bytes per float.
const FLOAT: u64 = 4;

const SIZE: Knob =
    size("N: M = 16·N rows of C (up to 1024); ≈ 4.5·N·n·k warp instructions per launch (1.2 M at the defaults)", 4, 64);
const N: Knob =
    Knob { name: "n", help: "columns of B and C (a multiple of the tile)", default: 256, min: 8, max: 1024 };
const K: Knob = Knob {
    name: "k",
    help: "inner dimension: columns of A, rows of B (a multiple of the tile)",
    default: 256,
    min: 8,
    max: 1024,
};
const TILE: Knob = Knob {
    name: "tile",
    help: "tile edge: 8, 16 or 32 (CTA of tile² threads, 8·tile² bytes of shared memory)",
    default: 16,
    min: 8,
    max: 32,
};

pub(crate) const NAIVE: Generator = Generator {
    name: "gemm-naive",
    summary: "C = A × B (float), one thread per element of C reading A and B from global memory",
    size: SIZE,
    knobs: &[N, K],
    uses_config: false,
    build: build_naive,
};

pub(crate) const TILED: Generator = Generator {
    name: "gemm-tiled",
    summary: "C = A × B (float) through tile × tile shared-memory tiles of A and B",
    size: SIZE,
    knobs: &[N, K, TILE, LAUNCHES],
    uses_config: false,
    build: build_tiled,
};

/// The matrices and their shapes.
struct Problem {
    a: Array,
    b: Array,
    c: Array,
    m: u64,
    n: u64,
    k: u64,
}

impl Problem {
    /// Reads the shapes, checks they are multiples of `tile` and allocates
    /// the matrices: A and B are copied in, C is the output.
    fn new(params: &Params<'_>, tile: u64, memory: &mut DeviceMemory) -> Result<Problem, GenError> {
        let (m, n, k) = (params.size() * ROWS_PER_SIZE, params.knob("n"), params.knob("k"));
        for (name, value) in [("M = 16·size", m), ("n", n), ("k", k)] {
            if value % tile != 0 {
                return Err(GenError::Inconsistent(format!("{name} = {value} is not a multiple of the tile ({tile})")));
            }
        }
        let (a, b) = (memory.input(m * k, FLOAT), memory.input(k * n, FLOAT));
        let c = memory.alloc(m * n, FLOAT);
        Ok(Problem { a, b, c, m, n, k })
    }

    fn a(&self, row: u64, kk: u64) -> u64 {
        self.a.at(row * self.k + kk)
    }

    fn b(&self, kk: u64, col: u64) -> u64 {
        self.b.at(kk * self.n + col)
    }

    fn c(&self, row: u64, col: u64) -> u64 {
        self.c.at(row * self.n + col)
    }

    /// A grid of `tile` × `tile` CTAs covering C.
    fn launch(&self, name: &'static str, tile: u64, shmem_bytes: u32) -> Result<Launch, GenError> {
        let grid = Dim3 { x: grid_x(self.n / tile)?, y: (self.m / tile) as u32, z: 1 };
        Ok(Launch { name, grid, block: Dim3 { x: tile as u32, y: tile as u32, z: 1 }, shmem_bytes })
    }
}

/// Where one thread sits: in its CTA and in C.
#[derive(Debug, Clone, Copy)]
struct Thread {
    tx: u64,
    ty: u64,
    row: u64,
    col: u64,
}

/// The thread of each lane of `warp` in CTA `cta` of `tile` × `tile` threads.
fn locate(cta: Dim3, tile: u64, warp: WarpLanes) -> impl Fn(u32) -> Thread {
    move |lane| {
        let thread = warp.thread(lane);
        let (tx, ty) = (thread % tile, thread / tile);
        Thread { tx, ty, row: u64::from(cta.y) * tile + ty, col: u64::from(cta.x) * tile + tx }
    }
}

fn exec_all(w: &mut WarpWriter<'_>, ops: &[Op], mask: u32) {
    for &op in ops {
        w.exec(op, mask);
    }
}

/// A loop's backward branch: taken by every lane while iterations remain.
fn back_edge(w: &mut WarpWriter<'_>, op: Op, mask: u32, more: bool) {
    w.exec(op, if more { mask } else { 0 });
}

/// The instructions both kernels share, at the start and at the end of their
/// listings. Register conventions: R0 row, R4 col, R3 `tid.y`, R5 `tid.x`,
/// R10 the accumulator, R11 the constant 4.
struct Frame {
    /// `row = ctaid.y * ntid.y + tid.y`, `col = ctaid.x * ntid.x + tid.x`.
    coordinates: [Op; 7],
    /// `&C[row][col]`.
    address_c: [Op; 2],
    store: Op,
    exit: Op,
}

impl Frame {
    fn coordinates(code: &mut Code) -> [Op; 7] {
        [
            code.op("MOV", &[1], &[]),
            code.op("S2R", &[0], &[]),
            code.op("S2R", &[3], &[]),
            code.op("S2R", &[4], &[]),
            code.op("S2R", &[5], &[]),
            code.op("IMAD", &[0], &[0, 3]),
            code.op("IMAD", &[4], &[4, 5]),
        ]
    }

    /// The end of the listing; `coordinates` were written at its start.
    fn finish(code: &mut Code, coordinates: [Op; 7]) -> Frame {
        Frame {
            coordinates,
            address_c: [code.op("IMAD", &[0], &[0, 4]), code.op("IMAD.WIDE", &[2], &[0, 11])],
            store: code.op("STG.E.SYS", &[], &[2, 10]),
            exit: code.op("EXIT", &[], &[]),
        }
    }

    /// `C[row][col] = acc` and the end of the thread.
    fn store(&self, w: &mut WarpWriter<'_>, mask: u32, problem: &Problem, at: impl Fn(u32) -> Thread) {
        exec_all(w, &self.address_c, mask);
        w.mem(self.store, mask, |lane| problem.c(at(lane).row, at(lane).col));
        w.exec(self.exit, mask);
    }
}

/// The test a `for` loop with a run-time trip count starts with:
/// `if (0 >= trips) goto end` (`ISETP.GE.AND P0, PT, RZ, c[..]`), never
/// taken here.
fn loop_entry(code: &mut Code) -> [Op; 2] {
    [code.op("ISETP.GE.AND", &[], &[RZ]), code.op("BRA", &[], &[])]
}

fn enter_loop(w: &mut WarpWriter<'_>, ops: [Op; 2], mask: u32, trips: u64) {
    w.exec(ops[0], mask);
    w.exec(ops[1], if trips == 0 { mask } else { 0 });
}

struct NaiveOps {
    guard: [Op; 2],
    exit_guard: Op,
    prologue: [Op; 7],
    entry: [Op; 2],
    load_a: Op,
    load_b: Op,
    step: [Op; 6],
    branch: Op,
    frame: Frame,
}

fn naive_listing(code: &mut Code) -> NaiveOps {
    let coordinates = Frame::coordinates(code);
    NaiveOps {
        // `if (row >= M || col >= N) return;`
        guard: [code.op("ISETP.GE.AND", &[], &[0]), code.op("ISETP.GE.OR", &[], &[4])],
        exit_guard: code.op("EXIT", &[], &[]),
        prologue: [
            code.op("MOV", &[11], &[]),
            code.op("MOV", &[10], &[RZ]),
            code.op("IMAD", &[12], &[0]),
            code.op("IMAD.WIDE", &[6], &[12, 11]),
            code.op("IMAD.WIDE", &[8], &[4, 11]),
            code.op("MOV", &[13], &[]),
            code.op("MOV", &[14], &[RZ]),
        ],
        entry: loop_entry(code),
        load_a: code.op("LDG.E.SYS", &[15], &[6]),
        load_b: code.op("LDG.E.SYS", &[16], &[8]),
        step: [
            code.op("IADD3", &[14], &[14, RZ]),
            code.op("IADD3", &[6], &[6, RZ]),
            code.op("IADD3.X", &[7], &[7, RZ]),
            code.op("IMAD.WIDE", &[8], &[13, 8]),
            code.op("ISETP.LT.AND", &[], &[14]),
            code.op("FFMA", &[10], &[15, 16, 10]),
        ],
        branch: code.op("BRA", &[], &[]),
        frame: Frame::finish(code, coordinates),
    }
}

struct Naive {
    ops: NaiveOps,
    problem: Problem,
}

impl CtaBody for Naive {
    fn fill(&self, _index: u64, cta: &mut Cta) {
        let (ops, p) = (&self.ops, &self.problem);
        let id = cta.id;
        for_each_warp(cta, NAIVE_TILE * NAIVE_TILE, |w, warp| {
            let at = locate(id, NAIVE_TILE, warp);
            exec_all(w, &ops.frame.coordinates, warp.mask);
            exec_all(w, &ops.guard, warp.mask);
            let outside = warp.mask & mask_where(|lane| at(lane).row >= p.m || at(lane).col >= p.n);
            w.exec(ops.exit_guard, outside);
            let mask = warp.mask & !outside;
            if mask == 0 {
                return;
            }
            exec_all(w, &ops.prologue, mask);
            enter_loop(w, ops.entry, mask, p.k);
            for kk in 0..p.k {
                w.mem(ops.load_a, mask, |lane| p.a(at(lane).row, kk));
                w.mem(ops.load_b, mask, |lane| p.b(kk, at(lane).col));
                exec_all(w, &ops.step, mask);
                back_edge(w, ops.branch, mask, kk + 1 < p.k);
            }
            ops.frame.store(w, mask, p, &at);
        });
    }
}

fn build_naive(params: &Params<'_>) -> Result<Workload, GenError> {
    let mut memory = DeviceMemory::default();
    let problem = Problem::new(params, NAIVE_TILE, &mut memory)?;
    let launch = problem.launch("_Z10gemm_naivePKfS0_Pfiii", NAIVE_TILE, 0)?;
    let mut code = params.code();
    let ops = naive_listing(&mut code);
    let kernel = Kernel::new(launch, &code, Naive { ops, problem });
    Ok(Workload::new(&memory, vec![kernel]))
}

struct TiledOps {
    entry: [Op; 2],
    prologue: [Op; 11],
    load_a: Op,
    load_b: Op,
    advance: [Op; 4],
    store_a: Op,
    store_b: Op,
    sync_loaded: Op,
    inner_prologue: [Op; 3],
    tile_a: Op,
    tile_b: Op,
    inner_step: [Op; 5],
    inner_branch: Op,
    sync_used: Op,
    outer_test: Op,
    outer_branch: Op,
    frame: Frame,
}

fn tiled_listing(code: &mut Code) -> TiledOps {
    let coordinates = Frame::coordinates(code);
    TiledOps {
        entry: loop_entry(code),
        prologue: [
            code.op("MOV", &[11], &[]),
            code.op("MOV", &[10], &[RZ]),
            code.op("IMAD", &[12], &[0, 5]),
            code.op("IMAD.WIDE", &[6], &[12, 11]),
            code.op("IMAD", &[13], &[3, 4]),
            code.op("IMAD.WIDE", &[8], &[13, 11]),
            code.op("MOV", &[13], &[]),
            code.op("IMAD", &[14], &[3, 5]),
            code.op("SHF.L.U32", &[14], &[14, RZ]),
            code.op("SHF.L.U32", &[15], &[3, RZ]),
            code.op("SHF.L.U32", &[16], &[5, RZ]),
        ],
        load_a: code.op("LDG.E.SYS", &[18], &[6]),
        load_b: code.op("LDG.E.SYS", &[19], &[8]),
        advance: [
            code.op("IADD3", &[17], &[17, RZ]),
            code.op("IADD3", &[6], &[6, RZ]),
            code.op("IADD3.X", &[7], &[7, RZ]),
            code.op("IMAD.WIDE", &[8], &[13, 8]),
        ],
        store_a: code.op("STS", &[], &[14, 18]),
        store_b: code.op("STS", &[], &[14, 19]),
        sync_loaded: code.op("BAR.SYNC", &[], &[]),
        inner_prologue: [code.op("MOV", &[20], &[15]), code.op("MOV", &[21], &[16]), code.op("MOV", &[22], &[RZ])],
        tile_a: code.op("LDS", &[23], &[20]),
        tile_b: code.op("LDS", &[24], &[21]),
        inner_step: [
            code.op("IADD3", &[22], &[22, RZ]),
            code.op("IADD3", &[20], &[20, RZ]),
            code.op("IADD3", &[21], &[21, RZ]),
            code.op("ISETP.LT.AND", &[], &[22]),
            code.op("FFMA", &[10], &[23, 24, 10]),
        ],
        inner_branch: code.op("BRA", &[], &[]),
        sync_used: code.op("BAR.SYNC", &[], &[]),
        outer_test: code.op("ISETP.LT.AND", &[], &[17]),
        outer_branch: code.op("BRA", &[], &[]),
        frame: Frame::finish(code, coordinates),
    }
}

struct Tiled {
    ops: TiledOps,
    problem: Problem,
    tile: u64,
}

impl Tiled {
    /// Byte offset of `As[row][col]` in shared memory.
    fn shared_a(&self, row: u64, col: u64) -> u64 {
        (row * self.tile + col) * FLOAT
    }

    /// Byte offset of `Bs[row][col]`, right after `As`.
    fn shared_b(&self, row: u64, col: u64) -> u64 {
        self.shared_a(self.tile + row, col)
    }

    /// One step along K: tiles `step` of A's rows and B's columns through
    /// shared memory into the accumulator.
    fn step(&self, w: &mut WarpWriter<'_>, mask: u32, step: u64, at: &impl Fn(u32) -> Thread) {
        let (ops, p, tile) = (&self.ops, &self.problem, self.tile);
        let base = step * tile;
        w.mem(ops.load_a, mask, |lane| p.a(at(lane).row, base + at(lane).tx));
        w.mem(ops.load_b, mask, |lane| p.b(base + at(lane).ty, at(lane).col));
        exec_all(w, &ops.advance, mask);
        w.mem(ops.store_a, mask, |lane| self.shared_a(at(lane).ty, at(lane).tx));
        w.mem(ops.store_b, mask, |lane| self.shared_b(at(lane).ty, at(lane).tx));
        w.exec(ops.sync_loaded, mask);
        exec_all(w, &ops.inner_prologue, mask);
        for kk in 0..tile {
            w.mem(ops.tile_a, mask, |lane| self.shared_a(at(lane).ty, kk));
            w.mem(ops.tile_b, mask, |lane| self.shared_b(kk, at(lane).tx));
            exec_all(w, &ops.inner_step, mask);
            back_edge(w, ops.inner_branch, mask, kk + 1 < tile);
        }
        w.exec(ops.sync_used, mask);
        w.exec(ops.outer_test, mask);
        back_edge(w, ops.outer_branch, mask, step + 1 < p.k / tile);
    }
}

impl CtaBody for Tiled {
    fn fill(&self, _index: u64, cta: &mut Cta) {
        let (ops, tile) = (&self.ops, self.tile);
        let id = cta.id;
        for_each_warp(cta, tile * tile, |w, warp| {
            let at = locate(id, tile, warp);
            exec_all(w, &ops.frame.coordinates, warp.mask);
            enter_loop(w, ops.entry, warp.mask, self.problem.k / tile);
            exec_all(w, &ops.prologue, warp.mask);
            for step in 0..self.problem.k / tile {
                self.step(w, warp.mask, step, &at);
            }
            ops.frame.store(w, warp.mask, &self.problem, &at);
        });
    }
}

fn build_tiled(params: &Params<'_>) -> Result<Workload, GenError> {
    let tile = params.knob("tile");
    if ![8, 16, 32].contains(&tile) {
        return Err(GenError::Inconsistent(format!("tile = {tile}: the tile edge must be 8, 16 or 32")));
    }
    let mut memory = DeviceMemory::default();
    let problem = Problem::new(params, tile, &mut memory)?;
    let name = match tile {
        8 => "_Z10gemm_tiledILi8EEvPKfS1_Pfiii",
        16 => "_Z10gemm_tiledILi16EEvPKfS1_Pfiii",
        _ => "_Z10gemm_tiledILi32EEvPKfS1_Pfiii",
    };
    let launch = problem.launch(name, tile, (2 * tile * tile * FLOAT) as u32)?;
    let mut code = params.code();
    let ops = tiled_listing(&mut code);
    let body = Tiled { ops, problem, tile };
    Ok(Workload::new(&memory, Kernel::repeated(&launch, &code, body, params.knob(LAUNCHES.name))))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use crate::Command;
    use crate::test_support::{assert_launches_repeat, distinct_sectors, for_each_op, run};

    /// How often the global loads of `spec` read each element of A and of B
    /// (the two arrays copied in, in that order).
    fn load_counts(spec: &str) -> [HashMap<u64, u64>; 2] {
        let workload = run(spec);
        let inputs: Vec<_> = workload
            .commands
            .iter()
            .filter_map(|command| match command {
                Command::MemcpyHtoD { addr, bytes } => Some(*addr..addr + bytes),
                Command::Kernel(_) => None,
            })
            .collect();
        let mut counts = [HashMap::new(), HashMap::new()];
        for_each_op(workload.kernels().next().unwrap(), "LDG", |_, _, addresses| {
            for address in addresses {
                let matrix = inputs.iter().position(|range| range.contains(&address)).expect("loads read A or B");
                *counts[matrix].entry(address).or_insert(0) += 1;
            }
        });
        counts
    }

    #[test]
    fn tiled_loads_every_element_n_over_tile_times() {
        for tile in [8, 16, 32] {
            // M = N = K = 64.
            for counts in load_counts(&format!("gemm-tiled:size=4,n=64,k=64,tile={tile}")) {
                assert_eq!(counts.len(), 64 * 64, "every element is read");
                assert!(counts.values().all(|&count| count == 64 / tile), "tile {tile}");
            }
        }
    }

    #[test]
    fn naive_loads_a_n_times_and_b_m_times() {
        let [a, b] = load_counts("gemm-naive:size=2,n=48,k=16");
        let (m, n, k) = (32, 48, 16);
        assert_eq!((a.len(), b.len()), (m * k, k * n));
        assert!(a.values().all(|&count| count == n as u64));
        assert!(b.values().all(|&count| count == m as u64));
    }

    #[test]
    fn a_naive_warp_reads_two_rows_of_a_and_one_segment_of_b() {
        let workload = run("gemm-naive:size=1,n=32,k=32");
        // A[row][0] for two rows, K floats apart: two sectors.
        assert_eq!(distinct_sectors(&workload, "LDG", 0), 2);
        // B[0][col] for 16 consecutive columns, twice: 64 bytes, 2 sectors.
        assert_eq!(distinct_sectors(&workload, "LDG", 1), 2);
    }

    #[test]
    fn tiled_shared_accesses_stay_inside_the_two_tiles() {
        let workload = run("gemm-tiled:size=2,n=32,k=64,tile=32");
        let kernel = workload.kernels().next().unwrap();
        assert_eq!(kernel.header().shmem_bytes, 2 * 32 * 32 * 4);
        let mut touched = std::collections::HashSet::new();
        for prefix in ["LDS", "STS"] {
            for_each_op(kernel, prefix, |_, _, addresses| touched.extend(addresses));
        }
        assert_eq!(touched.len(), 2 * 32 * 32);
        assert!(touched.iter().all(|&offset| offset < 2 * 32 * 32 * 4 && offset % 4 == 0));
    }

    #[test]
    fn sizes_that_do_not_fit_the_tile_are_rejected() {
        let config = warplab_config::default_preset().config().unwrap();
        for spec in ["gemm-naive:n=40", "gemm-tiled:k=12,tile=8", "gemm-tiled:size=3,tile=32", "gemm-tiled:tile=12"] {
            let error = crate::generate(&spec.parse().unwrap(), &config).unwrap_err();
            assert!(matches!(error, crate::GenError::Inconsistent(_)), "{spec}: {error}");
        }
    }

    #[test]
    fn tiled_launches_repeat_the_kernel_over_the_same_matrices() {
        assert_launches_repeat("gemm-tiled:size=2,n=32,k=64,tile=16", 4);
    }
}
