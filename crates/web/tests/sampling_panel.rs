//! The sampling panel in a real browser, on runs of three launches of vecadd
//! simulated there with Photon sampling and in full: each kernel's level and
//! detailed work are the report's, "Run in full to compare" asks the page,
//! the comparison's error and speedups are `lab::sampling::compare`'s, and a
//! run in full shows no panel.

mod common;

use std::cell::Cell;
use std::rc::Rc;

use common::{all, text, values};
use warplab_lab::sampling::{SampleMode, SamplingComparison, SamplingOptions, compare};
use warplab_lab::{GenSpec, SimOptions, SimReport, preset_config, simulate_generated};
use warplab_web::{SamplingPanel, SamplingPanelProps};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Element, HtmlElement};
use yew::Callback;

wasm_bindgen_test_configure!(run_in_browser);

/// Three identical launches of a small vecadd on the QV100, simulated with
/// `mode`.
fn simulate(mode: SampleMode) -> SimReport {
    let (_, config) = preset_config("QV100").expect("QV100 is a preset");
    let spec: GenSpec = "vecadd:size=64,launches=3".parse().expect("a well-formed spec");
    let options = SimOptions { sampling: SamplingOptions::with_mode(mode), ..SimOptions::default() };
    simulate_generated(&config, options, &spec).expect("the spec runs")
}

/// Mounts the panel on `report` (with `comparison`), counting presses of
/// "Run in full to compare" in `pressed`.
async fn mount(report: &SimReport, comparison: Option<SamplingComparison>, pressed: &Rc<Cell<u32>>) -> Element {
    let pressed = pressed.clone();
    let props = SamplingPanelProps {
        report: Rc::new(report.clone()),
        comparison: comparison.map(Rc::new),
        comparing: false,
        error: None,
        on_compare: Callback::from(move |()| pressed.set(pressed.get() + 1)),
    };
    common::mount::<SamplingPanel>(props, "[data-testid=sampling-kernels]").await
}

#[wasm_bindgen_test]
async fn the_panel_shows_what_sampling_did_and_the_comparison() {
    let sampled = simulate(SampleMode::Photon);
    let sampling = sampled.sampling.clone().expect("a sampled run reports its sampling");
    let pressed = Rc::new(Cell::new(0));
    let host = mount(&sampled, None, &pressed).await;

    let levels: Vec<String> = all(&host, "[data-testid^=sampling-level-]")
        .iter()
        .filter_map(|cell| cell.get_attribute("data-value"))
        .collect();
    let expected: Vec<&str> = sampling.kernels.iter().map(|k| k.level.name()).collect();
    assert_eq!(levels, expected);
    assert_eq!(expected, ["detailed", "kernel", "kernel"], "launches 1 and 2 reuse launch 0's IPC");
    assert_eq!(text(&host, "[data-testid=sampling-nearest-2]").as_deref(), Some("0 (0.000)"));
    assert_eq!(values(&host, "[data-testid=sampling-summary]"), [sampling.detailed_warp_insts as f64]);
    assert!(text(&host, "[data-testid=sampling-summary]").is_some_and(|t| t.starts_with("Photon sampling")));
    assert!(all(&host, "[data-testid=sampling-comparison]").is_empty(), "nothing compared yet");
    assert_eq!(
        text(&host, "[data-testid=sampling-cta-time-1]").as_deref(),
        Some("–"),
        "no CTA predicted at the kernel level"
    );

    let button = host.query_selector("[data-testid=sampling-compare]").ok().flatten().expect("the compare button");
    button.dyn_into::<HtmlElement>().expect("a button").click();
    assert_eq!(pressed.get(), 1, "the press goes to the page");

    let full = simulate(SampleMode::Off);
    let comparison = compare(&sampled, &full, Some((1.0, 2.5)));
    let host = mount(&sampled, Some(comparison.clone()), &pressed).await;
    assert_eq!(values(&host, "[data-testid=sampling-error]"), [100.0 * comparison.ipc_error]);
    let per_kernel: Vec<f64> = comparison.kernels.iter().map(|k| 100.0 * k.ipc_error).collect();
    assert_eq!(values(&host, "[data-testid^=sampling-error-]"), per_kernel);
    assert_eq!(values(&host, "[data-testid=sampling-wall-speedup]"), [2.5]);
    assert_eq!(values(&host, "[data-testid=sampling-instruction-speedup]"), [comparison.instruction_speedup]);
    assert!((comparison.instruction_speedup - 3.0).abs() < 1e-9, "a third of the instructions in detail");
}

#[wasm_bindgen_test]
async fn a_warp_sampled_kernel_shows_the_time_its_predicted_ctas_hold() {
    let mut sampled = simulate(SampleMode::Photon);
    // The report of a warp-sampled first kernel (the level's own run is
    // `crates/lab/tests/sampling.rs`'s; here only its drawing).
    let kernel = &mut sampled.sampling.as_mut().expect("sampled").kernels[0];
    kernel.level = warplab_lab::sampling::SampleLevel::Warp;
    kernel.warp_cycles = Some(3_548);
    let host = mount(&sampled, None, &Rc::new(Cell::new(0))).await;
    assert_eq!(text(&host, "[data-testid=sampling-cta-time-0]").as_deref(), Some("3,548 cycles"));
    assert_eq!(text(&host, "[data-testid=sampling-level-0]").as_deref(), Some("warp"));
}

#[wasm_bindgen_test]
async fn a_run_in_full_shows_no_panel() {
    let full = simulate(SampleMode::Off);
    let host = mount(&full, None, &Rc::new(Cell::new(0))).await;
    assert!(all(&host, "[data-testid=sampling-panel]").is_empty());
    assert!(all(&host, "section").is_empty(), "nothing at all is drawn");
}
