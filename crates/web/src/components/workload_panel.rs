//! The workload panel: open a trace, set a generated kernel's knobs (the
//! toolbar chooses among the samples and generators), and see the workload's
//! kernels, instruction counts and memory footprint.

use warplab_lab::{Dim3, GenSpec, KernelSummary, WorkloadSummary};
use web_sys::FileList;
use yew::prelude::*;

use crate::components::{DropZone, FilePicker, GeneratorForm, HelpLink, StatusLine};
use crate::state::{Loadable, WorkloadChoice};

/// Properties of [`WorkloadPanel`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct WorkloadPanelProps {
    /// The workload's state.
    pub state: Loadable<WorkloadSummary>,
    /// Where the workload comes from.
    pub choice: WorkloadChoice,
    /// Files were picked or dropped.
    pub on_files: Callback<Option<FileList>>,
    /// The generator form changed the spec.
    pub on_generate: Callback<GenSpec>,
}

/// Shows the current workload, what is loading, and the last error.
#[component]
pub fn WorkloadPanel(props: &WorkloadPanelProps) -> Html {
    let label = props.state.current.as_ref().map(|s| s.label.clone()).unwrap_or_default();
    html! {
        <section class="panel workload" id="workload-panel" data-testid="workload">
            <DropZone on_files={props.on_files.clone()}>
                <h2>{ "Workload: " }<span data-testid="workload-label">{ label }</span><HelpLink id="workload" /></h2>
                <div class="controls">
                    <FilePicker label="Open trace folder…" testid="trace-folder" folder=true on_files={props.on_files.clone()} />
                    <FilePicker label="Open trace files…" testid="trace-files" accept=".g,.traceg,.xz" on_files={props.on_files.clone()} />
                    <span class="hint">{ "or drop kernelslist.g and .traceg / .traceg.xz files here" }</span>
                </div>
                <GeneratorForm spec={props.choice.spec().cloned()} on_change={props.on_generate.clone()} />
                <StatusLine loading={props.state.loading.clone()} error={props.state.error.clone()} />
                { props.state.current.as_ref().map(summary_view).unwrap_or_default() }
            </DropZone>
        </section>
    }
}

fn summary_view(summary: &WorkloadSummary) -> Html {
    let totals = &summary.totals;
    html! {
        <>
            <p class="totals" data-testid="totals">
                <strong data-testid="warp-instructions">{ totals.warp_insts }</strong>{ " warp instructions, " }
                <strong data-testid="thread-instructions">{ totals.thread_insts }</strong>{ " thread instructions in " }
                { totals.kernels }{ " kernel(s), " }{ totals.ctas }{ " CTAs, " }{ totals.warps }{ " warps; " }
                { summary.memcpys.len() }{ " host-to-device copies" }
            </p>
            <table class="kernels">
                <thead>
                    <tr>
                        <th>{ "kernel" }</th><th>{ "grid" }</th><th>{ "block" }</th><th>{ "CTAs" }</th><th>{ "warps" }</th>
                        <th>{ "warp insts" }</th><th>{ "thread insts" }</th><th>{ "memory insts" }</th>
                        <th title="distinct 32-byte sectors of global memory">{ "sectors" }</th>
                    </tr>
                </thead>
                <tbody>{ for summary.kernels.iter().map(kernel_row) }</tbody>
            </table>
            if !summary.diagnostics.is_empty() {
                <ul class="diagnostics" data-testid="diagnostics">
                    { for summary.diagnostics.iter().map(|d| html! { <li>{ d }</li> }) }
                </ul>
            }
        </>
    }
}

fn kernel_row(kernel: &KernelSummary) -> Html {
    let spaces: Vec<String> = kernel.mem_insts_by_space.iter().map(|(space, n)| format!("{n} {space}")).collect();
    html! {
        <tr>
            <td class="kernel-name" data-testid="kernel-name">{ &kernel.name }</td>
            <td>{ dim3(kernel.grid) }</td>
            <td>{ dim3(kernel.block) }</td>
            <td class="num">{ kernel.ctas }</td>
            <td class="num">{ kernel.warps }</td>
            <td class="num">{ kernel.warp_insts }</td>
            <td class="num">{ kernel.thread_insts }</td>
            <td class="num" title={spaces.join(", ")}>{ kernel.mem_insts }</td>
            <td class="num" data-testid="sectors">{ kernel.sectors }</td>
        </tr>
    }
}

fn dim3(d: Dim3) -> String {
    format!("({}, {}, {})", d.x, d.y, d.z)
}
