//! The worker side: the protocol between page and worker, and the reactor that
//! answers it by calling `warplab-lab`.
//!
//! Files travel as URLs, never as bytes: bundled samples by their absolute
//! URL, the user's files as `blob:` URLs the page made for them. The worker
//! fetches each as a `Blob` and streams it through
//! [`crate::blob_reader::BlobReader`], so a trace of any size is read with
//! memory bounded by one CTA.
//!
//! Generated workloads are made here too, sized for the last config that
//! loaded (the default preset until one does): the worker keeps that
//! `GpuConfig` between inputs.
//!
//! The analytical models run here as well ([`crate::analysis`]): `Analyze`
//! profiles the loaded workload once and keeps the profile until the
//! workload or the config changes, so a `Predict` (a slider moved) that
//! leaves the SM count and the MSHRs alone only re-evaluates the
//! models; one that moves them profiles the workload for them (and keeps
//! that profile for the next slider moves).
//!
//! So do scale-model runs ([`crate::scale_model`]): `PlanScale` says which
//! scale models the loaded config can be cut into, and `Scale` simulates two
//! of them, takes the miss-rate curve and predicts the target. A run is one
//! synchronous call that can take minutes, so its progress goes to the page
//! through a `BroadcastChannel` the page names ([`crate::scale_progress`]):
//! the reactor's own outputs leave only when the worker is idle again.

use std::cell::Cell;
use std::io::{BufReader, Read};

use std::pin::pin;

use futures::future::{Either, select};
use futures::{SinkExt, StreamExt};
use gloo_worker::reactor::{ReactorScope, reactor};
use serde::{Deserialize, Serialize};
use warplab_lab::cuda::Workload;
use warplab_lab::follow::Journey;
use warplab_lab::follow::loads::LoadPc;
use warplab_lab::per_pc::PcStalls;
use warplab_lab::run_kernel;
use warplab_lab::sampling::{SampleMode, SamplingComparison, SamplingOptions, compare, sim_options};
use warplab_lab::scale::{
    CurveRun, Rule, ScaleOptions, ScalePlan, ScaleReport, ScaleSimulations, run_scale, scale_curve,
    simulate_scale_models, validate_targets, weak_spec,
};
use warplab_lab::{
    AnalyticalReport, ConfigEdit, ConfigReport, ContentHash, ContentHasher, Event, GenSpec, GeneratedWorkload,
    GpuConfig, OpenRead, Profile, ProfileOptions, ProfiledKnobs, SimOptions, SimReport, Snapshot, TraceWorkload,
    WorkloadSource, WorkloadSummary, apply_edits, config_delta, config_hash_files, config_report, default_config,
    generate, kernel_files, missing_icnt, predict, preset_config, profile_workload, read_config_files,
    simulate_workload, summarize_generated, summarize_trace, summarize_workload, trace_hash_files,
};
use web_sys::Blob;

use crate::analysis::{knob_base, with_knobs};
use crate::authored::{Authored, KernelError};
use crate::blob_reader::BlobReader;
use crate::fetch::{fetch_blob, fetch_bytes};
use crate::next_task;
use crate::run::WorkerRun;
use crate::scale_model::{WorkerScaleHost, scale_setup, steps};
use crate::scale_progress::ProgressPoster;

/// A file the worker should read: its name (as the trace or config refers to
/// it) and a URL it can fetch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRef {
    /// The file's base name, e.g. `kernel-1.traceg`.
    pub name: String,
    /// An absolute `http(s):` or `blob:` URL.
    pub url: String,
}

/// What the page asks of the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum WorkerInput {
    /// Read the bundled sample trace whose directory is at `dir_url`.
    LoadSample {
        /// The sample's name, used as the workload label.
        name: String,
        /// Absolute URL of the directory holding its `kernelslist.g`, ending in `/`.
        dir_url: String,
    },
    /// Read a trace from the user's files: a `kernelslist.g` with the kernel
    /// files it names, or kernel files alone (read in name order).
    LoadTraceFiles {
        /// A label, e.g. the folder name.
        label: String,
        /// The files.
        files: Vec<FileRef>,
    },
    /// Run a generator, sized for the config loaded last, and keep the
    /// workload it makes for runs, analyses and scale models.
    Generate {
        /// The generator, its size and knobs.
        spec: GenSpec,
        /// Answer with the workload's summary ([`WorkerOutput::Workload`]),
        /// which makes every CTA of it. Without, only the spec's checks
        /// run and [`WorkerOutput::WorkloadKept`] answers: for the workers
        /// whose answers to loads the page drops (see [`Self::kept_only`]).
        summarize: bool,
    },
    /// Compile a CUDA C file and run it functionally for the config loaded
    /// last (issue 41); answered by [`WorkerOutput::Compiled`] and its
    /// workload's summary, or by [`WorkerOutput::KernelFailed`].
    Compile {
        /// The file's name, as errors name it.
        file: String,
        /// Its text.
        source: String,
    },
    /// Read a bundled preset and apply `edits` to it.
    LoadPreset {
        /// The preset's name or alias.
        name: String,
        /// The experiment's config edits, applied in order.
        edits: Vec<ConfigEdit>,
    },
    /// Read a config from the user's files (`gpgpusim.config`, `trace.config`,
    /// `.icnt`) and apply `edits` to it.
    LoadConfigFiles {
        /// A label for the config.
        label: String,
        /// The files.
        files: Vec<FileRef>,
        /// The experiment's config edits, applied in order.
        edits: Vec<ConfigEdit>,
    },
    /// Apply `edits` (all of them, replacing earlier ones) to the config
    /// loaded last, as read before any edit.
    EditConfig {
        /// The experiment's config edits, applied in order.
        edits: Vec<ConfigEdit>,
    },
    /// Simulate the workload loaded last on the config loaded last, replacing
    /// any run in progress; answered by [`WorkerOutput::RunUpdated`]s.
    Run {
        /// Cycles per second of wall time (0: as fast as possible).
        speed: u64,
        /// The SM whose events are recorded while playing slowly or stepping.
        watch: u32,
        /// Host-to-device copies fill the L2.
        memcpy_warms_l2: bool,
        /// Sampled simulation (Photon's levels, at its thresholds).
        sampling: SampleMode,
    },
    /// Simulate the loaded workload twice in one go, sampled with
    /// `sampling` and in full, each timed with the worker's clock; answered
    /// by [`WorkerOutput::SamplingCompared`] or
    /// [`WorkerOutput::CompareFailed`]. Both runs are made here, rather than
    /// reusing the page's sampled run, so both wall times are of a run in
    /// one call (the page's run plays in slices, perhaps slowly).
    CompareSampling {
        /// The sampling mode of the sampled run.
        sampling: SampleMode,
        /// Host-to-device copies fill the L2.
        memcpy_warms_l2: bool,
    },
    /// Pause, step, seek, change speed or cancel the run in progress.
    Control(RunControl),
    /// Profile the workload loaded last on the config loaded last (or reuse
    /// the profile kept from the last `Analyze`) and evaluate every
    /// analytical model; answered by [`WorkerOutput::Analyzed`] or
    /// [`WorkerOutput::AnalysisFailed`].
    Analyze {
        /// Host-to-device copies fill the L2.
        memcpy_warms_l2: bool,
    },
    /// Re-evaluate every model for the loaded config with these knobs set
    /// (see `warplab_lab::CONFIG_KNOBS`), on the kept profile unless the
    /// knobs change what the profile measured; answered by [`WorkerOutput::Predicted`] or
    /// [`WorkerOutput::AnalysisFailed`].
    Predict {
        /// `(knob name, value)` pairs, applied in order.
        knobs: Vec<(String, f64)>,
    },
    /// Which scale models the loaded config can be cut into, and the plan of
    /// `scale_models` (`None`: the smallest pair that works, as the paper
    /// chose); answered by [`WorkerOutput::ScalePlanned`].
    PlanScale {
        /// The scale models' SMs, `S` and `2S`.
        scale_models: Option<[u32; 2]>,
        /// The page's count of config loads when it asked, echoed in the
        /// plan ([`ScaleSetup::config`]).
        config: u64,
    },
    /// Predict the loaded config from two scale models of it running the
    /// loaded workload, or do one part of that ([`ScalePart`]); answered by
    /// [`WorkerOutput::Scaled`], [`WorkerOutput::ScaleSimulated`] or
    /// [`WorkerOutput::ScaleCurved`], or by a failure, with each step's
    /// progress posted on the request's channel meanwhile.
    Scale(ScaleRequest),
}

