//! `reduction`: the classic shared-memory tree reduction. Each CTA of
//! `block` threads sums `2·block` floats into one partial sum:
//!
//! ```text
//! i = blockIdx.x * 2 * blockDim.x + tid;
//! sdata[tid] = in[i] + in[i + blockDim.x];        // add during the load
//! __syncthreads();
//! for (s = blockDim.x / 2; s > 0; s >>= 1) {
//!     if (tid < s) sdata[tid] += sdata[tid + s];
//!     __syncthreads();
//! }
//! if (tid == 0) out[blockIdx.x] = sdata[0];
//! ```
//!
//! The `if` is a predicated forward branch (`@P0 BRA` with `P0 = tid >= s`):
//! a warp whose lanes all have `tid >= s` takes it with its full mask and
//! runs only the test and the branch; a warp with all lanes below `s` falls
//! through (branch mask 0); the one warp straddling `s` (warp 0 once
//! `s < 32`) splits, and its body runs with the mask of lanes below `s`.
//! Every step halves the number of active threads, so the body's shared
//! loads carry exactly `s` active lanes per CTA. Warps other than warp 0
//! leave at the final `@P0 EXIT`. Data values never change an address, so
//! only the arrays' places are allocated.

use warplab_trace::Cta;

use crate::generator::{Knob, Params, size};
use crate::spec::GenError;
use crate::{Array, Code, CtaBody, DeviceMemory, Generator, Kernel, Launch, Op, RZ, WarpWriter, Workload};
use crate::{for_each_warp, mask_where};

/// Elements per unit of `size`: one 1024-thread CTA's worth.
const ELEMENTS_PER_SIZE: u64 = 2048;
/// Bytes per float.
const FLOAT: u64 = 4;

pub(crate) const GENERATOR: Generator = Generator {
    name: "reduction",
    summary: "shared-memory tree reduction: each CTA sums 2·block floats into one partial sum",
    size: size("N: N × 2048 floats (up to 64 M), 2·block per CTA; ≈ 2.5 k·N warp instructions", 256, 1 << 15),
    knobs: &[Knob {
        name: "block",
        help: "threads per CTA: a power of two from 64 to 1024 (4·block bytes of shared memory)",
        default: 256,
        min: 64,
        max: 1024,
    }],
    uses_config: false,
    build,
};

struct Ops {
    setup: [Op; 8],
    addressing: [Op; 2],
    loads: [Op; 2],
    first_add: Op,
    offset: Op,
    first_store: Op,
    sync_loaded: Op,
    entry: [Op; 3],
    test: Op,
    skip: Op,
    load_mine: Op,
    address_other: Op,
    load_other: Op,
    add: Op,
    store: Op,
    step: [Op; 3],
    back: Op,
    tail_guard: [Op; 2],
    load_sum: Op,
    address_out: Op,
    store_sum: Op,
    exit: Op,
}

fn listing(code: &mut Code) -> Ops {
    Ops {
        // R0 ctaid, R5 tid, R3 blockDim, R2 i, R6 i + blockDim, R7 = 4.
        setup: [
            code.op("MOV", &[1], &[]),
            code.op("S2R", &[0], &[]),
            code.op("S2R", &[5], &[]),
            code.op("MOV", &[3], &[]),
            code.op("SHF.L.U32", &[4], &[3, RZ]),
            code.op("IMAD", &[2], &[0, 4, 5]),
            code.op("IADD3", &[6], &[2, 3, RZ]),
            code.op("MOV", &[7], &[]),
        ],
        addressing: [code.op("IMAD.WIDE.U32", &[8], &[2, 7]), code.op("IMAD.WIDE.U32", &[10], &[6, 7])],
        loads: [code.op("LDG.E.SYS", &[8], &[8]), code.op("LDG.E.SYS", &[11], &[10])],
        first_add: code.op("FADD", &[12], &[8, 11]),
        offset: code.op("SHF.L.U32", &[13], &[5, RZ]),
        first_store: code.op("STS", &[], &[13, 12]),
        sync_loaded: code.op("BAR.SYNC", &[], &[]),
        // s = blockDim / 2; `if (s == 0) goto done`.
        entry: [
            code.op("SHF.R.U32.HI", &[14], &[RZ, 3]),
            code.op("ISETP.NE.AND", &[], &[14, RZ]),
            code.op("BRA", &[], &[]),
        ],
        test: code.op("ISETP.GE.U32.AND", &[], &[5, 14]),
        skip: code.op("BRA", &[], &[]),
        load_mine: code.op("LDS", &[15], &[13]),
        address_other: code.op("LEA", &[16], &[14, 13]),
        load_other: code.op("LDS", &[16], &[16]),
        add: code.op("FADD", &[15], &[15, 16]),
        store: code.op("STS", &[], &[13, 15]),
        step: [
            code.op("BAR.SYNC", &[], &[]),
            code.op("SHF.R.U32.HI", &[14], &[RZ, 14]),
            code.op("ISETP.NE.AND", &[], &[14, RZ]),
        ],
        back: code.op("BRA", &[], &[]),
        tail_guard: [code.op("ISETP.NE.AND", &[], &[5, RZ]), code.op("EXIT", &[], &[])],
        load_sum: code.op("LDS", &[17], &[RZ]),
        address_out: code.op("IMAD.WIDE.U32", &[18], &[0, 7]),
        store_sum: code.op("STG.E.SYS", &[], &[18, 17]),
        exit: code.op("EXIT", &[], &[]),
    }
}

