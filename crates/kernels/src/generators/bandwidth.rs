//! `bw-l1`, `bw-l2`, `bw-dram`: streaming float4 reads, the bandwidth
//! microbenchmarks. Every thread of 256-thread CTAs loads `4 iters` float4s
//! (`LDG.E.128.SYS`, 16 B per thread, 512 B per warp) and adds their
//! components into four independent accumulators (`FADD`); a loop iteration
//! issues four loads into distinct registers before any `FADD` consumes them,
//! so a warp keeps four loads in flight. One `STG` of the sum per thread ends
//! the kernel. The grid is N CTAs per SM (N × SMs CTAs); an SM of SM7_QV100
//! holds 8 at once, so the default N = 32 is 2560 CTAs in 4 waves.
//!
//! A thread's k-th load reads element `(start + k × step) mod len` of a
//! region of `len` float4s, `len` a multiple of a warp's 32 so that a warp's
//! 512 contiguous bytes never straddle the wrap; `step` is the CTA's 256
//! threads (modulo `len`, for an L1 region smaller than that). The wrap is a
//! compare and a predicated subtract in SASS, the start's modulo the
//! compile-time reciprocal (`IMAD.HI`, `SHF`, `IMAD`). The footprint is sized
//! for the level ([`region`]):
//!
//! - L1: each CTA re-reads its own region (`start` = its thread index), the
//!   largest whole number of 512-byte warp rows such that all CTAs resident
//!   on an SM fit in half the L1 capacity: 8 KiB × 8 CTAs = 64 KiB on QV100.
//!   Its first pass misses, every later one hits.
//! - L2: one shared region of half the L2 (3 MiB on QV100, 24× its L1), at
//!   least 4× the L1; the grid sweeps it in CTA order, CTA `c` starting at
//!   element `c × 256 × 4 iters` (wrapping), so after the first sweep lines are
//!   re-read by other CTAs. Such a re-read hits the L1 only when the two CTAs
//!   share an SM at the same time: on QV100 under round-robin placement, CTAs
//!   480 apart (96 CTAs per sweep, 80 SMs), a quarter of the first wave.
//!   The `footprint` knob sets the region in MiB instead, for a fixed
//!   working set across GPU sizes: a region between two LLC sizes of a scale
//!   series (e.g. 24 MiB, between a 16-MiB and a 32-MiB LLC) misses in the
//!   smaller LLC on every re-read and hits in the larger, the miss-rate cliff
//!   of scale-model prediction.
//! - DRAM: the same sweep over 4× the L2 (24 MiB on QV100): in that order no
//!   line is read twice before the whole footprint was read, so every re-read
//!   comes after 4 L2 capacities of other lines.
//!
//! `size` is capped at 128 CTAs per SM (16 waves on QV100) and `iters` at 32 (128 loads per thread):
//! about 100 M warp instructions on QV100.

use warplab_config::GpuConfig;
use warplab_trace::Cta;

use crate::generator::{Knob, Params, size};
use crate::generators::sizing::{Level, half_l2_beyond_l1, l1_bytes, l2_bytes, resident_ctas};
use crate::spec::GenError;
use crate::{
    Array, Code, CtaBody, DeviceMemory, Generator, Kernel, Launch, Op, RZ, WarpWriter, Workload, for_each_warp,
};

/// Threads per CTA.
const BLOCK: u64 = 256;
/// Bytes of one float4.
const FLOAT4_BYTES: u64 = 16;
/// Float4s per warp: regions hold whole warps' accesses.
const WARP_ELEMENTS: u64 = 32;
/// Loads per loop iteration (the unrolled, independent loads).
const UNROLL: usize = 4;
/// Components of a float4.
const LANES: usize = 4;
/// Elements are indexed by 32-bit registers.
const MAX_ELEMENTS: u64 = 1 << 31;

/// `iters`, every bandwidth generator's knob.
const ITERS: Knob =
    Knob { name: "iters", help: "loop iterations per thread, 4 float4 loads each", default: 2, min: 1, max: 32 };

/// The largest `footprint`, in MiB.
const MAX_FOOTPRINT_MIB: u64 = 1024;

