//! The run protocol through the real worker (issue 6): a run advances and
//! reports, pause holds it, a step moves exactly one cycle, an event step
//! stops at the watched SM's next event, a seek pauses at its cycle, the
//! finished run's report is the one the native simulator gives, and cancel
//! stops a run. The analytical models (issue 7): `Analyze` gives every model,
//! `Predict` re-evaluates them for new knobs without profiling again, a bad
//! knob is an error that names it, and a new config drops the profile.
//!
//! The worker is served from `test-dist/` (see `tests/app.rs`).

mod worker;

use std::time::Duration;

use futures::StreamExt;
use gloo::timers::future::sleep;
use gloo_worker::reactor::ReactorBridge;
use warplab_lab::sampling::SampleMode;
use warplab_lab::{AnalyticalReport, ConfigEdit, GenSpec, ModelKind, SimOptions, simulate_generated};
use warplab_web::agent::{Analysis, LabReactor, RunControl, RunStatus, RunUpdate, WorkerInput, WorkerOutput};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use worker::{next, spawn};

wasm_bindgen_test_configure!(run_in_browser);

const SPEC: &str = "vecadd:size=8";

/// Skips outputs until an update with `status` arrives.
async fn update_with(bridge: &mut ReactorBridge<LabReactor>, status: RunStatus) -> RunUpdate {
    loop {
        if let WorkerOutput::RunUpdated(update) = next(bridge, &format!("{status:?} update")).await
            && update.status == status
        {
            return *update;
        }
    }
}

async fn loaded(bridge: &mut ReactorBridge<LabReactor>) {
    bridge.send_input(WorkerInput::LoadPreset { name: "QV100".into(), edits: Vec::new() });
    assert!(matches!(next(bridge, "config").await, WorkerOutput::Config(..)));
    let spec: GenSpec = SPEC.parse().expect("a valid spec");
    bridge.send_input(WorkerInput::Generate { spec, summarize: true });
    assert!(matches!(next(bridge, "workload").await, WorkerOutput::Workload(..)));
}

#[wasm_bindgen_test]
async fn pause_step_seek_and_finish_through_the_worker() {
    let mut bridge = spawn();
    loaded(&mut bridge).await;
    // 2,000 cycles a second: 100 cycles a frame, slow enough to catch running.
    bridge.send_input(WorkerInput::Run { speed: 2_000, watch: 0, memcpy_warms_l2: false, sampling: SampleMode::Off });
    let first = update_with(&mut bridge, RunStatus::Running).await;
    assert_eq!(first.total_warp_insts, 8 * 1024 / 32 * 15);
    assert_eq!(first.snapshot.sms.len(), 80);

    bridge.send_input(WorkerInput::Control(RunControl::Pause));
    let paused = update_with(&mut bridge, RunStatus::Paused).await;
    assert!(matches!(next(&mut bridge, "report").await, WorkerOutput::RunReport(_)));

    bridge.send_input(WorkerInput::Control(RunControl::StepCycle));
    let stepped = update_with(&mut bridge, RunStatus::Paused).await;
    assert_eq!(stepped.cycle, paused.cycle + 1, "one cycle");

    // The CTAs launch at cycle 5,002: the kernel starts in cycle 1 and, as in
    // GPGPU-Sim, its CTAs run in the cycle after QV100's 5,000-cycle launch
    // latency has passed. The watched SM's first event.
    bridge.send_input(WorkerInput::Control(RunControl::StepEvent));
    let event = update_with(&mut bridge, RunStatus::Paused).await;
    assert_eq!(event.cycle, 5_002);
    assert!(event.events.iter().all(|e| e.cycle == 5_002) && !event.events.is_empty(), "{:?}", event.events);

    bridge.send_input(WorkerInput::Control(RunControl::Seek(5_300)));
    let sought = update_with(&mut bridge, RunStatus::Paused).await;
    assert_eq!(sought.cycle, 5_300);

    bridge.send_input(WorkerInput::Control(RunControl::Speed(0)));
    bridge.send_input(WorkerInput::Control(RunControl::Resume));
    let finished = update_with(&mut bridge, RunStatus::Finished).await;
    let WorkerOutput::RunReport(report) = next(&mut bridge, "final report").await else { panic!("no final report") };
    let config = warplab_lab::preset_config("QV100").expect("a preset").1;
    let spec: GenSpec = SPEC.parse().expect("a valid spec");
    let native = simulate_generated(&config, SimOptions::default(), &spec).expect("simulates");
    assert_eq!(report.cycles, native.cycles, "pausing and stepping change no cycle");
    assert_eq!(finished.warp_insts, native.warp_insts);
    assert_eq!(finished.dropped_events, sought.dropped_events, "nothing is recorded at full speed");
    assert!(finished.events.is_empty());
}

