//! The root component: holds the page state, owns the worker, and turns what
//! the user picks (a sample, a preset, files) into worker inputs.

use std::cell::RefCell;
use std::rc::Rc;

use warplab_lab::{SAMPLE_TRACES, presets};
use web_sys::{File, FileList};
use yew::prelude::*;

use crate::agent::{FileRef, WorkerInput, WorkerOutput};
use crate::components::{ConfigPanel, Header, WorkloadPanel};
use crate::fetch::page_url;
use crate::files::{PickedFiles, file_refs, label_of, revoke};
use crate::hooks::{LabWorkerHandle, use_lab_worker};
use crate::state::{Action, State};

/// Properties of [`App`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct AppProps {
    /// Where the app's static files (the worker's bootstrap `worker.js`, the
    /// sample traces) are, relative to the page and ending in `/`: `./` in the
    /// built app.
    pub asset_base: AttrValue,
}

/// The `blob:` URLs handed to the worker for the current trace and config,
/// released when the next files of the same kind replace them.
#[derive(Default)]
struct OpenFiles {
    traces: Vec<FileRef>,
    configs: Vec<FileRef>,
}

/// The whole page.
#[component]
pub fn App(props: &AppProps) -> Html {
    let state = use_reducer(State::default);
    let worker = use_lab_worker(format!("{}worker.js", props.asset_base).into(), on_output(state.dispatcher()));
    let open_files = use_mut_ref(OpenFiles::default);

    let load_sample = {
        let (worker, state, asset_base) = (worker.clone(), state.dispatcher(), props.asset_base.clone());
        Callback::from(move |name: String| load_sample(&worker, &state, &asset_base, &name))
    };
    let load_preset = {
        let (worker, state) = (worker.clone(), state.dispatcher());
        Callback::from(move |name: String| {
            state.dispatch(Action::ConfigRequested(name.clone()));
            worker.send(WorkerInput::LoadPreset { name });
        })
    };
    let on_files = {
        let (worker, state) = (worker.clone(), state.dispatcher());
        Callback::from(move |list: Option<FileList>| open_picked(&worker, &state, &open_files, list))
    };

    {
        // The embedded defaults: the first sample and the first preset.
        let (load_sample, load_preset) = (load_sample.clone(), load_preset.clone());
        use_effect_with(props.asset_base.clone(), move |_| {
            load_sample.emit(SAMPLE_TRACES[0].name.to_owned());
            if let Some(preset) = presets().first() {
                load_preset.emit(preset.name.clone());
            }
        });
    }

    html! {
        <main class="warplab">
            <Header />
            <WorkloadPanel state={state.workload.clone()} on_sample={load_sample} on_files={on_files.clone()} />
            <ConfigPanel state={state.config.clone()} on_preset={load_preset} on_files={on_files} />
        </main>
    }
}

/// Routes each worker answer to the state.
fn on_output(state: UseReducerDispatcher<State>) -> Callback<WorkerOutput> {
    Callback::from(move |output: WorkerOutput| {
        state.dispatch(match output {
            WorkerOutput::Workload(summary) => Action::WorkloadLoaded(summary),
            WorkerOutput::WorkloadFailed(message) => Action::WorkloadFailed(message),
            WorkerOutput::Config(report) => Action::ConfigLoaded(report),
            WorkerOutput::ConfigFailed(message) => Action::ConfigFailed(message),
        })
    })
}

fn load_sample(worker: &LabWorkerHandle, state: &UseReducerDispatcher<State>, asset_base: &str, name: &str) {
    let Some(sample) = SAMPLE_TRACES.iter().find(|s| s.name == name) else { return };
    state.dispatch(Action::WorkloadRequested(sample.name.to_owned()));
    match page_url(&format!("{asset_base}{}/", sample.dir)) {
        Ok(dir_url) => worker.send(WorkerInput::LoadSample { name: sample.name.to_owned(), dir_url }),
        Err(message) => state.dispatch(Action::WorkloadFailed(message)),
    }
}

/// Sends picked or dropped files to the worker: trace files as a workload,
/// config files as a config (a drop may carry both).
fn open_picked(
    worker: &LabWorkerHandle,
    state: &UseReducerDispatcher<State>,
    open_files: &Rc<RefCell<OpenFiles>>,
    list: Option<FileList>,
) {
    let picked = PickedFiles::from_list(list);
    if picked.traces.is_empty() && picked.configs.is_empty() {
        let message =
            "none of these files is a trace (kernelslist.g, .traceg, .traceg.xz) or a config (.config, .icnt)";
        state.dispatch(Action::WorkloadFailed(message.to_owned()));
        return;
    }
    let mut open = open_files.borrow_mut();
    let traces = Kind { requested: Action::WorkloadRequested, failed: Action::WorkloadFailed, input: trace_input };
    send_picked(worker, state, &picked.traces, &mut open.traces, traces);
    let configs = Kind { requested: Action::ConfigRequested, failed: Action::ConfigFailed, input: config_input };
    send_picked(worker, state, &picked.configs, &mut open.configs, configs);
}

/// How one kind of file (traces or configs) is asked of the worker.
struct Kind {
    requested: fn(String) -> Action,
    failed: fn(String) -> Action,
    input: fn(String, Vec<FileRef>) -> WorkerInput,
}

fn trace_input(label: String, files: Vec<FileRef>) -> WorkerInput {
    WorkerInput::LoadTraceFiles { label, files }
}

fn config_input(label: String, files: Vec<FileRef>) -> WorkerInput {
    WorkerInput::LoadConfigFiles { label, files }
}

/// Hands `files` to the worker as `blob:` URLs, releasing the URLs of the
/// files they replace.
fn send_picked(
    worker: &LabWorkerHandle,
    state: &UseReducerDispatcher<State>,
    files: &[File],
    open: &mut Vec<FileRef>,
    kind: Kind,
) {
    if files.is_empty() {
        return;
    }
    let label = label_of(files);
    state.dispatch((kind.requested)(label.clone()));
    match file_refs(files) {
        Ok(refs) => {
            revoke(&std::mem::replace(open, refs.clone()));
            worker.send((kind.input)(label, refs));
        }
        Err(message) => state.dispatch((kind.failed)(message)),
    }
}