const fn generator(
    name: &'static str,
    summary: &'static str,
    knobs: &'static [Knob],
    build: fn(&Params<'_>) -> Result<Workload, GenError>,
) -> Generator {
    Generator {
        name,
        summary,
        size: size(
            "N: 256-thread CTAs per SM (N × SMs CTAs; 8 per wave on QV100); warp insts = CTAs × 8 × (18 + 39 iters)",
            32,
            128,
        ),
        knobs,
        uses_config: true,
        build,
    }
}

pub(crate) const L1: Generator = generator(
    "bw-l1",
    "float4 streaming: each CTA re-reads its own region, all resident ones in half the L1",
    &[ITERS],
    |params| build(Level::L1, params, None),
);
pub(crate) const L2: Generator = generator(
    "bw-l2",
    "float4 streaming: the grid sweeps one region of half the L2 (or of `footprint` MiB)",
    &[
        ITERS,
        Knob {
            name: "footprint",
            help: "the region in MiB, the same on every GPU (0 = half the L2 of the config)",
            default: 0,
            min: 0,
            max: MAX_FOOTPRINT_MIB,
        },
    ],
    |params| build(Level::L2, params, Some(params.knob("footprint")).filter(|&mib| mib > 0).map(|mib| mib << 20)),
);
pub(crate) const DRAM: Generator = generator(
    "bw-dram",
    "float4 streaming: the grid sweeps 4x the L2, every line once per sweep",
    &[ITERS],
    |params| build(Level::Dram, params, None),
);

/// Where a level's loads go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Region {
    /// Float4s in one region, a multiple of [`WARP_ELEMENTS`].
    pub(crate) elements: u64,
    /// Each CTA has its own region (L1), or all share one (L2, DRAM).
    pub(crate) per_cta: bool,
}

/// The region for `level` on `config`, with `resident` CTAs per SM (module
/// doc); a shared region of `footprint` bytes when given.
pub(crate) fn region(
    level: Level,
    config: &GpuConfig,
    resident: u64,
    footprint: Option<u64>,
) -> Result<Region, GenError> {
    let (bytes, per_cta) = match (level, footprint) {
        (_, Some(bytes)) => (bytes, false),
        (Level::L1, None) => (l1_bytes(config)? / 2 / resident, true),
        (Level::L2, None) => (half_l2_beyond_l1(config)?, false),
        (Level::Dram, None) => (4 * l2_bytes(config), false),
    };
    let elements = bytes / FLOAT4_BYTES / WARP_ELEMENTS * WARP_ELEMENTS;
    if elements == 0 || elements > MAX_ELEMENTS {
        return Err(GenError::Inconsistent(format!("{bytes} B per region is not 1 to 2^26 warp accesses of 512 B")));
    }
    Ok(Region { elements, per_cta })
}

/// One unrolled load: its address, the load, and the index step with wrap.
#[derive(Clone, Copy)]
struct LoadOps {
    address: Op,
    load: Op,
    step: Op,
    compare: Op,
    wrap: Op,
}

struct Ops {
    setup: [Op; 12],
    loads: [LoadOps; UNROLL],
    accumulate: Vec<Op>,
    loop_control: [Op; 2],
    branch: Op,
    tail: [Op; 4],
    store: Op,
    exit: Op,
}

