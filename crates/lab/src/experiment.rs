//! An experiment: everything that decides what the lab shows, as data.
//!
//! The web page edits one [`Experiment`], its URL fragment carries it (see
//! `link.rs`), "Download experiment" saves it as JSON and
//! `warplab run --experiment FILE` reads that JSON back, so a link, a file
//! and the command line all name the same run and print the same numbers.
//!
//! What cannot travel in a link (a user's trace or config files) is named
//! by file name and content hash, and whoever opens the link is asked for
//! the files; a config that differs from a preset by a few options travels
//! as that preset plus [`ConfigEdit::Option`]s instead.

use serde::{Deserialize, Serialize};
use warplab_config::GpuConfig;
use warplab_kernels::GenSpec;
use warplab_scale::{Rule, ScalePlan};

use crate::LabError;
use crate::SimOptions;
use crate::link::LinkError;
use crate::sampling::SampleMode;

/// The most config edits an experiment carries (a link stays short).
pub const MAX_EDITS: usize = 64;

/// The fastest animation speed an experiment asks for, in cycles per second
/// (0 means "as fast as possible"; this bounds the rest).
pub const MAX_SPEED: u64 = 1_000_000_000;

/// The longest name (a preset, a sample, an option, a file label) accepted.
pub const MAX_NAME_BYTES: usize = 256;

/// The longest config option value accepted (a cache string is ~60 bytes).
pub const MAX_OPTION_VALUE_BYTES: usize = 1024;

/// A GPU, a workload, the options of the models and what the page shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    /// The base configuration.
    pub config: ConfigChoice,
    /// Options changed from the base, applied in order (later ones win).
    #[serde(default)]
    pub edits: Vec<ConfigEdit>,
    /// The workload.
    pub workload: WorkloadChoice,
    /// Host-to-device copies fill the L2 (DESIGN §2a: off by default).
    #[serde(default)]
    pub memcpy_warms_l2: bool,
    /// Sampled simulation (Photon): the levels the timing model may sample
    /// at. Left out of the JSON when off, so an experiment without sampling
    /// has the JSON (and the link) it had before link version 3.
    #[serde(default, skip_serializing_if = "is_off")]
    pub sampling: SampleMode,
    /// The scale-model prediction's options.
    #[serde(default)]
    pub scale: ScaleChoice,
    /// What the page shows.
    #[serde(default)]
    pub view: ViewState,
    /// A pinned earlier experiment the page compares with (never itself
    /// carrying a baseline).
    #[serde(default)]
    pub baseline: Option<Box<Experiment>>,
}

/// Where the base configuration comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ConfigChoice {
    /// A bundled preset, by name.
    Preset(String),
    /// The user's config files: they cannot travel in a link, so whoever
    /// opens it is asked for files with this content hash.
    Files {
        /// What the files were called (a label, e.g. `gpgpusim.config`).
        name: String,
        /// [`ContentHash`] of the files, in the order they were read.
        hash: ContentHash,
    },
}

/// One change to the base configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ConfigEdit {
    /// A sweep knob (`warplab_lab::CONFIG_KNOBS`) set to a value.
    Knob {
        /// The knob's name, e.g. `l1_mshrs`.
        name: String,
        /// Its value.
        value: f64,
    },
    /// A raw `gpgpusim.config` option, appended as `-name value`.
    Option {
        /// The option with its dash, e.g. `-gpgpu_scheduler`.
        name: String,
        /// Its value, as the config file would spell it.
        value: String,
    },
}

/// Where the workload comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum WorkloadChoice {
    /// A bundled sample trace, by name (`warplab_lab::SAMPLE_TRACES`).
    Sample(String),
    /// A generator run, sized for the experiment's config.
    Generated(GenSpec),
    /// The user's trace files, named by label and content hash.
    Trace {
        /// A label, e.g. the folder's name.
        name: String,
        /// [`ContentHash`] of the files.
        hash: ContentHash,
    },
    /// A CUDA C file the user wrote (issue 41), carried whole: compiled and
    /// run for the experiment's config. Link version 6 added it.
    Kernel {
        /// The file's name, as errors name it (`vecadd.cu`).
        name: String,
        /// Its text, at most [`crate::MAX_KERNEL_SOURCE_BYTES`]; it may not
        /// compile (a student can share the error they ask about).
        source: String,
    },
}