/// A scale-model run of the loaded workload on scale models of the loaded
/// config. Strong scaling: every size runs the workload as loaded (generated
/// for the loaded config), so only the GPU shrinks; weak scaling: each size
/// runs its share of a generated workload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScaleRequest {
    /// The scale models' SMs, `S` and `2S`.
    pub scale_models: [u32; 2],
    /// The sizes to predict (`S·2^k`, `k ≥ 2`); empty: the loaded config's.
    pub targets: Vec<u32>,
    /// The scale-model rule.
    pub rule: Rule,
    /// Also simulate the targets, for the errors and the speedup.
    pub validate: bool,
    /// Weak scaling (generated workloads only): no miss-rate curve.
    pub weak: bool,
    /// Host-to-device copies fill the L2.
    pub memcpy_warms_l2: bool,
    /// The `BroadcastChannel` each step's progress is posted on (see
    /// `crate::scale_progress`); empty: none.
    pub progress_channel: String,
    /// What of the run this worker does.
    pub part: ScalePart,
}

/// What of a scale-model run one worker does. The page splits a run so that
/// the miss-rate curve can be taken on another worker while the scale models
/// are simulated, once a core is free for it (`app.rs`); the parts give the
/// whole run's report ([`warplab_lab::scale::finish_scale`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScalePart {
    /// Everything, with the prediction: [`WorkerOutput::Scaled`].
    Whole,
    /// The scale models and, when validating, the targets:
    /// [`WorkerOutput::ScaleSimulated`].
    Simulations,
    /// The miss-rate curve: [`WorkerOutput::ScaleCurved`].
    Curve,
}

/// What the page can do to a run in progress, between two slices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RunControl {
    /// Stop advancing (the report so far follows).
    Pause,
    /// Go on at the current speed.
    Resume,
    /// Advance one core cycle and pause.
    StepCycle,
    /// Advance to the end of the cycle of the watched SM's next event and pause.
    StepEvent,
    /// Run at full speed to this core cycle, then pause.
    Seek(u64),
    /// Play at this many cycles per second (0: as fast as possible).
    Speed(u64),
    /// Record the events of this SM.
    Watch(u32),
    /// Follow the watched SM's next L1 read miss through the memory system,
    /// or with a PC the next miss of the load at that PC there: play at full
    /// speed until its data is back in the L1, then pause.
    Follow(Option<u64>),
    /// Stop and forget the run.
    Cancel,
}

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RunStatus {
    /// Advancing.
    Running,
    /// Waiting for the page.
    Paused,
    /// The workload ran to its end.
    Finished,
}

/// One slice's news of a run: progress, a snapshot of the GPU and the
/// watched SM's newest events.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunUpdate {
    /// Where the run stands.
    pub status: RunStatus,
    /// Core cycles simulated.
    pub cycle: u64,
    /// Warp instructions issued so far.
    pub warp_insts: u64,
    /// Warp instructions of the whole workload.
    pub total_warp_insts: u64,
    /// The GPU now.
    pub snapshot: Box<Snapshot>,
    /// The newest events of the watched SM since the last update (at most
    /// [`crate::run::RECENT_EVENTS`]).
    pub events: Vec<Event>,
    /// Events recorded but not sent, since the run started.
    pub dropped_events: u64,
    /// The speed it plays at (cycles per second, 0: full).
    pub speed: u64,
    /// The SM whose events are recorded.
    pub watch: u32,
    /// The request followed last, if the page asked to follow one.
    pub follow: Option<Followed>,
    /// The workload's global loads met so far, which the page offers to follow.
    pub loads: Vec<LoadPc>,
}

/// The request the page asked to follow (`RunControl::Follow`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Followed {
    /// The SM whose L1 miss is followed.
    pub sm: u32,
    /// The PC of the load whose miss is followed; `None`: any load's.
    pub pc: Option<u64>,
    /// The core cycle the page asked at.
    pub since: u64,
    /// Its way so far; `None` until the SM misses in its L1.
    pub journey: Option<Journey>,
    /// Whether the run still plays to find it or bring it home; `false`
    /// with no journey: the SM made no L1 read miss before the run ended or
    /// within [`crate::run_follow::FOLLOW_LIMIT_CYCLES`].
    pub active: bool,
}

