//! The analytical models behind the facade: profile a trace directory or a
//! generated workload once, then evaluate GPUMech, MDM and the ablations for
//! any config that shares its per-SM part.

use warplab_config::GpuConfig;
use warplab_kernels::GenSpec;
use warplab_model::{AnalyticalReport, Machine, Profile, ProfileOptions};
use warplab_trace::source::WorkloadSource;

use crate::generated::generate;
use crate::simulate::TraceWorkload;
use crate::{LabError, OpenRead};

/// Profiles `workload` (a trace, a generated workload: any command stream).
///
/// # Errors
/// The workload could not be read (named with file, line and field).
pub fn profile_workload(
    config: &GpuConfig,
    workload: &mut dyn WorkloadSource,
    options: ProfileOptions,
) -> Result<Profile, LabError> {
    warplab_model::profile(config, workload, options).map_err(LabError::Profile)
}

/// Profiles the workload `spec` generates for `config`.
///
/// # Errors
/// A spec that does not fit the generator or the config.
pub fn profile_generated(config: &GpuConfig, spec: &GenSpec, options: ProfileOptions) -> Result<Profile, LabError> {
    profile_workload(config, &mut generate(spec, config)?.into_source(), options)
}

/// Profiles the trace whose `kernelslist.g` text is `list_text`.
///
/// # Errors
/// A malformed `kernelslist.g`, a kernel file that cannot be opened or read
/// (named with its line and field).
pub fn profile_trace(
    config: &GpuConfig,
    list_text: &str,
    open: &mut OpenRead<'static>,
    options: ProfileOptions,
) -> Result<Profile, LabError> {
    profile_workload(config, &mut TraceWorkload::new(list_text, open)?, options)
}

/// Every analytical model on `profile` for the GPU `config` describes.
pub fn predict(profile: &Profile, config: &GpuConfig) -> AnalyticalReport {
    warplab_model::predict(profile, &Machine::of(config))
}
