//! The timing model against figures that follow from the configuration
//! (docs/validation.md writes each formula out), the MDM paper's observations
//! on `strided`, the occupancy rule, real traces and the equivalence of
//! sleeping and ticking (determinism across runs and wasm: `determinism.rs`).

mod common;
mod gtx1080;

use std::fs::File;
use std::io::Read;
use std::path::PathBuf;

use warplab_config::GpuConfig;
use warplab_config::cache::WriteAllocate;
use warplab_lab::sampling::{SampleMode, SamplingOptions};
use warplab_lab::{
    Cycle, EventWindow, GenSpec, GeneratedWorkload, SimOptions, SimReport, Simulation, preset_config, read_config_dir,
    simulate_generated, simulate_trace,
};
use warplab_uarch::latency::{IdleLatencies, in_core_cycles};

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
        let idle = IdleLatencies::of(&config);
        assert_within(cycles_per_load(&config, "pchase-l1", 4), idle.l1_hit, 0.02, &format!("{name} L1"));
        assert_within(cycles_per_load(&config, "pchase-l2", 8), idle.l2_hit, 0.02, &format!("{name} L2"));
        assert_within(cycles_per_load(&config, "pchase-dram", 2), idle.dram_row_miss, 0.02, &format!("{name} DRAM"));
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

/// The GTX 1080 `accelsim-config` of the vectoradd anchor: a real
/// instruction cache (`N:8:128:4`, no `-gpgpu_perfect_inst_const_cache`),
/// one fetch per cycle, and an L2 with the naive write-allocate `W`.
fn gtx1080() -> GpuConfig {
    let dir = repo("crates/config/test_data/gtx1080");
    let files: Vec<(String, String)> = ["gpgpusim.config", "gpgpusim.trace.config", "config_fermi_islip.icnt"]
        .iter()
        .map(|name| (name.to_string(), std::fs::read_to_string(dir.join(name)).unwrap()))
        .collect();
    read_config_dir(&files).unwrap()
}

/// Runs a kernel of one warp whose instructions are `lines` (tracer-4 lines
/// without the PC), at PCs 16 bytes apart from 0, traced for Pascal.
fn run_one_warp(config: &GpuConfig, lines: &[String]) -> SimReport {
    common::run_grid(config, 61, 1, 1, |_, _| lines.to_vec())
}

/// `n` independent moves (eight registers in turn, so no hazard at a
/// latency below 8) and an `EXIT`.
fn moves_then_exit(n: usize) -> Vec<String> {
    let mut lines: Vec<String> = (0..n).map(|k| format!("ffffffff 1 R{} MOV 0 0", 1 + k % 8)).collect();
    lines.push("ffffffff 0 EXIT 0 0".to_string());
    lines
}

#[test]
fn a_cold_instruction_cache_miss_costs_a_dram_round_trip() {
    // 16 instructions 16 bytes apart fill two 128-B lines; a lone warp misses
    // on each in turn and waits the whole round trip: the line read crosses
    // the request crossbar, the ROP pipeline, the L2 (its access, its miss
    // queue, the fill answered the cycle after), the fixed DRAM latency, a
    // DRAM cycle to reach the bank, an activate and one read per 32-B access
    // of the line on a closed bank (tRCD, the reads tCCD apart, CL), a DRAM
    // cycle back to the L2, and the line (plus header) crosses back.
    let config = gtx1080();
    let mut perfect = config.clone();
    perfect.scheduling.perfect_inst_const_cache = true;
    let lines = moves_then_exit(15);
    let cold = run_one_warp(&config, &lines);
    let warm = run_one_warp(&perfect, &lines);
    assert_eq!((cold.l1i.miss, cold.l1i.hit), (2, 6), "two lines, 16 instructions two per fetch");
    assert_eq!((warm.l1i.miss, warm.l1i.hit), (0, 8));
    let flit = config.interconnect.effective_flit_size_bytes();
    let line = config.l1i.as_ref().unwrap().line_size_bytes;
    let icnt = config.clocks.icnt.khz();
    let t = config.dram.timing;
    let reads = line / config.dram.access_bytes();
    let service = 1 + t.t_rcd + (reads - 1) * t.t_ccd.max(t.t_ccdl) + t.cl + 1;
    let miss = in_core_cycles(&config, f64::from(1 + 8u32.div_ceil(flit)), icnt)
        + f64::from(config.memory.l2_rop_latency_cycles)
        + in_core_cycles(&config, 4.0, config.clocks.l2.khz())
        + f64::from(config.memory.dram_latency_cycles)
        + in_core_cycles(&config, f64::from(service), config.clocks.dram.khz())
        + in_core_cycles(&config, f64::from((8 + line).div_ceil(flit)), icnt);
    let per_miss = (cold.cycles - warm.cycles) as f64 / 2.0;
    assert_within(per_miss, miss, 0.02, "instruction-cache miss");
}

