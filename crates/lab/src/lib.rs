//! The one facade of warplab: what the command line and the web app call.
//!
//! Every figure the lab shows goes through this crate, so the CLI and the
//! browser always print the same numbers. Today it reads a trace directory into
//! a [`WorkloadSummary`] and lists the bundled samples; experiments (config +
//! workload + options → report with the simulated, analytical and scale-model
//! IPC) and the share-link codec arrive with the issues that build them.
//!
//! Central design decision: the lab does no I/O of its own. Callers hand it the
//! bytes of each file through a closure, so the same code reads a directory
//! natively and files fetched or dropped in the browser.
//!
//! ```
//! use warplab_lab::summarize_trace;
//!
//! let list = "MemcpyHtoD,0x1000,64\nkernel-1.traceg\n";
//! let kernel = "-kernel name = k\n-accelsim tracer version = 4\n#BEGIN_TB\nwarp = 0\ninsts = 1\n0008 ffffffff 0 EXIT 0 0\n#END_TB\n";
//! let summary = summarize_trace("demo", list, |file: &str| {
//!     assert_eq!(file, "kernel-1.traceg");
//!     Ok(kernel.as_bytes().to_vec())
//! })?;
//! assert_eq!(summary.kernels[0].name, "k");
//! assert_eq!(summary.warp_instructions(), 1);
//! assert_eq!(summary.memcpy_commands, 1);
//! # Ok::<(), warplab_lab::LabError>(())
//! ```
#![deny(missing_docs)]

mod samples;
mod workload;

pub use samples::{SAMPLE_TRACES, SampleTrace};
pub use warplab_trace::{Dim3, KernelSummary, ParseError};
pub use workload::{LabError, WorkloadSummary, kernel_files, summarize_trace};
