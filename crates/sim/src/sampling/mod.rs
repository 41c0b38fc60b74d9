//! Sampled simulation after Photon (Liu, Sun and Carlson, MICRO 2023):
//! kernel, warp and basic-block sampling with online analysis only, no
//! profiling pass.
//!
//! At each launch the first `sample` share of the kernel's warps (1%) is read
//! ahead and analysed ([`bbv`]): basic blocks ([`blocks`]), each warp's
//! basic-block vector, warp types, and the kernel's GPU BBV. Then, by level:
//! - **kernel**: a kernel whose GPU BBV is within `kernel_distance` of a kernel
//!   already simulated (with the same warp count when the kernel does not fill
//!   the GPU) is not simulated: its IPC is that kernel's and its instructions
//!   are the sample's scaled to the grid, so it takes `instructions / IPC`
//!   cycles;
//! - **warp**: when one warp type covers more than `dominance` of the sample,
//!   the kernel runs in detail until the warps' retire times against their
//!   launch times pass the stability test ([`stability`]) over the last
//!   `warp_window` warps in launch order; from then on each CTA the scheduler
//!   launches holds its SM's resources for the mean warp duration of those
//!   warps, without being simulated. A warp's retire time here is when its
//!   CTA frees its resources, as the SM holds them per CTA;
//! - **basic block**: the same test per block type over its last
//!   `block_window` executions; once the stable types cover more than
//!   `block_coverage` of the executed instructions, each new CTA is walked
//!   block by block and holds its resources for its slowest warp's time, each
//!   block timed by its type's mean, a block type not stable by the mean issue
//!   interval of its opcodes seen so far. Under `photon` a kernel takes this
//!   level only when no warp type dominates.
//!
//! A kernel where nothing stabilises runs in detail to its end. Only what is
//! launched after the switch is predicted: CTAs already running finish in
//! detail. Memory-system state (L2 contents, DRAM rows) is not updated by
//! predicted work; `docs/sampling.md` discusses what that costs.

pub(crate) mod bbv;
pub(crate) mod blocks;
pub(crate) mod log;
pub(crate) mod lookahead;
pub(crate) mod projection;
pub(crate) mod sampler;
pub mod stability;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub use blocks::MAX_BLOCK_TYPES;
pub use sampler::MAX_SAMPLE_WARPS;
pub use stability::{BasisPoints, MAX_WINDOW};

/// The levels a run may sample at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SampleMode {
    /// Everything in detail.
    #[default]
    Off,
    /// Kernel sampling only.
    Kernel,
    /// Warp sampling only.
    Warp,
    /// Basic-block sampling only.
    #[serde(rename = "bb")]
    BasicBlock,
    /// All three, as Photon runs them: a kernel that is not reused takes warp
    /// sampling when one warp type dominates, basic-block sampling otherwise.
    Photon,
}

impl SampleMode {
    /// Every mode, in the order the CLI and the UI list them.
    pub const ALL: [SampleMode; 5] = [Self::Off, Self::Photon, Self::Kernel, Self::Warp, Self::BasicBlock];

    /// The mode's name on the command line and in links.
    pub fn name(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Kernel => "kernel",
            Self::Warp => "warp",
            Self::BasicBlock => "bb",
            Self::Photon => "photon",
        }
    }

    pub(crate) fn kernels(self) -> bool {
        matches!(self, Self::Kernel | Self::Photon)
    }

    pub(crate) fn warps(self) -> bool {
        matches!(self, Self::Warp | Self::Photon)
    }

    pub(crate) fn blocks(self) -> bool {
        matches!(self, Self::BasicBlock | Self::Photon)
    }
}

impl fmt::Display for SampleMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SampleMode {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|mode| mode.name() == text).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|m| m.name()).collect();
            format!("unknown sampling mode `{text}`: expected one of {}", names.join(", "))
        })
    }
}

/// How a run samples; thresholds default to Photon's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SamplingOptions {
    /// Which levels may be used.
    pub mode: SampleMode,
    /// The share of each kernel's warps analysed at its launch (1%).
    pub sample: BasisPoints,
    /// GPU BBV distance (0 to 2, here in hundredths of a percent: 0.05 is
    /// 500) below which a kernel reuses a simulated kernel's IPC.
    pub kernel_distance: BasisPoints,
    /// Warp sampling needs one warp type above this share of the sample (95%).
    pub dominance: BasisPoints,
    /// Warps in the warp-level stability window (1,024).
    pub warp_window: u32,
    /// Tolerance of both stability tests (3%).
    pub delta: BasisPoints,
    /// Executions in each block type's stability window (2,048).
    pub block_window: u32,
    /// Stable block types must cover more than this share of the executed
    /// instructions before basic-block sampling starts (95%).
    pub block_coverage: BasisPoints,
}

impl Default for SamplingOptions {
    fn default() -> Self {
        Self {
            mode: SampleMode::Off,
            sample: BasisPoints(100),
            kernel_distance: BasisPoints(500),
            dominance: BasisPoints(9_500),
            warp_window: 1_024,
            delta: BasisPoints(300),
            block_window: 2_048,
            block_coverage: BasisPoints(9_500),
        }
    }
}

impl SamplingOptions {
    /// Photon's defaults with `mode`.
    pub fn with_mode(mode: SampleMode) -> Self {
        Self { mode, ..Self::default() }
    }
}

/// The level a kernel ended up simulated at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SampleLevel {
    /// Every warp in detail.
    Detailed,
    /// Not simulated: the IPC of a similar kernel.
    Kernel,
    /// Detailed until the warps were stable, then predicted per warp.
    Warp,
    /// Detailed until the blocks were stable, then predicted per block.
    #[serde(rename = "bb")]
    BasicBlock,
}

impl SampleLevel {
    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Self::Detailed => "detailed",
            Self::Kernel => "kernel",
            Self::Warp => "warp",
            Self::BasicBlock => "bb",
        }
    }
}

/// What sampling did for one kernel launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelSampling {
    /// The level used.
    pub level: SampleLevel,
    /// Warps in the grid.
    pub warps: u64,
    /// Warps analysed at launch.
    pub sample_warps: u64,
    /// Distinct warp types in the sample.
    pub warp_types: u32,
    /// The most common type's share of the sample (0 to 1).
    pub dominant_share: f64,
    /// The simulated kernel (index in the report's kernel list) nearest in
    /// GPU BBV, and the distance (0 to 2), whether or not it was reused.
    pub nearest: Option<(u32, f64)>,
    /// Warps simulated in detail.
    pub detailed_warps: u64,
    /// Warp instructions simulated in detail.
    pub detailed_warp_insts: u64,
    /// Warps predicted (not simulated in detail).
    pub predicted_warps: u64,
    /// The core cycle at which warp or basic-block sampling took over.
    pub switched_at: Option<u64>,
    /// Warp sampling: the cycles each predicted CTA holds its SM, the mean
    /// time from launch to CTA end of the last `warp_window` warps (in launch
    /// order) when the stability test passed, and fixed from then on.
    pub warp_cycles: Option<u64>,
    /// Share of the executed instructions in stable block types when the run
    /// switched or ended (0 to 1; 0 when blocks were not tracked).
    pub stable_block_share: f64,
}

/// What sampling did in a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingReport {
    /// The options used.
    pub options: SamplingOptions,
    /// One entry per kernel launch, in launch order.
    pub kernels: Vec<KernelSampling>,
    /// Warp instructions simulated in detail (the report's `warp_insts`
    /// counts predicted ones too).
    pub detailed_warp_insts: u64,
}
