//! `maxflops`: peak FP32 throughput. Each thread runs `chains` independent
//! multiply-add chains (`acc_c = acc_c * x + k`): every loop iteration issues
//! one `FFMA` per chain, each reading only its own chain's previous value and
//! the loop-invariant `x`, then the loop control (`IADD3`, `ISETP`, `BRA`).
//! The chains start at `x + c` (`x` the thread index as a float) and are
//! summed into one `STG` at the end so they are live.
//!
//! The grid is N CTAs per SM (N × SMs CTAs). CTAs default to 256 threads, so
//! an SM of SM7_QV100 holds 8 and a wave fills every warp slot; the default
//! N = 32 is 4 waves, and with 6 iterations (20,480 warps of 90 instructions)
//! comes to 1.8 M warp instructions.
//!
//! `size` is capped at 128 CTAs per SM (16 waves) and `iters` at 256: with 16 chains that is
//! about 200 M warp instructions on QV100.

use warplab_trace::Cta;

use crate::generator::{Knob, Params, size};
use crate::spec::GenError;
use crate::{Array, Code, CtaBody, DeviceMemory, Generator, Kernel, Launch, Op, RZ, Workload, for_each_warp};

/// The first chain's register; chain `c` is in `R(4 + c)`.
const FIRST_CHAIN: u16 = 4;

pub(crate) const GENERATOR: Generator = Generator {
    name: "maxflops",
    summary: "independent FFMA chains per thread: peak FP32 throughput",
    size: size(
        "N: CTAs per SM (N × SMs CTAs; 8 per wave on QV100); warp insts = warps × (8 + 2 chains + iters × (chains + 3))",
        32,
        128,
    ),
    knobs: &[
        Knob { name: "chains", help: "independent FFMA chains per thread", default: 8, min: 1, max: 16 },
        Knob { name: "iters", help: "loop iterations; one FFMA per chain each", default: 6, min: 1, max: 256 },
        Knob { name: "block", help: "threads per CTA, a multiple of 32", default: 256, min: 32, max: 1024 },
    ],
    uses_config: true,
    build,
};

struct Ops {
    setup: [Op; 5],
    init: Vec<Op>,
    counter: Op,
    ffma: Vec<Op>,
    loop_control: [Op; 2],
    branch: Op,
    reduce: Vec<Op>,
    address: Op,
    store: Op,
    exit: Op,
}

/// The pairwise tree summing `chains` registers into the first: `(into, from)`
/// chain indices, `chains − 1` of them.
fn reduction(chains: u16) -> Vec<(u16, u16)> {
    let mut pairs = Vec::new();
    let mut step = 1;
    while step < chains {
        pairs.extend((0..chains).step_by(2 * usize::from(step)).filter(|i| i + step < chains).map(|i| (i, i + step)));
        step *= 2;
    }
    pairs
}

/// Registers: R0 tid then global thread, R2 CTA id then loop counter then
/// the output address, R3 `x`, R4.. the chains.
fn listing(code: &mut Code, chains: u16) -> Ops {
    let chain = |c: u16| FIRST_CHAIN + c;
    Ops {
        setup: [
            code.op("MOV", &[1], &[]),
            code.op("S2R", &[0], &[]),
            code.op("S2R", &[2], &[]),
            code.op("IMAD", &[0], &[2, 0]),
            code.op("I2F", &[3], &[0]),
        ],
        init: (0..chains).map(|c| code.op("FADD", &[chain(c)], &[3])).collect(),
        counter: code.op("MOV", &[2], &[RZ]),
        ffma: (0..chains).map(|c| code.op("FFMA", &[chain(c)], &[chain(c), 3])).collect(),
        loop_control: [code.op("IADD3", &[2], &[2, RZ]), code.op("ISETP.GE.AND", &[], &[2])],
        branch: code.op("BRA", &[], &[]),
        reduce: reduction(chains)
            .into_iter()
            .map(|(into, from)| code.op("FADD", &[chain(into)], &[chain(into), chain(from)]))
            .collect(),
        address: code.op("IMAD.WIDE", &[2], &[0]),
        store: code.op("STG.E.SYS", &[], &[2, chain(0)]),
        exit: code.op("EXIT", &[], &[]),
    }
}

struct MaxFlops {
    ops: Ops,
    out: Array,
    block: u64,
    iters: u64,
}