/// A kind of request of which only the newest matters: the page keeps one of
/// each lane at the worker and lets only the newest wait (see
/// `hooks/use_lab_worker.rs`), so a dragged slider never queues work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// Loading or generating a workload.
    Workload,
    /// Analyzing the workload or re-evaluating the models for new knobs.
    Analysis,
    /// Loading or editing the config.
    Config,
    /// Planning scale models for the loaded config.
    ScalePlan,
    /// Running scale models.
    Scale,
}

impl WorkerInput {
    /// The lane of an input whose older answers the page can do without;
    /// `None` for configs, runs and controls, which are all sent and answered.
    pub fn lane(&self) -> Option<Lane> {
        match self {
            Self::LoadSample { .. } | Self::LoadTraceFiles { .. } | Self::Generate { .. } | Self::Compile { .. } => {
                Some(Lane::Workload)
            }
            Self::Analyze { .. } | Self::Predict { .. } => Some(Lane::Analysis),
            Self::PlanScale { .. } => Some(Lane::ScalePlan),
            Self::Scale(_) => Some(Lane::Scale),
            Self::LoadPreset { .. } | Self::LoadConfigFiles { .. } | Self::EditConfig { .. } => Some(Lane::Config),
            Self::Run { .. } | Self::Control(_) | Self::CompareSampling { .. } => None,
        }
    }

    /// `self` for a worker that only needs the workload kept, not
    /// described: a generator's summary makes the whole workload, work the
    /// analysis and scale workers would do at the page's start beside the
    /// run only for the page to drop it.
    pub fn kept_only(self) -> WorkerInput {
        match self {
            Self::Generate { spec, .. } => Self::Generate { spec, summarize: false },
            other => other,
        }
    }

    /// What to send instead of `waiting` when `self` is asked for after it:
    /// `self`, except that edits asked for after a config load that has not
    /// gone out yet travel with that load, so its files are not lost.
    pub fn superseding(self, waiting: WorkerInput) -> WorkerInput {
        match (self, waiting) {
            (Self::EditConfig { edits }, Self::LoadPreset { name, .. }) => Self::LoadPreset { name, edits },
            (Self::EditConfig { edits }, Self::LoadConfigFiles { label, files, .. }) => {
                Self::LoadConfigFiles { label, files, edits }
            }
            (newer, _) => newer,
        }
    }
}

/// The analytical models on the loaded workload and config, with the
/// config's values of the knobs the page's sliders move.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// Every model's figures, per kernel and for the workload.
    pub report: AnalyticalReport,
    /// The loaded config's knob values.
    pub base: KnobBase,
}

/// The loaded config's values of the slider knobs, and what bounds them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnobBase {
    /// SMs.
    pub n_sms: u32,
    /// SMs per cluster: `n_sms` moves in steps of it.
    pub cores_per_cluster: u32,
    /// L1 data-cache MSHR entries per SM; `None` without an L1 data cache.
    pub l1_mshrs: Option<u32>,
}

/// The scale models the loaded config can be cut into, and one pair's plan:
/// every size of the doubling series from the smaller scale model to the
/// config itself, with what is divided and what is kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScaleSetup {
    /// The loaded config's SMs: the target.
    pub target_sms: u32,
    /// Pairs `(S, 2S)` that divide it, larger first.
    pub workable: Vec<[u32; 2]>,
    /// The pair planned.
    pub scale_models: [u32; 2],
    /// Every size of the series, smallest first; empty when the pair cannot be cut.
    pub sizes: Vec<ScaleSize>,
    /// What scaling had to change, per size.
    pub diagnostics: Vec<String>,
    /// Why the pair cannot be cut from this config, and which would work.
    pub error: Option<String>,
    /// When no pair divides the config: the nearest SM count that a pair
    /// would divide (a multiple of the cores per cluster), if any.
    pub nearest_target: Option<u32>,
    /// The page's count of config loads when it asked for this plan: a
    /// scale run starts only from the plan of the config the page shows
    /// (a plan can trail the config's load, and starts no longer wait for
    /// the run, which always came after it).
    pub config: u64,
}

/// One system of a scale-model series: the shared resources divided by its
/// factor, the per-SM ones kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScaleSize {
    /// SMs.
    pub sms: u32,
    /// The target's SMs over these.
    pub factor: u32,
    /// Total L2 (LLC) capacity.
    pub llc_bytes: u64,
    /// L2 slices.
    pub llc_slices: u32,
    /// Peak interconnect bandwidth.
    pub noc_bytes_per_second: u64,
    /// Peak DRAM bandwidth.
    pub dram_bytes_per_second: u64,
    /// Memory channels.
    pub channels: u32,
    /// L1 data cache per SM (kept); `None` without one.
    pub l1_bytes: Option<u64>,
    /// L1 MSHR entries per SM (kept).
    pub l1_mshrs: Option<u32>,
    /// Resident warps per SM at most (kept).
    pub warps_per_sm: u32,
    /// Chiplets (1: a monolithic GPU); a chiplet GPU is scaled by whole chiplets.
    #[serde(default = "one_chiplet")]
    pub chiplets: u32,
    /// Inter-chiplet bisection bandwidth, one way (0 on a monolithic GPU).
    #[serde(default)]
    pub bisection_bytes_per_second: u64,
}

fn one_chiplet() -> u32 {
    1
}

