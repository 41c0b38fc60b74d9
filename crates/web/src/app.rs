//! The root component: holds the page state, owns the worker, and turns what
//! the user picks (a sample, a generator spec, a preset, files) into worker
//! inputs.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use gloo::timers::future::sleep;
use warplab_lab::{GenSpec, SAMPLE_TRACES, generator, presets};
use web_sys::{File, FileList};
use yew::prelude::*;

use warplab_lab::ModelKind;

use crate::agent::{FileRef, RunControl, ScaleRequest, WorkerInput, WorkerOutput};
use crate::analysis_state::{AnalysisAction, AnalysisState};
use crate::components::animation::Speed;
use crate::components::{
    AnalyticalPanel, Animation, AnimationControls, ConfigPanel, EventLog, Header, ReportView, RunPanel, ScalePanel,
    WorkloadPanel,
};
use crate::components::{Glossary, HelpLink};
use crate::fetch::page_url;
use crate::files::{PickedFiles, file_refs, label_of, revoke};
use crate::hooks::{LabWorkerHandle, use_lab_worker, use_scale_progress};
use crate::run_state::{RunAction, RunPhase, RunState};
use crate::scale_state::{ScaleAction, ScaleState};
use crate::state::{Action, Experiment, State, WorkloadChoice};

/// How long the generator form must be still before the worker is asked.
const GENERATOR_DEBOUNCE: Duration = Duration::from_millis(250);

/// Whether host-to-device copies warm the L2, in runs and analyses alike, so
/// the two compare (the page has no switch for it yet).
const MEMCPY_WARMS_L2: bool = false;

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
    let run = use_reducer(RunState::default);
    let analysis = use_reducer(AnalysisState::default);
    let scale = use_reducer(ScaleState::default);
    let outputs = on_output(state.dispatcher(), run.dispatcher(), analysis.dispatcher(), scale.dispatcher());
    let worker = use_lab_worker(format!("{}worker.js", props.asset_base).into(), outputs);
    let scale_dispatcher = scale.dispatcher();
    let progress_channel =
        use_scale_progress(Callback::from(move |progress| scale_dispatcher.dispatch(ScaleAction::Progress(progress))));
    let edits = use_memo((), |()| Rc::new(Cell::new(0)));
    let open_files = use_mut_ref(OpenFiles::default);
    let page = Page {
        worker,
        state: state.dispatcher(),
        asset_base: props.asset_base.clone(),
        edits: (*edits).clone(),
        open_files,
        run: run.dispatcher(),
        analysis: analysis.dispatcher(),
        scale: scale.dispatcher(),
        progress_channel,
    };
    use_default_experiment(&page, state.choice.clone());
    use_regenerate_for_new_config(&page, &state);
    use_analysis_of_each_experiment(&page, &state);
    use_scale_plan_of_each_config(&page, state.config_loads);

    let on_sample = page.callback(|page, name: String| page.load_sample(&name));
    let on_generate = page.callback(|page, spec: GenSpec| page.edit_generator(spec));
    let on_preset = page.callback(|page, name: String| page.load_preset(name));
    let on_files = page.callback(|page, list: Option<FileList>| page.open_picked(list));
    let (speed, watch, ready) = (run.speed, run.watch, state.ready());
    let on_run = page.callback(move |page, ()| ready.into_iter().for_each(|e| page.start_run(speed, watch, e)));
    let on_cancel = page.callback(|page, ()| page.control(RunControl::Cancel));
    let ready = ready.is_some();
    // The preset a config was read from is its base, until the page keeps the experiment's base preset.
    let base_preset = state
        .config
        .current
        .as_ref()
        .and_then(|r| r.label.strip_prefix("preset "))
        .map(|n| AttrValue::from(n.to_owned()));
    let dropped = run.latest.as_ref().map_or(0, |u| u.dropped_events);
    html! {
        <main class="warplab">
            <Header />
            <WorkloadPanel state={state.workload.clone()} choice={state.choice.clone()} {on_sample}
                on_files={on_files.clone()} {on_generate} />
            <ConfigPanel state={state.config.clone()} {base_preset} {on_preset} {on_files} />
            <RunPanel run={(*run).clone()} {ready} {on_run} {on_cancel}>
                if run.latest.is_some() {
                    { controls(&page, &run) }
                }
            </RunPanel>
            if run.snapshot.is_some() {
                <section class="panel animation-panel" data-testid="animation-panel">
                    <h2 title="Every SM with its warps coloured by state, the memory system's queues, and IPC over time">
                        { "The GPU, cycle by cycle" }<HelpLink id="animation" />
                    </h2>
                    <Animation snapshot={run.snapshot.clone()} previous={run.previous.clone()}
                        timeline={run.timeline.clone()} selected_sm={Some(run.watch)}
                        on_select_sm={page.callback(|page, sm| page.control(RunControl::Watch(sm)))} />
                    <EventLog events={run.events.clone()} watch={run.watch} {dropped} />
                </section>
            }
            if let Some(report) = &run.report {
                <section class="panel report-panel">
                    <h2 title="What the timing model measured over the cycles simulated so far">{ "Report" }<HelpLink id="report" /></h2>
                    <ReportView report={report.clone()} />
                </section>
            }
            { analytical_panel(&page, &analysis, &run, state.ready()) }
            { scale_panel(&page, &scale, &analysis, &run, state.ready()) }
            <Glossary />
        </main>
    }
}

