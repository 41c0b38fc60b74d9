//! `bfs`: level-synchronous breadth-first search from vertex 0 on a seeded
//! random directed graph in CSR form, in the style of Rodinia's BFS: one
//! kernel launch per BFS level, one thread per vertex.
//!
//! ```text
//! v = blockIdx.x * blockDim.x + threadIdx.x;
//! if (v < n && frontier[v]) {
//!     frontier[v] = false;
//!     for (e = row_ptr[v]; e < row_ptr[v + 1]; e++) {
//!         u = col[e];
//!         if (!visited[u]) { cost[u] = level + 1; next[u] = true; visited[u] = true; }
//!     }
//! }
//! ```
//!
//! The host swaps `frontier` and `next` between launches and stops after the
//! launch that discovers nothing, so there are as many launches as BFS
//! levels. Each vertex has between 1 and `2·degree − 1` out-edges (uniform)
//! to distinct random vertices. Only the lanes of vertices on the current
//! frontier get past the flag test; a warp's edge loop runs until its lane
//! with the most edges is done; the `if (!visited[u])` masks lane by lane.
//!
//! Threads of one level race on `visited` (two frontier vertices may both see
//! a shared neighbour unvisited and both write it, which is benign). The trace
//! resolves the race deterministically: every `visited` load sees the state
//! at the start of the level, so a neighbour is written by every frontier
//! vertex that reaches it exactly when it lies on the next level.

use std::sync::Arc;

use warplab_trace::Cta;

use crate::generator::{Knob, Params, SEED, size};
use crate::generators::prologue::ThreadIndex;
use crate::generators::spmv::Csr;
use crate::spec::GenError;
use crate::within;
use crate::{
    Array, Code, CtaBody, DeviceMemory, Generator, Kernel, Launch, Op, RZ, Random, WarpWriter, Workload, for_each_warp,
};

/// Vertices per unit of `size`.
const VERTICES_PER_SIZE: u64 = 1024;
/// Threads per CTA.
const BLOCK: u64 = 256;
/// `level` of a vertex the search never reaches.
const UNREACHED: u32 = u32::MAX;

pub(crate) const GENERATOR: Generator = Generator {
    name: "bfs",
    summary: "level-synchronous BFS (Rodinia style) on a seeded random graph, one launch per level, one thread per vertex",
    size: size(
        "N: thousands of vertices V (N × 1024, 256 per CTA); each of the ~log(V)/log(degree) launches runs N × 32 \
         warps of 11 instructions, plus 9, and 12–18 per edge-loop iteration, in warps with frontier vertices; max \
         1024 (with degree = 32, ~140 MB of host data)",
        32,
        1024,
    ),
    knobs: &[
        Knob {
            name: "degree",
            help: "average out-degree (each vertex has 1..=2·degree−1 edges, uniform)",
            default: 8,
            min: 2,
            max: 32,
        },
        SEED,
    ],
    uses_config: false,
    build,
};

/// The graph and its BFS levels, computed on the host.
#[derive(Debug)]
struct Graph {
    csr: Csr,
    /// Each vertex's distance from vertex 0, [`UNREACHED`] if none.
    level: Vec<u32>,
}

impl Graph {
    fn random(vertices: usize, degree: u32, random: &mut Random) -> Graph {
        let csr = Csr::random(vertices, vertices as u32, degree, random);
        let level = levels(&csr);
        Graph { csr, level }
    }

    /// BFS levels (the number of non-empty frontiers, and of launches).
    fn depth(&self) -> u32 {
        self.level.iter().filter(|&&level| level != UNREACHED).max().map_or(0, |deepest| deepest + 1)
    }
}

/// Distances from vertex 0 by a host-side breadth-first search.
fn levels(csr: &Csr) -> Vec<u32> {
    let mut level = vec![UNREACHED; csr.rows()];
    let mut queue = std::collections::VecDeque::from([0u64]);
    level[0] = 0;
    while let Some(vertex) = queue.pop_front() {
        for entry in csr.entries(vertex) {
            let neighbour = csr.column(entry);
            if level[neighbour as usize] == UNREACHED {
                level[neighbour as usize] = level[vertex as usize] + 1;
                queue.push_back(neighbour);
            }
        }
    }
    level
}

#[derive(Debug, Clone, Copy)]
struct Ops {
    thread: ThreadIndex,
    flag_address: [Op; 2],
    load_flag: Op,
    flag_test: Op,
    skip_exit: Op,
    row_address: Op,
    clear_flag: Op,
    load_start: Op,
    load_end: Op,
    constants: [Op; 2],
    empty_test: Op,
    empty_exit: Op,
    col_address: Op,
    load_col: Op,
    visited_address: [Op; 2],
    load_visited: Op,
    increment: Op,
    visited_test: Op,
    converge: Op,
    skip_branch: Op,
    store_addresses: [Op; 3],
    store_cost: Op,
    store_next: Op,
    mark_visited: Op,
    reconverge: Op,
    compare: Op,
    branch: Op,
    exit: Op,
}

