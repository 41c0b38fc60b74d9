//! Scale-model prediction behind the facade (`warplab-scale`): the predictor
//! on numbers, published tables, the plan of scale models for a target, and
//! a whole run ([`run_scale`]) whose host (the CLI, the web worker) supplies
//! the workload for each size and the clock.

pub use warplab_scale::miss_curve::{MissCurve, MissPoint};
pub use warplab_scale::run::{
    CurveRun, RuleOutcome, ScaleHost, ScaleOptions, ScaleReport, ScaleSimulations, ScaleStep, SizeRun, Timing,
    WRITE_BACK_CHANGE, finish_scale, ipc_without_launch, launch_cycles, run_scale, scale_curve, simulate_scale_models,
    validate_targets, write_back_warning,
};
pub use warplab_scale::{
    Benchmark, Cliff, Curve, Inputs, MAX_SIZES, Method, NoPrediction, PlanError, Prediction, PredictionRow, Role, Rule,
    ScaleError, ScalePlan, SizeConfig, SummaryRow, Table, TableError, TableReport, Units, predict, workable_pairs,
};

use warplab_config::GpuConfig;
use warplab_kernels::{GenError, GenSpec, generator};

/// The scale models an experiment that names none uses: the smallest
/// workable pair, as the paper chose (the cheapest to simulate, and the
/// longest series to predict); `None` when no pair divides `target`. The
/// page and `warplab run --experiment` both choose with this, so a link
/// without scale models names the same prediction everywhere.
pub fn default_scale_models(target: &GpuConfig) -> Option<[u32; 2]> {
    workable_pairs(target).into_iter().min_by_key(|&[small, _]| small)
}

/// Weak scaling (`--weak`): the generator's `size` grown with the system,
/// `size × sms / target_sms` rounded to the nearest whole size and at least
/// 1, so the target runs the spec as given and each scale model a
/// proportional share of it.
///
/// # Errors
/// An unknown generator.
pub fn weak_spec(spec: &GenSpec, sms: u32, target_sms: u32) -> Result<GenSpec, GenError> {
    let generator = generator(&spec.kernel).ok_or_else(|| GenError::UnknownKernel { name: spec.kernel.clone() })?;
    let size = spec.size.unwrap_or(generator.size.default);
    let grown =
        (u128::from(size) * u128::from(sms) + u128::from(target_sms.max(1)) / 2) / u128::from(target_sms.max(1));
    Ok(GenSpec { size: Some(u64::try_from(grown).unwrap_or(u64::MAX).max(1)), ..spec.clone() })
}
