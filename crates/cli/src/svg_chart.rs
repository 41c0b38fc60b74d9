//! Line charts as self-contained SVG text, for `warplab sweep --svg`: one or
//! more panels that share their axes, one polyline per series, and a legend.
//!
//! A pure function from data to a string, written by hand so the CLI needs
//! no plotting dependency and the output opens in any browser or editor.

use std::fmt::Write as _;

/// The Okabe–Ito palette (distinguishable with the common colour-vision
/// deficiencies), minus its yellow (#F0E442), which is too pale on white.
pub const PALETTE: [&str; 6] = ["#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7"];

/// One line.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The legend's name for it.
    pub name: String,
    /// Stroke colour.
    pub color: &'static str,
    /// Drawn dashed (the reference line, e.g. the simulation).
    pub dashed: bool,
    /// `(x, y)` in drawing order; points that are not finite are left out.
    pub points: Vec<(f64, f64)>,
}

/// One plot area.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// Above the panel (empty for a single panel).
    pub title: String,
    /// The lines.
    pub series: Vec<Series>,
}

/// A whole figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// The figure's title.
    pub title: String,
    /// The x axis's label, with its unit.
    pub x_label: String,
    /// The y axis's label, with its unit.
    pub y_label: String,
    /// A logarithmic x axis (for values that double, such as MSHRs or bandwidth scales).
    pub log_x: bool,
    /// The panels, laid out in rows of up to [`COLUMNS`].
    pub panels: Vec<Panel>,
}

/// Panels per row.
pub const COLUMNS: usize = 3;

const PANEL_W: f64 = 420.0;
const PANEL_H: f64 = 300.0;
/// Space around each plot area for tick labels, axis labels and the panel title.
const MARGIN: Margin = Margin { left: 70.0, right: 20.0, top: 30.0, bottom: 50.0 };
const TITLE_H: f64 = 40.0;
const LEGEND_W: f64 = 190.0;
/// At most this many x ticks; more distinct x values are thinned.
const MAX_X_TICKS: usize = 10;

struct Margin {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

/// Where a panel's plot area sits, and how data map into it.
struct Frame {
    left: f64,
    top: f64,
    width: f64,
    height: f64,
    x: Scale,
    y: Scale,
}

/// A linear map from `lo..hi` (already log-transformed for a log axis).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Scale {
    lo: f64,
    hi: f64,
    log: bool,
}

impl Scale {
    fn fraction(self, v: f64) -> f64 {
        let v = if self.log { v.log2() } else { v };
        (v - self.lo) / (self.hi - self.lo)
    }
}

impl Frame {
    fn px(&self, x: f64) -> f64 {
        self.left + self.x.fraction(x) * self.width
    }

    fn py(&self, y: f64) -> f64 {
        self.top + (1.0 - self.y.fraction(y)) * self.height
    }
}

/// The SVG document for `chart`.
pub fn render(chart: &Chart) -> String {
    let columns = chart.panels.len().clamp(1, COLUMNS);
    let rows = chart.panels.len().div_ceil(COLUMNS).max(1);
    // Wide enough for the title too (about 8.5 px a character at 15 px).
    let width = (columns as f64 * PANEL_W + LEGEND_W).max(20.0 + 8.5 * chart.title.chars().count() as f64);
    let height = TITLE_H + rows as f64 * PANEL_H;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    let _ = writeln!(out, "<text x=\"10\" y=\"24\" font-size=\"15\">{}</text>", escape(&chart.title));
    let (x_scale, x_ticks) = x_axis(chart);
    let (y_scale, y_ticks) = y_axis(chart.panels.iter().flat_map(|p| &p.series).flat_map(|s| &s.points).map(|p| p.1));
    for (i, panel) in chart.panels.iter().enumerate() {
        let left = (i % COLUMNS) as f64 * PANEL_W + MARGIN.left;
        let top = TITLE_H + (i / COLUMNS) as f64 * PANEL_H + MARGIN.top;
        let frame = Frame {
            left,
            top,
            width: PANEL_W - MARGIN.left - MARGIN.right,
            height: PANEL_H - MARGIN.top - MARGIN.bottom,
            x: x_scale,
            y: y_scale,
        };
        draw_axes(&mut out, &frame, chart, &x_ticks, &y_ticks);
        if !panel.title.is_empty() {
            let _ = writeln!(
                out,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                left + frame.width / 2.0,
                top - 10.0,
                escape(&panel.title)
            );
        }
        for series in &panel.series {
            draw_series(&mut out, &frame, series);
        }
    }
    draw_legend(&mut out, chart, columns as f64 * PANEL_W + 10.0);
    out.push_str("</svg>\n");
    out
}

