//! Typed GPU configurations: GPGPU-Sim / Accel-Sim `gpgpusim.config` files
//! (with the `trace.config` and BookSim `.icnt` files beside them) read into a
//! validated [`GpuConfig`], written back, bundled as presets, and scaled for
//! scale-model simulation.
//!
//! # The central design decision
//!
//! A config is read in two stages. [`RawConfig`] holds the options as typed
//! (name, value, file and line of every setting, in order), read the way
//! GPGPU-Sim's option parser reads them. [`GpuConfig::from_raw`] then checks
//! every value the models use and builds plain typed data; nothing downstream
//! of this crate ever handles a malformed value, and every error names the
//! file, line, option and value at fault ([`ConfigError`]). Options outside
//! that set are never fatal: they are kept, with their values, in two lists
//! ([`GpuConfig::unknown_options`], [`GpuConfig::unmodelled_options`]) and
//! written back, so a config survives a trip through warplab unchanged.
//!
//! The crate does no I/O and reads no clock: callers hand it (file name,
//! text) pairs, which is what both the CLI (from disk) and the web app (from
//! a fetch or a file picker) have. [`order_config_files`] is the one rule for
//! turning a directory listing into that list.
//!
//! ```
//! use warplab_config::GpuConfig;
//!
//! let text = "\
//! -gpgpu_n_clusters 14        # two SMs per cluster
//! -gpgpu_n_cores_per_cluster 2
//! -gpgpu_cache:dl2 S:64:128:16,L:B:m:L:L,A:192:4,32:0,32
//! -gpgpu_cache:il1 N:64:128:16,L:R:f:N:L,S:2:48,4
//! -gpgpu_n_mem 010            # octal, as in C: 8 channels
//! -gpgpu_perf_sim_memcpy
//! -network_mode 2            # the built-in crossbar (GPGPU-Sim's default is BookSim)
//! -my_own_option 3
//! ";
//! let config = GpuConfig::read([("gpgpusim.config", text)])?;
//! assert_eq!(config.n_sms(), 28);
//! assert_eq!(config.memory.n_channels, 8);
//! assert_eq!(config.memory.l2_total_bytes(), 8 * 128 * 1024);
//! assert_eq!(config.unknown_options[0].name, "-my_own_option");
//!
//! // Written back and read again, the config is the same.
//! let files = config.to_files();
//! let again = GpuConfig::read(files.iter().map(|(name, text)| (name.as_str(), text.as_str())))?;
//! assert_eq!(again, config);
//! # Ok::<(), warplab_config::ConfigError>(())
//! ```
//!
//! # Reading
//!
//! Option files follow GPGPU-Sim's `option_parser`: `#` to the end of a line
//! is a comment; the rest is one stream of whitespace-separated tokens; a
//! token starting with `"` is joined with the following ones until one ends
//! with `"` (so a value may span lines; the quotes are removed); settings are
//! `-name value` pairs, and a boolean option followed by another option (or
//! nothing) means 1; a later setting wins; integers are C notation (`0x` hex,
//! a leading `0` octal). An option the config leaves out takes GPGPU-Sim's
//! registered default (from the embedded `data/all_options.tsv`), except the
//! L2 and instruction cache strings, whose built-in defaults no longer parse
//! and which are therefore required. Stricter than GPGPU-Sim: text after a
//! number, a negative count, and a cache string without its miss-queue size
//! are errors, not silently accepted.
//!
//! # Writing, presets, scaling, showing
//!
//! [`GpuConfig::to_files`] writes `gpgpusim.config` (every modelled option,
//! defaults included, then the kept options in their order), `trace.config`
//! (the trace driver's latency and specialized-unit options, where
//! Accel-Sim's tested configs keep them) and the `.icnt` file if one was
//! read; reading them back gives the same config, kept lists included.
//! [`PRESETS`] embeds `configs/` ([`preset`] finds one by name or alias).
//! [`GpuConfig::scale_shared`] builds scale models (DESIGN §6) and returns
//! its adjustments as [`Diagnostic`] values. [`GpuConfig::summary`] and
//! [`GpuConfig::view`] are what the CLI and the web app show.
//!
//! # Limits
//!
//! Values outside these limits are [`ConfigError::OutOfRange`] (or
//! [`ConfigError::BadField`] inside a compound value):
//!
//! - SMs (clusters × cores per cluster): 1 to 1,024 ([`sm::MAX_SMS`]).
//! - Warp size: a power of two up to 32 (a trace's active mask has 32 bits);
//!   threads per SM: a multiple of it, at most 4,096; CTAs per SM: 1 to 32;
//!   registers per SM or CTA: at most 1,048,576; schedulers per SM: 1 to 32
//!   and no more than the resident warps; instructions issued per warp: 1 or 2.
//! - Units of each class: at most 64; at least one SP unit; pipeline widths
//!   at most 64: 13 of them, or 11 when tensor cores are unavailable.
//! - Latencies and initiation intervals: at most 100,000 cycles; a trace
//!   latency at least 1 and not below its initiation interval; specialized
//!   units numbered 1 to 8 without gaps.
//! - Caches: sets a power of two up to 65,536; line size a power of two up to
//!   4,096 B (128 B when sectored); 1 to 1,024 ways; MSHR entries, merges,
//!   miss queue and result FIFO up to 65,536; the data port at most a line;
//!   the IPOLY set index needs 16, 32 or 64 sets, the Fermi hash 32 or 64;
//!   write-back needs allocate-on-miss, and so do fetch-on-write and lazy fetch.
//! - Shared memory per SM or CTA, unified L1 size, carve-outs: at most 4 MiB;
//!   with the adaptive carve-out the unified size is a whole multiple of the
//!   L1 string's size and holds every carve-out and the per-SM shared memory.
//! - Memory channels: 1 to 1,024; sub-partitions per channel: a power of two
//!   up to 64; IPOLY partition indexing needs 16, 32 or 64 sub-partitions
//!   after rounding the channel count up to a power of two.
//! - DRAM: bus width 1 to 1,024 B, burst length 1 to 1,024 and a multiple of
//!   the data/command ratio (1 to 16), 1 to 64 chips per channel, timing
//!   values at most 10,000 command clocks with banks split evenly into groups.
//! - Clocks: above 0 and at most 100,000 MHz, kept to the kHz.
//! - Flit size: 1 to 4,096 B; BookSim mode needs the `.icnt` file's `flit_size`.
//! - Scaling: a factor must divide the cluster count and the channel count;
//!   scaling up must stay within the SM and channel limits.
#![deny(missing_docs)]
// A ConfigError carries the file, line, option, value and what was expected
// as owned strings so that it can be shown and matched on without the input;
// errors are the cold path, so their size does not matter.
#![allow(clippy::result_large_err)]

