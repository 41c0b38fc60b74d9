//! Teaching kernels and microbenchmarks, generated from real algorithms.
//!
//! This crate will hold generators (vecadd, strided, stencil2d, histogram,
//! pointer chase, bandwidth and FLOP microbenchmarks, ...) that run their
//! algorithm on seeded data and emit warp instruction streams in the
//! instruction form of `warplab-trace`, in memory or as Accel-Sim traces on
//! disk. It arrives with the "Teaching kernels" issue.
//!
//! Central design decision: addresses and active masks are computed by running
//! the algorithm, never invented, so a knob changes behaviour the way it would
//! on hardware. It depends on `warplab-trace` and `warplab-config` only.
#![deny(missing_docs)]