#[wasm_bindgen_test]
async fn cancel_stops_a_long_run() {
    let mut bridge = spawn();
    loaded(&mut bridge).await;
    bridge.send_input(WorkerInput::Run { speed: 200, watch: 0, memcpy_warms_l2: false, sampling: SampleMode::Off });
    update_with(&mut bridge, RunStatus::Running).await;
    bridge.send_input(WorkerInput::Control(RunControl::Cancel));
    loop {
        match next(&mut bridge, "cancellation").await {
            WorkerOutput::RunCancelled => break,
            WorkerOutput::RunUpdated(update) => assert_eq!(update.status, RunStatus::Running),
            other => panic!("unexpected {other:?}"),
        }
    }
    // Nothing more comes: the run is gone.
    let quiet = sleep(Duration::from_millis(400));
    futures::pin_mut!(quiet);
    let after = futures::future::select(bridge.next(), quiet).await;
    assert!(matches!(after, futures::future::Either::Right(_)), "no update after cancel");
    bridge.send_input(WorkerInput::Control(RunControl::Resume));
    let quiet = sleep(Duration::from_millis(200));
    futures::pin_mut!(quiet);
    let after = futures::future::select(bridge.next(), quiet).await;
    assert!(matches!(after, futures::future::Either::Right(_)), "controls without a run are ignored");
}

/// Asks for `input` and returns the answer (which must be of the analysis lane).
async fn ask(bridge: &mut ReactorBridge<LabReactor>, input: WorkerInput) -> WorkerOutput {
    let what = format!("{input:?}");
    bridge.send_input(input);
    next(bridge, &what).await
}

async fn analyzed(bridge: &mut ReactorBridge<LabReactor>) -> Analysis {
    match ask(bridge, WorkerInput::Analyze { memcpy_warms_l2: false }).await {
        WorkerOutput::Analyzed(analysis) => *analysis,
        other => panic!("no analysis: {other:?}"),
    }
}

async fn predicted(bridge: &mut ReactorBridge<LabReactor>, knobs: &[(&str, f64)]) -> Result<AnalyticalReport, String> {
    let knobs = knobs.iter().map(|&(name, value)| (name.to_owned(), value)).collect();
    match ask(bridge, WorkerInput::Predict { knobs }).await {
        WorkerOutput::Predicted(report) => Ok(*report),
        WorkerOutput::AnalysisFailed(message) => Err(message),
        other => panic!("not an answer to Predict: {other:?}"),
    }
}

fn mdm_ipc(report: &AnalyticalReport) -> f64 {
    report.models[&ModelKind::Mdm].ipc
}

#[wasm_bindgen_test]
async fn the_default_workload_is_analyzed_by_every_model() {
    let mut bridge = spawn();
    // The page's default experiment: vecadd as generated, on the default
    // preset, kept unsummarized as the page's analysis worker has it.
    bridge.send_input(WorkerInput::Generate { spec: GenSpec::new("vecadd"), summarize: false });
    assert_eq!(next(&mut bridge, "workload").await, WorkerOutput::WorkloadKept);
    let analysis = analyzed(&mut bridge).await;
    assert_eq!(analysis.report.models.keys().copied().collect::<Vec<_>>(), ModelKind::ALL);
    assert!(analysis.report.models.values().all(|p| p.ipc > 0.0), "{:?}", analysis.report.models);
    assert_eq!(analysis.report.kernels.len(), 1);
    let default = warplab_lab::default_config().expect("a default preset").1;
    assert_eq!(analysis.base.n_sms, default.n_sms());
}

