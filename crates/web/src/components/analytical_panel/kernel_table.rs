//! What characterises each kernel for the models: memory divergence, DPKI,
//! resident warps, waves and the cache pass's miss rates.

use warplab_lab::KernelResult;
use yew::prelude::*;

use crate::format;
use crate::glossary;

/// The most kernel rows drawn: a trace of thousands of launches lists its
/// first ones, with a note, instead of a page of rows.
const MAX_ROWS: usize = 200;

/// One row per kernel, in launch order.
pub fn kernel_table(kernels: &[KernelResult]) -> Html {
    if kernels.is_empty() {
        return html! {};
    }
    html! {
        <>
            <h3 class="subheading">{ "Kernels" }</h3>
            <div class="table-scroll tall" tabindex="0">
                <table class="kernels" data-testid="analytical-kernels">
                    <thead>
                        <tr>
                            <th>{ "kernel" }</th>
                            <th title={glossary::MD}>{ "MD" }</th>
                            <th class="num" title={glossary::DPKI}>{ "DPKI" }</th>
                            <th class="num" title={glossary::WARPS_PER_SM}>{ "W" }</th>
                            <th class="num" title={glossary::WAVES}>{ "waves" }</th>
                            <th class="num" title={glossary::L1_MISS_RATE}>{ "L1 miss" }</th>
                            <th class="num" title={glossary::L2_MISS_RATE}>{ "L2 miss" }</th>
                        </tr>
                    </thead>
                    <tbody>{ for kernels.iter().take(MAX_ROWS).map(row) }</tbody>
                </table>
            </div>
            if kernels.len() > MAX_ROWS {
                <p class="hint">{ format!("The first {MAX_ROWS} of {} kernels.", format::count(kernels.len() as u64)) }</p>
            }
        </>
    }
}

fn row(kernel: &KernelResult) -> Html {
    let divergence = if kernel.md { format!("MD ({})", format::share(kernel.md_share)) } else { "NMD".to_owned() };
    html! {
        <tr>
            <td class="kernel-name" title={format!("launch {}", kernel.id)}>{ &kernel.name }</td>
            <td data-testid="kernel-md" data-value={kernel.md_share.to_string()}>{ divergence }</td>
            { number("kernel-dpki", kernel.dpki, format::decimal(kernel.dpki)) }
            { number("kernel-w", f64::from(kernel.warps_per_sm), kernel.warps_per_sm.to_string()) }
            { number("kernel-waves", kernel.waves as f64, format::count(kernel.waves)) }
            { number("kernel-l1-miss", kernel.l1_miss_rate, format::share(kernel.l1_miss_rate)) }
            { number("kernel-l2-miss", kernel.l2_miss_rate, format::share(kernel.l2_miss_rate)) }
        </tr>
    }
}

/// A right-aligned cell showing `text`, with the exact value for tests and tools.
fn number(testid: &'static str, value: f64, text: String) -> Html {
    html! { <td class="num" data-testid={testid} data-value={value.to_string()}>{ text }</td> }
}
