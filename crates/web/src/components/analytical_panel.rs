//! The analytical panel: the models' IPC beside the simulated one with
//! their errors (the MDM paper's five and warplab's three, or the paper's
//! only), what MDM leaves out that the warplab core model (the one the IPC
//! strip leads with) adds, their CPI stacks as stacked bars, the per-kernel
//! characterisation (memory divergence, DPKI, occupancy, miss rates), and
//! sliders for the config knobs that re-evaluate the models at once and,
//! once they rest, edit the experiment's config.
//!
//! The panel renders what it is given: the analysis and the figures shown
//! live in [`AnalysisState`], and moving a slider hands the knob up for the
//! page to send to the worker. Its parts are one file each under
//! `analytical_panel/`.

mod cpi_chart;
mod kernel_table;
mod knobs;
mod mdm_gaps;
mod model_table;

pub use knobs::SLIDER_KNOBS;

#[cfg(test)]
pub(crate) use cpi_chart::CPI_SERIES;
use yew::prelude::*;

use crate::analysis_state::AnalysisState;
use crate::components::{HelpLink, chart};
use crate::glossary;
use crate::state::Experiment;

/// Properties of [`AnalyticalPanel`].
#[derive(Debug, Clone, Properties)]
pub struct AnalyticalPanelProps {
    /// The analysis, the figures shown and the knobs set.
    pub state: AnalysisState,
    /// The IPC of a finished simulation of the same workload and config, if any.
    #[prop_or_default]
    pub simulated_ipc: Option<f64>,
    /// The workload and config on the page, once both have loaded: only
    /// figures computed for it (and the knobs set now) are shown, the rest
    /// is pending.
    #[prop_or_default]
    pub ready: Option<Experiment>,
    /// What the figures of `ready` wait for while there are none (the
    /// strip's words for its analytical card).
    #[prop_or_default]
    pub waiting: Option<AttrValue>,
    /// A slider moved: the knobs now set away from the config's values (what
    /// `Predict` carries). Only the props' other fields decide whether the
    /// panel is drawn again, so a page re-rendered for a run's progress can
    /// pass fresh callbacks without redrawing it.
    pub on_knobs: Callback<Vec<(String, f64)>>,
    /// Reset was pressed: the sliders' edits dropped from the experiment.
    pub on_reset: Callback<()>,
    /// The "paper's models only" box was ticked (true) or cleared.
    pub on_paper_models_only: Callback<bool>,
    /// Whether the experiment's config carries edits of the sliders' knobs
    /// (what Reset drops).
    #[prop_or_default]
    pub slider_edits: bool,
}

impl PartialEq for AnalyticalPanelProps {
    /// The data, not the callbacks: the page makes new callbacks on every
    /// render (many a second while a run plays), and they only ever send the
    /// panel's own figures and knobs to the same worker.
    fn eq(&self, other: &Self) -> bool {
        (&self.state, self.simulated_ipc, self.ready, self.slider_edits, &self.waiting)
            == (&other.state, other.simulated_ipc, other.ready, other.slider_edits, &other.waiting)
    }
}

/// Shows the analytical models.
#[component]
pub fn AnalyticalPanel(props: &AnalyticalPanelProps) -> Html {
    let state = &props.state;
    // Only figures of what is on the page now; anything else is pending.
    let report = state.figures_for(props.ready);
    // Errors compare like with like: the simulated config, no knob moved.
    let simulated = props.simulated_ipc.filter(|_| state.at_base());
    html! {
        <section class="panel analytical-panel" id="analytical-panel" data-testid="analytical-panel">
            <h2 title={glossary::ANALYTICAL}>{ "Analytical models" }<HelpLink id="analytical" /></h2>
            { status(props) }
            if let Some(analysis) = &state.analysis {
                { paper_models_only(props) }
                <div class="analytical-results">
                    <div class="analytical-models">
                        { model_table::model_table(report, props.simulated_ipc, simulated.is_some(), state.paper_models_only) }
                        if !state.paper_models_only {
                            { mdm_gaps::mdm_gaps() }
                        }
                    </div>
                    if let Some(report) = report {
                        { chart::bar_chart(&cpi_chart::cpi_chart(report, state.paper_models_only)) }
                    }
                </div>
                { knobs::knob_sliders(&analysis.base, props) }
                if let Some(report) = report {
                    { kernel_table::kernel_table(&report.kernels) }
                    if !report.diagnostics.is_empty() {
                        <ul class="diagnostics" data-testid="analysis-diagnostics">
                            { for report.diagnostics.iter().map(|d| html! { <li>{ d }</li> }) }
                        </ul>
                    }
                }
            }
        </section>
    }
}

/// The box that hides warplab's models, so a lab on the paper's models
/// shows just those (the link keeps the choice).
fn paper_models_only(props: &AnalyticalPanelProps) -> Html {
    let on_paper_models_only = props.on_paper_models_only.clone();
    let onchange = Callback::from(move |event: Event| {
        if let Some(input) = event.target_dyn_into::<web_sys::HtmlInputElement>() {
            on_paper_models_only.emit(input.checked());
        }
    });
    html! {
        <label class="check" data-tap-explains="" title={glossary::PAPER_MODELS_ONLY}>
            <input type="checkbox" data-testid="paper-models-only" checked={props.state.paper_models_only} {onchange} />
            { " The MDM paper's models only" }
        </label>
    }
}

/// What the worker is doing or what the figures wait for, and why the last
/// request failed.
fn status(props: &AnalyticalPanelProps) -> Html {
    let state = &props.state;
    let activity = if state.analyzing.is_some() {
        Some("Profiling the workload and evaluating the models…".to_owned())
    } else if state.predicting {
        Some("Evaluating the models for the knobs set…".to_owned())
    } else if state.error.is_some() || state.figures_for(props.ready).is_some() {
        None
    } else {
        let waiting = props.waiting.as_deref().unwrap_or("waiting for a workload and a config to load");
        Some(format!("The models' figures: {waiting}."))
    };
    html! {
        <>
            if let Some(activity) = activity {
                <p class="status" data-testid="analysis-status">{ activity }</p>
            }
            if let Some(error) = &state.error {
                <p class="error" role="alert" data-testid="analysis-error">{ error }</p>
            }
        </>
    }
}
