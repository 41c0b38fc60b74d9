//! The timing model against figures that follow from the configuration
//! (docs/validation.md writes each formula out), the MDM paper's observations
//! on `strided`, the occupancy rule, real traces and the equivalence of
//! sleeping and ticking (determinism across runs and wasm: `determinism.rs`).

use std::fs::File;
use std::io::Read;
use std::path::PathBuf;

use warplab_config::GpuConfig;
use warplab_lab::{GenSpec, SimOptions, SimReport, preset_config, read_config_dir, simulate_generated, simulate_trace};

fn preset(name: &str) -> GpuConfig {
    preset_config(name).unwrap().1
}

fn run(config: &GpuConfig, spec: &str) -> SimReport {
    let spec: GenSpec = spec.parse().unwrap();
    simulate_generated(config, SimOptions::default(), &spec).unwrap()
}

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

fn run_trace(config: &GpuConfig, dir: &str) -> SimReport {
    let dir = repo(dir);
    let list = std::fs::read_to_string(dir.join("kernelslist.g")).unwrap();
    let mut open = move |file: &str| -> Result<Box<dyn Read>, String> {
        File::open(dir.join(file)).map(|f| Box::new(f) as Box<dyn Read>).map_err(|e| e.to_string())
    };
    simulate_trace(config, SimOptions::default(), &list, &mut open).unwrap()
}

/// Cycles per dependent load of a pointer chase: the difference between two
/// runs whose chases differ by `extra` warm loads, so the launch latency, the
/// setup and the cold first pass cancel.
fn cycles_per_load(config: &GpuConfig, kernel: &str, size: u64) -> f64 {
    let short = run(config, &format!("{kernel}:size={size}"));
    let long = run(config, &format!("{kernel}:size={}", 2 * size));
    (long.cycles - short.cycles) as f64 / (size * 1024) as f64
}

/// Core cycles of `n` cycles of a clock at `khz`.
fn in_core_cycles(config: &GpuConfig, n: f64, khz: u64) -> f64 {
    n * config.clocks.core.khz() as f64 / khz as f64
}

/// L1 hit: one cycle from issue to the LD/ST unit, then the L1 latency.
fn l1_hit_formula(config: &GpuConfig) -> f64 {
    1.0 + f64::from(config.l1.l1_latency_cycles)
}

/// L2 hit: the L1 lookup, one cycle into the crossbar, the request crossing
/// (a cycle to the grant plus one per flit, in icnt cycles), the ROP pipeline,
/// a cycle into the L2 queue and the access, a cycle to the reply crossbar,
/// and the reply crossing.
fn l2_hit_formula(config: &GpuConfig) -> f64 {
    let flit = config.interconnect.effective_flit_size_bytes();
    let fetch = config.l1.dl1.as_ref().map_or(32, |c| if c.is_sectored() { 32 } else { c.line_size_bytes });
    let request_flits = 8u32.div_ceil(flit);
    let reply_flits = (8 + fetch).div_ceil(flit);
    let icnt = config.clocks.icnt.khz();
    let l2 = config.clocks.l2.khz();
    l1_hit_formula(config)
        + 1.0
        + in_core_cycles(config, f64::from(1 + request_flits), icnt)
        + f64::from(config.memory.l2_rop_latency_cycles)
        + in_core_cycles(config, 2.0, l2)
        + in_core_cycles(config, f64::from(1 + reply_flits), icnt)
}

/// DRAM with a row miss: the L2 path, the fixed DRAM latency, then precharge,
/// activate, CAS latency and the data burst in DRAM cycles.
fn dram_formula(config: &GpuConfig) -> f64 {
    let t = config.dram.timing;
    let burst = config.dram.burst_length / config.dram.data_command_freq_ratio;
    let service = f64::from(t.t_rp + t.t_rcd + t.cl + burst);
    l2_hit_formula(config)
        + f64::from(config.memory.dram_latency_cycles)
        + in_core_cycles(config, service, config.clocks.dram.khz())
}