struct Reduction {
    ops: Ops,
    input: Array,
    output: Array,
    block: u64,
}

impl Reduction {
    /// `sdata[tid] = in[i] + in[i + blockDim.x]; __syncthreads();`
    fn load(&self, w: &mut WarpWriter<'_>, mask: u32, first: impl Fn(u32) -> u64, tid: impl Fn(u32) -> u64) {
        let ops = &self.ops;
        for op in ops.setup.into_iter().chain(ops.addressing) {
            w.exec(op, mask);
        }
        w.mem(ops.loads[0], mask, |lane| self.input.at(first(lane)));
        w.mem(ops.loads[1], mask, |lane| self.input.at(first(lane) + self.block));
        w.exec(ops.first_add, mask);
        w.exec(ops.offset, mask);
        w.mem(ops.first_store, mask, |lane| tid(lane) * FLOAT);
        w.exec(ops.sync_loaded, mask);
    }

    /// One step of the tree: `if (tid < s) sdata[tid] += sdata[tid + s]`,
    /// the barrier and `s >>= 1`.
    fn step(&self, w: &mut WarpWriter<'_>, mask: u32, s: u64, tid: impl Fn(u32) -> u64) {
        let ops = &self.ops;
        let below = mask & mask_where(|lane| tid(lane) < s);
        w.exec(ops.test, mask);
        w.exec(ops.skip, mask & !below);
        if below != 0 {
            w.mem(ops.load_mine, below, |lane| tid(lane) * FLOAT);
            w.exec(ops.address_other, below);
            w.mem(ops.load_other, below, |lane| (tid(lane) + s) * FLOAT);
            w.exec(ops.add, below);
            w.mem(ops.store, below, |lane| tid(lane) * FLOAT);
        }
        for op in ops.step {
            w.exec(op, mask);
        }
        w.exec(ops.back, if s > 1 { mask } else { 0 });
    }

    /// `if (tid == 0) out[blockIdx.x] = sdata[0];`
    fn finish(&self, w: &mut WarpWriter<'_>, mask: u32, cta: u64, tid: impl Fn(u32) -> u64) {
        let ops = &self.ops;
        let first = mask & mask_where(|lane| tid(lane) == 0);
        w.exec(ops.tail_guard[0], mask);
        w.exec(ops.tail_guard[1], mask & !first);
        if first != 0 {
            w.mem(ops.load_sum, first, |_| 0);
            w.exec(ops.address_out, first);
            w.mem(ops.store_sum, first, |_| self.output.at(cta));
            w.exec(ops.exit, first);
        }
    }
}

impl CtaBody for Reduction {
    fn fill(&self, index: u64, cta: &mut Cta) {
        let ops = &self.ops;
        for_each_warp(cta, self.block, |w, warp| {
            let tid = |lane| warp.thread(lane);
            self.load(w, warp.mask, |lane| index * 2 * self.block + tid(lane), tid);
            w.exec(ops.entry[0], warp.mask);
            w.exec(ops.entry[1], warp.mask);
            w.exec(ops.entry[2], 0);
            let mut s = self.block / 2;
            while s > 0 {
                self.step(w, warp.mask, s, tid);
                s /= 2;
            }
            self.finish(w, warp.mask, index, tid);
        });
    }
}

