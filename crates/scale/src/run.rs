//! A scale-model experiment end to end: simulate the two scale models of a
//! [`ScalePlan`], take the LLC miss-rate curve over every size in one cache
//! pass, read f_mem from the larger scale model's report, and predict every
//! size with every method under both rules; optionally simulate the targets
//! too, for the errors and the simulation-time speedup.
//!
//! Weak scaling follows the paper: no miss-rate curve (each size runs its own
//! share of the work, so the LLC per unit of work does not change and there
//! is no cliff to find), the pre-cliff rule only, and the speedup is the
//! targets' simulation time over the two scale models'.
//!
//! The IPCs compared leave out the kernel launch latency
//! (`-gpgpu_kernel_launch_latency`): a fixed number of cycles per launch,
//! whatever the GPU's size, which would otherwise make a fast large GPU look
//! sub-linear for a reason no scale model can measure (5,000 cycles are 11% to
//! 25% of the 64-SM runs of the teaching kernels).
//!
//! The caller supplies the workload and the clock through [`ScaleHost`]: this
//! crate reads no wall clock (DESIGN §1), and a host decides what "the same
//! workload on a bigger system" means (strong scaling: the same command
//! stream; weak: a generator grown with the system).

use serde::{Deserialize, Serialize};
use warplab_model::ProfileOptions;
use warplab_sim::report::ChipletReport;
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
    /// The host grows the workload with the system (weak scaling): no
    /// miss-rate curve, the pre-cliff rule only.
    pub weak: bool,
    /// Host-to-device copies fill the L2 (DESIGN §2a).
    pub memcpy_warms_l2: bool,
}

/// One simulated system.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizeRun {
    /// SMs.
    pub sms: u32,
    /// Core cycles, the launch latency included (Accel-Sim's `gpu_tot_sim_cycle`).
    pub cycles: u64,
    /// Of those, cycles in which the GPU only waited out a kernel's launch
    /// latency (no kernel was running).
    pub launch_cycles: u64,
    /// Warp instructions.
    pub warp_insts: u64,
    /// Thread instructions.
    pub thread_insts: u64,
    /// Thread instructions per cycle without the launch latency:
    /// `thread_insts / (cycles − launch_cycles)`, the IPC scale models
    /// compare.
    pub ipc: f64,
    /// Fraction of cycles every resident warp waited on memory.
    pub f_mem: f64,
    /// L2 misses per 1,000 thread instructions, as the timing model counts them.
    pub l2_mpki: f64,
    /// DRAM write commands (write-backs of dirty L2 lines and writes past
    /// the L2) per 1,000 thread instructions: what the read-miss MPKI cannot
    /// see when a smaller LLC writes back lines a larger one keeps.
    pub dram_writes_pki: f64,
    /// CTA waves of the kernel with the most: its CTAs over what the GPU
    /// holds at once (CTAs per SM × SMs). Under one, SMs are left idle.
    pub waves: f64,
    /// Wall-clock seconds of the simulation, when the host has a clock.
    pub seconds: Option<f64>,
    /// What crossed between chiplets, on a GPU of several.
    #[serde(default)]
    pub chiplets: Option<ChipletReport>,
}

/// CTA waves of `report`'s kernel with the most, on `sms` SMs.
fn waves(report: &SimReport, sms: u32) -> f64 {
    let of = |k: &warplab_sim::report::KernelReport| {
        let slots = u64::from(k.ctas_per_sm) * u64::from(sms);
        if slots == 0 { 0.0 } else { k.ctas as f64 / slots as f64 }
    };
    report.kernels.iter().map(of).fold(0.0, f64::max)
}

impl SizeRun {
    fn of(sms: u32, report: &SimReport, launch_latency: u64, seconds: Option<f64>) -> Self {
        let launch_cycles = launch_cycles(report, launch_latency);
        Self {
            sms,
            cycles: report.cycles,
            launch_cycles,
            warp_insts: report.warp_insts,
            thread_insts: report.thread_insts,
            ipc: ipc_over(report, launch_cycles),
            f_mem: report.f_mem,
            l2_mpki: report.l2_mpki,
            dram_writes_pki: crate::miss_curve::mpki(report.dram.totals.writes, report.thread_insts),
            waves: waves(report, sms),
            seconds,
            chiplets: report.chiplets.clone(),
        }
    }
}

