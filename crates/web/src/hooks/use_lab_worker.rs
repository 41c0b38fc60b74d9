//! `use_lab_worker`: one worker per mounted page, with a handle to send it
//! inputs and a callback for its outputs.
//!
//! Inputs of a [`Lane`] (workloads; analyses and predictions; scale-model
//! plans; scale-model runs) are
//! serialized here: one per lane is at the worker at a time, and of those
//! asked for meanwhile only the newest waits. A slider dragged across many
//! values so costs at most two generations (or two model evaluations), and
//! the page only ever sees the answer to the input of a lane it sent last.
//! While a config or a workload waits for its lane, every other input waits
//! behind it, in the order asked: each reads what the worker has loaded, and
//! none may reach the worker before a load the page asked for first.
//!
//! A worker can be restarted ([`LabWorkerHandle::restart`]): the one busy
//! with a long input (a scale-model run answers nothing until it ends) is
//! terminated, and a new one is told the config and workload it held.

use futures::channel::mpsc;
use futures::{StreamExt, select};
use gloo_worker::Spawnable;
use gloo_worker::reactor::ReactorBridge;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

use crate::agent::{LabReactor, Lane, WorkerInput, WorkerOutput};

/// Sends inputs to the page's worker. Cloning it shares the same worker.
#[derive(Debug, Clone)]
pub struct LabWorkerHandle {
    inputs: mpsc::UnboundedSender<ToPump>,
}

/// What the page asks of the task that owns the worker.
#[derive(Debug)]
enum ToPump {
    /// An input for the worker.
    Input(WorkerInput),
    /// Terminate the worker and start a new one with the same loads.
    Restart,
}

impl PartialEq for LabWorkerHandle {
    fn eq(&self, other: &Self) -> bool {
        self.inputs.same_receiver(&other.inputs)
    }
}

impl LabWorkerHandle {
    /// Queues `input` for the worker. Once the page is unmounted the worker is
    /// gone and the input is dropped, which is what an unmounted page wants.
    pub fn send(&self, input: WorkerInput) {
        let _ = self.inputs.unbounded_send(ToPump::Input(input));
    }

    /// Terminates the worker, dropping what it was doing and every input
    /// waiting for it, and starts a new one holding the same config and
    /// workload (and asked again for a scale-model plan not yet answered).
    pub fn restart(&self) {
        let _ = self.inputs.unbounded_send(ToPump::Restart);
    }
}

/// When a page's worker starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spawn {
    /// With the page, for a worker every page uses: its start (loading its
    /// script and instantiating the lab's wasm, about 170 ms in a Chromium
    /// trace) then overlaps the page's first render and layout instead of
    /// following them, and the page's first inputs find it ready.
    AtOnce,
    /// At the first input: each worker compiles the whole lab's wasm (about
    /// 1.3 MB), so a worker the page may never use (the baseline's) would
    /// take a core from the first run while the page opens.
    AtFirstInput,
}

/// Spawns the worker at `worker_url` (an ES-module script) as `spawn` says
/// and hands each output to `on_output`. The worker is terminated when the
/// component unmounts: dropping the handle's sender ends the task that owns
/// the worker's bridge.
#[hook]
pub fn use_lab_worker(worker_url: AttrValue, spawn: Spawn, on_output: Callback<WorkerOutput>) -> LabWorkerHandle {
    let handle = use_memo(worker_url, |worker_url| {
        let (inputs, receiver) = mpsc::unbounded();
        wasm_bindgen_futures::spawn_local(pump(worker_url.to_string(), spawn, receiver, on_output));
        LabWorkerHandle { inputs }
    });
    (*handle).clone()
}

/// Owns the worker: forwards queued inputs and delivers outputs until either
/// side closes, and restarts it when asked.
async fn pump(
    worker_url: String,
    spawn: Spawn,
    mut inputs: mpsc::UnboundedReceiver<ToPump>,
    on_output: Callback<WorkerOutput>,
) {
    let mut held = Held::default();
    let mut running = match spawn {
        Spawn::AtOnce => Running::start(&worker_url, Vec::new()),
        Spawn::AtFirstInput => {
            // A restart before the first input has nothing to stop.
            let first = loop {
                match inputs.next().await {
                    Some(ToPump::Input(input)) => break input,
                    Some(ToPump::Restart) => {}
                    None => return,
                }
            };
            held.note(&first);
            Running::start(&worker_url, vec![first])
        }
    };
    loop {
        let woke = select! {
            message = inputs.next() => Woke::Page(message),
            output = running.bridge.next() => Woke::Worker(output),
        };
        match woke {
            Woke::Page(Some(ToPump::Input(input))) => {
                held.note(&input);
                running.ask(input);
            }
            // The old worker is terminated as it is dropped.
            Woke::Page(Some(ToPump::Restart)) => running = Running::start(&worker_url, held.inputs()),
            Woke::Worker(Some(output)) => {
                held.answered(&output);
                match running.lanes.answered(output) {
                    Answered::Deliver(output) => on_output.emit(output),
                    Answered::Superseded(next) => next.into_iter().for_each(|input| running.bridge.send_input(input)),
                }
            }
            Woke::Page(None) | Woke::Worker(None) => break,
        }
    }
}