fn listing(code: &mut Code) -> Ops {
    Ops {
        thread: ThreadIndex::listing(code),
        flag_address: [code.op("IADD3", &[4], &[0, RZ]), code.op("LEA.HI.X.SX32", &[5], &[0])],
        load_flag: code.op("LDG.E.U8.SYS", &[6], &[4]),
        flag_test: code.op("ISETP.NE.AND", &[], &[6, RZ]),
        skip_exit: code.op("EXIT", &[], &[]),
        row_address: code.op("IMAD.WIDE", &[2], &[0]),
        clear_flag: code.op("STG.E.U8.SYS", &[], &[4, RZ]),
        load_start: code.op("LDG.E.SYS", &[7], &[2]),
        load_end: code.op("LDG.E.SYS", &[8], &[2]),
        // `true` for the flags, and `level + 1` (a kernel argument).
        constants: [code.op("MOV", &[9], &[]), code.op("MOV", &[10], &[])],
        empty_test: code.op("ISETP.GE.AND", &[], &[7, 8]),
        empty_exit: code.op("EXIT", &[], &[]),
        col_address: code.op("IMAD.WIDE", &[12], &[7]),
        load_col: code.op("LDG.E.SYS", &[14], &[12]),
        visited_address: [code.op("IADD3", &[16], &[14, RZ]), code.op("LEA.HI.X.SX32", &[17], &[14])],
        load_visited: code.op("LDG.E.U8.SYS", &[15], &[16]),
        increment: code.op("IADD3", &[7], &[7, RZ]),
        visited_test: code.op("ISETP.NE.AND", &[], &[15, RZ]),
        converge: code.op("BSSY", &[], &[]),
        skip_branch: code.op("BRA", &[], &[]),
        store_addresses: [
            code.op("IMAD.WIDE", &[18], &[14]),
            code.op("IADD3", &[20], &[14, RZ]),
            code.op("LEA.HI.X.SX32", &[21], &[14]),
        ],
        store_cost: code.op("STG.E.SYS", &[], &[18, 10]),
        store_next: code.op("STG.E.U8.SYS", &[], &[20, 9]),
        mark_visited: code.op("STG.E.U8.SYS", &[], &[16, 9]),
        reconverge: code.op("BSYNC", &[], &[]),
        compare: code.op("ISETP.GE.AND", &[], &[7, 8]),
        branch: code.op("BRA", &[], &[]),
        exit: code.op("EXIT", &[], &[]),
    }
}

/// The device arrays of the search.
#[derive(Debug, Clone, Copy)]
struct Arrays {
    row_ptr: Array,
    col: Array,
    /// The two frontier flag arrays, swapped after every level.
    frontiers: [Array; 2],
    visited: Array,
    cost: Array,
}

fn allocate(memory: &mut DeviceMemory, csr: &Csr) -> Arrays {
    let vertices = csr.rows() as u64;
    Arrays {
        row_ptr: memory.input(vertices + 1, 4),
        col: memory.input(csr.col.len() as u64, 4),
        frontiers: [memory.input(vertices, 1), memory.input(vertices, 1)],
        visited: memory.input(vertices, 1),
        cost: memory.input(vertices, 4),
    }
}

/// One launch: expands the frontier of level `level`.
struct BfsLevel {
    ops: Ops,
    arrays: Arrays,
    graph: Arc<Graph>,
    level: u32,
}

impl BfsLevel {
    fn frontier(&self) -> Array {
        self.arrays.frontiers[self.level as usize % 2]
    }

    fn next(&self) -> Array {
        self.arrays.frontiers[(self.level as usize + 1) % 2]
    }

    /// The body of `if (frontier[v])` for the lanes `on` (vertex of a lane:
    /// `vertex(lane)`).
    fn expand(&self, w: &mut WarpWriter<'_>, on: u32, vertex: impl Fn(u32) -> u64 + Copy) {
        let (ops, a, csr) = (&self.ops, &self.arrays, &self.graph.csr);
        w.exec(ops.row_address, on);
        w.mem(ops.clear_flag, on, |lane| self.frontier().at(vertex(lane)));
        w.mem(ops.load_start, on, |lane| a.row_ptr.at(vertex(lane)));
        w.mem(ops.load_end, on, |lane| a.row_ptr.at(vertex(lane) + 1));
        for op in ops.constants {
            w.exec(op, on);
        }
        w.exec(ops.empty_test, on);
        w.exec(ops.empty_exit, within(on, |lane| csr.count(vertex(lane)) == 0));
        for i in 0..csr.longest(on, vertex) {
            let active = within(on, |lane| csr.count(vertex(lane)) > i);
            self.edge(w, active, |lane| csr.entries(vertex(lane)).start + i);
            w.exec(ops.branch, within(active, |lane| csr.count(vertex(lane)) > i + 1));
        }
    }

