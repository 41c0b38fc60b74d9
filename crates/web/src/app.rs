//! The root component: holds the page state, owns the worker, and turns what
//! the user picks (a sample, a generator spec, a preset, files) into worker
//! inputs.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use gloo::timers::future::sleep;
use warplab_lab::{
    ConfigChoice, ConfigEdit, Experiment as Shared, GenSpec, SAMPLE_TRACES, SimReport,
    WorkloadChoice as SharedWorkload, generator, presets,
};
use web_sys::{File, FileList};
use yew::prelude::*;

use warplab_lab::sampling::SampleMode;
use warplab_lab::scale::{Method, Prediction, ScaleStep, ipc_without_launch};
use warplab_lab::{HEADLINE, ModelKind};

use crate::agent::{FileRef, RunControl, ScalePart, ScaleRequest, WorkerInput, WorkerOutput};
use crate::analysis_state::{AnalysisAction, AnalysisState};
use crate::baseline::{Baseline, Figures};
use crate::components::SLIDER_KNOBS;
use crate::components::animation::Speed;
use crate::components::{
    AnalyticalPanel, Animation, AnimationControls, ConfigPanel, EventLog, FollowRequest, Header, IpcSummary,
    KernelPanel, PerPcPanel, ReportView, SamplingPanel, ScalePanel, SectionNav, StepBanner, Toolbar, WorkloadPanel,
};
use crate::components::{ErrorKey, Glossary, HelpLink, RunIpc, Sampled, ScaleTarget};
use crate::fetch::page_url;
use crate::files::{PickedFiles, file_refs, label_of, revoke};
use crate::hooks::{
    BaselineWorker, LabWorkerHandle, Spawn, use_baseline_worker, use_foldable_panels, use_lab_worker,
    use_scale_progress, use_scroll_to_panel, use_tap_explanations,
};
use crate::kernel_examples::{Example, example, example_in_location};
use crate::kernel_state::{KernelAction, KernelState};
use crate::lab_step::LabStep;
use crate::run_state::{RunAction, RunPhase, RunState};
use crate::scale_state::{CurveWorker, ScaleAction, ScaleState};
use crate::share::{
    address_bytes, current_link, experiment_in_location, experiment_of, lab_step_in_location, link_too_long,
    show_in_location, with_knob, without_knobs,
};
use crate::state::{Action, AwaitedFiles, Experiment, State, WorkloadChoice};

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
    /// The label the config files were chosen under.
    config_label: String,
}

/// The whole page.
#[component]
pub fn App(props: &AppProps) -> Html {
    let state = use_reducer(State::default);
    let run = use_reducer(RunState::default);
    let analysis = use_reducer(AnalysisState::default);
    let scale = use_reducer(ScaleState::default);
    let kernel = use_reducer(KernelState::default);
    let outputs = on_output(state.dispatcher(), run.dispatcher(), kernel.dispatcher());
    let worker_url: AttrValue = format!("{}worker.js", props.asset_base).into();
    let worker = use_lab_worker(worker_url.clone(), Spawn::AtOnce, outputs);
    // Analyses take a worker of their own, so the first run and the first
    // analysis of a page share the two cores instead of following each
    // other, and a slider's preview never waits for a run's slice.
    // It also takes a scale-model run's miss-rate curve when a core is free.
    let on_analysis = on_analysis_output(analysis.dispatcher(), scale.dispatcher());
    let analyst = use_lab_worker(worker_url.clone(), Spawn::AtOnce, on_analysis);
    // Scale-model runs take a worker of their own for up to minutes, so the
    // main worker keeps answering runs and analyses meanwhile.
    let scaler = use_lab_worker(worker_url.clone(), Spawn::AtOnce, on_scale_output(scale.dispatcher()));
    let dispatcher = state.dispatcher();
    let baseliner =
        use_baseline_worker(worker_url, Callback::from(move |f| dispatcher.dispatch(Action::BaselineComputed(f))));
    let scale_dispatcher = scale.dispatcher();
    let progress_channel =
        use_scale_progress(Callback::from(move |progress| scale_dispatcher.dispatch(ScaleAction::Progress(progress))));
    // A phone's reader folds panels and taps for the hover texts (issue 42).
    use_foldable_panels();
    use_tap_explanations();
    let edits = use_memo((), |()| Rc::new(Cell::new(0)));
    let config_edits = use_memo((), |()| Rc::new(Cell::new(0)));
    let open_files = use_mut_ref(OpenFiles::default);
    let link_edits = use_mut_ref(Vec::new);
    let page = Page {
        worker,
        analyst,
        scaler,
        baseliner,
        state: state.dispatcher(),
        asset_base: props.asset_base.clone(),
        edits: (*edits).clone(),
        config_edits: (*config_edits).clone(),
        open_files,
        link_edits,
        run: run.dispatcher(),
        analysis: analysis.dispatcher(),
        scale: scale.dispatcher(),
        kernel: kernel.dispatcher(),
        progress_channel,
    };
    use_experiment_of_the_link(&page);
    use_regenerate_for_new_config(&page, &state);
    let next = use_analysis_and_run_of_each_experiment(&page, &state, &run);
    use_scale_plan_of_each_config(&page, state.config_loads);
    use_stop_on_config_error(&page, &state, &run);
    use_scale_run_of_each_experiment(&page, &scale, &run, &analysis, &state, next);
    use_scale_curve_where_a_core_is_free(&page, &scale, &run, &analysis, next);
    let shared = experiment_of(&state, &run, &scale, &analysis);
    // A handout's link carries its lab step: a banner until dismissed, and the
    // page scrolled to the panel it points at once the run has stopped.
    let lab_step = use_state(|| lab_step_in_location().map(Rc::new));
    let settled = run.report.is_some() || run.phase == RunPhase::Cancelled;
    use_scroll_to_panel(lab_step.as_ref().and_then(|step| step.panel), settled);
    use_effect_with((shared.clone(), (*lab_step).clone()), |(shared, step)| {
        if let Ok(experiment) = shared {
            let _ = show_in_location(experiment, step.as_deref());
        }
    });

    let on_generate = page.callback(|page, spec: GenSpec| page.edit_generator(spec));
    let on_files = page.callback(|page, list: Option<FileList>| page.open_picked(list));
    let on_needed_file = page.callback(|page, list: Option<FileList>| page.add_config_files(list));
    let config_needs = state.config_needs.clone().map(AttrValue::from);
    let base_preset = state.preset.clone().map(AttrValue::from);
    let dropped = run.latest.as_ref().map_or(0, |u| u.dropped_events);
    let run_cycle = run.latest.as_ref().map_or(0, |u| u.cycle);
    let unrecorded =
        run.replay.is_none() && run.speed == 0 && matches!(run.phase, RunPhase::Finished | RunPhase::Running);
    let can_follow = run.active() || run.animation_phase() == RunPhase::Finished;
    // A run of another experiment than the page's is not this one's animation
    // (issue 42, nothing stale): its frames give way to a note until the
    // page's own run starts.
    let animation_stale = run.experiment != state.ready();
    let ended_at =
        run.latest.as_ref().map(|update| update.cycle).filter(|_| run.animation_phase() == RunPhase::Finished);
    html! {
        <main class="warplab">
            { header(&page, &state, &shared) }
            // What stays in view on a wide screen: the toolbar, the links to
            // every section, and the three IPCs.
            <div class="dock" data-testid="dock">
                if let Some(step) = &*lab_step {
                    <StepBanner step={step.clone()} on_dismiss={dismiss_step(&lab_step)} />
                }
                { toolbar(&page, &state, &run) }
                <SectionNav animation={run.snapshot.is_some()} report={run.report.is_some()}
                    sampling={sampling_shown(&run)} />
                { summary(&page, &state, &run, &analysis, &scale, shared.ok()) }
            </div>
            <ErrorKey />
            { kernel_panel(&page, &state, &kernel) }
            // Side by side on a wide screen: what the experiment is, and what
            // the models made of it.
            <div class="columns">
                <div class="column inputs">
                    <WorkloadPanel state={state.workload.clone()} choice={state.choice.clone()} on_files={on_files.clone()}
                        {on_generate} />
                    <ConfigPanel state={state.config.clone()} {base_preset} {on_files} needs_file={config_needs}
                        {on_needed_file} />
                </div>
                <div class="column outputs">
                    if run.snapshot.is_some() {
                        <section class="panel animation-panel" id="animation-panel" data-testid="animation-panel">
                            <h2 title="Every SM with its warps coloured by state, the memory system's queues, and IPC over time">
                                { "The GPU, cycle by cycle" }<HelpLink id="animation" />
                            </h2>
                            if animation_stale {
                                <p class="status" data-testid="animation-pending">
                                    { "Waiting for this experiment's run: the animation starts with it (the frames of \
                                       the run before were of another workload or config)." }
                                </p>
                            } else {
                                { controls(&page, &run) }
                                <Animation snapshot={run.snapshot.clone()} previous={run.previous.clone()}
                                    timeline={run.timeline.clone()} selected_sm={Some(run.watch)} {ended_at}
                                    on_select_sm={page.callback(|page, sm| page.control(RunControl::Watch(sm)))} />
                                <FollowRequest followed={run.followed.clone()} watch={run.watch} can_follow={can_follow}
                                    loads={run.loads.clone()} on_follow={replay_then(&page, &run, |pc| Some(RunControl::Follow(pc)))} />
                                <EventLog events={run.events.clone()} watch={run.watch} {dropped} {run_cycle}
                                    {unrecorded} />
                            }
                        </section>
                    }
                    { sampling_panel(&page, &run) }
                    if let Some(report) = &run.report {
                        <section class="panel report-panel" id="report-panel" data-testid="report-panel">
                            <h2 title="What the timing model measured over the cycles simulated so far">{ "Report" }<HelpLink id="report" /></h2>
                            if report.sampling.is_some() {
                                // Predicted work holds SMs but issues nothing and
                                // sends no traffic (docs/sampling.md), so the
                                // breakdowns are of the detailed part alone.
                                <p class="note" data-testid="report-sampled-note">
                                    { "A sampled run: IPC, cycles and instruction counts include the predicted work; \
                                       issue slots, caches and memory count only what was simulated in detail." }
                                </p>
                            }
                            <ReportView report={report.clone()} />
                        </section>
                    }
                    { per_pc_panel(&state, &kernel) }
                    { analytical_panel(&page, &analysis, &run, &state) }
                    { scale_panel(&page, &scale, &analysis, &run, &state) }
                </div>
            </div>
            <Glossary />
        </main>
    }
}

