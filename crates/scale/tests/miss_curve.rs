//! The miss-rate curve on `scalemodel-128sm` and its scale models: exact
//! figures where the workload defines them (a stream misses once per sector
//! at every size; a region that fits from 8 MiB up misses only cold there),
//! the point at the stream config's own size is the profile's cache pass,
//! and the curve is within 20% of the timing model's `l2_mpki`.

use std::collections::HashSet;

use warplab_config::GpuConfig;
use warplab_kernels::{GenSpec, Workload, generate};
use warplab_model::{ProfileOptions, profile};
use warplab_scale::miss_curve::{MissCurve, miss_rate_curve};
use warplab_sim::{SimOptions, simulate};
use warplab_uarch::coalescer::SECTOR_BYTES;

fn target() -> GpuConfig {
    warplab_config::preset("scalemodel").expect("a bundled preset").config().expect("a valid preset")
}

/// The target divided by each factor: 16 → 8 SMs … 1 → 128 SMs.
fn sizes(factors: &[u32]) -> Vec<GpuConfig> {
    let target = target();
    factors.iter().map(|&factor| target.scale_shared(factor).expect("128 SMs divide").config).collect()
}

fn workload(spec: &str, config: &GpuConfig) -> Workload {
    let spec: GenSpec = spec.parse().expect("a valid spec");
    generate(&spec, config).expect("the spec fits the config")
}

/// The curve of `spec` (generated for `generated_for`) over `sizes`, the
/// stream from the first size.
fn curve(spec: &str, generated_for: &GpuConfig, sizes: &[GpuConfig]) -> MissCurve {
    let mut source = workload(spec, generated_for).into_source();
    miss_rate_curve(&sizes[0], sizes, &mut source, ProfileOptions::default()).expect("the workload walks")
}

/// Distinct 32-B sectors the workload's lanes touch (none of these kernels
/// uses shared memory, and no lane's access crosses a sector).
fn distinct_sectors(workload: &Workload) -> u64 {
    let mut sectors = HashSet::new();
    for kernel in workload.kernels() {
        kernel.for_each_cta(|cta| {
            for instruction in &cta.instructions {
                sectors.extend(cta.lane_addresses(instruction).map(|(_, addr)| addr / SECTOR_BYTES));
            }
        });
    }
    sectors.len() as u64
}

#[test]
fn a_stream_misses_once_per_sector_at_every_size() {
    let sizes = sizes(&[16, 8, 4, 2, 1]);
    let spec = "vecadd:size=64";
    let curve = curve(spec, &sizes[4], &sizes);
    // a and b read, c written: 3 × 65,536 floats, each sector once.
    let sectors = 3 * 64 * 1024 * 4 / 32;
    assert_eq!(distinct_sectors(&workload(spec, &sizes[4])), sectors);
    for point in &curve.points {
        assert_eq!((point.l2_misses, point.l2_accesses), (sectors, sectors), "{} SMs", point.sms);
    }
    let sms: Vec<u32> = curve.points.iter().map(|p| p.sms).collect();
    assert_eq!(sms, [8, 16, 32, 64, 128]);
    assert_eq!(curve.stream_sms, 8);
}

#[test]
fn a_region_that_fits_from_8_mib_up_misses_only_cold_there() {
    // bw-l2 for the 32-SM model sweeps a 4-MiB region (half its 8-MiB LLC)
    // twice over 256 CTAs (8 MiB of float4 loads) and writes one float per
    // thread: it fits at 32 SMs and up, where each sector misses once. At 8
    // SMs (2 MiB) the LRU sweep evicts every line before it comes round
    // again, so every access misses; at 16 SMs (4 MiB, the region's size)
    // the outputs' lines push some of the region out, so some of the second
    // sweep misses.
    let sizes = sizes(&[16, 8, 4, 2, 1]);
    let spec = "bw-l2:size=8";
    let curve = curve(spec, &sizes[2], &sizes);
    let cold = distinct_sectors(&workload(spec, &sizes[2]));
    assert_eq!(cold, (4 << 20) / 32 + 256 * 256 * 4 / 32);
    let misses: Vec<u64> = curve.points.iter().map(|p| p.l2_misses).collect();
    assert_eq!(misses[2..], [cold, cold, cold], "{misses:?}");
    assert_eq!(misses[0], (8 << 20) / 32 + 256 * 256 * 4 / 32);
    assert_eq!(misses[0], curve.points[0].l2_accesses);
    assert!(cold < misses[1] && misses[1] < misses[0], "{misses:?} vs {cold} cold misses");
}

#[test]
fn at_the_stream_configs_own_size_the_curve_is_the_profiles_cache_pass() {
    // strided writes only shared memory, so every L2 miss is a read that
    // fetches: the profile's `l2_misses`.
    let sizes = sizes(&[16, 8]);
    for spec in ["strided:gs=32,size=8", "strided:gs=1,size=8"] {
        let curve = curve(spec, &sizes[1], &sizes);
        let mut source = workload(spec, &sizes[1]).into_source();
        let profiled = profile(&sizes[0], &mut source, ProfileOptions::default()).expect("the workload profiles");
        let kernel = &profiled.kernels[0];
        let point = curve.points[0];
        assert_eq!(
            (point.l2_misses, point.l2_accesses),
            (kernel.caches.l2_misses, kernel.caches.l2_accesses),
            "{spec}"
        );
        assert_eq!(point.thread_insts, kernel.thread_insts, "{spec}");
    }
}

#[test]
fn copies_warm_every_llc_when_asked() {
    let sizes = sizes(&[16, 8]);
    let spec: GenSpec = "vecadd:size=16".parse().expect("a valid spec");
    let warm = ProfileOptions { memcpy_warms_l2: true };
    let mut source = generate(&spec, &sizes[1]).expect("fits").into_source();
    let curve = miss_rate_curve(&sizes[0], &sizes, &mut source, warm).expect("walks");
    // a and b were copied in and fit both LLCs; only c's sectors miss.
    for point in &curve.points {
        assert_eq!(point.l2_misses, 16 * 1024 * 4 / 32, "{} SMs", point.sms);
    }
}

/// (spec, SMs, timing model's MPKI, the curve's): the workloads of the
/// comparison test, generated for the 16-SM model.
fn compare(specs: &[&str]) -> Vec<(String, u32, f64, f64)> {
    let sizes = sizes(&[16, 8]);
    let mut rows = Vec::new();
    for spec in specs {
        let curve = curve(spec, &sizes[1], &sizes);
        for (size, point) in sizes.iter().zip(&curve.points) {
            let report = simulate(size, SimOptions::default(), &mut workload(spec, &sizes[1]).into_source());
            rows.push(((*spec).to_owned(), point.sms, report.l2_mpki, point.mpki));
        }
    }
    rows
}

#[test]
fn the_curve_is_within_20_percent_of_the_timing_model_at_8_and_16_sms() {
    let rows = compare(&["vecadd:size=64", "stencil2d:size=16", "bw-l2:size=4", "strided:gs=1,size=16"]);
    let off: Vec<_> = rows.iter().filter(|(_, _, sim, curve)| (curve - sim).abs() > 0.2 * sim).collect();
    assert!(off.is_empty(), "more than 20% off the timing model: {off:?}");
}
