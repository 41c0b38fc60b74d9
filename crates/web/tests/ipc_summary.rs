//! The IPC strip in a real browser, on models evaluated there through
//! `warplab-lab`: the analytical card leads with the headline model
//! (`HEADLINE`), names it, and shows its IPC and error against the
//! simulation; MDM as published stays on the same card with its own IPC and
//! error; a pinned baseline's figure is the headline model's; where the
//! scale-model rule gives no prediction the card says so and why; each error
//! shows the figure it is measured against, of the same size and the same
//! accounting, a sampled figure says it is one, a key explains the marks,
//! and a baseline is one row of now, baseline and difference (issue 42).

mod common;

use common::{all, text, values};
use warplab_lab::scale::{Inputs, Rule, predict as scale_predict};
use warplab_lab::{HEADLINE, ModelKind, ProfileOptions, predict, preset_config, profile_generated};
use warplab_web::{ErrorKey, Figures, IpcSummary, IpcSummaryProps, SAMPLED_MEAN_ERROR_PCT, Sampled, ScaleTarget};
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
    mount_props(props(figures, baseline)).await
}

async fn mount_props(props: IpcSummaryProps) -> Element {
    common::mount::<IpcSummary>(props, "[data-testid=ipc-analytical-value]").await
}

fn props(figures: Figures, baseline: Option<Figures>) -> IpcSummaryProps {
    IpcSummaryProps {
        figures,
        pending: [None, None, None],
        baseline,
        on_pin: Callback::noop(),
        can_pin: true,
        scale_target: None,
        simulated_without_launch: None,
        sampled: None,
        scale_no_prediction: None,
    }
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
    let error = text(card, "[data-testid=ipc-analytical-error]").unwrap_or_default();
    assert!(error.starts_with("+25.0% ✗ vs simulated "), "{error}");
    assert_eq!(values(card, "[data-testid=ipc-analytical-reference]"), [simulated], "the reference is on the card");
    assert_eq!(text(card, "[data-testid=ipc-analytical-accounting]").as_deref(), Some("both with the launch latency"));

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
    // One row as Nsight Compute's baseline view: now, baseline, difference.
    let row = &all(&host, "[data-testid=ipc-analytical-baseline-row]")[0];
    assert_eq!(values(row, "[data-testid=ipc-analytical-now]"), [headline]);
    assert_eq!(values(row, "[data-testid=ipc-analytical-baseline]"), [0.5 * headline]);
    // Twice the baseline is +100%, to the last bits of the division.
    let change = values(row, "[data-testid=ipc-analytical-change]");
    assert!(matches!(change[..], [c] if (c - 100.0).abs() < 1e-9), "{change:?}");
    assert_eq!(text(row, "[data-testid=ipc-analytical-change]").as_deref(), Some("+100.0%"));
    assert_eq!(values(&host, "[data-testid=ipc-mdm-value]"), [mdm]);
    assert!(all(&host, "[data-testid=ipc-mdm-error]").is_empty(), "no error without a simulation");
}

#[wasm_bindgen_test]
async fn where_the_scale_model_rule_gives_no_prediction_the_card_says_why_instead_of_a_figure() {
    // Lab 3's step 3c (histogram:skew=100): 9.66 and 9.80 IPC at 8 and 16 SMs.
    let inputs = Inputs { sizes: vec![8, 16, 32, 64, 128], ipc: [9.656, 9.801], mpki: None, f_mem: None };
    let prediction = scale_predict(&inputs, Rule::Reference).expect("predicts");
    let none = prediction.no_prediction(128).expect("the rule collapses");
    let why = format!("The rule gives none: {none}.");
    let figures = Figures { simulated: Some(9.8), analytical: Some(191.3), mdm: Some(375.9), scale: None };
    let mut with_reason = props(figures, None);
    with_reason.scale_no_prediction = Some(why.clone().into());
    let host = mount_props(with_reason.clone()).await;
    let card = &all(&host, "[data-testid=ipc-scale]")[0];
    assert_eq!(text(card, "[data-testid=ipc-scale-none]").as_deref(), Some("no prediction"));
    assert_eq!(text(card, "[data-testid=ipc-scale-why]").as_deref(), Some(why.as_str()));
    assert!(why.contains("compounds at every further doubling"), "{why}");
    assert!(all(card, "[data-testid=ipc-scale-value]").is_empty(), "no figure, not 0.00");
    assert!(all(card, "[data-testid=ipc-scale-error]").is_empty(), "no −100% error");
    // While the scale models run again, the card shows that, not the old reason.
    with_reason.pending = [None, None, Some("simulating 8 SMs".into())];
    let host = mount_props(with_reason).await;
    assert!(all(&host, "[data-testid=ipc-scale-none]").is_empty());
    assert_eq!(text(&host, "[data-testid=ipc-scale-value]").as_deref(), Some("…"));
    assert_eq!(text(&host, "[data-testid=ipc-scale-pending]").as_deref(), Some("simulating 8 SMs"));
}

