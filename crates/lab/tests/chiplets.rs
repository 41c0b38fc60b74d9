//! The chiplet model against figures written from the configuration: a
//! pointer chase to a slice on another chiplet costs the local L2 latency plus
//! the link's round trip, a stream whose every access is remote is held to
//! the link's bandwidth, and traffic that stays on its chiplet never touches
//! the links. docs/validation.md writes out each formula.

mod common;

use warplab_config::{GpuConfig, Topology};
use warplab_lab::{
    GenSpec, ModelKind, ProfileOptions, SimOptions, SimReport, predict, preset_config, profile_generated,
    simulate_generated,
};
use warplab_uarch::latency::{IdleLatencies, link_round_trip_cycles};

/// Addresses below this are on chiplet 0, from it to twice it on chiplet 1
/// (the configs below interleave the chiplets in 1-GiB stretches).
const STRETCH: u64 = 1 << 30;
const LINE: u64 = 128;

/// QV100 split into `chiplets` chiplets, the address space dealt out in 1-GiB
/// stretches (so a region's home is chosen by its address), with `extra`
/// options on top.
fn chiplet_qv100(chiplets: u32, extra: &str) -> GpuConfig {
    let base = preset_config("QV100").unwrap().1;
    let mut files = base.to_files();
    files.push((
        "chiplets.config".to_owned(),
        format!(
            "-gpgpu_n_chiplet_partition {chiplets}\n-warplab_chiplet_interleave_bytes {STRETCH}\n\
             -warplab_chiplet_link_gbps 64\n{extra}"
        ),
    ));
    GpuConfig::read(files.iter().map(|(n, t)| (n.as_str(), t.as_str()))).unwrap()
}

/// A grid of hand-written warps, traced for Volta.
fn run_grid(config: &GpuConfig, ctas: u32, warps: u32, body: impl Fn(u32, u32) -> Vec<String>) -> SimReport {
    common::run_grid(config, 70, ctas, warps, body)
}

#[test]
fn the_core_model_times_a_pointer_chase_across_the_chiplets_as_the_run_does() {
    // SM90_H100: two chiplets, all_to_all, 8-KB stretches: about half the
    // chase's L2 hits are homed on the other chiplet, each a link round trip
    // (two 100-cycle latencies) more, which warplab's core model adds to
    // L_minLLC as the profile averages it over the requests
    // (`KernelWork::link_round_trip`). MDM's models know no chiplets.
    let config = preset_config("H100").unwrap().1;
    let spec: GenSpec = "pchase-l2:size=8".parse().unwrap();
    let run = simulate_generated(&config, SimOptions::default(), &spec).unwrap();
    let report = predict(&profile_generated(&config, &spec, ProfileOptions::default()).unwrap(), &config);
    let ipc = |model| report.models[&model].ipc;
    assert_within(ipc(ModelKind::Warplab), run.ipc, 0.05, "the core model on H100's L2 pointer chase");
    assert!(ipc(ModelKind::Mdm) > 1.1 * run.ipc, "MDM {} against the run's {}", ipc(ModelKind::Mdm), run.ipc);
}

#[test]
fn the_profile_charges_each_request_the_trip_to_its_home_chiplet() {
    // Lab 3's steps 3e and 3f: vecadd's 40 CTAs of 1,024 threads, one on
    // each SM of chiplet 0 of a two-chiplet QV100; its arrays are homed on
    // chiplet 0 with 1-GiB stretches and on chiplet 1 with 64-GiB ones. The
    // core model adds nothing in the first and a whole link round trip to
    // every request in the second.
    let spec: GenSpec = "vecadd:size=40,block=1024".parse().unwrap();
    let trip = |stretch: u64| {
        let config = chiplet_qv100(2, &format!("-warplab_chiplet_interleave_bytes {stretch}"));
        let profile = profile_generated(&config, &spec, ProfileOptions::default()).unwrap();
        (profile.kernels[0].work.link_round_trip, link_round_trip_cycles(&config, 1))
    };
    assert_eq!(trip(1 << 30).0, 0.0);
    let (remote, one_hop) = trip(1 << 36);
    assert!((remote - one_hop).abs() < 1e-9, "{remote} against a link round trip of {one_hop}");
}

