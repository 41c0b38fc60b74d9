//! The body of the `table_reader` fuzz target in `fuzz/`, here so that the
//! fuzzer and the test that replays its corpus run the same code.

use crate::predictor::{Method, Rule};
use crate::table::Table;

/// Reads `data` as a scale-model table and, when it reads, evaluates it with
/// both rules. Either step may refuse with a one-line error; neither may
/// panic, and an accepted table's predictions must be one row per method,
/// benchmark and size. Returns whether the table was evaluated.
///
/// # Panics
/// When one of those properties fails: that is the fuzzer's finding.
pub fn table_reader(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    let table = match Table::read("fuzz.csv", &text) {
        Ok(table) => table,
        Err(error) => {
            assert!(!error.to_string().contains('\n'), "one-line messages: {error}");
            return false;
        }
    };
    let mut evaluated = false;
    for rule in [Rule::Reference, Rule::Paper] {
        match table.evaluate("fuzz.csv", rule) {
            Ok(report) => {
                let rows: usize = table.benchmarks.iter().map(|b| b.sizes.len()).sum();
                assert_eq!(report.predictions.len(), rows * Method::ALL.len());
                evaluated = true;
            }
            Err(error) => assert!(!error.to_string().contains('\n'), "one-line messages: {error}"),
        }
    }
    evaluated
}