fn build(params: &Params<'_>) -> Result<Workload, GenError> {
    let block = params.knob("block");
    if !block.is_power_of_two() {
        return Err(GenError::Inconsistent(format!("block = {block} is not a power of two")));
    }
    let n = params.size() * ELEMENTS_PER_SIZE;
    let ctas = n / (2 * block);
    let mut memory = DeviceMemory::default();
    let input = memory.input(n, FLOAT);
    let output = memory.alloc(ctas, FLOAT);
    let mut code = params.code();
    let ops = listing(&mut code);
    let launch = Launch::linear("_Z6reducePKfPf", ctas, block, (block * FLOAT) as u32)?;
    let kernel = Kernel::new(launch, &code, Reduction { ops, input, output, block });
    Ok(Workload::new(&memory, vec![kernel]))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::listing;
    use crate::Code;
    use crate::test_support::{for_each_op, run};

    #[test]
    fn each_step_halves_the_active_lanes_of_the_tree_loads() {
        let ops = listing(&mut Code::new());
        for block in [64u64, 256, 1024] {
            let workload = run(&format!("reduction:size=1,block={block}"));
            let kernel = workload.kernels().next().unwrap();
            let mut cta = warplab_trace::Cta::default();
            kernel.fill_cta(0, &mut cta);
            // Active lanes of `sdata[tid]` loads per step, over the CTA; a
            // warp's step is the number of barriers it has passed, minus one.
            let mut lanes: BTreeMap<u32, u32> = BTreeMap::new();
            for warp in &cta.warps {
                let mut barriers = 0;
                for inst in &cta.instructions[warp.first as usize..(warp.first + warp.len) as usize] {
                    if inst.pc == ops.sync_loaded.pc() || inst.pc == ops.step[0].pc() {
                        barriers += 1;
                    } else if inst.pc == ops.load_mine.pc() {
                        *lanes.entry(barriers - 1).or_default() += inst.mask.count_ones();
                    }
                }
            }
            let expected: BTreeMap<u32, u32> =
                (0..block.trailing_zeros()).map(|step| (step, (block / 2) as u32 >> step)).collect();
            assert_eq!(lanes, expected, "block {block}");
        }
    }

    #[test]
    fn every_element_is_loaded_once_and_each_cta_stores_one_partial_sum() {
        let workload = run("reduction:size=3,block=128");
        let kernel = workload.kernels().next().unwrap();
        let (mut loads, mut stores) = (Vec::new(), Vec::new());
        for_each_op(kernel, "LDG", |_, _, addresses| loads.extend(addresses));
        for_each_op(kernel, "STG", |cta, inst, addresses| {
            assert_eq!(inst.mask, 1, "thread 0 stores");
            stores.push((cta.id.x, addresses));
        });
        loads.sort_unstable();
        let first = loads[0];
        let expected: Vec<u64> = (0..3 * 2048).map(|element| first + 4 * element).collect();
        assert_eq!(loads, expected, "each of the 3·2048 elements exactly once");
        assert_eq!(stores.len(), 3 * 2048 / 256);
        let out = stores[0].1[0];
        assert!(stores.iter().all(|(cta, addresses)| *addresses == [out + 4 * u64::from(*cta)]));
    }

    #[test]
    fn idle_warps_only_test_and_branch() {
        let ops = listing(&mut Code::new());
        let workload = run("reduction:size=1,block=256");
        let kernel = workload.kernels().next().unwrap();
        let mut cta = warplab_trace::Cta::default();
        kernel.fill_cta(0, &mut cta);
        // Warp 3 (threads 96..128) is active only in the first step (s = 128).
        let warp = cta.warps[3];
        let stream = &cta.instructions[warp.first as usize..(warp.first + warp.len) as usize];
        let skips: Vec<u32> = stream.iter().filter(|inst| inst.pc == ops.skip.pc()).map(|inst| inst.mask).collect();
        assert_eq!(skips, [0, u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX]);
        assert_eq!(stream.iter().filter(|inst| inst.pc == ops.load_mine.pc()).count(), 1);
        // Warp 0 splits once s < 32: its branch is taken by the lanes at or above s.
        let warp = cta.warps[0];
        let stream = &cta.instructions[warp.first as usize..(warp.first + warp.len) as usize];
        let skips: Vec<u32> = stream.iter().filter(|inst| inst.pc == ops.skip.pc()).map(|inst| inst.mask).collect();
        assert_eq!(skips[3..], [!0xffff, !0xff, !0xf, !0x3, !0x1]);
    }
}
