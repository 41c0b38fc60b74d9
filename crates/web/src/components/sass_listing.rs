//! The SASS listing beside the source: each kernel's instructions with the
//! source line each comes from, and after a run the figures counted at each
//! instruction. Hovering an instruction highlights its source line; hovering
//! a source line highlights its instructions here.

use std::rc::Rc;

use warplab_lab::per_pc::SAMPLE_INTERVAL;
use yew::prelude::*;

use crate::authored::{Authored, Figures, KernelListing, LineFigures, ListingRow, compact, stall_sampling};

/// Properties of [`SassListing`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct SassListingProps {
    /// The compiled file.
    pub authored: Rc<Authored>,
    /// The last run's figures.
    #[prop_or_default]
    pub figures: Option<Rc<LineFigures>>,
    /// The source line hovered (in the editor or here).
    #[prop_or_default]
    pub hovered: Option<u32>,
    /// The pointer is over an instruction of this line (`None`: none).
    pub on_hover: Callback<Option<u32>>,
}

/// Every kernel's listing.
#[component]
pub fn SassListing(props: &SassListingProps) -> Html {
    html! {
        <div class="sass-listing" data-testid="sass-listing" onmouseleave={props.on_hover.reform(|_: MouseEvent| None)}>
            if props.figures.is_some() {
                <p class="hint" data-testid="sass-sampling" title={stall_sampling()}>
                    { format!("issued and bank are exact counts; mem, dep, bar and struct are estimates from \
                        warp states sampled every {SAMPLE_INTERVAL} cycles.") }
                </p>
            }
            { for props.authored.kernels.iter().map(|kernel| kernel_table(props, kernel)) }
        </div>
    }
}

fn kernel_table(props: &SassListingProps, kernel: &KernelListing) -> Html {
    let counted = props.figures.is_some();
    html! {
        <>
            <h3 class="sass-kernel" data-testid="sass-kernel">
                { &kernel.name }
                <span class="hint">
                    { format!(" {} instructions, {} registers per thread, {} bytes of shared memory", kernel.rows.len(),
                        kernel.registers, kernel.shared_bytes) }
                </span>
            </h3>
            <table class="sass">
                <thead>
                    <tr>
                        <th>{ "PC" }</th><th>{ "SASS" }</th><th title="The source line it comes from">{ "line" }</th>
                        if counted {
                            { figure_headers() }
                        }
                    </tr>
                </thead>
                <tbody>{ for kernel.rows.iter().map(|row| listing_row(props, kernel, row)) }</tbody>
            </table>
        </>
    }
}

fn listing_row(props: &SassListingProps, kernel: &KernelListing, row: &ListingRow) -> Html {
    let line = row.line;
    let class = classes!("sass-row", (props.hovered == Some(line)).then_some("linked"));
    let figures =
        props.figures.as_ref().map(|f| f.by_pc.get(&(kernel.name.clone(), row.pc)).copied().unwrap_or_default());
    html! {
        <tr {class} data-line={line.to_string()} data-pc={row.pc.to_string()}
            onmouseenter={props.on_hover.reform(move |_: MouseEvent| Some(line))}>
            <td class="pc">{ format!("{:04x}", row.pc) }</td>
            <td class="sass-text">{ &row.sass }</td>
            <td class="num">{ line }</td>
            { figures.map(figure_cells).unwrap_or_default() }
        </tr>
    }
}

/// The figure columns' headings: issued, the four stall reasons, then the
/// bank-conflict cycles.
pub(crate) fn figure_headers() -> Html {
    html! {
        <>
            <th title="Warp instructions issued">{ "issued" }</th>
            <th title={stall_title("on memory")}>{ "mem" }</th>
            <th title={stall_title("on an arithmetic result (dependence)")}>{ "dep" }</th>
            <th title={stall_title("at a barrier")}>{ "bar" }</th>
            <th title={stall_title("for a free unit (structural)")}>{ "struct" }</th>
            <th title="Cycles this instruction's shared-memory accesses held the LD/ST unit for bank conflicts (an n-way conflict holds it n - 1 cycles more; GPGPU-Sim's gpgpu_n_shmem_bkconflict)">
                { "bank" }
            </th>
        </>
    }
}

/// A stall column's hover text: what it waited for, and that it is sampled.
fn stall_title(waiting: &str) -> String {
    format!("Warp-cycles stalled here waiting {waiting}. {}", stall_sampling())
}

/// A row's figure cells: issued, the four stall reasons, then the
/// bank-conflict cycles.
pub(crate) fn figure_cells(figures: Figures) -> Html {
    // Compact, so the listing fits beside the source; exact on hover and in `data-value`.
    let cell = |value: u64, testid: &'static str| {
        html! {
            <td class="num" data-testid={testid} data-value={value.to_string()} title={value.to_string()}>
                { compact(value) }
            </td>
        }
    };
    html! {
        <>
            { cell(figures.issued, "sass-issued") }
            { cell(figures.memory, "sass-memory") }
            { cell(figures.dependence, "sass-dependence") }
            { cell(figures.barrier, "sass-barrier") }
            { cell(figures.structural, "sass-structural") }
            { cell(figures.bank_conflicts, "sass-bank-conflicts") }
        </>
    }
}
