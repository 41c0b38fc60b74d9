//! A 1,000-point sweep of the analytical models in the browser (issue 7's
//! goal: at most 2 s in Chromium), as a wasm-bindgen benchmark: speed goals
//! live in benchmarks, so this is never a test and asserts no time.
//!
//! `strided:gs=32,size=56` is profiled once on `mdm-pascal-28sm`; the sweep
//! is a grid of 40 L1 MSHR counts × 25 SM counts. "predict" times the five
//! models on the 1,000 knobbed configs, made beforehand; "apply_knobs +
//! predict" also makes each config, which writes the config out and reads it
//! back (`apply_knobs`), as a slider does. One iteration is the whole sweep.
//!
//! `cargo xtask bench` runs it in headless Chromium; by hand from the
//! workspace root, with `target/tools/bin` on `PATH` for the runner and the
//! baseline where `xtask bench` keeps it (else it lands in `crates/lab/target`):
//!
//! ```text
//! WASM_BINDGEN_TEST_ONLY_WEB=1 WASM_BINDGEN_TEST_TIMEOUT=900 \
//!     WASM_BINDGEN_BENCH_RESULT=$PWD/target/wbg_sweep_speed.json \
//!     cargo bench --target wasm32-unknown-unknown -p warplab-lab --bench sweep_speed
//! ```
//!
//! Natively this file is empty: the native benchmarks are criterion's.
#![cfg(target_arch = "wasm32")]

use std::borrow::Borrow;
use std::hint::black_box;
use std::time::Duration;

use warplab_lab::{GpuConfig, Profile, ProfileOptions, apply_knobs, predict, preset_config, profile_generated};
use wasm_bindgen_test::{Criterion, console_log, wasm_bindgen_bench, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// The sweep's 1,000 points as `--set` knobs: L1 MSHRs per SM 8, 16, …, 320
/// × SMs 4, 8, …, 100 (the preset has one SM per cluster, so any count is
/// valid).
fn points() -> Vec<Vec<(String, f64)>> {
    let mut points = Vec::with_capacity(1000);
    for mshrs in (1..=40).map(|i| 8 * i) {
        for sms in (1..=25).map(|i| 4 * i) {
            points.push(vec![("l1_mshrs".to_owned(), f64::from(mshrs)), ("n_sms".to_owned(), f64::from(sms))]);
        }
    }
    points
}

/// The preset and the profile every point reuses.
fn setup() -> (GpuConfig, Profile) {
    let config = preset_config("mdm-pascal-28sm").expect("a bundled preset").1;
    let spec = "strided:gs=32,size=56".parse().expect("a generator spec");
    let profile = profile_generated(&config, &spec, ProfileOptions::default()).expect("the workload profiles");
    (config, profile)
}

/// Sums every model's IPC over the points, so nothing is optimized away
/// and the one-run line can show that both variants agree.
fn sweep(profile: &Profile, configs: impl Iterator<Item = impl Borrow<GpuConfig>>) -> (usize, f64) {
    configs.fold((0, 0.0), |(n, sum), config| {
        let report = predict(black_box(profile), config.borrow());
        (n + 1, sum + report.models.values().map(|p| p.ipc).sum::<f64>())
    })
}

/// Each point's config, made as a slider makes it.
fn knobbed<'a>(config: &'a GpuConfig, points: &'a [Vec<(String, f64)>]) -> impl Iterator<Item = GpuConfig> + 'a {
    points.iter().map(|knobs| apply_knobs(config, knobs).expect("every point is a valid config"))
}

#[wasm_bindgen_bench]
fn sweep_of_1000_points(c: &mut Criterion) {
    // An iteration takes milliseconds (predict) to a third of a second (with
    // apply_knobs): ten samples after a short warm-up, so the run takes
    // seconds; criterion samples flat when iterations are long.
    *c =
        std::mem::take(c).sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    let (config, profile) = setup();
    let points = points();
    let configs: Vec<GpuConfig> = knobbed(&config, &points).collect();
    let start = js_sys::Date::now();
    let (n, total) = sweep(&profile, configs.iter());
    let predict_ms = js_sys::Date::now() - start;
    let start = js_sys::Date::now();
    let (_, knobbed_total) = sweep(&profile, knobbed(&config, &points));
    let knobbed_ms = js_sys::Date::now() - start;
    assert_eq!(knobbed_total, total, "apply_knobs made the same configs");
    console_log!(
        "sweep of {n} points (strided:gs=32,size=56 on mdm-pascal-28sm, l1_mshrs x n_sms), one run: \
         predict {predict_ms:.0} ms, apply_knobs + predict {knobbed_ms:.0} ms"
    );
    c.bench_function("sweep/1000 points/predict", |b| b.iter(|| sweep(&profile, configs.iter())));
    c.bench_function("sweep/1000 points/apply_knobs + predict", |b| {
        b.iter(|| sweep(&profile, knobbed(&config, &points)))
    });
}