#[wasm_bindgen_test]
async fn the_scale_card_compares_with_the_simulation_of_its_own_size_or_says_there_is_none() {
    let figures = Figures { simulated: Some(38.82), analytical: None, mdm: None, scale: Some(137.86) };
    let mut at_32 = props(figures, None);
    at_32.scale_target = Some(ScaleTarget { sms: 32, whole_gpu_sms: 128, simulated: None });
    at_32.simulated_without_launch = Some(40.0);
    let host = mount_props(at_32.clone()).await;
    let card = &all(&host, "[data-testid=ipc-scale]")[0];
    assert!(all(card, "[data-testid=ipc-scale-error]").is_empty(), "not against the 128-SM simulation");
    let names: Vec<String> = all(&host, ".ipc-name").iter().filter_map(|name| name.text_content()).collect();
    assert_eq!(names[0], "Simulated, the whole GPU (128 SMs)", "the simulated card says its size");
    let why = text(card, "[data-testid=ipc-scale-unmatched]").unwrap_or_default();
    assert!(why.starts_with("No simulation of 32 SMs to compare with"), "{why}");
    at_32.scale_target = Some(ScaleTarget { sms: 32, whole_gpu_sms: 128, simulated: Some(120.0) });
    let host = mount_props(at_32.clone()).await;
    let card = &all(&host, "[data-testid=ipc-scale]")[0];
    assert_eq!(values(card, "[data-testid=ipc-scale-reference]"), [120.0]);
    let error = text(card, "[data-testid=ipc-scale-error]").unwrap_or_default();
    assert!(error.starts_with("+14.9% ✗ vs simulated at 32 SMs "), "{error}");
    assert_eq!(text(card, "[data-testid=ipc-scale-accounting]").as_deref(), Some("both without the launch latency"));
    // The config's own size: against the whole GPU's simulation without the launch latency.
    at_32.scale_target = None;
    let host = mount_props(at_32).await;
    assert_eq!(values(&host, "[data-testid=ipc-scale-reference]"), [40.0]);
    let key = common::mount::<ErrorKey>((), "[data-testid=ipc-key]").await;
    let key = key.text_content().unwrap_or_default();
    assert!(key.contains("✓ within ±10%") && key.contains("✗ beyond"), "{key}");
}

#[wasm_bindgen_test]
async fn a_sampled_figure_says_so_and_the_models_compare_with_the_full_run_once_there_is_one() {
    let figures = Figures { simulated: Some(110.0), analytical: Some(105.0), mdm: Some(90.0), scale: None };
    let mut sampled = props(figures, None);
    sampled.sampled = Some(Sampled { how: "Photon".into(), full_ipc: None });
    let host = mount_props(sampled.clone()).await;
    assert_eq!(text(&host, ".ipc-name").as_deref(), Some("Simulated (Photon sampling)"));
    let note = text(&host, "[data-testid=ipc-simulated-sampled]").unwrap_or_default();
    assert!(note.contains(&format!("expected error ±{SAMPLED_MEAN_ERROR_PCT}%")), "{note}");
    let error = text(&host, "[data-testid=ipc-analytical-error]").unwrap_or_default();
    assert!(error.contains("vs simulated (sampled) 110.00"), "{error}");
    sampled.sampled = Some(Sampled { how: "Photon".into(), full_ipc: Some(100.0) });
    let host = mount_props(sampled).await;
    let note = text(&host, "[data-testid=ipc-simulated-sampled]").unwrap_or_default();
    assert_eq!(note, "A sampled estimate: +10.0% vs 100.00 simulated in full.");
    assert_eq!(values(&host, "[data-testid=ipc-analytical-reference]"), [100.0]);
    assert_eq!(values(&host, "[data-testid=ipc-analytical-error]"), [5.0]);
    assert_eq!(values(&host, "[data-testid=ipc-mdm-error]"), [-10.0]);
}
