//! The toolbar under the title: which GPU and which workload the experiment
//! is, the run's sampling mode, and Run, Cancel and the run's progress. It stays at the top of the
//! window on wide screens, so the run can be started and watched from any
//! panel.

use warplab_lab::sampling::SampleMode;
use warplab_lab::{GENERATORS, GenSpec, SAMPLE_TRACES, presets};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

use crate::components::JumpLink;
use crate::format;
use crate::kernel_examples::{EXAMPLES, example};
use crate::run_state::{RunPhase, RunState};
use crate::state::WorkloadChoice;

/// Properties of [`Toolbar`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ToolbarProps {
    /// The preset the config started from; `None` for the user's files.
    pub preset: Option<AttrValue>,
    /// The loaded config's label (what the picker says for the user's files).
    pub config_label: AttrValue,
    /// How many edits the experiment makes to the config.
    pub n_edits: usize,
    /// Where the workload comes from.
    pub choice: WorkloadChoice,
    /// A preset was chosen (by name).
    pub on_preset: Callback<String>,
    /// A bundled sample was chosen (by name).
    pub on_sample: Callback<String>,
    /// A generator was chosen: its spec with every knob at its default.
    pub on_generate: Callback<GenSpec>,
    /// An example CUDA C kernel was chosen (by name), for the editor.
    #[prop_or_default]
    pub on_example: Callback<String>,
    /// The run.
    pub run: RunState,
    /// Whether a workload and a config have loaded, so a run can start.
    pub ready: bool,
    /// Run was pressed.
    pub on_run: Callback<()>,
    /// Cancel was pressed.
    pub on_cancel: Callback<()>,
    /// The sampling mode the next run uses.
    #[prop_or_default]
    pub sampling: SampleMode,
    /// A sampling mode was chosen.
    #[prop_or_default]
    pub on_sampling: Callback<SampleMode>,
    /// Why nothing runs: the config asked for did not load (its message).
    #[prop_or_default]
    pub config_stop: Option<AttrValue>,
    /// The run is of an experiment the page has since left (a new workload
    /// or config is loading): its progress is not shown as this one's.
    #[prop_or_default]
    pub other_experiment: bool,
}

/// The GPU and workload pickers, Run, Cancel and the progress bar.
#[component]
pub fn Toolbar(props: &ToolbarProps) -> Html {
    html! {
        <div class="toolbar" role="toolbar" aria-label="The experiment: GPU, workload and run" data-testid="toolbar">
            { gpu_picker(props) }
            { workload_picker(props) }
            { sampling_picker(props) }
            { run_controls(props) }
        </div>
    }
}

/// The preset select; the user's config files show as a choice of their own.
fn gpu_picker(props: &ToolbarProps) -> Html {
    let on_preset = props.on_preset.clone();
    let onchange =
        Callback::from(move |event: Event| on_preset.emit(event.target_unchecked_into::<HtmlSelectElement>().value()));
    let selected = props.preset.as_deref().unwrap_or("");
    let files = format!("files: {}", props.config_label);
    let edits = match props.n_edits {
        0 => None,
        1 => Some("1 edit".to_owned()),
        n => Some(format!("{n} edits")),
    };
    html! {
        <span class="picker">
            <label for="preset-select">{ "GPU" }</label>
            <select id="preset-select" data-testid="preset-select" {onchange} title="The GPU configuration: a bundled preset, or your config files (Config panel)">
                <option value="" disabled=true selected={selected.is_empty()}>{ files }</option>
                { for presets().into_iter().map(|p| html! {
                    <option value={p.name.clone()} title={p.description.clone()} selected={p.name == selected}>
                        { &p.name }
                    </option>
                }) }
            </select>
            if let Some(edits) = edits {
                <JumpLink class="edits" to="config-panel" testid="config-edits"
                    title="Options the experiment changes from this config: see the Config panel">{ edits }</JumpLink>
            }
        </span>
    }
}

