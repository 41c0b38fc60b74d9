//! Authored kernels through the real worker (issue 41): `Compile` answers
//! with the listing the native compiler makes and the workload's summary; a
//! run of it is the native simulator's, and its per-PC counters follow the
//! report and add up to its warp instructions; a compile error comes back
//! located for the editor, and the kernel compiled before stays loaded.
//!
//! The worker is served from `test-dist/` (see `tests/app.rs`).

mod worker;

use warplab_lab::sampling::SampleMode;
use warplab_lab::{Cycle, SimOptions, Simulation, preset_config, run_kernel, summarize_workload};
use warplab_web::agent::{WorkerInput, WorkerOutput};
use warplab_web::authored::{Authored, KernelError};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use worker::{next, spawn};

wasm_bindgen_test_configure!(run_in_browser);

/// vecadd on 8,192 elements: a run of a second or so.
fn source() -> String {
    include_str!("../../cuda/examples/vecadd.cu").replace("#define N (1 << 20)", "#define N 8192")
}

#[wasm_bindgen_test]
async fn a_kernel_compiles_runs_and_counts_per_pc_in_the_worker() {
    let mut bridge = spawn();
    bridge.send_input(WorkerInput::LoadPreset { name: "QV100".into(), edits: Vec::new() });
    assert!(matches!(next(&mut bridge, "config").await, WorkerOutput::Config(..)));
    bridge.send_input(WorkerInput::Compile { file: "v.cu".into(), source: source() });
    let WorkerOutput::Compiled(authored, summary) = next(&mut bridge, "compiled").await else { panic!("not compiled") };
    let config = preset_config("QV100").expect("a preset").1;
    let (compiled, run) = run_kernel("v.cu", &source(), &config, true, 1 << 30, "").expect("compiles natively");
    assert_eq!(*authored, Authored::new("v.cu", &source(), &compiled, &run), "the native listing");
    let workload = run.workload.expect("recorded");
    assert_eq!(summary, summarize_workload("v.cu", &workload));

    bridge.send_input(WorkerInput::Run { speed: 0, watch: 0, memcpy_warms_l2: false, sampling: SampleMode::Off });
    let report = loop {
        if let WorkerOutput::RunReport(report) = next(&mut bridge, "report").await {
            break report;
        }
    };
    let WorkerOutput::PerPc(counted) = next(&mut bridge, "per-PC counters").await else { panic!("no counters") };
    let mut native =
        Simulation::new(&config, SimOptions { per_pc: true, ..SimOptions::default() }, workload.into_source());
    native.run_until(Cycle(u64::MAX));
    assert_eq!(*report, native.report(), "the native simulator's report");
    assert_eq!(Some(&counted), native.per_pc().as_ref(), "and its counters");
    assert_eq!(counted.iter().map(|row| row.issued).sum::<u64>(), report.warp_insts);

    // A typo: located for the editor; the kernel before stays loaded and runs.
    let typo = source().replace("c[i] = a[i] + b[i];", "c[i] = a[i] + q[i];");
    bridge.send_input(WorkerInput::Compile { file: "v.cu".into(), source: typo });
    let WorkerOutput::KernelFailed(error) = next(&mut bridge, "error").await else { panic!("compiled a typo") };
    let expected = KernelError {
        headline: "v.cu:8:23: error: use of undeclared identifier 'q'".into(),
        line: 8,
        from: 22,
        to: 23,
    };
    assert_eq!(*error, expected);
    bridge.send_input(WorkerInput::Run { speed: 0, watch: 0, memcpy_warms_l2: false, sampling: SampleMode::Off });
    let again = loop {
        if let WorkerOutput::RunReport(report) = next(&mut bridge, "report again").await {
            break report;
        }
    };
    assert_eq!(again.cycles, report.cycles, "the kernel that compiled, compiled again for the run");
}