#[test]
fn one_fetch_per_cycle_brings_two_instructions() {
    // Fetch refills a warp's two-entry buffer only once it is empty, and what
    // it fetches is decoded at the next fetch step: with one step per cycle a
    // lone warp issues two instructions every three cycles, with two steps
    // (decode in the same cycle) one every cycle.
    let mut config = gtx1080();
    config.scheduling.perfect_inst_const_cache = true;
    let n = 3000;
    let lines = moves_then_exit(n - 1);
    for (steps, cycles_per_inst) in [(1, 1.5), (2, 1.0)] {
        config.scheduling.inst_fetch_throughput = steps;
        let report = run_one_warp(&config, &lines);
        let measured = report.cycles as f64 / n as f64;
        assert_within(measured, cycles_per_inst, 0.02, &format!("{steps} fetch steps per cycle"));
    }
}

#[test]
fn a_write_the_l2_sends_to_dram_is_acknowledged_from_dram() {
    // Under the naive write-allocate `W` the L2 sends a missing write on to
    // DRAM (and fetches the line); its acknowledgement leaves when DRAM has
    // written it: an L2 cycle from the L2's miss queue to the DRAM queue, the
    // fixed DRAM latency, a DRAM cycle to reach the bank, an activate and a
    // write on a closed bank (tRCDWR = tRCD - (WL + 1), then WL), and a DRAM
    // cycle back to the L2. Under lazy fetch-on-read the L2 keeps the write
    // and acknowledges it at once.
    let config = gtx1080();
    let mut keeps = config.clone();
    keeps.memory.l2.write_allocate = WriteAllocate::LazyFetchOnRead;
    let lines = ["00000001 0 STG.E 2 R6 R0 4 1 0x7f2b2d500400 4".to_string(), "ffffffff 0 EXIT 0 0".to_string()];
    let through = run_one_warp(&config, &lines);
    let kept = run_one_warp(&keeps, &lines);
    assert_eq!((through.dram.totals.writes, kept.dram.totals.writes), (1, 0));
    let t = config.dram.timing;
    let write = 1 + t.t_rcd.saturating_sub(t.wl + 1) + t.wl + 1;
    let expected = in_core_cycles(&config, 1.0, config.clocks.l2.khz())
        + f64::from(config.memory.dram_latency_cycles)
        + in_core_cycles(&config, f64::from(write), config.clocks.dram.khz());
    assert_within((through.cycles - kept.cycles) as f64, expected, 0.02, "write acknowledged from DRAM");
}

#[test]
fn vectoradd_anchor_against_accel_sim() {
    let report = run_trace(&gtx1080(), "crates/trace/test_data/vectoradd-sm61-gtx1080-v4");
    assert_eq!(report.thread_insts, 10_516, "Accel-Sim's gpu_sim_insn");
    assert_eq!(report.warp_insts, 344);
    // Accel-Sim's L1I: 188 accesses, 152 hits, 36 misses of which 34 merged
    // into an outstanding line (MSHR_HIT).
    let l1i = &report.l1i;
    assert_eq!((l1i.hit, l1i.hit_reserved, l1i.miss), (152, 34, 2));
    // Accel-Sim: total dram writes = 13 (32-B write commands).
    assert_eq!(report.dram.totals.writes, 13);
    // Accel-Sim reports 1,282 cycles; docs/validation.md gives the mechanisms
    // behind warplab's figure and what still differs. The goal is 25%; the
    // exact value is pinned so that any change is noticed.
    assert!((report.cycles as f64 - 1282.0).abs() <= 0.25 * 1282.0, "{} cycles", report.cycles);
    assert_eq!(report.cycles, 1273);
}

