//! `use_lab_worker`: one worker per mounted page, with a handle to send it
//! inputs and a callback for its outputs.

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
    loop {
        select! {
            input = inputs.next() => match input {
                Some(input) => bridge.send_input(input),
                None => break,
            },
            output = bridge.next() => match output {
                Some(output) => on_output.emit(output),
                None => break,
            },
        }
    }
}
