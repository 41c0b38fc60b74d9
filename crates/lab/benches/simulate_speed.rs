//! The timing model in the browser (issue 26's goal: the default page's
//! `vecadd`, 491,520 warp instructions on `QV100`, at ≥ 1.5 M warp
//! instructions/s in Chromium), as a wasm-bindgen benchmark: speed goals live
//! in benchmarks, so this asserts the run, never its time.
//!
//! `cargo xtask bench` runs it in headless Chromium; by hand from the
//! workspace root, with `target/tools/bin` on `PATH` for the runner and the
//! baseline where `xtask bench` keeps it (else it lands in `crates/lab/target`):
//!
//! ```text
//! WASM_BINDGEN_TEST_ONLY_WEB=1 WASM_BINDGEN_TEST_TIMEOUT=900 \
//!     WASM_BINDGEN_BENCH_RESULT=$PWD/target/wbg_simulate_speed.json \
//!     cargo bench --target wasm32-unknown-unknown -p warplab-lab --bench simulate_speed
//! ```
//!
//! Natively this file is empty: the native benchmarks are criterion's
//! (`benches/simulate.rs`).
#![cfg(target_arch = "wasm32")]

use std::hint::black_box;
use std::time::Duration;

use warplab_lab::{GenSpec, SimOptions, preset_config, simulate_generated};
use wasm_bindgen_test::{Criterion, console_log, wasm_bindgen_bench, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// The default page's workload and its warp instructions.
const SPEC: &str = "vecadd";
const WARP_INSTS: u64 = 491_520;

#[wasm_bindgen_bench]
fn default_vecadd_in_the_browser(c: &mut Criterion) {
    // A run takes seconds: ten flat samples after a short warm-up.
    *c = std::mem::take(c)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(20));
    let config = preset_config("QV100").expect("a bundled preset").1;
    let spec: GenSpec = SPEC.parse().expect("a generator spec");
    let run = || {
        let report = simulate_generated(&config, SimOptions::default(), black_box(&spec)).expect("vecadd runs");
        assert_eq!(report.warp_insts, WARP_INSTS, "the default vecadd's warp instructions");
        report
    };
    let start = js_sys::Date::now();
    let report = run();
    let seconds = (js_sys::Date::now() - start) / 1000.0;
    console_log!(
        "{SPEC} on QV100 in the browser, one run: {} cycles in {seconds:.2} s = {:.3} M warp instructions/s",
        report.cycles,
        WARP_INSTS as f64 / seconds / 1e6
    );
    c.bench_function("simulate/vecadd/QV100", |b| b.iter(run));
}