/// What woke the pump.
enum Woke {
    Page(Option<ToPump>),
    Worker(Option<WorkerOutput>),
}

/// A spawned worker: its bridge, the native `Worker` to terminate it by, and
/// its lanes.
struct Running {
    bridge: ReactorBridge<LabReactor>,
    native: JsValue,
    lanes: Lanes,
}

impl Running {
    /// Spawns the worker at `worker_url` and asks it for `inputs`.
    fn start(worker_url: &str, inputs: Vec<WorkerInput>) -> Self {
        capture_workers();
        // `with_loader(true)`: `worker_url` is our own bootstrap module, loaded
        // as the worker's script. Without it gloo-worker would start the worker
        // from a blob: URL, against which the worker's relative fetches cannot
        // resolve.
        let bridge = LabReactor::spawner().as_module(true).with_loader(true).spawn(worker_url);
        let mut running = Self { bridge, native: captured_worker(), lanes: Lanes::default() };
        inputs.into_iter().for_each(|input| running.ask(input));
        running
    }

    fn ask(&mut self, input: WorkerInput) {
        if let Some(input) = self.lanes.ask(input) {
            self.bridge.send_input(input);
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        terminate_worker(&self.native);
    }
}

// gloo-worker keeps the native `Worker` to itself and ends a worker by a
// message, which a worker busy in a long input reads only when it is done: a
// cancelled scale-model run would go on taking a core for minutes. So the
// page's `Worker` constructor is wrapped while gloo-worker spawns one (it
// does so synchronously), and the worker it made is kept to `terminate()`.
#[wasm_bindgen(inline_js = r#"
let base = null;
let made = null;
export function capture_workers() {
    if (base !== null) return;
    base = globalThis.Worker;
    made = null;
    globalThis.Worker = class extends base {
        constructor(...args) {
            super(...args);
            made = this;
        }
    };
}
export function captured_worker() {
    if (base !== null) {
        globalThis.Worker = base;
        base = null;
    }
    return made;
}
export function terminate_worker(worker) {
    if (worker) worker.terminate();
}
"#)]
extern "C" {
    fn capture_workers();
    fn captured_worker() -> JsValue;
    fn terminate_worker(worker: &JsValue);
}

/// What a restarted worker must be told again: the config and the workload
/// it held, and a scale-model plan asked for and not answered yet.
#[derive(Debug, Default)]
struct Held {
    config: Option<WorkerInput>,
    workload: Option<WorkerInput>,
    plan: Option<WorkerInput>,
}

impl Held {
    fn note(&mut self, input: &WorkerInput) {
        match input.lane() {
            // Edits travel with the load they apply to, as in a lane.
            Some(Lane::Config) => {
                let input = input.clone();
                self.config = Some(match self.config.take() {
                    Some(held) => input.superseding(held),
                    None => input,
                });
            }
            Some(Lane::Workload) => self.workload = Some(input.clone()),
            Some(Lane::ScalePlan) => self.plan = Some(input.clone()),
            _ => {}
        }
    }

    fn answered(&mut self, output: &WorkerOutput) {
        if output.lane() == Some(Lane::ScalePlan) {
            self.plan = None;
        }
    }

