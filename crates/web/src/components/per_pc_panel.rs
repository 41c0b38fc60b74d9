//! A trace's instructions by PC (issue 41): after a run of an Accel-Sim
//! trace, the PCs warps waited at most in each kernel launch, with the warp
//! instructions issued there and the stall cycles by reason. A trace has no
//! source, so this is the per-PC view an authored kernel's listing gives
//! beside its source.

use std::collections::BTreeMap;
use std::rc::Rc;

use warplab_lab::per_pc::PcStalls;
use yew::prelude::*;

use crate::authored::{Figures, stall_sampling};
use crate::components::sass_listing::{figure_cells, figure_headers};

/// The PCs listed per launch, the ones warps waited at most: a trace's
/// kernel has hundreds, and the few where the time goes are the lesson.
pub const MAX_PCS: usize = 20;

/// Properties of [`PerPcPanel`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct PerPcPanelProps {
    /// The last run's counters.
    pub counted: Rc<Vec<PcStalls>>,
    /// Each launch's kernel name, in launch order.
    pub kernels: Rc<Vec<AttrValue>>,
}

/// Each launch's busiest PCs.
#[component]
pub fn PerPcPanel(props: &PerPcPanelProps) -> Html {
    let mut by_launch: BTreeMap<u32, Vec<&PcStalls>> = BTreeMap::new();
    for row in props.counted.iter() {
        by_launch.entry(row.kernel).or_default().push(row);
    }
    html! {
        <section class="panel per-pc-panel" id="per-pc-panel" data-testid="per-pc-panel">
            <h2 title="Where the warps of each kernel launch spent their cycles, instruction by instruction">
                { "Per instruction" }
            </h2>
            <p class="hint">
                { format!("Each launch's {MAX_PCS} PCs warps waited at most: warp instructions issued there, and \
                   warp-cycles stalled there waiting on memory, a result (dependence), a barrier or a free unit \
                   (structural), as warplab run --per-pc takes them, and the cycles its shared-memory accesses \
                   held the LD/ST unit for bank conflicts. {}", stall_sampling()) }
            </p>
            { for by_launch.into_iter().enumerate().map(|(index, (launch, rows))| launch_table(props, index, launch, rows)) }
        </section>
    }
}

fn launch_table(props: &PerPcPanelProps, index: usize, launch: u32, mut rows: Vec<&PcStalls>) -> Html {
    let name = props.kernels.get(launch as usize).cloned().unwrap_or_default();
    let total = rows.len();
    rows.sort_by_key(|row| std::cmp::Reverse((Figures::of(row).stalled(), row.issued)));
    rows.truncate(MAX_PCS);
    rows.sort_by_key(|row| row.pc);
    html! {
        <details open={index == 0} data-testid="per-pc-launch">
            <summary>{ format!("Launch {}: {name} ({total} PCs)", launch + 1) }</summary>
            <table class="sass">
                <thead>
                    <tr>
                        <th>{ "PC" }</th><th>{ "opcode" }</th>{ figure_headers() }
                    </tr>
                </thead>
                <tbody>
                    { for rows.iter().map(|row| html! {
                        <tr class="sass-row" data-pc={row.pc.to_string()}>
                            <td class="pc">{ format!("{:04x}", row.pc) }</td>
                            <td class="sass-text">{ &row.opcode }</td>
                            { figure_cells(Figures::of(row)) }
                        </tr>
                    }) }
                </tbody>
            </table>
        </details>
    }
}