/// Sleeping SMs, clock jumps and the CTA scheduler's passing over full SMs
/// are an optimisation only: ticking every busy component every cycle, and
/// visiting every SM for CTAs, gives the same report, counter for counter.
/// The CTA cases launch several waves (an SM takes a CTA when one of its own
/// ends), several kernels one after another (a kernel admitted may fit where
/// the one before did not), predicted CTAs (Photon frees an SM's resources
/// when a predicted CTA's time is up), and CTAs placed in the first free run
/// of warp slots, as with concurrent kernels.
#[test]
fn sleeping_and_clock_jumps_change_nothing() {
    let off = SamplingOptions::default();
    let photon = SamplingOptions::with_mode(SampleMode::Photon);
    // A short stability window, so that this kernel switches to warp
    // sampling and predicted CTAs hold and free SMs' resources.
    let warp_sampled = SamplingOptions { warp_window: 128, ..photon };
    let cases = [
        ("mdm-pascal-28sm", "histogram:size=8", off),
        // Atomics go past the L1 one a cycle while the crossbar port has
        // room: an SM whose port is full must not sleep through its freeing.
        ("mdm-pascal-28sm", "histogram:size=64", off),
        ("mdm-pascal-28sm", "strided:gs=32,size=4", off),
        ("QV100", "pchase-dram:size=1", off),
        ("QV100", "bfs:size=1", off),
        ("RTX3070", "gemm-tiled:size=1", off),
        ("QV100", "vecadd:size=64", off),
        ("QV100", "vecadd:size=16,launches=3", off),
        ("QV100", "vecadd:size=64,launches=3", photon),
        ("QV100", "vecadd:size=1024", warp_sampled),
    ];
    let mut concurrent = preset("QV100");
    concurrent.kernels.concurrent_kernel_sm = true;
    let cases = cases.map(|(config, spec, sampling)| (preset(config), spec, sampling));
    for (config, spec, sampling) in cases.into_iter().chain([(concurrent, "bfs:size=4", off)]) {
        let parsed: GenSpec = spec.parse().unwrap();
        let options = SimOptions { sampling, ..SimOptions::default() };
        let fast = simulate_generated(&config, options, &parsed).unwrap();
        let slow = simulate_generated(&config, SimOptions { tick_every_cycle: true, ..options }, &parsed).unwrap();
        assert_eq!(fast, slow, "{spec} ({sampling:?})");
    }
}

/// A report taken while a run is paused (the page shows one at every
/// pause) is the reference's too: what sleeps is counted up to the pause.
/// Memory-divergent runs leave DRAM channels waiting on a row or a transfer
/// for most of their cycles, counted when passed over (`DramChannel::pass`);
/// the page's default run is memory-bound too.
#[test]
fn a_paused_run_reports_what_ticking_every_cycle_reports() {
    for (config, spec) in [("mdm-pascal-28sm", "strided:gs=32,size=2"), ("QV100", "vecadd:size=8")] {
        let (config, spec): (GpuConfig, GenSpec) = (preset(config), spec.parse().unwrap());
        let reports = |options: SimOptions| {
            let mut workload = GeneratedWorkload::new(&spec, &config).unwrap();
            let mut simulation = Simulation::new(&config, options, &mut workload);
            let mut reports = Vec::new();
            // Pauses at an odd stride, so that they fall anywhere in the
            // DRAM's and the L2's own clocks.
            while !simulation.run_until(Cycle(simulation.progress().cycle.0 + 97)).finished {
                reports.push(simulation.report());
            }
            reports
        };
        let reference = reports(SimOptions { tick_every_cycle: true, ..SimOptions::default() });
        let paused = reports(SimOptions::default());
        assert!(reference.len() > 10, "{spec}: paused {} times", reference.len());
        assert_eq!(paused, reference, "{spec}");
    }
}

/// The SMs' cycles on several threads change no figure: the SMs only read the
/// crossbars in their cycle and what they send waits in their ports until
/// all have run (`crates/sim/src/sm/port.rs`). Compute-bound, memory-bound,
/// divergent, multi-kernel and sampled runs, on two to five threads.
#[test]
fn threads_change_nothing() {
    let cases = [
        ("mdm-pascal-28sm", "histogram:size=8", SampleMode::Off),
        ("mdm-pascal-28sm", "strided:gs=32,size=4", SampleMode::Off),
        ("QV100", "maxflops:size=1", SampleMode::Off),
        ("QV100", "bfs:size=1", SampleMode::Off),
        ("QV100", "vecadd:size=4,launches=3", SampleMode::Photon),
        ("RTX3070", "gemm-tiled:size=1", SampleMode::Off),
    ];
    for (config, spec, mode) in cases {
        let options = SimOptions { sampling: SamplingOptions::with_mode(mode), ..SimOptions::default() };
        assert_same_on_threads(config, spec, options, &[2, 5]);
    }
}

