//! `pchase-l1`, `pchase-l2`, `pchase-dram`: one thread chasing pointers, the
//! classic load-latency microbenchmark. Each load's address is the value the
//! previous load returned (`LDG.E.64.SYS R2, [R2]`), so loads cannot overlap
//! and a simulator's cycles per load is the latency of the level the
//! footprint lives in.
//!
//! The array holds one 8-byte pointer every `stride` bytes (default: the
//! config's L1 line size, so every pointer is in its own line), linked in one
//! seeded random cycle (Sattolo), so every pointer is visited before any
//! repeats and no prefetcher or row buffer can guess the next one. The chase
//! starts at the first pointer. The footprint is sized for the level of the
//! chosen config ([`footprint_bytes`]):
//!
//! - L1: half the L1 capacity a kernel without shared memory gets (see
//!   `sizing`), so it stays resident;
//! - L2: 4× the L1 capacity, so with LRU every load misses the L1 (the reuse
//!   distance is the whole footprint); the config must have at least that
//!   much in half its L2, so it stays resident there;
//! - DRAM: 4× the total L2, so every load misses both caches.
//!
//! On SM7_QV100 (128 KiB L1, 6 MiB L2, 128-byte lines) that is 64 KiB (512
//! lines), 512 KiB (4096 lines) and 24 MiB (196,608 lines).
//!
//! One CTA of one warp with only lane 0 active runs `N × 1024` dependent
//! loads, unrolled `unroll` times per loop iteration (loop control: `IADD3`,
//! `ISETP`, `BRA`), then stores the final pointer so the chain is live.
//! `size` is capped at 512 (524,288 loads): the single CTA holds all of its
//! instructions at once (up to 2 M at `unroll=1`, about 150 MB).

use warplab_config::GpuConfig;
use warplab_trace::{Cta, Dim3};

use crate::generator::{Knob, Params, SEED, size};
use crate::generators::sizing::{Level, half_l2_beyond_l1, l1_bytes, l1_line_bytes, l2_bytes};
use crate::spec::GenError;
use crate::{Array, Code, CtaBody, DeviceMemory, Generator, Kernel, Launch, Op, RZ, Random, Workload, for_each_warp};

/// Dependent loads per unit of `size`.
const LOADS_PER_SIZE: u64 = 1024;
/// Bytes of one pointer.
const POINTER_BYTES: u64 = 8;
/// The most pointers in the cycle (256 MiB of host memory for the links).
const MAX_POINTERS: u64 = 1 << 26;

const KNOBS: &[Knob] = &[
    Knob { name: "unroll", help: "dependent loads per loop iteration (a power of two)", default: 16, min: 1, max: 64 },
    Knob {
        name: "stride",
        help: "bytes between pointers, a multiple of 8; 0 = the config's L1 line size",
        default: 0,
        min: 0,
        max: 1 << 16,
    },
    SEED,
];

