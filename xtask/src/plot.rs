//! Hand-written SVG line charts for the docs: a row of panels sharing an x
//! axis (log-scaled, for knobs that double) and a legend, one line per series
//! in the Okabe–Ito palette, so the lines stay distinguishable with the
//! common kinds of colour blindness.

use std::fmt::Write as _;

/// Series colours in order: Okabe–Ito's black for the first (the reference,
/// drawn thicker), then its orange, sky blue, bluish green, reddish purple,
/// vermillion, blue and yellow (last: it reads poorly on white).
const COLOURS: [&str; 8] = ["#000000", "#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#D55E00", "#0072B2", "#F0E442"];

const PANEL_WIDTH: f64 = 320.0;
const PANEL_HEIGHT: f64 = 300.0;
/// Room left of a panel's plot area for the tick labels (and the y label).
const LEFT: f64 = 78.0;
const RIGHT: f64 = 14.0;
/// Room above a panel's plot area for its title.
const TOP: f64 = 30.0;
/// Room below for the tick labels and the x label.
const BOTTOM: f64 = 56.0;
/// The chart's title and legend rows.
const HEADER: f64 = 64.0;

/// One line.
pub struct Series {
    pub label: String,
    /// `(x, y)` in the data's units.
    pub points: Vec<(f64, f64)>,
}

/// One plot area with its own y scale.
pub struct Panel {
    pub title: String,
    pub series: Vec<Series>,
}

/// Panels side by side; every panel has the same series in the same order.
pub struct Chart {
    pub title: String,
    /// With its unit.
    pub x_label: String,
    /// With its unit.
    pub y_label: String,
    /// The x ticks (positive: the axis is logarithmic).
    pub x_values: Vec<f64>,
    pub panels: Vec<Panel>,
}

impl Chart {
    /// The chart as a standalone SVG document.
    pub fn svg(&self) -> String {
        let width = LEFT + self.panels.len() as f64 * PANEL_WIDTH + RIGHT;
        let height = HEADER + PANEL_HEIGHT;
        let mut out = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"12\">\n\
             <rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n\
             <text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">{}</text>\n",
            width / 2.0,
            escape(&self.title)
        );
        self.legend(&mut out, width);
        for (i, panel) in self.panels.iter().enumerate() {
            self.panel(&mut out, panel, LEFT + i as f64 * PANEL_WIDTH, i == 0);
        }
        out.push_str("</svg>\n");
        out
    }

    /// One swatch and label per series, centred under the title.
    fn legend(&self, out: &mut String, width: f64) {
        let Some(first) = self.panels.first() else { return };
        let entry = 110.0;
        let start = (width - entry * first.series.len() as f64) / 2.0;
        for (i, series) in first.series.iter().enumerate() {
            let x = start + entry * i as f64;
            let _ = writeln!(
                out,
                "<line x1=\"{x}\" y1=\"44\" x2=\"{}\" y2=\"44\" stroke=\"{}\" stroke-width=\"{}\"{}/><circle cx=\"{}\" cy=\"44\" r=\"3\" fill=\"{}\"/><text x=\"{}\" y=\"48\">{}</text>",
                x + 24.0,
                colour(i),
                stroke_width(i),
                dash(i),
                x + 12.0,
                colour(i),
                x + 30.0,
                escape(&series.label)
            );
        }
    }

    /// A panel whose plot area starts at `left`.
    fn panel(&self, out: &mut String, panel: &Panel, left: f64, with_y_label: bool) {
        let (x0, x1) = (left, left + PANEL_WIDTH - LEFT * 0.5);
        let (y0, y1) = (HEADER + TOP, HEADER + PANEL_HEIGHT - BOTTOM);
        let (log_min, log_max) = self.x_range();
        let x_at = |x: f64| x0 + (x.log2() - log_min) / (log_max - log_min) * (x1 - x0);
        let y_max =
            panel.series.iter().flat_map(|s| &s.points).map(|p| p.1).filter(|y| y.is_finite()).fold(0.0, f64::max);
        let (step, top) = ticks(y_max);
        let y_at = |y: f64| y1 - y / top * (y1 - y0);
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-weight=\"bold\">{}</text>",
            (x0 + x1) / 2.0,
            HEADER + TOP - 10.0,
            escape(&panel.title)
        );
        // Grid and y ticks.
        let mut y = 0.0;
        while y <= top * (1.0 + 1e-9) {
            let py = y_at(y);
            let _ = writeln!(
                out,
                "<line x1=\"{x0}\" y1=\"{py:.1}\" x2=\"{x1}\" y2=\"{py:.1}\" stroke=\"#dddddd\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                x0 - 6.0,
                py + 4.0,
                format_tick(y, step)
            );
            y += step;
        }
        for &x in &self.x_values {
            let px = x_at(x);
            let _ = writeln!(
                out,
                "<line x1=\"{px:.1}\" y1=\"{y1}\" x2=\"{px:.1}\" y2=\"{}\" stroke=\"#000000\"/><text x=\"{px:.1}\" y=\"{}\" text-anchor=\"middle\">{x}</text>",
                y1 + 5.0,
                y1 + 18.0
            );
        }
        let _ = writeln!(
            out,
            "<polyline points=\"{x0},{y0} {x0},{y1} {x1},{y1}\" fill=\"none\" stroke=\"#000000\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            (x0 + x1) / 2.0,
            y1 + 40.0,
            escape(&self.x_label)
        );
        if with_y_label {
            let (cx, cy) = (x0 - 56.0, (y0 + y1) / 2.0);
            let _ = writeln!(
                out,
                "<text x=\"{cx}\" y=\"{cy}\" text-anchor=\"middle\" transform=\"rotate(-90 {cx} {cy})\">{}</text>",
                escape(&self.y_label)
            );
        }
        // The reference last, so it is drawn on top.
        for (i, series) in panel.series.iter().enumerate().rev() {
            let points: Vec<_> = series
                .points
                .iter()
                .filter(|p| p.1.is_finite())
                .map(|&(x, y)| format!("{:.1},{:.1}", x_at(x), y_at(y)))
                .collect();
            let _ = write!(
                out,
                "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{}/>",
                points.join(" "),
                colour(i),
                stroke_width(i),
                dash(i)
            );
            for point in &points {
                let (px, py) = point.split_once(',').expect("formatted as x,y");
                let _ = write!(out, "<circle cx=\"{px}\" cy=\"{py}\" r=\"3\" fill=\"{}\"/>", colour(i));
            }
            out.push('\n');
        }
    }

    /// The x axis's extent in log2 units, with a margin of a third of a doubling.
    fn x_range(&self) -> (f64, f64) {
        let logs = self.x_values.iter().map(|x| x.log2());
        let min = logs.clone().fold(f64::INFINITY, f64::min);
        let max = logs.fold(f64::NEG_INFINITY, f64::max);
        if min < max { (min - 0.3, max + 0.3) } else { (min - 1.0, min + 1.0) }
    }
}