#[wasm_bindgen_test]
async fn knobs_re_evaluate_the_models_and_bad_ones_are_named() {
    let mut bridge = spawn();
    assert!(matches!(
        ask(&mut bridge, WorkerInput::LoadPreset { name: "mdm-pascal-28sm".into(), edits: Vec::new() }).await,
        WorkerOutput::Config(..)
    ));
    let spec: GenSpec = "strided:gs=32,size=28".parse().expect("a valid spec");
    assert!(matches!(
        ask(&mut bridge, WorkerInput::Generate { spec, summarize: true }).await,
        WorkerOutput::Workload(..)
    ));
    assert_eq!(predicted(&mut bridge, &[]).await.err().map(|e| e.contains("nothing analyzed")), Some(true));
    let analysis = analyzed(&mut bridge).await;
    assert_eq!(analysis.base.l1_mshrs, Some(128));

    let few = predicted(&mut bridge, &[("l1_mshrs", 32.0)]).await.expect("32 MSHRs");
    let many = predicted(&mut bridge, &[("l1_mshrs", 64.0)]).await.expect("64 MSHRs");
    // MDM moves both ways with the MSHRs (more of them also queue more requests
    // in the NoC and put more warps' lines through the L1); here 32 give
    // about 52 and 64 about 49, as the simulator is faster with 32 than 64.
    let (ipc_few, ipc_many) = (mdm_ipc(&few), mdm_ipc(&many));
    assert!(ipc_few > 1.03 * ipc_many, "the MSHRs move MDM: {ipc_few} vs {ipc_many}");
    assert_ne!(few.models[&ModelKind::GpuMech], many.models[&ModelKind::GpuMech]);
    assert_eq!(predicted(&mut bridge, &[]).await.as_ref(), Ok(&analysis.report), "no knobs: the analysis itself");

    let bad = predicted(&mut bridge, &[("l1_mshrs", 2.5)]).await.expect_err("a fraction of an MSHR");
    assert!(bad.starts_with("l1_mshrs = 2.5: "), "{bad}");
    let bad = predicted(&mut bridge, &[("n_sms", 5000.0)]).await.expect_err("too many SMs");
    assert!(bad.starts_with("n_sms = 5000: "), "{bad}");
    let again = predicted(&mut bridge, &[("l1_mshrs", 32.0)]).await;
    assert_eq!(again.as_ref(), Ok(&few), "the worker still answers, with the same figures");

    // A new config drops the profile: the models wait for a new analysis.
    assert!(matches!(
        ask(&mut bridge, WorkerInput::LoadPreset { name: "QV100".into(), edits: Vec::new() }).await,
        WorkerOutput::Config(..)
    ));
    assert!(predicted(&mut bridge, &[]).await.is_err_and(|e| e.contains("nothing analyzed")));
    assert_eq!(analyzed(&mut bridge).await.base.l1_mshrs, Some(512));
}

#[wasm_bindgen_test]
async fn config_edits_apply_to_the_config_as_read_and_a_bad_one_keeps_the_last() {
    let mut bridge = spawn();
    let mshrs = |value: f64| ConfigEdit::Knob { name: "l1_mshrs".into(), value };
    let load = WorkerInput::LoadPreset { name: "mdm-pascal-28sm".into(), edits: vec![mshrs(32.0)] };
    let WorkerOutput::Config(report, _) = ask(&mut bridge, load).await else { panic!("the preset loads") };
    assert_eq!(report.label, "preset mdm-pascal-28sm + 1 edit");
    let spec: GenSpec = "strided:gs=32,size=28".parse().expect("a valid spec");
    assert!(matches!(
        ask(&mut bridge, WorkerInput::Generate { spec, summarize: true }).await,
        WorkerOutput::Workload(..)
    ));
    assert_eq!(analyzed(&mut bridge).await.base.l1_mshrs, Some(32), "the edit reached the models");

    // Edits replace the earlier ones: they apply to the preset as read, not on top.
    let scheduler = ConfigEdit::Option { name: "-gpgpu_scheduler".into(), value: "lrr".into() };
    let edit = WorkerInput::EditConfig { edits: vec![scheduler, mshrs(64.0)] };
    let WorkerOutput::Config(report, _) = ask(&mut bridge, edit).await else { panic!("the edits apply") };
    assert_eq!(report.label, "preset mdm-pascal-28sm + 2 edits");
    assert_eq!(analyzed(&mut bridge).await.base.l1_mshrs, Some(64));
    let WorkerOutput::Config(..) = ask(&mut bridge, WorkerInput::EditConfig { edits: Vec::new() }).await else {
        panic!("no edits: the preset itself")
    };
    assert_eq!(analyzed(&mut bridge).await.base.l1_mshrs, Some(128));

    let bad = WorkerInput::EditConfig { edits: vec![mshrs(2.5)] };
    let WorkerOutput::ConfigFailed(message) = ask(&mut bridge, bad).await else { panic!("a fraction of an MSHR") };
    assert!(message.contains("whole number"), "{message}");
    assert_eq!(analyzed(&mut bridge).await.base.l1_mshrs, Some(128), "the config before the bad edit stays");
}

/// A spec the worker keeps without summarizing it passes the same checks, with
/// the same messages, as one it summarizes.
#[wasm_bindgen_test]
async fn a_generated_workload_kept_unsummarized_is_checked_as_a_summarized_one() {
    let mut bridge = spawn();
    for spec in ["vecadd:size=0", "vecadd:size=50000"] {
        let spec: GenSpec = spec.parse().expect("a well-formed spec");
        let summarized = ask(&mut bridge, WorkerInput::Generate { spec: spec.clone(), summarize: true }).await;
        let WorkerOutput::WorkloadFailed(message) = summarized else { panic!("{spec}: {summarized:?}") };
        let kept = ask(&mut bridge, WorkerInput::Generate { spec: spec.clone(), summarize: false }).await;
        assert_eq!(kept, WorkerOutput::WorkloadFailed(message), "{spec}");
    }
    let spec: GenSpec = SPEC.parse().expect("a valid spec");
    assert_eq!(ask(&mut bridge, WorkerInput::Generate { spec, summarize: false }).await, WorkerOutput::WorkloadKept);
}
