//! `vecadd`: `c[i] = a[i] + b[i]`, one thread per element, with the
//! `if (i < n)` guard exiting the lanes past the end.
//!
//! With `launches` = L the host copies `a` and `b` in once and launches the
//! kernel L times over the same arrays: L kernels with the same CTAs, a
//! multi-kernel workload whose launches a sampled simulation can skip.

use warplab_trace::Cta;

use crate::generator::{Knob, LAUNCHES, Params, size};
use crate::generators::prologue::ThreadIndex;
use crate::spec::GenError;
use crate::{Array, Code, CtaBody, DeviceMemory, Generator, Kernel, Launch, Op, Workload, for_each_warp, within};

/// Elements per unit of `size`.
const ELEMENTS_PER_SIZE: u64 = 1024;

pub(crate) const GENERATOR: Generator = Generator {
    name: "vecadd",
    summary: "c[i] = a[i] + b[i] over float arrays, one thread per element",
    size: size(
        "N: thousands of elements (N × 1024); one 15-instruction warp per 32 elements and launch",
        1024,
        1 << 20,
    ),
    knobs: &[
        Knob { name: "block", help: "threads per CTA", default: 256, min: 32, max: 1024 },
        Knob {
            name: "tail",
            help: "elements past the last full thousand (exercise the i < n guard)",
            default: 0,
            min: 0,
            max: 1023,
        },
        LAUNCHES,
    ],
    uses_config: false,
    build,
};

struct Ops {
    thread: ThreadIndex,
    addressing: [Op; 3],
    load_a: Op,
    load_b: Op,
    address_c: Op,
    add: Op,
    store: Op,
    exit: Op,
}

fn listing(code: &mut Code) -> Ops {
    Ops {
        // i = blockIdx.x * blockDim.x + threadIdx.x is in R0.
        thread: ThreadIndex::listing(code),
        addressing: [
            code.op("MOV", &[7], &[]),
            code.op("IMAD.WIDE", &[4], &[0, 7]),
            code.op("IMAD.WIDE", &[2], &[0, 7]),
        ],
        load_a: code.op("LDG.E.SYS", &[4], &[4]),
        load_b: code.op("LDG.E.SYS", &[3], &[2]),
        address_c: code.op("IMAD.WIDE", &[6], &[0, 7]),
        add: code.op("FADD", &[9], &[4, 3]),
        store: code.op("STG.E.SYS", &[], &[6, 9]),
        exit: code.op("EXIT", &[], &[]),
    }
}

struct VecAdd {
    ops: Ops,
    a: Array,
    b: Array,
    c: Array,
    block: u64,
}

impl CtaBody for VecAdd {
    fn fill(&self, index: u64, cta: &mut Cta) {
        let ops = &self.ops;
        let n = self.a.len;
        for_each_warp(cta, self.block, |w, warp| {
            let element = |lane| index * self.block + warp.thread(lane);
            let inside = within(warp.mask, |lane| element(lane) < n);
            ops.thread.exec(w, warp.mask, inside);
            if inside != 0 {
                for op in ops.addressing {
                    w.exec(op, inside);
                }
                w.mem(ops.load_a, inside, |lane| self.a.at(element(lane)));
                w.mem(ops.load_b, inside, |lane| self.b.at(element(lane)));
                w.exec(ops.address_c, inside);
                w.exec(ops.add, inside);
                w.mem(ops.store, inside, |lane| self.c.at(element(lane)));
                w.exec(ops.exit, inside);
            }
        });
    }
}

fn build(params: &Params<'_>) -> Result<Workload, GenError> {
    let n = params.size() * ELEMENTS_PER_SIZE + params.knob("tail");
    let block = params.knob("block");
    let mut memory = DeviceMemory::default();
    let (a, b) = (memory.input(n, 4), memory.input(n, 4));
    let c = memory.alloc(n, 4);
    let mut code = params.code();
    let ops = listing(&mut code);
    let launch = Launch::linear("_Z6vecAddPKfS0_Pfi", n.div_ceil(block), block, 0)?;
    let body = VecAdd { ops, a, b, c, block };
    Ok(Workload::new(&memory, Kernel::repeated(&launch, &code, body, params.knob(LAUNCHES.name))))
}

#[cfg(test)]
mod tests {
    use crate::test_support::{assert_launches_repeat, distinct_sectors, run};

    #[test]
    fn every_element_is_loaded_from_a_and_b_and_stored_to_c_once() {
        let workload = run("vecadd:size=2,tail=40,block=96");
        let kernel = workload.kernels().next().unwrap();
        let n = 2 * 1024 + 40;
        let mut loads = Vec::new();
        let mut stores = Vec::new();
        kernel.for_each_cta(|cta| {
            for inst in &cta.instructions {
                let text = &kernel.opcodes().info(inst.opcode).text;
                let target = if text.starts_with("LDG") {
                    &mut loads
                } else if text.starts_with("STG") {
                    &mut stores
                } else {
                    continue;
                };
                target.extend(cta.lane_addresses(inst).map(|(_, address)| address));
            }
        });
        loads.sort_unstable();
        stores.sort_unstable();
        assert_eq!(loads.len(), 2 * n);
        loads.dedup();
        assert_eq!(loads.len(), 2 * n, "no element loaded twice");
        assert_eq!(stores.len(), n);
        stores.dedup();
        assert_eq!(stores.len(), n);
        // One full-warp access touches 4 sectors (128 contiguous bytes).
        assert_eq!(distinct_sectors(&workload, "LDG", 0), 4);
    }

    #[test]
    fn launches_repeat_the_kernel_over_the_same_arrays() {
        assert_launches_repeat("vecadd:size=2,tail=40,block=96", 3);
    }
}
