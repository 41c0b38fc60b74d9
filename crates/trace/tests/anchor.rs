//! The vectoradd anchor trace read natively and in the browser: the counts
//! must be the ones Accel-Sim reports, and the same in both.

use warplab_trace::{Dim3, KernelList, KernelSummary};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const LIST: &str = include_str!("../test_data/vectoradd-sm61-gtx1080-v4/kernelslist.g");
const KERNEL: &[u8] = include_bytes!("../test_data/vectoradd-sm61-gtx1080-v4/kernel-1.traceg");

#[wasm_bindgen_test(unsupported = test)]
fn vectoradd_anchor_counts() {
    let list = KernelList::parse("kernelslist.g", LIST).expect("the anchor list parses");
    assert_eq!(list.kernel_files().collect::<Vec<_>>(), ["kernel-1.traceg"]);
    assert_eq!(list.commands.len(), 4, "three MemcpyHtoD and one kernel");

    let summary = KernelSummary::read("kernel-1.traceg", KERNEL).expect("the anchor trace parses");
    assert_eq!(summary.name, "_Z6vecAddIfEvPT_S1_S1_i");
    assert_eq!(summary.grid, Dim3 { x: 1, y: 1, z: 1 });
    assert_eq!(summary.block, Dim3 { x: 1024, y: 1, z: 1 });
    assert_eq!((summary.ctas, summary.warps), (1, 32));
    // Accel-Sim's log for this trace: 344 warp instructions, gpu_sim_insn = 10516.
    assert_eq!(summary.warp_instructions, 344);
    assert_eq!(summary.thread_instructions, 10_516);
    assert_eq!(summary.tracer_version, 4);
}

#[test]
fn vectoradd_a100_v5_anchor_counts() {
    let text = std::fs::read("test_data/vectorAdd-sm80-a100-v5/kernel-1.traceg").expect("the anchor is in test_data");
    let summary = KernelSummary::read("kernel-1.traceg", text.as_slice()).expect("the anchor trace parses");
    assert_eq!(summary.name, "_Z9vectorAddPKfS0_Pfi");
    assert_eq!(summary.grid, Dim3 { x: 196, y: 1, z: 1 });
    assert_eq!((summary.ctas, summary.warps), (196, 1_568));
    assert_eq!((summary.warp_instructions, summary.thread_instructions), (26_601, 801_056));
    assert_eq!(summary.tracer_version, 5);
}
