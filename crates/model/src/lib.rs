//! Analytical GPU performance models.
//!
//! This crate will hold the interval profile of a trace (GPUMech's interval
//! analysis of a representative warp, miss rates from a functional cache pass)
//! and the models built on it: GPUMech, GPUMech+, MDM-Queue, MDM-MSHR and MDM
//! (Wang et al., MICRO 2020), each with its CPI stack. It arrives with the
//! "Analytical IPC" issue.
//!
//! Central design decision: a trace is profiled once per per-SM configuration
//! and the models are closed-form functions of that profile, so thousands of
//! configurations can be evaluated per second. It never depends on
//! `warplab-sim`: the models must stand on their own.
#![deny(missing_docs)]