    /// The inputs to send a new worker, in the order it needs them.
    fn inputs(&self) -> Vec<WorkerInput> {
        [&self.config, &self.workload, &self.plan].into_iter().flatten().cloned().collect()
    }
}

/// Per lane: whether an input is at the worker, and the newest one asked
/// for since.
#[derive(Debug, Default)]
struct Lanes {
    config: LaneQueue,
    workload: LaneQueue,
    analysis: LaneQueue,
    scale_plan: LaneQueue,
    scale: LaneQueue,
    /// Inputs asked while a config or a workload waited for its lane, in the
    /// order asked. Each reads what the worker has loaded, so it goes only
    /// after that load: a scale run asked for the new workload would
    /// otherwise overtake it and simulate the old one.
    behind_load: Vec<WorkerInput>,
}

/// One lane's input at the worker and the one waiting.
#[derive(Debug, Default)]
struct LaneQueue {
    busy: bool,
    next: Option<WorkerInput>,
}

/// What to do with an output of the worker.
#[derive(Debug, PartialEq)]
enum Answered {
    /// Hand it to the page.
    Deliver(WorkerOutput),
    /// Drop it: the page has asked for another input of its lane since, sent
    /// now, followed by the inputs that waited behind it if it was a load.
    Superseded(Vec<WorkerInput>),
}

impl Lanes {
    fn queue(&mut self, lane: Lane) -> &mut LaneQueue {
        match lane {
            Lane::Config => &mut self.config,
            Lane::Workload => &mut self.workload,
            Lane::Analysis => &mut self.analysis,
            Lane::ScalePlan => &mut self.scale_plan,
            Lane::Scale => &mut self.scale,
        }
    }

    /// Whether a config or a workload waits for its lane.
    fn load_waiting(&self) -> bool {
        self.config.next.is_some() || self.workload.next.is_some()
    }

    /// The input to send now, if any: while a load waits, none but loads
    /// (the others wait behind it); else inputs of no lane at once, an input
    /// of a lane when no other of it is at the worker (else it waits,
    /// replacing any waiting).
    fn ask(&mut self, input: WorkerInput) -> Option<WorkerInput> {
        let lane = input.lane();
        if !matches!(lane, Some(Lane::Config | Lane::Workload)) && self.load_waiting() {
            self.behind_load.push(input);
            return None;
        }
        let Some(lane) = lane else { return Some(input) };
        let queue = self.queue(lane);
        if queue.busy {
            queue.next = Some(match queue.next.take() {
                Some(waiting) => input.superseding(waiting),
                None => input,
            });
            return None;
        }
        queue.busy = true;
        Some(input)
    }

