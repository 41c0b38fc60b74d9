//! The one facade of warplab: what the command line and the web app call.
//!
//! Every figure the lab shows goes through this crate, so the CLI and the
//! browser always print the same numbers. It reads traces and configs,
//! generates, simulates and runs the analytical and scale models, and carries
//! an [`Experiment`] (config + workload + options) in share links
//! ([`encode_link`], [`decode_link`]) and JSON files.
//!
//! Central design decision: the lab does no I/O of its own. Callers hand it a
//! reader for each file through a closure, so the same code streams a
//! directory natively and files fetched or dropped in the browser.
//!
//! ```
//! use std::io::Read;
//! use warplab_lab::summarize_trace;
//!
//! let list = "MemcpyHtoD,0x1000,64\nkernel-1.traceg\n";
//! let kernel = "-kernel name = k\n-accelsim tracer version = 4\n#BEGIN_TB\nwarp = 0\ninsts = 1\n0008 ffffffff 0 EXIT 0 0\n#END_TB\n";
//! let mut open = |file: &str| -> Result<Box<dyn Read>, String> {
//!     assert_eq!(file, "kernel-1.traceg");
//!     Ok(Box::new(kernel.as_bytes()))
//! };
//! let summary = summarize_trace("demo", list, &mut open)?;
//! assert_eq!(summary.kernels[0].name, "k");
//! assert_eq!(summary.totals.warp_insts, 1);
//! assert_eq!(summary.memcpys.len(), 1);
//! # Ok::<(), warplab_lab::LabError>(())
//! ```
#![deny(missing_docs)]

pub mod accelsim;
mod analytical;
mod authored;
mod config;
mod config_delta;
mod content_hash;
mod experiment;
pub mod follow;
pub mod fuzzing;
mod generated;
mod knobs;
mod link;
mod memory_files;
mod profile_key;
mod samples;
pub mod sampling;
pub mod scale;
mod simulate;
mod workload;

pub use analytical::{predict, profile_generated, profile_trace, profile_workload};
pub use authored::{MAX_KERNEL_SOURCE_BYTES, authored_workload, compile_kernel, run_kernel, run_options};
pub use config::{
    ConfigReport, PresetInfo, config_report, default_config, missing_icnt, named_icnt, option_help, preset_config,
    presets, read_config_dir, read_config_files,
};
pub use config_delta::config_delta;
pub use content_hash::{ContentHasher, config_hash_files, trace_hash_files};
pub use experiment::{
    ConfigChoice, ConfigEdit, ContentHash, Experiment, MAX_EDITS, MAX_NAME_BYTES, MAX_OPTION_VALUE_BYTES, MAX_SPEED,
    ScaleChoice, ViewState, WorkloadChoice, apply_edits,
};
pub use generated::{
    generate, generated_files, sample_files, summarize_generated, summarize_workload, write_generated, write_workload,
};
pub use knobs::{CONFIG_KNOBS, ConfigKnob, ProfiledKnobs, apply_knob, apply_knobs, config_knob};
pub use link::{
    KNOWN_LINK_VERSIONS, LINK_VERSION, LinkError, MAX_JSON_BYTES, MAX_LINK_BYTES, decode_link, encode_link,
};
pub use memory_files::{MemoryFiles, NamedFile};
pub use profile_key::{NOT_PROFILED, ProfileKey};
pub use samples::{SAMPLE_TRACES, SampleTrace};
pub use simulate::{GeneratedWorkload, TraceWorkload, simulate_generated, simulate_trace};
pub use warplab_config::known_options::known_option;
pub use warplab_config::{
    ConfigError, ConfigSummary, ConfigView, GpuConfig, KeptOption, ViewGroup, ViewRow, order_config_files,
};
/// Authored CUDA C kernels (issue 41): compile, run functionally, and the
/// workload they produce; the front ends reach them through the lab.
pub use warplab_cuda as cuda;
pub use warplab_kernels::{GENERATORS, GenError, GenSpec, Generator, Knob, generator};
pub use warplab_model::{
    AnalyticalReport, CPI_TERMS, CpiStack, HEADLINE, KernelResult, Machine, ModelKind, Prediction, Profile,
    ProfileOptions, predict_model,
};
#[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
pub use warplab_sim::enable_web_pool;
pub use warplab_sim::per_pc;
/// Simulates any command stream (a trace, a generated workload) to its end.
pub use warplab_sim::simulate as simulate_workload;
pub use warplab_sim::snapshot::{
    ChannelSnapshot, CtaSnapshot, Depth, LinkSnapshot, NO_CTA, SliceSnapshot, SmSnapshot, Snapshot, WarpSnapshot,
    WarpState,
};
pub use warplab_sim::source::WorkloadSource;
pub use warplab_sim::{
    Cycle, Event, EventBatch, EventKind, EventWindow, Progress, Queue, SimOptions, SimReport, Simulation, Until,
};
pub use warplab_trace::{Dim3, KernelSummary, ParseError};
/// CTAs per SM by GPGPU-Sim's rule, the one the simulator applies (an
/// authored kernel's occupancy, from its registers and shared memory).
pub use warplab_uarch::occupancy;
pub use workload::{
    CreateWrite, LabError, Memcpy, OpenRead, Totals, WorkloadSummary, convert_trace, kernel_files,
    summarize_kernel_file, summarize_trace,
};
