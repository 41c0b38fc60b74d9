//! Teaching kernels and microbenchmarks, generated from real algorithms.
//!
//! A generator runs its algorithm on seeded data and writes the warp
//! instruction streams a GPU would execute, in the instruction form of
//! `warplab-trace`: realistic SASS opcodes at fixed PCs with real register
//! dependences, addresses computed by the algorithm, active masks that follow
//! its control flow. The result is a [`Workload`] of copies and kernel
//! launches whose CTAs are produced on demand, so a workload of millions of
//! instructions costs only its input data until something walks it; it can be
//! summarized, simulated, or written as an Accel-Sim trace directory.
//!
//! Central design decision: addresses and active masks are computed by running
//! the algorithm, never invented, so a knob changes behaviour the way it would
//! on hardware. Each kernel's SASS listing is written once ([`Code`]) and a
//! per-CTA body executes it warp by warp ([`WarpWriter`]).
//!
//! A workload may launch several kernels, in `kernelslist.g` order with ids
//! 1, 2, ...: `bfs` launches one per BFS level, and `vecadd` and `gemm-tiled`
//! launch the same kernel `launches` times over the same arrays (one body
//! shared by the launches, so each produces the same CTAs; the default of 1
//! is the single launch, byte for byte).
//!
//! ```
//! use warplab_kernels::{GenSpec, generate};
//!
//! let config = warplab_config::default_preset().config()?;
//! let spec: GenSpec = "strided:gs=32,size=1".parse()?;
//! let workload = generate(&spec, &config)?;
//! let kernel = workload.kernels().next().unwrap();
//! assert_eq!(kernel.summary().ctas, 4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod code;
mod device;
mod generator;
mod generators;
mod random;
mod source;
mod spec;
mod warp;
mod workload;

pub use code::{BINARY_VERSION, Code, Op, RZ, binary_version_for};
pub use device::{Array, DeviceMemory, LOCAL_BASE, SHMEM_BASE};
pub use generator::{Generator, Knob, Params, generate, generator};
pub use generators::GENERATORS;
pub use random::Random;
pub use source::WorkloadCommands;
pub use spec::{GenError, GenSpec, MAX_SPEC_BYTES};
pub use warp::{FULL_MASK, WarpLanes, WarpWriter, for_each_warp, lanes, mask_where, within};
pub use workload::{Command, CtaBody, Kernel, Launch, Workload, written_header};

#[cfg(test)]
mod test_support;