/// The analytical panel, with the finished run of the same workload and
/// config to compare with, and its sliders wired to the worker.
fn analytical_panel(page: &Page, analysis: &AnalysisState, run: &RunState, ready: Option<Experiment>) -> Html {
    let same_experiment =
        run.phase == RunPhase::Finished && run.experiment.is_some_and(|e| Some(e) == analysis.experiment);
    let simulated_ipc = run.report.as_ref().filter(|_| same_experiment).map(|report| report.ipc);
    let stale = analysis.experiment.is_some() && analysis.experiment != ready;
    let on_knobs = page.callback(|page, knobs| page.predict(knobs));
    let on_reset = page.callback(|page, ()| page.predict(Vec::new()));
    html! {
        <AnalyticalPanel state={analysis.clone()} {simulated_ipc} {stale} {on_knobs} {on_reset} />
    }
}

/// The scale panel, with the finished run and the analytical models of the
/// loaded config to compare with, and its choices wired to the worker.
fn scale_panel(
    page: &Page,
    scale: &ScaleState,
    analysis: &AnalysisState,
    run: &RunState,
    ready: Option<Experiment>,
) -> Html {
    let finished = run.report.as_ref().filter(|_| run.phase == RunPhase::Finished);
    let simulated = run.experiment.zip(finished.map(|report| report.ipc));
    let mdm = analysis.shown.as_ref().filter(|_| analysis.at_base()).and_then(|r| r.models.get(&ModelKind::Mdm));
    let analytical = analysis.experiment.zip(mdm.map(|prediction| prediction.ipc));
    let on_pair = page.callback(|page, pair| page.plan_scale(Some(pair)));
    let dispatcher = page.scale.clone();
    let on_change = Callback::from(move |action| dispatcher.dispatch(action));
    let request = scale.setup.as_ref().map(|setup| ScaleRequest {
        scale_models: setup.scale_models,
        targets: scale.target_sms().into_iter().collect(),
        rule: scale.rule,
        validate: scale.validate,
        memcpy_warms_l2: MEMCPY_WARMS_L2,
        progress_channel: page.progress_channel.to_string(),
    });
    let on_predict = page.callback(move |page, ()| {
        if let (Some(experiment), Some(request)) = (ready, request.clone()) {
            page.scale(experiment, request);
        }
    });
    // "Use N SMs": an `n_sms` edit of the loaded config, once the page has config edits.
    let on_target_sms = Callback::from(|sms: u32| gloo::console::log!(format!("Use {sms} SMs: not wired yet")));
    html! {
        <ScalePanel state={scale.clone()} {ready} {simulated} {analytical} {on_pair} {on_change} {on_predict}
            {on_target_sms} />
    }
}

