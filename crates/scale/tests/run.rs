//! A scale-model run end to end on a small generated workload: the scale
//! models are the simulator's own runs of the scaled configs, the predictor
//! gets their IPC, the curve and the larger one's f_mem, and validation adds
//! each method's error at the target.

use warplab_config::{GpuConfig, preset};
use warplab_kernels::{GenSpec, generate};
use warplab_scale::run::{
    ScaleHost, ScaleOptions, ScaleStep, SizeRun, finish_scale, launch_cycles, run_scale, scale_curve,
    simulate_scale_models, validate_targets, write_back_warning,
};
use warplab_scale::{Method, Role, Rule, ScalePlan};
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
        assert_eq!((run.sms, run.cycles, run.f_mem), (size.sms, direct.cycles, direct.f_mem));
        // One launch: its 5,000-cycle latency and the cycle GPGPU-Sim adds are not in the IPC.
        assert_eq!(run.launch_cycles, 5_001);
        assert_eq!(run.ipc, direct.thread_insts as f64 / (direct.cycles - 5_001) as f64);
        assert!(run.ipc > direct.ipc);
        // vecadd's 128 KB of output stays in every size's write-back LLC.
        assert_eq!(run.dram_writes_pki, 0.0);
        // 32 Ki elements: 128 CTAs of 256 threads, 6 to an SM.
        assert_eq!(run.waves, 128.0 / (6.0 * f64::from(run.sms)));
    }
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let p = report.prediction();
    assert_eq!(p.rule, Rule::Reference);
    // Both rules, side by side: the same baselines, their own Scale-Model curves.
    let paper = &report.outcome(Rule::Paper).prediction;
    assert_eq!(paper.rule, Rule::Paper);
    assert_eq!(p.curves[1..], paper.curves[1..]);
    assert_eq!(p.sizes, [8, 16, 32]);
    for method in [Method::ScaleModel, Method::PowerLaw, Method::Linear] {
        assert_eq!(p.ipc(method, 16), Some(report.scale_models[1].ipc));
    }
    // Streaming vecadd: no cliff, the same misses at every size.
    assert_eq!(p.cliff, None);
    let curve = report.curve.as_ref().expect("strong scaling has a curve");
    let misses: Vec<u64> = curve.points.iter().map(|pt| pt.l2_misses).collect();
    assert!(misses.iter().all(|&m| m == misses[0] && m > 0), "{misses:?}");
    // Validation: one simulated target, five errors against it.
    assert_eq!(report.validation.iter().map(|v| v.sms).collect::<Vec<_>>(), [32]);
    for rule in Rule::ALL {
        let outcome = report.outcome(rule);
        assert_eq!(outcome.errors.len(), 5);
        let scale = outcome.errors.iter().find(|e| e.model == Method::ScaleModel).expect("a row");
        assert_eq!((scale.units, scale.role, scale.actual_ipc), (32, Role::Target, report.validation[0].ipc));
        assert_eq!(scale.predicted_ipc, outcome.prediction.ipc(Method::ScaleModel, 32).expect("predicted"));
        assert_eq!(outcome.summary.len(), 5);
    }
    // No clock, no timing; the steps in order.
    assert_eq!(report.timing, None);
    let sim = |sms, role| ScaleStep::Simulate { sms, role };
    assert_eq!(
        host.steps[..4],
        [sim(8, Role::ScaleModel), sim(16, Role::ScaleModel), ScaleStep::Curve, sim(32, Role::Target)]
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn weak_scaling_uses_no_curve_as_the_paper_does() {
    let (mut host, plan) = host(true);
    let options = ScaleOptions { weak: true, validate: true, ..ScaleOptions::default() };
    let report = run_scale(&plan, &mut host, &options).expect("runs");
    // The two scale models, then the target: no curve pass.
    assert_eq!(host.asked, [8, 16, 32]);
    assert!(!host.steps.contains(&ScaleStep::Curve));
    assert_eq!(report.curve, None);
    let insts: Vec<u64> = report.simulated().map(|r| r.thread_insts).collect();
    assert_eq!((insts[1], insts[2]), (2 * insts[0], 4 * insts[0]));
    for rule in Rule::ALL {
        let p = &report.outcome(rule).prediction;
        assert_eq!((p.cliff, p.f_mem), (None, None));
        assert_eq!(report.outcome(rule).errors.len(), 5);
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn a_clock_times_each_part_and_the_speedup_is_the_targets_over_the_scale_models() {
    /// Each reading of the clock one second after the last.
    struct Ticking(Host, f64);
    impl ScaleHost for Ticking {
        fn workload(&mut self, sms: u32) -> Result<Box<dyn WorkloadSource>, String> {
            self.0.workload(sms)
        }
        fn now(&mut self) -> Option<f64> {
            self.1 += 1.0;
            Some(self.1)
        }
    }
    let (host, plan) = host(true);
    let options = ScaleOptions { weak: true, validate: true, ..ScaleOptions::default() };
    let report = run_scale(&plan, &mut Ticking(host, 0.0), &options).expect("runs");
    let t = report.timing.expect("a clock");
    // Each simulation reads the clock twice (1 s); the absent curve's two readings are 1 s apart too.
    assert_eq!((t.scale_models_s, t.curve_s, t.targets_s), (2.0, 1.0, 1.0));
    assert_eq!(t.speedup, 1.0 / 3.0);
}

fn run_with_writes(sms: u32, dram_writes_pki: f64) -> SizeRun {
    SizeRun {
        sms,
        cycles: 1,
        launch_cycles: 0,
        warp_insts: 1,
        thread_insts: 32,
        ipc: 32.0,
        f_mem: 0.0,
        l2_mpki: 1.0,
        dram_writes_pki,
        waves: 1.0,
        seconds: None,
        chiplets: None,
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn write_backs_that_change_with_the_llc_are_a_warning() {
    let (a, b, c) = (run_with_writes(8, 4.0), run_with_writes(16, 3.0), run_with_writes(64, 6.0));
    assert_eq!(write_back_warning(&[&a, &b]), None);
    // 3.0 → 6.0 is 2×: past 1.5×.
    let warning = write_back_warning(&[&a, &b, &c]).expect("warns");
    assert!(
        warning.starts_with("DRAM writes per 1,000 instructions change 3.00 at 16 SMs to 6.00 at 64 SMs"),
        "{warning}"
    );
    let none = run_with_writes(8, 0.0);
    assert_eq!(write_back_warning(&[&none, &none]), None);
    assert!(write_back_warning(&[&none, &a]).is_some());
}

#[wasm_bindgen_test(unsupported = test)]
fn launch_cycles_are_the_waits_no_kernel_overlaps() {
    let (_, plan) = host(false);
    let config = &plan.sizes[0].config;
    let spec: GenSpec = "vecadd:size=4,launches=3".parse().expect("spec");
    let mut source = generate(&spec, config).expect("generates").into_source();
    let report = simulate(config, SimOptions::default(), &mut source);
    assert_eq!(report.kernels.len(), 3);
    // Three launches in a row: each waits its 5,000 cycles and one more.
    assert_eq!(launch_cycles(&report, 5_000), 3 * 5_001);
    assert_eq!(launch_cycles(&report, 0), 3);
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

/// The page splits a run: one worker simulates, another takes the curve
/// meanwhile, and the prediction is made from both. The parts give
/// `run_scale`'s report, and each host is asked only for its own part.
#[wasm_bindgen_test(unsupported = test)]
fn the_parts_of_a_run_on_two_hosts_give_its_report() {
    for weak in [false, true] {
        let options = ScaleOptions { validate: true, weak, ..ScaleOptions::default() };
        let (mut whole, plan) = host(weak);
        let report = run_scale(&plan, &mut whole, &options).expect("runs");
        let (mut simulating, _) = host(weak);
        let (mut curving, _) = host(weak);
        let mut simulations = simulate_scale_models(&plan, &mut simulating, &options).expect("simulates");
        validate_targets(&mut simulations, &plan, &mut simulating, &options).expect("validates");
        let curve = scale_curve(&plan, &mut curving, &options).expect("a curve");
        assert_eq!(finish_scale(simulations, curve).expect("predicts"), report, "weak: {weak}");
        let simulated: Vec<ScaleStep> = [8, 16].map(|sms| ScaleStep::Simulate { sms, role: Role::ScaleModel }).into();
        let target = ScaleStep::Simulate { sms: 32, role: Role::Target };
        assert_eq!(simulating.steps, [simulated, vec![target]].concat());
        let curved = if weak { vec![] } else { vec![ScaleStep::Curve] };
        assert_eq!(curving.steps, curved);
    }
}
