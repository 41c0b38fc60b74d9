//! The sampling panel, shown when the last run was sampled (Photon): per
//! kernel the level it was simulated at, how much of it ran in detail, the
//! nearest kernel by basic-block vector and when prediction took over; and
//! "Run in full to compare", whose answer adds each kernel's IPC error, the
//! overall error and the speedup (wall time and detailed instructions).

use std::rc::Rc;

use warplab_lab::SimReport;
use warplab_lab::sampling::{KernelComparison, KernelSampling, SamplingComparison, SamplingReport};
use yew::prelude::*;

use crate::components::HelpLink;
use crate::components::toolbar::sampling_label;
use crate::format;
use crate::glossary;

/// Properties of [`SamplingPanel`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct SamplingPanelProps {
    /// The finished run; the panel shows nothing when it was not sampled.
    pub report: Rc<SimReport>,
    /// The run against a full run of the same workload, once made.
    #[prop_or_default]
    pub comparison: Option<Rc<SamplingComparison>>,
    /// Whether the full run is being made.
    #[prop_or_default]
    pub comparing: bool,
    /// Why the comparison failed.
    #[prop_or_default]
    pub error: Option<AttrValue>,
    /// "Run in full to compare" was pressed.
    pub on_compare: Callback<()>,
}

/// What sampling did, per kernel, and its error once compared.
#[component]
pub fn SamplingPanel(props: &SamplingPanelProps) -> Html {
    let Some(sampling) = &props.report.sampling else { return html! {} };
    let comparison = props.comparison.as_deref();
    html! {
        <section class="panel sampling-panel" data-testid="sampling-panel" id="sampling-panel">
            <h2 title={glossary::PHOTON_SAMPLING}>{ "Sampling" }<HelpLink id="photon-sampling" /></h2>
            { summary(sampling, &props.report) }
            { kernel_table(sampling, &props.report, comparison) }
            <div class="sampling-compare">
                <button class="button" data-testid="sampling-compare" disabled={props.comparing}
                    onclick={props.on_compare.reform(|_: MouseEvent| ())}
                    title="Simulate the same workload again without sampling, in the worker, and compare IPC and time">
                    { if props.comparing { "Running in full…" } else { "Run in full to compare" } }
                </button>
                if let Some(comparison) = comparison {
                    { compared(comparison) }
                }
                if let Some(error) = &props.error {
                    <span class="error" role="alert" data-testid="sampling-compare-error">{ error }</span>
                }
            </div>
        </section>
    }
}

/// One sentence: the mode and the share of the work simulated in detail.
fn summary(sampling: &SamplingReport, report: &SimReport) -> Html {
    let detailed = sampling.detailed_warp_insts;
    let share = if report.warp_insts == 0 { 1.0 } else { detailed as f64 / report.warp_insts as f64 };
    html! {
        <p class="sampling-summary" data-testid="sampling-summary" data-value={detailed.to_string()}>
            { format!(
                "{} sampling simulated {} of {} warp instructions in detail ({}); the rest were predicted.",
                sampling_label(sampling.options.mode),
                format::count(detailed),
                format::count(report.warp_insts),
                format::share(share)
            ) }
        </p>
    }
}

