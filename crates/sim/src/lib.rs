//! The cycle-level, trace-driven GPU timing model.
//!
//! This crate will model kernel and CTA scheduling, SM sub-cores with their warp
//! schedulers (LRR, GTO, two-level), scoreboards and execution units, the L1
//! data cache with MSHRs, the crossbar, L2 slices and DRAM channels, in the
//! style of GPGPU-Sim 4.0 as the Accel-Sim paper describes it; plus its
//! statistics, the optional event stream that the web app animates, and
//! Photon-style sampled simulation. It arrives with "The timing model" issue.
//!
//! Central design decision: the whole GPU is one owned tree of plain structs in
//! flat vectors indexed by id newtypes, advanced in one fixed, documented
//! per-cycle order with integer arithmetic only, so a run gives the same cycle
//! count natively and in WebAssembly. It reads no clock and knows nothing of
//! the browser.
#![deny(missing_docs)]