/// Thread instructions per cycle of `report` without the cycles that only
/// waited out a launch latency of `latency` cycles: the IPC scale-model
/// predictions are compared with (0 for a run of no such cycles).
pub fn ipc_without_launch(report: &SimReport, latency: u64) -> f64 {
    ipc_over(report, launch_cycles(report, latency))
}

/// `report`'s thread instructions over its cycles less `launch_cycles`.
fn ipc_over(report: &SimReport, launch_cycles: u64) -> f64 {
    let running = report.cycles.saturating_sub(launch_cycles);
    if running == 0 { 0.0 } else { report.thread_insts as f64 / running as f64 }
}

/// Cycles of `report` in which some kernel waited out its launch latency and
/// no kernel ran: the union of the launch windows `[start, start + latency + 1)`
/// (GPGPU-Sim starts a kernel's CTAs the cycle after its latency counter
/// reaches 0) less the union of the running windows.
pub fn launch_cycles(report: &SimReport, latency: u64) -> u64 {
    let windows: Vec<(u64, u64, u64)> = report
        .kernels
        .iter()
        .map(|k| {
            let ready = (k.start_cycle + latency + 1).min(k.end_cycle);
            (k.start_cycle, ready, k.end_cycle)
        })
        .collect();
    let mut edges: Vec<u64> = windows.iter().flat_map(|&(s, r, e)| [s, r, e]).collect();
    edges.sort_unstable();
    edges.dedup();
    edges
        .windows(2)
        .filter(|w| {
            let inside = |a: u64, b: u64| a <= w[0] && w[1] <= b;
            windows.iter().any(|&(s, r, _)| inside(s, r)) && !windows.iter().any(|&(_, r, e)| inside(r, e))
        })
        .map(|w| w[1] - w[0])
        .sum()
}

/// Wall-clock seconds of each part, and what the prediction saved.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Both scale-model simulations.
    pub scale_models_s: f64,
    /// The miss-rate curve (0 under weak scaling, which has none).
    pub curve_s: f64,
    /// The target simulations (validation only; 0 otherwise).
    pub targets_s: f64,
    /// `targets_s / (scale_models_s + curve_s)` (validation only; 0
    /// otherwise): under weak scaling the paper's `T_target / (T_small + T_large)`.
    pub speedup: f64,
}

/// One rule's predictions and, when validated, their errors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleOutcome {
    /// Every method at every size (the baselines are the same under both rules).
    pub prediction: Prediction,
    /// Every method's error at each validated target (`benchmark` empty).
    pub errors: Vec<PredictionRow>,
    /// Mean and maximum error per method and validated target.
    pub summary: Vec<SummaryRow>,
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
    /// The kernel launch latency, in core cycles, every size has and no IPC
    /// compared includes.
    pub launch_latency: u64,
    /// The options used (`rule`: the one the report leads with).
    pub options: ScaleOptions,
    /// The two scale models' simulations.
    pub scale_models: Vec<SizeRun>,
    /// LLC MPKI at every size; `None` under weak scaling, which uses none.
    pub curve: Option<MissCurve>,
    /// Both rules, [`Rule::ALL`]'s order: the reference tool's, the paper's.
    pub by_rule: [RuleOutcome; 2],
    /// The targets' simulations (validation).
    pub validation: Vec<SizeRun>,
    /// Wall-clock seconds, when the host has a clock.
    pub timing: Option<Timing>,
    /// What a reader of the prediction should know about these measurements
    /// (write-backs that change with the LLC's size).
    pub warnings: Vec<String>,
    /// Scaling adjustments and simulator diagnostics.
    pub diagnostics: Vec<String>,
}

impl ScaleReport {
    /// The IPC of the validation's simulation of `sms` SMs, when the run
    /// validated that size.
    pub fn validated_ipc(&self, sms: u32) -> Option<f64> {
        self.validation.iter().find(|run| run.sms == sms).map(|run| run.ipc)
    }

    /// `rule`'s predictions and errors.
    pub fn outcome(&self, rule: Rule) -> &RuleOutcome {
        match rule {
            Rule::Reference => &self.by_rule[0],
            Rule::Paper => &self.by_rule[1],
        }
    }

