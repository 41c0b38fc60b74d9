//! The scale panel in a real browser (issue 8): the paper's published
//! benchmarks load on the page at a click and reproduce the published
//! summary (Scale-Model 3.23 % mean / 8.25 % max error at 128 SMs), with
//! each benchmark's scaling chart and miss-rate curve (dct's cliff marked)
//! and the rule switch redrawing at once; a config that cannot be divided
//! says why and what would work.

mod common;

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use common::{all, text, values};
use gloo::timers::future::sleep;
use warplab_web::agent::ScaleSetup;
use warplab_web::{ScaleAction, ScalePanel, ScaleState};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Element, Event, EventInit, HtmlElement, HtmlSelectElement};
use yew::prelude::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Properties of [`Harness`].
#[derive(Debug, Clone, PartialEq, Properties)]
struct HarnessProps {
    /// The panel's state to start from.
    state: ScaleState,
    /// The SM count "Use N SMs" last asked for.
    chosen_sms: Rc<Cell<Option<u32>>>,
}

/// The panel with its own reducer, as the page holds it, so clicks change what it shows.
#[component]
fn Harness(props: &HarnessProps) -> Html {
    let initial = props.state.clone();
    let state = use_reducer(move || initial);
    let dispatcher = state.dispatcher();
    let chosen_sms = props.chosen_sms.clone();
    html! {
        <ScalePanel state={(*state).clone()} on_pair={Callback::noop()}
            on_change={Callback::from(move |action: ScaleAction| dispatcher.dispatch(action))}
            on_predict={Callback::noop()} on_cancel={Callback::noop()}
            on_target_sms={Callback::from(move |sms| chosen_sms.set(Some(sms)))} />
    }
}

async fn mount(state: ScaleState, ready: &str) -> Element {
    common::mount::<Harness>(HarnessProps { state, chosen_sms: Rc::default() }, ready).await
}

fn element<T: JsCast>(host: &Element, selector: &str) -> T {
    let found = host.query_selector(selector).ok().flatten().and_then(|e| e.dyn_into().ok());
    found.unwrap_or_else(|| panic!("no {selector}"))
}

/// Clicks `selector` and waits for the page to redraw.
async fn click(host: &Element, selector: &str) {
    element::<HtmlElement>(host, selector).click();
    sleep(Duration::from_millis(50)).await;
}

/// Picks `value` in the select `selector`, as a user would.
async fn pick(host: &Element, selector: &str, value: &str) {
    let select: HtmlSelectElement = element(host, selector);
    select.set_value(value);
    let init = EventInit::new();
    init.set_bubbles(true);
    select.dispatch_event(&Event::new_with_event_init_dict("change", &init).expect("an event")).expect("dispatched");
    sleep(Duration::from_millis(50)).await;
}

