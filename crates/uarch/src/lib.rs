//! Microarchitecture building blocks shared by the timing model and the
//! analytical models.
//!
//! It holds [`dispatch`] (which pipeline of a configured SM runs each opcode,
//! with the fallbacks for units a config lacks), [`occupancy`] (CTAs per SM
//! from threads, registers, shared memory and CTA slots, and the waves a grid
//! takes), [`cache`] (a functional sectored tag array with the cache string's
//! replacement, allocation and write policies) with [`set_index`] (GPGPU-Sim's
//! set-index functions, IPOLY among them), [`address_map`] (an address's DRAM
//! channel, L2 slice, bank, row and column, its fields gathered by
//! [`bit_field`]), [`dram`] (one DRAM channel,
//! command by command, with [`bitset`] its sets of banks), [`fetch`] (where code
//! lives and how much one instruction fetch brings), [`coalescer`] (a warp's accesses
//! as 32-B sector requests per subwarp) and [`shared_memory`] (the cycles a
//! shared-memory access takes with bank conflicts).
//!
//! Central design decision: `warplab-sim` and `warplab-model` call these same
//! functions, so a cache or occupancy rule is written once and both models agree
//! on it by construction.
//!
//! ```
//! use warplab_config::preset;
//! use warplab_trace::{Isa, describe};
//! use warplab_uarch::dispatch::{Pipe, dispatch};
//!
//! let qv100 = preset("QV100").unwrap().config().unwrap();
//! let uldc = describe(Isa::Ampere, "ULDC.64");
//! let d = dispatch(uldc.unit, &qv100.units);
//! assert_eq!(d.pipe, Pipe::Unit(warplab_config::UnitClass::Int));
//! assert!(d.fallback.is_some(), "Volta has no uniform datapath");
//! ```
#![deny(missing_docs)]

pub mod address_map;
pub mod bit_field;
pub mod bitset;
pub mod cache;
pub mod coalescer;
pub mod dispatch;
pub mod dram;
pub mod fetch;
pub mod latency;
pub mod occupancy;
pub mod ops;
pub mod set_index;
pub mod shared_memory;
