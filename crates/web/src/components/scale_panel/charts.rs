//! The scale panel's two charts, built the same way for a run in the worker
//! and for a published benchmark: the scaling chart (IPC against SMs: the
//! scale models, every method's prediction, the simulated truth) and the
//! miss-rate curve with its cliff.

use warplab_lab::scale::{Cliff, Method, Prediction};

use crate::components::chart::{Band, Frame, Line, LineChart, LineStyle, Marker};
use crate::glossary;
use crate::palette::Concept;

/// Where a chart's data comes from, for its test ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A run of the loaded workload in the worker.
    Run,
    /// A published benchmark.
    Published,
}

/// What the scaling chart shows.
pub struct Scaling<'a> {
    /// Every method at every size.
    pub prediction: &'a Prediction,
    /// The two scale models' simulated `(SMs, IPC)`.
    pub scale_models: Vec<(u32, f64)>,
    /// Simulated `(SMs, IPC)` beyond them, where known.
    pub truth: Vec<(u32, f64)>,
}

/// How each method's line looks: its own colour, dash and width, so the
/// five read apart in greyscale too; the scale model's is the boldest, and
/// the only one in a hue (the simpler fits are greys, so no colour of the
/// machine's concepts means a fit here).
pub fn method_style(method: Method) -> LineStyle {
    let (concept, dash, width, explain) = match method {
        Method::ScaleModel => (Concept::ScaleModel, None, 2.5, glossary::METHOD_SCALE_MODEL),
        Method::PowerLaw => (Concept::PowerLaw, Some("7 4"), 1.75, glossary::METHOD_POWER_LAW),
        Method::Linear => (Concept::Linear, Some("2 3"), 2.0, glossary::METHOD_LINEAR),
        Method::Logarithmic => (Concept::Logarithmic, Some("9 3 2 3"), 1.75, glossary::METHOD_LOGARITHMIC),
        Method::Proportional => (Concept::Proportional, Some("14 5"), 1.5, glossary::METHOD_PROPORTIONAL),
    };
    LineStyle { name: method.label(), concept, dash, width, marker: Marker::Dot, explain }
}

/// The simulated truth: black squares joined by a thin line.
const TRUTH: LineStyle = LineStyle {
    name: "Simulated",
    concept: Concept::Simulated,
    dash: None,
    width: 1.0,
    marker: Marker::Square,
    explain: glossary::SIMULATED_TRUTH,
};

/// The scale models: simulated too, so in the simulation's colour, as large
/// dots, not joined.
const SCALE_MODELS: LineStyle = LineStyle {
    name: "Scale models (simulated)",
    concept: Concept::Simulated,
    dash: Some(""),
    width: 0.0,
    marker: Marker::Big,
    explain: glossary::SCALE_MODEL_POINTS,
};

/// The miss-rate curve's line: L2 misses, in the L2's colour.
const MPKI: LineStyle = LineStyle {
    name: "L2 MPKI",
    concept: Concept::L2,
    dash: None,
    width: 2.0,
    marker: Marker::Dot,
    explain: glossary::SCALE_MPKI,
};

/// IPC against SMs: the baselines under the scale model's line, the truth
/// and the scale models on top; the cliff shaded.
pub fn scaling_chart(source: Source, scaling: &Scaling) -> LineChart {
    let prediction = scaling.prediction;
    let sizes = || prediction.sizes.iter().map(|&s| f64::from(s));
    let mut lines: Vec<Line> = Method::ALL
        .into_iter()
        .rev()
        .filter_map(|method| {
            let curve = prediction.curves.iter().find(|c| c.method == method)?;
            Some(Line { style: method_style(method), points: sizes().zip(curve.ipc.iter().copied()).collect() })
        })
        .collect();
    let points = |runs: &[(u32, f64)]| runs.iter().map(|&(sms, ipc)| (f64::from(sms), ipc)).collect();
    lines.push(Line { style: TRUTH, points: points(&scaling.truth) });
    lines.push(Line { style: SCALE_MODELS, points: points(&scaling.scale_models) });
    let testid = match source {
        Source::Run => "scale-chart",
        Source::Published => "published-scale-chart",
    };
    LineChart {
        frame: Frame {
            testid,
            title: "IPC against SM count",
            explain: glossary::SCALING_CHART,
            empty: "No data: the scale models issued no instructions.",
        },
        lines,
        bands: prediction.cliff.map(cliff_band).into_iter().collect(),
        x_axis: "SMs (log scale: each step doubles)",
        x_unit: "SMs",
        y_axis: "IPC (thread instructions / cycle)",
        y_unit: "IPC",
    }
}