fn assert_within(measured: f64, expected: f64, tolerance: f64, what: &str) {
    let error = (measured - expected).abs() / expected;
    assert!(
        error <= tolerance,
        "{what}: measured {measured:.2} cycles, formula {expected:.2} ({:.1}% off)",
        100.0 * error
    );
}

#[test]
fn pointer_chase_latencies_follow_the_config() {
    for name in ["QV100", "mdm-pascal-28sm"] {
        let config = preset(name);
        assert_within(cycles_per_load(&config, "pchase-l1", 4), l1_hit_formula(&config), 0.02, &format!("{name} L1"));
        assert_within(cycles_per_load(&config, "pchase-l2", 8), l2_hit_formula(&config), 0.02, &format!("{name} L2"));
        assert_within(cycles_per_load(&config, "pchase-dram", 2), dram_formula(&config), 0.02, &format!("{name} DRAM"));
    }
}

#[test]
fn memory_divergence_shows_the_mdm_papers_symptoms() {
    let config = preset("mdm-pascal-28sm");
    let coalesced = run(&config, "strided:gs=1,size=56");
    let divergent = run(&config, "strided:gs=32,size=56");
    // Coalesced loads fail now and then when the 8-entry miss queue is full;
    // divergent ones fail on the MSHRs over and over.
    let failures = |r: &SimReport| r.l1d.reads.reservation_fail as f64 / r.l1d.reads.accesses() as f64;
    assert!(failures(&divergent) > 10.0 * failures(&coalesced), "{:?} against {:?}", divergent.l1d, coalesced.l1d);
    let b = &divergent.latency_breakdown;
    let queueing = b.mshr_wait_cycles + b.noc_cycles + b.dram_queue_cycles;
    assert!(queueing * 2 > b.total_cycles(), "MSHR + NoC + DRAM queueing is not the larger part: {b:?}");
    assert!(coalesced.ipc > 3.0 * divergent.ipc, "IPC {} against {}", coalesced.ipc, divergent.ipc);
}

#[test]
fn occupancy_limits_hold() {
    let mut config = preset("QV100");
    // gemm-tiled with 32 × 32 tiles keeps 8 KiB of shared memory per CTA.
    config.l1.shmem_per_sm_bytes = 12 * 1024;
    let report = run(&config, "gemm-tiled:tile=32,size=2");
    assert_eq!(report.kernels[0].ctas_per_sm, 1);
    assert!(report.sms.iter().all(|sm| sm.max_resident_ctas <= 1), "shared-memory limit broken");
    let mut config = preset("QV100");
    // vecadd's 256-thread CTAs use 12 registers per thread: 3,072 per CTA.
    config.cores.regs_per_sm = 4096;
    let report = run(&config, "vecadd:size=8");
    assert_eq!((report.kernels[0].ctas_per_sm, report.kernels[0].occupancy_limiter.as_str()), (1, "Registers"));
    assert!(report.sms.iter().all(|sm| sm.max_resident_ctas <= 1), "register limit broken");
}

#[test]
fn every_anchor_trace_runs_on_volta_and_ampere() {
    let traces = [
        "crates/trace/test_data/vectoradd-sm61-gtx1080-v4",
        "crates/trace/test_data/vectorAdd-sm80-a100-v5",
        "crates/trace/test_data/vectorAdd-sm80-a100-v5-xz",
        "crates/trace/test_data/rodinia-bptree-128-1000-sm90-h100pcie-v5-xz",
    ];
    for config in ["QV100", "RTX3070"] {
        let config = preset(config);
        for trace in traces {
            let report = run_trace(&config, trace);
            let summary_insts: u64 = report.kernels.iter().map(|k| k.warp_insts).sum();
            assert!(report.cycles > 0 && report.warp_insts > 0, "{trace}");
            assert_eq!(summary_insts, report.warp_insts, "{trace}");
            assert!(report.kernels.iter().all(|k| k.end_cycle > k.start_cycle), "{trace}");
        }
    }
}

