//! `spmv-csr`: the scalar CSR sparse matrix–vector product `y = A·x` (Bell &
//! Garland's `spmv_csr_scalar_kernel`), one thread per row:
//!
//! ```text
//! row = blockIdx.x * blockDim.x + threadIdx.x;
//! if (row < rows) {
//!     dot = 0;
//!     for (j = ptr[row]; j < ptr[row + 1]; j++) dot += val[j] * x[col[j]];
//!     y[row] = dot;
//! }
//! ```
//!
//! The matrix is square and seeded: each row holds between 1 and
//! `2·nnz − 1` nonzeros (uniform, so `nnz` on average) at distinct random
//! columns, sorted within the row. Neighbouring threads walk different rows,
//! so the `val`/`col` loads of one warp are scattered over 32 rows and the
//! `x[col[j]]` gather is data-dependent; the warp keeps looping until its
//! longest row is done, with the lanes of shorter rows masked off.
//!
//! This module also holds the random [`Csr`] structure `bfs` shares.

use std::ops::Range;

use warplab_trace::Cta;

use crate::generator::{Knob, Params, SEED, size};
use crate::generators::prologue::ThreadIndex;
use crate::spec::GenError;
use crate::{
    Array, Code, CtaBody, DeviceMemory, Generator, Kernel, Launch, Op, RZ, Random, WarpWriter, Workload, for_each_warp,
    lanes, within,
};

/// Rows per unit of `size`.
const ROWS_PER_SIZE: u64 = 1024;
/// Threads per CTA.
const BLOCK: u64 = 256;

pub(crate) const GENERATOR: Generator = Generator {
    name: "spmv-csr",
    summary: "scalar CSR y = A·x on a seeded random sparse matrix, one thread per row",
    size: size(
        "N: thousands of rows of the square matrix (N × 1024, 256 per CTA); warp instructions ≈ N × 32 × (15 + 10 × \
         the longest row of each warp, about 2·nnz); max 1024 (with nnz = 32, ~130 MB of host data)",
        64,
        1024,
    ),
    knobs: &[
        Knob {
            name: "nnz",
            help: "average nonzeros per row (each row has 1..=2·nnz−1, uniform)",
            default: 16,
            min: 1,
            max: 32,
        },
        SEED,
    ],
    uses_config: false,
    build,
};

/// A seeded random sparse structure in compressed sparse row form: a sparse
/// matrix's pattern, or a directed graph's adjacency lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Csr {
    /// `row_ptr[r]..row_ptr[r + 1]` are row `r`'s entries.
    pub(crate) row_ptr: Vec<u32>,
    /// The column (neighbour) of each entry.
    pub(crate) col: Vec<u32>,
}

impl Csr {
    /// `rows` rows over `cols` columns, each with between 1 and
    /// `2·average − 1` entries (uniform) at distinct random columns, sorted.
    /// `2·average − 1` must not exceed `cols`.
    pub(crate) fn random(rows: usize, cols: u32, average: u32, random: &mut Random) -> Csr {
        let longest = 2 * average - 1;
        assert!(longest <= cols, "rows of up to {longest} distinct columns out of {cols}");
        // Row lengths first, so the column array is allocated exactly once.
        let mut row_ptr = Vec::with_capacity(rows + 1);
        row_ptr.push(0u32);
        for _ in 0..rows {
            let count = random.between(1, u64::from(longest)) as u32;
            row_ptr.push(row_ptr[row_ptr.len() - 1].checked_add(count).expect("fewer than 2^32 entries"));
        }
        let mut col = Vec::with_capacity(row_ptr[rows] as usize);
        let mut columns = Vec::new();
        for row in row_ptr.windows(2) {
            distinct_sorted(&mut columns, (row[1] - row[0]) as usize, cols, random);
            col.extend_from_slice(&columns);
        }
        Csr { row_ptr, col }
    }

    /// Number of rows.
    pub(crate) fn rows(&self) -> usize {
        self.row_ptr.len() - 1
    }

    /// The entry indices of row `row`.
    pub(crate) fn entries(&self, row: u64) -> Range<u64> {
        let row = row as usize;
        u64::from(self.row_ptr[row])..u64::from(self.row_ptr[row + 1])
    }

    /// Entries in row `row`.
    pub(crate) fn count(&self, row: u64) -> u64 {
        let entries = self.entries(row);
        entries.end - entries.start
    }