pub mod cache;
pub mod chiplets;
pub mod clocks;
pub mod collector;
pub mod dram;
mod error;
mod files;
#[doc(hidden)]
pub mod fuzzing;
mod gpu;
pub mod icnt;
pub mod interconnect;
pub mod known_options;
mod lookup;
pub mod memory;
mod numbers;
mod options;
pub mod presets;
mod scale;
pub mod sm;
mod summary;
pub mod units;
mod writer;

pub use cache::CacheConfig;
pub use chiplets::{Chiplets, SmMapping, Topology};
pub use clocks::{ClockDomains, Frequency};
pub use collector::{CollectorSet, CollectorSetKind, OperandCollector};
pub use dram::{BankGroupIndexing, BankIndexing, DramConfig, DramScheduler, DramTiming};
pub use error::{ConfigError, Location};
pub use files::{ConfigFileKind, base_name, file_kind, order_chosen_config_files, order_config_files};
pub use gpu::{GpuConfig, KeptOption, KernelLaunch};
pub use icnt::IcntConfig;
pub use interconnect::{Interconnect, NetworkMode};
pub use memory::{AddressMapping, L1Config, MemoryPartitions, PartitionIndexing, PartitionQueues};
pub use options::{RawConfig, RawSetting};
pub use presets::{PRESETS, Preset, default_preset, preset};
pub use scale::{Diagnostic, Scaled};
pub use sm::{ComputeCapability, Cores, SchedulerPolicy, Scheduling};
pub use summary::{CacheSummary, ConfigSummary, ConfigView, ViewGroup, ViewRow};
pub use units::{
    ClassLatencies, ExecutionUnits, LatencyInitiation, PipelineWidths, PtxLatencies, SpecializedUnit, UnitClass,
};
pub use writer::{GPGPUSIM_CONFIG, TRACE_CONFIG};