impl CtaBody for MaxFlops {
    fn fill(&self, index: u64, cta: &mut Cta) {
        let ops = &self.ops;
        for_each_warp(cta, self.block, |w, warp| {
            for &op in ops.setup.iter().chain(&ops.init).chain([&ops.counter]) {
                w.exec(op, warp.mask);
            }
            for iteration in 0..self.iters {
                for &op in ops.ffma.iter().chain(&ops.loop_control) {
                    w.exec(op, warp.mask);
                }
                w.exec(ops.branch, if iteration + 1 < self.iters { warp.mask } else { 0 });
            }
            for &op in ops.reduce.iter().chain([&ops.address]) {
                w.exec(op, warp.mask);
            }
            w.mem(ops.store, warp.mask, |lane| self.out.at(index * self.block + warp.thread(lane)));
            w.exec(ops.exit, warp.mask);
        });
    }
}

fn build(params: &Params<'_>) -> Result<Workload, GenError> {
    let (chains, iters, block) = (params.knob("chains"), params.knob("iters"), params.knob("block"));
    if !block.is_multiple_of(32) {
        return Err(GenError::Inconsistent(format!("block = {block} is not a whole number of warps")));
    }
    let mut code = params.code();
    let ops = listing(&mut code, chains as u16);
    let ctas = params.size() * u64::from(params.config.n_sms());
    let mut memory = DeviceMemory::default();
    let out = memory.alloc(ctas * block, 4);
    let launch = Launch::linear("_Z8maxflopsPfi", ctas, block, 0)?;
    let kernel = Kernel::new(launch, &code, MaxFlops { ops, out, block, iters });
    Ok(Workload::new(&memory, vec![kernel]))
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use warplab_trace::Reg;

    use super::*;
    use crate::GenSpec;
    use crate::test_support::{for_each_op, run};

    #[test]
    fn each_warp_issues_chains_times_iters_ffmas_and_no_chain_reads_another() {
        let workload = run("maxflops:size=1,chains=5,iters=3,block=64");
        let kernel = workload.kernels().next().unwrap();
        let threads = kernel.cta_count() * 64;
        let mut ffmas = Vec::new();
        for_each_op(kernel, "FFMA", |_, inst, _| ffmas.push((inst.dsts().to_vec(), inst.srcs().to_vec())));
        assert_eq!(ffmas.len() as u64, threads / 32 * 5 * 3);
        let chain_of: HashMap<Reg, usize> = ffmas
            .iter()
            .map(|(dsts, _)| dsts[0])
            .collect::<HashSet<_>>()
            .into_iter()
            .enumerate()
            .map(|(i, r)| (r, i))
            .collect();
        assert_eq!(chain_of.len(), 5);
        for (dsts, srcs) in &ffmas {
            for src in srcs.iter().filter(|src| chain_of.contains_key(src)) {
                assert_eq!(src, &dsts[0], "an FFMA of {:?} reads {src:?}", dsts[0]);
            }
        }
    }

    #[test]
    fn the_default_fills_4_waves_of_qv100_with_0_1_to_2_million_warp_instructions() {
        let config = warplab_config::default_preset().config().unwrap();
        let summary = run("maxflops").kernels().next().unwrap().summary();
        // 256-thread CTAs, few registers: the thread limit binds.
        let resident = u64::from(config.cores.max_threads_per_sm) / 256;
        assert_eq!(summary.ctas, 4 * u64::from(config.n_sms()) * resident);
        assert_eq!(summary.warp_insts, summary.warps * (8 + 2 * 8 + 6 * (8 + 3)));
        assert!((100_000..=2_000_000).contains(&summary.warp_insts), "{}", summary.warp_insts);
    }

    #[test]
    fn the_sum_tree_has_one_add_per_extra_chain() {
        for chains in 1..=16u16 {
            let pairs = reduction(chains);
            assert_eq!(pairs.len(), usize::from(chains) - 1);
            let sources: HashSet<u16> = pairs.iter().map(|&(_, from)| from).collect();
            assert_eq!(sources, (1..chains).collect(), "every chain but the first is added once");
        }
    }

    #[test]
    fn blocks_that_are_not_whole_warps_are_refused() {
        let config = warplab_config::default_preset().config().unwrap();
        let spec: GenSpec = "maxflops:block=48".parse().unwrap();
        assert!(matches!(crate::generate(&spec, &config), Err(GenError::Inconsistent(_))));
        let spec: GenSpec = "maxflops:block=64,size=3".parse().unwrap();
        let ctas = crate::generate(&spec, &config).unwrap().kernels().next().unwrap().cta_count();
        assert_eq!(ctas, 3 * u64::from(config.n_sms()));
    }
}