/// The scale-model prediction's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScaleChoice {
    /// The two scale models' SM counts (`None`: the smallest pair that
    /// divides the target).
    #[serde(default)]
    pub scale_models: Option<[u32; 2]>,
    /// Which rule extrapolates.
    #[serde(default)]
    pub rule: Rule,
    /// Simulate the target too and report each method's error.
    #[serde(default)]
    pub validate: bool,
    /// The GPU size the scale-model IPC is predicted for, in SMs: a size of
    /// the scale series (four or more times the smaller scale model, up to
    /// the config's own SMs). `None`: the config's own SM count. Left out of
    /// the JSON when `None`, so links without a target read as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_sms: Option<u32>,
    /// Weak scaling: each size runs its share of a generated workload (its
    /// `size` × SMs / the target's SMs), with no miss-rate curve, as the
    /// paper predicts weak scaling. Only for generated workloads (a trace has
    /// one size). Left out of the JSON when false (link version 5 added it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub weak: bool,
}

/// What the page shows that is not a model input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewState {
    /// The SM whose warps and events are watched.
    #[serde(default)]
    pub watch_sm: u32,
    /// Animation speed in cycles per second (0: as fast as possible).
    #[serde(default)]
    pub speed: u64,
    /// The analytical panel shows only the MDM paper's models, without
    /// warplab's models beyond the papers (GPUMech M/D/1, MDM + limits, the
    /// core model): what a lab on the paper's models hands out. Left out of
    /// the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paper_models_only: bool,
    /// The speed Replay plays a finished run at, in cycles per second (0:
    /// the page's default, slow enough to watch): a lab step about the
    /// animation sets one at which what it asks about is visible. Left out
    /// of the JSON when 0 (link version 6 added it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub replay_speed: u64,
}

/// Whether `value` is 0: what serde asks of `skip_serializing_if`.
fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// A 64-bit FNV-1a hash of files' contents, written as 16 hex digits: what
/// names a user's files in a link. Not a security measure: it tells the
/// user they picked the same files, not that nobody forged them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct ContentHash(pub u64);

impl From<ContentHash> for String {
    fn from(hash: ContentHash) -> String {
        format!("{:016x}", hash.0)
    }
}

impl TryFrom<String> for ContentHash {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        if text.len() != 16 {
            return Err(format!("content hash `{text}`: expected 16 hex digits"));
        }
        u64::from_str_radix(&text, 16).map(ContentHash).map_err(|_| format!("content hash `{text}`: not hex"))
    }
}

impl Experiment {
    /// The default experiment: the default preset and the default
    /// generator at its default size.
    pub fn new(preset: &str, workload: WorkloadChoice) -> Self {
        Experiment {
            config: ConfigChoice::Preset(preset.to_owned()),
            edits: Vec::new(),
            workload,
            memcpy_warms_l2: false,
            sampling: SampleMode::Off,
            scale: ScaleChoice::default(),
            view: ViewState::default(),
            baseline: None,
        }
    }

    /// The timing model's options for this experiment: whether copies warm
    /// the L2, and its sampling mode ([`crate::sampling::sim_options`]).
    pub fn sim_options(&self) -> SimOptions {
        crate::sampling::sim_options(self.memcpy_warms_l2, self.sampling)
    }
}

/// Whether `mode` is off: serde's test for leaving the field out.
fn is_off(mode: &SampleMode) -> bool {
    *mode == SampleMode::Off
}

/// `base` with `edits` applied in order, each read back through the config
/// reader.
///
/// # Errors
/// An unknown knob, a value a knob cannot take, or an option the config
/// reader rejects (named with its value).
pub fn apply_edits(base: &GpuConfig, edits: &[ConfigEdit]) -> Result<GpuConfig, LabError> {
    edits.iter().try_fold(base.clone(), |config, edit| apply_edit(&config, edit))
}

/// `config` with one edit applied.
fn apply_edit(config: &GpuConfig, edit: &ConfigEdit) -> Result<GpuConfig, LabError> {
    match edit {
        ConfigEdit::Knob { name, value } => crate::apply_knob(config, name, *value),
        ConfigEdit::Option { name, value } => crate::knobs::with_option(config, name, value),
    }
}

