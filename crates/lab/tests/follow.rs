//! Following one request (issue 42): an SM's L1 read misses followed hop by
//! hop from the event stream, natively and in headless Chromium: every hop in
//! its order and at a cycle no earlier than the one before, a cold miss
//! through DRAM, a run whose report is the same followed or not, and a
//! chosen load's request: issued by a warp at that PC, the sector that warp
//! reads, then every hop home.

use warplab_lab::follow::loads::{SharedLoadBook, booked};
use warplab_lab::follow::{Follower, Journey, Step};
use warplab_lab::{
    Cycle, EventKind, EventWindow, GenSpec, GeneratedWorkload, GpuConfig, SimOptions, Simulation, preset_config,
};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// The hops of a miss the L2 had, and of one it fetched from DRAM.
const L2_HIT: [Step; 7] = [
    Step::L1Miss,
    Step::RequestCrossbar,
    Step::AtL2Slice,
    Step::L2Lookup,
    Step::ReplyCrossbar,
    Step::AtSm,
    Step::MshrFreed,
];
const L2_MISS: [Step; 9] = [
    Step::L1Miss,
    Step::RequestCrossbar,
    Step::AtL2Slice,
    Step::L2Lookup,
    Step::ToDram,
    Step::FromDram,
    Step::ReplyCrossbar,
    Step::AtSm,
    Step::MshrFreed,
];

fn config() -> GpuConfig {
    preset_config("mdm-pascal-28sm").expect("a bundled preset").1
}

fn simulation(config: &GpuConfig, spec: &str, sm: u32) -> Simulation<'static> {
    let spec: GenSpec = spec.parse().expect("a valid spec");
    let workload = GeneratedWorkload::new(&spec, config).expect("the spec fits the config");
    let mut simulation = Simulation::new(config, SimOptions::default(), workload);
    simulation.set_event_window(Some(EventWindow { cycles: 0..u64::MAX, sms: sm..sm + 1, max_events: 1_000_000 }));
    simulation
}

/// Follows SM `sm`'s L1 misses one after the other until the run ends, in
/// slices of 64 cycles; returns every journey that came home, and the
/// run's cycles.
fn follow_all(config: &GpuConfig, spec: &str, sm: u32) -> (Vec<Journey>, u64) {
    let mut simulation = simulation(config, spec, sm);
    let mut follower = Follower::new(config, sm);
    let mut journeys = Vec::new();
    while !simulation.progress().finished {
        simulation.run_until(Cycle(simulation.progress().cycle.0 + 64));
        for event in simulation.take_events().events {
            follower.observe(&event);
            if follower.done() {
                journeys.extend(follower.journey().cloned());
                follower = Follower::new(config, sm);
            }
        }
    }
    (journeys, simulation.progress().cycle.0)
}

fn check_order(journey: &Journey) {
    let steps: Vec<Step> = journey.hops.iter().map(|hop| hop.step).collect();
    assert!(steps == L2_HIT || steps == L2_MISS, "{journey:?}");
    assert!(journey.hops.windows(2).all(|pair| pair[0].cycle <= pair[1].cycle), "{journey:?}");
    assert_eq!(journey.l2_hit(), Some(steps == L2_HIT));
}

#[wasm_bindgen_test(unsupported = test)]
fn the_first_miss_of_a_cold_l1_goes_through_every_hop_to_dram_and_back() {
    let config = config();
    let (journeys, _) = follow_all(&config, "strided:gs=32,size=28", 3);
    let first = journeys.first().expect("SM 3 missed in its L1");
    let steps: Vec<Step> = first.hops.iter().map(|hop| hop.step).collect();
    assert_eq!(steps, L2_MISS, "a cold L2 fetches from DRAM: {first:?}");
    check_order(first);
    assert!(first.slice < config.memory.n_channels * config.memory.sub_partitions_per_channel);
    let round_trip = first.hops[8].cycle - first.hops[0].cycle;
    assert!(round_trip > 100, "a DRAM round trip takes hundreds of cycles, not {round_trip}");
}

#[wasm_bindgen_test(unsupported = test)]
fn every_followed_miss_comes_home_in_order_and_following_changes_nothing() {
    let config = config();
    let (journeys, cycles) = follow_all(&config, "strided:gs=8,size=56", 0);
    assert!(journeys.len() > 10, "strided's SM 0 misses many times: {}", journeys.len());
    journeys.iter().for_each(check_order);
    let spec: GenSpec = "strided:gs=8,size=56".parse().expect("a valid spec");
    let unrecorded = warplab_lab::simulate_generated(&config, SimOptions::default(), &spec).expect("strided runs");
    assert_eq!(cycles, unrecorded.cycles, "recording and following change no cycle");
}

