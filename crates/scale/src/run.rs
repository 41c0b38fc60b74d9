//! A scale-model experiment end to end: simulate the two scale models of a
//! [`ScalePlan`], take the LLC miss-rate curve over every size in one cache
//! pass, read f_mem from the larger scale model's report, and predict every
//! size with every method; optionally simulate the targets too, for the
//! errors and the simulation-time speedup.
//!
//! The caller supplies the workload and the clock through [`ScaleHost`]: this
//! crate reads no wall clock (DESIGN §1), and a host decides what "the same
//! workload on a bigger system" means (strong scaling: the same command
//! stream; weak: a generator grown with the system).

use serde::{Deserialize, Serialize};
use warplab_model::ProfileOptions;
use warplab_sim::{SimOptions, SimReport, simulate};
use warplab_trace::source::WorkloadSource;

use crate::miss_curve::{MissCurve, miss_rate_curve};
use crate::plan::{ScalePlan, SizeConfig};
use crate::predictor::{Inputs, Method, Prediction, Role, Rule, predict};
use crate::table::{PredictionRow, SummaryRow, summarize};

/// What a scale-model run needs from its caller.
pub trait ScaleHost {
    /// A fresh command stream of the workload for a system of `sms` SMs.
    ///
    /// # Errors
    /// The workload cannot be opened or generated.
    fn workload(&mut self, sms: u32) -> Result<Box<dyn WorkloadSource>, String>;

    /// Wall-clock seconds from any fixed origin, or `None` where there is no
    /// clock (then the report has no timing).
    fn now(&mut self) -> Option<f64> {
        None
    }

    /// A step is about to start (for progress).
    fn step(&mut self, _step: &ScaleStep) {}
}

/// One step of a run, in the order they happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScaleStep {
    /// Simulating the system of `sms` SMs, a scale model or a target.
    Simulate {
        /// Its SMs.
        sms: u32,
        /// Scale model or target.
        role: Role,
    },
    /// The miss-rate curve over every size.
    Curve,
}

impl ScaleStep {
    /// One line for a progress display.
    pub fn describe(self) -> String {
        match self {
            Self::Simulate { sms, role: Role::ScaleModel } => format!("simulating the {sms}-SM scale model"),
            Self::Simulate { sms, .. } => format!("simulating the {sms}-SM target (validation)"),
            Self::Curve => "miss-rate curve (one cache pass)".to_owned(),
        }
    }
}

/// How to run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScaleOptions {
    /// The scale-model rule.
    pub rule: Rule,
    /// Also simulate every target.
    pub validate: bool,
    /// The host grows the workload with the system: the curve then takes
    /// each size's own workload through its own LLC (one pass per size).
    pub weak: bool,
    /// Host-to-device copies fill the L2 (DESIGN §2a).
    pub memcpy_warms_l2: bool,
}

/// One simulated system.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizeRun {
    /// SMs.
    pub sms: u32,
    /// Core cycles.
    pub cycles: u64,
    /// Warp instructions.
    pub warp_insts: u64,
    /// Thread instructions.
    pub thread_insts: u64,
    /// Thread instructions per cycle.
    pub ipc: f64,
    /// Fraction of cycles every resident warp waited on memory.
    pub f_mem: f64,
    /// L2 misses per 1,000 thread instructions, as the timing model counts them.
    pub l2_mpki: f64,
    /// Wall-clock seconds of the simulation, when the host has a clock.
    pub seconds: Option<f64>,
}

impl SizeRun {
    fn of(sms: u32, report: &SimReport, seconds: Option<f64>) -> Self {
        Self {
            sms,
            cycles: report.cycles,
            warp_insts: report.warp_insts,
            thread_insts: report.thread_insts,
            ipc: report.ipc,
            f_mem: report.f_mem,
            l2_mpki: report.l2_mpki,
            seconds,
        }
    }
}

/// Wall-clock seconds of each part, and what the prediction saved.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Both scale-model simulations.
    pub scale_models_s: f64,
    /// The miss-rate curve.
    pub curve_s: f64,
    /// The target simulations (validation only; 0 otherwise).
    pub targets_s: f64,
    /// `targets_s / (scale_models_s + curve_s)` (validation only; 0 otherwise).
    pub speedup: f64,
}

/// Everything a run found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScaleReport {
    /// The target GPU's SMs.
    pub target_sms: u32,
    /// The size series, smallest first.
    pub sizes: Vec<u32>,
    /// The sizes asked for as targets.
    pub targets: Vec<u32>,
    /// The options used.
    pub options: ScaleOptions,
    /// The two scale models' simulations.
    pub scale_models: Vec<SizeRun>,
    /// LLC MPKI at every size.
    pub curve: MissCurve,
    /// Every method at every size.
    pub prediction: Prediction,
    /// The targets' simulations (validation).
    pub validation: Vec<SizeRun>,
    /// Every method's error at each validated target (`benchmark` empty).
    pub errors: Vec<PredictionRow>,
    /// Mean and maximum error per method and validated target.
    pub summary: Vec<SummaryRow>,
    /// Wall-clock seconds, when the host has a clock.
    pub timing: Option<Timing>,
    /// Scaling adjustments and simulator diagnostics.
    pub diagnostics: Vec<String>,
}

impl ScaleReport {
    /// The IPC of the validation's simulation of `sms` SMs, when the run
    /// validated that size.
    pub fn validated_ipc(&self, sms: u32) -> Option<f64> {
        self.validation.iter().find(|run| run.sms == sms).map(|run| run.ipc)
    }
}