/// Runs `spec` on preset `config` with `options` on one thread and on each
/// of `threads`, and checks that every report is the one-thread report.
fn assert_same_on_threads(config: &str, spec: &str, options: SimOptions, threads: &[u32]) {
    let config = preset(config);
    let parsed: GenSpec = spec.parse().unwrap();
    let one = simulate_generated(&config, options, &parsed).unwrap();
    for &threads in threads {
        let many = simulate_generated(&config, SimOptions { threads, ..options }, &parsed).unwrap();
        assert_eq!(one, many, "{spec} on {threads} threads ({options:?})");
    }
}

/// The L2 and DRAM run beside the SMs' cycles on several threads
/// (`crates/sim/src/gpu.rs`, `memory_may_run_beside`) and change no figure,
/// also where the L2's work outweighs the SMs' and where a copy warming the
/// L2 keeps them apart. A DRAM edge between two core edges waits for the
/// next and runs beside its SMs (`defers_dram`): DRAM is slower than the
/// core on QV100, faster on the A100 and H100, whose L2 edges between core
/// edges run the waiting DRAM edges first, and the Pascal GPU's interconnect
/// edges fall between core edges while DRAM edges wait.
#[test]
fn the_memory_side_beside_the_sms_changes_nothing() {
    let cases = [
        ("SM7_QV100", "vecadd:size=16", false),
        ("SM7_QV100", "vecadd:size=16", true),
        ("SM7_QV100", "stencil2d:size=2", false),
        ("mdm-pascal-28sm", "strided:gs=32,size=8", false),
        ("SM80_A100", "vecadd:size=32", false),
        ("SM90_H100", "strided:gs=8,size=4", false),
    ];
    for (config, spec, memcpy_warms_l2) in cases {
        assert_same_on_threads(config, spec, SimOptions { memcpy_warms_l2, ..SimOptions::default() }, &[2, 3]);
    }
}