/// The per-kernel table, with the IPC columns once compared.
fn kernel_table(sampling: &SamplingReport, report: &SimReport, comparison: Option<&SamplingComparison>) -> Html {
    html! {
        <div class="table-scroll tall" tabindex="0">
            <table class="kernels sampling-kernels" data-testid="sampling-kernels">
                <thead>
                    <tr>
                        <th>{ "kernel" }</th>
                        <th title={glossary::SAMPLE_LEVEL}>{ "level" }</th>
                        <th class="num" title="Warps simulated in detail, of the kernel's warps">{ "warps in detail" }</th>
                        <th class="num" title="Warp instructions simulated in detail, of the kernel's (predicted ones included)">
                            { "warp insts in detail" }
                        </th>
                        <th title={glossary::BBV_DISTANCE}>{ "nearest kernel" }</th>
                        <th class="num" title="The core cycle at which warp or basic-block prediction took over">{ "switched at" }</th>
                        <th class="num" title="Warp level: the cycles each predicted CTA holds its SM, the mean time from launch to CTA end of the last warps measured when the stability test passed">
                            { "predicted CTA time" }
                        </th>
                        if comparison.is_some() {
                            <th class="num" title={glossary::MODEL_ERROR}>{ "IPC vs full" }</th>
                        }
                    </tr>
                </thead>
                <tbody>
                    { for sampling.kernels.iter().enumerate().map(|(index, kernel)| {
                        let total = report.kernels.get(index).map_or(0, |k| k.warp_insts);
                        let compared = comparison.map(|c| c.kernels.get(index));
                        kernel_row(index, kernel, total, compared)
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// One kernel: `total` is its warp instructions, `compared` its comparison
/// (`Some(None)`: compared, but the full run has no such kernel).
fn kernel_row(index: usize, kernel: &KernelSampling, total: u64, compared: Option<Option<&KernelComparison>>) -> Html {
    let level = kernel.level.name();
    let nearest = kernel.nearest.map_or("–".to_owned(), |(k, distance)| format!("{k} ({distance:.3})"));
    let switched = kernel.switched_at.map_or("–".to_owned(), format::count);
    let cta_time = kernel.warp_cycles.map_or("–".to_owned(), |cycles| format!("{} cycles", format::count(cycles)));
    html! {
        <tr data-testid={format!("sampling-kernel-{index}")}>
            <td>{ index }</td>
            <td class={classes!("sample-level", level)} data-testid={format!("sampling-level-{index}")} data-value={level}>
                { level }
            </td>
            <td class="num">{ format!("{} / {}", format::count(kernel.detailed_warps), format::count(kernel.warps)) }</td>
            <td class="num">{ format!("{} / {}", format::count(kernel.detailed_warp_insts), format::count(total)) }</td>
            <td data-testid={format!("sampling-nearest-{index}")}>{ nearest }</td>
            <td class="num">{ switched }</td>
            <td class="num" data-testid={format!("sampling-cta-time-{index}")}>{ cta_time }</td>
            if let Some(compared) = compared {
                { error_cell(compared.map(|k| 100.0 * k.ipc_error), &format!("sampling-error-{index}")) }
            }
        </tr>
    }
}

/// An IPC error in percent, coloured as the page's other errors are.
fn error_cell(error_pct: Option<f64>, testid: &str) -> Html {
    let Some(error) = error_pct else { return html! { <td class="num muted">{ "–" }</td> } };
    let class = classes!("num", format::error_class(error));
    html! { <td {class} data-testid={testid.to_owned()} data-value={error.to_string()}>{ format::marked_error(error) }</td> }
}

/// The comparison's headline: IPC error overall and the two speedups.
fn compared(comparison: &SamplingComparison) -> Html {
    let error = 100.0 * comparison.ipc_error;
    let error_class = classes!("figure-error", format::error_class(error));
    let wall = comparison.wall_speedup.map_or("–".to_owned(), |s| format!("{s:.1}×"));
    html! {
        <dl class="sampling-comparison" data-testid="sampling-comparison">
            <div>
                <dt title={glossary::MODEL_ERROR}>{ "IPC error" }</dt>
                <dd class={error_class} data-testid="sampling-error" data-value={error.to_string()}>
                    { format::marked_error(error) }
                </dd>
            </div>
            <div>
                <dt>{ "IPC sampled / full" }</dt>
                <dd data-testid="sampling-full-ipc" data-value={comparison.full_ipc.to_string()}>
                    { format!("{} / {}", format::decimal(comparison.sampled_ipc), format::decimal(comparison.full_ipc)) }
                </dd>
            </div>
            <div>
                <dt title="The full run's wall time over the sampled run's, both in the worker">{ "speedup (wall time)" }</dt>
                <dd data-testid="sampling-wall-speedup" data-value={comparison.wall_speedup.unwrap_or_default().to_string()}>
                    { wall }
                </dd>
            </div>
            <div>
                <dt title="The full run's warp instructions over those the sampled run simulated in detail">
                    { "speedup (instructions)" }
                </dt>
                <dd data-testid="sampling-instruction-speedup" data-value={comparison.instruction_speedup.to_string()}>
                    { format!("{:.1}×", comparison.instruction_speedup) }
                </dd>
            </div>
        </dl>
    }
}
