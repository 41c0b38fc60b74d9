//! Scale-model prediction: a large GPU's performance predicted from two small,
//! proportionally scaled-down GPUs (SeyyedAghaei, Naderan-Tahan and Eeckhout,
//! HPCA 2024).
//!
//! This crate will build the scale models from a target config, simulate them,
//! compute the LLC miss-rate curve in one pass over the trace, detect the miss
//! rate cliff, extrapolate, and fit the proportional, linear, power-law and
//! logarithmic baselines. It arrives with the "Scale-model prediction" issue.
//!
//! Central design decision: the predictor is a pure function of its published
//! inputs (IPC of two scale models, the MPKI curve, f_mem), so it can be checked
//! row by row against the paper's reference tool before any simulation feeds it.
#![deny(missing_docs)]