/// Hides the lab step's banner (and so drops the step from the address).
fn dismiss_step(lab_step: &UseStateHandle<Option<Rc<LabStep>>>) -> Callback<()> {
    let lab_step = lab_step.clone();
    Callback::from(move |()| lab_step.set(None))
}

/// The kernel editor and its listing, while the workload is an authored kernel.
fn kernel_panel(page: &Page, state: &State, kernel: &KernelState) -> Html {
    let WorkloadChoice::Kernel { file, source } = &state.choice else { return Html::default() };
    let edited_file = file.clone();
    let on_change = page.callback(move |page, source: String| page.edit_kernel(&edited_file, source));
    let run_file = file.clone();
    let on_run = page.callback(move |page, source: String| page.compile(run_file.clone(), source));
    let compiling = state.workload.loading.is_some();
    html! {
        <KernelPanel file={file.clone()} source={source.clone()} kernel={kernel.clone()} {compiling} {on_change}
            {on_run} />
    }
}

/// A trace's instructions by PC with what the last run counted there (an
/// authored kernel's show in its listing instead).
fn per_pc_panel(state: &State, kernel: &KernelState) -> Html {
    let (Some(counted), Some(summary)) = (&kernel.counted, &state.workload.current) else { return Html::default() };
    if kernel.authored.is_some() {
        return Html::default();
    }
    let kernels: Vec<AttrValue> = summary.kernels.iter().map(|k| AttrValue::from(k.name.clone())).collect();
    html! { <PerPcPanel counted={counted.clone()} kernels={Rc::new(kernels)} /> }
}

/// The header with the share controls wired to the page.
fn header(page: &Page, state: &State, shared: &Result<Shared, String>) -> Html {
    let unshareable = shared.as_ref().err().map(|why| AttrValue::from(why.clone()));
    let too_long = shared.as_ref().ok().and_then(|experiment| link_too_long(experiment, address_bytes()));
    let copy = page.callback(|_, ()| copy_link());
    let experiment = shared.as_ref().ok().cloned();
    let on_download = page.callback(move |_, ()| {
        if let Some(experiment) = &experiment {
            Page::download(experiment);
        }
    });
    let on_open = page.callback(|page, list: Option<FileList>| page.open_experiment_file(list));
    let on_dismiss = page.callback(|page, ()| page.state.dispatch(Action::Notice(None)));
    html! {
        <Header {unshareable} link_too_long={too_long.map(AttrValue::from)}
            notice={state.notice.clone().map(AttrValue::from)} on_copy={copy} {on_download}
            {on_open} {on_dismiss} />
    }
}

