//! `histogram`: a histogram with global atomics. Every thread walks the input
//! with a grid-stride loop, so each load of a warp is coalesced, and adds one
//! to its value's bin with a fire-and-forget atomic (`RED.E.ADD`):
//!
//! ```text
//! for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
//!     atomicAdd(&hist[in[i] & (bins - 1)], 1);
//! ```
//!
//! `bins` is a power of two, so `in[i] mod bins` compiles to one `LOP3`. The
//! input is seeded: `skew` percent of the values are forced into bin 0, the
//! rest are uniform 32-bit values (uniform over the bins). Raising `skew`
//! makes the lanes of a warp, and warps across the GPU, collide on one
//! address: atomic contention. The input has exactly `items` values per
//! thread, so every thread runs `items` iterations.

use warplab_trace::Cta;

use crate::generator::{Knob, Params, SEED, size};
use crate::generators::prologue::ThreadIndex;
use crate::spec::GenError;
use crate::within;
use crate::{Array, Code, CtaBody, DeviceMemory, Generator, Kernel, Launch, Op, RZ, Random, Workload, for_each_warp};

/// Threads per unit of `size`.
const THREADS_PER_SIZE: u64 = 1024;
/// Threads per CTA.
const BLOCK: u64 = 256;

pub(crate) const GENERATOR: Generator = Generator {
    name: "histogram",
    summary: "histogram of seeded values with global atomics (RED.ADD), grid-stride loop",
    size: size(
        "N: thousands of threads (N × 1024, 256 per CTA), each adding `items` values; warp instructions ≈ N × 32 × \
         (10 + 8·items); the default 640 is 4 full waves on SM7_QV100; max 2048 (with items = 16, 128 MB of input)",
        640,
        2048,
    ),
    knobs: &[
        Knob {
            name: "items",
            help: "input values per thread (grid-stride loop trip count)",
            default: 4,
            min: 1,
            max: 16,
        },
        Knob {
            name: "bins",
            help: "histogram bins, a power of two (bin = value mod bins)",
            default: 256,
            min: 1,
            max: 1 << 16,
        },
        Knob {
            name: "skew",
            help: "percent of the values forced into bin 0 (atomic contention)",
            default: 0,
            min: 0,
            max: 100,
        },
        SEED,
    ],
    uses_config: false,
    build,
};

#[derive(Debug, Clone, Copy)]
struct Ops {
    thread: ThreadIndex,
    stride: [Op; 2],
    one: Op,
    in_address: Op,
    load: Op,
    advance: Op,
    compare: Op,
    bin: Op,
    hist_address: Op,
    add: Op,
    branch: Op,
    exit: Op,
}

fn listing(code: &mut Code) -> Ops {
    Ops {
        thread: ThreadIndex::listing(code),
        // blockDim.x * gridDim.x
        stride: [code.op("MOV", &[2], &[]), code.op("IMAD", &[2], &[2])],
        one: code.op("MOV", &[8], &[]),
        in_address: code.op("IMAD.WIDE", &[4], &[0]),
        load: code.op("LDG.E.SYS", &[4], &[4]),
        advance: code.op("IADD3", &[0], &[0, 2, RZ]),
        compare: code.op("ISETP.GE.AND", &[], &[0]),
        bin: code.op("LOP3.LUT", &[6], &[4, RZ, RZ]),
        hist_address: code.op("IMAD.WIDE.U32", &[6], &[6]),
        add: code.op("RED.E.ADD.STRONG.GPU", &[], &[6, 8]),
        branch: code.op("BRA", &[], &[]),
        exit: code.op("EXIT", &[], &[]),
    }
}

/// `count` seeded values, `skew` percent of them multiples of `bins`.
fn values(count: usize, bins: u32, skew: u64, random: &mut Random) -> Vec<u32> {
    (0..count)
        .map(|_| {
            let value = random.next_u64() as u32;
            if random.below(100) < skew { value & !(bins - 1) } else { value }
        })
        .collect()
}

/// The input of `count` values and the histogram of `bins` counters, which
/// the host zeroes.
fn allocate(memory: &mut DeviceMemory, count: u64, bins: u64) -> (Array, Array) {
    (memory.input(count, 4), memory.input(bins, 4))
}

struct Histogram {
    ops: Ops,
    input: Array,
    hist: Array,
    values: Vec<u32>,
    threads: u64,
}