#[test]
fn the_core_model_holds_a_kernel_whose_data_is_all_remote_to_the_links_bandwidth() {
    // Lab 3's step 3f: every request and reply crosses a 64-GB/s link, which
    // sets the run's pace; the core model's network floor takes the busiest
    // link's bytes at its bandwidth (measured: 42.5 against the run's 41.6).
    let spec: GenSpec = "vecadd:size=40,block=1024".parse().unwrap();
    let config = chiplet_qv100(2, "-warplab_chiplet_interleave_bytes 68719476736");
    let run = simulate_generated(&config, SimOptions::default(), &spec).unwrap();
    let report = predict(&profile_generated(&config, &spec, ProfileOptions::default()).unwrap(), &config);
    assert_within(report.models[&ModelKind::Warplab].ipc, run.ipc, 0.05, "the core model on Lab 3's step 3f");
    let ipc = |model| report.models[&model].ipc;
    assert!(ipc(ModelKind::Mdm) > 2.0 * run.ipc, "MDM, knowing no links: {}", ipc(ModelKind::Mdm));
}

/// One lane chasing `loads` pointers round a ring of `lines` lines from
/// `base`: each load's address is the one before it plus a line, so the
/// loads depend on each other through R2.
fn chase(base: u64, lines: u64, loads: u64) -> Vec<String> {
    let mut out: Vec<String> =
        (0..loads).map(|k| format!("00000001 1 R2 LDG.E.64 1 R2 8 0 {:#x}", base + (k % lines) * LINE)).collect();
    out.push("ffffffff 0 EXIT 0 0".to_owned());
    out
}

/// Cycles per load of a chase over a footprint 4× the L1 (so every load
/// misses the L1 and hits the L2 once warm), from the difference of two runs.
fn cycles_per_l2_load(config: &GpuConfig, base: u64) -> f64 {
    // 1 MiB: 8× QV100's largest L1 carve-out, a sixth of its L2.
    let lines = (1 << 20) / LINE;
    let short = run_grid(config, 1, 1, |_, _| chase(base, lines, 2 * lines));
    let long = run_grid(config, 1, 1, |_, _| chase(base, lines, 3 * lines));
    (long.cycles - short.cycles) as f64 / lines as f64
}

fn assert_within(measured: f64, expected: f64, tolerance: f64, what: &str) {
    let error = (measured - expected).abs() / expected;
    assert!(error <= tolerance, "{what}: measured {measured:.2}, formula {expected:.2} ({:.1}% off)", 100.0 * error);
}

#[test]
fn a_remote_pointer_chase_costs_the_local_latency_plus_the_links_round_trip() {
    for topology in ["all_to_all", "ring"] {
        let config = chiplet_qv100(4, &format!("-warplab_chiplet_topology {topology}"));
        // The lone CTA runs on SM 0, on chiplet 0.
        let local = cycles_per_l2_load(&config, 0);
        let idle = IdleLatencies::of(&config);
        assert_within(local, idle.l2_hit, 0.02, &format!("{topology}: a local L2 hit"));
        for (home, hops) in [(1u64, 1u32), (2, 2)] {
            let hops = if config.chiplets.topology == Topology::Ring { hops } else { 1 };
            let remote = cycles_per_l2_load(&config, home * STRETCH);
            let expected = idle.l2_hit + link_round_trip_cycles(&config, hops);
            assert_within(remote, expected, 0.02, &format!("{topology}: an L2 hit on chiplet {home}"));
        }
    }
}

/// Warps of `ctas` CTAs streaming 32-B sectors (one lane a load, 4 B) over
/// a region of `bytes` from `base`, each warp its own stretch, every load
/// independent.
fn stream(config: &GpuConfig, ctas: u32, base: u64, bytes: u64) -> SimReport {
    let warps = 8;
    let per_warp = bytes / u64::from(ctas * warps);
    run_grid(config, ctas, warps, |cta, warp| {
        let start = base + u64::from(cta * warps + warp) * per_warp;
        let mut lines: Vec<String> = (0..per_warp / 32)
            .map(|k| format!("00000001 1 R{} LDG.E 1 R20 4 0 {:#x}", 2 + k % 8, start + 32 * k))
            .collect();
        lines.push("ffffffff 0 EXIT 0 0".to_owned());
        lines
    })
}

/// Bytes of data per second a stream of 32-B sectors gets through one link
/// direction: each sector comes back as a 40-B packet (header and data), at
/// the link bandwidth, unless the link's queue cannot cover the bandwidth ×
/// latency: a packet holds its queue entry while it is sent and for the
/// latency, so a queue of `Q` entries passes at most `Q` packets per
/// (send + latency) interconnect cycles.
fn stream_bound(config: &GpuConfig) -> f64 {
    let c = &config.chiplets;
    let link = c.link_bytes_per_second(&config.memory, &config.clocks) as f64;
    let icnt_hz = config.clocks.icnt.khz() as f64 * 1000.0;
    let latency = c.latency_icnt_cycles(&config.clocks) as f64;
    let send = (40.0 * icnt_hz / link).ceil();
    let queue = f64::from(c.link_queue_packets(&config.memory));
    (link * 32.0 / 40.0).min(queue * 32.0 / (send + latency) * icnt_hz)
}

