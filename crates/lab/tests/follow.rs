//! Following one request (issue 42): an SM's L1 read misses followed hop by
//! hop from the event stream, natively and in headless Chromium: every hop in
//! its order and at a cycle no earlier than the one before, a cold miss
//! through DRAM, and a run whose report is the same followed or not.

use warplab_lab::follow::{Follower, Journey, Step};
use warplab_lab::{Cycle, EventWindow, GenSpec, GeneratedWorkload, GpuConfig, SimOptions, Simulation, preset_config};
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
