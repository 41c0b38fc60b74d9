//! `use_lab_worker`: one worker per mounted page, with a handle to send it
//! inputs and a callback for its outputs.
//!
//! Inputs of a [`Lane`] (workloads; analyses and predictions; scale-model
//! plans; scale-model runs) are
//! serialized here: one per lane is at the worker at a time, and of those
//! asked for meanwhile only the newest waits. A slider dragged across many
//! values so costs at most two generations (or two model evaluations), and
//! the page only ever sees the answer to the input of a lane it sent last.

use futures::channel::mpsc;
use futures::{StreamExt, select};
use gloo_worker::Spawnable;
use yew::prelude::*;

use crate::agent::{LabReactor, Lane, WorkerInput, WorkerOutput};

/// Sends inputs to the page's worker. Cloning it shares the same worker.
#[derive(Debug, Clone)]
pub struct LabWorkerHandle {
    inputs: mpsc::UnboundedSender<WorkerInput>,
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
        let _ = self.inputs.unbounded_send(input);
    }
}

/// Spawns the worker at `worker_url` (an ES-module script) when the first
/// input is sent and hands each output to `on_output`. The worker is
/// terminated when the component unmounts: dropping the handle's sender ends
/// the task that owns the worker's bridge.
///
/// Spawning waits for work because each worker compiles the whole lab's wasm
/// (about 1.3 MB): a worker the page never uses (the baseline's, on a page
/// without one) would take a core from the first run while the page opens.
#[hook]
pub fn use_lab_worker(worker_url: AttrValue, on_output: Callback<WorkerOutput>) -> LabWorkerHandle {
    let handle = use_memo(worker_url, |worker_url| {
        let (inputs, receiver) = mpsc::unbounded();
        wasm_bindgen_futures::spawn_local(pump(worker_url.to_string(), receiver, on_output));
        LabWorkerHandle { inputs }
    });
    (*handle).clone()
}

/// Owns the worker: forwards queued inputs and delivers outputs until either
/// side closes.
async fn pump(worker_url: String, mut inputs: mpsc::UnboundedReceiver<WorkerInput>, on_output: Callback<WorkerOutput>) {
    let Some(first) = inputs.next().await else { return };
    // `with_loader(true)`: `worker_url` is our own bootstrap module, loaded as
    // the worker's script. Without it gloo-worker would start the worker from a
    // blob: URL, against which the worker's relative fetches cannot resolve.
    let mut bridge = LabReactor::spawner().as_module(true).with_loader(true).spawn(&worker_url);
    let mut lanes = Lanes::default();
    lanes.ask(first).into_iter().for_each(|input| bridge.send_input(input));
    loop {
        select! {
            input = inputs.next() => match input {
                Some(input) => lanes.ask(input).into_iter().for_each(|input| bridge.send_input(input)),
                None => break,
            },
            output = bridge.next() => match output {
                Some(output) => match lanes.answered(output) {
                    Answered::Deliver(output) => on_output.emit(output),
                    Answered::Superseded(next) => bridge.send_input(next),
                },
                None => break,
            },
        }
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
    /// Drop it: the page has asked for another input of its lane since, sent now.
    Superseded(WorkerInput),
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

    /// The input to send now, if any: inputs of no lane at once, an input of
    /// a lane when no other of it is at the worker (else it waits, replacing
    /// any waiting).
    fn ask(&mut self, input: WorkerInput) -> Option<WorkerInput> {
        let Some(lane) = input.lane() else { return Some(input) };
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
            Some(next) => Answered::Superseded(next),
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
    use crate::agent::{ScaleRequest, ScaleSetup};

    fn generate(kernel: &str) -> WorkerInput {
        WorkerInput::Generate { spec: GenSpec::new(kernel) }
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
        assert_eq!(queue.answered(failed("a")), Answered::Superseded(generate("c")));
        assert_eq!(queue.answered(failed("c")), Answered::Deliver(failed("c")));
        assert_eq!(queue.ask(generate("d")), Some(generate("d")), "the worker is free again");
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
        assert_eq!(lanes.answered(predicted()), Answered::Superseded(predict(64.0)), "only the newest is sent");
        assert_eq!(lanes.answered(predicted()), Answered::Deliver(predicted()));
        let analyze = WorkerInput::Analyze { memcpy_warms_l2: false };
        assert_eq!(lanes.ask(analyze.clone()), Some(analyze), "the lane is free again");
        assert_eq!(lanes.ask(predict(1.0)), None);
        let failure = WorkerOutput::AnalysisFailed("no workload".into());
        assert_eq!(lanes.answered(failure), Answered::Superseded(predict(1.0)));
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
        assert_eq!(lanes.answered(failed), Answered::Superseded(scale(true)), "only the newest run's answer shows");
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
        assert_eq!(lanes.answered(loaded), Answered::Superseded(preset("RTX3070", edits(64.0))), "not lost");
        assert_eq!(lanes.ask(WorkerInput::EditConfig { edits: edits(8.0) }), None);
        assert_eq!(lanes.ask(WorkerInput::EditConfig { edits: edits(16.0) }), None);
        let next = lanes.answered(WorkerOutput::ConfigFailed("y".into()));
        assert_eq!(next, Answered::Superseded(WorkerInput::EditConfig { edits: edits(16.0) }), "the newest edits");
    }
}
