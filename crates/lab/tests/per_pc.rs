//! Per-PC figures (`SimOptions::per_pc`, `warplab run --per-pc`): counting
//! them changes nothing else, they are the same however the run is ticked
//! or threaded, and they add up to the run's own totals.

mod common;

use warplab_config::GpuConfig;
use warplab_lab::{Cycle, GenSpec, GeneratedWorkload, SimOptions, SimReport, Simulation, preset_config};
use warplab_sim::per_pc::{PcStalls, SAMPLE_INTERVAL};
use warplab_sim::report::SmReport;

fn preset(name: &str) -> GpuConfig {
    preset_config(name).unwrap().1
}

/// The report of `spec` on `config`, and its per-PC figures.
fn run(config: &GpuConfig, spec: &str, options: SimOptions) -> (SimReport, Option<Vec<PcStalls>>) {
    let spec: GenSpec = spec.parse().unwrap();
    let workload = GeneratedWorkload::new(&spec, config).unwrap();
    let mut simulation = Simulation::new(config, options, workload);
    simulation.run_until(Cycle(u64::MAX));
    (simulation.report(), simulation.per_pc())
}

fn counted() -> SimOptions {
    SimOptions { per_pc: true, ..SimOptions::default() }
}

/// A barrier kernel, a divergent memory-bound one, an atomic one and a
/// dependent-load chain, on three GPUs.
const CASES: [(&str, &str); 4] = [
    ("RTX3070", "gemm-tiled:size=1"),
    ("mdm-pascal-28sm", "strided:gs=32,size=4"),
    ("mdm-pascal-28sm", "histogram:size=8"),
    ("QV100", "bfs:size=1"),
];

#[test]
fn counting_per_pc_changes_no_other_figure() {
    for (config, spec) in CASES {
        let config = preset(config);
        let (plain, none) = run(&config, spec, SimOptions::default());
        let (counted, rows) = run(&config, spec, counted());
        assert!(none.is_none(), "{spec}: nothing is counted unless asked");
        assert!(rows.is_some_and(|rows| !rows.is_empty()), "{spec}");
        assert_eq!(plain, counted, "{spec}");
    }
}

#[test]
fn the_figures_do_not_depend_on_jumps_or_threads() {
    for (config, spec) in CASES {
        let config = preset(config);
        let base = run(&config, spec, counted()).1;
        let ticked = run(&config, spec, SimOptions { tick_every_cycle: true, ..counted() }).1;
        let threaded = run(&config, spec, SimOptions { threads: 3, ..counted() }).1;
        assert_eq!(base, ticked, "{spec}: clock jumps sample what ticking every cycle samples");
        assert_eq!(base, threaded, "{spec}: threads");
    }
}

#[test]
fn issues_add_up_to_the_run_and_stalls_to_its_warp_cycles() {
    for (config, spec) in CASES {
        let config = preset(config);
        let (report, rows) = run(&config, spec, counted());
        let rows = rows.unwrap_or_default();
        let issued: u64 = rows.iter().map(|row| row.issued).sum();
        assert_eq!(issued, report.warp_insts, "{spec}: every issue at its PC");
        let conflicts: u64 = rows.iter().map(|row| row.bank_conflict_cycles).sum();
        assert_eq!(conflicts, report.shmem_bank_conflict_cycles, "{spec}: every bank-conflict cycle at its PC");
        // Every sample is one live warp at a sample cycle, so the sampled
        // cycles are about the resident warp-cycles (within a sample
        // interval per warp slot at each end of its residence).
        let sampled: u64 = rows.iter().map(|row| row.stalls.total()).sum();
        let resident: u64 = report.sms.iter().map(|sm| resident_warp_cycles(sm, &config)).sum();
        let slack = 2 * SAMPLE_INTERVAL * u64::from(config.cores.max_warps_per_sm()) * report.sms.len() as u64;
        assert!(
            sampled.abs_diff(resident) <= slack.max(resident / 10),
            "{spec}: sampled {sampled}, resident {resident}"
        );
        assert!(rows.iter().all(|row| !row.opcode.is_empty()), "{spec}: every PC has its opcode");
        assert!(rows.windows(2).all(|pair| (pair[0].kernel, pair[0].pc) < (pair[1].kernel, pair[1].pc)), "{spec}");
    }
}

