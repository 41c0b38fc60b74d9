//! A scale-model run end to end on a small generated workload: the scale
//! models are the simulator's own runs of the scaled configs, the predictor
//! gets their IPC, the curve and the larger one's f_mem, and validation adds
//! each method's error at the target.

use warplab_config::{GpuConfig, preset};
use warplab_kernels::{GenSpec, generate};
use warplab_scale::run::{ScaleHost, ScaleOptions, ScaleStep, run_scale};
use warplab_scale::{Method, Role, ScalePlan};
use warplab_sim::{SimOptions, simulate};
use warplab_trace::source::WorkloadSource;
use wasm_bindgen_test::wasm_bindgen_test;

/// `vecadd` generated for the target, the same stream for every size (or
/// grown with the system when `weak`); records the steps it was told of.
struct Host {
    target: GpuConfig,
    size: u64,
    weak: bool,
    steps: Vec<ScaleStep>,
    asked: Vec<u32>,
}

impl ScaleHost for Host {
    fn workload(&mut self, sms: u32) -> Result<Box<dyn WorkloadSource>, String> {
        self.asked.push(sms);
        let size = if self.weak { self.size * u64::from(sms) / u64::from(self.target.n_sms()) } else { self.size };
        let spec: GenSpec = format!("vecadd:size={size}").parse().map_err(|e| format!("{e}"))?;
        Ok(Box::new(generate(&spec, &self.target).map_err(|e| e.to_string())?.into_source()))
    }

    fn step(&mut self, step: &ScaleStep) {
        self.steps.push(*step);
    }
}

fn host(weak: bool) -> (Host, ScalePlan) {
    let target = preset("scalemodel").expect("preset").config().expect("reads");
    let plan = ScalePlan::new(&target, [8, 16], &[32]).expect("divides");
    (Host { target, size: 32, weak, steps: Vec::new(), asked: Vec::new() }, plan)
}

#[wasm_bindgen_test(unsupported = test)]
fn the_scale_models_are_the_simulators_runs_and_feed_the_predictor() {
    let (mut host, plan) = host(false);
    let options = ScaleOptions { validate: true, ..ScaleOptions::default() };
    let report = run_scale(&plan, &mut host, &options).expect("runs");
    for (run, size) in report.scale_models.iter().zip(&plan.sizes) {
        let direct = simulate(&size.config, SimOptions::default(), &mut *host.workload(size.sms).expect("opens"));
        assert_eq!((run.sms, run.cycles, run.ipc, run.f_mem), (size.sms, direct.cycles, direct.ipc, direct.f_mem));
    }
    let p = &report.prediction;
    assert_eq!(p.sizes, [8, 16, 32]);
    for method in [Method::ScaleModel, Method::PowerLaw, Method::Linear] {
        assert_eq!(p.ipc(method, 16), Some(report.scale_models[1].ipc));
    }
    // Streaming vecadd: no cliff, the same misses at every size.
    assert_eq!(p.cliff, None);
    let misses: Vec<u64> = report.curve.points.iter().map(|pt| pt.l2_misses).collect();
    assert!(misses.iter().all(|&m| m == misses[0] && m > 0), "{misses:?}");
    // Validation: one simulated target, five errors against it.
    assert_eq!(report.validation.iter().map(|v| v.sms).collect::<Vec<_>>(), [32]);
    assert_eq!(report.errors.len(), 5);
    let scale = report.errors.iter().find(|e| e.model == Method::ScaleModel).expect("a row");
    assert_eq!((scale.units, scale.role, scale.actual_ipc), (32, Role::Target, report.validation[0].ipc));
    assert_eq!(report.summary.len(), 5);
    // No clock, no timing; the steps in order.
    assert_eq!(report.timing, None);
    let sim = |sms, role| ScaleStep::Simulate { sms, role };
    assert_eq!(
        host.steps[..4],
        [sim(8, Role::ScaleModel), sim(16, Role::ScaleModel), ScaleStep::Curve, sim(32, Role::Target)]
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn weak_scaling_takes_each_sizes_own_workload_for_the_curve() {
    let (mut host, plan) = host(true);
    let report = run_scale(&plan, &mut host, &ScaleOptions { weak: true, ..ScaleOptions::default() }).expect("runs");
    // Two simulations, then one curve pass per size.
    assert_eq!(host.asked, [8, 16, 8, 16, 32]);
    assert_eq!(report.curve.stream_sms, 0);
    let insts: Vec<u64> = report.curve.points.iter().map(|p| p.thread_insts).collect();
    assert_eq!((insts[1], insts[2]), (2 * insts[0], 4 * insts[0]));
    assert!(report.validation.is_empty() && report.errors.is_empty());
}

#[wasm_bindgen_test(unsupported = test)]
fn a_scale_model_with_no_work_is_an_error_not_a_number() {
    struct Empty;
    impl ScaleHost for Empty {
        fn workload(&mut self, _sms: u32) -> Result<Box<dyn WorkloadSource>, String> {
            struct Nothing;
            impl WorkloadSource for Nothing {
                fn next_command(&mut self) -> Option<Result<warplab_trace::source::Command, String>> {
                    None
                }
            }
            Ok(Box::new(Nothing))
        }
    }
    let (_, plan) = host(false);
    let error = run_scale(&plan, &mut Empty, &ScaleOptions::default()).expect_err("zero IPC");
    assert_eq!(error, "the IPC at 8 is 0; it must be a number > 0");
}
