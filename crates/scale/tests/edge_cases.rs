//! Inputs the predictor refuses: each is an error naming what is wrong, never
//! a number (issue 8's edge cases), and tables that cannot be read name the
//! file, line and column.

use warplab_scale::{Inputs, Rule, ScaleError, Table, predict};
use wasm_bindgen_test::wasm_bindgen_test;

fn inputs(sizes: &[u32], ipc: [f64; 2], mpki: &[f64], f_mem: Option<f64>) -> Inputs {
    Inputs { sizes: sizes.to_vec(), ipc, mpki: Some(mpki.to_vec()), f_mem }
}

fn error(i: &Inputs) -> ScaleError {
    predict(i, Rule::Reference).expect_err("refused")
}

#[wasm_bindgen_test(unsupported = test)]
fn fewer_than_two_sizes() {
    assert_eq!(error(&inputs(&[8], [1.0, 2.0], &[1.0], None)), ScaleError::TooFewSizes { given: 1 });
    assert_eq!(Inputs::doubling(8, [1.0, 2.0], vec![], None), Err(ScaleError::TooFewSizes { given: 0 }));
}

#[wasm_bindgen_test(unsupported = test)]
fn sizes_that_do_not_double() {
    let e = error(&inputs(&[8, 16, 48], [1.0, 2.0], &[1.0; 3], None));
    assert_eq!(e, ScaleError::NotDoubling { previous: 16, size: 48 });
    assert_eq!(e.to_string(), "sizes must double: 48 follows 16, expected 32");
    assert_eq!(error(&inputs(&[0, 0], [1.0, 2.0], &[1.0; 2], None)), ScaleError::ZeroSize);
}

#[wasm_bindgen_test(unsupported = test)]
fn zero_mpki_where_the_cliff_ratio_needs_it() {
    let e = error(&inputs(&[8, 16, 32, 64, 128], [100.0, 190.0], &[6.0, 6.0, 6.0, 6.0, 0.0], Some(0.5)));
    assert_eq!(e, ScaleError::ZeroMpki { size: 128 });
    assert!(e.to_string().contains("MPKI at 128 is zero"));
}