    /// The column of entry `entry`.
    pub(crate) fn column(&self, entry: u64) -> u64 {
        u64::from(self.col[entry as usize])
    }

    /// The most entries any row of `rows` (a lane mask over `row(lane)`) has.
    pub(crate) fn longest(&self, rows: u32, row: impl Fn(u32) -> u64) -> u64 {
        lanes(rows).map(|lane| self.count(row(lane))).max().unwrap_or(0)
    }
}

/// Replaces `columns` by `count` distinct random values below `cols`, sorted.
fn distinct_sorted(columns: &mut Vec<u32>, count: usize, cols: u32, random: &mut Random) {
    columns.clear();
    while columns.len() < count {
        let missing = count - columns.len();
        columns.extend((0..missing).map(|_| random.below(u64::from(cols)) as u32));
        columns.sort_unstable();
        columns.dedup();
    }
}

#[derive(Debug, Clone, Copy)]
struct Ops {
    thread: ThreadIndex,
    ptr_address: Op,
    load_start: Op,
    load_end: Op,
    zero: Op,
    empty_test: Op,
    skip_loop: Op,
    col_address: Op,
    val_address: Op,
    load_val: Op,
    load_col: Op,
    increment: Op,
    x_address: Op,
    load_x: Op,
    compare: Op,
    multiply_add: Op,
    branch: Op,
    y_address: Op,
    store_y: Op,
    exit: Op,
}

fn listing(code: &mut Code) -> Ops {
    Ops {
        thread: ThreadIndex::listing(code),
        ptr_address: code.op("IMAD.WIDE", &[2], &[0]),
        load_start: code.op("LDG.E.SYS", &[4], &[2]),
        load_end: code.op("LDG.E.SYS", &[5], &[2]),
        zero: code.op("MOV", &[6], &[RZ]),
        empty_test: code.op("ISETP.GE.AND", &[], &[4, 5]),
        skip_loop: code.op("BRA", &[], &[]),
        col_address: code.op("IMAD.WIDE", &[8], &[4]),
        val_address: code.op("IMAD.WIDE", &[10], &[4]),
        load_val: code.op("LDG.E.SYS", &[13], &[10]),
        load_col: code.op("LDG.E.SYS", &[12], &[8]),
        increment: code.op("IADD3", &[4], &[4, RZ]),
        x_address: code.op("IMAD.WIDE", &[14], &[12]),
        load_x: code.op("LDG.E.SYS", &[16], &[14]),
        compare: code.op("ISETP.GE.AND", &[], &[4, 5]),
        multiply_add: code.op("FFMA", &[6], &[13, 16, 6]),
        branch: code.op("BRA", &[], &[]),
        y_address: code.op("IMAD.WIDE", &[2], &[0]),
        store_y: code.op("STG.E.SYS", &[], &[2, 6]),
        exit: code.op("EXIT", &[], &[]),
    }
}

/// The device arrays of the product.
#[derive(Debug, Clone, Copy)]
struct Arrays {
    ptr: Array,
    col: Array,
    val: Array,
    x: Array,
    y: Array,
}

fn allocate(memory: &mut DeviceMemory, matrix: &Csr) -> Arrays {
    let (rows, entries) = (matrix.rows() as u64, matrix.col.len() as u64);
    Arrays {
        ptr: memory.input(rows + 1, 4),
        col: memory.input(entries, 4),
        val: memory.input(entries, 4),
        x: memory.input(rows, 4),
        y: memory.alloc(rows, 4),
    }
}

struct SpMv {
    ops: Ops,
    arrays: Arrays,
    matrix: Csr,
}

impl SpMv {
    /// The row loop for the lanes `rows` (row of a lane: `row(lane)`).
    fn row_loop(&self, w: &mut WarpWriter<'_>, rows: u32, row: impl Fn(u32) -> u64 + Copy) {
        let (ops, a, matrix) = (&self.ops, &self.arrays, &self.matrix);
        let entry = |lane, i| matrix.entries(row(lane)).start + i;
        for i in 0..matrix.longest(rows, row) {
            let active = within(rows, |lane| matrix.count(row(lane)) > i);
            w.exec(ops.col_address, active);
            w.exec(ops.val_address, active);
            w.mem(ops.load_val, active, |lane| a.val.at(entry(lane, i)));
            w.mem(ops.load_col, active, |lane| a.col.at(entry(lane, i)));
            w.exec(ops.increment, active);
            w.exec(ops.x_address, active);
            w.mem(ops.load_x, active, |lane| a.x.at(matrix.column(entry(lane, i))));
            w.exec(ops.compare, active);
            w.exec(ops.multiply_add, active);
            w.exec(ops.branch, within(active, |lane| matrix.count(row(lane)) > i + 1));
        }
    }
}

