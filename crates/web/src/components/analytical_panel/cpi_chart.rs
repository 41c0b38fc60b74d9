//! The models' CPI stacks as one stacked bar each, on a shared axis so the
//! bars' lengths compare.

use warplab_lab::{AnalyticalReport, CpiStack, ModelKind};

use crate::components::chart::{
    BLUISH_GREEN, BarChart, BarRow, BarScale, Frame, GREY, ORANGE, REDDISH_PURPLE, SKY_BLUE, Series, VERMILLION,
};
use crate::format;
use crate::glossary;

/// The CPI stack's terms, in the order of [`terms`].
pub const CPI_SERIES: [Series; 6] = [
    Series { name: "base", swatch: BLUISH_GREEN, explain: glossary::CPI_BASE },
    Series { name: "issue", swatch: ORANGE, explain: glossary::CPI_ISSUE },
    Series { name: "mshr", swatch: REDDISH_PURPLE, explain: glossary::CPI_MSHR },
    Series { name: "noc", swatch: SKY_BLUE, explain: glossary::CPI_NOC },
    Series { name: "dram", swatch: VERMILLION, explain: glossary::CPI_DRAM },
    Series { name: "launch", swatch: GREY, explain: glossary::CPI_LAUNCH },
];

/// One bar per model, simplest first.
pub fn cpi_chart(report: &AnalyticalReport) -> BarChart<'static> {
    let rows = ModelKind::ALL.into_iter().filter_map(|model| {
        let stack = report.models.get(&model)?.cpi_stack;
        let label = format!("{}: CPI {}", model.label(), format::decimal(stack.total()));
        Some(BarRow { label, values: terms(&stack).to_vec() })
    });
    BarChart {
        frame: Frame {
            testid: "cpi-chart",
            title: "CPI stacks",
            explain: glossary::CPI_STACK,
            empty: "No data: the workload issued no instructions.",
        },
        series: &CPI_SERIES,
        rows: rows.collect(),
        scale: BarScale::Values { unit: "SM cycles per warp instruction", decimals: 2 },
        axis: "SM cycles per warp instruction (CPI)",
    }
}

/// The stack's terms in the order of [`CPI_SERIES`] (`CpiStack::terms`'); a
/// negative or NaN term (which no model should give) is drawn as nothing
/// rather than bending the bar.
fn terms(stack: &CpiStack) -> [f64; 6] {
    stack.terms().map(|t| if t > 0.0 { t } else { 0.0 })
}

#[cfg(test)]
mod tests {
    use warplab_lab::Prediction;

    use super::*;

    #[test]
    fn one_bar_per_model_with_the_terms_in_series_order() {
        let cpi_stack = CpiStack { base: 0.25, issue: 1.0, mshr: 2.0, noc: 0.5, dram: f64::NAN, launch: -1.0 };
        let prediction = Prediction { cpi_stack, ..Prediction::default() };
        let report = AnalyticalReport {
            models: ModelKind::ALL.into_iter().map(|m| (m, prediction)).collect(),
            ..AnalyticalReport::default()
        };
        let chart = cpi_chart(&report);
        assert_eq!(chart.rows.len(), 5);
        assert_eq!(chart.rows[0].values, [0.25, 1.0, 2.0, 0.5, 0.0, 0.0]);
        assert_eq!(chart.rows[0].label, "GPUMech: CPI –", "a NaN total reads as no number");
        assert!(chart.rows[4].label.starts_with("MDM: "));
        assert!(cpi_chart(&AnalyticalReport::default()).rows.is_empty());
    }
}