/// One select for bundled traces and generators; the user's trace files
/// show as a choice of their own.
fn workload_picker(props: &ToolbarProps) -> Html {
    let (on_sample, on_generate) = (props.on_sample.clone(), props.on_generate.clone());
    let on_example = props.on_example.clone();
    let onchange = Callback::from(move |event: Event| {
        match WorkloadOption::parse(&event.target_unchecked_into::<HtmlSelectElement>().value()) {
            Some(WorkloadOption::Sample(name)) => on_sample.emit(name.to_owned()),
            Some(WorkloadOption::Generator(name)) => on_generate.emit(GenSpec::new(name)),
            Some(WorkloadOption::Example(name)) => on_example.emit(name.to_owned()),
            None => {}
        }
    });
    let selected = WorkloadOption::of(&props.choice).map(|option| option.value()).unwrap_or_default();
    let files = match &props.choice {
        WorkloadChoice::TraceFiles(label) => format!("files: {label}"),
        WorkloadChoice::Kernel { file, .. } => format!("kernel: {file}"),
        _ => "your trace files (Workload panel)".to_owned(),
    };
    let option = |option: WorkloadOption, text: String, title: &'static str| {
        let value = option.value();
        let chosen = value == selected;
        html! { <option selected={chosen} {value} {title}>{ text }</option> }
    };
    html! {
        <span class="picker">
            <label for="workload-select">{ "Workload" }</label>
            <select id="workload-select" data-testid="workload-select" {onchange}
                title="The workload: a bundled Accel-Sim trace, a generated kernel (its knobs are in the Workload panel), or your trace files">
                <option value="" disabled=true selected={selected.is_empty()}>{ files }</option>
                <optgroup label="Bundled traces">
                    { for SAMPLE_TRACES.iter().map(|s| option(WorkloadOption::Sample(s.name), s.name.to_owned(), s.description)) }
                </optgroup>
                <optgroup label="Generated kernels">
                    { for GENERATORS.iter().map(|g| option(WorkloadOption::Generator(g.name), format!("{} (generated)", g.name), g.summary)) }
                </optgroup>
                <optgroup label="CUDA C kernels (open in the editor)">
                    { for EXAMPLES.iter().map(|e| option(WorkloadOption::Example(e.name), format!("{}.cu", e.name), e.description)) }
                </optgroup>
            </select>
        </span>
    }
}

/// The sampling select: off, or the levels Photon samples at, with a link
/// to the glossary's explanation. Choosing one simulates the experiment
/// again with it.
fn sampling_picker(props: &ToolbarProps) -> Html {
    let on_sampling = props.on_sampling.clone();
    let onchange = Callback::from(move |event: Event| {
        if let Ok(mode) = event.target_unchecked_into::<HtmlSelectElement>().value().parse() {
            on_sampling.emit(mode);
        }
    });
    html! {
        <span class="picker">
            <label for="sampling-select">{ "Sampling" }</label>
            <select id="sampling-select" data-testid="sampling-select" {onchange}
                title="Sampled simulation after Photon: simulate part of the work in detail and predict the rest (choosing a mode runs again)">
                { for SampleMode::ALL.into_iter().map(|mode| html! {
                    <option value={mode.name()} selected={mode == props.sampling}>{ sampling_label(mode) }</option>
                }) }
            </select>
            <JumpLink class="help-link" to={crate::glossary::anchor("photon-sampling")} testid="sampling-help"
                title={crate::glossary::PHOTON_SAMPLING} aria_label="Glossary: Photon sampling">{ "?" }</JumpLink>
        </span>
    }
}

/// How the sampling select names a mode.
pub fn sampling_label(mode: SampleMode) -> &'static str {
    match mode {
        SampleMode::Off => "off",
        SampleMode::Photon => "Photon",
        SampleMode::Kernel => "kernel",
        SampleMode::Warp => "warp",
        SampleMode::BasicBlock => "basic block",
    }
}

