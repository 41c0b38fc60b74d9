//! The predictor against the paper's reference tool: every method at every
//! size of the 16 published strong-scaling benchmarks, to 0.1 %, and the
//! error summary those predictions give.

use warplab_scale::{Method, Role, Rule, Table, TableReport};
use wasm_bindgen_test::wasm_bindgen_test;

const INPUTS: &str = include_str!("../test_data/single_strong_scaling.csv");
const REFERENCE: &str = include_str!("../test_data/reference_predictions.csv");

fn report(rule: Rule) -> TableReport {
    let table = Table::read("single_strong_scaling.csv", INPUTS).expect("the anchor reads");
    table.evaluate("single_strong_scaling.csv", rule).expect("every benchmark predicts")
}

/// (benchmark, units, role, model, predicted, actual, abs_err_pct) of each reference row.
fn reference_rows() -> Vec<(String, u32, String, String, f64, f64, f64)> {
    REFERENCE
        .lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let num = |i: usize| f[i].parse::<f64>().expect("a number");
            (f[1].to_owned(), f[2].parse().expect("units"), f[3].to_owned(), f[4].to_owned(), num(5), num(6), num(7))
        })
        .collect()
}

#[wasm_bindgen_test(unsupported = test)]
fn every_reference_row_is_reproduced_to_a_tenth_of_a_percent() {
    let ours = report(Rule::Reference);
    let rows = reference_rows();
    assert_eq!(rows.len(), 400);
    assert_eq!(ours.predictions.len(), rows.len());
    for (bench, units, role, model, predicted, actual, _) in rows {
        let row = ours
            .predictions
            .iter()
            .find(|r| r.benchmark == bench && r.units == units && r.model.label() == model)
            .unwrap_or_else(|| panic!("no prediction for {bench} {units} {model}"));
        let relative = (row.predicted_ipc - predicted).abs() / predicted;
        assert!(relative <= 1e-3, "{bench} {units} {model}: {} against {predicted}", row.predicted_ipc);
        assert_eq!((row.role.label(), row.actual_ipc), (role.as_str(), actual), "{bench} {units} {model}");
    }
}

fn summary(report: &TableReport, model: Method, units: u32) -> (f64, f64) {
    let row = report.summary.iter().find(|s| s.model == model && s.target_units == units).expect("a summary row");
    (row.mean_err_pct, row.max_err_pct)
}

fn rounded((mean, max): (f64, f64), digits: i32) -> (f64, f64) {
    let scale = 10f64.powi(digits);
    ((mean * scale).round() / scale, (max * scale).round() / scale)
}

#[wasm_bindgen_test(unsupported = test)]
fn the_published_errors_at_128_and_64_sms() {
    let r = report(Rule::Reference);
    assert_eq!(rounded(summary(&r, Method::ScaleModel, 128), 2), (3.23, 8.25));
    assert_eq!(rounded(summary(&r, Method::PowerLaw, 128), 2), (8.88, 54.18));
    assert_eq!(rounded(summary(&r, Method::Linear, 128), 1), (12.3, 54.6));
    assert_eq!(rounded(summary(&r, Method::Proportional, 128), 1), (15.3, 54.9));
    assert_eq!(rounded(summary(&r, Method::Logarithmic, 128), 1), (69.3, 85.8));
    assert_eq!(rounded(summary(&r, Method::ScaleModel, 64), 2), (2.77, 7.65));
    // A row per method at 32, 64 and 128 SMs.
    assert_eq!(r.summary.len(), 15);
}

#[wasm_bindgen_test(unsupported = test)]
fn only_dct_has_a_cliff_and_it_is_at_128() {
    let table = Table::read("t.csv", INPUTS).expect("reads");
    let cliffs: Vec<(String, u32)> = table
        .benchmarks
        .iter()
        .filter_map(|b| b.predict(Rule::Reference).expect("predicts").cliff.map(|c| (b.name.clone(), c.to)))
        .collect();
    assert_eq!(cliffs, [("dct".to_owned(), 128)]);
}

#[wasm_bindgen_test(unsupported = test)]
fn the_paper_rule_differs_from_the_reference_rule_past_the_first_doubling() {
    let (reference, paper) = (report(Rule::Reference), report(Rule::Paper));
    let at = |r: &TableReport, bench: &str, units: u32| {
        r.predictions
            .iter()
            .find(|p| p.benchmark == bench && p.units == units && p.model == Method::ScaleModel)
            .map(|p| p.predicted_ipc)
            .expect("row")
    };
    let (s, l) = (128.2682, 253.5591);
    let (c, b) = ((l / s) / 2.0, (l - 2.0 * s) / l);
    // One doubling: the paper's C = r against the tool's 1 + b = 2 − 1/r
    // (r = IPC_L / 2·IPC_S), equal to first order in 1 − r.
    assert!((at(&paper, "bs", 32) - l * 2.0 * c).abs() < 1e-9);
    assert!((at(&reference, "bs", 32) - l * 2.0 * (1.0 + b)).abs() < 1e-9);
    // The paper rule applies C once however far it goes: bs at 128 = IPC_L · 8 · C;
    // the tool's compounds: IPC_L · 8 · (1 + b)^(1 + 2 + 3).
    assert!((at(&paper, "bs", 128) - l * 8.0 * c).abs() < 1e-6);
    assert!((at(&reference, "bs", 128) - l * 8.0 * (1.0 + b).powi(6)).abs() < 1e-6);
    assert!(at(&paper, "bs", 128) > at(&reference, "bs", 128));
    // dct's cliff at 128 under the paper rule: IPC_L · 128/16 / (1 − 0.52).
    assert!((at(&paper, "dct", 128) - 226.4367 * 8.0 / 0.48).abs() < 1e-6);
    assert_eq!(paper.predictions.iter().filter(|p| p.role == Role::ScaleModel).count(), 16 * 5 * 2);
}

#[wasm_bindgen_test(unsupported = test)]
fn the_json_uses_the_reference_labels() {
    let json = serde_json::to_value(report(Rule::Reference)).expect("serializes");
    let first = &json["predictions"][0];
    assert_eq!((first["benchmark"].as_str(), first["role"].as_str()), (Some("unet"), Some("scale_model")));
    assert_eq!(first["model"].as_str(), Some("Scale-Model"));
    let labels: Vec<&str> =
        json["summary"].as_array().expect("array").iter().filter_map(|s| s["model"].as_str()).collect();
    assert!(["Scale-Model", "PowerLaw", "Linear", "Logarithmic", "Proportional"].iter().all(|l| labels.contains(l)));
    assert!(json["summary"][0]["target_units"].is_u64() && json["summary"][0]["mean_err_pct"].is_f64());
}
