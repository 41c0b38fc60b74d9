//! Scale-model runs through the real worker (issue 8): `PlanScale` gives the
//! pairs the loaded config divides into and the sizes of one; `Scale` on a
//! small generated workload on the paper's 128-SM GPU (scale models of 8 and
//! 16 SMs, target 32, validated) posts each step on the page's channel while
//! it runs and answers with the report `run_scale` gives in the page itself;
//! its parts, as the page asks for them of two workers, make the same
//! report; requests the config cannot take fail with the reason.
//!
//! The worker is served from `test-dist/` (see `tests/app.rs`).

mod worker;

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use gloo::timers::future::sleep;
use warplab_lab::scale::{Rule, ScaleHost, ScaleOptions, ScalePlan, ScaleReport, finish_scale, run_scale, weak_spec};
use warplab_lab::{GenSpec, GeneratedWorkload, GpuConfig, WorkloadSource, preset_config};
use warplab_web::agent::{ScalePart, ScaleRequest, WorkerInput, WorkerOutput};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{BroadcastChannel, MessageEvent};
use worker::{next, spawn};

wasm_bindgen_test_configure!(run_in_browser);

const SPEC: &str = "vecadd:size=8";

fn request(scale_models: [u32; 2], targets: &[u32], progress_channel: &str) -> WorkerInput {
    weak_or_strong(scale_models, targets, progress_channel, false)
}

fn weak_or_strong(scale_models: [u32; 2], targets: &[u32], progress_channel: &str, weak: bool) -> WorkerInput {
    part_of(scale_models, targets, progress_channel, weak, ScalePart::Whole)
}

fn part_of(scale_models: [u32; 2], targets: &[u32], channel: &str, weak: bool, part: ScalePart) -> WorkerInput {
    WorkerInput::Scale(ScaleRequest {
        scale_models,
        targets: targets.to_vec(),
        rule: Rule::Reference,
        validate: true,
        weak,
        memcpy_warms_l2: false,
        progress_channel: channel.to_owned(),
        part,
    })
}

/// The messages posted on `name`, as `step/steps: what`, while it is kept.
struct Listener {
    channel: BroadcastChannel,
    heard: Rc<RefCell<Vec<String>>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
}

impl Listener {
    /// A listener the browser has registered: a channel's registration
    /// reaches Chromium's broadcast service on its own pipe, so a worker's
    /// first post can overtake it and be lost. Hearing a ping posted after
    /// it through the service shows it is registered.
    async fn registered(name: &str) -> Self {
        let listener = Self::new(name);
        let pinger = BroadcastChannel::new(name).expect("a channel");
        let ping = js_sys::Array::of3(&0.into(), &0.into(), &"registered".into());
        pinger.post_message(&ping).expect("posts");
        for _ in 0..100 {
            if !listener.heard.borrow().is_empty() {
                break;
            }
            sleep(Duration::from_millis(20)).await;
        }
        pinger.close();
        assert_eq!(listener.heard.take(), ["0/0: registered"], "the listener hears a ping");
        listener
    }

    fn new(name: &str) -> Self {
        let channel = BroadcastChannel::new(name).expect("a channel");
        let heard: Rc<RefCell<Vec<String>>> = Rc::default();
        let sink = heard.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let message: js_sys::Array = event.data().dyn_into().expect("an array");
            let number = |i: u32| message.get(i).as_f64().unwrap_or(-1.0);
            let what = message.get(2).as_string().unwrap_or_default();
            sink.borrow_mut().push(format!("{}/{}: {what}", number(0), number(1)));
        });
        channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        Self { channel, heard, _on_message: on_message }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.channel.close();
    }
}

/// The page's own run: the same workload generated for the target, every
/// size (strong scaling), or each size's share of it (weak).
struct PageHost {
    spec: GenSpec,
    gpu: GpuConfig,
    weak: bool,
}

impl ScaleHost for PageHost {
    fn workload(&mut self, sms: u32) -> Result<Box<dyn WorkloadSource>, String> {
        let spec = if self.weak {
            weak_spec(&self.spec, sms, self.gpu.n_sms()).map_err(|e| e.to_string())?
        } else {
            self.spec.clone()
        };
        Ok(Box::new(GeneratedWorkload::new(&spec, &self.gpu).map_err(|e| e.to_string())?))
    }
}

/// The report without wall-clock times, which differ between any two runs.
fn timeless(mut report: ScaleReport) -> ScaleReport {
    report.timing = None;
    for run in report.scale_models.iter_mut().chain(&mut report.validation) {
        run.seconds = None;
    }
    report
}