/// Follows the load at the `nth` global load PC of `spec` on SM `sm`, as the
/// worker does: the workload booked, the SM's warps placed before each
/// slice's events; returns the journey, the booked PC, and the `Issued`
/// events seen (cycle, warp, pc).
fn follow_load(
    config: &GpuConfig,
    spec: &str,
    sm: u32,
    nth: usize,
) -> (Journey, u64, Vec<(u64, u32, u64)>, SharedLoadBook) {
    let spec: GenSpec = spec.parse().expect("a valid spec");
    let book = SharedLoadBook::default();
    let workload = GeneratedWorkload::new(&spec, config).expect("the spec fits the config");
    let workload = booked(Box::new(workload), SharedLoadBook::clone(&book), config.cores.warp_size);
    let mut simulation = Simulation::new(config, SimOptions::default(), workload);
    simulation.set_event_window(Some(EventWindow { cycles: 0..u64::MAX, sms: sm..sm + 1, max_events: 1_000_000 }));
    // The book fills as the simulator takes CTAs, after the launch latency.
    while book.borrow().loads().len() <= nth && simulation.progress().cycle.0 < 10_000 {
        simulation.run_until(Cycle(simulation.progress().cycle.0 + 1));
    }
    let pc = book.borrow().loads().get(nth).expect("the kernel has that many loads").pc;
    let mut follower = Follower::for_load(config, sm, pc, SharedLoadBook::clone(&book));
    let mut issued = Vec::new();
    while !follower.done() && !simulation.progress().finished {
        simulation.run_until(Cycle(simulation.progress().cycle.0 + 32));
        follower.place(&simulation.snapshot().sms[sm as usize]);
        for event in simulation.take_events().events {
            if let EventKind::Issued { warp, pc, .. } = event.kind {
                issued.push((event.cycle, warp, pc));
            }
            follower.observe(&event);
        }
    }
    (follower.journey().cloned().expect("the load missed"), pc, issued, book)
}

#[wasm_bindgen_test(unsupported = test)]
fn a_chosen_loads_request_is_the_sector_its_warp_reads_issued_then_followed_home() {
    let config = config();
    for nth in [0, 1] {
        let (journey, pc, issued, book) = follow_load(&config, "vecadd:size=28", 5, nth);
        let load = journey.load.expect("the journey names its load");
        assert_eq!(load.pc, pc, "the load chosen, not another");
        let issue = journey.hops[0];
        assert_eq!(issue.step, Step::Issued);
        assert!(
            issued.contains(&(issue.cycle, load.warp, pc)),
            "warp {} issued PC {pc:#x} at {}",
            load.warp,
            issue.cycle
        );
        check_order(&Journey { hops: journey.hops[1..].to_vec(), ..journey.clone() });
        assert!(journey.hops[1].cycle > issue.cycle, "the L1 misses after the issue: {journey:?}");
        let book = book.borrow();
        let sectors = book.sectors(0, load.cta, load.warp, pc).expect("the CTA is in the book");
        assert!(sectors.contains(&journey.address), "{:#x} is one of the warp's sectors {sectors:x?}", journey.address);
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn the_two_loads_of_vecadd_read_different_arrays() {
    let config = config();
    let (first, ..) = follow_load(&config, "vecadd:size=28", 5, 0);
    let (second, ..) = follow_load(&config, "vecadd:size=28", 5, 1);
    assert_ne!(first.load.map(|l| l.pc), second.load.map(|l| l.pc));
    assert_ne!(first.address, second.address, "each load's own sector");
}

#[wasm_bindgen_test(unsupported = test)]
fn booking_the_loads_changes_no_cycle() {
    let config = config();
    let spec: GenSpec = "vecadd:size=28".parse().expect("a valid spec");
    let book = SharedLoadBook::default();
    let workload = GeneratedWorkload::new(&spec, &config).expect("the spec fits the config");
    let workload = booked(Box::new(workload), SharedLoadBook::clone(&book), config.cores.warp_size);
    let mut simulation = Simulation::new(&config, SimOptions::default(), workload);
    simulation.run_until(Cycle(u64::MAX));
    let unbooked = warplab_lab::simulate_generated(&config, SimOptions::default(), &spec).expect("vecadd runs");
    assert_eq!(simulation.progress().cycle.0, unbooked.cycles);
    let pcs: Vec<u64> = book.borrow().loads().iter().map(|load| load.pc).collect();
    assert_eq!(pcs.len(), 2, "vecadd loads a and b: {pcs:x?}");
}