/// A choice of the workload select: its value is `sample:NAME`,
/// `generator:NAME` or `example:NAME`, since a sample, a generator and an
/// example kernel may share a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WorkloadOption<'a> {
    Sample(&'a str),
    Generator(&'a str),
    Example(&'a str),
}

impl<'a> WorkloadOption<'a> {
    fn of(choice: &'a WorkloadChoice) -> Option<Self> {
        match choice {
            WorkloadChoice::Sample(name) => Some(WorkloadOption::Sample(name)),
            WorkloadChoice::Generated(spec) => Some(WorkloadOption::Generator(&spec.kernel)),
            WorkloadChoice::TraceFiles(_) => None,
            // An example's file, edited or not, selects the example.
            WorkloadChoice::Kernel { file, .. } => {
                file.strip_suffix(".cu").and_then(example).map(|e| WorkloadOption::Example(e.name))
            }
        }
    }

    fn parse(value: &'a str) -> Option<Self> {
        match value.split_once(':')? {
            ("sample", name) => Some(WorkloadOption::Sample(name)),
            ("generator", name) => Some(WorkloadOption::Generator(name)),
            ("example", name) => Some(WorkloadOption::Example(name)),
            _ => None,
        }
    }

    fn value(self) -> String {
        match self {
            WorkloadOption::Sample(name) => format!("sample:{name}"),
            WorkloadOption::Generator(name) => format!("generator:{name}"),
            WorkloadOption::Example(name) => format!("example:{name}"),
        }
    }
}

/// Run, Cancel, the progress bar and the run's error.
fn run_controls(props: &ToolbarProps) -> Html {
    let run = &props.run;
    let on_run = props.on_run.reform(|_: MouseEvent| ());
    let on_cancel = props.on_cancel.reform(|_: MouseEvent| ());
    let busy = matches!(run.phase, RunPhase::Starting | RunPhase::Running | RunPhase::Paused);
    html! {
        <span class="run-controls">
            <button class="button primary" data-testid="run" onclick={on_run} disabled={!props.ready}
                title="Simulate the workload on the GPU with the cycle-level timing model, in the worker">
                { if busy { "Run again" } else { "Run" } }
            </button>
            <button class="button" data-testid="cancel" onclick={on_cancel} disabled={!busy}
                title="Stop the run and forget it">{ "Cancel" }</button>
            if let Some(why) = &props.config_stop {
                <span class="error" role="alert" data-testid="run-stopped">
                    { format!("Not run: the GPU config asked for did not load ({why}). Fix it in the GPU config \
                       panel or pick a preset; nothing runs on the config before it.") }
                </span>
            } else if props.other_experiment {
                <span class="status" data-testid="run-waiting" aria-live="polite">
                    { "The experiment changed: it runs once its workload and config have loaded." }
                </span>
            } else {
                { progress(run) }
            }
            if let Some(error) = &run.error {
                <span class="error" role="alert" data-testid="run-error">{ error }</span>
            }
        </span>
    }
}

/// The progress bar and its caption: warp instructions issued of the
/// workload's total, the cycle, and a long run's time left. A finished run's
/// bar is full: a sampled run issues only the instructions it simulates in
/// detail and predicts the rest, which the caption says.
fn progress(run: &RunState) -> Html {
    let phase = match run.phase {
        RunPhase::Idle => return html! {},
        RunPhase::Starting => "starting",
        RunPhase::Running => "running",
        RunPhase::Paused => "paused",
        RunPhase::Finished => "finished",
        RunPhase::Cancelled => "cancelled",
    };
    let (done, total, cycle) = run.latest.as_ref().map_or((0, 1, 0), |u| (u.warp_insts, u.total_warp_insts, u.cycle));
    let percent = if total == 0 { 100.0 } else { 100.0 * done as f64 / total as f64 };
    let finished = run.phase == RunPhase::Finished;
    let sampled = finished && run.report.as_ref().is_some_and(|r| r.sampling.is_some());
    let rest = if sampled { " simulated in detail, the rest predicted" } else { "" };
    let shown = if finished { total.max(1) } else { done };
    let caption = format!(
        "{phase} · cycle {} · {} of {} warp instructions ({percent:.0}%){rest}",
        format::count(cycle),
        format::count(done),
        format::count(total)
    );
    html! {
        <span class="run-progress">
            <progress data-testid="run-progress" max={total.max(1).to_string()} value={shown.to_string()}
                title="Warp instructions issued so far, of the workload's total" />
            <span data-testid="run-status" class="status" aria-live="polite">{ caption }</span>
            { time_left(run, total.saturating_sub(done)) }
        </span>
    }
}

/// A long run's expected time left at its pace so far. A sampled run
/// predicts part of its work as it goes, so its pace says nothing of what is
/// left: once it has run as long as a run that shows an estimate, it says
/// why it shows none instead.
fn time_left(run: &RunState, remaining: u64) -> Html {
    let pace = run.pace.filter(|_| run.phase == RunPhase::Running);
    let Some(seconds) = pace.and_then(|pace| pace.seconds_left(remaining)) else { return html! {} };
    if run.sampling != SampleMode::Off {
        return html! {
            <span class="hint" data-testid="run-time-unknown"
                title="A sampled run simulates some of its work in detail and predicts the rest as it goes, so how fast it has gone so far does not tell how long it has left">
                { " · no time estimate: a sampled run predicts part of its work as it goes" }
            </span>
        };
    }
    html! {
        <span class="hint" data-testid="run-time-left" data-value={seconds.to_string()}
            title="At the pace of the run since it last started playing">
            { format!(" · about {} left", format::duration(seconds)) }
        </span>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workload_options_read_back_what_they_write() {
        for option in
            [WorkloadOption::Sample("vecadd"), WorkloadOption::Generator("vecadd"), WorkloadOption::Example("vecadd")]
        {
            assert_eq!(WorkloadOption::parse(&option.value()), Some(option));
        }
        assert_eq!(WorkloadOption::parse("vecadd"), None);
        assert_eq!(WorkloadOption::parse("kernel:vecadd"), None);
    }

    #[test]
    fn a_generated_workload_selects_its_generator_whatever_its_knobs() {
        let choice = WorkloadChoice::Generated("strided:gs=32".parse().expect("a well-formed spec"));
        assert_eq!(WorkloadOption::of(&choice), Some(WorkloadOption::Generator("strided")));
        assert_eq!(WorkloadOption::of(&WorkloadChoice::TraceFiles("mine".into())), None);
        let kernel = |file: &str| WorkloadChoice::Kernel { file: file.into(), source: String::new() };
        assert_eq!(WorkloadOption::of(&kernel("transpose.cu")), Some(WorkloadOption::Example("transpose")));
        assert_eq!(WorkloadOption::of(&kernel("mine.cu")), None);
    }
}