fn colour(series: usize) -> &'static str {
    COLOURS[series % COLOURS.len()]
}

fn stroke_width(series: usize) -> f64 {
    if series == 0 { 3.0 } else { 1.8 }
}

/// The third and fourth series are dashed. Lines are drawn last series
/// first, so when one of these gives the same figures as a later series
/// (GPUMech+ and MDM-MSHR, MDM-Queue and MDM often do) the line underneath
/// shows through the gaps.
fn dash(series: usize) -> &'static str {
    if (2..=3).contains(&series) { " stroke-dasharray=\"7 4\"" } else { "" }
}

/// A tick step of 1, 2 or 5 × 10^k giving four to eight ticks up to at least
/// `max`, and the axis top (a multiple of the step).
fn ticks(max: f64) -> (f64, f64) {
    if max <= 0.0 {
        return (1.0, 1.0);
    }
    let rough = max / 5.0;
    let magnitude = 10f64.powf(rough.log10().floor());
    let step =
        [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * magnitude).find(|s| max / s <= 8.0).unwrap_or(10.0 * magnitude);
    (step, (max / step).ceil().max(1.0) * step)
}

fn format_tick(value: f64, step: f64) -> String {
    if step >= 1.0 { format!("{value:.0}") } else { format!("{value:.*}", (-step.log10().floor()) as usize) }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_maximum() {
        assert_eq!(ticks(466.1), (100.0, 500.0));
        assert_eq!(ticks(110.6), (20.0, 120.0));
        assert_eq!(ticks(0.7), (0.1, 0.7000000000000001));
        assert_eq!(ticks(0.0), (1.0, 1.0));
        assert_eq!(format_tick(0.2, 0.1), "0.2");
    }

    #[test]
    fn a_chart_is_one_svg_with_a_line_per_series_per_panel() {
        let series = |label: &str| Series { label: label.to_owned(), points: vec![(32.0, 1.0), (64.0, 2.0)] };
        let chart = Chart {
            title: "t".to_owned(),
            x_label: "MSHRs".to_owned(),
            y_label: "IPC".to_owned(),
            x_values: vec![32.0, 64.0],
            panels: vec![
                Panel { title: "a".to_owned(), series: vec![series("simulated"), series("MDM")] },
                Panel { title: "b<c".to_owned(), series: vec![series("simulated"), series("MDM")] },
            ],
        };
        let svg = chart.svg();
        assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<polyline points=\"").count(), 2 * (1 + 2), "an axis and two lines per panel");
        assert!(svg.contains("b&lt;c"));
    }
}