#[test]
fn each_kernel_stalls_where_its_mechanism_says() {
    let config = preset("RTX3070");
    let (_, tiled) = run(&config, "gemm-tiled:size=1", counted());
    let barrier: u64 = tiled.iter().flatten().map(|row| row.stalls.barrier).sum();
    assert!(barrier > 0, "gemm-tiled's warps wait at its barriers");
    let config = preset("mdm-pascal-28sm");
    let (_, strided) = run(&config, "strided:gs=32,size=4", counted());
    let rows = strided.unwrap_or_default();
    let memory: u64 = rows.iter().map(|row| row.stalls.memory).sum();
    let all: u64 = rows.iter().map(|row| row.stalls.total()).sum();
    assert!(memory * 2 > all, "strided:gs=32 waits on memory most ({memory} of {all})");
}

/// One warp's shared-memory accesses at the strides that give GPGPU-Sim's
/// bank rule 1, 2 and 32 cycles (32 banks of 4-B words: lane `l` at
/// `l * stride` is in bank `l * stride / 4 mod 32`), a 16-lane 32-way store
/// (16 cycles), then a store without a conflict.
fn bank_accesses(_: u32, _: u32) -> Vec<String> {
    [
        "ffffffff 1 R1 LDS 1 R0 4 1 0x0 4",
        "ffffffff 1 R2 LDS 1 R0 4 1 0x0 8",
        "ffffffff 1 R3 LDS 1 R0 4 1 0x0 128",
        "0000ffff 0 STS 2 R0 R3 4 1 0x0 128",
        "ffffffff 0 STS 2 R0 R3 4 1 0x0 4",
        "ffffffff 0 EXIT 0 0",
    ]
    .map(String::from)
    .to_vec()
}

/// Issue 41, GPGPU-Sim's `ldst_unit::shared_cycle`: an access's bank cycles
/// are its dispatch delay, and each cycle after which some are left counts,
/// so an access taking n cycles counts n - 1.
#[test]
fn a_shared_access_taking_n_bank_cycles_counts_n_minus_one_conflict_cycles() {
    let config = preset("SM7_QV100");
    let run = |options| common::simulate_grid(&config, options, 70, 1, 1, bank_accesses);
    let (plain, none) = run(SimOptions::default());
    assert_eq!(plain.warp_insts, 6);
    assert_eq!(plain.shmem_bank_conflict_cycles, 1 + 31 + 15);
    assert!(none.is_none(), "per-PC figures are off unless asked");
    let (report, rows) = run(counted());
    assert_eq!(report, common::run_grid(&config, 70, 1, 1, bank_accesses), "per-PC counting changes nothing");
    let per_pc: Vec<(u32, u64)> =
        rows.unwrap_or_default().iter().map(|row| (row.pc, row.bank_conflict_cycles)).collect();
    assert_eq!(per_pc, [(0x00, 0), (0x10, 1), (0x20, 31), (0x30, 15), (0x40, 0), (0x50, 0)]);
    let (ticked, _) = run(SimOptions { tick_every_cycle: true, ..SimOptions::default() });
    assert_eq!(
        ticked.shmem_bank_conflict_cycles, plain.shmem_bank_conflict_cycles,
        "the same when every cycle is ticked"
    );
}

/// Issue 41: the transpose's three kernels (`test_data/accelsim/kernels/transpose.cu`,
/// Accel-Sim's `cu_transpose`): the tiled one's column read (`LDS`) conflicts
/// 32 ways in each of its 8,192 warps, 31 cycles each; the tile's writes, the
/// padded kernel and the naive one have none. The per-PC figures put every
/// one of those cycles on that instruction.
#[test]
fn bank_conflict_cycles_fall_on_the_conflicting_instruction() {
    const SOURCE: &str = include_str!("../test_data/accelsim/kernels/transpose.cu");
    let config = preset("SM7_QV100");
    let workload = warplab_lab::authored_workload("transpose.cu", SOURCE, &config).unwrap();
    let mut simulation = Simulation::new(&config, counted(), workload.into_source());
    simulation.run_until(Cycle(u64::MAX));
    let report = simulation.report();
    let rows = simulation.per_pc().unwrap_or_default();
    assert_eq!(report.shmem_bank_conflict_cycles, 8192 * 31);
    let conflicting: Vec<(u32, &str, u64)> = rows
        .iter()
        .filter(|row| row.bank_conflict_cycles > 0)
        .map(|row| (row.kernel, row.opcode.as_str(), row.bank_conflict_cycles))
        .collect();
    assert_eq!(conflicting, [(1, "LDS", 8192 * 31)], "the tiled kernel's column read alone");
}

/// The warp-cycles an SM held resident warps, from its report.
fn resident_warp_cycles(sm: &SmReport, config: &GpuConfig) -> u64 {
    let slots = u64::from(config.cores.max_warps_per_sm());
    (sm.achieved_occupancy * (sm.active_cycles * slots) as f64).round() as u64
}
