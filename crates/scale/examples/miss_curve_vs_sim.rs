//! The miss-rate curve against the timing model (docs/validation.md, "Miss-rate
//! curve"): for each generated kernel, the L2 MPKI the timing model measures
//! at 8, 16, 32, 64 and 128 SMs of `scalemodel-128sm` and the curve's, with
//! the L1 stream made by the 8-SM scale model, by the 128-SM target, and by
//! each size itself (one pass per size: what a single stream approximates).
//!
//! `cargo run --release -p warplab-scale --example miss_curve_vs_sim -- [--max-sms N] [SPEC ...]`
//!
//! Every workload is generated once for the 128-SM target (strong scaling:
//! the same CTAs at every size). Prints one Markdown row per kernel and size,
//! and the wall times of the simulations and of each one-pass curve.

use std::time::Instant;

use warplab_config::GpuConfig;
use warplab_kernels::{GenSpec, Workload, generate};
use warplab_model::ProfileOptions;
use warplab_scale::miss_curve::{MissCurve, miss_rate_curve};
use warplab_sim::{SimOptions, simulate};

/// The kernels measured when none are named: about a million warp
/// instructions each.
const DEFAULT_SPECS: [&str; 6] = [
    "vecadd:size=2200",
    "stencil2d:size=120",
    "gemm-tiled",
    "spmv-csr:size=96",
    "bw-l2:size=10",
    "strided:gs=32,size=400",
];

/// `scalemodel-128sm` divided by these: 8, 16, 32, 64 and 128 SMs.
const FACTORS: [u32; 5] = [16, 8, 4, 2, 1];

fn main() -> Result<(), String> {
    let (max_sms, specs) = arguments()?;
    let target =
        warplab_config::preset("scalemodel").ok_or("no scalemodel preset")?.config().map_err(|e| e.to_string())?;
    let mut sizes = Vec::new();
    for factor in FACTORS {
        let size = target.scale_shared(factor).map_err(|e| e.to_string())?.config;
        if size.n_sms() <= max_sms {
            sizes.push(size);
        }
    }
    println!("| kernel | SMs | LLC MiB | timing model | 8-SM stream | err | 128-SM stream | err | own stream | err |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for spec in &specs {
        measure(spec, &target, &sizes)?;
    }
    Ok(())
}

fn arguments() -> Result<(u32, Vec<String>), String> {
    let mut max_sms = 128;
    let mut specs = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--max-sms" {
            max_sms = args.next().and_then(|n| n.parse().ok()).ok_or("--max-sms takes a number")?;
        } else {
            specs.push(arg);
        }
    }
    if specs.is_empty() {
        specs = DEFAULT_SPECS.iter().map(|s| (*s).to_owned()).collect();
    }
    Ok((max_sms, specs))
}

fn workload(spec: &GenSpec, target: &GpuConfig) -> Result<Workload, String> {
    generate(spec, target).map_err(|e| e.to_string())
}

/// One kernel: the simulations, the three kinds of curve, one row per size.
fn measure(text: &str, target: &GpuConfig, sizes: &[GpuConfig]) -> Result<(), String> {
    let spec: GenSpec = text.parse().map_err(|e| format!("{text}: {e}"))?;
    let options = ProfileOptions::default();
    let curve = |stream: &GpuConfig, sizes: &[GpuConfig]| -> Result<(MissCurve, f64), String> {
        let start = Instant::now();
        let curve = miss_rate_curve(stream, sizes, &mut workload(&spec, target)?.into_source(), options)?;
        Ok((curve, start.elapsed().as_secs_f64()))
    };
    let (small, small_s) = curve(&sizes[0], sizes)?;
    let (large, large_s) = curve(target, sizes)?;
    let mut sim_s = Vec::new();
    for (i, size) in sizes.iter().enumerate() {
        let start = Instant::now();
        let report = simulate(size, SimOptions::default(), &mut workload(&spec, target)?.into_source());
        sim_s.push(start.elapsed().as_secs_f64());
        let (own, _) = curve(size, std::slice::from_ref(size))?;
        let sim = report.l2_mpki;
        let err = |mpki: f64| if sim == 0.0 { 0.0 } else { 100.0 * (mpki - sim) / sim };
        let cell = |c: &MissCurve, k: usize| c.points[k].mpki;
        let (s, l, o) = (cell(&small, i), cell(&large, i), cell(&own, 0));
        println!(
            "| {text} | {} | {} | {sim:.3} | {s:.3} | {:+.1}% | {l:.3} | {:+.1}% | {o:.3} | {:+.1}% |",
            size.n_sms(),
            size.memory.l2_total_bytes() >> 20,
            err(s),
            err(l),
            err(o)
        );
    }
    let warp_insts = small.points[0].thread_insts;
    eprintln!(
        "{text}: {warp_insts} thread insts; curve {small_s:.3} s (8-SM stream), {large_s:.3} s (128-SM stream); \
         simulations {}",
        sim_s.iter().map(|s| format!("{s:.2}")).collect::<Vec<_>>().join(" / ")
    );
    Ok(())
}
