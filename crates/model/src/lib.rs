//! Analytical GPU performance models: GPUMech's interval analysis (Huang et
//! al., MICRO 2014) and the MDM memory-divergence model (Wang et al., MICRO
//! 2020), with the ablations between them (GPUMech+, MDM-Queue, MDM-MSHR).
//!
//! Two steps. [`profile`] reads a workload once for a per-SM configuration:
//! every warp's interval profile (instructions issued between stalls, with
//! the config's latencies), a functional pass of all warps through the L1s
//! and the L2, and each kernel's representative warp. [`predict`] then
//! evaluates the models on that profile for a [`Machine`] — SM count,
//! MSHRs, NoC and DRAM bandwidth, clock — in microseconds, so a sweep over
//! thousands of configurations costs one profile.
//!
//! ```
//! use warplab_kernels::{GenSpec, generate};
//! use warplab_model::{Machine, ModelKind, ProfileOptions, predict, profile};
//!
//! let config = warplab_config::preset("QV100").unwrap().config().unwrap();
//! let spec: GenSpec = "vecadd:size=64".parse().unwrap();
//! let workload = generate(&spec, &config).unwrap();
//! let mut source = workload.into_source();
//! let profile = profile(&config, &mut source, ProfileOptions::default()).unwrap();
//! let report = predict(&profile, &Machine::of(&config));
//! assert!(report.models[&ModelKind::Mdm].ipc > 0.0);
//! ```
//!
//! The same functional cache pass, without the interval profile, measures a
//! workload at several LLC sizes in one walk ([`walk_caches`]): the
//! miss-rate curve of scale-model prediction.
//!
//! It never depends on `warplab-sim`: the models stand on their own, and the
//! timing model is only their yardstick (`docs/validation.md`).
#![deny(missing_docs)]

mod cache_pass;
mod code_fetch;
pub mod contention;
mod core_model;
mod crossbar;
pub mod dram_rate;
mod interval;
pub mod kmeans;
mod limits;
mod llc;
mod llc_stage;
pub mod machine;
pub mod overlap;
mod predict;
mod profile;
mod random;
mod walk;

pub use interval::MAX_PROFILE_INTERVALS;
pub use limits::{KernelWork, MAX_SLOWEST_PATHS, PathTime, Rates};
pub use llc::LlcCounts;
pub use machine::{Latencies, Machine, SchedulerModel};
pub use predict::{
    AnalyticalReport, CPI_TERMS, CpiStack, HEADLINE, KernelResult, ModelKind, Prediction, predict, predict_model,
};
pub use profile::{CacheFigures, Interval, KernelProfile, Profile, ProfileOptions, profile, profile_on_threads};
pub use walk::{CacheWalk, KernelWalk, walk_caches};
