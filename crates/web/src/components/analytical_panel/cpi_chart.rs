//! The models' CPI stacks as one stacked bar each, on a shared axis so the
//! bars' lengths compare.

use warplab_lab::{AnalyticalReport, CPI_TERMS, CpiStack};

use super::model_table::shown_models;

use crate::components::chart::{BarChart, BarRow, BarScale, Frame, Series};
use crate::format;
use crate::glossary;
use crate::palette::Concept;

/// The bars' series: the CPI stack's terms, in the order of [`terms`], but
/// the kernel's start as one (the launch latency, and the core model's wait
/// for its cold code: both once per kernel, before any warp issues).
const CHART_SERIES: usize = CPI_TERMS - 1;

/// The CPI stack's terms, in the order of [`terms`].
/// `pending`, `barrier` and `exit` are the warplab core model's only; the
/// six after `dram` are the floors of "MDM + limits" and the core model, zero
/// for the others.
pub const CPI_SERIES: [Series; CHART_SERIES] = [
    Series { name: "base", concept: Concept::Issuing, explain: glossary::CPI_BASE },
    Series { name: "issue", concept: Concept::WaitingOnResult, explain: glossary::CPI_ISSUE },
    Series { name: "in-flight fill", concept: Concept::PendingFill, explain: glossary::CPI_PENDING },
    Series { name: "barrier", concept: Concept::AtBarrier, explain: glossary::CPI_BARRIER },
    Series { name: "stores at exit", concept: Concept::Done, explain: glossary::CPI_EXIT },
    Series { name: "mshr", concept: Concept::Mshr, explain: glossary::CPI_MSHR },
    Series { name: "noc", concept: Concept::Crossbar, explain: glossary::CPI_NOC },
    Series { name: "dram", concept: Concept::DramQueue, explain: glossary::CPI_DRAM },
    Series { name: "LD/ST unit", concept: Concept::LdstUnit, explain: glossary::CPI_LDST },
    Series { name: "units", concept: Concept::UnitBusy, explain: glossary::CPI_UNITS },
    Series { name: "L2 slice", concept: Concept::L2, explain: glossary::CPI_L2_SLICE },
    Series { name: "NoC bandwidth", concept: Concept::NocBandwidth, explain: glossary::CPI_NOC_BANDWIDTH },
    Series { name: "DRAM bandwidth", concept: Concept::DramBandwidth, explain: glossary::CPI_DRAM_BANDWIDTH },
    Series { name: "slowest warp", concept: Concept::SlowestWarp, explain: glossary::CPI_SLOWEST_WARP },
    Series { name: "kernel start", concept: Concept::Launch, explain: glossary::CPI_LAUNCH },
];

/// One bar per model shown (the paper's only when `paper_only`), simplest first.
pub fn cpi_chart(report: &AnalyticalReport, paper_only: bool) -> BarChart<'static> {
    let rows = shown_models(paper_only).filter_map(|model| {
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

/// The stack's terms in the order of [`CPI_SERIES`] (`CpiStack::terms`',
/// its last two, the cold code and the launch, as one); a negative or NaN
/// term (which no model should give) is drawn as nothing rather than
/// bending the bar.
fn terms(stack: &CpiStack) -> [f64; CHART_SERIES] {
    let shown = |t: f64| if t > 0.0 { t } else { 0.0 };
    let all = stack.terms();
    let mut out: [f64; CHART_SERIES] = std::array::from_fn(|i| shown(all[i]));
    out[CHART_SERIES - 1] = shown(stack.fetch) + shown(stack.launch);
    out
}

#[cfg(test)]
mod tests {
    use warplab_lab::{ModelKind, Prediction};

    use super::*;

    #[test]
    fn one_bar_per_model_with_the_terms_in_series_order() {
        let cpi_stack = CpiStack {
            base: 0.25,
            issue: 1.0,
            pending: 0.75,
            mshr: 2.0,
            noc: 0.5,
            dram: f64::NAN,
            ldst: 3.0,
            slowest_warp: 4.0,
            launch: -1.0,
            ..CpiStack::default()
        };
        let prediction = Prediction { cpi_stack, ..Prediction::default() };
        let report = AnalyticalReport {
            models: ModelKind::ALL.into_iter().map(|m| (m, prediction)).collect(),
            ..AnalyticalReport::default()
        };
        let chart = cpi_chart(&report, false);
        assert_eq!(chart.rows.len(), ModelKind::ALL.len());
        assert_eq!(cpi_chart(&report, true).rows.len(), 5, "the MDM paper's five");
        assert_eq!(chart.rows[0].values, [0.25, 1.0, 0.75, 0.0, 0.0, 2.0, 0.5, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 4.0, 0.0]);
        assert_eq!(chart.rows[0].label, "GPUMech: CPI –", "a NaN total reads as no number");
        assert!(chart.rows[4].label.starts_with("MDM: "));
        assert!(chart.rows[7].label.starts_with("warplab core model: "));
        assert_eq!(CPI_SERIES[2].name, "in-flight fill", "the core model's term after issue");
        assert!(cpi_chart(&AnalyticalReport::default(), false).rows.is_empty());
    }
}