/// What the worker answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum WorkerOutput {
    /// A trace was read or a workload generated; with the content hash of
    /// the user's trace files, which a link names them by.
    Workload(WorkloadSummary, Option<ContentHash>),
    /// A generated workload passed its checks and is kept, unsummarized
    /// (the answer to `Generate` without `summarize`).
    WorkloadKept,
    /// A trace could not be read (the message names file, line and field) or
    /// a spec not generated (it names the knob and its range).
    WorkloadFailed(String),
    /// A CUDA C file compiled and ran: its listing, and its workload's
    /// summary (the answer to `Compile`, as `Workload` is to the others).
    Compiled(Box<Authored>, WorkloadSummary),
    /// A CUDA C file did not compile, or its functional run stopped at a
    /// fault or its budget: the error, located for the editor.
    KernelFailed(Box<KernelError>),
    /// The per-PC counters of a run of an authored kernel or a trace, after
    /// its report (the worker counts them for those only).
    PerPc(Vec<PcStalls>),
    /// A config was read; for the user's config files, how a link carries
    /// them.
    Config(Box<ConfigReport>, Option<Box<FilesOrigin>>),
    /// A config could not be read; the message names file, line and option.
    ConfigFailed(String),
    /// The config files chosen name a BookSim file with
    /// `-inter_config_file` that is not among them and that the config
    /// needs: which file to ask for, and the reader's message.
    ConfigNeedsFile {
        /// The file's name.
        file: String,
        /// The config reader's message.
        message: String,
    },
    /// A run advanced, paused or finished.
    RunUpdated(Box<RunUpdate>),
    /// The report of a run that paused or finished.
    RunReport(Box<SimReport>),
    /// A run could not start (no workload yet, a trace that cannot be read).
    RunFailed(String),
    /// A cancel was carried out: the answer to every `Control(Cancel)`, with
    /// or without a run.
    RunCancelled,
    /// The answer to `Analyze`.
    Analyzed(Box<Analysis>),
    /// The answer to `Predict`: every model for the config with the knobs set.
    Predicted(Box<AnalyticalReport>),
    /// `Analyze` or `Predict` failed: no workload yet, a trace that cannot be
    /// read, or a knob value the config cannot take (the message names the knob).
    AnalysisFailed(String),
    /// The answer to `PlanScale` (a pair that cannot be cut says why in it).
    ScalePlanned(Box<ScaleSetup>),
    /// The answer to `Scale`: the scale models, the curve, every method's
    /// prediction, and the targets' simulations when validating.
    Scaled(Box<ScaleReport>),
    /// The answer to `Scale` for [`ScalePart::Simulations`].
    ScaleSimulated(Box<ScaleSimulations>),
    /// The answer to `Scale` for [`ScalePart::Curve`].
    ScaleCurved(Box<CurveRun>),
    /// `Scale` failed (the whole run or its simulations): no workload yet, a
    /// pair or target the config cannot be cut into (with the pairs that
    /// would work), a trace that cannot be read.
    ScaleFailed(String),
    /// `Scale` failed for [`ScalePart::Curve`].
    CurveFailed(String),
    /// The answer to `CompareSampling`: the sampled run against the full
    /// one, per kernel and overall, with both wall times' ratio.
    SamplingCompared(Box<SamplingComparison>),
    /// `CompareSampling` failed: no workload yet, a trace that cannot be read.
    CompareFailed(String),
}

impl WorkerOutput {
    /// The lane of the input this output answers (see [`WorkerInput::lane`]).
    pub fn lane(&self) -> Option<Lane> {
        match self {
            Self::Workload(..)
            | Self::WorkloadKept
            | Self::WorkloadFailed(_)
            | Self::Compiled(..)
            | Self::KernelFailed(_) => Some(Lane::Workload),
            Self::Analyzed(_) | Self::Predicted(_) | Self::AnalysisFailed(_) => Some(Lane::Analysis),
            Self::ScalePlanned(_) => Some(Lane::ScalePlan),
            Self::Scaled(_)
            | Self::ScaleSimulated(_)
            | Self::ScaleCurved(_)
            | Self::ScaleFailed(_)
            | Self::CurveFailed(_) => Some(Lane::Scale),
            Self::Config(..) | Self::ConfigFailed(_) | Self::ConfigNeedsFile { .. } => Some(Lane::Config),
            Self::RunUpdated(_)
            | Self::RunReport(_)
            | Self::RunFailed(_)
            | Self::RunCancelled
            | Self::PerPc(_)
            | Self::SamplingCompared(_)
            | Self::CompareFailed(_) => None,
        }
    }
}

/// The most warp instructions the worker generates, estimated before it
/// starts: about ten seconds of a browser's time, and a sector set that fits
/// in wasm32's memory. Larger specs are refused with a message pointing to the
/// CLI; the generators' own limits are set for native runs.
pub const MAX_GENERATED_WARP_INSTS: u64 = 20_000_000;

/// The reactor the worker binary registers: answers to inputs, and while a
/// run plays, a slice of it whenever no input is waiting, until the page goes
/// away.
#[reactor]
pub async fn LabReactor(mut scope: ReactorScope<WorkerInput, WorkerOutput>) {
    let mut lab = Lab::default();
    loop {
        let input = match lab.run.as_ref().filter(|run| run.playing()) {
            None => match scope.next().await {
                Some(input) => Some(input),
                None => break,
            },
            // Yield to the event loop so the page's messages come in, then
            // run a slice if none did (at full speed without a timer's
            // clamp, see `next_task`).
            Some(run) => match select(scope.next(), pin!(next_task::after(run.frame_delay()))).await {
                Either::Left((None, _)) => break,
                Either::Left((Some(input), _)) => Some(input),
                Either::Right(_) => None,
            },
        };
        let outputs = match input {
            Some(input) => lab.answer(input).await,
            None => lab.run.as_mut().map_or_else(Vec::new, |run| run.advance(now_ms)),
        };
        for output in outputs {
            if scope.send(output).await.is_err() {
                return;
            }
        }
    }
}

/// Milliseconds on the worker's clock.
fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// `options` on every thread of the worker's pool in the threaded build (the
/// results are the same on any number), on one thread otherwise.
fn on_host_threads(options: SimOptions) -> SimOptions {
    #[cfg(all(feature = "threads", target_arch = "wasm32"))]
    return SimOptions { threads: crate::threads::pool_threads(), ..options };
    #[cfg(not(all(feature = "threads", target_arch = "wasm32")))]
    options
}

/// The kernel files of a trace, fetched, by name.
type KernelBlobs = Vec<(String, Blob)>;

/// A trace that loaded: its summary, its `kernelslist.g` and kernel files.
struct TraceFiles {
    summary: WorkloadSummary,
    list: String,
    blobs: KernelBlobs,
}

/// The workload loaded last, kept so it can be run.
enum Loaded {
    Generated(GenSpec),
    /// An authored kernel: its file, and the workload its compile recorded,
    /// handed to the first run (later ones compile and run it again, as a
    /// generated workload is generated again).
    Authored {
        file: String,
        source: String,
        recorded: Cell<Option<Workload>>,
    },
    /// A trace: its `kernelslist.g` text and the fetched kernel files.
    Trace {
        list: String,
        blobs: Vec<(String, Blob)>,
    },
}

impl Loaded {
    /// The workload as the command stream the simulator and the profiler
    /// read: a generated one regenerated from its spec for `gpu`, a trace
    /// streamed from its blobs again.
    fn source(&self, gpu: &GpuConfig) -> Result<Box<dyn WorkloadSource>, String> {
        Ok(match self {
            Loaded::Generated(spec) => Box::new(GeneratedWorkload::new(spec, gpu).map_err(|e| e.to_string())?),
            Loaded::Trace { list, blobs } => {
                Box::new(TraceWorkload::owning(list, blob_opener(blobs.clone())).map_err(|e| e.to_string())?)
            }
            Loaded::Authored { file, source, recorded } => {
                let workload = match recorded.take() {
                    Some(workload) => workload,
                    None => authored_workload(file, source, gpu).map_err(|error| error.headline)?.2,
                };
                Box::new(workload.into_source())
            }
        })
    }

