//! `strided`: the MDM paper's Listing 1. Each thread loops over `n` elements
//! at `in[gs * tid + i]`, squares each and stores it to its slot of a
//! shared-memory tile. `gs = 1` is fully coalesced (a warp's load touches 4
//! sectors); `gs = 32` is fully divergent (32 sectors per load).

use warplab_trace::Cta;

use crate::generator::{Knob, Params, size};
use crate::generators::prologue::ThreadIndex;
use crate::spec::GenError;
use crate::{Array, Code, CtaBody, DeviceMemory, Generator, Kernel, Launch, Op, RZ, Workload, for_each_warp};

/// Threads per unit of `size`.
const THREADS_PER_SIZE: u64 = 1024;
/// Threads per CTA.
const BLOCK: u64 = 256;

pub(crate) const GENERATOR: Generator = Generator {
    name: "strided",
    summary: "MDM Listing 1: each thread squares in[gs*tid + i] for i < n into a shared tile",
    size: size("N: thousands of threads (N × 1024, 256 per CTA); warp instructions ≈ N × 32 × (10 + 8n)", 720, 1 << 18),
    knobs: &[
        Knob {
            name: "gs",
            help: "elements between consecutive threads' streams (1 coalesced, 32 fully divergent)",
            default: 1,
            min: 1,
            max: 1024,
        },
        Knob { name: "n", help: "elements each thread loads (loop trip count)", default: 8, min: 1, max: 4096 },
    ],
    uses_config: false,
    build,
};

struct Ops {
    thread: ThreadIndex,
    prologue: [Op; 3],
    index: Op,
    address: Op,
    load: Op,
    increment: Op,
    compare: Op,
    square: Op,
    store: Op,
    branch: Op,
    exit: Op,
}

fn listing(code: &mut Code) -> Ops {
    Ops {
        // tid = blockIdx.x * blockDim.x + threadIdx.x in R0 (threadIdx.x in
        // R3); the grid has exactly one thread per stream, so no lane exits.
        thread: ThreadIndex::listing(code),
        prologue: [code.op("IMAD", &[2], &[0]), code.op("SHF.L.U32", &[7], &[3, RZ]), code.op("MOV", &[4], &[RZ])],
        index: code.op("IADD3", &[3], &[2, 4, RZ]),
        address: code.op("IMAD.WIDE", &[8], &[3]),
        load: code.op("LDG.E.SYS", &[8], &[8]),
        increment: code.op("IADD3", &[4], &[4, RZ]),
        compare: code.op("ISETP.GE.AND", &[], &[4]),
        square: code.op("FMUL", &[9], &[8, 8]),
        store: code.op("STS", &[], &[7, 9]),
        branch: code.op("BRA", &[], &[]),
        exit: code.op("EXIT", &[], &[]),
    }
}

struct Strided {
    ops: Ops,
    input: Array,
    gs: u64,
    n: u64,
}

impl CtaBody for Strided {
    fn fill(&self, index: u64, cta: &mut Cta) {
        let ops = &self.ops;
        for_each_warp(cta, BLOCK, |w, warp| {
            let tid = |lane| index * BLOCK + warp.thread(lane);
            ops.thread.exec(w, warp.mask, warp.mask);
            for op in ops.prologue {
                w.exec(op, warp.mask);
            }
            for i in 0..self.n {
                w.exec(ops.index, warp.mask);
                w.exec(ops.address, warp.mask);
                w.mem(ops.load, warp.mask, |lane| self.input.at(self.gs * tid(lane) + i));
                w.exec(ops.increment, warp.mask);
                w.exec(ops.compare, warp.mask);
                w.exec(ops.square, warp.mask);
                w.mem(ops.store, warp.mask, |lane| 4 * warp.thread(lane));
                // Every lane runs the same trip count: the branch back is
                // taken by all lanes until the last iteration, by none then.
                let taken = if i + 1 < self.n { warp.mask } else { 0 };
                w.exec(ops.branch, taken);
            }
            w.exec(ops.exit, warp.mask);
        });
    }
}

fn build(params: &Params<'_>) -> Result<Workload, GenError> {
    let threads = params.size() * THREADS_PER_SIZE;
    let (gs, n) = (params.knob("gs"), params.knob("n"));
    let mut memory = DeviceMemory::default();
    let input = memory.input(gs * (threads - 1) + n, 4);
    let mut code = params.code();
    let ops = listing(&mut code);
    let launch = Launch::linear("_Z7stridedPfii", threads / BLOCK, BLOCK, (BLOCK * 4) as u32)?;
    let kernel = Kernel::new(launch, &code, Strided { ops, input, gs, n });
    Ok(Workload::new(&memory, vec![kernel]))
}

#[cfg(test)]
mod tests {
    use crate::test_support::{distinct_sectors, run};

    #[test]
    fn gs_32_touches_32_sectors_per_load_and_gs_1_touches_4_or_5() {
        let (divergent, coalesced) = (run("strided:gs=32,size=1,n=9"), run("strided:gs=1,size=1,n=9"));
        for i in 0..9 {
            assert_eq!(distinct_sectors(&divergent, "LDG", i), 32);
            // 128 contiguous bytes starting 4i bytes past a sector boundary.
            let aligned = i % 8 == 0;
            assert_eq!(distinct_sectors(&coalesced, "LDG", i), if aligned { 4 } else { 5 });
        }
    }

    #[test]
    fn each_thread_loads_its_n_elements_and_loops_n_times() {
        let workload = run("strided:gs=3,size=1,n=5");
        let kernel = workload.kernels().next().unwrap();
        let summary = kernel.summary();
        assert_eq!(summary.warp_insts, 32 * (10 + 8 * 5));
        let mut cta = warplab_trace::Cta::default();
        kernel.fill_cta(2, &mut cta);
        let loads: Vec<_> = cta
            .instructions
            .iter()
            .filter(|inst| inst.mem_width > 0 && inst.space == warplab_trace::MemSpace::Global)
            .collect();
        assert_eq!(loads.len(), 8 * 5);
        // Lane 1 of warp 0 in CTA 2 is thread 513: it reads in[3 * 513 + i].
        let (_, first) = cta.lane_addresses(loads[0]).nth(1).unwrap();
        let (_, second) = cta.lane_addresses(loads[1]).nth(1).unwrap();
        assert_eq!(second - first, 4);
        let (_, lane0) = cta.lane_addresses(loads[0]).next().unwrap();
        assert_eq!(first - lane0, 3 * 4);
    }
}