    /// The chosen rule's predictions (`options.rule`).
    pub fn prediction(&self) -> &Prediction {
        &self.outcome(self.options.rule).prediction
    }

    /// Every simulated size, the scale models first, with its run.
    pub fn simulated(&self) -> impl Iterator<Item = &SizeRun> {
        self.scale_models.iter().chain(&self.validation)
    }
}

/// How much the write-backs per kilo-instruction may change across the
/// simulated sizes before the report warns: past it, the LLC's size changes
/// the traffic in a way the read-miss curve does not show.
pub const WRITE_BACK_CHANGE: f64 = 1.5;

/// The warning for write-backs that change by more than [`WRITE_BACK_CHANGE`]
/// across `runs`, if they do.
pub fn write_back_warning(runs: &[&SizeRun]) -> Option<String> {
    let by_writes = |a: &&&SizeRun, b: &&&SizeRun| a.dram_writes_pki.total_cmp(&b.dram_writes_pki);
    let low = runs.iter().min_by(by_writes)?;
    let high = runs.iter().max_by(by_writes)?;
    if high.dram_writes_pki <= WRITE_BACK_CHANGE * low.dram_writes_pki {
        return None;
    }
    Some(format!(
        "DRAM writes per 1,000 instructions change {:.2} at {} SMs to {:.2} at {} SMs (more than {WRITE_BACK_CHANGE}×): \
         the LLC's size changes the write-backs, which the read-miss MPKI curve does not see, so the scaling measured \
         between the scale models may not hold at other sizes",
        low.dram_writes_pki, low.sms, high.dram_writes_pki, high.sms
    ))
}

/// Why a plan or a run without its two scale models cannot predict.
const TWO_SCALE_MODELS: &str = "a scale-model run needs the two scale models";

/// What a run simulates: the two scale models and, to validate, the
/// targets, with what the prediction needs to know of the plan. A host may
/// simulate these on one worker and take the curve ([`scale_curve`]) on
/// another at the same time; [`finish_scale`] then predicts from both.
/// Each field is the [`ScaleReport`] field of the same name, which it becomes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct ScaleSimulations {
    pub target_sms: u32,
    pub sizes: Vec<u32>,
    pub targets: Vec<u32>,
    pub launch_latency: u64,
    pub options: ScaleOptions,
    pub scale_models: Vec<SizeRun>,
    pub validation: Vec<SizeRun>,
    pub diagnostics: Vec<String>,
}

/// The miss-rate curve a run predicts with, and how long it took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurveRun {
    /// LLC MPKI at every size; `None` under weak scaling, which uses none.
    pub curve: Option<MissCurve>,
    /// Wall-clock seconds, when the host has a clock.
    pub seconds: Option<f64>,
}

/// Runs the scale models, the curve and the predictor (and, to validate,
/// the targets), in that order, on one host.
///
/// # Errors
/// A workload that cannot be opened or read, or predictor inputs it refuses
/// (e.g. a scale model with zero IPC).
pub fn run_scale(plan: &ScalePlan, host: &mut dyn ScaleHost, options: &ScaleOptions) -> Result<ScaleReport, String> {
    let mut simulations = simulate_scale_models(plan, host, options)?;
    let curve = scale_curve(plan, host, options)?;
    validate_targets(&mut simulations, plan, host, options)?;
    finish_scale(simulations, curve)
}

/// The two scale models of `plan`, simulated (no targets yet).
///
/// # Errors
/// A plan without two scale models, or a workload that cannot be opened or read.
pub fn simulate_scale_models(
    plan: &ScalePlan,
    host: &mut dyn ScaleHost,
    options: &ScaleOptions,
) -> Result<ScaleSimulations, String> {
    if plan.sizes.len() < 2 {
        return Err(TWO_SCALE_MODELS.to_owned());
    }
    let mut diagnostics = plan.diagnostics.clone();
    let mut scale_models = Vec::with_capacity(2);
    for size in &plan.sizes[..2] {
        scale_models.push(simulate_size(size, Role::ScaleModel, host, options, &mut diagnostics)?);
    }
    Ok(ScaleSimulations {
        target_sms: plan.target_sms,
        sizes: plan.sms(),
        targets: plan.targets.clone(),
        launch_latency: u64::from(plan.sizes[0].config.kernels.kernel_launch_latency_cycles),
        options: *options,
        scale_models,
        validation: Vec::new(),
        diagnostics,
    })
}