/// The data rate of `bytes` streamed from chiplet 1's memory by every SM of
/// chiplet 0, checked against [`stream_bound`].
fn check_remote_stream(config: &GpuConfig, what: &str) {
    // A CTA lands on each SM of chiplet 0 (GPGPU-Sim's issue order, SM 0
    // first); the data lives on chiplet 1, so every reply crosses chiplet 1's
    // outgoing link and chiplet 0's incoming one.
    let per_chiplet = config.n_sms() / config.chiplets.count;
    let bytes = 16 << 20;
    let remote = stream(config, per_chiplet, STRETCH, bytes);
    let chiplets = remote.chiplets.as_ref().expect("a chiplet report");
    assert_eq!(chiplets.remote_l2_requests, chiplets.l2_requests, "{what}: every access is remote");
    assert_eq!(chiplets.remote_share, 1.0);
    let seconds = remote.cycles as f64 / (config.clocks.core.khz() as f64 * 1000.0);
    let data_rate = bytes as f64 / seconds;
    let bound = stream_bound(config);
    assert!(data_rate <= bound * 1.001, "{what}: {data_rate:.3e} B/s beyond the link's {bound:.3e}");
    assert!(
        data_rate >= 0.9 * bound,
        "{what}: {data_rate:.3e} B/s: the link should bound it ({bound:.3e}); {} cycles, {chiplets:?}",
        remote.cycles,
    );
}

#[test]
fn a_stream_whose_every_access_is_remote_is_held_to_the_link_bandwidth() {
    let config = chiplet_qv100(2, "");
    check_remote_stream(&config, "64 GB/s");
    // A queue of one entry per slice (32 a link) cannot cover 64 GB/s × 100
    // cycles: the queue bounds the stream instead.
    check_remote_stream(&chiplet_qv100(2, "-inter_chiplet_queue_size 1"), "queue-bound");
    // The same stream from chiplet 0's own memory never touches a link and is faster.
    let remote = stream(&config, 40, STRETCH, 16 << 20);
    let local = stream(&config, 40, 0, 16 << 20);
    let local_chiplets = local.chiplets.as_ref().expect("a chiplet report");
    assert_eq!((local_chiplets.remote_l2_requests, local_chiplets.link_bytes), (0, 0));
    assert!(local.cycles * 2 < remote.cycles, "local {} cycles, remote {}", local.cycles, remote.cycles);
}

#[test]
fn a_monolithic_gpu_reports_no_chiplets() {
    let config = preset_config("QV100").unwrap().1;
    let report = run_grid(&config, 1, 1, |_, _| chase(0, 4, 8));
    assert!(report.chiplets.is_none());
    let json = serde_json::to_value(&report).unwrap();
    assert!(json["chiplets"].is_null(), "{}", json["chiplets"]);
}

/// Sleeping, clock jumps and threads change nothing on a chiplet GPU either:
/// the links report when their next packet leaves, so the clocks never jump
/// past it. Generated workloads spread over every chiplet, on both topologies.
#[test]
fn sleeping_clock_jumps_and_threads_change_nothing_with_chiplets() {
    let ticked = SimOptions { tick_every_cycle: true, ..SimOptions::default() };
    for (topology, spec) in [("all_to_all", "vecadd:size=2"), ("ring", "pchase-dram:size=1"), ("ring", "bfs:size=1")] {
        let mut config = chiplet_qv100(4, &format!("-warplab_chiplet_topology {topology}"));
        config.chiplets.interleave_bytes = 4096;
        let spec: GenSpec = spec.parse().unwrap();
        let fast = simulate_generated(&config, SimOptions::default(), &spec).unwrap();
        assert!(fast.chiplets.as_ref().is_some_and(|c| c.remote_l2_requests > 0), "{spec}: some traffic crosses");
        assert_eq!(fast, simulate_generated(&config, ticked, &spec).unwrap(), "{spec}: ticked");
        let threads = SimOptions { threads: 3, ..SimOptions::default() };
        assert_eq!(fast, simulate_generated(&config, threads, &spec).unwrap(), "{spec}: 3 threads");
    }
}
