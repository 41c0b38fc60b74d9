//! Where the scale-model rule gives no prediction (issue 42): a workload
//! whose IPC barely rises from one scale model to the next (histogram with
//! every atomic on one bin) drives the reference rule's compounded
//! correction towards zero, and the page and the handouts say so instead of
//! printing 0.0; a prediction the method can mean is never flagged, and
//! none of the paper's sixteen published benchmarks is.

use warplab_scale::{Inputs, Method, Rule, Table, predict};
use wasm_bindgen_test::wasm_bindgen_test;

/// The 8- and 16-SM IPCs of lab 3's step 3c (`histogram:skew=100,size=64`
/// on scalemodel-128sm), as `warplab run --experiment` measures them.
const HOT_BIN: [f64; 2] = [9.656000559887728, 9.801461185848781];

fn strong(ipc: [f64; 2]) -> Inputs {
    Inputs { sizes: vec![8, 16, 32, 64, 128], ipc, mpki: None, f_mem: None }
}

#[wasm_bindgen_test(unsupported = test)]
fn a_hot_bin_leaves_the_reference_rule_without_a_prediction_and_says_why() {
    let prediction = predict(&strong(HOT_BIN), Rule::Reference).expect("predicts");
    let ipc = prediction.ipc(Method::ScaleModel, 128).expect("a figure");
    assert!(ipc < 0.01, "the compounded rule collapses: {ipc}");
    let none = prediction.no_prediction(128).expect("no prediction");
    assert_eq!((none.rule, none.size, none.fails_at, none.scale_models), (Rule::Reference, 128, 32, [8, 16]));
    let correction = 2.0 - 2.0 * HOT_BIN[0] / HOT_BIN[1];
    assert!((none.correction - correction).abs() < 1e-12, "1 + b = 2 − 2·IPC_S/IPC_L: {}", none.correction);
    assert_eq!(
        none.to_string(),
        "doubling the scale model from 8 to 16 SMs raised its IPC only from 9.66 to 9.80, so the reference \
         rule's correction factor 1 + b = 0.030 compounds at every further doubling and takes the IPC at 32 SMs \
         to 0.58, below what the 8-SM scale model measured"
    );
    // Already at 32 SMs the rule is below the 8-SM model's IPC.
    assert_eq!(prediction.no_prediction(32).map(|n| n.fails_at), Some(32));
    // The scale models themselves are measurements, never "no prediction".
    assert_eq!(prediction.no_prediction(8), None);
    assert_eq!(prediction.no_prediction(16), None);
    assert_eq!(prediction.no_prediction(256), None, "a size the prediction does not have");
}

#[wasm_bindgen_test(unsupported = test)]
fn the_paper_rule_predicts_the_hot_bin_and_a_steep_slowdown_is_no_prediction_under_both() {
    let paper = predict(&strong(HOT_BIN), Rule::Paper).expect("predicts");
    assert_eq!(paper.no_prediction(128), None, "C ≈ 0.5 still grows the IPC: {:?}", paper.ipc(Method::ScaleModel, 128));
    // A larger scale model a little slower than the smaller one: the
    // reference rule's factor turns negative (its IPC changes sign at every
    // doubling), the paper's still grows.
    let slower = strong([10.0, 8.0]);
    assert!(predict(&slower, Rule::Reference).expect("predicts").no_prediction(128).is_some());
    assert_eq!(predict(&slower, Rule::Paper).expect("predicts").no_prediction(128), None, "8 · 8 · 0.4 = 25.6");
    // Five times slower: both rules fall below the 8-SM model's IPC (the
    // reference rule's at 128 SMs is positive again, and still no prediction).
    for rule in Rule::ALL {
        let none = predict(&strong([10.0, 2.0]), rule).expect("predicts").no_prediction(128);
        assert!(none.is_some_and(|n| n.rule == rule), "{rule:?}");
    }
    let paper_text = predict(&strong([10.0, 2.0]), Rule::Paper).expect("predicts").no_prediction(128).expect("none");
    assert!(paper_text.to_string().contains("the paper rule's correction C = 0.100"), "{paper_text}");
}

#[wasm_bindgen_test(unsupported = test)]
fn near_linear_and_published_workloads_always_have_a_prediction() {
    for rule in Rule::ALL {
        for ipc in [[100.0, 200.0], [100.0, 150.0], [100.0, 260.0]] {
            let prediction = predict(&strong(ipc), rule).expect("predicts");
            assert_eq!(prediction.no_prediction(128), None, "{rule:?} {ipc:?}");
        }
    }
    let file = "single_strong_scaling.csv";
    let table = Table::read(file, include_str!("../test_data/single_strong_scaling.csv")).expect("reads");
    assert_eq!(table.benchmarks.len(), 16);
    for benchmark in &table.benchmarks {
        for rule in Rule::ALL {
            let prediction = benchmark.predict(rule).expect("predicts");
            for &size in &prediction.sizes {
                assert_eq!(prediction.no_prediction(size), None, "{} at {size} ({rule:?})", benchmark.name);
            }
        }
    }
}
