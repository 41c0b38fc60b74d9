//! The worker's side of the scale panel: which scale models the loaded config
//! can be cut into and what each size of the series divides and keeps
//! ([`scale_setup`]), and the host a run asks for workloads, the time and
//! progress ([`WorkerScaleHost`]). `agent.rs` owns the workload and hands
//! the host a way to open it; nothing here reads one.

use warplab_lab::scale::{
    ScaleHost, ScaleOptions, ScalePlan, ScaleStep, SizeConfig, default_scale_models, workable_pairs,
};
use warplab_lab::{GpuConfig, WorkloadSource, apply_knob};

use crate::agent::{ScalePart, ScaleSetup, ScaleSize};
use crate::scale_progress::{ProgressPoster, ScaleProgress};

/// The pair tried when none divides the config, so the message says why
/// with the paper's own scale models.
const PAPER_PAIR: [u32; 2] = [8, 16];

/// The workable pairs of `gpu` and the plan of `scale_models` (`None`: the
/// smallest pair that works, as the paper chose: the cheapest to simulate,
/// and the longest series to predict).
pub fn scale_setup(gpu: &GpuConfig, scale_models: Option<[u32; 2]>) -> ScaleSetup {
    let workable = workable_pairs(gpu);
    let pair = scale_models.or_else(|| default_scale_models(gpu)).unwrap_or(PAPER_PAIR);
    let setup = ScaleSetup {
        target_sms: gpu.n_sms(),
        workable,
        scale_models: pair,
        sizes: Vec::new(),
        diagnostics: Vec::new(),
        error: None,
        nearest_target: None,
        config: 0,
    };
    match ScalePlan::new(gpu, pair, &[]) {
        Ok(plan) => {
            ScaleSetup { sizes: plan.sizes.iter().map(size_of).collect(), diagnostics: plan.diagnostics, ..setup }
        }
        Err(error) => {
            let nearest_target = if setup.workable.is_empty() { nearest_divisible_target(gpu) } else { None };
            ScaleSetup { error: Some(error.to_string()), nearest_target, ..setup }
        }
    }
}

/// The SM count nearest the config's for which some pair of scale models
/// divides the GPU, the config otherwise unchanged: a multiple of the cores
/// per cluster (as the `n_sms` knob sets it), the larger of two at the same
/// distance (more like the GPU asked for than a smaller one), searched up to
/// twice the SMs; `None` when no count works (e.g. the memory channels do not
/// divide).
pub fn nearest_divisible_target(gpu: &GpuConfig) -> Option<u32> {
    let (target, step) = (gpu.n_sms(), gpu.cores.cores_per_cluster.max(1));
    let divides =
        |sms: u32| apply_knob(gpu, "n_sms", f64::from(sms)).is_ok_and(|resized| !workable_pairs(&resized).is_empty());
    // Multiples of the cluster size, nearest first, the larger first at a tie.
    let below = (1..=target / step).rev().map(|k| k * step).filter(|&sms| sms != target);
    let above = (target / step + 1..=2 * target / step).map(|k| k * step);
    let mut candidates: Vec<u32> = below.chain(above).collect();
    candidates.sort_by_key(|&sms| (sms.abs_diff(target), std::cmp::Reverse(sms)));
    candidates.into_iter().find(|&sms| divides(sms))
}

impl ScaleSetup {
    /// A setup with no config to plan for: `message` says why.
    pub fn unplanned(message: String) -> Self {
        Self {
            target_sms: 0,
            workable: Vec::new(),
            scale_models: PAPER_PAIR,
            sizes: Vec::new(),
            diagnostics: Vec::new(),
            error: Some(message),
            nearest_target: None,
            config: 0,
        }
    }
}

/// The worker's [`ScaleHost`]: every size gets a fresh stream of the one
/// loaded workload (strong scaling), the clock is the worker's, and each
/// step is posted to the page as it starts.
pub struct WorkerScaleHost<Open> {
    open: Open,
    progress: ProgressPoster,
    /// Steps started so far, and in all.
    step: u32,
    steps: u32,
}

impl<Open> WorkerScaleHost<Open> {
    /// A host opening the workload with `open`, posting on `progress` the
    /// steps of a run of `steps`.
    pub fn new(open: Open, progress: ProgressPoster, steps: u32) -> Self {
        Self { open, progress, step: 0, steps }
    }
}

impl<Open: FnMut(u32) -> Result<Box<dyn WorkloadSource>, String>> ScaleHost for WorkerScaleHost<Open> {
    fn workload(&mut self, sms: u32) -> Result<Box<dyn WorkloadSource>, String> {
        (self.open)(sms)
    }

    fn now(&mut self) -> Option<f64> {
        Some(js_sys::Date::now() / 1000.0)
    }

    fn step(&mut self, step: &ScaleStep) {
        self.step += 1;
        self.progress.post(&ScaleProgress { step: self.step, steps: self.steps.max(self.step), what: step.describe() });
    }
}

