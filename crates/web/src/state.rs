//! The page's state and the actions that change it; the reducer is pure.

use std::rc::Rc;

use crate::baseline::Baseline;
use warplab_lab::{ConfigEdit, ConfigReport, ContentHash, GenSpec, WorkloadSummary};

use crate::agent::FilesOrigin;
use yew::Reducible;

/// The generator of the default experiment, run at its default size and knobs.
pub const DEFAULT_GENERATOR: &str = "vecadd";

/// Something the worker loads: what is shown, what is being loaded, and the
/// last error. A failed load keeps what was shown before.
#[derive(Debug, Clone, PartialEq)]
pub struct Loadable<T> {
    /// What is shown: the last thing that loaded.
    pub current: Option<T>,
    /// What the worker is doing, e.g. `Reading vectoradd`, if anything.
    pub loading: Option<String>,
    /// Why the last load failed (file and line), until the next one starts.
    pub error: Option<String>,
}

impl<T> Default for Loadable<T> {
    fn default() -> Self {
        Loadable { current: None, loading: None, error: None }
    }
}

impl<T> Loadable<T> {
    fn request(&mut self, activity: String) {
        self.loading = Some(activity);
        self.error = None;
    }

    fn loaded(&mut self, value: T) {
        self.current = Some(value);
        self.loading = None;
        self.error = None;
    }

    fn failed(&mut self, message: String) {
        self.loading = None;
        self.error = Some(message);
    }
}

/// Where the workload comes from: what a share link will carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkloadChoice {
    /// A bundled sample trace, by name.
    Sample(String),
    /// Trace files the user opened, by label (they cannot be shared).
    TraceFiles(String),
    /// A generator run.
    Generated(GenSpec),
    /// A CUDA C file written in the editor (issue 41).
    Kernel {
        /// The file's name, as errors name it.
        file: String,
        /// Its text as the editor shows it.
        source: String,
    },
}

impl Default for WorkloadChoice {
    fn default() -> Self {
        WorkloadChoice::Generated(GenSpec::new(DEFAULT_GENERATOR))
    }
}

impl WorkloadChoice {
    /// What the worker does for this choice, for the status line.
    fn activity(&self) -> String {
        match self {
            WorkloadChoice::Sample(name) | WorkloadChoice::TraceFiles(name) => format!("Reading {name}"),
            WorkloadChoice::Generated(spec) => format!("Generating {spec}"),
            WorkloadChoice::Kernel { file, .. } => format!("Compiling {file}"),
        }
    }

    /// The spec, when the workload is generated.
    pub fn spec(&self) -> Option<&GenSpec> {
        match self {
            WorkloadChoice::Generated(spec) => Some(spec),
            WorkloadChoice::Sample(_) | WorkloadChoice::TraceFiles(_) | WorkloadChoice::Kernel { .. } => None,
        }
    }
}

/// Which workload and config something was computed for: the counts of
/// loads that had happened, so a run and an analysis of the same experiment
/// can be compared, and a stale one told apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Experiment {
    /// Workloads loaded so far.
    pub workload: u64,
    /// Configs loaded so far.
    pub config: u64,
}

/// Everything the page shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct State {
    /// Where the workload comes from: set as soon as the user chooses, even
    /// before the worker answers or when it fails.
    pub choice: WorkloadChoice,
    /// The generator form shows an edit the worker has not been asked for
    /// yet (it is asked once the user pauses): the loaded workload is no
    /// longer the one on screen, so nothing is ready until it is asked.
    pub unasked_edit: bool,
    /// The workload's summary.
    pub workload: Loadable<WorkloadSummary>,
    /// The GPU configuration.
    pub config: Loadable<ConfigReport>,
    /// How many configs have loaded: when it changes, workloads sized for the
    /// config are generated again.
    pub config_loads: u64,
    /// How many workloads have loaded.
    pub workload_loads: u64,
    /// `config_loads` when the current workload loaded: a generated workload
    /// sized for the config is stale while this lags behind.
    pub workload_sized_for: u64,
    /// The preset the config started from; `None` for the user's files.
    pub preset: Option<String>,
    /// The experiment's edits to that config, in order.
    pub edits: Vec<ConfigEdit>,
    /// A message about the link the page opened with (a damaged link, files
    /// it names that must be opened again), until dismissed.
    pub notice: Option<String>,
    /// The experiment pinned to compare with.
    pub baseline: Option<Rc<Baseline>>,
    /// The content hash of the user's trace files loaded last (`None` for a
    /// sample or a generated workload).
    pub trace_hash: Option<ContentHash>,
    /// How a link carries the user's config files loaded last (`None` for a
    /// preset).
    pub config_origin: Option<Box<FilesOrigin>>,
    /// The content hashes of the files a link the page opened names, until
    /// files are opened to check against them.
    pub awaited: AwaitedFiles,
    /// The `.icnt` file the config files chosen last name and need but did
    /// not include: the config panel asks for it.
    pub config_needs: Option<String>,
    /// The preset and edits before config files were chosen, put back if
    /// the files fail to load (the worker keeps the config before too).
    pub config_before: Option<(Option<String>, Vec<ConfigEdit>)>,
}

