//! Scale-model prediction behind the facade (`warplab-scale`): the predictor
//! on numbers, published tables, and the plan of scale models for a target.

pub use warplab_scale::{
    Benchmark, Cliff, Curve, Inputs, MAX_SIZES, Method, PlanError, Prediction, PredictionRow, Role, Rule, ScaleError,
    ScalePlan, SizeConfig, SummaryRow, Table, TableError, TableReport, Units, predict, workable_pairs,
};