#[wasm_bindgen_test]
async fn a_scale_run_through_the_worker_matches_the_page_and_reports_its_steps() {
    let mut bridge = spawn();
    bridge.send_input(request([8, 16], &[32], ""));
    let early = next(&mut bridge, "a refusal").await;
    assert!(matches!(&early, WorkerOutput::ScaleFailed(m) if m.starts_with("no workload")), "{early:?}");

    bridge.send_input(WorkerInput::LoadPreset { name: "scalemodel".into(), edits: Vec::new() });
    assert!(matches!(next(&mut bridge, "config").await, WorkerOutput::Config(..)));
    // Kept unsummarized, as the page's scale worker has it.
    bridge.send_input(WorkerInput::Generate { spec: SPEC.parse().expect("a valid spec"), summarize: false });
    assert_eq!(next(&mut bridge, "workload").await, WorkerOutput::WorkloadKept);
    bridge.send_input(WorkerInput::PlanScale { scale_models: None, config: 1 });
    let WorkerOutput::ScalePlanned(setup) = next(&mut bridge, "a plan").await else { panic!("not a plan") };
    assert_eq!(
        (setup.scale_models, setup.workable.clone(), setup.error.clone()),
        ([8, 16], vec![[32, 64], [16, 32], [8, 16]], None)
    );
    assert_eq!(setup.sizes.iter().map(|s| s.sms).collect::<Vec<_>>(), [8, 16, 32, 64, 128]);

    let channel = format!("warplab-scale-test-{}", js_sys::Date::now());
    let listener = Listener::registered(&channel).await;
    bridge.send_input(request([8, 16], &[32], &channel));
    let WorkerOutput::Scaled(report) = next(&mut bridge, "a report").await else { panic!("no report") };
    sleep(Duration::from_millis(200)).await;
    assert_eq!(
        *listener.heard.borrow(),
        [
            "1/4: simulating the 8-SM scale model",
            "2/4: simulating the 16-SM scale model",
            "3/4: miss-rate curve (one cache pass)",
            "4/4: simulating the 32-SM target (validation)",
        ]
    );
    assert_eq!((report.sizes.clone(), report.targets.clone(), report.validation.len()), (vec![8, 16, 32], vec![32], 1));
    assert!(report.timing.is_some(), "the worker times the run");
    let predicted = report.prediction().ipc(warplab_lab::scale::Method::ScaleModel, 32).unwrap_or(0.0);
    assert!(predicted > 0.0 && report.validation[0].ipc > 0.0, "{predicted} vs {}", report.validation[0].ipc);

    // The same run in the page: the same report but for the wall-clock times.
    let (_, gpu) = preset_config("scalemodel").expect("a bundled preset");
    let plan = ScalePlan::new(&gpu, [8, 16], &[32]).expect("divides");
    let options = ScaleOptions { rule: Rule::Reference, validate: true, weak: false, memcpy_warms_l2: false };
    let mut host = PageHost { spec: SPEC.parse().expect("a valid spec"), gpu: gpu.clone(), weak: false };
    let page = run_scale(&plan, &mut host, &options).expect("runs");
    assert_eq!(timeless(*report), timeless(page.clone()));

    // The page's split: the simulations with their steps, the curve with
    // none of its own; the report made from both is the whole run's.
    let channel = format!("warplab-scale-test-parts-{}", js_sys::Date::now());
    let listener = Listener::registered(&channel).await;
    bridge.send_input(part_of([8, 16], &[32], &channel, false, ScalePart::Simulations));
    let WorkerOutput::ScaleSimulated(simulations) = next(&mut bridge, "simulations").await else {
        panic!("no simulations")
    };
    bridge.send_input(part_of([8, 16], &[32], "", false, ScalePart::Curve));
    let WorkerOutput::ScaleCurved(curve) = next(&mut bridge, "a curve").await else { panic!("no curve") };
    sleep(Duration::from_millis(200)).await;
    assert_eq!(
        *listener.heard.borrow(),
        [
            "1/3: simulating the 8-SM scale model",
            "2/3: simulating the 16-SM scale model",
            "3/3: simulating the 32-SM target (validation)",
        ]
    );
    assert!(curve.seconds.is_some(), "the worker times the curve");
    let split = finish_scale(*simulations, *curve).expect("predicts");
    assert_eq!(timeless(split), timeless(page));
    bridge.send_input(part_of([8, 24], &[], "", false, ScalePart::Curve));
    let refused = next(&mut bridge, "a refused curve").await;
    assert!(matches!(&refused, WorkerOutput::CurveFailed(m) if m.starts_with("the scale models must be S and 2S")));

    // Weak scaling: no curve, so three steps; each size its share.
    let channel = format!("warplab-scale-test-weak-{}", js_sys::Date::now());
    let listener = Listener::registered(&channel).await;
    bridge.send_input(weak_or_strong([8, 16], &[32], &channel, true));
    let WorkerOutput::Scaled(weak) = next(&mut bridge, "a weak report").await else { panic!("no report") };
    sleep(Duration::from_millis(200)).await;
    assert_eq!(
        *listener.heard.borrow(),
        [
            "1/3: simulating the 8-SM scale model",
            "2/3: simulating the 16-SM scale model",
            "3/3: simulating the 32-SM target (validation)",
        ]
    );
    assert_eq!(weak.curve, None);
    let mut host = PageHost { spec: SPEC.parse().expect("a valid spec"), gpu, weak: true };
    let page = run_scale(&plan, &mut host, &ScaleOptions { weak: true, ..options }).expect("runs");
    assert_eq!(timeless(*weak), timeless(page));

    bridge.send_input(request([8, 24], &[], ""));
    let refused = next(&mut bridge, "a refusal").await;
    assert!(
        matches!(&refused, WorkerOutput::ScaleFailed(m) if m.starts_with("the scale models must be S and 2S")),
        "{refused:?}"
    );
    bridge.send_input(WorkerInput::LoadPreset { name: "RTX3070".into(), edits: Vec::new() });
    assert!(matches!(next(&mut bridge, "config").await, WorkerOutput::Config(..)));
    bridge.send_input(WorkerInput::PlanScale { scale_models: None, config: 1 });
    let WorkerOutput::ScalePlanned(setup) = next(&mut bridge, "a plan").await else { panic!("not a plan") };
    assert!(setup.workable.is_empty() && setup.error.is_some_and(|e| e.contains("no pair of scale models")));
}