/// The steps of `part` of a run: both scale models and each target when
/// validating, and the curve (strong scaling only).
pub fn steps(plan: &ScalePlan, options: &ScaleOptions, part: ScalePart) -> u32 {
    let targets = if options.validate { plan.targets.len() as u32 } else { 0 };
    let curve = u32::from(!options.weak);
    match part {
        ScalePart::Whole => 2 + targets + curve,
        ScalePart::Simulations => 2 + targets,
        ScalePart::Curve => curve,
    }
}

/// What one size divides and keeps.
fn size_of(size: &SizeConfig) -> ScaleSize {
    let config = &size.config;
    let dl1 = config.l1.dl1.as_ref();
    ScaleSize {
        sms: size.sms,
        factor: size.factor,
        llc_bytes: config.memory.l2_total_bytes(),
        llc_slices: config.memory.n_sub_partitions(),
        noc_bytes_per_second: config.noc_bandwidth_bytes_per_second(),
        dram_bytes_per_second: config.dram_bandwidth_bytes_per_second(),
        channels: config.memory.n_channels,
        l1_bytes: dl1.map(|l1| l1.size_bytes()),
        l1_mshrs: dl1.map(|l1| l1.mshr_entries),
        warps_per_sm: config.cores.max_warps_per_sm(),
        chiplets: config.chiplets.count,
        bisection_bytes_per_second: config.chiplets.bisection_bytes_per_second(&config.memory, &config.clocks),
    }
}

#[cfg(test)]
mod tests {
    use warplab_lab::preset_config;

    use super::*;

    fn setup(preset: &str, pair: Option<[u32; 2]>) -> ScaleSetup {
        scale_setup(&preset_config(preset).expect("a bundled preset").1, pair)
    }

    #[test]
    fn the_papers_gpu_divides_into_the_papers_scale_models() {
        let setup = setup("scalemodel", None);
        assert_eq!((setup.target_sms, setup.scale_models, setup.error), (128, [8, 16], None));
        assert_eq!(setup.nearest_target, None, "only asked for when nothing divides");
        assert_eq!(setup.workable, [[32, 64], [16, 32], [8, 16]]);
        let sms: Vec<u32> = setup.sizes.iter().map(|s| s.sms).collect();
        assert_eq!(sms, [8, 16, 32, 64, 128]);
        let (smallest, target) = (setup.sizes[0], setup.sizes[4]);
        // Shared resources divided by 16, per-SM ones kept.
        assert_eq!((smallest.factor, target.factor), (16, 1));
        assert_eq!(smallest.llc_bytes * 16, target.llc_bytes);
        assert_eq!((smallest.channels, smallest.llc_slices), (1, 4));
        assert_eq!(smallest.dram_bytes_per_second * 16, target.dram_bytes_per_second);
        assert_eq!(smallest.noc_bytes_per_second * 16, target.noc_bytes_per_second);
        assert_eq!(
            (smallest.l1_bytes, smallest.l1_mshrs, smallest.warps_per_sm),
            (target.l1_bytes, target.l1_mshrs, target.warps_per_sm)
        );
    }

    #[test]
    fn a_gpu_that_cannot_be_divided_says_why() {
        let setup = setup("RTX3070", None);
        assert_eq!((setup.target_sms, setup.workable.len(), setup.sizes.len()), (46, 0, 0));
        let error = setup.error.unwrap_or_default();
        assert!(error.contains("no pair of scale models divides this GPU"), "{error}");
        // 44 (4 × 11) and 48 (16 × 3) both divide; at the same distance the larger wins.
        assert_eq!(setup.nearest_target, Some(48));
        let chosen = self::setup("QV100", Some([10, 20]));
        assert_eq!(chosen.sizes.iter().map(|s| s.sms).collect::<Vec<_>>(), [10, 20, 40, 80]);
        assert!(self::setup("QV100", Some([8, 16])).error.is_some_and(|e| e.contains("20,40 or 10,20 or 5,10")));
    }

    fn nearest(preset: &str, n_sms: u32) -> Option<u32> {
        let base = preset_config(preset).expect("a bundled preset").1;
        let resized = apply_knob(&base, "n_sms", f64::from(n_sms)).expect("a valid SM count");
        nearest_divisible_target(&resized)
    }

    #[test]
    fn the_nearest_divisible_target_is_a_multiple_of_the_cluster() {
        let base = preset_config("RTX3070").expect("a bundled preset").1;
        assert_eq!(base.cores.cores_per_cluster, 1);
        assert_eq!(nearest("RTX3070", 46), Some(48), "44 and 48 tie: the larger");
        assert_eq!(nearest("RTX3070", 45), Some(44), "44 is nearer than 48");
        assert_eq!(nearest("RTX3070", 47), Some(48));
        // Three SMs per cluster: only multiples of 3 can be set, so from 78
        // the nearest are 75 and 81 (neither divides by 4), then 72 (8 × 9)
        // and 84 (4 × 21), a tie the larger wins.
        let mut clustered = base.clone();
        (clustered.cores.n_clusters, clustered.cores.cores_per_cluster) = (26, 3);
        assert_eq!(nearest_divisible_target(&clustered), Some(84));
    }
}