const fn generator(
    name: &'static str,
    summary: &'static str,
    build: fn(&Params<'_>) -> Result<Workload, GenError>,
) -> Generator {
    Generator {
        name,
        summary,
        size: size(
            "N: dependent loads in thousands (N × 1024); warp instructions ≈ N × 1024 × (1 + 3 / unroll)",
            96,
            512,
        ),
        knobs: KNOBS,
        uses_config: true,
        build,
    }
}

pub(crate) const L1: Generator =
    generator("pchase-l1", "one thread chasing random pointers over half the L1: L1 hit latency", |params| {
        build(Level::L1, params)
    });
pub(crate) const L2: Generator = generator(
    "pchase-l2",
    "one thread chasing random pointers over 4x the L1, inside the L2: L2 hit latency",
    |params| build(Level::L2, params),
);
pub(crate) const DRAM: Generator =
    generator("pchase-dram", "one thread chasing random pointers over 4x the L2: DRAM latency", |params| {
        build(Level::Dram, params)
    });

/// The chased footprint in bytes for `level` on `config` (module doc).
pub(crate) fn footprint_bytes(level: Level, config: &GpuConfig) -> Result<u64, GenError> {
    match level {
        Level::L1 => Ok(l1_bytes(config)? / 2),
        Level::L2 => {
            half_l2_beyond_l1(config)?;
            Ok(4 * l1_bytes(config)?)
        }
        Level::Dram => Ok(4 * l2_bytes(config)),
    }
}

struct Ops {
    setup: [Op; 4],
    loads: Vec<Op>,
    count: Op,
    compare: Op,
    branch: Op,
    out_address: [Op; 2],
    store: Op,
    exit: Op,
}

fn listing(code: &mut Code, unroll: u64) -> Ops {
    Ops {
        // R2:R3 = the array, R4 = loads done.
        setup: [
            code.op("MOV", &[1], &[]),
            code.op("MOV", &[2], &[]),
            code.op("MOV", &[3], &[]),
            code.op("MOV", &[4], &[RZ]),
        ],
        loads: (0..unroll).map(|_| code.op("LDG.E.64.SYS", &[2], &[2])).collect(),
        count: code.op("IADD3", &[4], &[4, RZ]),
        compare: code.op("ISETP.GE.AND", &[], &[4]),
        branch: code.op("BRA", &[], &[]),
        out_address: [code.op("MOV", &[4], &[]), code.op("MOV", &[5], &[])],
        store: code.op("STG.E.64.SYS", &[], &[4, 2]),
        exit: code.op("EXIT", &[], &[]),
    }
}

struct Chase {
    ops: Ops,
    array: Array,
    out: Array,
    /// `next[i]`: the pointer stored in slot `i`, as a slot index.
    next: Vec<u32>,
    iterations: u64,
}

impl CtaBody for Chase {
    fn fill(&self, _index: u64, cta: &mut Cta) {
        let ops = &self.ops;
        for_each_warp(cta, 1, |w, warp| {
            for op in ops.setup {
                w.exec(op, warp.mask);
            }
            let mut at = 0u32;
            for iteration in 0..self.iterations {
                for &load in &ops.loads {
                    w.mem(load, warp.mask, |_| self.array.at(u64::from(at)));
                    at = self.next[at as usize];
                }
                w.exec(ops.count, warp.mask);
                w.exec(ops.compare, warp.mask);
                w.exec(ops.branch, if iteration + 1 < self.iterations { warp.mask } else { 0 });
            }
            for op in ops.out_address {
                w.exec(op, warp.mask);
            }
            w.mem(ops.store, warp.mask, |_| self.out.base);
            w.exec(ops.exit, warp.mask);
        });
    }
}

/// The stride in bytes: the knob, or the L1 line size for 0; a whole number
/// of pointers.
fn stride(params: &Params<'_>) -> Result<u64, GenError> {
    let stride = match params.knob("stride") {
        0 => l1_line_bytes(params.config)?,
        stride => stride,
    };
    if !stride.is_multiple_of(POINTER_BYTES) {
        return Err(GenError::Inconsistent(format!(
            "stride = {stride} is not a multiple of the {POINTER_BYTES}-byte pointer"
        )));
    }
    Ok(stride)
}

/// Pointers in the cycle: one per stride of the footprint.
fn pointers(level: Level, params: &Params<'_>, stride: u64) -> Result<u32, GenError> {
    let footprint = footprint_bytes(level, params.config)?;
    let pointers = footprint / stride;
    if pointers == 0 || pointers > MAX_POINTERS {
        return Err(GenError::Inconsistent(format!(
            "stride = {stride} gives {pointers} pointers in the {footprint}-byte footprint; 1..={MAX_POINTERS} fit"
        )));
    }
    Ok(pointers as u32)
}

fn build(level: Level, params: &Params<'_>) -> Result<Workload, GenError> {
    let unroll = params.knob("unroll");
    if !unroll.is_power_of_two() {
        return Err(GenError::Inconsistent(format!("unroll = {unroll} is not a power of two")));
    }
    let stride = stride(params)?;
    let pointers = pointers(level, params, stride)?;
    let mut memory = DeviceMemory::default();
    let array = memory.input(u64::from(pointers), stride);
    let out = memory.alloc(1, POINTER_BYTES);
    let next = Random::new(params.knob("seed")).single_cycle(pointers);
    let mut code = params.code();
    let ops = listing(&mut code, unroll);
    let one = Dim3 { x: 1, y: 1, z: 1 };
    let launch = Launch { name: "_Z6pchasePKmPmi", grid: one, block: one, shmem_bytes: 0 };
    let iterations = params.size() * LOADS_PER_SIZE / unroll;
    let kernel = Kernel::new(launch, &code, Chase { ops, array, out, next, iterations });
    Ok(Workload::new(&memory, vec![kernel]))
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use warplab_trace::Reg;

    use super::*;
    use crate::test_support::{for_each_op, run};
    use crate::{Command, GenSpec, generate};

    fn qv100() -> GpuConfig {
        warplab_config::default_preset().config().unwrap()
    }

    #[test]
    fn footprints_follow_the_qv100_config() {
        let config = qv100();
        let dl1 = config.l1.dl1.as_ref().unwrap();
        let (_, ways) = config.l1.carveout_for(0).unwrap();
        let l1 = u64::from(ways) * u64::from(dl1.n_sets) * u64::from(dl1.line_size_bytes);
        let l2 = config.memory.l2_total_bytes();
        assert_eq!(footprint_bytes(Level::L1, &config).unwrap(), l1 / 2);
        assert_eq!(footprint_bytes(Level::L2, &config).unwrap(), 4 * l1);
        assert!(4 * l1 <= l2 / 2, "the L2 footprint fits in half the L2");
        assert_eq!(footprint_bytes(Level::Dram, &config).unwrap(), 4 * l2);
    }

    /// The chase's load addresses, checking the single active lane.
    fn load_addresses(workload: &Workload) -> Vec<u64> {
        let mut addresses = Vec::new();
        for_each_op(workload.kernels().next().unwrap(), "LDG", |_, inst, lanes| {
            assert_eq!(inst.mask, 1);
            assert_eq!((inst.dsts(), inst.srcs()), (&[Reg(2)][..], &[Reg(2)][..]), "each load depends on the last");
            addresses.extend(lanes);
        });
        addresses
    }

    /// Follows the seeded cycle on the host: every load reads the pointer the
    /// previous one returned, and the chase touches min(loads, pointers) lines.
    fn check_chase(spec: &str, level: Level, stride: u64, seed: u64) {
        let workload = run(spec);
        let Some(Command::MemcpyHtoD { addr: base, bytes }) = workload.commands.first() else { panic!("a copy") };
        let pointers = footprint_bytes(level, &qv100()).unwrap() / stride;
        assert_eq!(*bytes, pointers * stride);
        let next = Random::new(seed).single_cycle(pointers as u32);
        let addresses = load_addresses(&workload);
        assert_eq!(addresses.len(), 2 * 1024);
        assert_eq!(addresses[0], *base);
        for pair in addresses.windows(2) {
            let slot = (pair[0] - base) / stride;
            assert_eq!(pair[1], base + u64::from(next[slot as usize]) * stride, "{spec}");
        }
        let lines: HashSet<u64> = addresses.iter().map(|address| address / 128).collect();
        assert_eq!(lines.len() as u64, pointers.min(2 * 1024), "{spec}");
    }

    #[test]
    fn every_load_reads_the_pointer_the_previous_load_returned() {
        check_chase("pchase-l1:size=2", Level::L1, 128, 1);
        check_chase("pchase-l2:size=2", Level::L2, 128, 1);
        check_chase("pchase-dram:size=2", Level::Dram, 128, 1);
        check_chase("pchase-l1:size=2,stride=256,seed=7", Level::L1, 256, 7);
    }

    #[test]
    fn the_loop_revisits_unroll_pcs_and_ends_with_a_store_of_the_pointer() {
        let workload = run("pchase-l2:size=1,unroll=8");
        let kernel = workload.kernels().next().unwrap();
        let mut pcs = HashSet::new();
        for_each_op(kernel, "LDG", |_, inst, _| {
            pcs.insert(inst.pc);
        });
        assert_eq!(pcs.len(), 8);
        let mut stores = 0;
        for_each_op(kernel, "STG", |_, inst, _| {
            stores += 1;
            assert!(inst.srcs().contains(&Reg(2)));
        });
        assert_eq!(stores, 1);
        assert_eq!(kernel.summary().warp_insts, 4 + 1024 / 8 * (8 + 3) + 4);
    }

    #[test]
    fn strides_and_unrolls_that_do_not_fit_are_refused() {
        let config = qv100();
        for spec in ["pchase-l1:stride=12", "pchase-l1:unroll=3"] {
            let spec: GenSpec = spec.parse().unwrap();
            assert!(matches!(generate(&spec, &config), Err(GenError::Inconsistent(_))), "{spec}");
        }
    }
}
