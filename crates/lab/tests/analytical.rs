//! The analytical models through the facade, natively and in headless
//! Chromium: memory-divergent kernels are found divergent and coalesced ones
//! are not, a real trace profiles to its known instruction counts, and the
//! whole report (every model, every kernel) is bit-identical natively and in
//! wasm, pinned by an FNV-1a hash of its JSON.

mod gtx1080;

use std::io::Read;

use warplab_lab::{
    AnalyticalReport, GenSpec, GpuConfig, ModelKind, OpenRead, ProfileOptions, predict, preset_config,
    profile_generated, profile_trace,
};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn config(name: &str) -> GpuConfig {
    preset_config(name).expect("a bundled preset").1
}

fn analyze(config: &GpuConfig, spec: &str) -> AnalyticalReport {
    let spec: GenSpec = spec.parse().expect("a valid spec");
    let profile = profile_generated(config, &spec, ProfileOptions::default()).expect("the spec profiles");
    predict(&profile, config)
}

/// FNV-1a, 64 bits: fixed by its definition, unlike std's hashers.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

#[wasm_bindgen_test(unsupported = test)]
fn divergent_kernels_are_found_divergent() {
    let pascal = config("mdm-pascal-28sm");
    let divergent = analyze(&pascal, "strided:gs=32,size=28");
    let coalesced = analyze(&pascal, "strided:gs=1,size=28");
    let (d, c) = (&divergent.kernels[0], &coalesced.kernels[0]);
    assert!(d.md && !c.md, "MD: gs=32 {}, gs=1 {}", d.md, c.md);
    // Every one of gs=32's loads is divergent, none of gs=1's.
    assert!(d.dpki > 50.0 && c.dpki == 0.0, "DPKI {} vs {}", d.dpki, c.dpki);
    // MDM charges the divergent kernel's MSHR waits; the coalesced one has none.
    let mdm = |r: &AnalyticalReport| r.models[&ModelKind::Mdm];
    assert!(mdm(&divergent).cpi_stack.mshr > 1.0 && mdm(&coalesced).cpi_stack.mshr == 0.0);
    assert!(mdm(&divergent).ipc < mdm(&coalesced).ipc / 4.0);
    // GPUMech misses the batching: it predicts the divergent kernel far faster than MDM.
    assert!(divergent.models[&ModelKind::GpuMech].ipc > 2.0 * mdm(&divergent).ipc);
}

/// The vectoradd anchor: its list, and an opener for its one kernel.
fn vectoradd_anchor() -> (&'static str, Box<OpenRead<'static>>) {
    let list = include_str!("../../trace/test_data/vectoradd-sm61-gtx1080-v4/kernelslist.g");
    let kernel: &'static [u8] = include_bytes!("../../trace/test_data/vectoradd-sm61-gtx1080-v4/kernel-1.traceg");
    let open: Box<OpenRead<'static>> = Box::new(move |name: &str| {
        if name == "kernel-1.traceg" { Ok(Box::new(kernel) as Box<dyn Read>) } else { Err(format!("no {name}")) }
    });
    (list, open)
}

#[wasm_bindgen_test(unsupported = test)]
fn the_core_model_fetches_a_small_kernels_code_as_the_timing_model_does() {
    // The vectoradd anchor on its own GTX 1080 config, whose instruction
    // cache is real (not perfect): one CTA whose warps with work wait for
    // two lines of code from DRAM, their loads, and their store at the exit,
    // about 1,270 cycles in the timing model. The core model had taken the
    // slowest warp's instructions and loads alone, 202 cycles (+530% IPC).
    let gtx1080 = gtx1080::config();
    let (list, mut open) = vectoradd_anchor();
    let run = warplab_lab::simulate_trace(&gtx1080, warplab_lab::SimOptions::default(), list, &mut *open).unwrap();
    let (list, mut open) = vectoradd_anchor();
    let profile = profile_trace(&gtx1080, list, &mut *open, ProfileOptions::default()).unwrap();
    let core = predict(&profile, &gtx1080).models[&ModelKind::Warplab];
    let error = (core.ipc - run.ipc) / run.ipc;
    assert!(error.abs() < 0.3, "core model IPC {} against the run's {} ({} cycles)", core.ipc, run.ipc, run.cycles);
    assert!(core.cpi_stack.fetch > 0.0 || core.cpi_stack.slowest_warp > 0.0, "{:?}", core.cpi_stack);
}

#[wasm_bindgen_test(unsupported = test)]
fn a_real_trace_profiles_to_its_instruction_counts() {
    let (list, mut open) = vectoradd_anchor();
    let pascal = config("mdm-pascal-28sm");
    let profile = profile_trace(&pascal, list, &mut *open, ProfileOptions::default()).expect("the anchor profiles");
    assert_eq!(profile.kernels.len(), 1);
    // Accel-Sim's gpu_sim_insn for this trace (DESIGN §2a).
    assert_eq!(profile.kernels[0].thread_insts, 10_516);
    let report = predict(&profile, &pascal);
    assert!(ModelKind::ALL.iter().all(|m| report.models[m].ipc > 0.0));
}

/// (spec, config, FNV-1a of the report's JSON). Re-pin after a deliberate
/// model change by running natively and copying the printed hashes.
const PINNED: [(&str, &str, &str); 3] = [
    ("strided:gs=32,size=14", "mdm-pascal-28sm", "1a590246ed647c19"),
    ("bfs:size=2", "mdm-pascal-28sm", "b6b669b114e92cc0"),
    ("vecadd:size=64", "QV100", "871656aa5e1c30bc"),
];

#[wasm_bindgen_test(unsupported = test)]
fn reports_are_bit_identical_natively_and_in_wasm() {
    let mut mismatches = Vec::new();
    for (spec, preset, pinned) in PINNED {
        let report = analyze(&config(preset), spec);
        let json = serde_json::to_vec(&report).expect("a report serializes");
        let hash = format!("{:016x}", fnv1a64(&json));
        if hash != pinned {
            mismatches.push(format!("(\"{spec}\", \"{preset}\", \"{hash}\")"));
        }
    }
    assert!(mismatches.is_empty(), "reports changed; the new pins:\n{}", mismatches.join(",\n"));
}
