//! The paper's published benchmarks: a button that reads the bundled table
//! on the page, then a benchmark picker, the chosen benchmark's scaling chart
//! and miss-rate curve, and every method's mean and maximum error over all
//! sixteen at each size — the paper's accuracy figure, reproduced.

use std::rc::Rc;

use warplab_lab::scale::{Benchmark, Method, Rule};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

use crate::components::chart;
use crate::components::scale_panel::charts::{Scaling, Source, miss_curve_chart, scaling_chart};
use crate::components::scale_panel::error_tables::summary_table;
use crate::glossary;
use crate::published::{PUBLISHED_FILE, Published};
use crate::scale_state::{ScaleAction, ScaleState};

/// The published section: the button until loaded, then the data.
pub fn published_section(state: &ScaleState, on_change: &Callback<ScaleAction>) -> Html {
    let on_load = on_change.reform(|_: MouseEvent| ScaleAction::PublishedLoaded(Published::load().map(Rc::new)));
    html! {
        <section class="published" data-testid="published">
            <h3 class="subheading" title="SeyyedAghaei, Naderan-Tahan and Eeckhout, GPU Scale-Model Simulation, HPCA 2024">
                { "The paper's published benchmarks" }
            </h3>
            if let Some(published) = &state.published {
                { loaded(published, state, on_change) }
            } else {
                <p class="note">
                    { "Sixteen benchmarks simulated with Accel-Sim at 8 to 128 SMs, as the paper published them \
                       (IPC and L2 MPKI at every size): each method predicts 32, 64 and 128 SMs from the 8- and 16-SM \
                       scale models. Bundled with the app; evaluated here in microseconds, no simulation needed." }
                </p>
                <button class="button" data-testid="load-published" onclick={on_load}>
                    { "Load the paper's published benchmarks" }
                </button>
            }
            if let Some(error) = &state.published_error {
                <p class="error" role="alert" data-testid="published-error">{ error }</p>
            }
        </section>
    }
}

/// The picker, the chosen benchmark's charts, and the summary over all.
fn loaded(published: &Published, state: &ScaleState, on_change: &Callback<ScaleAction>) -> Html {
    let benchmarks = &published.table.benchmarks;
    let index = state.benchmark.min(benchmarks.len().saturating_sub(1));
    let on_pick = on_change.reform(|e: Event| {
        let value = e.target_unchecked_into::<HtmlSelectElement>().value();
        ScaleAction::BenchmarkChosen(value.parse().unwrap_or(0))
    });
    let report = published.report(state.rule);
    html! {
        <>
            { headline(published, state.rule) }
            <div class="controls">
                <label class="field">
                    { "Benchmark" }
                    <select data-testid="published-benchmark" onchange={on_pick}>
                        { for benchmarks.iter().enumerate().map(|(i, b)| html! {
                            <option value={i.to_string()} selected={i == index}>{ &b.name }</option>
                        }) }
                    </select>
                </label>
            </div>
            if let Some(benchmark) = benchmarks.get(index) {
                { benchmark_charts(benchmark, state.rule) }
            }
            <h4 class="subheading" title={glossary::SCALE_ERROR}>
                { format!("Error over all {} benchmarks ({} rule)", benchmarks.len(), state.rule.name()) }
            </h4>
            { summary_table(&report.summary) }
            <p class="hint">{ format!("Data: {PUBLISHED_FILE}, the paper's published simulations (its artifact's spreadsheet).") }</p>
        </>
    }
}

/// The scale model's error at the largest size, in a sentence.
fn headline(published: &Published, rule: Rule) -> Html {
    let summary = &published.report(rule).summary;
    let largest = summary.iter().map(|row| row.target_units).max().unwrap_or(0);
    let Some(row) = summary.iter().find(|r| r.model == Method::ScaleModel && r.target_units == largest) else {
        return html! {};
    };
    html! {
        <p class="published-headline" data-testid="published-headline">
            { format!("Scale-Model at {largest} SMs, over all {} benchmarks: ", published.table.benchmarks.len()) }
            <strong data-testid="published-mean" data-value={row.mean_err_pct.to_string()}>
                { format!("{:.2}%", row.mean_err_pct) }
            </strong>
            { " mean error, " }
            <strong data-testid="published-max" data-value={row.max_err_pct.to_string()}>
                { format!("{:.2}%", row.max_err_pct) }
            </strong>
            { format!(" at most ({} rule).", rule.name()) }
        </p>
    }
}

/// One benchmark's scaling chart and miss-rate curve.
fn benchmark_charts(benchmark: &Benchmark, rule: Rule) -> Html {
    let prediction = match benchmark.predict(rule) {
        Ok(prediction) => prediction,
        Err(error) => return html! { <p class="error" role="alert">{ format!("{}: {error}", benchmark.name) }</p> },
    };
    let runs: Vec<(u32, f64)> = benchmark.sizes.iter().copied().zip(benchmark.ipc.iter().copied()).collect();
    let scaling =
        Scaling { prediction: &prediction, scale_models: runs[..2.min(runs.len())].to_vec(), truth: runs.clone() };
    html! {
        <div class="charts">
            { chart::line_chart(&scaling_chart(Source::Published, &scaling)) }
            { chart::line_chart(&miss_curve_chart(Source::Published, &benchmark.sizes, &benchmark.mpki, prediction.cliff)) }
        </div>
    }
}
