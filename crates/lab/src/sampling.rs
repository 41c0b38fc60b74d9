//! Sampled simulation as the front ends see it: the simulator's Photon
//! options and report, and the comparison of a sampled run with a full run
//! of the same workload (IPC error per kernel and overall, and speedup).

use serde::{Deserialize, Serialize};
pub use warplab_sim::sampling::{
    BasisPoints, KernelSampling, MAX_BLOCK_TYPES, MAX_SAMPLE_WARPS, MAX_WINDOW, SampleLevel, SampleMode,
    SamplingOptions, SamplingReport,
};
use warplab_sim::{SimOptions, SimReport};

/// The timing model's options for a run that names only its sampling mode,
/// at Photon's thresholds: what an experiment (and so a link, the page and
/// `warplab run --experiment`) simulates with, so all of them sample alike.
pub fn sim_options(memcpy_warms_l2: bool, mode: SampleMode) -> SimOptions {
    SimOptions { memcpy_warms_l2, sampling: SamplingOptions::with_mode(mode), ..SimOptions::default() }
}

/// One kernel of a sampled run against the full run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelComparison {
    /// The kernel's IPC in the sampled run.
    pub sampled_ipc: f64,
    /// Its IPC in the full run.
    pub full_ipc: f64,
    /// (sampled − full) / full; 0 when the full IPC is 0.
    pub ipc_error: f64,
}

/// A sampled run against a full run of the same workload and GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingComparison {
    /// IPC of the sampled run.
    pub sampled_ipc: f64,
    /// IPC of the full run.
    pub full_ipc: f64,
    /// (sampled − full) / full.
    pub ipc_error: f64,
    /// Cycles of the sampled run.
    pub sampled_cycles: u64,
    /// Cycles of the full run.
    pub full_cycles: u64,
    /// Per kernel, in launch order (the shorter of the two lists).
    pub kernels: Vec<KernelComparison>,
    /// Warp instructions of the full run over those the sampled run simulated
    /// in detail: the speedup the sampling bought, free of machine noise.
    pub instruction_speedup: f64,
    /// The full run's wall time over the sampled run's, when the caller timed them.
    pub wall_speedup: Option<f64>,
}

/// Compares `sampled` with `full`; `walls` are their wall times in seconds
/// when the caller measured them.
pub fn compare(sampled: &SimReport, full: &SimReport, walls: Option<(f64, f64)>) -> SamplingComparison {
    let detailed = sampled.sampling.as_ref().map_or(sampled.warp_insts, |s| s.detailed_warp_insts);
    let kernels = sampled
        .kernels
        .iter()
        .zip(&full.kernels)
        .map(|(s, f)| KernelComparison { sampled_ipc: s.ipc, full_ipc: f.ipc, ipc_error: relative_error(s.ipc, f.ipc) })
        .collect();
    SamplingComparison {
        sampled_ipc: sampled.ipc,
        full_ipc: full.ipc,
        ipc_error: relative_error(sampled.ipc, full.ipc),
        sampled_cycles: sampled.cycles,
        full_cycles: full.cycles,
        kernels,
        instruction_speedup: if detailed == 0 { 0.0 } else { full.warp_insts as f64 / detailed as f64 },
        wall_speedup: walls.and_then(|(sampled, full)| (sampled > 0.0).then(|| full / sampled)),
    }
}

fn relative_error(value: f64, truth: f64) -> f64 {
    if truth == 0.0 { 0.0 } else { (value - truth) / truth }
}
