//! The analytical panel in a real browser, on models evaluated there through
//! `warplab-lab`: each model's IPC and its error against a simulated IPC
//! are drawn with their exact values (`data-value`s), the CPI stacks are one
//! bar per model with a segment per non-zero term, the headline model's row
//! stands out and the four stall classes MDM leaves out are listed under the
//! table, the kernel table lists the kernels, the sliders start at the
//! config's values and hand edits up, and once a knob has moved the errors
//! give way to a note.

mod common;

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use common::{all, text, values};
use gloo::timers::future::sleep;
use warplab_lab::{AnalyticalReport, HEADLINE, ModelKind, ProfileOptions, predict, preset_config, profile_generated};
use warplab_web::agent::{Analysis, KnobBase};
use warplab_web::{AnalysisState, AnalyticalPanel, AnalyticalPanelProps, Experiment, Shown};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Element, Event, HtmlInputElement};
use yew::Callback;

wasm_bindgen_test_configure!(run_in_browser);

/// Knobs as `Predict` carries them.
type Knobs = Vec<(String, f64)>;

/// The models on strided gs = 32 (memory-divergent) on the MDM paper's GPU.
fn analysis() -> Analysis {
    let (_, gpu) = preset_config("mdm-pascal-28sm").expect("a bundled preset");
    let spec = "strided:gs=32,size=28".parse().expect("a well-formed spec");
    let profile = profile_generated(&gpu, &spec, ProfileOptions::default()).expect("profiles");
    Analysis {
        report: predict(&profile, &gpu),
        base: KnobBase { n_sms: 28, cores_per_cluster: 1, l1_mshrs: Some(128) },
    }
}

/// Mounts the panel showing `analysis` with `knobs` set; slider edits are
/// collected in `edits`.
async fn mount(
    analysis: Analysis,
    knobs: Vec<(String, f64)>,
    simulated_ipc: f64,
    edits: &Rc<RefCell<Vec<Knobs>>>,
) -> Element {
    mount_showing(analysis, knobs, simulated_ipc, edits, false, Callback::noop()).await
}

/// [`mount`], showing the paper's models only when `paper_only`; the box's
/// changes go to `on_paper_only`.
async fn mount_showing(
    analysis: Analysis,
    knobs: Vec<(String, f64)>,
    simulated_ipc: f64,
    edits: &Rc<RefCell<Vec<Knobs>>>,
    paper_only: bool,
    on_paper_only: Callback<bool>,
) -> Element {
    let knobs = Rc::new(knobs);
    let shown = Shown { report: analysis.report.clone(), experiment: Experiment::default(), knobs: knobs.clone() };
    let state = AnalysisState {
        analysis: Some(Rc::new(analysis)),
        shown: Some(Rc::new(shown)),
        knobs,
        paper_models_only: paper_only,
        ..Default::default()
    };
    let edits = edits.clone();
    let props = AnalyticalPanelProps {
        state,
        simulated_ipc: Some(simulated_ipc),
        ready: Some(Experiment::default()),
        waiting: None,
        on_knobs: Callback::from(move |knobs| edits.borrow_mut().push(knobs)),
        on_reset: Callback::noop(),
        on_paper_models_only: on_paper_only,
        slider_edits: false,
    };
    common::mount::<AnalyticalPanel>(props, "[data-testid=cpi-chart]").await
}

/// The positive terms of each model's CPI stack.
fn positive_terms(report: &AnalyticalReport) -> usize {
    let stacks = report.models.values().map(|p| p.cpi_stack);
    stacks.map(|s| s.terms().iter().filter(|&&t| t > 0.0).count()).sum()
}