/// The GPU and workload pickers and the run's controls, wired to the page.
fn toolbar(page: &Page, state: &State, run: &UseReducerHandle<RunState>) -> Html {
    let on_sample = page.callback(|page, name: String| page.load_sample(&name));
    let on_generate = page.callback(|page, spec: GenSpec| page.generate(spec));
    let on_preset = page.callback(|page, name: String| page.choose_preset(name, Vec::new()));
    let on_example = page.callback(|page, name: String| page.open_example(example(&name)));
    let (speed, watch, sampling, ready) = (run.speed, run.watch, run.sampling, state.ready());
    let on_run =
        page.callback(move |page, ()| ready.into_iter().for_each(|e| page.start_run(speed, watch, sampling, e)));
    let on_cancel = page.callback(|page, ()| page.control(RunControl::Cancel));
    let on_sampling = page.callback(|page, mode| page.run.dispatch(RunAction::SamplingChosen(mode)));
    let config_label = state.config.current.as_ref().map(|report| report.label.clone()).unwrap_or_default();
    let config_stop = state.config_stop().map(|why| AttrValue::from(why.to_owned()));
    // A run of another experiment than the page's is not this one's progress.
    let other_experiment = run.phase != RunPhase::Idle && run.experiment != ready;
    html! {
        <Toolbar preset={state.preset.clone().map(AttrValue::from)} config_label={AttrValue::from(config_label)}
            n_edits={state.edits.len()} choice={state.choice.clone()} {on_preset} {on_sample} {on_generate} {on_example}
            run={(**run).clone()} ready={ready.is_some()} {on_run} {on_cancel} {sampling} {on_sampling} {config_stop}
            {other_experiment} />
    }
}

/// The three IPCs of the experiment shown, with the pinned baseline's.
fn summary(
    page: &Page,
    state: &State,
    run: &RunState,
    analysis: &AnalysisState,
    scale: &ScaleState,
    shared: Option<Shared>,
) -> Html {
    let ready = state.ready();
    let figures = figures_of(run, analysis, scale, ready);
    let waiting = |why: Option<String>| why.map(AttrValue::from);
    let pending = [
        waiting(run_waiting(run, state)),
        waiting(analysis_waiting(analysis, state)),
        waiting(scale_waiting(scale, run, analysis, state)),
    ];
    let pinned = state.baseline.is_some();
    let can_pin = figures.simulated.is_some() || figures.analytical.is_some();
    let on_pin = page.callback(move |page, ()| {
        let baseline = match (&shared, pinned) {
            (Some(experiment), false) => {
                Some(Box::new(Baseline { experiment: Shared { baseline: None, ..experiment.clone() }, figures }))
            }
            _ => None,
        };
        page.state.dispatch(Action::Pinned(baseline));
    });
    // A target other than the config's own is compared with its own
    // simulation, when the scale-model run validated it.
    let validation = scale.report.as_ref().filter(|_| ready.is_some() && scale.report_for == ready);
    let scale_target = scale.chosen_target().zip(scale.setup.as_ref()).map(|(sms, setup)| ScaleTarget {
        sms,
        whole_gpu_sms: setup.target_sms,
        simulated: validation.and_then(|report| report.validated_ipc(sms)),
    });
    // The simulated card says when its figure is a sampled estimate.
    let sampled =
        figures.simulated.and(run.report.as_ref()).and_then(|report| report.sampling.as_ref()).map(|sampling| {
            Sampled {
                how: AttrValue::from(sampling_label_of(sampling.options.mode)),
                full_ipc: run.comparison.as_ref().map(|comparison| comparison.full_ipc),
            }
        });
    // The scale models leave the launch latency out; so does what they are compared with.
    let simulated_without_launch = figures
        .simulated
        .and(run.report.as_ref())
        .zip(validation)
        .map(|(report, scale_report)| ipc_without_launch(report, scale_report.launch_latency));
    let scale_no_prediction = scale_at_target(scale, ready)
        .and_then(|(prediction, sms)| prediction.no_prediction(sms))
        .map(|none| AttrValue::from(format!("The rule gives none: {none}.")));
    html! {
        <IpcSummary {figures} {pending} baseline={state.baseline.as_ref().map(|b| b.figures)} {on_pin} {can_pin}
            {scale_target} {simulated_without_launch} {sampled} {scale_no_prediction} />
    }
}

/// What a figure of the experiment on the page waits for when nothing has
/// loaded that it could be computed for; `None` once it can.
fn experiment_waiting(state: &State) -> Option<String> {
    if state.ready().is_some() {
        return None;
    }
    Some(match state.config_stop() {
        Some(_) => "not computed: the GPU config asked for did not load".to_owned(),
        None => "waiting for the workload and the GPU config to load".to_owned(),
    })
}

/// What the simulated figure of the experiment on the page waits for.
fn run_waiting(run: &RunState, state: &State) -> Option<String> {
    if let Some(why) = experiment_waiting(state) {
        return Some(why);
    }
    let done = run.latest.as_ref().map_or(0.0, |u| 100.0 * u.warp_insts as f64 / u.total_warp_insts.max(1) as f64);
    Some(match run.phase {
        _ if run.experiment != state.ready() => "waiting to simulate this workload and config".to_owned(),
        RunPhase::Idle => "press Run to simulate".to_owned(),
        RunPhase::Starting => "starting the simulation".to_owned(),
        RunPhase::Running => format!("simulating, {done:.0}% issued"),
        RunPhase::Paused => format!("paused at {done:.0}%: a figure comes when the run ends"),
        RunPhase::Finished => "reading the report".to_owned(),
        RunPhase::Cancelled => "cancelled: press Run to simulate".to_owned(),
    })
}

/// What the headline model's figure of the experiment on the page waits for.
fn analysis_waiting(analysis: &AnalysisState, state: &State) -> Option<String> {
    if let Some(why) = experiment_waiting(state) {
        return Some(why);
    }
    Some(if analysis.analyzing.is_some() {
        "profiling the workload".to_owned()
    } else if !analysis.knobs.is_empty() || analysis.predicting {
        "the knobs moved: their figures are in the Analytical panel".to_owned()
    } else if analysis.error.is_some() {
        "not computed: see the Analytical panel".to_owned()
    } else {
        "waiting to profile this workload and config".to_owned()
    })
}

/// What the scale-model figure of the experiment on the page waits for
/// (`None` where the card has something else to say: a figure, or why the
/// rule or the config gives none).
fn scale_waiting(scale: &ScaleState, run: &RunState, analysis: &AnalysisState, state: &State) -> Option<String> {
    if let Some(why) = experiment_waiting(state) {
        return Some(why);
    }
    let ready = state.ready();
    let setup = scale.setup.as_ref().filter(|setup| Some(setup.config) == ready.map(|e| e.config));
    if scale.running.is_some() && scale.simulations.is_some() {
        return Some(ScaleStep::Curve.describe());
    }
    if scale.running.is_some() {
        let step = scale.progress.as_ref().map(|p| format!("step {} of {}: {}", p.step, p.steps, p.what));
        return Some(step.unwrap_or_else(|| "starting the scale models".to_owned()));
    }
    Some(match setup {
        None => "waiting for the scale models of this config to be planned".to_owned(),
        Some(setup) if setup.error.is_some() => {
            "no prediction: no scale models divide this config (see the Scale model panel)".to_owned()
        }
        Some(_) if scale.report_for == ready => return None,
        Some(_) if scale.requested == ready && scale.cancelled => {
            "cancelled: Predict in the Scale model panel runs it again".to_owned()
        }
        Some(_) if scale.requested == ready => "not computed: see the Scale model panel".to_owned(),
        Some(_) if scale_may_start(run, analysis, ready) => "waiting to simulate the scale models".to_owned(),
        Some(_) if cores_beside_run() > 0 => {
            "waits for a free core: the profile's or the simulation's (the scale models come next)".to_owned()
        }
        Some(_) => "waits for the simulation to end (it takes every core; the scale models come next)".to_owned(),
    })
}

