//! The IPC strip in a real browser, on models evaluated there through
//! `warplab-lab`: the analytical card leads with the headline model
//! (`HEADLINE`), names it, and shows its IPC and error against the
//! simulation; MDM as published stays on the same card with its own IPC and
//! error; a pinned baseline's figure is the headline model's.

mod common;

use common::{all, text, values};
use warplab_lab::{HEADLINE, ModelKind, ProfileOptions, predict, preset_config, profile_generated};
use warplab_web::{Figures, IpcSummary, IpcSummaryProps};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::Element;
use yew::Callback;

wasm_bindgen_test_configure!(run_in_browser);

/// The headline model's and MDM's IPCs on strided gs = 32 on the MDM
/// paper's GPU.
fn analytical_ipcs() -> (f64, f64) {
    let (_, gpu) = preset_config("mdm-pascal-28sm").expect("a bundled preset");
    let spec = "strided:gs=32,size=28".parse().expect("a well-formed spec");
    let profile = profile_generated(&gpu, &spec, ProfileOptions::default()).expect("profiles");
    let report = predict(&profile, &gpu);
    (report.models[&HEADLINE].ipc, report.models[&ModelKind::Mdm].ipc)
}

/// Mounts the strip with `figures` and, if any, a pinned baseline's.
async fn mount(figures: Figures, baseline: Option<Figures>) -> Element {
    let props = IpcSummaryProps {
        figures,
        pending: [None, None, None],
        baseline,
        on_pin: Callback::noop(),
        can_pin: true,
        scale_target: None,
        simulated_without_launch: None,
        sampled: None,
    };
    common::mount::<IpcSummary>(props, "[data-testid=ipc-analytical-value]").await
}

#[wasm_bindgen_test]
async fn the_strip_leads_with_the_headline_model_and_keeps_mdm_on_its_card() {
    let (headline, mdm) = analytical_ipcs();
    assert!(headline > 0.0 && mdm > 0.0, "{headline}, {mdm}");
    assert_ne!(HEADLINE, ModelKind::Mdm, "the strip leads with warplab's core model, not MDM");
    let simulated = 0.8 * headline;
    let figures = Figures { simulated: Some(simulated), analytical: Some(headline), mdm: Some(mdm), scale: None };
    let host = mount(figures, None).await;

    // The analytical card: named after the headline model, its IPC and error.
    let card = &all(&host, "[data-testid=ipc-analytical]")[0];
    let name = text(card, ".ipc-name").unwrap_or_default();
    assert_eq!(name, format!("Analytical ({})", HEADLINE.label()));
    assert_eq!(name, "Analytical (warplab core model)");
    assert_eq!(values(card, "[data-testid=ipc-analytical-value]"), [headline]);
    assert_eq!(values(card, "[data-testid=ipc-analytical-error]"), [100.0 * (headline - simulated) / simulated]);
    assert_eq!(text(card, "[data-testid=ipc-analytical-error]").as_deref(), Some("+25.0% vs simulated"));

    // MDM as published, on the same card, with its own error.
    assert_eq!(values(card, "[data-testid=ipc-mdm-value]"), [mdm]);
    assert_eq!(values(card, "[data-testid=ipc-mdm-error]"), [100.0 * (mdm - simulated) / simulated]);
    let line = text(card, "[data-testid=ipc-mdm]").unwrap_or_default();
    assert!(line.starts_with("MDM as published: "), "{line}");
    // The cards in order: simulated, analytical, scale-model.
    let ids: Vec<String> =
        all(&host, ".ipc-figure").iter().filter_map(|card| card.get_attribute("data-testid")).collect();
    assert_eq!(ids, ["ipc-simulated", "ipc-analytical", "ipc-scale"]);
}

#[wasm_bindgen_test]
async fn before_the_analysis_there_is_no_mdm_line_and_a_baseline_is_the_headline_models() {
    let host = mount(Figures { simulated: Some(1.0), ..Figures::default() }, None).await;
    assert!(all(&host, "[data-testid=ipc-mdm]").is_empty(), "no MDM figure yet");

    let (headline, mdm) = analytical_ipcs();
    let before = Figures { analytical: Some(0.5 * headline), mdm: Some(mdm), ..Figures::default() };
    let now = Figures { simulated: None, analytical: Some(headline), mdm: Some(mdm), scale: None };
    let host = mount(now, Some(before)).await;
    assert_eq!(values(&host, "[data-testid=ipc-analytical-baseline]"), [0.5 * headline]);
    assert_eq!(values(&host, "[data-testid=ipc-analytical-change]"), [100.0]);
    assert_eq!(values(&host, "[data-testid=ipc-mdm-value]"), [mdm]);
    assert!(all(&host, "[data-testid=ipc-mdm-error]").is_empty(), "no error without a simulation");
}