/// Play, pause, step, speed and seek, wired to the worker.
fn controls(page: &Page, run: &RunState) -> Html {
    let send = |control: RunControl| page.callback(move |page, ()| page.control(control));
    html! {
        <AnimationControls playing={run.phase == RunPhase::Running} running={run.active()}
            finished={run.phase == RunPhase::Finished} speed={Speed::from_cycles_per_second(run.speed)}
            on_play={send(RunControl::Resume)} on_pause={send(RunControl::Pause)}
            on_step_cycle={send(RunControl::StepCycle)} on_step_event={send(RunControl::StepEvent)}
            on_speed={page.callback(|page, speed: Speed| page.control(RunControl::Speed(speed.cycles_per_second())))}
            on_seek={page.callback(|page, cycle| page.control(RunControl::Seek(cycle)))} />
    }
}

/// On mount: the first preset, and the workload of the initial state (a
/// generator run, so nothing is downloaded).
#[hook]
fn use_default_experiment(page: &Page, initial: WorkloadChoice) {
    let page = page.clone();
    use_effect_with(page.asset_base.clone(), move |_| {
        if let Some(preset) = presets().first() {
            page.load_preset(preset.name.clone());
        }
        if let WorkloadChoice::Generated(spec) = initial {
            page.generate(spec);
        }
    });
}

/// When a config loads, a workload its generator sizes for the config is
/// generated again.
#[hook]
fn use_regenerate_for_new_config(page: &Page, state: &State) {
    let page = page.clone();
    let spec = state.choice.spec().filter(|spec| generator(&spec.kernel).is_some_and(|g| g.uses_config)).cloned();
    use_effect_with(state.config_loads, move |&loads| {
        if let Some(spec) = spec.filter(|_| loads > 0) {
            page.generate(spec);
        }
    });
}

/// Analyzes each workload and config once both have loaded, unless the
/// workload is about to be generated again for a config that just loaded.
#[hook]
fn use_analysis_of_each_experiment(page: &Page, state: &State) {
    let page = page.clone();
    let resized = state.choice.spec().is_some_and(|spec| generator(&spec.kernel).is_some_and(|g| g.uses_config));
    let awaiting_regeneration = resized && state.workload_sized_for != state.config_loads;
    let experiment = state.ready().filter(|_| !awaiting_regeneration);
    use_effect_with(experiment, move |experiment| {
        if let Some(experiment) = *experiment {
            page.analyze(experiment);
        }
    });
}

/// Asks for the scale models of each config that loads.
#[hook]
fn use_scale_plan_of_each_config(page: &Page, config_loads: u64) {
    let page = page.clone();
    use_effect_with(config_loads, move |&loads| {
        if loads > 0 {
            page.plan_scale(None);
        }
    });
}

