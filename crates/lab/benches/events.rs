//! What the event stream costs (issue 6): the same run with no window, with
//! a window that never opens (every hook tests its flag; the "events off"
//! path), with the watched SM of the browser's slow play (one SM recorded
//! every cycle, no clock jumps), and with every SM recorded.
//!
//! Whether the batch path pays for the hooks at all is measured against the
//! commit before them (docs/performance.md); here the four variants show what
//! recording costs when it is on. `cargo bench -p warplab-lab --bench events
//! -- --test` runs each once.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use warplab_lab::{Cycle, EventWindow, GenSpec, GeneratedWorkload, GpuConfig, SimOptions, Simulation, preset_config};

/// 4,096 × 1,024 elements of vecadd: 1,966,080 warp instructions.
const SPEC: &str = "vecadd:size=4096";

/// Runs `SPEC` with `window`, taking the events every 20,000 cycles as the
/// CLI does; returns the events recorded.
fn run(config: &GpuConfig, spec: &GenSpec, window: Option<EventWindow>) -> usize {
    let workload = GeneratedWorkload::new(spec, config).expect("the spec fits");
    let mut simulation = Simulation::new(config, SimOptions::default(), workload);
    simulation.set_event_window(window);
    let mut events = 0;
    loop {
        let progress = simulation.run_until(Cycle(simulation.progress().cycle.0 + 20_000));
        events += simulation.take_events().events.len();
        if progress.finished {
            return events;
        }
    }
}

fn events(c: &mut Criterion) {
    let config = preset_config("SM7_QV100").expect("bundled").1;
    let spec: GenSpec = SPEC.parse().expect("parses");
    let mut group = c.benchmark_group("events");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Elements(1_966_080));
    let never = EventWindow::cycles(u64::MAX - 1..u64::MAX);
    let one_sm = EventWindow { sms: 0..1, ..EventWindow::cycles(0..u64::MAX) };
    let every_sm = EventWindow::cycles(0..u64::MAX);
    let variants = [
        ("no window", None),
        ("window never open", Some(never)),
        ("one SM", Some(one_sm)),
        ("every SM", Some(every_sm)),
    ];
    for (name, window) in variants {
        group.bench_function(name, |b| b.iter(|| run(&config, black_box(&spec), window.clone())));
    }
    group.finish();
}

criterion_group!(benches, events);
criterion_main!(benches);
