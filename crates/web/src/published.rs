//! The scale-model paper's published benchmarks, bundled into the app so a
//! class can reproduce the paper's accuracy figure in the browser with no
//! download and no worker: the predictor takes microseconds, so the page
//! evaluates the table itself when asked.
//!
//! Provenance: `crates/scale/test_data/single_strong_scaling.csv` (see the
//! README beside it), a byte copy of the sheet `singleStrongScaling` of
//! `scale_model_data.xlsx` in github.com/scaleDownGPU/scaleModel at
//! `b96bdc0bd966599dd383af09f27a33dfd79ead7e`: the published data of
//! SeyyedAghaei, Naderan-Tahan and Eeckhout, "GPU Scale-Model Simulation",
//! HPCA 2024 — 16 benchmarks at 8 to 128 SMs, their IPC and L2 MPKI from
//! Accel-Sim, and f_mem for dct, the one benchmark with a cliff. Published
//! numbers (facts), not code.

use warplab_lab::scale::{Rule, Table, TableReport};

/// The file's name, as errors and the page cite it.
pub const PUBLISHED_FILE: &str = "single_strong_scaling.csv";

/// The published table, as the scale crate's tests read it.
const PUBLISHED_CSV: &str = include_str!("../../scale/test_data/single_strong_scaling.csv");

/// The benchmarks and every method's predictions of them under both rules.
#[derive(Debug, Clone, PartialEq)]
pub struct Published {
    /// The benchmarks as published.
    pub table: Table,
    /// The predictions and the error summary with the reference tool's rule.
    pub reference: TableReport,
    /// The same with the paper's printed rule.
    pub paper: TableReport,
}

impl Published {
    /// Reads and evaluates the bundled table.
    ///
    /// # Errors
    /// Never for the bundled file (a test reads it), but the page shows a
    /// message rather than trusting that.
    pub fn load() -> Result<Self, String> {
        let table = Table::read(PUBLISHED_FILE, PUBLISHED_CSV).map_err(|e| e.to_string())?;
        let evaluate = |rule| table.evaluate(PUBLISHED_FILE, rule).map_err(|e| e.to_string());
        Ok(Self { reference: evaluate(Rule::Reference)?, paper: evaluate(Rule::Paper)?, table })
    }

    /// The predictions and summary under `rule`.
    pub fn report(&self, rule: Rule) -> &TableReport {
        match rule {
            Rule::Reference => &self.reference,
            Rule::Paper => &self.paper,
        }
    }
}

#[cfg(test)]
mod tests {
    use warplab_lab::scale::Method;

    use super::*;

    #[test]
    fn the_bundled_table_reproduces_the_published_summary() {
        let published = Published::load().expect("the bundled table reads");
        assert_eq!(published.table.benchmarks.len(), 16);
        let at_128 =
            published.reference.summary.iter().find(|r| r.model == Method::ScaleModel && r.target_units == 128);
        let at_128 = at_128.map(|r| (format!("{:.2}", r.mean_err_pct), format!("{:.2}", r.max_err_pct)));
        assert_eq!(at_128, Some(("3.23".to_owned(), "8.25".to_owned())));
        assert_ne!(published.paper.summary, published.reference.summary, "the rules differ");
    }
}