/// The IPC strip's name of a sampling mode: the select's, capitalized.
fn sampling_label_of(mode: SampleMode) -> String {
    let label = crate::components::toolbar::sampling_label(mode);
    let mut chars = label.chars();
    chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
}

/// The sampling panel of a finished sampled run, with "Run in full to
/// compare" wired to the main worker.
/// The report and mode of a sampled run that finished: what the sampling
/// panel shows.
fn sampled_report(run: &RunState) -> Option<(&Rc<SimReport>, SampleMode)> {
    let report = run.report.as_ref().filter(|_| run.phase == RunPhase::Finished)?;
    Some((report, report.sampling.as_ref()?.options.mode))
}

/// Whether the sampling panel shows.
fn sampling_shown(run: &RunState) -> bool {
    sampled_report(run).is_some()
}

fn sampling_panel(page: &Page, run: &RunState) -> Html {
    let Some((report, mode)) = sampled_report(run) else { return html! {} };
    let on_compare = page.callback(move |page, ()| page.compare_sampling(mode));
    html! {
        <SamplingPanel report={report.clone()} comparison={run.comparison.clone()} comparing={run.comparing}
            error={run.compare_error.clone().map(AttrValue::from)} {on_compare} />
    }
}

/// The three IPCs the page has for the experiment `ready`: a finished run's,
/// the headline model's (`HEADLINE`, with MDM's as published beside it) at
/// the config's own values, the scale-model prediction at the target (the
/// config's own SM count unless the user chose another).
fn figures_of(run: &RunState, analysis: &AnalysisState, scale: &ScaleState, ready: Option<Experiment>) -> Figures {
    let current = |of: Option<Experiment>| ready.is_some() && of == ready;
    let simulated = run.report.as_ref().filter(|_| run.phase == RunPhase::Finished && current(run.experiment));
    let models = analysis.base_figures_for(ready);
    let ipc_of = |model: ModelKind| models.and_then(|r| r.models.get(&model)).map(|prediction| prediction.ipc);
    // A rule that gives no prediction has no figure; the card says why.
    let scale_ipc = scale_at_target(scale, ready)
        .filter(|(prediction, sms)| prediction.no_prediction(*sms).is_none())
        .and_then(|(prediction, sms)| prediction.ipc(Method::ScaleModel, sms));
    Figures {
        simulated: simulated.map(|report| report.ipc),
        analytical: ipc_of(HEADLINE),
        mdm: ipc_of(ModelKind::Mdm),
        scale: scale_ipc,
    }
}

/// The scale-model prediction for the experiment `ready` and its target size.
fn scale_at_target(scale: &ScaleState, ready: Option<Experiment>) -> Option<(&Prediction, u32)> {
    scale.prediction().filter(|_| ready.is_some() && scale.report_for == ready).zip(scale.target_sms())
}

/// The analytical panel, with the finished run of the same workload and
/// config to compare with, and its sliders wired to the worker.
fn analytical_panel(page: &Page, analysis: &AnalysisState, run: &RunState, state: &State) -> Html {
    let ready = state.ready();
    let same_experiment =
        run.phase == RunPhase::Finished && run.experiment.is_some_and(|e| Some(e) == analysis.experiment);
    let simulated_ipc = run.report.as_ref().filter(|_| same_experiment).map(|report| report.ipc);
    let waiting = analysis_waiting(analysis, state).map(AttrValue::from);
    let edits = state.edits.clone();
    let on_knobs = page.callback(move |page, knobs: Vec<(String, f64)>| {
        let edited = knobs.iter().fold(edits.clone(), |edits, (name, value)| with_knob(&edits, name, *value));
        page.predict(knobs);
        page.edit_config(edited);
    });
    // Reset drops the sliders' edits: the config is the preset's (or the
    // files') with only the other edits again.
    let slider_edits = without_knobs(&state.edits, &SLIDER_KNOBS).len() < state.edits.len();
    let edits = state.edits.clone();
    let on_reset = page.callback(move |page, ()| {
        page.predict(Vec::new());
        page.edit_config(without_knobs(&edits, &SLIDER_KNOBS));
    });
    let analysis_dispatch = page.analysis.clone();
    let on_paper_models_only =
        Callback::from(move |only| analysis_dispatch.dispatch(AnalysisAction::PaperModelsOnly(only)));
    html! {
        <AnalyticalPanel state={analysis.clone()} {simulated_ipc} {ready} {waiting} {on_knobs} {on_reset} {slider_edits}
            {on_paper_models_only} />
    }
}

/// The scale panel, with the finished run and the analytical models of the
/// loaded config to compare with, and its choices wired to the worker.
fn scale_panel(page: &Page, scale: &ScaleState, analysis: &AnalysisState, run: &RunState, state: &State) -> Html {
    let ready = state.ready();
    let finished = run.report.as_ref().filter(|_| run.phase == RunPhase::Finished);
    // Compared without the launch latency, as the scale models measure.
    let latency = scale.report.as_ref().map_or(0, |report| report.launch_latency);
    let simulated = run.experiment.zip(
        finished.map(|report| RunIpc { without_launch: ipc_without_launch(report, latency), with_launch: report.ipc }),
    );
    let waiting = scale_waiting(scale, run, analysis, state).map(AttrValue::from);
    let headline = analysis.base_figures_for(ready).and_then(|r| r.models.get(&HEADLINE));
    let analytical = ready.zip(headline.map(|prediction| prediction.ipc));
    let config = state.config_loads;
    let on_pair = page.callback(move |page, pair| {
        page.scale.dispatch(ScaleAction::PairChosen(pair));
        page.plan_scale(Some(pair), config);
    });
    let dispatcher = page.scale.clone();
    let on_change = Callback::from(move |action| dispatcher.dispatch(action));
    let request = scale_request(page, scale, state);
    let on_predict = page.callback(move |page, ()| {
        if let (Some(experiment), Some(request)) = (ready, request.clone()) {
            page.scale(experiment, request);
        }
    });
    let on_cancel = page.callback(|page, ()| page.cancel_scale());
    // "Use N SMs": an `n_sms` edit of the experiment's config.
    let edits = state.edits.clone();
    let on_target_sms =
        page.callback(move |page, sms: u32| page.edit_config(with_knob(&edits, "n_sms", f64::from(sms))));
    html! {
        <ScalePanel state={scale.clone()} {ready} {simulated} {analytical} {on_pair} {on_change} {on_predict}
            {on_cancel} {on_target_sms} generated={state.choice.spec().is_some()} {waiting} />
    }
}

