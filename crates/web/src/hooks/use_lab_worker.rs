//! `use_lab_worker`: one worker per mounted page, with a handle to send it
//! inputs and a callback for its outputs.
//!
//! Workload inputs are serialized here: one is at the worker at a time, and
//! of those asked for meanwhile only the newest waits. A slider dragged
//! across many values so costs at most two generations, and the page only
//! ever sees the answer to the workload it asked for last.

use futures::channel::mpsc;
use futures::{StreamExt, select};
use gloo_worker::Spawnable;
use yew::prelude::*;

use crate::agent::{LabReactor, WorkerInput, WorkerOutput};

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

/// Spawns the worker at `worker_url` (an ES-module script) when the component
/// mounts and hands each output to `on_output`. The worker is terminated when
/// the component unmounts: dropping the handle's sender ends the task that owns
/// the worker's bridge.
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
    // `with_loader(true)`: `worker_url` is our own bootstrap module, loaded as
    // the worker's script. Without it gloo-worker would start the worker from a
    // blob: URL, against which the worker's relative fetches cannot resolve.
    let mut bridge = LabReactor::spawner().as_module(true).with_loader(true).spawn(&worker_url);
    let mut workloads = WorkloadQueue::default();
    loop {
        select! {
            input = inputs.next() => match input {
                Some(input) => workloads.ask(input).into_iter().for_each(|input| bridge.send_input(input)),
                None => break,
            },
            output = bridge.next() => match output {
                Some(output) => match workloads.answered(output) {
                    Answered::Deliver(output) => on_output.emit(output),
                    Answered::Superseded(next) => bridge.send_input(next),
                },
                None => break,
            },
        }
    }
}

/// The workload input at the worker, and the newest one asked for since.
#[derive(Debug, Default)]
struct WorkloadQueue {
    busy: bool,
    next: Option<WorkerInput>,
}

/// What to do with an output of the worker.
#[derive(Debug, PartialEq)]
enum Answered {
    /// Hand it to the page.
    Deliver(WorkerOutput),
    /// Drop it: the page has asked for another workload since, sent now.
    Superseded(WorkerInput),
}

impl WorkloadQueue {
    /// The input to send now, if any: config inputs at once, a workload input
    /// when no other is at the worker (else it waits, replacing any waiting).
    fn ask(&mut self, input: WorkerInput) -> Option<WorkerInput> {
        if !input.is_workload() {
            return Some(input);
        }
        if self.busy {
            self.next = Some(input);
            return None;
        }
        self.busy = true;
        Some(input)
    }

    fn answered(&mut self, output: WorkerOutput) -> Answered {
        if !output.is_workload() {
            return Answered::Deliver(output);
        }
        match self.next.take() {
            Some(next) => Answered::Superseded(next),
            None => {
                self.busy = false;
                Answered::Deliver(output)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use warplab_lab::GenSpec;

    use super::*;

    fn generate(kernel: &str) -> WorkerInput {
        WorkerInput::Generate { spec: GenSpec::new(kernel) }
    }

    fn failed(message: &str) -> WorkerOutput {
        WorkerOutput::WorkloadFailed(message.to_owned())
    }

    #[test]
    fn only_the_newest_waiting_workload_is_asked_for() {
        let mut queue = WorkloadQueue::default();
        assert_eq!(queue.ask(generate("a")), Some(generate("a")));
        assert_eq!(queue.ask(generate("b")), None, "waits for a's answer");
        let preset = WorkerInput::LoadPreset { name: "QV100".into() };
        assert_eq!(queue.ask(preset.clone()), Some(preset), "configs never wait");
        assert_eq!(queue.ask(generate("c")), None, "replaces b");
        assert_eq!(
            queue.answered(WorkerOutput::ConfigFailed("x".into())),
            Answered::Deliver(WorkerOutput::ConfigFailed("x".into()))
        );
        assert_eq!(queue.answered(failed("a")), Answered::Superseded(generate("c")));
        assert_eq!(queue.answered(failed("c")), Answered::Deliver(failed("c")));
        assert_eq!(queue.ask(generate("d")), Some(generate("d")), "the worker is free again");
    }
}