    /// Whether runs of it count per PC: an authored kernel's, whose
    /// listing the page shows the counters on, and a trace's, whose
    /// instructions the page lists by PC. A generated workload's are not
    /// (the default experiment's runs stay as fast as they were).
    fn counts_per_pc(&self) -> bool {
        !matches!(self, Loaded::Generated(_))
    }

    /// The workload for a system of `sms` of `gpu`'s SMs under weak scaling:
    /// a generated workload's share (`weak_spec`), generated for `gpu`.
    fn share(&self, gpu: &GpuConfig, sms: u32) -> Result<Box<dyn WorkloadSource>, String> {
        let Loaded::Generated(spec) = self else {
            return Err("weak scaling grows a generated workload with the GPU; a trace has one size".to_owned());
        };
        let grown = weak_spec(spec, sms, gpu.n_sms()).map_err(|e| e.to_string())?;
        Ok(Box::new(GeneratedWorkload::new(&grown, gpu).map_err(|e| e.to_string())?))
    }
}

/// What the worker keeps between inputs.
#[derive(Default)]
struct Lab {
    /// The config loaded last, which generators are sized for; `None` until
    /// a config loads or a generator needs one (then the default preset).
    gpu: Option<GpuConfig>,
    /// The config loaded last as read, before the experiment's edits, with
    /// its report: what `EditConfig` applies edits to.
    base: Option<(ConfigReport, GpuConfig)>,
    /// How a link carries the config files loaded last (`None` for a
    /// preset); kept for the edits applied to them.
    origin: Option<Box<FilesOrigin>>,
    /// The workload loaded last and its warp instructions (for a generated
    /// one kept unsummarized, `check_size`'s estimate: a run's progress bar
    /// is all that reads it).
    workload: Option<(Loaded, u64)>,
    run: Option<WorkerRun>,
    /// The profile of `workload` on `gpu` made by the last `Analyze`, with
    /// its options; dropped when either changes.
    profile: Option<(ProfileOptions, Profile)>,
    /// The profile for the SM count and MSHRs the last `Predict` set, when
    /// they differ from the loaded config's; dropped with `profile`.
    knobbed_profile: Option<(ProfiledKnobs, Profile)>,
}

/// What `Analyze` and `Predict` say before a workload has loaded.
const NO_WORKLOAD: &str = "no workload has loaded yet: pick a sample, a generator or trace files";

impl Lab {
    async fn answer(&mut self, input: WorkerInput) -> Vec<WorkerOutput> {
        let output = match input {
            WorkerInput::LoadSample { name, dir_url } => {
                let list = FileRef { name: "kernelslist.g".to_owned(), url: format!("{dir_url}kernelslist.g") };
                let loaded = load_trace(&name, vec![list], Some(&dir_url)).await;
                self.keep_trace(loaded, None)
            }
            WorkerInput::LoadTraceFiles { label, files } => {
                let loaded = load_trace(&label, files, None).await;
                // The user's files travel in a link by content hash.
                let hash = loaded.as_ref().ok().map(|trace| trace_hash(&trace.list, &trace.blobs)).transpose();
                match hash {
                    Ok(hash) => self.keep_trace(loaded, hash),
                    Err(message) => WorkerOutput::WorkloadFailed(message),
                }
            }
            WorkerInput::Generate { spec, summarize } => self.generate(spec, summarize),
            WorkerInput::Compile { file, source } => return vec![self.compile(file, source)],
            WorkerInput::LoadPreset { name, edits } => {
                self.origin = None;
                self.config(load_preset(&name), &edits)
            }
            WorkerInput::LoadConfigFiles { label, files, edits } => match load_config(&label, &files).await {
                Ok((report, gpu, origin)) => {
                    // The config before stays loaded, with its origin, if the edits fail.
                    let before = self.origin.replace(Box::new(origin));
                    let output = self.config(Ok((report, gpu)), &edits);
                    if matches!(output, WorkerOutput::ConfigFailed(_)) {
                        self.origin = before;
                    }
                    output
                }
                Err(ConfigProblem { message, needs: Some(file) }) => WorkerOutput::ConfigNeedsFile { file, message },
                Err(ConfigProblem { message, needs: None }) => WorkerOutput::ConfigFailed(message),
            },
            WorkerInput::EditConfig { edits } => match self.base.take() {
                Some(base) => self.config(Ok(base), &edits),
                None => WorkerOutput::ConfigFailed("no config has loaded yet to edit".to_owned()),
            },
            WorkerInput::Run { speed, watch, memcpy_warms_l2, sampling } => {
                let options = on_host_threads(sim_options(memcpy_warms_l2, sampling));
                return self.start_run(speed, watch, options).unwrap_or_else(|e| vec![WorkerOutput::RunFailed(e)]);
            }
            WorkerInput::CompareSampling { sampling, memcpy_warms_l2 } => {
                let compared = self.compare_sampling(on_host_threads(sim_options(memcpy_warms_l2, sampling)));
                compared.map_or_else(WorkerOutput::CompareFailed, |c| WorkerOutput::SamplingCompared(Box::new(c)))
            }
            // A cancel is acknowledged even with no run, so the page can
            // count its cancels off (see `RunState::unacknowledged_cancels`).
            WorkerInput::Control(RunControl::Cancel) => {
                self.run = None;
                return vec![WorkerOutput::RunCancelled];
            }
            WorkerInput::Control(control) => {
                return self.run.as_mut().map_or_else(Vec::new, |run| run.control(control));
            }
            WorkerInput::Analyze { memcpy_warms_l2 } => {
                let analysis = self.analyze(ProfileOptions { memcpy_warms_l2 });
                analysis.map_or_else(WorkerOutput::AnalysisFailed, |a| WorkerOutput::Analyzed(Box::new(a)))
            }
            WorkerInput::Predict { knobs } => {
                let report = self.predict(&knobs);
                report.map_or_else(WorkerOutput::AnalysisFailed, |r| WorkerOutput::Predicted(Box::new(r)))
            }
            WorkerInput::PlanScale { scale_models, config } => {
                let setup = self.gpu_or_default().map(|gpu| scale_setup(gpu, scale_models));
                let setup = ScaleSetup { config, ..setup.unwrap_or_else(ScaleSetup::unplanned) };
                WorkerOutput::ScalePlanned(Box::new(setup))
            }
            WorkerInput::Scale(request) => self.scale(&request),
        };
        vec![output]
    }