/// The user's files a link names, by content hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AwaitedFiles {
    /// The trace files' hash.
    pub trace: Option<ContentHash>,
    /// The config files' hash.
    pub config: Option<ContentHash>,
}

impl State {
    /// Config files failed to load: the preset and edits of the config the
    /// worker still has are the experiment's again.
    fn restore_config_choice(&mut self) {
        if let Some((preset, edits)) = self.config_before.take() {
            (self.preset, self.edits) = (preset, edits);
        }
        self.config_needs = None;
    }

    /// The loaded workload and config, once both have loaded and nothing is
    /// loading (what a run or an analysis uses), and the form shows the
    /// workload that loaded (no edit waits to be asked for). Not while the config the
    /// user asked for last failed: the workers still hold the one before,
    /// which is not the experiment asked for, so nothing runs on it.
    pub fn ready(&self) -> Option<Experiment> {
        let loaded = self.workload.current.is_some() && self.config.current.is_some();
        let idle = self.workload.loading.is_none() && self.config.loading.is_none() && !self.unasked_edit;
        let asked = self.config.error.is_none();
        (loaded && idle && asked).then_some(Experiment { workload: self.workload_loads, config: self.config_loads })
    }

    /// Why nothing runs: the config asked for last did not load.
    pub fn config_stop(&self) -> Option<&str> {
        self.config.error.as_deref().filter(|_| self.config.loading.is_none())
    }
}