/// Simulates every target of `plan` into `simulations`, when `options` validate.
///
/// # Errors
/// A target the plan lacks, or a workload that cannot be opened or read.
pub fn validate_targets(
    simulations: &mut ScaleSimulations,
    plan: &ScalePlan,
    host: &mut dyn ScaleHost,
    options: &ScaleOptions,
) -> Result<(), String> {
    if !options.validate {
        return Ok(());
    }
    for &t in &plan.targets {
        let size = plan.size(t).ok_or_else(|| format!("target {t} SMs is not in the plan"))?;
        let run = simulate_size(size, Role::Target, host, options, &mut simulations.diagnostics)?;
        simulations.validation.push(run);
    }
    Ok(())
}

/// The miss-rate curve of `plan` (none under weak scaling), timed.
///
/// # Errors
/// A workload that cannot be opened or read.
pub fn scale_curve(plan: &ScalePlan, host: &mut dyn ScaleHost, options: &ScaleOptions) -> Result<CurveRun, String> {
    let started = host.now();
    let curve = if options.weak { None } else { Some(curve(plan, host, options)?) };
    Ok(CurveRun { curve, seconds: elapsed(started, host.now()) })
}

/// Predicts every size with every method under both rules from the
/// simulations and the curve, with each validated target's errors.
///
/// # Errors
/// Predictor inputs it refuses (e.g. a scale model with zero IPC).
pub fn finish_scale(simulations: ScaleSimulations, curve: CurveRun) -> Result<ScaleReport, String> {
    let ScaleSimulations { target_sms, sizes, targets, launch_latency, options, scale_models, validation, diagnostics } =
        simulations;
    let [small, large] = scale_models.as_slice() else {
        return Err(TWO_SCALE_MODELS.to_owned());
    };
    let ipc = [small.ipc, large.ipc];
    let inputs = match &curve.curve {
        Some(curve) => Inputs {
            sizes: sizes.clone(),
            ipc,
            mpki: Some(curve.points.iter().map(|p| p.mpki).collect()),
            f_mem: Some(large.f_mem),
        },
        None => Inputs::without_curve(small.sms, sizes.len(), ipc).map_err(|e| e.to_string())?,
    };
    let outcome = |rule: Rule| -> Result<RuleOutcome, String> {
        let prediction = predict(&inputs, rule).map_err(|e| e.to_string())?;
        let errors = errors(&prediction, &validation);
        Ok(RuleOutcome { prediction, summary: summarize(&errors), errors })
    };
    let [reference, paper] = Rule::ALL.map(outcome);
    let by_rule = [reference?, paper?];
    let runs: Vec<&SizeRun> = scale_models.iter().chain(&validation).collect();
    let warnings = write_back_warning(&runs).into_iter().collect();
    let timing = timing(&scale_models, curve.seconds, &validation);
    Ok(ScaleReport {
        target_sms,
        sizes,
        targets,
        launch_latency,
        options,
        scale_models,
        curve: curve.curve,
        by_rule,
        validation,
        timing,
        warnings,
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
    let latency = u64::from(size.config.kernels.kernel_launch_latency_cycles);
    Ok(SizeRun::of(size.sms, &report, latency, seconds))
}

/// Strong scaling: one pass of the one workload through every size's LLC
/// (the smallest scale model's L1s make the stream, see `miss_curve`).
fn curve(plan: &ScalePlan, host: &mut dyn ScaleHost, options: &ScaleOptions) -> Result<MissCurve, String> {
    host.step(&ScaleStep::Curve);
    let profile = ProfileOptions { memcpy_warms_l2: options.memcpy_warms_l2 };
    let configs: Vec<_> = plan.sizes.iter().map(|s| s.config.clone()).collect();
    let mut workload = host.workload(plan.target_sms)?;
    miss_rate_curve(&configs[0], &configs, &mut *workload, profile)
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