/// The x scale over every panel's points, and the tick values: the distinct
/// x values themselves (a sweep's knob settings), thinned to at most
/// [`MAX_X_TICKS`].
fn x_axis(chart: &Chart) -> (Scale, Vec<f64>) {
    let log = chart.log_x;
    let mut xs: Vec<f64> = chart
        .panels
        .iter()
        .flat_map(|p| &p.series)
        .flat_map(|s| &s.points)
        .map(|p| p.0)
        .filter(|x| x.is_finite() && (!log || *x > 0.0))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let t = |x: f64| if log { x.log2() } else { x };
    let (lo, hi) = match (xs.first(), xs.last()) {
        (Some(&a), Some(&b)) if a < b => (t(a), t(b)),
        (Some(&a), _) => (t(a) - 1.0, t(a) + 1.0),
        _ => (0.0, 1.0),
    };
    let step = xs.len().div_ceil(MAX_X_TICKS).max(1);
    let ticks = xs.iter().copied().step_by(step).collect();
    (Scale { lo, hi, log }, ticks)
}

/// The y scale from 0 (or the lowest value, if negative) to a round number at
/// or above the highest value, and its ticks.
fn y_axis(values: impl Iterator<Item = f64>) -> (Scale, Vec<f64>) {
    let (min, max) = values.filter(|v| v.is_finite()).fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let span = if max > min { max - min } else { 1.0 };
    let step = nice_step(span / 5.0);
    let lo = (min / step).floor() * step;
    let hi = ((max / step).ceil() * step).max(lo + step);
    let ticks = (0..).map(|i| lo + f64::from(i) * step).take_while(|v| *v <= hi + step * 1e-9).collect();
    (Scale { lo, hi, log: false }, ticks)
}

/// 1, 2 or 5 times a power of ten, at or above `raw`.
fn nice_step(raw: f64) -> f64 {
    let magnitude = 10f64.powf(raw.log10().floor());
    let fraction = raw / magnitude;
    let nice = if fraction <= 1.0 {
        1.0
    } else if fraction <= 2.0 {
        2.0
    } else if fraction <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * magnitude
}

fn draw_axes(out: &mut String, f: &Frame, chart: &Chart, x_ticks: &[f64], y_ticks: &[f64]) {
    let (bottom, right) = (f.top + f.height, f.left + f.width);
    let _ = writeln!(
        out,
        "<g stroke=\"#444\" fill=\"none\"><line x1=\"{l:.1}\" y1=\"{bottom:.1}\" x2=\"{right:.1}\" y2=\"{bottom:.1}\"/>\
         <line x1=\"{l:.1}\" y1=\"{t:.1}\" x2=\"{l:.1}\" y2=\"{bottom:.1}\"/></g>",
        l = f.left,
        t = f.top
    );
    for &y in y_ticks {
        let py = f.py(y);
        let _ = writeln!(
            out,
            "<line x1=\"{l:.1}\" y1=\"{py:.1}\" x2=\"{right:.1}\" y2=\"{py:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            f.left - 6.0,
            py + 4.0,
            number(y),
            l = f.left
        );
    }
    for &x in x_ticks {
        let px = f.px(x);
        let _ = writeln!(
            out,
            "<line x1=\"{px:.1}\" y1=\"{bottom:.1}\" x2=\"{px:.1}\" y2=\"{:.1}\" stroke=\"#444\"/>\
             <text x=\"{px:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            bottom + 5.0,
            bottom + 18.0,
            number(x)
        );
    }
    let _ = writeln!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
        f.left + f.width / 2.0,
        bottom + 38.0,
        escape(&chart.x_label)
    );
    let (cx, cy) = (f.left - 52.0, f.top + f.height / 2.0);
    let _ = writeln!(
        out,
        "<text x=\"{cx:.1}\" y=\"{cy:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 {cx:.1} {cy:.1})\">{}</text>",
        escape(&chart.y_label)
    );
}

fn draw_series(out: &mut String, f: &Frame, s: &Series) {
    let points: Vec<(f64, f64)> = s
        .points
        .iter()
        .filter(|(x, y)| x.is_finite() && y.is_finite() && (!f.x.log || *x > 0.0))
        .map(|&(x, y)| (f.px(x), f.py(y)))
        .collect();
    let coordinates: Vec<String> = points.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
    let _ = writeln!(
        out,
        "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} points=\"{}\"><title>{}</title></polyline>",
        s.color,
        dash(s.dashed),
        coordinates.join(" "),
        escape(&s.name)
    );
    // Markers, so a series of one point still shows.
    for (x, y) in points {
        let _ = writeln!(out, "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"2.5\" fill=\"{}\"/>", s.color);
    }
}

