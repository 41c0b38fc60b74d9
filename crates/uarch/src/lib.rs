//! Microarchitecture building blocks shared by the timing model and the
//! analytical models.
//!
//! Today it holds [`dispatch`] (which pipeline of a configured SM runs each
//! opcode, with the fallbacks for units a config lacks) and [`occupancy`]
//! (CTAs per SM from threads, registers, shared memory and CTA slots, and the
//! waves a grid takes). The sectored cache tag arrays (replacement, set-index
//! functions including IPOLY hashing) and the sub-warp sectored coalescer
//! arrive with "The timing model" issue.
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

pub mod dispatch;
pub mod occupancy;
