//! Which GPUs a scale-model run simulates: the target's proportional scale
//! models (`GpuConfig::scale_shared`: SMs, LLC slices, NoC and DRAM bandwidth
//! divided by the factor, every per-SM resource kept), one per size of the
//! doubling series from the smallest scale model up to the largest target.
//!
//! Every size of a series, the target included, uses one slice-hashing
//! scheme: where the target's IPOLY indexing cannot index some scale model's
//! slices, the whole series falls back to consecutive indexing, so that the
//! scale models are proportional copies of the GPU they predict (a mixed
//! series would extrapolate from one hash to another).
//!
//! A target that cannot be divided into the requested scale models is an
//! error that says why and lists the pairs that would work.

use std::fmt;

use serde::{Deserialize, Serialize};
use warplab_config::{Diagnostic, GpuConfig, PartitionIndexing};

use crate::predictor::MAX_SIZES;

/// One size of the series and its GPU.
#[derive(Debug, Clone, PartialEq)]
pub struct SizeConfig {
    /// SMs.
    pub sms: u32,
    /// The target's SMs divided by this.
    pub factor: u32,
    /// The scaled configuration.
    pub config: GpuConfig,
}

/// The sizes a run needs, smallest first: the two scale models, then every
/// doubling up to the largest target.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalePlan {
    /// The target's SMs.
    pub target_sms: u32,
    /// Every size of the series.
    pub sizes: Vec<SizeConfig>,
    /// The sizes asked for as targets (each one of `sizes`, past the scale models).
    pub targets: Vec<u32>,
    /// What scaling had to change (e.g. partition indexing), per size.
    pub diagnostics: Vec<String>,
}

/// A target the requested scale models cannot be cut from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanError {
    /// Why.
    pub reason: String,
    /// Scale-model pairs `(S, 2S)` that divide the target and double up to it.
    pub workable: Vec<[u32; 2]>,
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.reason)?;
        if self.workable.is_empty() {
            return write!(f, "; no pair of scale models divides this GPU");
        }
        let pairs: Vec<String> = self.workable.iter().map(|[s, l]| format!("{s},{l}")).collect();
        write!(f, "; scale models that would work: {}", pairs.join(" or "))
    }
}

impl std::error::Error for PlanError {}

impl ScalePlan {
    /// The plan for predicting `targets` (SM counts; empty: the target's own)
    /// of `target` from scale models of `scale_models` SMs.
    ///
    /// # Errors
    /// Scale models that are not `S, 2S`, targets that are not `S·2^k` with
    /// `k ≥ 2` or exceed the target, or a size the target's SMs or memory
    /// channels cannot be divided into.
    pub fn new(target: &GpuConfig, scale_models: [u32; 2], targets: &[u32]) -> Result<Self, PlanError> {
        let fail = |reason: String| PlanError { reason, workable: workable_pairs(target) };
        let n = target.n_sms();
        let [s, l] = scale_models;
        if s == 0 || u64::from(l) != 2 * u64::from(s) {
            return Err(fail(format!("the scale models must be S and 2S SMs, got {s},{l}")));
        }
        let mut targets = if targets.is_empty() { vec![n] } else { targets.to_vec() };
        targets.sort_unstable();
        targets.dedup();
        for &t in &targets {
            check_target(t, s, n).map_err(fail)?;
        }
        let largest = targets.last().copied().unwrap_or(n);
        let series: Vec<u32> = std::iter::successors(Some(s), |&sms| sms.checked_mul(2))
            .take_while(|&sms| sms <= largest)
            .take(MAX_SIZES)
            .collect();
        let (base, mut diagnostics) = one_indexing_for(target, &series);
        let mut sizes = Vec::with_capacity(series.len());
        for sms in series {
            let factor = n / sms;
            let scaled = base.scale_shared(factor).map_err(|e| fail(format!("{sms} SMs: {e}")))?;
            if scaled.config.n_sms() != sms {
                return Err(fail(format!(
                    "{sms} SMs: dividing the clusters by {factor} gives {} SMs",
                    scaled.config.n_sms()
                )));
            }
            diagnostics.extend(
                scaled.diagnostics.iter().map(|d: &Diagnostic| format!("{sms} SMs: {}: {}", d.option, d.message)),
            );
            sizes.push(SizeConfig { sms, factor, config: scaled.config });
        }
        Ok(Self { target_sms: n, sizes, targets, diagnostics })
    }

    /// The SM counts of the series.
    pub fn sms(&self) -> Vec<u32> {
        self.sizes.iter().map(|s| s.sms).collect()
    }

    /// The size with `sms` SMs.
    pub fn size(&self, sms: u32) -> Option<&SizeConfig> {
        self.sizes.iter().find(|s| s.sms == sms)
    }
}

/// The config every size is cut from: the target, or the target with
/// consecutive partition indexing when its IPOLY indexing does not fit some
/// size of `series` (then one diagnostic says so, for the whole series).
fn one_indexing_for(target: &GpuConfig, series: &[u32]) -> (GpuConfig, Vec<String>) {
    let n = target.n_sms();
    let misfit = series.iter().find_map(|&sms| {
        let scaled = target.scale_shared(n / sms.max(1)).ok()?;
        scaled.diagnostics.iter().any(is_indexing).then(|| (sms, scaled.config.memory.n_sub_partitions()))
    });
    let Some((sms, slices)) = misfit else { return (target.clone(), Vec::new()) };
    let mut base = target.clone();
    base.memory.partition_indexing = PartitionIndexing::Consecutive;
    let note = format!(
        "-gpgpu_memory_partition_indexing: the target's IPOLY hashing cannot index the {sms}-SM model's {slices} L2 slices, \
         so every size, the {n}-SM target included, uses consecutive indexing (0): the prediction and its validation \
         are for the target with that scheme"
    );
    (base, vec![note])
}

fn is_indexing(d: &Diagnostic) -> bool {
    d.option == "-gpgpu_memory_partition_indexing"
}

/// A target must be reached from S by doubling at least twice, and divide
/// the GPU it is cut from.
fn check_target(t: u32, s: u32, n: u32) -> Result<(), String> {
    if t > n {
        return Err(format!("target {t} SMs is larger than the GPU's {n}"));
    }
    if !t.is_multiple_of(s) || !(t / s).is_power_of_two() || t / s < 4 {
        return Err(format!(
            "target {t} SMs is not 4·{s}, 8·{s}, 16·{s}, …: sizes double from the scale models ({s}, {})",
            2 * s
        ));
    }
    if !n.is_multiple_of(t) {
        return Err(format!("target {t} SMs does not divide the GPU's {n} SMs"));
    }
    Ok(())
}

/// Pairs `(S, 2S)` with `N / S` a power of two of at least 4 whose factors
/// divide the target's clusters and channels: what would work.
pub fn workable_pairs(target: &GpuConfig) -> Vec<[u32; 2]> {
    let n = target.n_sms();
    (2..32)
        .map(|j| 1u32 << j)
        .take_while(|&f| f <= n)
        .filter(|&f| n.is_multiple_of(f) && [f, f / 2].iter().all(|&g| target.scale_shared(g).is_ok()))
        .map(|f| [n / f, 2 * n / f])
        .collect()
}