/// Replays the finished run, if it has finished, then sends `control`
/// (following a request on a finished run follows its replay's first miss).
fn replay_then<T: 'static>(
    page: &Page,
    run: &RunState,
    control: impl Fn(T) -> Option<RunControl> + 'static,
) -> Callback<T> {
    let finished = run.animation_phase() == RunPhase::Finished;
    let (speed, watch, sampling) = (run.replay_speed_or_default(), run.watch, run.sampling);
    page.callback(move |page, value| {
        if finished {
            page.replay(speed, watch, sampling);
        }
        control(value).into_iter().for_each(|control| page.control(control));
    })
}

/// Play, pause, step, speed and seek, wired to the worker.
fn controls(page: &Page, run: &RunState) -> Html {
    let send = |control: RunControl| page.callback(move |page, ()| page.control(control));
    let on_replay = replay_then(page, run, |()| None);
    html! {
        <AnimationControls playing={run.animation_phase() == RunPhase::Running} running={run.active()}
            finished={run.animation_phase() == RunPhase::Finished} speed={Speed::from_cycles_per_second(run.animation_speed())}
            {on_replay} replay={run.phase == RunPhase::Finished}
            on_play={send(RunControl::Resume)} on_pause={send(RunControl::Pause)}
            on_step_cycle={send(RunControl::StepCycle)} on_step_event={send(RunControl::StepEvent)}
            on_speed={page.callback(|page, speed: Speed| page.control(RunControl::Speed(speed.cycles_per_second())))}
            on_seek={page.callback(|page, cycle| page.control(RunControl::Seek(cycle)))} />
    }
}

/// On mount: the experiment of the page's link (`#x=...`), or the default
/// one (the first preset and a generator run, so nothing is downloaded)
/// with a message when the link cannot be opened.
#[hook]
fn use_experiment_of_the_link(page: &Page) {
    let page = page.clone();
    use_effect_with(page.asset_base.clone(), move |_| match experiment_in_location() {
        Some(Ok(experiment)) => page.open_experiment(&experiment),
        Some(Err(message)) => {
            page.state.dispatch(Action::Notice(Some(message)));
            page.open_experiment(&default_experiment());
        }
        None => page.open_experiment(&example_in_location().map_or_else(default_experiment, example_experiment)),
    });
}

/// The default experiment with an example kernel as its workload (a link
/// ending in `#example=NAME`).
fn example_experiment(example: &Example) -> Shared {
    let workload = SharedWorkload::Kernel { name: example.file(), source: example.source.to_owned() };
    Shared { workload, ..default_experiment() }
}

/// The first preset and the default generator.
fn default_experiment() -> Shared {
    let preset = presets().first().map(|p| p.name.clone()).unwrap_or_default();
    Shared::new(&preset, SharedWorkload::Generated(GenSpec::new(crate::state::DEFAULT_GENERATOR)))
}

/// When a config loads, a workload its generator sizes for the config is
/// generated again.
#[hook]
fn use_regenerate_for_new_config(page: &Page, state: &State) {
    let page = page.clone();
    let spec = state.choice.spec().filter(|spec| generator(&spec.kernel).is_some_and(|g| g.uses_config)).cloned();
    // A kernel compiles for the config (its shared memory, its SASS's
    // binary version), so it compiles again too.
    let kernel = match &state.choice {
        WorkloadChoice::Kernel { file, source } => Some((file.clone(), source.clone())),
        _ => None,
    };
    use_effect_with(state.config_loads, move |&loads| {
        if let Some(spec) = spec.filter(|_| loads > 0) {
            page.generate(spec);
        }
        if let Some((file, source)) = kernel.filter(|_| loads > 0) {
            page.compile(file, source);
        }
    });
}

/// Analyzes and simulates each workload and config once both have loaded,
/// unless the workload is about to be generated again for a config that
/// just loaded; simulates again when the sampling mode changes (the models'
/// analysis does not depend on it); returns the experiment that is ready,
/// if any.
#[hook]
fn use_analysis_and_run_of_each_experiment(page: &Page, state: &State, run: &RunState) -> Option<Experiment> {
    let resized = state.choice.spec().is_some_and(|spec| generator(&spec.kernel).is_some_and(|g| g.uses_config))
        || matches!(state.choice, WorkloadChoice::Kernel { .. });
    let awaiting_regeneration = resized && state.workload_sized_for != state.config_loads;
    let experiment = state.ready().filter(|_| !awaiting_regeneration);
    let analyzer = page.clone();
    use_effect_with(experiment, move |experiment| {
        if let Some(experiment) = *experiment {
            analyzer.analyze(experiment);
        }
    });
    let (page, speed, watch) = (page.clone(), run.speed, run.watch);
    use_effect_with((experiment, run.sampling), move |&(experiment, sampling)| {
        if let Some(experiment) = experiment {
            page.start_run(speed, watch, sampling, experiment);
        }
    });
    experiment
}

/// Cancels the run when the config asked for fails to load: the run is of
/// the config before, which is no longer the experiment asked for, and
/// nothing replaces it until a config loads (the toolbar says why). While a
/// new workload or config merely loads, the run goes on (a failed load
/// gives it back), but the toolbar does not show its progress as the new
/// experiment's (`other_experiment`), and the new experiment's own run
/// cancels it once it is ready (`Page::start_run`).
#[hook]
fn use_stop_on_config_error(page: &Page, state: &State, run: &RunState) {
    let page = page.clone();
    let going = matches!(run.phase, RunPhase::Starting | RunPhase::Running | RunPhase::Paused);
    use_effect_with(state.config_stop().is_some() && going, move |&stop| {
        if stop {
            page.control(RunControl::Cancel);
        }
    });
}

/// Predicts with the scale models of each experiment that becomes ready, in
/// the third worker, as soon as it has a core ([`scale_may_start`]).
/// One scale run at a time, each experiment asked for once: the worker
/// answers in order, so a run asked for while another is in flight would
/// be taken for that one's answer; the next waits, and an answer for an
/// experiment that is no longer shown is kept under its own and not shown.
#[hook]
fn use_scale_run_of_each_experiment(
    page: &Page,
    scale: &ScaleState,
    run: &RunState,
    analysis: &AnalysisState,
    state: &State,
    ready: Option<Experiment>,
) {
    let due = scale.run_due(ready, scale_may_start(run, analysis, ready));
    let page = page.clone();
    let request = scale_request(&page, scale, state);
    use_effect_with(due, move |due| {
        if let (Some(experiment), Some(request)) = (*due, request) {
            page.scale(experiment, request);
        }
    });
}