impl Experiment {
    /// Checks every value against what this warplab has and accepts: the
    /// preset exists and every edit reads back through the config reader
    /// (for the user's config files only the edits' spelling, since the
    /// files are not here), the sample exists, a generator spec names a
    /// generator with its knobs in range, the scale models are `S, 2S`, a
    /// scale-model target is a size their plan predicts (checked when the
    /// config is a preset), the watched SM exists, the speeds are at most
    /// [`MAX_SPEED`], at most [`MAX_EDITS`] edits, and a baseline carries no
    /// baseline of its own.
    ///
    /// # Errors
    /// The first value that does not check out, named.
    pub fn validate(&self) -> Result<(), LinkError> {
        self.validate_one()?;
        if let Some(baseline) = &self.baseline {
            if baseline.baseline.is_some() {
                return Err(LinkError::Invalid("the baseline has a baseline of its own".to_owned()));
            }
            baseline.validate_one().map_err(|error| match error {
                LinkError::Invalid(reason) => LinkError::Invalid(format!("baseline: {reason}")),
                other => other,
            })?;
        }
        Ok(())
    }

    /// The configuration this experiment runs on when it names a preset:
    /// the preset with the edits applied. `None` for the user's files.
    ///
    /// # Errors
    /// An unknown preset, or an edit that does not apply (named with its
    /// place in the list).
    pub fn preset_config(&self) -> Result<Option<GpuConfig>, LinkError> {
        let ConfigChoice::Preset(name) = &self.config else {
            return Ok(None);
        };
        check_name("preset", name)?;
        let (_, base) = crate::preset_config(name).map_err(|_| LinkError::UnknownPreset(name.clone()))?;
        self.edits
            .iter()
            .enumerate()
            .try_fold(base, |config, (index, edit)| {
                apply_edit(&config, edit).map_err(|error| {
                    LinkError::Invalid(format!("config edit {} ({}): {error}", index + 1, edit.describe()))
                })
            })
            .map(Some)
    }

    fn validate_one(&self) -> Result<(), LinkError> {
        if self.edits.len() > MAX_EDITS {
            return Err(LinkError::Invalid(format!(
                "{} config edits; an experiment carries at most {MAX_EDITS}",
                self.edits.len()
            )));
        }
        for (index, edit) in self.edits.iter().enumerate() {
            edit.check_spelling()
                .map_err(|reason| LinkError::Invalid(format!("config edit {}: {reason}", index + 1)))?;
        }
        if let ConfigChoice::Files { name, .. } = &self.config {
            check_name("config files' label", name)?;
        }
        let config = self.preset_config()?;
        self.workload.check()?;
        if let Some([small, large]) = self.scale.scale_models
            && (small == 0 || u64::from(large) != 2 * u64::from(small))
        {
            return Err(LinkError::Invalid(format!(
                "the scale models must be S and 2S SMs with S ≥ 1, got {small},{large}"
            )));
        }
        if let (Some(config), Some(target)) = (&config, self.scale.target_sms) {
            check_scale_target(config, self.scale.scale_models, target)?;
        }
        if self.scale.weak && !matches!(self.workload, WorkloadChoice::Generated(_)) {
            return Err(LinkError::Invalid(
                "weak scaling grows a generated workload with the GPU; a trace has one size".to_owned(),
            ));
        }
        if let Some(config) = &config
            && self.view.watch_sm >= config.n_sms()
        {
            return Err(LinkError::Invalid(format!(
                "the watched SM {} does not exist: the GPU has {} SMs (0 to {})",
                self.view.watch_sm,
                config.n_sms(),
                config.n_sms().saturating_sub(1)
            )));
        }
        for (what, speed) in [("animation", self.view.speed), ("replay", self.view.replay_speed)] {
            if speed > MAX_SPEED {
                return Err(LinkError::Invalid(format!(
                    "the {what} speed {speed} cycles/s is above the fastest, {MAX_SPEED}"
                )));
            }
        }
        Ok(())
    }
}

/// A scale-model target must be a size the plan of `config` (with the
/// chosen scale models, or the default pair) predicts.
fn check_scale_target(config: &GpuConfig, scale_models: Option<[u32; 2]>, target: u32) -> Result<(), LinkError> {
    let invalid = |reason: String| LinkError::Invalid(format!("the scale-model target of {target} SMs: {reason}"));
    let pair = scale_models
        .or_else(|| crate::scale::default_scale_models(config))
        .ok_or_else(|| invalid(format!("the GPU's {} SMs cannot be scaled down", config.n_sms())))?;
    ScalePlan::new(config, pair, &[target]).map(drop).map_err(|error| invalid(error.reason))
}