/// Registers: R0 tid then global thread, R2:R3 load address, R4:R5 region
/// base, R6 element index, R7 CTA id then loop counter, R8..R23 the four
/// float4s, R24..R27 the accumulators.
fn listing(code: &mut Code) -> Ops {
    let quad = |u: usize| 8 + (LANES * u) as u16;
    let accumulator = |u: usize| 24 + u as u16;
    Ops {
        setup: [
            code.op("MOV", &[1], &[]),
            code.op("S2R", &[0], &[]),
            code.op("S2R", &[7], &[]),
            code.op("IMAD", &[6], &[7, 0]),
            code.op("IMAD.HI.U32", &[2], &[6]),
            code.op("SHF.R.U32.HI", &[2], &[RZ, 2]),
            code.op("IMAD", &[6], &[2, 6]),
            code.op("IMAD.WIDE.U32", &[4], &[7]),
            code.op("IMAD", &[0], &[7, 0]),
            code.op("CS2R", &[24], &[]),
            code.op("CS2R", &[26], &[]),
            code.op("MOV", &[7], &[RZ]),
        ],
        loads: std::array::from_fn(|u| LoadOps {
            address: code.op("IMAD.WIDE", &[2], &[6, 4]),
            load: code.op("LDG.E.128.SYS", &[quad(u)], &[2]),
            step: code.op("IADD3", &[6], &[6, RZ]),
            compare: code.op("ISETP.GE.U32.AND", &[], &[6]),
            wrap: code.op("IADD3", &[6], &[6, RZ]),
        }),
        accumulate: (0..LANES * UNROLL)
            .map(|i| {
                let (component, u) = (i / UNROLL, i % UNROLL);
                code.op("FADD", &[accumulator(u)], &[accumulator(u), quad(u) + component as u16])
            })
            .collect(),
        loop_control: [code.op("IADD3", &[7], &[7, RZ]), code.op("ISETP.GE.AND", &[], &[7])],
        branch: code.op("BRA", &[], &[]),
        tail: [
            code.op("FADD", &[24], &[24, 25]),
            code.op("FADD", &[26], &[26, 27]),
            code.op("FADD", &[24], &[24, 26]),
            code.op("IMAD.WIDE", &[2], &[0]),
        ],
        store: code.op("STG.E.SYS", &[], &[2, 24]),
        exit: code.op("EXIT", &[], &[]),
    }
}

struct Stream {
    ops: Ops,
    array: Array,
    out: Array,
    /// Elements in one region.
    len: u64,
    /// Elements between a thread's consecutive loads: `BLOCK mod len`.
    step: u64,
    /// Elements between consecutive CTAs' regions: `len` (L1) or 0.
    region_step: u64,
    /// Elements between consecutive CTAs' first loads: 0 (L1) or one
    /// thread-row per load.
    start_step: u64,
    iterations: u64,
}

impl Stream {
    /// Runs one unrolled load of the warp whose lane 0 is at element `at` of
    /// the region starting at element `base`; returns the next `at`.
    fn load(&self, w: &mut WarpWriter<'_>, ops: &LoadOps, mask: u32, base: u64, at: u64) -> u64 {
        w.exec(ops.address, mask);
        w.mem(ops.load, mask, |lane| self.array.at(base + at + u64::from(lane)));
        w.exec(ops.step, mask);
        w.exec(ops.compare, mask);
        let next = at + self.step;
        let wrapped = next >= self.len;
        w.exec(ops.wrap, if wrapped { mask } else { 0 });
        if wrapped { next - self.len } else { next }
    }
}

impl CtaBody for Stream {
    fn fill(&self, index: u64, cta: &mut Cta) {
        let ops = &self.ops;
        for_each_warp(cta, BLOCK, |w, warp| {
            for op in ops.setup {
                w.exec(op, warp.mask);
            }
            let base = index * self.region_step;
            // Lane 0 of a warp starts at a multiple of 32 and a region holds
            // whole warps' accesses, so a warp's 32 elements never straddle
            // the wrap.
            let mut at = (index * self.start_step + warp.first_thread) % self.len;
            for iteration in 0..self.iterations {
                for load in &ops.loads {
                    at = self.load(w, load, warp.mask, base, at);
                }
                for &op in ops.accumulate.iter().chain(&ops.loop_control) {
                    w.exec(op, warp.mask);
                }
                w.exec(ops.branch, if iteration + 1 < self.iterations { warp.mask } else { 0 });
            }
            for op in ops.tail {
                w.exec(op, warp.mask);
            }
            w.mem(ops.store, warp.mask, |lane| self.out.at(index * BLOCK + warp.thread(lane)));
            w.exec(ops.exit, warp.mask);
        });
    }
}