/// Routes each worker answer to the page, run, analysis or scale state.
fn on_output(
    state: UseReducerDispatcher<State>,
    run: UseReducerDispatcher<RunState>,
    analysis: UseReducerDispatcher<AnalysisState>,
    scale: UseReducerDispatcher<ScaleState>,
) -> Callback<WorkerOutput> {
    Callback::from(move |output: WorkerOutput| match output {
        WorkerOutput::Workload(summary) => state.dispatch(Action::WorkloadLoaded(summary)),
        WorkerOutput::WorkloadFailed(message) => state.dispatch(Action::WorkloadFailed(message)),
        WorkerOutput::Config(report) => state.dispatch(Action::ConfigLoaded(report)),
        WorkerOutput::ConfigFailed(message) => state.dispatch(Action::ConfigFailed(message)),
        WorkerOutput::RunUpdated(update) => run.dispatch(RunAction::Updated(update)),
        WorkerOutput::RunReport(report) => run.dispatch(RunAction::Reported(report)),
        WorkerOutput::RunFailed(message) => run.dispatch(RunAction::Failed(message)),
        WorkerOutput::RunCancelled => run.dispatch(RunAction::Cancelled),
        WorkerOutput::Analyzed(result) => analysis.dispatch(AnalysisAction::Analyzed(result)),
        WorkerOutput::Predicted(report) => analysis.dispatch(AnalysisAction::Predicted(report)),
        WorkerOutput::AnalysisFailed(message) => analysis.dispatch(AnalysisAction::Failed(message)),
        WorkerOutput::ScalePlanned(setup) => scale.dispatch(ScaleAction::Planned(setup)),
        WorkerOutput::Scaled(report) => scale.dispatch(ScaleAction::Scaled(report)),
        WorkerOutput::ScaleFailed(message) => scale.dispatch(ScaleAction::Failed(message)),
    })
}

/// What the page's handlers share: the worker, the state, and the pending
/// generator edit.
#[derive(Clone)]
struct Page {
    worker: LabWorkerHandle,
    state: UseReducerDispatcher<State>,
    asset_base: AttrValue,
    /// Counts generator edits; a debounced request goes out only if no edit
    /// or other workload request came after it.
    edits: Rc<Cell<u64>>,
    open_files: Rc<RefCell<OpenFiles>>,
    run: UseReducerDispatcher<RunState>,
    analysis: UseReducerDispatcher<AnalysisState>,
    scale: UseReducerDispatcher<ScaleState>,
    /// The channel the worker posts scale-run progress on.
    progress_channel: AttrValue,
}