#[wasm_bindgen_test]
async fn the_panel_draws_each_models_ipc_error_and_cpi_stack() {
    let analysis = analysis();
    let report = analysis.report.clone();
    let simulated = report.models[&ModelKind::Mdm].ipc * 0.8;
    let host = mount(analysis, Vec::new(), simulated, &Rc::default()).await;

    for model in ModelKind::ALL {
        let ipc = report.models[&model].ipc;
        assert!(ipc > 0.0, "{model}");
        assert_eq!(values(&host, &format!("[data-testid=\"model-ipc-{}\"]", model.name())), [ipc]);
        let error = 100.0 * (ipc - simulated) / simulated;
        let drawn = values(&host, &format!("[data-testid=\"model-error-{}\"]", model.name()));
        assert_eq!(drawn, [error], "{model}");
    }
    let mdm_error = text(&host, "[data-testid=model-error-mdm]");
    assert_eq!(mdm_error.as_deref(), Some("+25.0% ✗"), "the model is 1/0.8 of the simulation");
    assert_eq!(values(&host, "[data-testid=simulated-ipc]"), [simulated]);

    // The headline model's row (the strip's) in bold, and under the table
    // one sentence per stall class MDM leaves out.
    let headline = all(&host, "[data-testid=model-table] tr.highlight th");
    assert_eq!(headline.iter().filter_map(|th| th.text_content()).collect::<Vec<_>>(), [HEADLINE.label()]);
    let gaps: Vec<String> = all(&host, "[data-testid=mdm-gaps] li").iter().filter_map(|li| li.text_content()).collect();
    assert_eq!(gaps.len(), 4, "{gaps:?}");
    for (gap, term) in gaps.iter().zip(["in-flight fill", "barrier", "LD/ST unit", "stores at exit"]) {
        assert!(gap.contains(&format!("(CPI: {term}")), "{gap} names its CPI term {term}");
    }

    // One bar per model, one segment per term that is not zero.
    let rows = all(&host, "[data-testid=cpi-chart] .row");
    assert_eq!(rows.len(), ModelKind::ALL.len());
    let segments = values(&host, "[data-testid=cpi-chart] rect[data-value]");
    assert_eq!(segments.len(), positive_terms(&report));
    for (row, model) in rows.iter().zip(ModelKind::ALL) {
        let cpi = report.models[&model].cpi_stack.total();
        let drawn: f64 = values(row, "rect[data-value]").iter().sum();
        assert!((drawn - cpi).abs() < 1e-9 * cpi, "{model}'s bar {drawn} is its CPI {cpi}");
    }
    // Every term, the kernel's start (launch and cold code) as one.
    assert_eq!(all(&host, "[data-testid=cpi-chart] .legend li").len(), warplab_lab::CPI_TERMS - 1, "every term");
    let pending = text(&host, "[data-testid=cpi-chart] .legend li:nth-child(3)");
    assert!(pending.is_some_and(|name| name.contains("in-flight fill")), "the core model's term after issue");

    // The kernel table, and the divergence the profile found.
    let dpki: Vec<f64> = report.kernels.iter().map(|k| k.dpki).collect();
    assert_eq!(values(&host, "[data-testid=kernel-dpki]"), dpki);
    assert!(text(&host, "[data-testid=kernel-md]").is_some_and(|md| md.starts_with("MD (")), "strided gs=32 is MD");
}

#[wasm_bindgen_test]
async fn sliders_start_at_the_config_and_hand_edits_up() {
    let edits: Rc<RefCell<Vec<Knobs>>> = Rc::default();
    let host = mount(analysis(), Vec::new(), 1.0, &edits).await;
    let sliders = all(&host, "[data-testid=config-knobs] input[type=range]");
    assert_eq!(sliders.len(), 4, "n_sms, l1_mshrs, noc_bw_scale, dram_bw_scale");
    let slider = |name: &str| -> HtmlInputElement {
        let element = host.query_selector(&format!("[data-testid=config-knob-{name}]")).ok().flatten();
        element.and_then(|e| e.dyn_into().ok()).expect("the knob has a slider")
    };
    // 128 MSHRs: four octaves above 8, at four stops an octave; SMs from 1.
    assert_eq!((slider("l1_mshrs").value(), slider("n_sms").value()), ("16".to_owned(), "27".to_owned()));
    assert_eq!(slider("dram_bw_scale").value(), "12", "a scale of 1: three octaves above 1/8");

    let mshrs = slider("l1_mshrs");
    mshrs.set_value("8");
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let input = Event::new_with_event_init_dict("input", &init).expect("an input event");
    mshrs.dispatch_event(&input).expect("the event dispatches");
    sleep(Duration::from_millis(50)).await;
    assert_eq!(*edits.borrow(), [vec![("l1_mshrs".to_owned(), 32.0)]], "the knobs now set: 32 MSHRs");
}