#[wasm_bindgen_test]
async fn the_published_benchmarks_reproduce_the_papers_figure() {
    let host = mount(ScaleState::default(), "[data-testid=load-published]").await;
    assert!(all(&host, "[data-testid=published-scale-chart]").is_empty(), "nothing until asked");
    click(&host, "[data-testid=load-published]").await;

    let mean = values(&host, "[data-testid=published-mean]");
    let max = values(&host, "[data-testid=published-max]");
    assert_eq!((format!("{:.2}", mean[0]), format!("{:.2}", max[0])), ("3.23".to_owned(), "8.25".to_owned()));
    let headline = text(&host, "[data-testid=published-headline]").unwrap_or_default();
    assert!(headline.contains("3.23%") && headline.contains("8.25%") && headline.contains("128 SMs"), "{headline}");
    // Five methods at 32, 64 and 128 SMs.
    let cells = all(&host, "[data-testid=published-summary] td[data-mean]");
    assert_eq!(cells.len(), 15);
    let at_64 = element::<Element>(&host, "[data-testid=\"summary-Scale-Model-64\"]").get_attribute("data-mean");
    assert_eq!(at_64.and_then(|v| v.parse::<f64>().ok()).map(|v| format!("{v:.2}")), Some("2.77".to_owned()));

    // The first benchmark (unet): the scale models, five methods and the truth at 8 to 128 SMs.
    assert_eq!(all(&host, "[data-testid=published-benchmark] option").len(), 16);
    let scale_models =
        values(&host, "[data-testid=published-scale-chart] [data-series=\"Scale models (simulated)\"] [data-value]");
    assert_eq!(scale_models, [140.2265, 276.5712]);
    let truth = values(&host, "[data-testid=published-scale-chart] [data-series=Simulated] [data-value]");
    assert_eq!(truth.len(), 5);
    assert_eq!(all(&host, "[data-testid=published-scale-chart] polyline").len(), 6, "five methods and the truth");
    assert_eq!(all(&host, "[data-testid=published-scale-chart] .legend li").len(), 7);
    assert!(all(&host, "[data-testid=published-miss-curve] [data-testid=chart-band]").is_empty(), "unet has no cliff");

    // dct has its cliff between 64 and 128 SMs.
    let dct = all(&host, "[data-testid=published-benchmark] option")
        .iter()
        .position(|o| o.text_content().as_deref() == Some("dct"));
    pick(&host, "[data-testid=published-benchmark]", &dct.expect("dct is published").to_string()).await;
    let bands = all(&host, "[data-testid=published-miss-curve] [data-testid=chart-band]");
    assert_eq!(bands.len(), 1);
    assert_eq!(
        (bands[0].get_attribute("data-from"), bands[0].get_attribute("data-to")),
        (Some("64".into()), Some("128".into()))
    );
    assert_eq!(values(&host, "[data-testid=published-miss-curve] [data-value]").len(), 5);

    // The paper's printed rule: other errors, at once.
    click(&host, "[data-testid=scale-rule-paper]").await;
    let paper_mean = values(&host, "[data-testid=published-mean]");
    assert_ne!(paper_mean, mean, "the rules differ");
    assert!(text(&host, "[data-testid=published-headline]").is_some_and(|t| t.contains("paper rule")));
}

#[wasm_bindgen_test]
async fn a_gpu_that_cannot_be_divided_says_why_and_what_would() {
    let setup = ScaleSetup {
        target_sms: 46,
        workable: Vec::new(),
        scale_models: [8, 16],
        sizes: Vec::new(),
        diagnostics: Vec::new(),
        error: Some("target 46 SMs is not 4·8, 8·8, 16·8, …: sizes double from the scale models (8, 16); no pair of scale models divides this GPU".into()),
        nearest_target: None,
        config: 1,
    };
    let state = ScaleState { setup: Some(Rc::new(setup)), ..ScaleState::default() };
    let host = mount(state, "[data-testid=scale-undividable]").await;
    let said = text(&host, "[data-testid=scale-undividable]").unwrap_or_default();
    assert!(said.contains("no pair of scale models divides this GPU"), "{said}");
    assert!(said.contains("46 SMs = 2 × 23") && said.contains("scalemodel-128sm"), "{said}");
    let predict: HtmlElement = element(&host, "[data-testid=scale-predict]");
    assert!(predict.has_attribute("disabled"), "nothing to run");
    assert!(all(&host, "[data-testid=scale-sizes]").is_empty());
}

#[wasm_bindgen_test]
async fn a_gpu_that_cannot_be_divided_offers_the_nearest_that_can() {
    let setup = ScaleSetup {
        target_sms: 46,
        error: Some("no pair of scale models divides this GPU".into()),
        nearest_target: Some(48),
        ..ScaleSetup::unplanned(String::new())
    };
    let state = ScaleState { setup: Some(Rc::new(setup)), ..ScaleState::default() };
    let chosen_sms = Rc::new(Cell::new(None));
    let props = HarnessProps { state, chosen_sms: chosen_sms.clone() };
    let host = common::mount::<Harness>(props, "[data-testid=scale-use-nearest]").await;
    let said = text(&host, "[data-testid=scale-nearest]").unwrap_or_default();
    assert!(said.contains("nearest SM count that divides is 48") && said.contains("Use 48 SMs"), "{said}");
    click(&host, "[data-testid=scale-use-nearest]").await;
    assert_eq!(chosen_sms.get(), Some(48));

    // Nothing to offer: no button.
    let setup = ScaleSetup { target_sms: 46, error: Some("no pair".into()), ..ScaleSetup::unplanned(String::new()) };
    let state = ScaleState { setup: Some(Rc::new(setup)), ..ScaleState::default() };
    let host = mount(state, "[data-testid=scale-undividable]").await;
    assert!(all(&host, "[data-testid=scale-use-nearest]").is_empty());
}