/// One entry per distinct series name, in order of first appearance.
fn draw_legend(out: &mut String, chart: &Chart, left: f64) {
    let mut seen: Vec<&Series> = Vec::new();
    for series in chart.panels.iter().flat_map(|p| &p.series) {
        if !seen.iter().any(|s| s.name == series.name) {
            seen.push(series);
        }
    }
    for (i, s) in seen.iter().enumerate() {
        let y = TITLE_H + MARGIN.top + 10.0 + 20.0 * i as f64;
        let _ = writeln!(
            out,
            "<line x1=\"{left:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{}\" stroke-width=\"2\"{}/>\
             <text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            left + 28.0,
            s.color,
            dash(s.dashed),
            left + 34.0,
            y + 4.0,
            escape(&s.name)
        );
    }
}

fn dash(dashed: bool) -> &'static str {
    if dashed { " stroke-dasharray=\"6 4\"" } else { "" }
}

/// A tick label: whole numbers without decimals, others with up to three.
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return format!("{v:.0}");
    }
    let text = format!("{v:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// `text` safe inside an element or an attribute.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(name: &str, dashed: bool, points: &[(f64, f64)]) -> Series {
        Series { name: name.to_owned(), color: PALETTE[0], dashed, points: points.to_vec() }
    }

    fn chart(panels: Vec<Panel>) -> Chart {
        Chart {
            title: "IPC vs l1_mshrs: strided <gs=32> & co".to_owned(),
            x_label: "l1_mshrs (MSHR entries per SM)".to_owned(),
            y_label: "IPC (thread instructions / cycle)".to_owned(),
            log_x: true,
            panels,
        }
    }

    #[test]
    fn one_polyline_per_series_with_labels_and_legend() {
        let panel = Panel {
            title: String::new(),
            series: vec![
                series("MDM", false, &[(32.0, 10.0), (64.0, 20.0), (128.0, 35.5)]),
                series("simulated", true, &[(32.0, 12.0), (64.0, 19.0), (128.0, 30.0)]),
            ],
        };
        let svg = render(&chart(vec![panel]));
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches("stroke-dasharray").count(), 2, "the dashed series and its legend entry");
        for text in ["IPC (thread instructions / cycle)", "l1_mshrs (MSHR entries per SM)", ">MDM<", ">simulated<"] {
            assert!(svg.contains(text), "missing {text}");
        }
        // The x ticks are the knob's values; the title is escaped.
        assert!(svg.contains(">32<") && svg.contains(">128<"));
        assert!(svg.contains("strided &lt;gs=32&gt; &amp; co"));
    }

    #[test]
    fn panels_share_the_legend() {
        let panel = |title: &str| Panel { title: title.to_owned(), series: vec![series("MDM", false, &[(1.0, 1.0)])] };
        let svg = render(&chart(vec![panel("n_sms=14"), panel("n_sms=28"), panel("n_sms=56"), panel("n_sms=80")]));
        assert_eq!(svg.matches("<polyline").count(), 4);
        assert!(svg.contains(">n_sms=80<"));
        assert_eq!(svg.matches(">MDM</text>").count(), 1, "one legend entry");
    }

    #[test]
    fn the_y_range_covers_every_value_and_starts_at_zero() {
        let (scale, ticks) = y_axis([3.2, 471.0, 12.0, f64::NAN].into_iter());
        assert_eq!(scale.lo, 0.0);
        assert!(scale.hi >= 471.0 && scale.hi < 600.0, "{scale:?}");
        assert_eq!(ticks.first(), Some(&0.0));
        assert_eq!(ticks.last(), Some(&scale.hi));
        let (scale, _) = y_axis([-5.0, 5.0].into_iter());
        assert!(scale.lo <= -5.0 && scale.hi >= 5.0);
        // Nothing to show still gives an axis.
        let (scale, ticks) = y_axis(std::iter::empty());
        assert!(scale.hi > scale.lo && ticks.len() >= 2);
    }

    #[test]
    fn every_point_lands_inside_its_plot_area() {
        let points = [(0.25, 3.0), (1.0, 97.0), (4.0, 55.0)];
        let svg = render(&chart(vec![Panel { title: String::new(), series: vec![series("GPUMech", false, &points)] }]));
        let line = svg.lines().find(|l| l.starts_with("<polyline")).unwrap();
        let coordinates = line.split("points=\"").nth(1).unwrap().split('"').next().unwrap();
        let (left, top) = (MARGIN.left, TITLE_H + MARGIN.top);
        for pair in coordinates.split(' ') {
            let (x, y) = pair.split_once(',').unwrap();
            let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
            assert!((left..=PANEL_W - MARGIN.right).contains(&x), "{x}");
            assert!((top..=top + PANEL_H - MARGIN.top - MARGIN.bottom).contains(&y), "{y}");
        }
    }

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(number(64.0), "64");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(0.1 + 0.2), "0.3");
        assert_eq!(nice_step(94.0), 100.0);
        assert_eq!(nice_step(0.3), 0.5);
    }
}
