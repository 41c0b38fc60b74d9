//! The workload panel: the chosen trace's kernels and instruction counts.

use warplab_lab::{Dim3, KernelSummary, WorkloadSummary};
use yew::prelude::*;

use crate::state::WorkloadStatus;

/// Properties of [`WorkloadPanel`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct WorkloadPanelProps {
    /// The workload's label.
    pub label: AttrValue,
    /// Where reading it stands.
    pub status: WorkloadStatus,
}

/// Shows the workload being read, its kernels, or the error that stopped it.
#[component]
pub fn WorkloadPanel(props: &WorkloadPanelProps) -> Html {
    let body = match &props.status {
        WorkloadStatus::Loading => {
            html! { <p class="status" data-testid="status">{ "Reading the trace in the worker…" }</p> }
        }
        WorkloadStatus::Failed(message) => html! { <p class="error" role="alert" data-testid="error">{ message }</p> },
        WorkloadStatus::Loaded(summary) => summary_view(summary),
    };
    html! {
        <section class="panel workload" data-testid="workload">
            <h2>{ "Workload: " }<span data-testid="workload-label">{ props.label.clone() }</span></h2>
            { body }
        </section>
    }
}

fn summary_view(summary: &WorkloadSummary) -> Html {
    html! {
        <>
            <p class="totals" data-testid="totals">
                <strong data-testid="warp-instructions">{ summary.totals.warp_insts }</strong>{ " warp instructions, " }
                <strong data-testid="thread-instructions">{ summary.totals.thread_insts }</strong>{ " thread instructions in " }
                { summary.kernels.len() }{ " kernel(s); " }{ summary.memcpys.len() }{ " host-to-device copies" }
            </p>
            <table class="kernels">
                <thead>
                    <tr>
                        <th>{ "kernel" }</th><th>{ "grid" }</th><th>{ "block" }</th><th>{ "CTAs" }</th>
                        <th>{ "warps" }</th><th>{ "warp instructions" }</th><th>{ "thread instructions" }</th>
                    </tr>
                </thead>
                <tbody>{ for summary.kernels.iter().map(kernel_row) }</tbody>
            </table>
        </>
    }
}

fn kernel_row(kernel: &KernelSummary) -> Html {
    html! {
        <tr>
            <td class="kernel-name" data-testid="kernel-name">{ &kernel.name }</td>
            <td>{ dim3(kernel.grid) }</td>
            <td>{ dim3(kernel.block) }</td>
            <td class="num">{ kernel.ctas }</td>
            <td class="num">{ kernel.warps }</td>
            <td class="num">{ kernel.warp_insts }</td>
            <td class="num">{ kernel.thread_insts }</td>
        </tr>
    }
}

fn dim3(d: Dim3) -> String {
    format!("({}, {}, {})", d.x, d.y, d.z)
}
