//! What crosses the worker boundary survives gloo-worker's codec (bincode,
//! which is not self-describing: a field skipped when serializing cannot be
//! read back, and the page would panic on the message). A report and a
//! snapshot of a chiplet GPU and of a monolithic one, simulated here.

use gloo_worker::{Bincode, Codec};
use warplab_lab::{
    GenSpec, GeneratedWorkload, SimOptions, SimReport, Simulation, Snapshot, preset_config, simulate_generated,
};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn round_trip<T: serde::Serialize + for<'de> serde::Deserialize<'de>>(value: &T) -> T {
    Bincode::decode(Bincode::encode(value))
}

#[wasm_bindgen_test]
fn reports_and_snapshots_of_chiplet_and_monolithic_gpus_cross_the_worker_boundary() {
    let spec: GenSpec = "vecadd:size=4".parse().expect("a spec");
    for name in ["QV100", "H100"] {
        let config = preset_config(name).expect("a preset").1;
        let report: SimReport = simulate_generated(&config, SimOptions::default(), &spec).expect("runs");
        assert_eq!(report.chiplets.is_some(), name == "H100");
        assert_eq!(round_trip(&report), report, "{name}'s report");
        let workload = GeneratedWorkload::new(&spec, &config).expect("generates");
        let snapshot: Snapshot = Simulation::new(&config, SimOptions::default(), workload).snapshot();
        assert_eq!(snapshot.links.is_empty(), name == "QV100");
        assert_eq!(round_trip(&snapshot), snapshot, "{name}'s snapshot");
    }
}