    /// One edge-loop iteration for the lanes `active`, lane `lane` at edge
    /// `edge(lane)`, up to the loop's compare.
    fn edge(&self, w: &mut WarpWriter<'_>, active: u32, edge: impl Fn(u32) -> u64 + Copy) {
        let (ops, a, graph) = (&self.ops, &self.arrays, &self.graph);
        let neighbour = |lane| graph.csr.column(edge(lane));
        w.exec(ops.col_address, active);
        w.mem(ops.load_col, active, |lane| a.col.at(edge(lane)));
        for op in ops.visited_address {
            w.exec(op, active);
        }
        w.mem(ops.load_visited, active, |lane| a.visited.at(neighbour(lane)));
        w.exec(ops.increment, active);
        w.exec(ops.visited_test, active);
        w.exec(ops.converge, active);
        let fresh = within(active, |lane| graph.level[neighbour(lane) as usize] > self.level);
        w.exec(ops.skip_branch, active & !fresh);
        if fresh != 0 {
            for op in ops.store_addresses {
                w.exec(op, fresh);
            }
            w.mem(ops.store_cost, fresh, |lane| a.cost.at(neighbour(lane)));
            w.mem(ops.store_next, fresh, |lane| self.next().at(neighbour(lane)));
            w.mem(ops.mark_visited, fresh, |lane| a.visited.at(neighbour(lane)));
        }
        w.exec(ops.reconverge, active);
        w.exec(ops.compare, active);
    }
}

impl CtaBody for BfsLevel {
    fn fill(&self, index: u64, cta: &mut Cta) {
        let ops = &self.ops;
        let vertices = self.graph.level.len() as u64;
        for_each_warp(cta, BLOCK, |w, warp| {
            let vertex = |lane| index * BLOCK + warp.thread(lane);
            let inside = within(warp.mask, |lane| vertex(lane) < vertices);
            ops.thread.exec(w, warp.mask, inside);
            if inside == 0 {
                return;
            }
            for op in ops.flag_address {
                w.exec(op, inside);
            }
            w.mem(ops.load_flag, inside, |lane| self.frontier().at(vertex(lane)));
            w.exec(ops.flag_test, inside);
            let on = within(inside, |lane| self.graph.level[vertex(lane) as usize] == self.level);
            w.exec(ops.skip_exit, inside & !on);
            if on != 0 {
                self.expand(w, on, vertex);
                w.exec(ops.exit, on);
            }
        });
    }
}

fn build(params: &Params<'_>) -> Result<Workload, GenError> {
    let vertices = params.size() * VERTICES_PER_SIZE;
    let mut random = Random::new(params.knob("seed"));
    let graph = Arc::new(Graph::random(vertices as usize, params.knob("degree") as u32, &mut random));
    let mut memory = DeviceMemory::default();
    let arrays = allocate(&mut memory, &graph.csr);
    let launch = Launch::linear("_Z9bfs_levelPKiS0_PbS1_S1_Piii", vertices.div_ceil(BLOCK), BLOCK, 0)?;
    // Every level launches the same code.
    let mut code = params.code();
    let ops = listing(&mut code);
    let kernels = (0..graph.depth())
        .map(|level| {
            let body = BfsLevel { ops, arrays, graph: Arc::clone(&graph), level };
            Kernel::new(launch.clone(), &code, body)
        })
        .collect();
    Ok(Workload::new(&memory, kernels))
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::test_support::{for_each_op, run};

    fn graph(size: u64, degree: u32, seed: u64) -> Graph {
        Graph::random((size * VERTICES_PER_SIZE) as usize, degree, &mut Random::new(seed))
    }

    /// The sorted element indices into `array` of the instruction at `pc`.
    fn indices(kernel: &Kernel, pc: u32, array: Array) -> Vec<u64> {
        let mut indices = Vec::new();
        for_each_op(kernel, "", |_, inst, addresses| {
            if inst.pc == pc {
                indices.extend(addresses.iter().map(|address| (address - array.base) / array.elem_bytes));
            }
        });
        indices.sort_unstable();
        indices
    }

    #[test]
    fn each_level_loads_exactly_the_edges_of_its_frontier_and_writes_the_next() {
        let workload = run("bfs:size=2,degree=3,seed=5");
        let graph = &graph(2, 3, 5);
        let arrays = allocate(&mut DeviceMemory::default(), &graph.csr);
        let ops = listing(&mut Code::new());
        assert!(graph.depth() > 3, "a search of a few levels");
        assert_eq!(workload.kernels().count() as u32, graph.depth());
        for (level, kernel) in (0..).zip(workload.kernels()) {
            let on_level = |at: u32| (0..graph.csr.rows() as u64).filter(move |&v| graph.level[v as usize] == at);
            let edges: Vec<_> = on_level(level).flat_map(|v| graph.csr.entries(v)).collect();
            assert_eq!(indices(kernel, ops.load_col.pc(), arrays.col), edges, "level {level}");
            let mut written = indices(kernel, ops.store_next.pc(), arrays.frontiers[(level as usize + 1) % 2]);
            written.dedup();
            assert_eq!(written, on_level(level + 1).collect::<Vec<_>>(), "level {level}");
        }
    }
}
