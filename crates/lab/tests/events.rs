//! The event stream and snapshots of the timing model (issue 6), natively
//! and in headless Chromium: exactly the expected CTA launches and
//! completions, one `Issued` event per warp instruction, balanced MSHR and
//! queue events, the window and bound respected, stepping by events, and
//! runs whose cycles do not depend on whether anything was recorded.

use std::collections::BTreeMap;

use warplab_lab::{
    Cycle, Event, EventKind, EventWindow, GenSpec, GeneratedWorkload, GpuConfig, Queue, SimOptions, SimReport,
    Simulation, Until, WarpState, preset_config,
};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn config(name: &str) -> GpuConfig {
    preset_config(name).expect("a bundled preset").1
}

fn workload(spec: &str, config: &GpuConfig) -> GeneratedWorkload {
    let spec: GenSpec = spec.parse().expect("a valid spec");
    GeneratedWorkload::new(&spec, config).expect("the spec fits the config")
}

/// Runs `spec` to its end recording `window`, in slices of `slice` cycles
/// (taking the events after each); returns the events and the report.
fn record(config: &GpuConfig, spec: &str, window: Option<EventWindow>, slice: u64) -> (Vec<Event>, u64, SimReport) {
    record_with(SimOptions::default(), config, spec, window, slice)
}

fn record_with(
    options: SimOptions,
    config: &GpuConfig,
    spec: &str,
    window: Option<EventWindow>,
    slice: u64,
) -> (Vec<Event>, u64, SimReport) {
    let mut simulation = Simulation::new(config, options, workload(spec, config));
    simulation.set_event_window(window);
    let (mut events, mut dropped) = (Vec::new(), 0);
    loop {
        let progress = simulation.run_until(Cycle(simulation.progress().cycle.0 + slice));
        let batch = simulation.take_events();
        events.extend(batch.events);
        dropped += batch.dropped;
        if progress.finished {
            return (events, dropped, simulation.report());
        }
    }
}

fn everything() -> Option<EventWindow> {
    Some(EventWindow::cycles(0..u64::MAX))
}

/// vecadd with 8 × 1024 elements on QV100: 32 CTAs of 256 threads, one per SM
/// (80 SMs), all launched in the first cycle after the kernel's launch latency.
/// The SMs' cycles on several threads record the same events in the same
/// order (each SM's wait in its port until the SMs' cycles end), with the
/// bound on held events falling at the same event.
#[wasm_bindgen_test(unsupported = test)]
fn the_event_stream_is_the_same_on_any_number_of_threads() {
    let qv100 = config("QV100");
    let bounded = EventWindow { max_events: 2_000, ..EventWindow::cycles(5_000..7_000) };
    for (spec, window) in [("histogram:size=2", everything()), ("strided:gs=32,size=4", Some(bounded))] {
        let one = record_with(SimOptions::default(), &qv100, spec, window.clone(), 700);
        assert!(one.0.iter().any(|e| matches!(e.kind, EventKind::Left { queue: Queue::ReplyNetwork, .. })), "{spec}");
        assert_eq!(one.1 > 0, window.as_ref().is_some_and(|w| w.max_events == 2_000), "{spec}: dropped {}", one.1);
        for threads in [2, 3] {
            let many = record_with(SimOptions { threads, ..SimOptions::default() }, &qv100, spec, window.clone(), 700);
            assert_eq!(one, many, "{spec} on {threads} threads");
        }
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn a_small_kernel_has_exactly_its_launches_and_completions() {
    let qv100 = config("QV100");
    let (events, dropped, report) = record(&qv100, "vecadd:size=8", everything(), 1_000);
    assert_eq!(dropped, 0);
    // The kernel starts in cycle 1; its CTAs are issued at the end of the cycle
    // in which the latency has passed, so they appear in the next
    // (GPGPU-Sim's `gpgpu_sim::cycle`).
    let launch_cycle = 2 + u64::from(qv100.kernels.kernel_launch_latency_cycles);
    let launches: Vec<(u64, EventKind)> = events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::CtaLaunched { .. }))
        .map(|e| (e.cycle, e.kind.clone()))
        .collect();
    let expected: Vec<(u64, EventKind)> = (0..32)
        .map(|i| (launch_cycle, EventKind::CtaLaunched { sm: i, kernel: 0, cta: u64::from(i), slot: 0 }))
        .collect();
    assert_eq!(launches, expected);
    let mut finished: Vec<(u32, u64, u16)> = events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::CtaFinished { sm, kernel: 0, cta, slot }
                if e.cycle > launch_cycle && e.cycle <= report.cycles =>
            {
                Some((sm, cta, slot))
            }
            _ => None,
        })
        .collect();
    finished.sort_unstable();
    assert_eq!(finished, (0..32).map(|i| (i, u64::from(i), 0)).collect::<Vec<_>>());
    let issued = events.iter().filter(|e| matches!(e.kind, EventKind::Issued { .. })).count() as u64;
    assert_eq!(issued, report.warp_insts, "one Issued event per warp instruction");
}