/// The changes the page can make to its state.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// The generator form changed; the worker is asked once the user pauses.
    GeneratorEdited(GenSpec),
    /// The kernel editor's text changed; the worker is asked when the user
    /// compiles.
    KernelEdited {
        /// The file's name.
        file: String,
        /// Its new text.
        source: String,
    },
    /// A workload was asked of the worker.
    WorkloadRequested(WorkloadChoice),
    /// The worker read or generated a workload (with the hash of the user's
    /// trace files).
    WorkloadLoaded(WorkloadSummary, Option<ContentHash>),
    /// The worker could not read or generate a workload.
    WorkloadFailed(String),
    /// A preset with these edits was chosen.
    PresetChosen {
        /// The preset.
        name: String,
        /// The edits applied to it.
        edits: Vec<ConfigEdit>,
    },
    /// Config files were chosen (their edits start empty).
    ConfigFilesChosen(String),
    /// The config's edits changed; the worker applies them.
    EditsSet(Vec<ConfigEdit>),
    /// A message about the link, or `None` to dismiss it.
    Notice(Option<String>),
    /// A baseline was pinned, or unpinned with `None`.
    Pinned(Option<Box<Baseline>>),
    /// The baseline worker computed figures of a baseline a link carried.
    BaselineComputed(crate::hooks::BaselineFigure),
    /// The worker read a config (with how a link carries the user's files).
    ConfigLoaded(Box<ConfigReport>, Option<Box<FilesOrigin>>),
    /// A link named the user's files: these are checked when they open.
    Awaiting(AwaitedFiles),
    /// The worker could not read a config.
    ConfigFailed(String),
    /// The config files chosen need the `.icnt` file `file`, which they
    /// name with `-inter_config_file` and do not include.
    ConfigNeedsFile {
        /// The file's name.
        file: String,
        /// The config reader's message.
        message: String,
    },
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::GeneratorEdited(spec) => next.edited(WorkloadChoice::Generated(spec)),
            Action::KernelEdited { file, source } => next.edited(WorkloadChoice::Kernel { file, source }),
            Action::WorkloadRequested(choice) => {
                next.unasked_edit = false;
                next.workload.request(choice.activity());
                next.choice = choice;
            }
            Action::WorkloadLoaded(summary, hash) => {
                next.workload.loaded(summary);
                next.trace_hash = hash;
                if let Some(found) = hash {
                    next.check_awaited("trace", found, |awaited| &mut awaited.trace);
                }
                next.workload_loads += 1;
                next.workload_sized_for = next.config_loads;
            }
            Action::WorkloadFailed(message) => next.workload.failed(message),
            Action::PresetChosen { name, edits } => {
                next.config.request(format!("Reading preset {name}"));
                next.preset = Some(name);
                next.edits = edits;
                (next.config_needs, next.config_before) = (None, None);
            }
            Action::ConfigFilesChosen(label) => {
                next.config.request(format!("Reading {label}"));
                next.config_before = Some((next.preset.clone(), next.edits.clone()));
                next.config_needs = None;
                next.preset = None;
                next.edits = Vec::new();
            }
            Action::EditsSet(edits) => {
                next.config.request("Applying the config edits".to_owned());
                next.edits = edits;
            }
            Action::Notice(notice) => next.notice = notice,
            Action::Pinned(baseline) => next.baseline = baseline.map(|b| Rc::new(*b)),
            Action::BaselineComputed(computed) => {
                if let Some(baseline) = next.baseline.as_mut().filter(|b| b.experiment == *computed.experiment) {
                    Rc::make_mut(baseline).figures.merge(computed.figures);
                }
            }
            Action::ConfigLoaded(report, origin) => {
                next.config.loaded(*report);
                if let Some(found) = origin.as_ref().map(|origin| origin.hash) {
                    next.check_awaited("config", found, |awaited| &mut awaited.config);
                }
                next.config_origin = origin;
                next.config_loads += 1;
                (next.config_needs, next.config_before) = (None, None);
            }
            Action::ConfigFailed(message) => {
                next.config.failed(message);
                next.restore_config_choice();
            }
            Action::ConfigNeedsFile { file, message } => {
                next.config.failed(message);
                next.restore_config_choice();
                next.config_needs = Some(file);
            }
            Action::Awaiting(awaited) => next.awaited = awaited,
        }
        Rc::new(next)
    }
}

impl State {
    /// The form or the editor shows `edited`: until the worker is asked for
    /// it, nothing is ready unless it is what loaded.
    fn edited(&mut self, edited: WorkloadChoice) {
        self.unasked_edit |= edited != self.choice;
        self.choice = edited;
    }