impl Histogram {
    fn bin(&self, element: u64) -> u64 {
        u64::from(self.values[element as usize]) % self.hist.len
    }
}

impl CtaBody for Histogram {
    fn fill(&self, index: u64, cta: &mut Cta) {
        let ops = &self.ops;
        let n = self.input.len;
        for_each_warp(cta, BLOCK, |w, warp| {
            let first = |lane| index * BLOCK + warp.thread(lane);
            let inside = within(warp.mask, |lane| first(lane) < n);
            ops.thread.exec(w, warp.mask, inside);
            if inside == 0 {
                return;
            }
            for op in ops.stride.into_iter().chain([ops.one]) {
                w.exec(op, inside);
            }
            for k in 0.. {
                let element = |lane| first(lane) + k * self.threads;
                let active = within(inside, |lane| element(lane) < n);
                if active == 0 {
                    break;
                }
                w.exec(ops.in_address, active);
                w.mem(ops.load, active, |lane| self.input.at(element(lane)));
                w.exec(ops.advance, active);
                w.exec(ops.compare, active);
                w.exec(ops.bin, active);
                w.exec(ops.hist_address, active);
                w.mem(ops.add, active, |lane| self.hist.at(self.bin(element(lane))));
                w.exec(ops.branch, within(active, |lane| element(lane) + self.threads < n));
            }
            w.exec(ops.exit, inside);
        });
    }
}

fn build(params: &Params<'_>) -> Result<Workload, GenError> {
    let threads = params.size() * THREADS_PER_SIZE;
    let bins = params.knob("bins");
    if !bins.is_power_of_two() {
        return Err(GenError::Inconsistent(format!("histogram `bins` = {bins} is not a power of two")));
    }
    let count = threads * params.knob("items");
    let values = values(count as usize, bins as u32, params.knob("skew"), &mut Random::new(params.knob("seed")));
    let mut memory = DeviceMemory::default();
    let (input, hist) = allocate(&mut memory, count, bins);
    let mut code = params.code();
    let ops = listing(&mut code);
    let launch = Launch::linear("_Z9histogramPKjPjij", threads / BLOCK, BLOCK, 0)?;
    let kernel = Kernel::new(launch, &code, Histogram { ops, input, hist, values, threads });
    Ok(Workload::new(&memory, vec![kernel]))
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::test_support::{distinct_sectors, for_each_op, run};

    /// Per-bin counts of the atomics of `spec`'s kernel, which has `count`
    /// values and `bins` bins.
    fn atomic_counts(spec: &str, count: u64, bins: u64) -> Vec<u64> {
        let workload = run(spec);
        let kernel = workload.kernels().next().unwrap();
        let (_, hist) = allocate(&mut DeviceMemory::default(), count, bins);
        let mut counts = vec![0; bins as usize];
        for_each_op(kernel, "RED", |_, _, addresses| {
            for address in addresses {
                counts[((address - hist.base) / 4) as usize] += 1;
            }
        });
        counts
    }

    fn host_counts(count: usize, bins: u32, skew: u64, seed: u64) -> Vec<u64> {
        let mut counts = vec![0; bins as usize];
        for value in values(count, bins, skew, &mut Random::new(seed)) {
            counts[(value % bins) as usize] += 1;
        }
        counts
    }

    #[test]
    fn the_atomics_count_the_input_histogram() {
        let count = 2 * 1024 * 3;
        let counts = atomic_counts("histogram:size=2,items=3,bins=4096,seed=11", count, 4096);
        assert_eq!(counts, host_counts(count as usize, 4096, 0, 11));
        let skewed = atomic_counts("histogram:size=2,items=3,bins=64,skew=60,seed=11", count, 64);
        assert_eq!(skewed, host_counts(count as usize, 64, 60, 11));
        let share = skewed[0] as f64 / count as f64;
        assert!((0.55..0.7).contains(&share), "{share}");
    }

    #[test]
    fn loads_are_coalesced_and_bins_must_be_a_power_of_two() {
        let workload = run("histogram:size=1,items=2");
        assert_eq!(distinct_sectors(&workload, "LDG", 0), 4);
        assert_eq!(distinct_sectors(&workload, "LDG", 1), 4);
        let config = warplab_config::default_preset().config().unwrap();
        let spec: crate::GenSpec = "histogram:bins=100".parse().unwrap();
        assert!(crate::generate(&spec, &config).is_err());
    }
}