#[wasm_bindgen_test(unsupported = test)]
fn mshr_and_queue_events_balance_and_every_warp_ends_empty() {
    let qv100 = config("QV100");
    let (events, _, report) = record(&qv100, "vecadd:size=8", everything(), 1_000);
    let mut counts: BTreeMap<String, i64> = BTreeMap::new();
    for event in &events {
        let (key, delta) = match &event.kind {
            EventKind::MshrAllocated { .. } => ("mshr".to_owned(), 1),
            EventKind::MshrFreed { .. } => ("mshr".to_owned(), -1),
            EventKind::Entered { queue, .. } => (format!("{queue:?}"), 1),
            EventKind::Left { queue, .. } => (format!("{queue:?}"), -1),
            _ => continue,
        };
        *counts.entry(key).or_default() += delta;
    }
    assert_eq!(counts.len(), 5, "MSHRs and four queues: {counts:?}");
    assert!(counts.values().all(|&open| open == 0), "every entry left: {counts:?}");
    let allocated = events.iter().filter(|e| matches!(e.kind, EventKind::MshrAllocated { .. })).count() as u64;
    assert_eq!(allocated, report.l1d.reads.miss + report.l1d.reads.sector_miss, "one entry per L1 read miss");
    let dram_reads = events.iter().filter(|e| matches!(e.kind, EventKind::Entered { queue: Queue::Dram, .. })).count();
    assert!(dram_reads > 0);
    // 32 CTAs × 8 warps: each warp's last state change empties its slot.
    let emptied =
        events.iter().filter(|e| matches!(e.kind, EventKind::WarpState { state: WarpState::Empty, .. })).count();
    assert_eq!(emptied, 32 * 8);
}

#[wasm_bindgen_test(unsupported = test)]
fn recording_changes_no_cycle_of_the_run() {
    let pascal = config("mdm-pascal-28sm");
    let spec = "strided:gs=32,size=28";
    let (_, _, quiet) = record(&pascal, spec, None, 5_000);
    let window = EventWindow { cycles: 5_500..7_000, sms: 2..5, max_events: 50_000 };
    let (events, _, recorded) = record(&pascal, spec, Some(window), 5_000);
    assert_eq!(serde_json::to_string(&recorded).ok(), serde_json::to_string(&quiet).ok());
    assert!(!events.is_empty());
    assert!(events.iter().all(|e| (5_500..7_000).contains(&e.cycle)), "only the window's cycles");
    let sm_of = |kind: &EventKind| match *kind {
        EventKind::CtaLaunched { sm, .. }
        | EventKind::CtaFinished { sm, .. }
        | EventKind::Issued { sm, .. }
        | EventKind::WarpState { sm, .. }
        | EventKind::MshrAllocated { sm, .. }
        | EventKind::MshrFreed { sm, .. } => Some(sm),
        EventKind::Entered { .. } | EventKind::Left { .. } => None,
    };
    assert!(events.iter().filter_map(|e| sm_of(&e.kind)).all(|sm| (2..5).contains(&sm)), "only the window's SMs");
    assert!(events.iter().any(|e| sm_of(&e.kind).is_none()), "memory-side events of every SM's requests");
}