    /// Keeps a trace that loaded for runs; answers with its summary (and
    /// `hash`, for the user's files).
    fn keep_trace(&mut self, loaded: Result<TraceFiles, String>, hash: Option<ContentHash>) -> WorkerOutput {
        match loaded {
            Ok(TraceFiles { summary, list, blobs }) => {
                self.keep_workload(Loaded::Trace { list, blobs }, summary.totals.warp_insts);
                WorkerOutput::Workload(summary, hash)
            }
            Err(message) => WorkerOutput::WorkloadFailed(message),
        }
    }

    /// Keeps a workload that loaded; the profile of the previous one goes.
    fn keep_workload(&mut self, loaded: Loaded, warp_insts: u64) {
        self.workload = Some((loaded, warp_insts));
        self.drop_profiles();
    }

    /// Every model on the loaded workload and config, profiling only when
    /// no profile with these options is kept.
    fn analyze(&mut self, options: ProfileOptions) -> Result<Analysis, String> {
        self.gpu_or_default()?;
        let (Some(gpu), Some((loaded, _))) = (&self.gpu, &self.workload) else { return Err(NO_WORKLOAD.to_owned()) };
        if self.profile.as_ref().is_none_or(|(kept, _)| *kept != options) {
            self.profile = Some((options, profile_loaded(gpu, loaded, options)?));
        }
        let (_, profile) = self.profile.as_ref().ok_or(NO_WORKLOAD)?;
        Ok(Analysis { report: predict(profile, gpu), base: knob_base(gpu) })
    }

    /// Every model for the loaded config with `knobs` set: on the kept
    /// profile, or on one of the workload for the knobbed SM count and MSHRs
    /// (a generated workload sized for them, as the edited config will be).
    fn predict(&mut self, knobs: &[(String, f64)]) -> Result<AnalyticalReport, String> {
        let (Some(gpu), Some((options, profile)), Some((loaded, _))) = (&self.gpu, &self.profile, &self.workload)
        else {
            return Err("nothing analyzed yet: the models are evaluated once the workload has been analyzed".to_owned());
        };
        let knobbed = with_knobs(gpu, knobs)?;
        let wanted = ProfiledKnobs::of(&knobbed);
        if wanted == ProfiledKnobs::of(gpu) {
            return Ok(predict(profile, &knobbed));
        }
        if self.knobbed_profile.as_ref().is_none_or(|(kept, _)| *kept != wanted) {
            self.knobbed_profile = Some((wanted, profile_loaded(&knobbed, loaded, *options)?));
        }
        let (_, profile) = self.knobbed_profile.as_ref().ok_or(NO_WORKLOAD)?;
        Ok(predict(profile, &knobbed))
    }

    /// Forgets the profiles: the workload or the config changed.
    fn drop_profiles(&mut self) {
        self.profile = None;
        self.knobbed_profile = None;
    }

    /// Runs `request`'s part of a scale-model run on the loaded workload, in
    /// one go: the worker answers nothing else meanwhile (see
    /// `crate::scale_progress`).
    fn scale(&mut self, request: &ScaleRequest) -> WorkerOutput {
        let part = request.part;
        let answer = self.scale_part(request);
        match (part, answer) {
            (ScalePart::Curve, Err(message)) => WorkerOutput::CurveFailed(message),
            (_, Err(message)) => WorkerOutput::ScaleFailed(message),
            (_, Ok(answer)) => answer,
        }
    }

    fn scale_part(&mut self, request: &ScaleRequest) -> Result<WorkerOutput, String> {
        let gpu = self.gpu_or_default()?.clone();
        let Some((loaded, _)) = &self.workload else { return Err(NO_WORKLOAD.to_owned()) };
        let plan = ScalePlan::new(&gpu, request.scale_models, &request.targets).map_err(|e| e.to_string())?;
        let options = ScaleOptions {
            rule: request.rule,
            validate: request.validate,
            weak: request.weak,
            memcpy_warms_l2: request.memcpy_warms_l2,
        };
        let progress = ProgressPoster::open(&request.progress_channel);
        let open = |sms: u32| if request.weak { loaded.share(&gpu, sms) } else { loaded.source(&gpu) };
        let mut host = WorkerScaleHost::new(open, progress, steps(&plan, &options, request.part));
        Ok(match request.part {
            ScalePart::Whole => WorkerOutput::Scaled(Box::new(run_scale(&plan, &mut host, &options)?)),
            ScalePart::Simulations => {
                let mut simulations = simulate_scale_models(&plan, &mut host, &options)?;
                validate_targets(&mut simulations, &plan, &mut host, &options)?;
                WorkerOutput::ScaleSimulated(Box::new(simulations))
            }
            ScalePart::Curve => WorkerOutput::ScaleCurved(Box::new(scale_curve(&plan, &mut host, &options)?)),
        })
    }

    /// Starts a run of the workload loaded last, and its first slice.
    fn start_run(&mut self, speed: u64, watch: u32, options: SimOptions) -> Result<Vec<WorkerOutput>, String> {
        let gpu = self.gpu_or_default()?.clone();
        let Some((loaded, total)) = &self.workload else { return Err(NO_WORKLOAD.to_owned()) };
        let workload = loaded.source(&gpu)?;
        let watch = watch.min(gpu.n_sms().saturating_sub(1));
        let options = SimOptions { per_pc: loaded.counts_per_pc(), ..options };
        let mut run = WorkerRun::new(&gpu, options, workload, *total, speed, watch);
        let outputs = run.advance(now_ms);
        self.run = Some(run);
        Ok(outputs)
    }

    /// Simulates the loaded workload sampled with `options` and in full, in
    /// one call each, and compares them with their wall times.
    fn compare_sampling(&mut self, options: SimOptions) -> Result<SamplingComparison, String> {
        let gpu = self.gpu_or_default()?.clone();
        let Some((loaded, _)) = &self.workload else { return Err(NO_WORKLOAD.to_owned()) };
        let timed = |options: SimOptions| -> Result<(SimReport, f64), String> {
            let mut workload = loaded.source(&gpu)?;
            let started_ms = now_ms();
            let report = simulate_workload(&gpu, options, &mut *workload);
            Ok((report, (now_ms() - started_ms) / 1000.0))
        };
        let (sampled, sampled_s) = timed(options)?;
        let (full, full_s) = timed(SimOptions { sampling: SamplingOptions::default(), ..options })?;
        Ok(compare(&sampled, &full, Some((sampled_s, full_s))))
    }

