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
use warplab_scale::Rule;

use crate::LabError;

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
#[serde(rename_all = "snake_case")]
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
#[serde(rename_all = "snake_case")]
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
#[serde(rename_all = "snake_case")]
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
            scale: ScaleChoice::default(),
            view: ViewState::default(),
            baseline: None,
        }
    }

    /// `base` with every edit applied in order, each read back through the
    /// config reader.
    ///
    /// # Errors
    /// An unknown knob, a value a knob cannot take, or an option the config
    /// reader rejects (named with its value).
    pub fn apply_edits(&self, base: &GpuConfig) -> Result<GpuConfig, LabError> {
        apply_edits(base, &self.edits)
    }
}

/// `base` with `edits` applied in order.
///
/// # Errors
/// As [`Experiment::apply_edits`].
pub fn apply_edits(base: &GpuConfig, edits: &[ConfigEdit]) -> Result<GpuConfig, LabError> {
    edits.iter().try_fold(base.clone(), |config, edit| match edit {
        ConfigEdit::Knob { name, value } => crate::apply_knob(&config, name, *value),
        ConfigEdit::Option { name, value } => crate::knobs::with_option(&config, name, value),
    })
}