#[wasm_bindgen_test(unsupported = test)]
fn run_until_an_event_stops_at_the_cycle_it_happened() {
    let qv100 = config("QV100");
    let mut simulation = Simulation::new(&qv100, SimOptions::default(), workload("vecadd:size=8", &qv100));
    simulation.set_event_window(everything());
    let progress = simulation.run_until(Until::events(1, Cycle(u64::MAX)));
    let launch_cycle = 2 + u64::from(qv100.kernels.kernel_launch_latency_cycles);
    assert_eq!(progress.cycle, Cycle(launch_cycle));
    let batch = simulation.take_events();
    assert_eq!(batch.events[0].kind, EventKind::CtaLaunched { sm: 0, kernel: 0, cta: 0, slot: 0 });
    // The next event-step moves on at least one cycle; a cycle bound wins over events that do not come.
    let next = simulation.run_until(Until::events(1, Cycle(u64::MAX)));
    assert!(next.cycle > progress.cycle);
    simulation.set_event_window(None);
    let bounded = simulation.run_until(Until::events(1, Cycle(next.cycle.0 + 10)));
    assert_eq!(bounded.cycle, Cycle(next.cycle.0 + 10));
}

#[wasm_bindgen_test(unsupported = test)]
fn the_stream_is_bounded_and_counts_what_it_dropped() {
    let qv100 = config("QV100");
    let (all, _, _) = record(&qv100, "vecadd:size=1", everything(), u64::MAX);
    let window = Some(EventWindow { max_events: 100, ..EventWindow::cycles(0..u64::MAX) });
    let (kept, dropped, _) = record(&qv100, "vecadd:size=1", window, u64::MAX);
    // The first 100 events, then only CTA launches and finishes, which the
    // bound never drops (a viewer needs them to place the rest).
    let placing = |e: &&Event| matches!(e.kind, EventKind::CtaLaunched { .. } | EventKind::CtaFinished { .. });
    let expected: Vec<Event> = all[..100].iter().chain(all[100..].iter().filter(placing)).cloned().collect();
    assert!(expected.len() > 100, "some launches or finishes come after the first 100 events");
    assert_eq!(kept, expected);
    assert_eq!(dropped, (all.len() - expected.len()) as u64);
}

#[wasm_bindgen_test(unsupported = test)]
fn snapshots_show_resident_warps_mshrs_and_queues() {
    let pascal = config("mdm-pascal-28sm");
    let mut simulation = Simulation::new(&pascal, SimOptions::default(), workload("strided:gs=32,size=28", &pascal));
    simulation.run_until(Cycle(6_000));
    let snapshot = simulation.snapshot();
    assert_eq!(snapshot.cycle, 6_000);
    assert_eq!(snapshot.sms.len(), 28);
    for sm in &snapshot.sms {
        let live = sm.warps.iter().filter(|w| w.state != WarpState::Empty).count() as u32;
        assert_eq!(live, sm.ctas.iter().map(|c| c.live_warps).sum::<u32>());
        assert!(sm.mshrs_in_use <= sm.mshrs);
    }
    assert!(snapshot.sms.iter().any(|sm| sm.mshrs_in_use > 0), "a memory-divergent kernel holds MSHRs");
    let waiting = snapshot.sms.iter().flat_map(|sm| &sm.warps).filter(|w| w.state == WarpState::Memory).count();
    assert!(waiting > 0, "and its warps wait on memory");
    simulation.run_until(Cycle(u64::MAX));
    let end = simulation.snapshot();
    assert!(end.sms.iter().flat_map(|sm| &sm.warps).all(|w| w.state == WarpState::Empty));
    assert!(end.sms.iter().all(|sm| sm.mshrs_in_use == 0 && sm.miss_queue == 0));
    assert!(end.slices.iter().all(|s| s.to_l2.len + s.to_dram.len + s.mshrs_in_use.len == 0));
    assert_eq!(end.thread_insts, simulation.report().thread_insts);
}
