//! Scale-model prediction: a large GPU's performance predicted from two small,
//! proportionally scaled-down GPUs (SeyyedAghaei, Naderan-Tahan and Eeckhout,
//! "GPU Scale-Model Simulation", HPCA 2024).
//!
//! - [`predictor`]: the predictor proper, a pure function of its published
//!   inputs (IPC of two scale models, the LLC MPKI at every size, f_mem), with
//!   the reference tool's compounding rule and the paper's printed rule, and
//!   the proportional, linear, power-law and logarithmic baselines
//!   ([`baselines`]); [`cliff`] finds the miss-rate cliff.
//! - [`table`]: published data as a CSV, predicted and summarized per method.
//! - [`plan`]: the scale models of a target config; [`miss_curve`]: the LLC
//!   miss-rate curve of the size series from one functional pass;
//!   [`run`]: the whole experiment (simulate, curve, predict, validate).
//!
//! Central design decision: the predictor takes numbers, not simulations, so
//! it is checked row by row against the paper's reference tool
//! (`tests/reference.rs`) before any simulation feeds it.
#![deny(missing_docs)]

pub mod baselines;
pub mod cliff;
mod error;
pub mod fuzzing;
pub mod miss_curve;
pub mod plan;
pub mod predictor;
pub mod run;
pub mod table;

pub use cliff::Cliff;
pub use error::ScaleError;
pub use plan::{PlanError, ScalePlan, SizeConfig, workable_pairs};
pub use predictor::{Curve, Inputs, MAX_SIZES, Method, NoPrediction, Prediction, Role, Rule, predict};
pub use table::{Benchmark, PredictionRow, SummaryRow, Table, TableError, TableReport, Units};