#[wasm_bindgen_test]
async fn moved_knobs_hide_the_errors_behind_a_note() {
    let knobs = vec![("l1_mshrs".to_owned(), 32.0)];
    let host = mount(analysis(), knobs, 1.0, &Rc::default()).await;
    for model in ModelKind::ALL {
        let cell = all(&host, &format!("[data-testid=\"model-error-{}\"]", model.name()));
        assert_eq!(cell.len(), 1);
        assert_eq!((cell[0].get_attribute("data-value"), cell[0].text_content().as_deref()), (None, Some("–")));
    }
    assert!(text(&host, "[data-testid=model-table]").is_some_and(|t| t.contains("the knobs moved")));
    assert!(text(&host, "[data-testid=knobs-note]").is_some_and(|t| t.contains("edit of the experiment's config")));
    let moved = all(&host, "[data-testid=config-knobs] .knob-name.moved");
    assert_eq!(moved.iter().filter_map(|e| e.text_content()).collect::<Vec<_>>(), ["l1_mshrs"]);
}

#[wasm_bindgen_test]
async fn the_paper_models_only_box_hides_warplabs_extensions() {
    let ticked: Rc<RefCell<Vec<bool>>> = Rc::default();
    let on_paper_only = {
        let ticked = ticked.clone();
        Callback::from(move |only| ticked.borrow_mut().push(only))
    };
    let host = mount_showing(analysis(), Vec::new(), 1.0, &Rc::default(), true, on_paper_only).await;
    assert_eq!(all(&host, "[data-testid=cpi-chart] .row").len(), 5, "the MDM paper's five");
    assert!(all(&host, "[data-testid=mdm-gaps]").is_empty(), "no list of what the core model adds");
    for model in ModelKind::ALL {
        let rows = all(&host, &format!("[data-testid=\"model-ipc-{}\"]", model.name())).len();
        assert_eq!(rows, usize::from(model.in_paper()), "{model}");
    }
    let host_box: HtmlInputElement = host
        .query_selector("[data-testid=paper-models-only]")
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into().ok())
        .expect("the box is drawn");
    assert!(host_box.checked());
    host_box.click();
    sleep(Duration::from_millis(50)).await;
    assert_eq!(*ticked.borrow(), [false], "clearing the box asks for every model");
}

/// Issue 42: under "Profiling…" the table showed MDM 1983.28 of the
/// experiment before, when this one's was 71.27. Figures of another
/// experiment are pending, never shown as this one's.
#[wasm_bindgen_test]
async fn issue_42_figures_of_another_experiment_are_pending_not_shown() {
    let analysis = analysis();
    let earlier = Shown { report: analysis.report.clone(), experiment: Experiment::default(), knobs: Rc::default() };
    let state = AnalysisState {
        analysis: Some(Rc::new(analysis)),
        shown: Some(Rc::new(earlier)),
        analyzing: Some(Experiment { workload: 2, config: 1 }),
        ..Default::default()
    };
    let props = AnalyticalPanelProps {
        state,
        simulated_ipc: None,
        ready: Some(Experiment { workload: 2, config: 1 }),
        waiting: Some("profiling the workload".into()),
        on_knobs: Callback::noop(),
        on_reset: Callback::noop(),
        on_paper_models_only: Callback::noop(),
        slider_edits: false,
    };
    let host = common::mount::<AnalyticalPanel>(props, "[data-testid=model-pending-mdm]").await;
    for model in ModelKind::ALL {
        assert!(all(&host, &format!("[data-testid=\"model-ipc-{}\"]", model.name())).is_empty(), "{model}");
        let pending = text(&host, &format!("[data-testid=\"model-pending-{}\"]", model.name()));
        assert_eq!(pending.as_deref(), Some("pending"), "{model}");
    }
    assert!(all(&host, "[data-testid=cpi-chart]").is_empty(), "no CPI stacks of the experiment before");
    assert!(all(&host, "[data-testid=kernel-dpki]").is_empty(), "nor its kernels");
    let status = text(&host, "[data-testid=analysis-status]").unwrap_or_default();
    assert!(status.starts_with("Profiling the workload"), "{status}");
}