impl CtaBody for SpMv {
    fn fill(&self, index: u64, cta: &mut Cta) {
        let (ops, a) = (&self.ops, &self.arrays);
        let rows = self.matrix.rows() as u64;
        for_each_warp(cta, BLOCK, |w, warp| {
            let row = |lane| index * BLOCK + warp.thread(lane);
            let inside = within(warp.mask, |lane| row(lane) < rows);
            ops.thread.exec(w, warp.mask, inside);
            if inside == 0 {
                return;
            }
            w.exec(ops.ptr_address, inside);
            w.mem(ops.load_start, inside, |lane| a.ptr.at(row(lane)));
            w.mem(ops.load_end, inside, |lane| a.ptr.at(row(lane) + 1));
            w.exec(ops.zero, inside);
            w.exec(ops.empty_test, inside);
            w.exec(ops.skip_loop, within(inside, |lane| self.matrix.count(row(lane)) == 0));
            self.row_loop(w, inside, row);
            w.exec(ops.y_address, inside);
            w.mem(ops.store_y, inside, |lane| a.y.at(row(lane)));
            w.exec(ops.exit, inside);
        });
    }
}

fn build(params: &Params<'_>) -> Result<Workload, GenError> {
    let rows = params.size() * ROWS_PER_SIZE;
    let mut random = Random::new(params.knob("seed"));
    let matrix = Csr::random(rows as usize, rows as u32, params.knob("nnz") as u32, &mut random);
    let mut memory = DeviceMemory::default();
    let arrays = allocate(&mut memory, &matrix);
    let mut code = params.code();
    let ops = listing(&mut code);
    let launch = Launch::linear("_Z22spmv_csr_scalar_kerneliPKiS0_PKfS2_Pf", rows.div_ceil(BLOCK), BLOCK, 0)?;
    let kernel = Kernel::new(launch, &code, SpMv { ops, arrays, matrix });
    Ok(Workload::new(&memory, vec![kernel]))
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::test_support::run;

    fn matrix(size: u64, nnz: u32, seed: u64) -> Csr {
        let rows = (size * ROWS_PER_SIZE) as usize;
        Csr::random(rows, rows as u32, nnz, &mut Random::new(seed))
    }

    #[test]
    fn rows_have_distinct_sorted_columns_and_the_average_count() {
        let csr = matrix(4, 6, 9);
        for row in 0..csr.rows() as u64 {
            let columns: Vec<_> = csr.entries(row).map(|entry| csr.column(entry)).collect();
            assert!((1..=11).contains(&columns.len()));
            assert!(columns.windows(2).all(|pair| pair[0] < pair[1]), "row {row}: {columns:?}");
        }
        let average = csr.col.len() as f64 / csr.rows() as f64;
        assert!((average - 6.0).abs() < 0.2, "{average}");
    }

    #[test]
    fn each_row_loads_x_exactly_at_its_column_indices() {
        let workload = run("spmv-csr:size=2,nnz=5,seed=4");
        let kernel = workload.kernels().next().unwrap();
        let csr = matrix(2, 5, 4);
        let mut memory = DeviceMemory::default();
        let arrays = allocate(&mut memory, &csr);
        let load_x = listing(&mut Code::new()).load_x.pc();
        let mut loaded = vec![Vec::new(); csr.rows()];
        kernel.for_each_cta(|cta| {
            for warp in &cta.warps {
                for inst in cta.warp_instructions(warp).iter().filter(|inst| inst.pc == load_x) {
                    for (lane, address) in cta.lane_addresses(inst) {
                        let row = u64::from(cta.id.x) * BLOCK + u64::from(warp.warp_id) * 32 + u64::from(lane);
                        loaded[row as usize].push((address - arrays.x.base) / 4);
                    }
                }
            }
        });
        for (row, columns) in loaded.iter().enumerate() {
            let expected: Vec<_> = csr.entries(row as u64).map(|entry| csr.column(entry)).collect();
            assert_eq!(columns, &expected, "row {row}");
        }
    }
}
