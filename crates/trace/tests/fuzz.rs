//! Property tests: no input makes the trace readers panic. Arbitrary bytes,
//! and (more usefully) real trace lines cut, spliced and corrupted, must give
//! either a summary or a located error.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use warplab_trace::{KernelList, KernelSummary};

const ANCHOR: &str = include_str!("../test_data/vectoradd-sm61-gtx1080-v4/kernel-1.traceg");
const LIST: &str = include_str!("../test_data/vectoradd-sm61-gtx1080-v4/kernelslist.g");

/// The anchor's lines with some dropped, duplicated or overwritten by `noise`.
fn mutated_anchor() -> impl Strategy<Value = String> {
    let lines: Vec<&'static str> = ANCHOR.lines().collect();
    let n = lines.len();
    prop::collection::vec((0..n, 0..4u8, "[ -~]{0,12}"), 1..20).prop_map(move |edits| {
        let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
        for (index, kind, noise) in edits {
            let index = index % out.len().max(1);
            match kind {
                0 if !out.is_empty() => drop(out.remove(index)),
                1 => out.insert(index, out.get(index).cloned().unwrap_or_default()),
                2 => out[index] = noise,
                _ => out[index].push_str(&noise),
            }
        }
        out.join("\n")
    })
}

proptest! {
    #[test]
    fn summary_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        let _ = KernelSummary::read("fuzz.traceg", bytes.as_slice());
    }

    #[test]
    fn summary_of_a_corrupted_trace_is_a_value_or_a_located_error(text in mutated_anchor()) {
        match KernelSummary::read("fuzz.traceg", text.as_bytes()) {
            Ok(summary) => prop_assert!(summary.warp_insts <= 344 * 20),
            Err(error) => {
                prop_assert_eq!(error.file.as_str(), "fuzz.traceg");
                prop_assert!(error.line >= 1 && error.line <= text.lines().count().max(1));
            }
        }
    }

    #[test]
    fn kernel_list_never_panics(text in "(MemcpyHtoD,[0-9a-fx]{0,6},[0-9a-z]{0,4}|kernel-[0-9]\\.traceg|[ -~]{0,20})(\n(MemcpyHtoD,[0-9a-fx]{0,6},[0-9a-z]{0,4}|kernel-[0-9]\\.traceg|[ -~]{0,20})){0,8}") {
        let _ = KernelList::parse("kernelslist.g", &text);
        let _ = KernelList::parse("kernelslist.g", &format!("{LIST}{text}"));
    }
}
