//! Photon sampling (DESIGN §7) through the lab's facade: repeated kernels are
//! simulated once, regular kernels switch to warp sampling, irregular ones do
//! not, nothing stabilises under an impossible tolerance, and predicted work
//! is counted instruction for instruction.

use std::fs::File;
use std::io::Read;
use std::path::PathBuf;

use warplab_config::GpuConfig;
use warplab_lab::sampling::{BasisPoints, SampleLevel, SampleMode, SamplingOptions, compare};
use warplab_lab::{GenSpec, SimOptions, SimReport, preset_config, simulate_generated, simulate_trace};

fn qv100() -> GpuConfig {
    preset_config("QV100").unwrap().1
}

fn sampled(sampling: SamplingOptions) -> SimOptions {
    SimOptions { sampling, ..SimOptions::default() }
}

fn run(config: &GpuConfig, options: SimOptions, spec: &str) -> SimReport {
    let spec: GenSpec = spec.parse().unwrap();
    simulate_generated(config, options, &spec).unwrap()
}

fn run_trace(config: &GpuConfig, options: SimOptions, dir: &str) -> SimReport {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(dir);
    let list = std::fs::read_to_string(dir.join("kernelslist.g")).unwrap();
    let mut open = move |file: &str| -> Result<Box<dyn Read>, String> {
        File::open(dir.join(file)).map(|f| Box::new(f) as Box<dyn Read>).map_err(|e| e.to_string())
    };
    simulate_trace(config, options, &list, &mut open).unwrap()
}

fn levels(report: &SimReport) -> Vec<SampleLevel> {
    report.sampling.as_ref().unwrap().kernels.iter().map(|k| k.level).collect()
}

const BPTREE: &str = "crates/trace/test_data/rodinia-bptree-128-1000-sm90-h100pcie-v5-xz";

#[test]
fn a_repeated_kernel_of_a_real_trace_is_simulated_once() {
    let config = preset_config("H100").unwrap().1;
    let options = sampled(SamplingOptions::with_mode(SampleMode::Kernel));
    let report = run_trace(&config, options, BPTREE);
    let full = run_trace(&config, SimOptions::default(), BPTREE);
    assert_eq!(levels(&report), [SampleLevel::Detailed, SampleLevel::Kernel]);
    let sampling = report.sampling.as_ref().unwrap();
    let second = &sampling.kernels[1];
    assert_eq!(second.nearest.map(|(k, _)| k), Some(0));
    assert_eq!(second.detailed_warps, 0);
    assert_eq!(second.detailed_warp_insts, 0);
    // Both launches run the same code over the same tree: the whole grid is
    // one sample's mix, so the reused kernel runs the first one's IPC.
    let (first, reused) = (&report.kernels[0], &report.kernels[1]);
    assert!((reused.ipc - first.ipc).abs() / first.ipc < 0.01, "{} vs {}", reused.ipc, first.ipc);
    assert_eq!(sampling.detailed_warp_insts, full.kernels[0].warp_insts);
    // The first launch ran in detail both times; the second differs from the
    // full run's by what a warm L2 gives it (docs/validation.md).
    let comparison = compare(&report, &full, None);
    assert_eq!(comparison.kernels[0].ipc_error, 0.0);
    assert_eq!(comparison.instruction_speedup, 2.0);
}

#[test]
fn repeated_identical_kernels_simulate_one_in_detail() {
    let config = qv100();
    let options = sampled(SamplingOptions::with_mode(SampleMode::Kernel));
    let report = run(&config, options, "vecadd:size=64,launches=4");
    let full = run(&config, SimOptions::default(), "vecadd:size=64,launches=4");
    assert_eq!(levels(&report), [SampleLevel::Detailed, SampleLevel::Kernel, SampleLevel::Kernel, SampleLevel::Kernel]);
    let sampling = report.sampling.as_ref().unwrap();
    assert_eq!(sampling.detailed_warp_insts, full.kernels[0].warp_insts);
    assert_eq!(sampling.kernels.iter().map(|k| k.detailed_warps).sum::<u64>(), sampling.kernels[0].warps);
    for (k, kernel) in report.kernels.iter().enumerate().skip(1) {
        assert_eq!(sampling.kernels[k].nearest, Some((0, 0.0)));
        // The same IPC, and the instructions of the sample scaled to the grid
        // (exact here: every warp of vecadd runs the same 15 instructions).
        assert!(
            (kernel.ipc - report.kernels[0].ipc).abs() / kernel.ipc < 1e-3,
            "{} vs {}",
            kernel.ipc,
            report.kernels[0].ipc
        );
        assert_eq!(kernel.warp_insts, full.kernels[k].warp_insts);
    }
    assert_eq!(report.warp_insts, full.warp_insts);
    assert_eq!(compare(&report, &full, None).instruction_speedup, 4.0);
    // Only the first launch reached the L2, so the misses per instruction are
    // a single launch's, not diluted by the three predicted ones.
    let once = run(&config, SimOptions::default(), "vecadd:size=64");
    assert_eq!(report.l2_mpki, once.l2_mpki);
}