/// Asks for the running scale-model run's miss-rate curve as soon as a
/// worker is free for it ([`ScaleState::curve_due`]): the analyst, where one
/// more simulating worker fits on the cores ([`curve_may_start`]), else the
/// scale worker once its simulations have ended. On two cores that is the
/// analyst once the run has ended, while the scale worker still simulates:
/// the core the run leaves does not stay idle until the scale models end
/// (docs/performance.md). A run whose experiment the page no longer shows is
/// dropped before its curve is asked for.
#[hook]
fn use_scale_curve_where_a_core_is_free(
    page: &Page,
    scale: &ScaleState,
    run: &RunState,
    analysis: &AnalysisState,
    ready: Option<Experiment>,
) {
    let due = scale.curve_due(ready, curve_may_start(run, analysis));
    let superseded = scale.superseded(ready);
    let request = due.and_then(|_| scale.curve_request());
    let page = page.clone();
    use_effect_with((due, superseded), move |&(due, superseded)| {
        if superseded {
            page.scale.dispatch(ScaleAction::Superseded);
        } else if let (Some(worker), Some(request)) = (due, request) {
            page.scale_curve(worker, request);
        }
    });
}

/// Whether one more worker may simulate beside the scale models: the run
/// (while it runs, on its threads), the analyst's profile (while it runs),
/// the scale worker and the curve's worker together take no more than the
/// cores.
fn curve_may_start(run: &RunState, analysis: &AnalysisState) -> bool {
    let (cores, run_threads) = cores_and_run_threads();
    let run_busy = matches!(run.phase, RunPhase::Starting | RunPhase::Running);
    let busy = if run_busy { run_threads } else { 0 } + u32::from(analysis.analyzing.is_some()) + 2;
    busy <= cores
}

/// Whether the scale models of `ready` may be simulated now: at once if the
/// run leaves a core for them beside the page's own thread; once the
/// analyst's profile of the same experiment has ended if it leaves one (on
/// two cores the profile ends long before the run, and the scale models
/// taking its core bring the last of the three IPCs about a run's time
/// sooner; docs/performance.md); otherwise once the run has ended. So no
/// more workers simulate at once than there are cores, and the page's clicks
/// never wait behind them.
fn scale_may_start(run: &RunState, analysis: &AnalysisState, ready: Option<Experiment>) -> bool {
    let ran = ready.is_some() && run.experiment == ready && run.phase == RunPhase::Finished;
    let profiled = ready.is_some() && analysis.experiment == ready && analysis.analyzing.is_none();
    let spare = cores_beside_run();
    ran || spare >= 2 || spare >= 1 && profiled
}

/// The cores the browser reports beyond those the run takes: one in the
/// single-thread build; in the threaded build, which `worker.js` loads where
/// the page is cross-origin isolated, one per thread of its pool (every core,
/// at most [`crate::MAX_RUN_THREADS`]).
fn cores_beside_run() -> u32 {
    let (cores, run_threads) = cores_and_run_threads();
    cores.saturating_sub(run_threads)
}

/// The cores the browser reports, and the threads a run takes of them.
fn cores_and_run_threads() -> (u32, u32) {
    let Some(window) = web_sys::window() else { return (0, 1) };
    let cores = window.navigator().hardware_concurrency() as u32;
    let isolated =
        js_sys::Reflect::get(&window, &"crossOriginIsolated".into()).is_ok_and(|v| v.as_bool() == Some(true));
    let run_threads = if isolated { cores.min(crate::MAX_RUN_THREADS as u32) } else { 1 };
    (cores, run_threads)
}

/// The scale-model run the panel's choices describe (weak scaling only for a
/// generated workload, the only kind that can grow with the GPU).
fn scale_request(page: &Page, scale: &ScaleState, state: &State) -> Option<ScaleRequest> {
    scale.setup.as_ref().map(|setup| ScaleRequest {
        scale_models: setup.scale_models,
        targets: scale.target_sms().into_iter().collect(),
        rule: scale.rule,
        validate: scale.validate,
        weak: scale.weak && state.choice.spec().is_some(),
        memcpy_warms_l2: MEMCPY_WARMS_L2,
        progress_channel: page.progress_channel.to_string(),
        part: ScalePart::Simulations,
    })
}

/// Asks for the scale models of each config that loads.
#[hook]
fn use_scale_plan_of_each_config(page: &Page, config_loads: u64) {
    let page = page.clone();
    use_effect_with(config_loads, move |&loads| {
        if loads > 0 {
            page.plan_scale(None, loads);
        }
    });
}

/// Routes the main worker's answers (loads and runs) to the page and run
/// state; analyses and scale models have workers of their own.
fn on_output(
    state: UseReducerDispatcher<State>,
    run: UseReducerDispatcher<RunState>,
    kernel: UseReducerDispatcher<KernelState>,
) -> Callback<WorkerOutput> {
    Callback::from(move |output: WorkerOutput| match output {
        WorkerOutput::Workload(summary, hash) => {
            kernel.dispatch(KernelAction::OtherWorkload);
            state.dispatch(Action::WorkloadLoaded(summary, hash));
        }
        WorkerOutput::WorkloadFailed(message) => state.dispatch(Action::WorkloadFailed(message)),
        WorkerOutput::Compiled(authored, summary) => {
            kernel.dispatch(KernelAction::Compiled(authored));
            state.dispatch(Action::WorkloadLoaded(summary, None));
        }
        WorkerOutput::KernelFailed(error) => {
            state.dispatch(Action::WorkloadFailed(error.headline.clone()));
            kernel.dispatch(KernelAction::Failed(error));
        }
        WorkerOutput::PerPc(counted) => kernel.dispatch(KernelAction::Counted(counted)),
        WorkerOutput::Config(report, origin) => state.dispatch(Action::ConfigLoaded(report, origin)),
        WorkerOutput::ConfigFailed(message) => state.dispatch(Action::ConfigFailed(message)),
        WorkerOutput::ConfigNeedsFile { file, message } => state.dispatch(Action::ConfigNeedsFile { file, message }),
        WorkerOutput::RunUpdated(update) => run.dispatch(RunAction::Updated(update, js_sys::Date::now())),
        WorkerOutput::RunReport(report) => run.dispatch(RunAction::Reported(report)),
        WorkerOutput::RunFailed(message) => run.dispatch(RunAction::Failed(message)),
        WorkerOutput::RunCancelled => run.dispatch(RunAction::CancelAcknowledged),
        WorkerOutput::SamplingCompared(comparison) => run.dispatch(RunAction::Compared(comparison)),
        WorkerOutput::CompareFailed(message) => run.dispatch(RunAction::CompareFailed(message)),
        _ => {}
    })
}

/// Routes the analysis worker's answers to the analysis state; its answers
/// to the loads it shares with the main worker are the main worker's too,
/// and dropped.
fn on_analysis_output(
    analysis: UseReducerDispatcher<AnalysisState>,
    scale: UseReducerDispatcher<ScaleState>,
) -> Callback<WorkerOutput> {
    Callback::from(move |output: WorkerOutput| match output {
        WorkerOutput::Analyzed(result) => analysis.dispatch(AnalysisAction::Analyzed(result)),
        WorkerOutput::Predicted(report) => analysis.dispatch(AnalysisAction::Predicted(report)),
        WorkerOutput::AnalysisFailed(message) => analysis.dispatch(AnalysisAction::Failed(message)),
        WorkerOutput::ScaleCurved(curve) => scale.dispatch(ScaleAction::Curved(curve)),
        WorkerOutput::CurveFailed(message) => scale.dispatch(ScaleAction::CurveFailed(message)),
        _ => {}
    })
}