    /// The config loaded last, or the default preset when none has.
    fn gpu_or_default(&mut self) -> Result<&GpuConfig, String> {
        let gpu = match self.gpu.take() {
            Some(gpu) => gpu,
            None => default_config().map_err(|e| e.to_string())?.1,
        };
        Ok(self.gpu.insert(gpu))
    }

    /// Answers a config input: the config read, with `edits` applied. The
    /// config as read is kept as the base later edits apply to; when an edit
    /// fails, the config before it stays loaded.
    fn config(&mut self, result: Result<(ConfigReport, GpuConfig), String>, edits: &[ConfigEdit]) -> WorkerOutput {
        let edited = result.and_then(|(report, base)| {
            let gpu = apply_edits(&base, edits).map_err(|e| e.to_string());
            self.base = Some((report.clone(), base));
            gpu.map(|gpu| (edited_report(&report, &gpu, edits.len()), gpu))
        });
        match edited {
            Ok((report, gpu)) => {
                self.gpu = Some(gpu);
                self.drop_profiles();
                WorkerOutput::Config(Box::new(report), self.origin.clone())
            }
            Err(message) => WorkerOutput::ConfigFailed(message),
        }
    }

    /// Compiles and runs `file` for the loaded config, keeps its workload
    /// for runs, and answers with its listing and summary or its error.
    fn compile(&mut self, file: String, source: String) -> WorkerOutput {
        let compiled = self
            .gpu_or_default()
            .map_err(|message| KernelError::unlocated(&file, message))
            .and_then(|gpu| authored_workload(&file, &source, gpu));
        match compiled {
            Ok((authored, summary, workload)) => {
                let recorded = Cell::new(Some(workload));
                self.keep_workload(Loaded::Authored { file, source, recorded }, summary.totals.warp_insts);
                WorkerOutput::Compiled(Box::new(authored), summary)
            }
            Err(error) => WorkerOutput::KernelFailed(Box::new(error)),
        }
    }

    /// Checks `spec` for the loaded config and keeps it; answers with its
    /// summary when `summarize`, else with `WorkloadKept` (its warp
    /// instructions then `check_size`'s estimate).
    fn generate(&mut self, spec: GenSpec, summarize: bool) -> WorkerOutput {
        let checked = self.gpu_or_default().and_then(|gpu| {
            let estimate = check_size(&spec, gpu)?;
            let summary = summarize.then(|| summarize_generated(&spec, gpu).map_err(|e| e.to_string())).transpose()?;
            Ok((summary.as_ref().map_or(estimate, |summary| summary.totals.warp_insts), summary))
        });
        match checked {
            Ok((warp_insts, summary)) => {
                self.keep_workload(Loaded::Generated(spec), warp_insts);
                summary.map_or(WorkerOutput::WorkloadKept, |summary| WorkerOutput::Workload(summary, None))
            }
            Err(message) => WorkerOutput::WorkloadFailed(message),
        }
    }
}

/// Refuses a spec whose workload is estimated above
/// [`MAX_GENERATED_WARP_INSTS`]: each kernel's first CTA, made alone, times
/// its CTA count. Invalid specs fail here with the generator's message.
/// Returns the estimate.
fn check_size(spec: &GenSpec, gpu: &GpuConfig) -> Result<u64, String> {
    let workload = generate(spec, gpu).map_err(|e| e.to_string())?;
    let estimate = workload.estimated_warp_insts();
    if estimate <= MAX_GENERATED_WARP_INSTS {
        return Ok(estimate);
    }
    Err(format!(
        "{}: about {estimate} warp instructions, more than the {MAX_GENERATED_WARP_INSTS} the browser generates; \
         `warplab info --gen {}` summarizes it natively",
        workload.name, workload.name
    ))
}

/// Compiles and runs `file` for `gpu` as `warplab --kernel` does, keeping
/// its workload: the listing, the workload's summary and the workload.
/// Each launch's budget, and the whole run's, is what the browser simulates
/// of a generated workload ([`MAX_GENERATED_WARP_INSTS`]), so a kernel that
/// never ends stops at its budget in seconds and no workload outgrows the
/// worker's memory.
fn authored_workload(
    file: &str,
    source: &str,
    gpu: &GpuConfig,
) -> Result<(Authored, WorkloadSummary, Workload), KernelError> {
    // Counted first, keeping nothing: a kernel that never ends stops at its
    // budget before anything is recorded, and one that runs long in many
    // launches is refused before its streams fill the worker's memory.
    let hint = page_budget_hint(file);
    let (_, counted) = run_kernel(file, source, gpu, false, MAX_GENERATED_WARP_INSTS, &hint)
        .map_err(|error| KernelError::new(&error))?;
    if counted.warp_insts > MAX_GENERATED_WARP_INSTS {
        let message = format!(
            "{} warp instructions, more than the {MAX_GENERATED_WARP_INSTS} the browser simulates; \
             `warplab run --kernel {file}` runs it natively",
            counted.warp_insts
        );
        return Err(KernelError::unlocated(file, message));
    }
    let (compiled, run) = run_kernel(file, source, gpu, true, MAX_GENERATED_WARP_INSTS, &hint)
        .map_err(|error| KernelError::new(&error))?;
    let authored = Authored::new(file, source, &compiled, &run);
    let workload =
        run.workload.ok_or_else(|| KernelError::unlocated(file, "the run recorded no workload".to_owned()))?;
    let summary = summarize_workload(file, &workload);
    Ok((authored, summary, workload))
}

/// What a launch past the page's budget can do: the page has no setting
/// for it, the command line runs the file with a larger one.
fn page_budget_hint(file: &str) -> String {
    format!(
        "the page's limit per launch; natively `warplab run --kernel {file}` allows {}, and \
         `warplab kernel check {file} --max-warp-insts N` any N",
        warplab_lab::cuda::DEFAULT_MAX_WARP_INSTS
    )
}

/// Profiles the loaded workload on `gpu`.
fn profile_loaded(gpu: &GpuConfig, loaded: &Loaded, options: ProfileOptions) -> Result<Profile, String> {
    profile_workload(gpu, &mut *loaded.source(gpu)?, options).map_err(|e| e.to_string())
}