#[wasm_bindgen_test(unsupported = test)]
fn f_mem_of_one_or_more() {
    for value in [1.0, 1.5, -0.1, f64::NAN] {
        let e = error(&inputs(&[8, 16, 32], [100.0, 190.0], &[1.0; 3], Some(value)));
        assert!(matches!(e, ScaleError::BadFmem { .. }), "{value}: {e}");
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn a_zero_or_negative_ipc() {
    assert_eq!(error(&inputs(&[8, 16, 32], [0.0, 190.0], &[1.0; 3], None)), ScaleError::BadIpc { size: 8, value: 0.0 });
    let e = error(&inputs(&[8, 16, 32], [100.0, -1.0], &[1.0; 3], None));
    assert_eq!(e, ScaleError::BadIpc { size: 16, value: -1.0 });
}

#[wasm_bindgen_test(unsupported = test)]
fn a_cliff_without_f_mem_and_other_mismatches() {
    let dct = [6.166853365, 6.178722328, 6.162565976, 5.524311167, 0.1004975147];
    let e = error(&inputs(&[8, 16, 32, 64, 128], [112.7412, 226.4367], &dct, None));
    assert_eq!(e, ScaleError::MissingFmem { from: 64, to: 128 });
    assert_eq!(error(&inputs(&[8, 16, 32], [1.0, 2.0], &[1.0; 2], None)), ScaleError::MpkiCount { sizes: 3, mpki: 2 });
    let e = error(&inputs(&[8, 16], [1.0, 2.0], &[1.0, -2.0], None));
    assert_eq!(e, ScaleError::BadMpki { size: 16, value: -2.0 });
    assert!(matches!(Inputs::doubling(8, [1.0, 2.0], vec![1.0; 17], None), Err(ScaleError::TooManySizes { .. })));
}

#[wasm_bindgen_test(unsupported = test)]
fn f_mem_is_used_only_at_a_cliff() {
    let flat = inputs(&[8, 16, 32], [100.0, 190.0], &[1.0; 3], Some(0.9));
    let with = predict(&flat, Rule::Reference).expect("predicts");
    let without = predict(&Inputs { f_mem: None, ..flat }, Rule::Reference).expect("predicts");
    assert_eq!((with.cliff, with.f_mem), (None, None));
    assert_eq!(with.curves, without.curves);
}

#[wasm_bindgen_test(unsupported = test)]
fn without_a_curve_only_the_pre_cliff_rule_extrapolates() {
    // dct's published MPKI has a cliff at 128 SMs; without the curve (weak
    // scaling) the same two scale models extrapolate straight through it.
    let dct = [15.6, 15.6, 15.6, 15.6, 1.5];
    let with = predict(&inputs(&[8, 16, 32, 64, 128], [112.7412, 226.4367], &dct, Some(0.5)), Rule::Paper).expect("ok");
    assert!(with.cliff.is_some());
    let weak = Inputs::without_curve(8, 5, [112.7412, 226.4367]).expect("valid");
    assert_eq!(weak.sizes, [8, 16, 32, 64, 128]);
    for rule in [Rule::Paper, Rule::Reference] {
        let p = predict(&weak, rule).expect("predicts without f_mem");
        assert_eq!((p.cliff, p.f_mem), (None, None));
        let flat = predict(&inputs(&weak.sizes, weak.ipc, &[1.0; 5], None), rule).expect("no cliff");
        assert_eq!(p.curves, flat.curves, "{rule:?}: the same as a curve without a cliff");
    }
    assert!(matches!(Inputs::without_curve(8, 17, [1.0, 2.0]), Err(ScaleError::TooManySizes { .. })));
    assert!(matches!(Inputs::without_curve(8, 1, [1.0, 2.0]), Err(ScaleError::TooFewSizes { given: 1 })));
}

fn table_error(text: &str) -> String {
    Table::read("t.csv", text).expect_err("refused").to_string()
}

#[wasm_bindgen_test(unsupported = test)]
fn tables_name_file_line_and_column() {
    let head = "benchmark,num_sms,ipc,mpki\n";
    assert_eq!(table_error(""), "t.csv:1: header: the file is empty");
    assert_eq!(table_error("benchmark,ipc,mpki\n"), "t.csv:1: header: no `num_sms` or `num_chiplets` column");
    assert_eq!(table_error(&format!("{head}a,8,x,1\n")), "t.csv:2: ipc: `x` is not a number");
    assert_eq!(
        table_error(&format!("{head}a,8,1,1\na,0,1,1\n")),
        "t.csv:3: num_sms: `0` is not a positive whole number"
    );
    assert_eq!(table_error(&format!("{head}a,8,1\n")), "t.csv:2: row: 3 fields; the header has 4");
    assert_eq!(table_error(&format!("{head}a,8,0,1\n")), "t.csv:2: ipc: `0` is not a positive number");
    assert_eq!(table_error(&format!("{head}a,8,1,-1\n")), "t.csv:2: mpki: `-1` is not a number >= 0");
    assert_eq!(
        table_error(&format!("{head}a,8,1,1\na,32,1,1\n")),
        "t.csv:3: benchmark a: num_sms: no row at 16 (sizes double from the file's smallest, 8)"
    );
    assert_eq!(table_error(&format!("{head}a,8,1,1\na,8,2,1\n")), "t.csv:3: benchmark a: num_sms: a second row at 8");
    let fmem = "benchmark,num_chiplets,ipc,mpki,fmem_pct\n";
    assert_eq!(
        table_error(&format!("{fmem}a,4,1,1,100\n")),
        "t.csv:2: fmem_pct: `100` is not a percentage in [0, 100)"
    );
    assert_eq!(
        table_error(&format!("{fmem}a,4,1,1,5\na,8,2,1,6\n")),
        "t.csv:3: benchmark a: fmem_pct: differs from the benchmark's first value"
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn a_benchmark_the_predictor_refuses_is_named() {
    let text = "benchmark,num_chiplets,ipc,mpki\nok,4,10,1\nok,8,19,1\nok,16,30,1\n\
                cliff,4,10,0.1\ncliff,8,19,0.1\ncliff,16,30,0.1\ncliff,32,90,0.001\n";
    let table = Table::read("chiplets.csv", text).expect("reads");
    assert_eq!(table.units.name(), "chiplets");
    let e = table.evaluate("chiplets.csv", Rule::Reference).expect_err("a cliff without f_mem").to_string();
    assert_eq!(
        e,
        "chiplets.csv: benchmark cliff: a cliff is expected from 16 to 32: the cliff formula needs f_mem of the larger scale model"
    );
}