#[test]
fn vectoradd_anchor_against_accel_sim() {
    let dir = repo("crates/config/test_data/gtx1080");
    let files: Vec<(String, String)> = ["gpgpusim.config", "gpgpusim.trace.config", "config_fermi_islip.icnt"]
        .iter()
        .map(|name| (name.to_string(), std::fs::read_to_string(dir.join(name)).unwrap()))
        .collect();
    let config = read_config_dir(&files).unwrap();
    let report = run_trace(&config, "crates/trace/test_data/vectoradd-sm61-gtx1080-v4");
    assert_eq!(report.thread_insts, 10_516, "Accel-Sim's gpu_sim_insn");
    assert_eq!(report.warp_insts, 344);
    // FIXME(issue 5): Accel-Sim reports 1,282 cycles; warplab measures 458 today,
    // outside the 25% goal. docs/validation.md records the figures and what
    // differs; this pins today's value so a change is noticed.
    assert_eq!(report.cycles, 458);
}

/// Sleeping SMs and clock jumps are an optimisation only: ticking every busy
/// component every cycle gives the same report, counter for counter.
#[test]
fn sleeping_and_clock_jumps_change_nothing() {
    let ticked = SimOptions { tick_every_cycle: true, ..SimOptions::default() };
    let cases = [
        ("mdm-pascal-28sm", "histogram:size=8"),
        ("mdm-pascal-28sm", "strided:gs=32,size=4"),
        ("QV100", "pchase-dram:size=1"),
        ("QV100", "bfs:size=1"),
        ("RTX3070", "gemm-tiled:size=1"),
    ];
    for (config, spec) in cases {
        let config = preset(config);
        let parsed: GenSpec = spec.parse().unwrap();
        let fast = simulate_generated(&config, SimOptions::default(), &parsed).unwrap();
        let slow = simulate_generated(&config, ticked, &parsed).unwrap();
        assert_eq!(fast, slow, "{spec}");
    }
}

/// Cycles per loop iteration of `maxflops` with one dependent FFMA chain:
/// the difference between 64 and 32 iterations, one CTA of `block` threads
/// per SM.
fn cycles_per_iteration(config: &GpuConfig, block: u32) -> f64 {
    let spec = |iters: u32| format!("maxflops:chains=1,size=1,block={block},iters={iters}");
    let (short, long) = (run(config, &spec(32)), run(config, &spec(64)));
    (long.cycles - short.cycles) as f64 / 32.0
}

/// `SM7_QV100` from its files with `extra` options applied last.
fn qv100_with(extra: &str) -> GpuConfig {
    let dir = repo("configs/SM7_QV100");
    let mut files: Vec<(String, String)> = ["gpgpusim.config", "trace.config", "config_volta_islip.icnt"]
        .iter()
        .map(|name| (name.to_string(), std::fs::read_to_string(dir.join(name)).unwrap()))
        .collect();
    files.push(("zz.trace.config".to_owned(), extra.to_owned()));
    read_config_dir(&files).unwrap()
}

/// Two-level scheduling on a loop bound by the FFMA latency (made 24 cycles
/// here, so one warp per scheduler leaves the units mostly idle): with an
/// active set of one warp a scheduler's warps never overlap (none waits on a
/// long-latency operation inside the loop, so none leaves the active set
/// before it exits), and four warps per scheduler take four times as long
/// per iteration as one; with an active set of four they hide each other's
/// latency, as loose round robin does.
#[test]
fn two_level_active_set_limits_which_warps_interleave() {
    let slow_ffma = "-trace_opcode_latency_initiation_sp 24,2\n";
    let lrr = qv100_with(slow_ffma);
    let two_level = |active: u32| qv100_with(&format!("{slow_ffma}-gpgpu_scheduler two_level_active:{active}:0:1\n"));
    // 128 threads: one warp per scheduler; 512: four.
    let alone = cycles_per_iteration(&two_level(1), 128);
    let one_active = cycles_per_iteration(&two_level(1), 512);
    assert!((one_active / (4.0 * alone) - 1.0).abs() < 0.02, "active set of 1: {one_active} vs 4 × {alone}");
    for (name, config) in [("active set of 4", two_level(4)), ("lrr", lrr)] {
        let overlapped = cycles_per_iteration(&config, 512);
        assert!(overlapped < 1.5 * alone, "{name}: {overlapped} cycles/iteration vs {alone} for one warp");
    }
}