/// Runs the scale models, the curve and the predictor (and, to validate,
/// the targets).
///
/// # Errors
/// A workload that cannot be opened or read, or predictor inputs it refuses
/// (e.g. a scale model with zero IPC).
pub fn run_scale(plan: &ScalePlan, host: &mut dyn ScaleHost, options: &ScaleOptions) -> Result<ScaleReport, String> {
    let mut diagnostics = plan.diagnostics.clone();
    if plan.sizes.len() < 2 {
        return Err("a scale-model run needs the two scale models".to_owned());
    }
    let mut scale_models = Vec::with_capacity(2);
    for size in &plan.sizes[..2] {
        scale_models.push(simulate_size(size, Role::ScaleModel, host, options, &mut diagnostics)?);
    }
    host.step(&ScaleStep::Curve);
    let started = host.now();
    let curve = curve(plan, host, options)?;
    let curve_s = elapsed(started, host.now());
    let inputs = Inputs {
        sizes: plan.sms(),
        ipc: [scale_models[0].ipc, scale_models[1].ipc],
        mpki: curve.points.iter().map(|p| p.mpki).collect(),
        f_mem: Some(scale_models[1].f_mem),
    };
    let prediction = predict(&inputs, options.rule).map_err(|e| e.to_string())?;
    let mut validation = Vec::new();
    if options.validate {
        for &t in &plan.targets {
            let size = plan.size(t).ok_or_else(|| format!("target {t} SMs is not in the plan"))?;
            validation.push(simulate_size(size, Role::Target, host, options, &mut diagnostics)?);
        }
    }
    let errors = errors(&prediction, &validation);
    let timing = timing(&scale_models, curve_s, &validation);
    Ok(ScaleReport {
        target_sms: plan.target_sms,
        sizes: plan.sms(),
        targets: plan.targets.clone(),
        options: *options,
        scale_models,
        curve,
        prediction,
        summary: summarize(&errors),
        validation,
        errors,
        timing,
        diagnostics,
    })
}

fn simulate_size(
    size: &SizeConfig,
    role: Role,
    host: &mut dyn ScaleHost,
    options: &ScaleOptions,
    diagnostics: &mut Vec<String>,
) -> Result<SizeRun, String> {
    host.step(&ScaleStep::Simulate { sms: size.sms, role });
    let mut workload = host.workload(size.sms)?;
    let started = host.now();
    let sim_options = SimOptions { memcpy_warms_l2: options.memcpy_warms_l2, ..SimOptions::default() };
    let report = simulate(&size.config, sim_options, &mut *workload);
    let seconds = elapsed(started, host.now());
    diagnostics.extend(report.diagnostics.iter().map(|d| format!("{} SMs: {d}", size.sms)));
    Ok(SizeRun::of(size.sms, &report, seconds))
}

/// Strong scaling: one pass of the one workload through every size's LLC.
/// Weak: each size's workload through its own GPU's caches (`stream_sms`
/// is then 0: every size made its own stream).
fn curve(plan: &ScalePlan, host: &mut dyn ScaleHost, options: &ScaleOptions) -> Result<MissCurve, String> {
    let profile = ProfileOptions { memcpy_warms_l2: options.memcpy_warms_l2 };
    let configs: Vec<_> = plan.sizes.iter().map(|s| s.config.clone()).collect();
    if !options.weak {
        let mut workload = host.workload(plan.target_sms)?;
        // The smallest scale model's L1s make the stream (see miss_curve).
        return miss_rate_curve(&configs[0], &configs, &mut *workload, profile);
    }
    let mut weak = MissCurve { stream_sms: 0, points: Vec::with_capacity(configs.len()), diagnostics: Vec::new() };
    for (size, config) in plan.sizes.iter().zip(&configs) {
        let mut workload = host.workload(size.sms)?;
        let one = miss_rate_curve(config, std::slice::from_ref(config), &mut *workload, profile)?;
        weak.points.extend(one.points);
        weak.diagnostics.extend(one.diagnostics.into_iter().map(|d| format!("{} SMs: {d}", size.sms)));
    }
    Ok(weak)
}

fn elapsed(start: Option<f64>, end: Option<f64>) -> Option<f64> {
    start.zip(end).map(|(a, b)| b - a)
}

/// Every method's error at each validated target.
fn errors(prediction: &Prediction, validation: &[SizeRun]) -> Vec<PredictionRow> {
    let n = prediction.sizes.len();
    let mut rows = Vec::new();
    for run in validation.iter().filter(|r| r.ipc > 0.0) {
        let Some(k) = prediction.sizes.iter().position(|&s| s == run.sms) else { continue };
        for method in Method::ALL {
            let predicted = prediction.ipc(method, run.sms).unwrap_or(0.0);
            rows.push(PredictionRow::new(String::new(), run.sms, Role::of(k, n), method, predicted, run.ipc));
        }
    }
    rows
}

fn timing(scale_models: &[SizeRun], curve_s: Option<f64>, validation: &[SizeRun]) -> Option<Timing> {
    let sum = |runs: &[SizeRun]| runs.iter().map(|r| r.seconds).sum::<Option<f64>>();
    let (scale_models_s, curve_s) = (sum(scale_models)?, curve_s?);
    let targets_s = sum(validation).unwrap_or(0.0);
    let cost = scale_models_s + curve_s;
    let speedup = if targets_s > 0.0 && cost > 0.0 { targets_s / cost } else { 0.0 };
    Some(Timing { scale_models_s, curve_s, targets_s, speedup })
}