    /// Files of `kind` with hash `found` opened: if a link awaited files of
    /// that kind, a notice says whether they are the ones it names.
    fn check_awaited(
        &mut self,
        kind: &str,
        found: ContentHash,
        slot: fn(&mut AwaitedFiles) -> &mut Option<ContentHash>,
    ) {
        let Some(expected) = slot(&mut self.awaited).take() else { return };
        if found != expected {
            self.notice = Some(format!(
                "These {kind} files have content hash {}, but the link's experiment was made with files of hash {}: \
                 the figures are for different files.",
                String::from(found),
                String::from(expected)
            ));
        } else if self.awaited == AwaitedFiles::default() {
            // Every file the link named is open: its request is answered.
            self.notice = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(name: &str) -> WorkloadChoice {
        WorkloadChoice::Sample(name.to_owned())
    }

    #[test]
    fn config_files_that_fail_or_need_a_file_give_back_the_preset_and_edits() {
        let edits = vec![ConfigEdit::Knob { name: "l1_mshrs".into(), value: 64.0 }];
        let state =
            Rc::new(State::default()).reduce(Action::PresetChosen { name: "QV100".into(), edits: edits.clone() });
        let state = state.reduce(Action::ConfigFilesChosen("gpgpusim.config".into()));
        assert_eq!((state.preset.as_deref(), state.edits.len()), (None, 0), "files start without edits");
        let needs = Action::ConfigNeedsFile { file: "a.icnt".into(), message: "needs the .icnt file".into() };
        let state = state.reduce(needs);
        assert_eq!((state.preset.as_deref(), &state.edits), (Some("QV100"), &edits), "the config before is back");
        assert_eq!(state.config_needs.as_deref(), Some("a.icnt"));
        assert_eq!(state.config.error.as_deref(), Some("needs the .icnt file"));
        assert_eq!(state.config_stop(), Some("needs the .icnt file"));
        let state = state.reduce(Action::ConfigFilesChosen("gpgpusim.config".into()));
        assert_eq!(state.config_needs, None, "asked again while the files load");
        let state = state.reduce(Action::ConfigFailed("bad".into()));
        assert_eq!((state.preset.as_deref(), &state.edits), (Some("QV100"), &edits));
    }

    #[test]
    fn a_failed_load_keeps_what_was_shown() {
        let summary = WorkloadSummary { label: "vectoradd".into(), ..WorkloadSummary::default() };
        let state = Rc::new(State::default());
        let state = state.reduce(Action::WorkloadRequested(sample("vectoradd")));
        assert_eq!(state.workload.loading.as_deref(), Some("Reading vectoradd"));
        let state = state.reduce(Action::WorkloadLoaded(summary.clone(), None));
        let state = state.reduce(Action::WorkloadRequested(WorkloadChoice::TraceFiles("mine".into())));
        let state = state.reduce(Action::WorkloadFailed("k.traceg:3: mask: bad".into()));
        assert_eq!(state.workload.current, Some(summary));
        assert_eq!(state.workload.error.as_deref(), Some("k.traceg:3: mask: bad"));
        assert_eq!(state.workload.loading, None);
        let state = state.reduce(Action::WorkloadRequested(sample("again")));
        assert_eq!(state.workload.error, None, "a new load clears the old error");
    }

    #[test]
    fn an_experiment_is_ready_when_both_halves_loaded_and_nothing_loads() {
        let state = Rc::new(State::default()).reduce(Action::WorkloadLoaded(WorkloadSummary::default(), None));
        assert_eq!(state.ready(), None, "no config yet");
        let gpu = warplab_lab::preset_config("QV100").expect("a preset").1;
        let state =
            state.reduce(Action::ConfigLoaded(Box::new(warplab_lab::config_report("QV100", &gpu, Vec::new())), None));
        assert_eq!(state.ready(), Some(Experiment { workload: 1, config: 1 }));
        assert_eq!(state.workload_sized_for, 0, "the workload came before the config");
        let state = state.reduce(Action::WorkloadRequested(sample("next")));
        assert_eq!(state.ready(), None, "a workload is loading");
        let state = state.reduce(Action::WorkloadLoaded(WorkloadSummary::default(), None));
        assert_eq!((state.ready(), state.workload_sized_for), (Some(Experiment { workload: 2, config: 1 }), 1));
    }

    /// Issue 42: with a parser error in the config panel, the top said
    /// "running" on the preset GPU the failed files were to replace.
    #[test]
    fn issue_42_a_config_that_fails_stops_what_would_run_until_a_config_loads() {
        let gpu = warplab_lab::preset_config("QV100").expect("a preset").1;
        let report = || Box::new(warplab_lab::config_report("QV100", &gpu, Vec::new()));
        let state = Rc::new(State::default())
            .reduce(Action::WorkloadLoaded(WorkloadSummary::default(), None))
            .reduce(Action::ConfigLoaded(report(), None));
        assert_eq!(state.ready(), Some(Experiment { workload: 1, config: 1 }));
        let state = state
            .reduce(Action::ConfigFilesChosen("gpgpusim.config".into()))
            .reduce(Action::ConfigFailed("gpgpusim.config:3: -gpgpu_n_clusters: bad".into()));
        assert!(state.config.current.is_some(), "the workers keep the config before");
        assert_eq!(state.ready(), None, "but nothing runs on it");
        assert_eq!(state.config_stop(), Some("gpgpusim.config:3: -gpgpu_n_clusters: bad"));
        let state = state.reduce(Action::PresetChosen { name: "QV100".into(), edits: Vec::new() });
        assert_eq!(state.config_stop(), None, "a new config is asked for");
        let state = state.reduce(Action::ConfigLoaded(report(), None));
        assert_eq!(state.ready(), Some(Experiment { workload: 1, config: 2 }));
    }

    #[test]
    fn the_choice_follows_the_user_even_when_generation_fails() {
        let state = Rc::new(State::default());
        assert_eq!(state.choice.spec(), Some(&GenSpec::new(DEFAULT_GENERATOR)), "the default experiment");
        let spec: GenSpec = "strided:size=0".parse().expect("a well-formed spec");
        let state = state.reduce(Action::GeneratorEdited(spec.clone()));
        assert_eq!(state.choice.spec(), Some(&spec));
        assert_eq!(state.workload.loading, None, "nothing is asked until the user pauses");
        let state = state.reduce(Action::WorkloadRequested(WorkloadChoice::Generated(spec.clone())));
        assert_eq!(state.workload.loading.as_deref(), Some("Generating strided:size=0"));
        let state = state.reduce(Action::WorkloadFailed("`size` = 0 is outside 1..=262144".into()));
        assert_eq!(state.choice.spec(), Some(&spec), "the user's values stay in the form");
    }

    /// Issue 41: typing in the editor makes nothing ready (the figures are
    /// of the source compiled last) until the user compiles it.
    #[test]
    fn issue_41_an_edited_kernel_is_ready_once_compiled() {
        let gpu = warplab_lab::preset_config("QV100").expect("a preset").1;
        let config = Box::new(warplab_lab::config_report("QV100", &gpu, Vec::new()));
        let kernel = |source: &str| WorkloadChoice::Kernel { file: "k.cu".into(), source: source.into() };
        let state = Rc::new(State::default())
            .reduce(Action::WorkloadRequested(kernel("a")))
            .reduce(Action::WorkloadLoaded(WorkloadSummary::default(), None))
            .reduce(Action::ConfigLoaded(config, None));
        assert_eq!(state.workload.loading, None);
        let compiled = state.ready().expect("ready");
        let state = state.reduce(Action::KernelEdited { file: "k.cu".into(), source: "ab".into() });
        assert_eq!(state.choice, kernel("ab"), "the editor's text is the experiment's");
        assert_eq!(state.ready(), None, "the figures are of another source");
        let state = state.reduce(Action::WorkloadRequested(kernel("ab")));
        assert_eq!(state.workload.loading.as_deref(), Some("Compiling k.cu"));
        let state = state.reduce(Action::WorkloadFailed("k.cu:1:1: error: expected a declaration".into()));
        assert_eq!(state.choice, kernel("ab"), "a failed compile keeps the user's text");
        assert_eq!(state.ready(), Some(compiled), "and the workload that compiled before");
    }

    #[test]
    fn issue_42_an_edit_not_yet_asked_for_makes_nothing_ready() {
        // The form shows strided:gs=32 at once, but the workload the figures
        // are of is still strided's default until the user pauses and the
        // worker is asked: no figure of it may stand beside the new form.
        let gpu = warplab_lab::preset_config("QV100").expect("a preset").1;
        let config = || Box::new(warplab_lab::config_report("QV100", &gpu, Vec::new()));
        let summary = WorkloadSummary::default;
        let state = Rc::new(State::default())
            .reduce(Action::WorkloadRequested(WorkloadChoice::Generated(GenSpec::new("strided"))))
            .reduce(Action::WorkloadLoaded(summary(), None))
            .reduce(Action::ConfigLoaded(config(), None));
        let before = state.ready();
        assert!(before.is_some());
        let edited: GenSpec = "strided:gs=32".parse().expect("a well-formed spec");
        let state = state.reduce(Action::GeneratorEdited(edited.clone()));
        assert_eq!(state.ready(), None, "the loaded workload is not the one on screen");
        let same = state.reduce(Action::GeneratorEdited(edited.clone()));
        assert_eq!(same.ready(), None, "the same edit again is still not asked for");
        let state = same.reduce(Action::WorkloadRequested(WorkloadChoice::Generated(edited)));
        assert_eq!(state.ready(), None, "asked, it is loading");
        let state = state.reduce(Action::WorkloadLoaded(summary(), None));
        assert_ne!(state.ready(), None);
        assert_ne!(state.ready(), before, "a new experiment");
        let spec = state.choice.spec().cloned().expect("generated");
        let unchanged = Rc::clone(&state).reduce(Action::GeneratorEdited(spec));
        assert_eq!(unchanged.ready(), state.ready(), "an edit that changes nothing keeps the experiment");
    }
}