impl ConfigEdit {
    /// The edit as a person reads it: `l1_mshrs = 64` or `-gpgpu_scheduler gto`.
    pub fn describe(&self) -> String {
        match self {
            ConfigEdit::Knob { name, value } => format!("{name} = {value}"),
            ConfigEdit::Option { name, value } => format!("{name} {value}"),
        }
    }

    /// Checks what can be checked without a config: a known knob with a
    /// finite positive value, or an option spelled `-name` whose value the
    /// option parser reads as one value (no line break, no comment, quotes
    /// only around the whole value), each of bounded length.
    pub fn check_spelling(&self) -> Result<(), String> {
        match self {
            ConfigEdit::Knob { name, value } => {
                crate::config_knob(name).map_err(|error| error.to_string())?;
                if !value.is_finite() || *value <= 0.0 {
                    return Err(format!("{name} = {value}: must be a positive number"));
                }
            }
            ConfigEdit::Option { name, value } => {
                let shown: String = name.chars().take(40).collect();
                if name.len() > MAX_NAME_BYTES
                    || !name.starts_with('-')
                    || name.len() < 2
                    || !name.chars().all(|c| c.is_ascii_graphic() && c != '#' && c != '"')
                {
                    return Err(format!("`{}` is not a config option name (`-name`)", shown.escape_default()));
                }
                if value.len() > MAX_OPTION_VALUE_BYTES {
                    return Err(format!("{name}: the value is longer than {MAX_OPTION_VALUE_BYTES} bytes"));
                }
                if value.chars().any(|c| c.is_control() || c == '#') {
                    return Err(format!("{name}: the value holds a line break, a control character or `#`"));
                }
                let inner = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value);
                if inner.contains('"') {
                    return Err(format!("{name}: quotes may only surround the whole value"));
                }
            }
        }
        Ok(())
    }
}

impl WorkloadChoice {
    /// Checks the workload against this warplab: a sample it bundles, a
    /// generator it has with knobs in range, a bounded label, a kernel's
    /// source of bounded size (whether it compiles is the page's to show).
    fn check(&self) -> Result<(), LinkError> {
        match self {
            WorkloadChoice::Sample(name) => {
                check_name("sample", name)?;
                if !crate::SAMPLE_TRACES.iter().any(|sample| sample.name == name) {
                    let names: Vec<_> = crate::SAMPLE_TRACES.iter().map(|sample| sample.name).collect();
                    return Err(LinkError::Invalid(format!(
                        "no sample trace is called `{name}`; the samples are {}",
                        names.join(", ")
                    )));
                }
            }
            WorkloadChoice::Generated(spec) => {
                check_name("generator", &spec.kernel)?;
                if spec.knobs.len() > 64 {
                    return Err(LinkError::Invalid(format!("{}: too many knobs", spec.kernel)));
                }
                let generator = crate::generator(&spec.kernel).ok_or_else(|| {
                    LinkError::Invalid(
                        warplab_kernels::GenError::UnknownKernel { name: spec.kernel.clone() }.to_string(),
                    )
                })?;
                generator.check(spec).map_err(|error| LinkError::Invalid(format!("{}: {error}", spec.kernel)))?;
            }
            WorkloadChoice::Trace { name, .. } => check_name("trace label", name)?,
            WorkloadChoice::Kernel { name, source } => {
                check_name("kernel file name", name)?;
                if source.len() > crate::MAX_KERNEL_SOURCE_BYTES {
                    return Err(LinkError::Invalid(format!(
                        "the kernel {name} is {} bytes; an experiment carries at most {} bytes of source",
                        source.len(),
                        crate::MAX_KERNEL_SOURCE_BYTES
                    )));
                }
            }
        }
        Ok(())
    }
}

/// A name of bounded length without control characters.
fn check_name(what: &str, name: &str) -> Result<(), LinkError> {
    if name.len() > MAX_NAME_BYTES || name.chars().any(char::is_control) {
        let shown: String = name.chars().take(40).collect();
        return Err(LinkError::Invalid(format!(
            "the {what} `{}…` is not a name (at most {MAX_NAME_BYTES} bytes, no control characters)",
            shown.escape_default()
        )));
    }
    Ok(())
}