fn build(level: Level, params: &Params<'_>, footprint: Option<u64>) -> Result<Workload, GenError> {
    let config = params.config;
    let mut code = params.code();
    let ops = listing(&mut code);
    let resident = resident_ctas(config, BLOCK);
    let region = region(level, config, resident, footprint)?;
    let ctas = params.size() * u64::from(config.n_sms());
    let iterations = params.knob("iters");
    let len = region.elements;
    let (region_step, start_step) = if region.per_cta { (len, 0) } else { (0, iterations * UNROLL as u64 * BLOCK) };
    let mut memory = DeviceMemory::default();
    let array = memory.input(if region.per_cta { ctas * len } else { len }, FLOAT4_BYTES);
    let out = memory.alloc(ctas * BLOCK, 4);
    let launch = Launch::linear("_Z9bandwidthPK6float4Pfjjji", ctas, BLOCK, 0)?;
    let stream = Stream { ops, array, out, len, step: BLOCK % len, region_step, start_step, iterations };
    Ok(Workload::new(&memory, vec![Kernel::new(launch, &code, stream)]))
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use warplab_trace::{Cta, Instruction};

    use super::*;
    use crate::test_support::{for_each_op, run};
    use crate::{Command, Kernel};

    const LINE: u64 = 128;

    fn qv100() -> GpuConfig {
        warplab_config::default_preset().config().unwrap()
    }

    /// The array's base and bytes, and the kernel.
    fn array(workload: &Workload) -> (u64, u64, &Kernel) {
        let Some(Command::MemcpyHtoD { addr, bytes }) = workload.commands.first() else { panic!("a copy") };
        (*addr, *bytes, workload.kernels().next().unwrap())
    }

    /// CTAs an SM holds, from the QV100 limits and the kernel's registers.
    fn resident(config: &GpuConfig, kernel: &Kernel) -> u64 {
        let cores = &config.cores;
        let registers = u64::from(kernel.header().nregs.next_multiple_of(4)) * BLOCK;
        let by_threads = u64::from(cores.max_threads_per_sm) / BLOCK;
        by_threads.min(u64::from(cores.max_ctas_per_sm)).min(u64::from(cores.regs_per_sm) / registers)
    }

    #[test]
    fn regions_and_grid_follow_the_qv100_config() {
        let config = qv100();
        let workload = run("bw-l1");
        let kernel = workload.kernels().next().unwrap();
        let resident = resident(&config, kernel);
        assert_eq!(resident, 8);
        assert_eq!(kernel.cta_count(), 4 * u64::from(config.n_sms()) * resident);
        let dl1 = config.l1.dl1.as_ref().unwrap();
        let (_, ways) = config.l1.carveout_for(0).unwrap();
        let l1 = u64::from(ways) * u64::from(dl1.n_sets) * u64::from(dl1.line_size_bytes);
        let l2 = config.memory.l2_total_bytes();
        let elements = |bytes: u64| bytes / FLOAT4_BYTES / WARP_ELEMENTS * WARP_ELEMENTS;
        assert_eq!(
            region(Level::L1, &config, resident, None).unwrap(),
            Region { elements: elements(l1 / 2 / resident), per_cta: true }
        );
        assert_eq!(
            region(Level::L2, &config, resident, None).unwrap(),
            Region { elements: elements(l2 / 2), per_cta: false }
        );
        assert_eq!(
            region(Level::Dram, &config, resident, None).unwrap(),
            Region { elements: elements(4 * l2), per_cta: false }
        );
        assert!(l2 / 2 >= 4 * l1);
    }

    #[test]
    fn each_l1_cta_rereads_only_its_own_region() {
        check_l1_regions(&qv100());
        // Pascal's 48 KiB L1 leaves 3 KiB per CTA: less than a row of 256
        // threads, so threads 192.. re-read the first 64 elements.
        check_l1_regions(&warplab_config::preset("mdm-pascal-28sm").unwrap().config().unwrap());
    }

    fn check_l1_regions(config: &GpuConfig) {
        let workload = crate::generate(&"bw-l1".parse().unwrap(), config).unwrap();
        let (base, bytes, kernel) = array(&workload);
        let region = region(Level::L1, config, resident(config, kernel), None).unwrap().elements * FLOAT4_BYTES;
        assert_eq!(bytes, kernel.cta_count() * region);
        let mut lines: Vec<HashSet<u64>> = vec![HashSet::new(); kernel.cta_count() as usize];
        for_each_op(kernel, "LDG", |cta, _, addresses| {
            let own = base + u64::from(cta.id.x) * region;
            for address in addresses {
                assert!((own..own + region).contains(&address), "CTA {} reads {address:#x}", cta.id.x);
                lines[cta.id.x as usize].insert(address / LINE);
            }
        });
        assert!(lines.iter().all(|lines| lines.len() as u64 == region / LINE), "each CTA reads all of its region");
    }

    #[test]
    fn the_l2_grid_sweeps_one_region_of_half_the_l2() {
        let config = qv100();
        check_l2_sweep(&run("bw-l2:size=8"), config.memory.l2_total_bytes() / 2);
    }

    #[test]
    fn a_footprint_fixes_the_region_whatever_the_gpu() {
        // 5 MiB on QV100 (6-MiB L2) and on the scale-model GPU (32 MiB).
        check_l2_sweep(&run("bw-l2:size=8,footprint=5"), 5 << 20);
        let big = warplab_config::preset("scalemodel").unwrap().config().unwrap();
        let workload = crate::generate(&"bw-l2:size=2,footprint=5".parse().unwrap(), &big).unwrap();
        check_l2_sweep(&workload, 5 << 20);
        let too_big = crate::generate(&"bw-l2:footprint=1025".parse().unwrap(), &big);
        assert!(too_big.is_err());
    }

    fn check_l2_sweep(workload: &Workload, expected_bytes: u64) {
        let (base, bytes, kernel) = array(workload);
        assert_eq!(bytes, expected_bytes);
        let mut lines = HashSet::new();
        for_each_op(kernel, "LDG", |_, _, addresses| {
            for address in addresses {
                assert!((base..base + bytes).contains(&address));
                lines.insert(address / LINE);
            }
        });
        assert_eq!(lines.len() as u64, bytes / LINE);
    }

    /// One CTA's warp loads as (position in the sweep, line), in sweep order,
    /// each line once per warp load: position `(c × loads + k) × 8 + warp`
    /// for the k-th load of warp `warp` in CTA `c`.
    fn sweep_order(cta: &Cta, loads_per_thread: u64, kernel: &Kernel) -> Vec<(u64, u64)> {
        let mut loads = Vec::new();
        let is_load = |inst: &&Instruction| kernel.opcodes().info(inst.opcode).text.starts_with("LDG");
        for warp in &cta.warps {
            for (k, inst) in cta.warp_instructions(warp).iter().filter(is_load).enumerate() {
                let row = u64::from(cta.id.x) * loads_per_thread + k as u64;
                let position = row * BLOCK / 32 + u64::from(warp.warp_id);
                loads.extend(cta.lane_addresses(inst).map(|(_, address)| (position, address / LINE)));
            }
        }
        loads.sort_unstable();
        loads.dedup();
        loads
    }

    #[test]
    fn dram_reads_no_line_twice_before_the_whole_footprint() {
        let config = qv100();
        let workload = run("bw-dram:size=16");
        let (_, bytes, kernel) = array(&workload);
        assert_eq!(bytes, 4 * config.memory.l2_total_bytes());
        let footprint_lines = bytes / LINE;
        let (mut seen, mut repeats) = (HashSet::new(), 0u64);
        kernel.for_each_cta(|cta| {
            for (_, line) in sweep_order(cta, 8, kernel) {
                if !seen.insert(line) {
                    assert_eq!(seen.len() as u64, footprint_lines, "line {line} re-read before the sweep ended");
                    repeats += 1;
                }
            }
        });
        assert_eq!(seen.len() as u64, footprint_lines);
        assert!(repeats > 0, "the grid wraps around the footprint");
    }

    #[test]
    fn default_runs_fill_4_waves_with_between_0_1_and_2_million_warp_instructions() {
        for name in ["bw-l1", "bw-l2", "bw-dram"] {
            let summary = run(name).kernels().next().unwrap().summary();
            assert_eq!(summary.ctas, 4 * 80 * 8, "{name}");
            assert_eq!(summary.warp_insts, summary.ctas * 8 * (18 + 39 * 2), "{name}");
            assert!((100_000..=2_000_000).contains(&summary.warp_insts), "{name}: {}", summary.warp_insts);
        }
    }
}