/// Routes the scale worker's answers to the scale state; its answers to the
/// loads it shares with the main worker are the main worker's too, and
/// dropped.
fn on_scale_output(scale: UseReducerDispatcher<ScaleState>) -> Callback<WorkerOutput> {
    Callback::from(move |output: WorkerOutput| match output {
        WorkerOutput::ScalePlanned(setup) => scale.dispatch(ScaleAction::Planned(setup)),
        WorkerOutput::Scaled(report) => scale.dispatch(ScaleAction::Scaled(report)),
        WorkerOutput::ScaleSimulated(simulations) => scale.dispatch(ScaleAction::Simulated(simulations)),
        WorkerOutput::ScaleCurved(curve) => scale.dispatch(ScaleAction::Curved(curve)),
        WorkerOutput::ScaleFailed(message) => scale.dispatch(ScaleAction::Failed(message)),
        WorkerOutput::CurveFailed(message) => scale.dispatch(ScaleAction::CurveFailed(message)),
        _ => {}
    })
}

/// Copies the page's address, which always carries the experiment.
fn copy_link() {
    let Some((window, link)) = web_sys::window().zip(current_link()) else { return };
    let _ = window.navigator().clipboard().write_text(&link);
}

/// What the page's handlers share: the workers, the state, and the pending
/// generator and config edits.
#[derive(Clone)]
struct Page {
    /// Runs and loads.
    worker: LabWorkerHandle,
    /// Analyses and predictions, with the same loads as `worker`.
    analyst: LabWorkerHandle,
    /// Scale-model plans and runs, with the same loads as `worker`.
    scaler: LabWorkerHandle,
    /// The figures of a baseline a link carried.
    baseliner: BaselineWorker,
    state: UseReducerDispatcher<State>,
    asset_base: AttrValue,
    /// Counts generator edits; a debounced request goes out only if no edit
    /// or other workload request came after it.
    edits: Rc<Cell<u64>>,
    /// Counts config edits, for the same debounce.
    config_edits: Rc<Cell<u64>>,
    open_files: Rc<RefCell<OpenFiles>>,
    /// The edits of a link that named the user's config files, applied when
    /// config files open.
    link_edits: Rc<RefCell<Vec<ConfigEdit>>>,
    run: UseReducerDispatcher<RunState>,
    analysis: UseReducerDispatcher<AnalysisState>,
    scale: UseReducerDispatcher<ScaleState>,
    kernel: UseReducerDispatcher<KernelState>,
    /// The channel the worker posts scale-run progress on.
    progress_channel: AttrValue,
}