/// L2 MPKI against SMs, the cliff shaded.
pub fn miss_curve_chart(source: Source, sizes: &[u32], mpki: &[f64], cliff: Option<Cliff>) -> LineChart {
    let points = sizes.iter().zip(mpki).map(|(&sms, &m)| (f64::from(sms), m)).collect();
    let testid = match source {
        Source::Run => "miss-curve",
        Source::Published => "published-miss-curve",
    };
    LineChart {
        frame: Frame {
            testid,
            title: "L2 miss-rate curve",
            explain: glossary::MISS_CURVE,
            empty: "No data: the workload made no L2 accesses.",
        },
        lines: vec![Line { style: MPKI, points }],
        bands: cliff.map(cliff_band).into_iter().collect(),
        x_axis: "SMs, with the L2 scaled alike (log scale)",
        x_unit: "SMs",
        y_axis: "L2 misses / 1,000 instructions",
        y_unit: "MPKI",
    }
}

/// The band across which the MPKI drops.
fn cliff_band(cliff: Cliff) -> Band {
    Band {
        from: f64::from(cliff.from),
        to: f64::from(cliff.to),
        label: format!("cliff {}→{} SMs", cliff.from, cliff.to),
        explain: glossary::CLIFF,
    }
}

#[cfg(test)]
mod tests {
    use warplab_lab::scale::{Curve, Rule};

    use super::*;

    #[test]
    fn every_method_has_its_own_dash_and_colour() {
        let styles: Vec<LineStyle> = Method::ALL.into_iter().map(method_style).collect();
        for (i, a) in styles.iter().enumerate() {
            for b in &styles[i + 1..] {
                assert!(a.concept != b.concept && a.dash != b.dash, "{} and {} look alike", a.name, b.name);
            }
        }
    }

    #[test]
    fn the_scaling_chart_draws_the_methods_then_the_truth_and_the_scale_models() {
        let curves = Method::ALL.into_iter().map(|method| Curve { method, ipc: vec![1.0, 2.0, 3.0] }).collect();
        let cliff = Some(Cliff { index: 2, from: 16, to: 32 });
        let prediction = Prediction {
            sizes: vec![8, 16, 32],
            rule: Rule::Reference,
            cliff,
            f_mem: Some(0.5),
            shortfall: 0.0,
            curves,
        };
        let scaling =
            Scaling { prediction: &prediction, scale_models: vec![(8, 1.0), (16, 2.0)], truth: vec![(32, 2.5)] };
        let chart = scaling_chart(Source::Run, &scaling);
        let names: Vec<&str> = chart.lines.iter().map(|line| line.style.name).collect();
        assert_eq!(
            names,
            [
                "Proportional",
                "Logarithmic",
                "Linear",
                "PowerLaw",
                "Scale-Model",
                "Simulated",
                "Scale models (simulated)"
            ]
        );
        assert_eq!(chart.lines[5].points, [(32.0, 2.5)]);
        assert_eq!(chart.bands[0].label, "cliff 16→32 SMs");
        assert_eq!(
            miss_curve_chart(Source::Published, &[8, 16], &[2.0, 1.0], None).lines[0].points,
            [(8.0, 2.0), (16.0, 1.0)]
        );
    }
}
