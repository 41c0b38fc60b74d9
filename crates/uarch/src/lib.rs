//! Microarchitecture building blocks shared by the timing model and the
//! analytical models.
//!
//! This crate will hold the sectored cache tag arrays (replacement, set-index
//! functions including IPOLY hashing), the sub-warp sectored coalescer and the
//! occupancy calculation (CTAs per SM from threads, registers, shared memory
//! and CTA slots). It arrives with "The timing model" issue.
//!
//! Central design decision: `warplab-sim` and `warplab-model` call these same
//! functions, so a cache or occupancy rule is written once and both models agree
//! on it by construction.
#![deny(missing_docs)]