impl Page {
    fn callback<T: 'static>(&self, handle: impl Fn(&Page, T) + 'static) -> Callback<T> {
        let page = self.clone();
        Callback::from(move |value| handle(&page, value))
    }

    /// Simulates the loaded workload in the worker.
    fn start_run(&self, speed: u64, watch: u32, experiment: Experiment) {
        self.run.dispatch(RunAction::Requested(experiment));
        self.worker.send(WorkerInput::Run { speed, watch, memcpy_warms_l2: MEMCPY_WARMS_L2 });
    }

    /// Profiles the loaded workload and evaluates the models in the worker.
    fn analyze(&self, experiment: Experiment) {
        self.analysis.dispatch(AnalysisAction::Requested(experiment));
        self.worker.send(WorkerInput::Analyze { memcpy_warms_l2: MEMCPY_WARMS_L2 });
    }

    /// Re-evaluates the models for the loaded config with `knobs` set; a
    /// request still waiting is replaced (see `use_lab_worker`).
    fn predict(&self, knobs: Vec<(String, f64)>) {
        self.analysis.dispatch(AnalysisAction::KnobsSet(knobs.clone()));
        self.worker.send(WorkerInput::Predict { knobs });
    }

    /// Plans scale models of the loaded config (`None`: the worker's choice).
    fn plan_scale(&self, scale_models: Option<[u32; 2]>) {
        self.worker.send(WorkerInput::PlanScale { scale_models });
    }

    /// Runs scale models of the loaded config in the worker.
    fn scale(&self, experiment: Experiment, request: ScaleRequest) {
        self.scale.dispatch(ScaleAction::Requested(experiment));
        self.worker.send(WorkerInput::Scale(request));
    }

    /// Pauses, steps, seeks, changes the speed of or cancels the run.
    fn control(&self, control: RunControl) {
        match control {
            RunControl::Cancel => self.run.dispatch(RunAction::Cancelled),
            RunControl::Speed(speed) => self.run.dispatch(RunAction::SpeedChosen(speed)),
            RunControl::Watch(sm) => self.run.dispatch(RunAction::Watched(sm)),
            _ => {}
        }
        self.worker.send(WorkerInput::Control(control));
    }

    /// Forgets a generator edit still waiting for the user to pause.
    fn cancel_edit(&self) {
        self.edits.set(self.edits.get() + 1);
    }

    fn load_sample(&self, name: &str) {
        let Some(sample) = SAMPLE_TRACES.iter().find(|s| s.name == name) else { return };
        self.cancel_edit();
        self.state.dispatch(Action::WorkloadRequested(WorkloadChoice::Sample(sample.name.to_owned())));
        match page_url(&format!("{}{}/", self.asset_base, sample.dir)) {
            Ok(dir_url) => self.worker.send(WorkerInput::LoadSample { name: sample.name.to_owned(), dir_url }),
            Err(message) => self.state.dispatch(Action::WorkloadFailed(message)),
        }
    }

    fn generate(&self, spec: GenSpec) {
        self.cancel_edit();
        self.state.dispatch(Action::WorkloadRequested(WorkloadChoice::Generated(spec.clone())));
        self.worker.send(WorkerInput::Generate { spec });
    }

    /// Shows the edited spec at once and asks the worker once the form has
    /// been still for [`GENERATOR_DEBOUNCE`].
    fn edit_generator(&self, spec: GenSpec) {
        self.cancel_edit();
        let edit = self.edits.get();
        self.state.dispatch(Action::GeneratorEdited(spec.clone()));
        let page = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            sleep(GENERATOR_DEBOUNCE).await;
            if page.edits.get() == edit {
                page.generate(spec);
            }
        });
    }

    fn load_preset(&self, name: String) {
        self.state.dispatch(Action::ConfigRequested(name.clone()));
        self.worker.send(WorkerInput::LoadPreset { name });
    }

    /// Sends picked or dropped files to the worker: trace files as a workload,
    /// config files as a config (a drop may carry both).
    fn open_picked(&self, list: Option<FileList>) {
        let picked = PickedFiles::from_list(list);
        if picked.traces.is_empty() && picked.configs.is_empty() {
            let message =
                "none of these files is a trace (kernelslist.g, .traceg, .traceg.xz) or a config (.config, .icnt)";
            self.state.dispatch(Action::WorkloadFailed(message.to_owned()));
            return;
        }
        if !picked.traces.is_empty() {
            self.cancel_edit();
        }
        let mut open = self.open_files.borrow_mut();
        let traces = Kind { requested: trace_requested, failed: Action::WorkloadFailed, input: trace_input };
        self.send_picked(&picked.traces, &mut open.traces, traces);
        let configs = Kind { requested: Action::ConfigRequested, failed: Action::ConfigFailed, input: config_input };
        self.send_picked(&picked.configs, &mut open.configs, configs);
    }

    /// Hands `files` to the worker as `blob:` URLs, releasing the URLs of the
    /// files they replace.
    fn send_picked(&self, files: &[File], open: &mut Vec<FileRef>, kind: Kind) {
        if files.is_empty() {
            return;
        }
        let label = label_of(files);
        self.state.dispatch((kind.requested)(label.clone()));
        match file_refs(files) {
            Ok(refs) => {
                revoke(&std::mem::replace(open, refs.clone()));
                self.worker.send((kind.input)(label, refs));
            }
            Err(message) => self.state.dispatch((kind.failed)(message)),
        }
    }
}

/// How one kind of file (traces or configs) is asked of the worker.
struct Kind {
    requested: fn(String) -> Action,
    failed: fn(String) -> Action,
    input: fn(String, Vec<FileRef>) -> WorkerInput,
}

fn trace_requested(label: String) -> Action {
    Action::WorkloadRequested(WorkloadChoice::TraceFiles(label))
}

fn trace_input(label: String, files: Vec<FileRef>) -> WorkerInput {
    WorkerInput::LoadTraceFiles { label, files }
}

fn config_input(label: String, files: Vec<FileRef>) -> WorkerInput {
    WorkerInput::LoadConfigFiles { label, files }
}