#[test]
fn a_regular_kernel_switches_to_warp_sampling() {
    let config = qv100();
    for (spec, window) in [("vecadd:size=2048", 1_024), ("gemm-tiled:size=64,n=1024,k=16", 128)] {
        let options =
            sampled(SamplingOptions { warp_window: window, ..SamplingOptions::with_mode(SampleMode::Photon) });
        let report = run(&config, options, spec);
        let full = run(&config, SimOptions::default(), spec);
        let kernel = &report.sampling.as_ref().unwrap().kernels[0];
        assert_eq!(kernel.level, SampleLevel::Warp, "{spec}: {kernel:?}");
        assert_eq!(kernel.warp_types, 1, "{spec}");
        assert!(kernel.switched_at.is_some());
        assert!(
            kernel.predicted_warps > 0 && kernel.detailed_warps + kernel.predicted_warps == kernel.warps,
            "{kernel:?}"
        );
        assert!(kernel.detailed_warp_insts < full.warp_insts, "{spec}: nothing was skipped");
        // Predicted CTAs are read, so every instruction is still counted.
        assert_eq!(report.warp_insts, full.warp_insts, "{spec}");
        assert_eq!(report.thread_insts, full.thread_insts, "{spec}");
        assert!(report.cycles < full.cycles * 2 && report.cycles > full.cycles / 2, "{spec}");
    }
}

/// maxflops has no memory traffic to speak of, so warp sampling should
/// predict it closely. The detailed CTAs still in flight at the switch run
/// faster than before, as their predicted neighbours issue nothing; when
/// their times kept feeding the mean, later predicted CTAs were shorter and
/// the IPC came out 12% high on this kernel. The prediction is fixed at the
/// switch. Since a CTA's warps keep its slot's warp slots (GPGPU-Sim's
/// placement, issue 23), the first wave, whose eight CTAs per SM start
/// together, holds its CTAs about 2,200 cycles against about 1,900 later,
/// and the window that ends at the switch is mostly that wave: the
/// prediction is long by 16% and the IPC low by 10% (measured), where it was
/// 5% and under 5% before. Held to that, not to the steady state.
#[test]
fn a_steady_kernel_is_predicted_from_the_times_measured_before_the_switch() {
    let config = qv100();
    let spec = "maxflops:size=128,iters=4";
    let report = run(&config, sampled(SamplingOptions::with_mode(SampleMode::Photon)), spec);
    let full = run(&config, SimOptions::default(), spec);
    let kernel = &report.sampling.as_ref().unwrap().kernels[0];
    assert_eq!(kernel.level, SampleLevel::Warp, "{kernel:?}");
    let cta_cycles = kernel.warp_cycles.expect("a warp-sampled kernel reports its predicted CTA time");
    // Little's law on the full run's middle half (no launch, no tail): the
    // time a warp is resident is the resident warps over the warps retired
    // per cycle. Measured +15.9%: the window, which ends at the switch,
    // holds mostly first-wave warps (see above). A mean off by more than 20%
    // would be a wrong one.
    let at = |cycle: u64| run(&config, SimOptions { max_cycles: cycle, ..SimOptions::default() }, spec).warp_insts;
    let (from, to) = (full.cycles / 4, 3 * full.cycles / 4);
    let insts_per_warp = full.warp_insts as f64 / kernel.warps as f64;
    let warps_per_cycle = (at(to) - at(from)) as f64 / insts_per_warp / (to - from) as f64;
    let resident = f64::from(config.cores.max_warps_per_sm() * config.cores.n_sms());
    let steady = resident / warps_per_cycle;
    let off = cta_cycles as f64 / steady - 1.0;
    assert!(off.abs() < 0.20, "{cta_cycles} cycles against {steady:.0} by Little's law ({:+.1}%)", 100.0 * off);
    let comparison = compare(&report, &full, None);
    assert!(comparison.ipc_error.abs() < 0.12, "IPC error {:+.1}% (measured -9.9%)", 100.0 * comparison.ipc_error);
}

#[test]
fn irregular_kernels_do_not_take_warp_sampling() {
    let config = qv100();
    let options = sampled(SamplingOptions::with_mode(SampleMode::Photon));
    for spec in ["bfs", "spmv-csr"] {
        let report = run(&config, options, spec);
        let sampling = report.sampling.as_ref().unwrap();
        assert!(sampling.kernels.iter().all(|k| k.level != SampleLevel::Warp), "{spec}: {:?}", levels(&report));
        let irregular = sampling.kernels.iter().filter(|k| k.warp_types > 1 && k.dominant_share <= 0.95).count();
        assert!(irregular > 0, "{spec}: no kernel without a dominant warp type");
    }
}

#[test]
fn nothing_stabilises_under_a_zero_tolerance_and_the_run_is_the_full_one() {
    let config = qv100();
    let never = SamplingOptions { delta: BasisPoints(0), ..SamplingOptions::with_mode(SampleMode::Photon) };
    let spec = "vecadd:size=256";
    let report = run(&config, sampled(never), spec);
    let full = run(&config, SimOptions::default(), spec);
    assert_eq!(levels(&report), [SampleLevel::Detailed]);
    assert_eq!(report.cycles, full.cycles);
    assert_eq!(report.l2, full.l2);
    assert_eq!(report.sampling.unwrap().kernels[0].predicted_warps, 0);
}

#[test]
fn a_sampled_run_is_deterministic() {
    let config = qv100();
    let options = sampled(SamplingOptions::with_mode(SampleMode::BasicBlock));
    let a = run(&config, options, "spmv-csr:size=16");
    let b = run(&config, options, "spmv-csr:size=16");
    assert_eq!(a, b);
}

#[test]
fn sampling_off_reports_nothing_about_sampling() {
    let report = run(&qv100(), SimOptions::default(), "vecadd:size=4");
    assert!(report.sampling.is_none());
}