impl Page {
    fn callback<T: 'static>(&self, handle: impl Fn(&Page, T) + 'static) -> Callback<T> {
        let page = self.clone();
        Callback::from(move |value| handle(&page, value))
    }

    /// Simulates the loaded workload in the worker, after a cancel of any
    /// run before it, whose acknowledgement tells the page where that run's
    /// outputs end.
    fn start_run(&self, speed: u64, watch: u32, sampling: SampleMode, experiment: Experiment) {
        self.run.dispatch(RunAction::Requested(experiment));
        self.send_run(speed, watch, sampling);
    }

    /// Simulates the finished run again for the animation, at the replay
    /// speed (the simulation is deterministic, so it is the same run).
    fn replay(&self, speed: u64, watch: u32, sampling: SampleMode) {
        self.run.dispatch(RunAction::ReplayRequested);
        self.send_run(speed, watch, sampling);
    }

    fn send_run(&self, speed: u64, watch: u32, sampling: SampleMode) {
        self.worker.send(WorkerInput::Control(RunControl::Cancel));
        self.worker.send(WorkerInput::Run { speed, watch, memcpy_warms_l2: MEMCPY_WARMS_L2, sampling });
    }

    /// Simulates the loaded workload sampled with `sampling` and in full in
    /// the main worker (idle once its run has finished), for the sampling
    /// panel's error and speedup.
    fn compare_sampling(&self, sampling: SampleMode) {
        self.run.dispatch(RunAction::CompareRequested);
        self.worker.send(WorkerInput::CompareSampling { sampling, memcpy_warms_l2: MEMCPY_WARMS_L2 });
    }

    /// Profiles the loaded workload and evaluates the models in the worker.
    fn analyze(&self, experiment: Experiment) {
        self.analysis.dispatch(AnalysisAction::Requested(experiment));
        self.analyst.send(WorkerInput::Analyze { memcpy_warms_l2: MEMCPY_WARMS_L2 });
    }

    /// Re-evaluates the models for the loaded config with `knobs` set; a
    /// request still waiting is replaced (see `use_lab_worker`).
    fn predict(&self, knobs: Vec<(String, f64)>) {
        self.analysis.dispatch(AnalysisAction::KnobsSet(knobs.clone()));
        self.analyst.send(WorkerInput::Predict { knobs });
    }

    /// Plans scale models of the loaded config (`None`: the worker's choice).
    fn plan_scale(&self, scale_models: Option<[u32; 2]>, config: u64) {
        self.scaler.send(WorkerInput::PlanScale { scale_models, config });
    }

    /// Simulates scale models of the loaded config in the scale worker (its
    /// curve is asked for when a worker is free for it).
    fn scale(&self, experiment: Experiment, request: ScaleRequest) {
        self.scale.dispatch(ScaleAction::Requested(experiment, Box::new(request.clone())));
        self.scaler.send(WorkerInput::Scale(request));
    }

    /// Asks `worker` for the running scale-model run's miss-rate curve.
    fn scale_curve(&self, worker: CurveWorker, request: ScaleRequest) {
        self.scale.dispatch(ScaleAction::CurveAsked(worker));
        let to = match worker {
            CurveWorker::Analyst => &self.analyst,
            CurveWorker::Scaler => &self.scaler,
        };
        to.send(WorkerInput::Scale(request));
    }

    /// Stops the scale-model run: its worker is terminated (it reads no
    /// message until the run ends) and a new one loaded in its place.
    fn cancel_scale(&self) {
        self.scale.dispatch(ScaleAction::Cancelled);
        self.scaler.restart();
    }

    /// A load every worker makes, so each holds the same config and workload.
    fn load(&self, input: WorkerInput) {
        self.scaler.send(input.clone().kept_only());
        self.analyst.send(input.clone().kept_only());
        self.worker.send(input);
    }

    /// Shows `experiment`: its config, workload, scale options and view,
    /// asking for the files of a link that names the user's own.
    fn open_experiment(&self, experiment: &Shared) {
        let mut awaited = AwaitedFiles::default();
        let mut asked = Vec::new();
        match &experiment.config {
            ConfigChoice::Preset(name) => self.choose_preset(name.clone(), experiment.edits.clone()),
            ConfigChoice::Files { name, hash } => {
                awaited.config = Some(*hash);
                *self.link_edits.borrow_mut() = experiment.edits.clone();
                asked.push(format!("its config files ({name}, content hash {})", String::from(*hash)));
            }
        }
        match &experiment.workload {
            SharedWorkload::Sample(name) => self.load_sample(name),
            SharedWorkload::Generated(spec) => self.generate(spec.clone()),
            SharedWorkload::Kernel { name, source } => self.compile(name.clone(), source.clone()),
            SharedWorkload::Trace { name, hash } => {
                awaited.trace = Some(*hash);
                asked.push(format!("its trace files ({name}, content hash {})", String::from(*hash)));
            }
        }
        self.state.dispatch(Action::Awaiting(awaited));
        if !asked.is_empty() {
            let files = asked.join(" and ");
            self.state.dispatch(Action::Notice(Some(format!(
                "This experiment was made with the user's own files, which a link cannot carry: open {files} to \
                 continue (the page checks their hashes)."
            ))));
        }
        let scale = experiment.scale;
        self.scale.dispatch(ScaleAction::RuleChosen(scale.rule));
        self.scale.dispatch(ScaleAction::ValidateSet(scale.validate));
        self.scale.dispatch(ScaleAction::WeakSet(scale.weak));
        if let Some(pair) = scale.scale_models {
            self.scale.dispatch(ScaleAction::PairChosen(pair));
        }
        self.scale.dispatch(ScaleAction::TargetChosen(scale.target_sms));
        let (speed, replay_speed) = (experiment.view.speed, experiment.view.replay_speed);
        self.run.dispatch(RunAction::SpeedsSet { speed, replay_speed });
        self.run.dispatch(RunAction::SamplingChosen(experiment.sampling));
        self.run.dispatch(RunAction::Watched(experiment.view.watch_sm));
        self.analysis.dispatch(AnalysisAction::PaperModelsOnly(experiment.view.paper_models_only));
        let baseline = experiment
            .baseline
            .as_ref()
            .map(|pinned| Box::new(Baseline { experiment: (**pinned).clone(), figures: Figures::default() }));
        if let Some(pinned) = &baseline
            && let Err(why) = self.baseliner.compute(&pinned.experiment, &self.asset_base)
        {
            self.state.dispatch(Action::Notice(Some(format!("The baseline's figures cannot be computed: {why}."))));
        }
        self.state.dispatch(Action::Pinned(baseline));
    }

    /// Saves `experiment` as a JSON file.
    fn download(experiment: &Shared) {
        crate::download::download_text("experiment.json", "application/json", &experiment.to_json_pretty());
    }

    /// Opens an experiment file the user picked.
    fn open_experiment_file(&self, list: Option<FileList>) {
        let Some(file) = list.and_then(|list| list.get(0)) else { return };
        let page = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            match crate::share::read_experiment_file(&file).await {
                Ok(experiment) => {
                    page.state.dispatch(Action::Notice(None));
                    page.open_experiment(&experiment);
                }
                Err(message) => page.state.dispatch(Action::Notice(Some(message))),
            }
        });
    }

    /// A preset with `edits` applied.
    fn choose_preset(&self, name: String, edits: Vec<ConfigEdit>) {
        self.config_edits.set(self.config_edits.get() + 1);
        self.state.dispatch(Action::PresetChosen { name: name.clone(), edits: edits.clone() });
        self.load(WorkerInput::LoadPreset { name, edits });
    }

    /// Shows the edits at once and applies them in the workers once the
    /// sliders have been still for [`GENERATOR_DEBOUNCE`].
    fn edit_config(&self, edits: Vec<ConfigEdit>) {
        self.config_edits.set(self.config_edits.get() + 1);
        let edit = self.config_edits.get();
        self.state.dispatch(Action::EditsSet(edits.clone()));
        let page = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            sleep(GENERATOR_DEBOUNCE).await;
            if page.config_edits.get() == edit {
                page.load(WorkerInput::EditConfig { edits });
            }
        });
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
            Ok(dir_url) => self.load(WorkerInput::LoadSample { name: sample.name.to_owned(), dir_url }),
            Err(message) => self.state.dispatch(Action::WorkloadFailed(message)),
        }
    }

    fn generate(&self, spec: GenSpec) {
        self.cancel_edit();
        self.state.dispatch(Action::WorkloadRequested(WorkloadChoice::Generated(spec.clone())));
        self.load(WorkerInput::Generate { spec, summarize: true });
    }

    /// Compiles and runs a CUDA C file in the workers; once it has loaded,
    /// the experiment runs as any other does.
    fn compile(&self, file: String, source: String) {
        self.cancel_edit();
        self.state
            .dispatch(Action::WorkloadRequested(WorkloadChoice::Kernel { file: file.clone(), source: source.clone() }));
        self.load(WorkerInput::Compile { file, source });
    }

    /// Shows the editor's text; nothing is asked of the worker until the
    /// user compiles.
    fn edit_kernel(&self, file: &str, source: String) {
        self.cancel_edit();
        self.state.dispatch(Action::KernelEdited { file: file.to_owned(), source });
        self.kernel.dispatch(KernelAction::Edited);
    }

    /// Opens an example kernel in the editor and compiles it.
    fn open_example(&self, example: Option<&Example>) {
        if let Some(example) = example {
            self.compile(example.file(), example.source.to_owned());
        }
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
        let configs = Kind { requested: Action::ConfigFilesChosen, failed: Action::ConfigFailed, input: config_input };
        self.send_picked(&picked.configs, &mut open.configs, configs);
        if !picked.configs.is_empty() {
            open.config_label = label_of(&picked.configs);
        }
        // The edits of a link that named these config files apply to them.
        let edits = std::mem::take(&mut *self.link_edits.borrow_mut());
        if !picked.configs.is_empty() && !edits.is_empty() {
            self.state.dispatch(Action::EditsSet(edits.clone()));
            self.load(WorkerInput::EditConfig { edits });
        }
    }

    /// Adds the picked config files to the ones chosen before (a file of the
    /// same name replaces the old one) and reads them all again: the answer
    /// to a config that asked for the `.icnt` file it names.
    fn add_config_files(&self, list: Option<FileList>) {
        let picked = PickedFiles::from_list(list);
        if picked.configs.is_empty() {
            return;
        }
        let added = match file_refs(&picked.configs) {
            Ok(refs) => refs,
            Err(message) => return self.state.dispatch(Action::ConfigFailed(message)),
        };
        let mut open = self.open_files.borrow_mut();
        let (replaced, kept): (Vec<FileRef>, Vec<FileRef>) =
            open.configs.drain(..).partition(|old| added.iter().any(|new| new.name == old.name));
        revoke(&replaced);
        open.configs = kept.into_iter().chain(added).collect();
        let label = open.config_label.clone();
        self.state.dispatch(Action::ConfigFilesChosen(label.clone()));
        self.load(config_input(label, open.configs.clone()));
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
                self.load((kind.input)(label, refs));
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
    WorkerInput::LoadConfigFiles { label, files, edits: Vec::new() }
}