    fn answered(&mut self, output: WorkerOutput) -> Answered {
        let Some(lane) = output.lane() else { return Answered::Deliver(output) };
        let queue = self.queue(lane);
        match queue.next.take() {
            Some(next) => {
                let mut send = vec![next];
                if !self.load_waiting() {
                    let behind = std::mem::take(&mut self.behind_load);
                    send.extend(behind.into_iter().filter_map(|input| self.ask(input)));
                }
                Answered::Superseded(send)
            }
            None => {
                queue.busy = false;
                Answered::Deliver(output)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use warplab_lab::GenSpec;
    use warplab_lab::scale::Rule;

    use super::*;
    use crate::agent::{RunControl, ScalePart, ScaleRequest, ScaleSetup};

    fn generate(kernel: &str) -> WorkerInput {
        WorkerInput::Generate { spec: GenSpec::new(kernel), summarize: true }
    }

    fn failed(message: &str) -> WorkerOutput {
        WorkerOutput::WorkloadFailed(message.to_owned())
    }

    #[test]
    fn only_the_newest_waiting_workload_is_asked_for() {
        let mut queue = Lanes::default();
        assert_eq!(queue.ask(generate("a")), Some(generate("a")));
        assert_eq!(queue.ask(generate("b")), None, "waits for a's answer");
        let preset = WorkerInput::LoadPreset { name: "QV100".into(), edits: Vec::new() };
        assert_eq!(queue.ask(preset.clone()), Some(preset), "configs have a lane of their own");
        assert_eq!(queue.ask(generate("c")), None, "replaces b");
        assert_eq!(
            queue.answered(WorkerOutput::ConfigFailed("x".into())),
            Answered::Deliver(WorkerOutput::ConfigFailed("x".into()))
        );
        assert_eq!(queue.answered(failed("a")), Answered::Superseded(vec![generate("c")]));
        assert_eq!(queue.answered(failed("c")), Answered::Deliver(failed("c")));
        assert_eq!(queue.ask(generate("d")), Some(generate("d")), "the worker is free again");
    }

    #[test]
    fn the_workers_beside_the_main_one_keep_a_generated_workload_unsummarized() {
        let kept = WorkerInput::Generate { spec: GenSpec::new("vecadd"), summarize: false };
        assert_eq!(generate("vecadd").kept_only(), kept);
        assert_eq!(kept.clone().kept_only(), kept);
        let sample = WorkerInput::LoadSample { name: "bfs".into(), dir_url: "./sample-traces/bfs/".into() };
        assert_eq!(sample.clone().kept_only(), sample, "a trace is read in full to be kept");
    }

    fn predict(mshrs: f64) -> WorkerInput {
        WorkerInput::Predict { knobs: vec![("l1_mshrs".to_owned(), mshrs)] }
    }

    fn predicted() -> WorkerOutput {
        WorkerOutput::Predicted(Box::default())
    }

    #[test]
    fn a_dragged_slider_keeps_one_prediction_at_the_worker_and_one_waiting() {
        let mut lanes = Lanes::default();
        assert_eq!(lanes.ask(predict(8.0)), Some(predict(8.0)));
        assert_eq!(lanes.ask(generate("a")), Some(generate("a")), "workloads have their own lane");
        for mshrs in [16.0, 32.0, 64.0] {
            assert_eq!(lanes.ask(predict(mshrs)), None, "waits for the first answer");
        }
        assert_eq!(lanes.answered(failed("a")), Answered::Deliver(failed("a")));
        assert_eq!(lanes.answered(predicted()), Answered::Superseded(vec![predict(64.0)]), "only the newest is sent");
        assert_eq!(lanes.answered(predicted()), Answered::Deliver(predicted()));
        let analyze = WorkerInput::Analyze { memcpy_warms_l2: false };
        assert_eq!(lanes.ask(analyze.clone()), Some(analyze), "the lane is free again");
        assert_eq!(lanes.ask(predict(1.0)), None);
        let failure = WorkerOutput::AnalysisFailed("no workload".into());
        assert_eq!(lanes.answered(failure), Answered::Superseded(vec![predict(1.0)]));
    }

    fn scale(validate: bool) -> WorkerInput {
        WorkerInput::Scale(ScaleRequest {
            scale_models: [8, 16],
            targets: Vec::new(),
            rule: Rule::Reference,
            validate,
            weak: false,
            memcpy_warms_l2: false,
            progress_channel: String::new(),
            part: ScalePart::Whole,
        })
    }

    #[test]
    fn scale_runs_and_plans_have_lanes_of_their_own() {
        let mut lanes = Lanes::default();
        assert_eq!(lanes.ask(scale(false)), Some(scale(false)));
        let plan = WorkerInput::PlanScale { scale_models: Some([16, 32]), config: 1 };
        assert_eq!(lanes.ask(plan.clone()), Some(plan), "a plan does not wait for a run");
        assert_eq!(lanes.ask(predict(8.0)), Some(predict(8.0)), "nor does an analysis");
        assert_eq!(lanes.ask(scale(true)), None, "a second run waits");
        let planned = WorkerOutput::ScalePlanned(Box::new(ScaleSetup::unplanned("x".into())));
        assert_eq!(lanes.answered(planned.clone()), Answered::Deliver(planned));
        let failed = WorkerOutput::ScaleFailed("no workload".into());
        assert_eq!(
            lanes.answered(failed),
            Answered::Superseded(vec![scale(true)]),
            "only the newest run's answer shows"
        );
    }

    #[test]
    fn nothing_overtakes_a_load_waiting_for_its_lane() {
        let mut lanes = Lanes::default();
        assert_eq!(lanes.ask(scale(false)), Some(scale(false)), "a scale run of the workload loaded");
        assert_eq!(lanes.ask(generate("b")), Some(generate("b")), "its lane is free");
        assert_eq!(lanes.ask(generate("c")), None, "waits for b's answer");
        let ended = WorkerOutput::ScaleFailed("x".into());
        assert_eq!(lanes.answered(ended.clone()), Answered::Deliver(ended));
        // The page asks for c's scale run, analysis and a run control before c is at the worker.
        assert_eq!(lanes.ask(scale(true)), None, "the scale run waits behind c");
        assert_eq!(lanes.ask(predict(8.0)), None, "so does an analysis");
        let pause = WorkerInput::Control(RunControl::Pause);
        assert_eq!(lanes.ask(pause.clone()), None, "and an input of no lane");
        assert_eq!(
            lanes.answered(failed("b")),
            Answered::Superseded(vec![generate("c"), scale(true), predict(8.0), pause]),
            "c first, then the rest in the order asked"
        );
        assert_eq!(lanes.ask(scale(false)), None, "the scale lane is at the worker again");
        let config = WorkerInput::LoadPreset { name: "QV100".into(), edits: Vec::new() };
        assert_eq!(lanes.ask(config.clone()), Some(config), "loads never wait behind other lanes");
    }

    #[test]
    fn edits_asked_while_a_config_loads_travel_with_the_waiting_load() {
        let mut lanes = Lanes::default();
        let edits = |value: f64| vec![warplab_lab::ConfigEdit::Knob { name: "l1_mshrs".into(), value }];
        let preset = |name: &str, edits| WorkerInput::LoadPreset { name: name.into(), edits };
        assert_eq!(lanes.ask(preset("QV100", Vec::new())), Some(preset("QV100", Vec::new())));
        assert_eq!(lanes.ask(preset("RTX3070", Vec::new())), None, "waits for QV100's answer");
        assert_eq!(lanes.ask(WorkerInput::EditConfig { edits: edits(64.0) }), None);
        let loaded = WorkerOutput::ConfigFailed("x".into());
        assert_eq!(lanes.answered(loaded), Answered::Superseded(vec![preset("RTX3070", edits(64.0))]), "not lost");
        assert_eq!(lanes.ask(WorkerInput::EditConfig { edits: edits(8.0) }), None);
        assert_eq!(lanes.ask(WorkerInput::EditConfig { edits: edits(16.0) }), None);
        let next = lanes.answered(WorkerOutput::ConfigFailed("y".into()));
        assert_eq!(
            next,
            Answered::Superseded(vec![WorkerInput::EditConfig { edits: edits(16.0) }]),
            "the newest edits"
        );
    }

    #[test]
    fn a_restarted_worker_is_told_its_config_with_its_edits_its_workload_and_an_unanswered_plan() {
        let mut held = Held::default();
        let edits = vec![warplab_lab::ConfigEdit::Knob { name: "l1_mshrs".into(), value: 8.0 }];
        let plan = WorkerInput::PlanScale { scale_models: None, config: 2 };
        held.note(&WorkerInput::LoadPreset { name: "QV100".into(), edits: Vec::new() });
        held.note(&generate("a"));
        held.note(&WorkerInput::EditConfig { edits: edits.clone() });
        held.note(&generate("b"));
        held.note(&plan);
        held.note(&scale(false));
        held.note(&predict(8.0));
        let preset = WorkerInput::LoadPreset { name: "QV100".into(), edits };
        assert_eq!(held.inputs(), [preset.clone(), generate("b"), plan], "no run, no analysis");
        held.answered(&WorkerOutput::ScalePlanned(Box::new(ScaleSetup::unplanned("x".into()))));
        assert_eq!(held.inputs(), [preset, generate("b")], "a plan answered is not asked again");
    }
}

/// When the page's workers are spawned, counted at the `Worker` constructor.
#[cfg(all(test, target_arch = "wasm32"))]
mod spawn_tests {
    use std::time::Duration;

    use gloo::timers::future::sleep;
    use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

    use super::*;

    wasm_bindgen_test_configure!(run_in_browser);

    #[wasm_bindgen(inline_js = r#"
    let made = null;
    export function workers_made() {
        if (made === null) {
            made = 0;
            const base = globalThis.Worker;
            globalThis.Worker = class extends base {
                constructor(...args) {
                    super(...args);
                    made += 1;
                }
            };
        }
        return made;
    }
    "#)]
    extern "C" {
        fn workers_made() -> u32;
    }

    /// The worker a spawn makes never loads (no such script): only its
    /// construction is counted.
    const NO_SCRIPT: &str = "./no-such-worker.js";

    #[derive(Properties, PartialEq)]
    struct Props {
        spawn: Spawn,
        /// Whether the page sends its worker an input once mounted.
        asks: bool,
    }

    #[function_component]
    fn Page(props: &Props) -> Html {
        let worker = use_lab_worker(NO_SCRIPT.into(), props.spawn, Callback::noop());
        let asks = props.asks;
        use_effect_with((), move |_| {
            if asks {
                worker.send(WorkerInput::Control(crate::agent::RunControl::Pause));
            }
        });
        html! {}
    }

    /// Workers made while a page of `props` mounts and settles.
    async fn made_by(props: Props) -> u32 {
        let before = workers_made();
        let root = gloo::utils::document().create_element("div").expect("a div");
        gloo::utils::body().append_child(&root).expect("appended");
        let app = yew::Renderer::<Page>::with_root_and_props(root, props).render();
        sleep(Duration::from_millis(100)).await;
        let made = workers_made() - before;
        app.destroy();
        made
    }

    #[wasm_bindgen_test]
    async fn a_worker_starts_with_the_page_or_at_its_first_input() {
        assert_eq!(made_by(Props { spawn: Spawn::AtOnce, asks: false }).await, 1, "with the page, asked nothing");
        assert_eq!(made_by(Props { spawn: Spawn::AtFirstInput, asks: false }).await, 0, "never asked, never made");
        assert_eq!(made_by(Props { spawn: Spawn::AtFirstInput, asks: true }).await, 1, "made at the first input");
    }
}