/// Reads a trace: the `kernelslist.g` among `files` (or, with none, a list of
/// the kernel files in name order), then each kernel streamed from its blob.
/// `dir_url`, for bundled samples, is where files the list names but `files`
/// lacks are fetched from. Returns the summary, the list and the kernel blobs.
async fn load_trace(label: &str, files: Vec<FileRef>, dir_url: Option<&str>) -> Result<TraceFiles, String> {
    let list = match files.iter().find(|f| f.name == "kernelslist.g") {
        Some(list) => text_of(list).await?,
        None => kernel_list_of(&files)?,
    };
    let mut blobs = Vec::new();
    for name in kernel_files(&list).map_err(|e| e.to_string())? {
        let url = match (files.iter().find(|f| f.name == name), dir_url) {
            (Some(file), _) => file.url.clone(),
            (None, Some(dir_url)) => format!("{dir_url}{name}"),
            (None, None) => {
                return Err(format!("{name}: kernelslist.g names it, but it was not among the files opened"));
            }
        };
        let blob = fetch_blob(&url).await.map_err(|e| without_url(&e, &url, &name))?;
        blobs.push((name, blob));
    }
    let summary = summarize_trace(label, &list, &mut *blob_opener(blobs.clone())).map_err(|e| e.to_string())?;
    Ok(TraceFiles { summary, list, blobs })
}

/// The content hash of a trace: its `kernelslist.g` text and the kernel
/// files it names, streamed from their blobs (as the CLI hashes a folder).
fn trace_hash(list: &str, blobs: &KernelBlobs) -> Result<ContentHash, String> {
    let mut hasher = ContentHasher::new();
    for name in trace_hash_files(list).map_err(|e| e.to_string())? {
        if name == "kernelslist.g" {
            hasher.add_file(&name, list.as_bytes()).map_err(|e| e.to_string())?;
            continue;
        }
        let (_, blob) = blobs.iter().find(|(kernel, _)| *kernel == name).ok_or(format!("{name}: not fetched"))?;
        let mut reader = BlobReader::new(blob.clone())?;
        hasher.add_reader(&name, blob.size() as u64, &mut reader).map_err(|e| e.to_string())?;
    }
    hasher.finish().map_err(|e| e.to_string())
}

/// Opens the kernel files among `blobs` by name, each as a fresh stream.
fn blob_opener(blobs: KernelBlobs) -> Box<OpenRead<'static>> {
    Box::new(move |wanted: &str| -> Result<Box<dyn Read>, String> {
        let (_, blob) = blobs.iter().find(|(name, _)| name == wanted).ok_or("not fetched")?;
        let reader = BlobReader::new(blob.clone())?;
        Ok(Box::new(BufReader::with_capacity(256 * 1024, reader)))
    })
}

/// A `kernelslist.g` naming the kernel files among `files`, by kernel number.
fn kernel_list_of(files: &[FileRef]) -> Result<String, String> {
    let mut kernels: Vec<&str> =
        files.iter().map(|f| f.name.as_str()).filter(|n| n.ends_with(".traceg") || n.ends_with(".traceg.xz")).collect();
    if kernels.is_empty() {
        return Err("no trace among the files: expected kernelslist.g or .traceg / .traceg.xz files".to_owned());
    }
    let number = |name: &str| -> u64 {
        let digits: String = name.trim_start_matches("kernel-").chars().take_while(char::is_ascii_digit).collect();
        digits.parse().unwrap_or(u64::MAX)
    };
    kernels.sort_by_key(|name| (number(name), name.to_string()));
    Ok(kernels.iter().map(|name| format!("{name}\n")).collect())
}

/// The report of `gpu`, `base`'s config with `edits` edits applied.
fn edited_report(base: &ConfigReport, gpu: &GpuConfig, edits: usize) -> ConfigReport {
    match edits {
        0 => base.clone(),
        1 => config_report(&format!("{} + 1 edit", base.label), gpu, base.diagnostics.clone()),
        n => config_report(&format!("{} + {n} edits", base.label), gpu, base.diagnostics.clone()),
    }
}

fn load_preset(name: &str) -> Result<(ConfigReport, GpuConfig), String> {
    let (name, gpu) = preset_config(name).map_err(|e| e.to_string())?;
    Ok((config_report(&format!("preset {name}"), &gpu, Vec::new()), gpu))
}

/// Why config files could not be read, and the file they need when that is why.
struct ConfigProblem {
    message: String,
    needs: Option<String>,
}

impl From<String> for ConfigProblem {
    fn from(message: String) -> Self {
        Self { message, needs: None }
    }
}

async fn load_config(label: &str, files: &[FileRef]) -> Result<(ConfigReport, GpuConfig, FilesOrigin), ConfigProblem> {
    let mut texts = Vec::new();
    for file in files {
        texts.push((file.name.clone(), text_of(file).await?));
    }
    let gpu = read_config_files(&texts)
        .map_err(|e| ConfigProblem { message: e.to_string(), needs: missing_icnt(&texts, &e) })?;
    let hashed = config_hash_files(texts.iter().map(|(name, _)| name.as_str()));
    let mut hasher = ContentHasher::new();
    // In the hash's order (by name), each file once.
    for name in hashed {
        let text = texts.iter().find(|(file, _)| file == name).map_or("", |(_, text)| text.as_str());
        hasher.add_file(name, text.as_bytes()).map_err(|e| e.to_string())?;
    }
    let hash = hasher.finish().map_err(|e| e.to_string())?;
    let delta = config_delta(&gpu).map(|(preset, edits)| (preset.to_owned(), edits));
    Ok((config_report(label, &gpu, Vec::new()), gpu, FilesOrigin { label: label.to_owned(), hash, delta }))
}

/// How a link carries the user's config files: as the nearest preset and
/// the option edits that make it these files, when that reads back equal
/// (`lab::config_delta`), else by their label and content hash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FilesOrigin {
    /// What the files are called on the page.
    pub label: String,
    /// Their content hash (`lab::ContentHasher`, as the CLI computes it).
    pub hash: ContentHash,
    /// The nearest preset and its edits, if they give exactly this config.
    pub delta: Option<(String, Vec<ConfigEdit>)>,
}

/// A small text file (a `kernelslist.g` or a config), whole.
async fn text_of(file: &FileRef) -> Result<String, String> {
    let bytes = fetch_bytes(&file.url).await.map_err(|e| without_url(&e, &file.url, &file.name))?;
    String::from_utf8(bytes).map_err(|_| format!("{}: not valid UTF-8", file.name))
}

/// Messages name files as the user knows them, not by their `blob:` URL.
fn without_url(message: &str, url: &str, name: &str) -> String {
    if url.starts_with("blob:") { message.replace(url, name) } else { message.to_owned() }
}