/// An L1 write-back the L2 keeps ends there, and its slot in its SM's
/// request pool is freed before the SMs' next cycle, where the SM may reuse
/// it: so while one is in the memory side the L2 does not run beside the
/// SMs, and request ids, which events carry, are the same on any number of
/// threads. Every warp stores to 2,048 local lines, which an L1
/// that writes local data back (QV100's, with the write policy `L`) evicts
/// dirty into QV100's write-back L2; the event window opens once the run
/// has gone on without one.
#[test]
fn l1_write_backs_keep_request_ids_the_same_on_any_number_of_threads() {
    let config = qv100_with("-gpgpu_cache:dl1  S:4:128:64,L:L:m:L:L,A:512:8,16:0,32\n");
    let stores = |_: u32, _: u32| {
        let mut lines: Vec<String> =
            (0..2048).map(|k| format!("ffffffff 0 STL 2 R1 R2 4 1 {:#x} 0", 128 * k)).collect();
        lines.push("ffffffff 0 EXIT 0 0".to_string());
        lines
    };
    let opens = 16_000;
    let run = |threads| {
        let workload = common::grid_workload(70, 80, 1, stores);
        let mut simulation = Simulation::new(&config, SimOptions { threads, ..SimOptions::default() }, workload);
        simulation.run_until(Cycle(opens));
        let window = EventWindow { cycles: opens..opens + 3_000, sms: 0..u32::MAX, max_events: 1_000_000 };
        simulation.set_event_window(Some(window));
        simulation.run_until(Cycle(u64::MAX));
        let events = serde_json::to_string(&simulation.take_events().events).unwrap();
        (simulation.report(), events)
    };
    let (one, events) = run(1);
    // The stores write nothing through, so every L2 write is a write-back.
    assert!(one.l2.writes.accesses() > 0, "no L1 write-back reached the L2");
    for threads in [2, 3] {
        let (many, many_events) = run(threads);
        assert_eq!(one, many, "on {threads} threads");
        assert!(events == many_events, "events differ on {threads} threads");
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

/// A shared-memory atomic (`ATOMS`) runs in the shared-memory pipeline as
/// `LDS` does, its bank conflicts serialised and its result back after the
/// shared-memory latency, and its warp issues nothing more until it is back
/// (GPGPU-Sim's atomic count, decremented at the shared pipeline's
/// writeback). So a lone warp's chain of atomics costs at least that latency
/// each, and a 32-way bank conflict (32 words 128 bytes apart) 31 cycles more
/// than 32 words in 32 banks. It is not one of the global atomics that skip
/// the L1 for the L2: it has no access to send there.
#[test]
fn a_shared_atomic_waits_for_the_shared_memory_pipeline() {
    let config = preset("SM7_QV100");
    let atomics = |n: usize, stride: u32| {
        let mut lines = vec![format!("ffffffff 1 R1 ATOMS.ADD 1 R2 4 1 0x0 {stride}"); n];
        lines.push("ffffffff 0 EXIT 0 0".to_string());
        common::run_grid(&config, 70, 1, 1, |_, _| lines.clone())
    };
    let per_atomic = |stride: u32| (atomics(32, stride).cycles - atomics(16, stride).cycles) as f64 / 16.0;
    let free = per_atomic(4);
    let latency = f64::from(config.l1.shmem_latency_cycles);
    assert!(free >= latency, "{free} cycles per conflict-free atomic, under the {latency}-cycle shared-memory latency");
    let report = atomics(16, 4);
    let (l1, l2) = (&report.l1d.atomics, &report.l2.atomics);
    assert_eq!((l1.miss + l1.hit + l1.sector_miss, l2.miss + l2.hit + l2.sector_miss), (0, 0), "nothing leaves the SM");
    let conflicted = per_atomic(128);
    assert!((conflicted - free - 31.0).abs() < 0.5, "a 32-way conflict: {conflicted} vs {free} cycles per atomic");
    // Issue 41: the cycles GPGPU-Sim counts as `gpgpu_n_shmem_bkconflict`, 31 a 32-way access.
    assert_eq!(report.shmem_bank_conflict_cycles, 0, "32 words in 32 banks");
    assert_eq!(atomics(16, 128).shmem_bank_conflict_cycles, 16 * 31, "32 words in one bank");
}

#[test]
fn a_run_that_can_never_issue_again_stops_as_gpgpu_sims_deadlock_check_stops_it() {
    // The GTX 1080 `accelsim-config` enables specialized unit 1 for Volta
    // SASS's `BRA` and gives the generic operand collectors, the only ones
    // that feed specialized units, no units: a generated loop's `BRA` can
    // never leave its `ID_OC` register, and the warps retry it every cycle.
    // GPGPU-Sim stops such a run at its next 50,000-cycle progress check
    // with no instruction since the last; so does the timing model, saying
    // why, where it used to run forever.
    let config = gtx1080::config();
    let report = simulate_generated(&config, SimOptions::default(), &"maxflops:size=1".parse().unwrap()).unwrap();
    assert!(report.cycles >= 50_000 && report.cycles <= 100_000, "{} cycles", report.cycles);
    assert!(report.diagnostics.iter().any(|d| d.contains("deadlock")), "{:?}", report.diagnostics);
    // A loop-free kernel on the same config runs to its end.
    let vecadd = simulate_generated(&config, SimOptions::default(), &"vecadd:size=16".parse().unwrap()).unwrap();
    assert!(vecadd.diagnostics.iter().all(|d| !d.contains("deadlock")), "{:?}", vecadd.diagnostics);
}

/// `-gpgpu_flush_l1_cache`: an SM's L1 is emptied once the SM has no CTA,
/// so a second kernel's load of what the first loaded misses in the L1 of
/// the one SM; without the flush it hits. The flush looks only at the SMs
/// that ended a cycle idle with a used L1 (`Gpu::flush_idle_l1s`): one it
/// passed over would keep its lines and hit.
#[test]
fn an_sm_with_no_cta_has_its_l1_flushed() {
    let load =
        |_, _| vec!["00000001 1 R2 LDG.E 1 R4 4 1 0x7f2b2d500400 4".to_string(), "ffffffff 0 EXIT 0 0".to_string()];
    for (flush, hits) in [(1, 0), (0, 1)] {
        let config = qv100_with(&format!("-gpgpu_n_clusters 1\n-gpgpu_flush_l1_cache {flush}\n"));
        let kernels = (1..=2).map(|id| common::grid_trace(id, 70, 1, 1, load)).collect();
        let mut simulation = Simulation::new(&config, SimOptions::default(), common::kernels_workload(kernels));
        simulation.run_until(Cycle(u64::MAX));
        let reads = simulation.report().l1d.reads;
        assert_eq!((reads.miss, reads.hit), (2 - hits, hits), "-gpgpu_flush_l1_cache {flush}");
    }
}
