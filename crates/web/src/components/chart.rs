//! The page's charts, drawn once here for every view: a horizontal stacked-bar
//! chart, a histogram and a line chart over doubling sizes ([`line_chart`]),
//! coloured by the concepts they show ([`crate::palette`]).
//!
//! Each chart is a `<figure>` with a visible heading, then an SVG (`role="img"`,
//! an `aria-label` that reads its numbers out, a `<title>`) that scales to its
//! container through its `viewBox`, with values written on the bars where they
//! fit and every bar's exact value as a native tooltip, then a legend whose
//! entries explain themselves on hover. The legend is HTML rather than SVG so
//! that it wraps and stays readable on a phone, where the drawing shrinks.
//! A chart without data shows its "no data" note instead of empty or NaN bars.
//! Beside its heading, a chart with data has a [`ChartExport`]: its drawing
//! as SVG or PNG, and its numbers as CSV (built here from the chart's data,
//! a header row with units, then the values drawn).
//!
//! These are view functions, not components: a chart has no state or
//! callbacks, and its data is built fresh from the report on every render.

mod line_chart;

use yew::prelude::*;

pub use line_chart::{Band, Line, LineChart, LineStyle, Marker, line_chart};

use crate::components::chart_export::{ChartExport, csv_text};
use crate::format;
use crate::palette::Concept;

/// Width of every drawing in SVG units; CSS scales it to its container.
const WIDTH: f64 = 420.0;
/// Font size of labels in SVG units (the stylesheet sets the same).
const FONT: f64 = 12.0;
/// Font size of values written on bars (the stylesheet's `.value`).
const VALUE_FONT: f64 = 11.0;
/// The same two in a drawing narrower than [`WIDTH`] CSS pixels, where the
/// stylesheet enlarges them so that scaled down they stay 11 px or more on a
/// 390-px phone (`www/style.css`, the `chart` container queries). Whether a
/// label fits is decided at these sizes, so it fits at both.
const NARROW_FONT: f64 = 15.0;
const NARROW_VALUE_FONT: f64 = 14.5;
/// Average glyph width over font size of the UI font's digits and lower case,
/// for deciding whether a label fits; generous, so a label that is drawn fits.
const GLYPH_WIDTH: f64 = 0.62;
/// A bar's label line above it, the bar, and the gap to the next row.
const ROW_LABEL_HEIGHT: f64 = 18.0;
const BAR_HEIGHT: f64 = 24.0;
const ROW_GAP: f64 = 10.0;
/// Room under a horizontal value axis for tick labels and the axis title.
const AXIS_HEIGHT: f64 = 40.0;
/// The histogram's plot height.
const HISTOGRAM_HEIGHT: f64 = 150.0;

/// One coloured part of a chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Series {
    /// Its legend and tooltip name.
    pub name: &'static str,
    /// What it shows, which gives its colour.
    pub concept: Concept,
    /// What it means, shown on hovering its legend entry.
    pub explain: &'static str,
}

/// What every chart has around its drawing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// The figure's `data-testid`.
    pub testid: &'static str,
    /// The visible heading, the SVG's `<title>` and the start of its `aria-label`.
    pub title: &'static str,
    /// What the chart shows, on hovering its heading.
    pub explain: &'static str,
    /// Why a chart without data has none, shown instead of the drawing.
    pub empty: &'static str,
}

/// How a bar chart scales its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarScale {
    /// Each row is split into its parts' shares of the row's total and fills
    /// the width; the values are counts.
    Shares,
    /// All rows share one axis in `unit`, so their lengths compare.
    Values {
        /// The values' unit, e.g. `cycles`.
        unit: &'static str,
        /// Decimals written: 1 for cycles, 2 for a CPI below one.
        decimals: usize,
    },
}

/// A horizontal stacked-bar chart: one bar per row, one segment per series.
#[derive(Debug, Clone, PartialEq)]
pub struct BarChart<'a> {
    /// Heading, test id and notes.
    pub frame: Frame,
    /// The segments' series, in drawing order.
    pub series: &'a [Series],
    /// The bars, top to bottom; a chart whose rows all total zero has no data.
    pub rows: Vec<BarRow>,
    /// How rows scale.
    pub scale: BarScale,
    /// The value axis' title, with its unit.
    pub axis: &'static str,
}

/// One bar of a [`BarChart`].
#[derive(Debug, Clone, PartialEq)]
pub struct BarRow {
    /// The text above the bar.
    pub label: String,
    /// One value per series (none negative).
    pub values: Vec<f64>,
}

/// A histogram: one vertical bar per bucket, heights as shares of the total.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    /// Heading, test id and notes.
    pub frame: Frame,
    /// The bars' colour and legend entry.
    pub series: Series,
    /// The buckets, left to right; a histogram whose counts are all zero has no data.
    pub bars: Vec<HistogramBar>,
    /// What the buckets count, under the x axis.
    pub x_axis: String,
    /// The share axis' title, e.g. `% of SM cycles`.
    pub y_axis: &'static str,
    /// The counts' unit in tooltips, e.g. `SM cycles`.
    pub unit: &'static str,
}

/// One bucket of a [`Histogram`].
#[derive(Debug, Clone, PartialEq)]
pub struct HistogramBar {
    /// The bucket's label under the axis.
    pub label: String,
    /// Its count.
    pub value: u64,
}

/// What saving a drawn chart needs: its `<svg>` and its numbers as CSV.
struct Export {
    svg: NodeRef,
    csv: String,
}

/// Draws a stacked-bar chart, or its "no data" note.
pub fn bar_chart(chart: &BarChart) -> Html {
    let totals: Vec<f64> = chart.rows.iter().map(|row| row.values.iter().sum()).collect();
    // `f64::max` skips NaN, so a row of NaN counts as empty too.
    let max_total = totals.iter().copied().fold(0.0, f64::max);
    if max_total <= 0.0 {
        return figure(&chart.frame, None);
    }
    let ticks = match chart.scale {
        BarScale::Shares => nice_ticks(100.0, 5),
        BarScale::Values { .. } => nice_ticks(max_total, 4),
    };
    let plot = Plot { left: 16.0, right: WIDTH - 20.0, top: 0.0, bottom: row_top(chart.rows.len()) };
    let axis_max = axis_end(&ticks);
    let bars = chart.rows.iter().zip(&totals).enumerate().map(|(index, (row, &total))| {
        let place = |value: f64| plot.left + plot.width() * chart.scale.position(value, total) / axis_max;
        bar_row(chart, row, total, row_top(index), place)
    });
    let body = html! {
        <>
            { value_axis(&ticks, &plot, Along::Bottom, chart.axis) }
            { for bars }
        </>
    };
    let node = NodeRef::default();
    let drawing = svg(&chart.frame, &node, plot.bottom + AXIS_HEIGHT, bar_chart_summary(chart, &totals), body);
    // A single bar's numbers go into its legend, where every part, however thin, is readable.
    let legend_values = |index: usize| match (chart.rows.as_slice(), totals.as_slice()) {
        ([row], [total]) => row.values.get(index).map(|&value| chart.scale.exact(value, *total)),
        _ => None,
    };
    let entries = chart.series.iter().enumerate().map(|(index, series)| (series, legend_values(index)));
    let export = Export { svg: node, csv: bar_chart_csv(chart) };
    figure(&chart.frame, Some((html! { <>{ drawing }{ legend(entries) }</> }, export)))
}

/// Draws a histogram, or its "no data" note.
pub fn histogram(chart: &Histogram) -> Html {
    let total: u64 = chart.bars.iter().map(|bar| bar.value).sum();
    if total == 0 {
        return figure(&chart.frame, None);
    }
    let layout = HistogramLayout::new(chart, total);
    let plot = layout.plot;
    let shares = layout.percents.iter().zip(&layout.texts);
    let bars = chart.bars.iter().zip(shares).enumerate();
    let bars = bars.map(|(index, (bar, (&percent, text)))| layout.bar(chart, index, bar, percent, text));
    let body = html! {
        <>
            { value_axis(&layout.ticks, &plot, Along::Left, chart.y_axis) }
            { for bars }
            <text class="axis-title" x={coord(plot.left + plot.width() / 2.0)} y={coord(layout.height - 4.0)}
                text-anchor="middle">{ with_aside(&chart.x_axis) }</text>
        </>
    };
    let node = NodeRef::default();
    let drawing = svg(&chart.frame, &node, layout.height, histogram_summary(chart, &layout.texts), body);
    let export = Export { svg: node, csv: histogram_csv(chart, total) };
    figure(&chart.frame, Some((html! { <>{ drawing }{ legend([(&chart.series, None)]) }</> }, export)))
}

/// The drawing area inside a chart's margins, in SVG units.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Plot {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

/// How a label sits at its point.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Turn {
    /// Level, centred on the point.
    Level,
    /// Turned by `degrees` (negative: counter-clockwise), with its `anchor` on the point.
    By { degrees: f64, anchor: &'static str },
}

/// Which edge of the plot a value axis runs along.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Along {
    Bottom,
    Left,
}

/// Where a histogram's parts go.
#[derive(Debug, Clone, PartialEq)]
struct HistogramLayout {
    plot: Plot,
    /// Width per bar, gap included.
    slot: f64,
    ticks: Vec<f64>,
    /// Each bar's share of the total, in per cent, and as written.
    percents: Vec<f64>,
    texts: Vec<String>,
    value_turn: Turn,
    label_turn: Turn,
    /// The whole drawing's height.
    height: f64,
}

impl BarScale {
    /// Where `value` (of a row totalling `total`) ends on the axis: per cent of
    /// the row for shares, the value itself otherwise.
    fn position(self, value: f64, total: f64) -> f64 {
        match self {
            BarScale::Shares if total > 0.0 => value / total * 100.0,
            BarScale::Shares => 0.0,
            BarScale::Values { .. } => value,
        }
    }

    /// The short text written on a segment.
    fn short(self, value: f64, total: f64) -> String {
        match self {
            BarScale::Shares => format::share(value / total),
            BarScale::Values { decimals, .. } => format!("{value:.decimals$}"),
        }
    }

    /// The exact text of a tooltip or legend entry.
    fn exact(self, value: f64, total: f64) -> String {
        match self {
            BarScale::Shares => format!("{} ({})", format::share(value / total), format::count(value as u64)),
            BarScale::Values { unit, decimals } => format!("{value:.decimals$} {unit}"),
        }
    }
}

impl Plot {
    fn width(&self) -> f64 {
        self.right - self.left
    }

    fn height(&self) -> f64 {
        self.bottom - self.top
    }
}

impl HistogramLayout {
    fn new(chart: &Histogram, total: u64) -> Self {
        let percents: Vec<f64> = chart.bars.iter().map(|bar| bar.value as f64 / total as f64 * 100.0).collect();
        let texts: Vec<String> = percents.iter().map(|percent| format::share(percent / 100.0)).collect();
        let ticks = nice_ticks(percents.iter().copied().fold(0.0, f64::max), 4);
        let (left, right) = (44.0, WIDTH - 8.0);
        let slot = (right - left) / chart.bars.len().max(1) as f64;
        // Labels too wide for their slot turn: values upright above the bars,
        // bucket labels at 45° under the axis; each turned row makes room for its longest.
        let values_turn = texts.iter().any(|text| !fits(text, slot, NARROW_VALUE_FONT));
        let bucket_labels: Vec<&str> = chart.bars.iter().map(|bar| bar.label.as_str()).collect();
        let labels_turn = bucket_labels.iter().any(|text| !fits(text, slot, NARROW_FONT));
        let value_room = if values_turn { widest(&texts, NARROW_VALUE_FONT) + 6.0 } else { 18.0 };
        let label_room = if labels_turn { widest(&bucket_labels, NARROW_FONT) * 0.71 + 14.0 } else { 20.0 };
        let plot = Plot { left, right, top: value_room, bottom: value_room + HISTOGRAM_HEIGHT };
        Self {
            plot,
            slot,
            ticks,
            percents,
            texts,
            value_turn: if values_turn { Turn::By { degrees: -90.0, anchor: "start" } } else { Turn::Level },
            label_turn: if labels_turn { Turn::By { degrees: -45.0, anchor: "end" } } else { Turn::Level },
            height: plot.bottom + label_room + 16.0,
        }
    }

    /// Bar `index`, `percent` of the total and written as `text`, with its
    /// value above it and its label under the axis.
    fn bar(&self, chart: &Histogram, index: usize, bar: &HistogramBar, percent: f64, text: &str) -> Html {
        let plot = self.plot;
        let centre = plot.left + self.slot * (index as f64 + 0.5);
        let top = plot.bottom - plot.height() * percent / axis_end(&self.ticks);
        html! {
            <g class="bar">
                <title>{ format!("{}: {text} ({} {})", bar.label, format::count(bar.value), chart.unit) }</title>
                <rect x={coord(centre - self.slot * 0.4)} y={coord(top)} width={coord(self.slot * 0.8)}
                    height={coord(plot.bottom - top)} fill={chart.series.concept.swatch().fill}
                    data-concept={chart.series.concept.id()} data-value={bar.value.to_string()} />
                { label(text, centre, top - 3.0, self.value_turn, "value") }
                { label(&bar.label, centre, plot.bottom + 13.0, self.label_turn, "tick") }
            </g>
        }
    }
}

/// Round tick values from 0 to at least `max`, about `target` steps of 1, 2
/// or 5 times a power of ten; the last tick is the axis' end.
fn nice_ticks(max: f64, target: usize) -> Vec<f64> {
    if !(max.is_finite() && max > 0.0) {
        return vec![0.0, 1.0];
    }
    let raw_step = max / target.max(1) as f64;
    let power = 10f64.powf(raw_step.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|&s| s >= raw_step).unwrap_or(10.0 * power);
    // The small allowance keeps a max that is a multiple of the step from
    // gaining one more tick through rounding.
    let n_steps = (max / step - 1e-9).ceil().max(1.0) as usize;
    (0..=n_steps).map(|i| i as f64 * step).collect()
}

/// The value at the end of an axis with `ticks` (never zero, so it divides safely).
fn axis_end(ticks: &[f64]) -> f64 {
    ticks.last().copied().filter(|&end| end > 0.0).unwrap_or(1.0)
}

/// A tick value as written on its axis: no trailing zeros, no float noise
/// (`0.30000000000000004` is `0.3`).
fn tick_label(value: f64) -> String {
    let text = format!("{value:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// The top of row `index` of a bar chart (and, past the last row, the plot's bottom).
fn row_top(index: usize) -> f64 {
    index as f64 * (ROW_LABEL_HEIGHT + BAR_HEIGHT + ROW_GAP)
}

/// One labelled bar; `place` maps a running sum of the row's values to x.
fn bar_row(chart: &BarChart, row: &BarRow, total: f64, top: f64, place: impl Fn(f64) -> f64) -> Html {
    let bar_top = top + ROW_LABEL_HEIGHT;
    let mut start = 0.0;
    let segments = chart.series.iter().zip(&row.values).filter(|(_, value)| **value > 0.0).map(|(series, &value)| {
        let (x, end) = (place(start), place(start + value));
        start += value;
        let part = Part { series, exact: chart.scale.exact(value, total), short: chart.scale.short(value, total) };
        segment(&part, &row.label, (x, end), (bar_top, top + FONT, place(0.0)), value)
    });
    html! {
        <g class="row">
            <text class="row-label" x={coord(place(0.0))} y={coord(top + FONT)}>{ with_aside(&row.label) }</text>
            { for segments }
        </g>
    }
}

/// A segment's series and its value as written in full and on the bar.
struct Part<'a> {
    series: &'a Series,
    exact: String,
    short: String,
}

/// One segment from `x` to `end`: its rect in its concept's colour, its
/// value on it where it fits, and its name and value as a tooltip and, on
/// focus (a tap or Tab), written in place of its row's label (the
/// stylesheet swaps them), so no part is told by its colour alone. `label`
/// is the bar's top, and the row label's baseline and start.
fn segment(part: &Part, row_label: &str, (x, end): (f64, f64), label: (f64, f64, f64), value: f64) -> Html {
    let (bar_top, label_y, label_x) = label;
    let (series, swatch) = (part.series, part.series.concept.swatch());
    let ink = fits(&part.short, end - x - 4.0, NARROW_VALUE_FONT).then_some(swatch.ink);
    let named = format!("{}: {}", series.name, part.exact);
    html! {
        <g class="segment" tabindex="0" role="img" aria-label={format!("{named}, {row_label}")}>
            <title>{ format!("{named}\n{row_label}") }</title>
            <rect x={coord(x)} y={coord(bar_top)} width={coord(end - x)} height={coord(BAR_HEIGHT)}
                fill={swatch.fill} data-concept={series.concept.id()} data-series={series.name}
                data-value={value.to_string()} />
            if let Some(ink) = ink {
                <text class="value" x={coord((x + end) / 2.0)} y={coord(bar_top + BAR_HEIGHT / 2.0 + VALUE_FONT * 0.35)}
                    text-anchor="middle" fill={ink}>{ &part.short }</text>
            }
            <text class="focus-label" x={coord(label_x)} y={coord(label_y)}>
                { format!("{}: {}", series.name, part.short) }
            </text>
        </g>
    }
}

/// A value axis with grid lines across the plot, tick labels and its title.
fn value_axis(ticks: &[f64], plot: &Plot, along: Along, title: &str) -> Html {
    let axis_max = axis_end(ticks);
    let lines = ticks.iter().map(|&tick| {
        let fraction = tick / axis_max;
        let (x1, y1, x2, y2, label_x, label_y, anchor) = match along {
            Along::Bottom => {
                let x = plot.left + plot.width() * fraction;
                (x, plot.top, x, plot.bottom + 4.0, x, plot.bottom + 16.0, "middle")
            }
            Along::Left => {
                let y = plot.bottom - plot.height() * fraction;
                (plot.left - 4.0, y, plot.right, y, plot.left - 6.0, y + FONT * 0.35, "end")
            }
        };
        html! {
            <>
                <line class="grid" x1={coord(x1)} y1={coord(y1)} x2={coord(x2)} y2={coord(y2)} />
                <text class="tick" x={coord(label_x)} y={coord(label_y)} text-anchor={anchor}>{ tick_label(tick) }</text>
            </>
        }
    });
    let (title_x, title_y, turn) = match along {
        Along::Bottom => (plot.left + plot.width() / 2.0, plot.bottom + 34.0, Turn::Level),
        Along::Left => (FONT, plot.top + plot.height() / 2.0, Turn::By { degrees: -90.0, anchor: "middle" }),
    };
    html! {
        <g class="axis">
            { for lines }
            { label(title, title_x, title_y, turn, "axis-title") }
        </g>
    }
}

/// A text at (`x`, `y`): level and centred there, or turned with one end or
/// its middle there (so a turned label hangs away from the point it names).
fn label(text: &str, x: f64, y: f64, turn: Turn, class: &'static str) -> Html {
    match turn {
        Turn::Level => {
            html! { <text class={class} x={coord(x)} y={coord(y)} text-anchor="middle">{ with_aside(text) }</text> }
        }
        Turn::By { degrees, anchor } => {
            // A turned baseline runs through the point, and the glyphs stand
            // beside it: shifting by a third of the font centres them on it.
            let x = x + FONT * 0.35;
            html! {
                <text class={class} x={coord(x)} y={coord(y)} text-anchor={anchor}
                    transform={format!("rotate({degrees} {} {})", coord(x), coord(y))}>{ with_aside(text) }</text>
            }
        }
    }
}

/// A label's text with its parenthetical aside (from ` (` on) in a
/// `tspan` of its own, which the stylesheet hides in a narrow drawing, where
/// the enlarged text would run out of it; the chart's heading and tooltips
/// keep the whole sentence.
fn with_aside(text: &str) -> Html {
    match text.find(" (") {
        Some(at) => html! { <>{ &text[..at] }<tspan class="aside">{ &text[at..] }</tspan></> },
        None => html! { { text } },
    }
}

/// The heading with the export buttons, then the drawing and legend, or the
/// heading and the "no data" note.
fn figure(frame: &Frame, drawing: Option<(Html, Export)>) -> Html {
    let (drawing, export) = match drawing {
        Some((drawing, export)) => (drawing, Some(export)),
        None => (html! { <p class="no-data">{ frame.empty }</p> }, None),
    };
    html! {
        <figure class="chart" data-testid={frame.testid}>
            <figcaption>
                <h3 title={frame.explain}>{ frame.title }</h3>
                if let Some(Export { svg, csv }) = export {
                    <ChartExport {svg} stem={frame.testid} csv={Callback::from(move |()| csv.clone())} />
                }
            </figcaption>
            { drawing }
        </figure>
    }
}

/// The `<svg>` element every chart draws in, referred to by `node`.
fn svg(frame: &Frame, node: &NodeRef, height: f64, summary: String, body: Html) -> Html {
    html! {
        <svg ref={node.clone()} class="chart-drawing" viewBox={format!("0 0 {WIDTH} {}", coord(height))} width="100%"
            role="group" aria-label={format!("{}. {summary}", frame.title)}>
            <title>{ frame.title }</title>
            { body }
        </svg>
    }
}

/// Colour swatches with names, optional values and hover explanations.
fn legend<'a>(entries: impl IntoIterator<Item = (&'a Series, Option<String>)>) -> Html {
    legend_list(entries.into_iter().map(|(series, value)| LegendEntry {
        key: swatch_key(series.concept),
        name: series.name,
        explain: series.explain,
        value,
    }))
}

/// A legend's colour key for `concept`.
fn swatch_key(concept: Concept) -> Html {
    html! {
        <span class="swatch" style={format!("background: {}", concept.swatch().fill)} data-concept={concept.id()}></span>
    }
}

/// One legend entry: its key (a swatch, a line's sample), its name, what it
/// means on hover, and optionally a value.
struct LegendEntry<'a> {
    key: Html,
    name: &'a str,
    explain: &'a str,
    value: Option<String>,
}

/// The legend's list, whatever its keys look like.
fn legend_list<'a>(entries: impl IntoIterator<Item = LegendEntry<'a>>) -> Html {
    html! {
        <ul class="legend">
            { for entries.into_iter().map(|entry| html! {
                <li title={entry.explain.to_owned()}>
                    { entry.key }
                    { entry.name }
                    if let Some(value) = entry.value {
                        <span class="legend-value">{ value }</span>
                    }
                </li>
            }) }
        </ul>
    }
}

/// The bar chart's numbers as one sentence per row, for screen readers.
fn bar_chart_summary(chart: &BarChart, totals: &[f64]) -> String {
    let rows = chart.rows.iter().zip(totals).map(|(row, &total)| {
        let parts = chart
            .series
            .iter()
            .zip(&row.values)
            .map(|(series, &value)| format!("{} {}", series.name, chart.scale.exact(value, total)));
        format!("{}: {}.", row.label, parts.collect::<Vec<_>>().join(", "))
    });
    rows.collect::<Vec<_>>().join(" ")
}

/// The histogram's numbers as one sentence, for screen readers.
fn histogram_summary(chart: &Histogram, texts: &[String]) -> String {
    let bars = chart.bars.iter().zip(texts).map(|(bar, text)| format!("{} {text}", bar.label));
    format!("{}, {}: {}.", chart.x_axis, chart.y_axis, bars.collect::<Vec<_>>().join(", "))
}

/// The bar chart's numbers as CSV: one line per bar, one column per series in
/// the axis' unit, or for shares the count and the per cent of the bar.
fn bar_chart_csv(chart: &BarChart) -> String {
    let mut header = vec!["bar".to_owned()];
    for series in chart.series {
        match chart.scale {
            BarScale::Shares => {
                header.extend([format!("{} (count)", series.name), format!("{} (% of bar)", series.name)])
            }
            BarScale::Values { unit, .. } => header.push(format!("{} ({unit})", series.name)),
        }
    }
    let rows = chart.rows.iter().map(|row| {
        let total: f64 = row.values.iter().sum();
        let mut fields = vec![row.label.clone()];
        for &value in &row.values {
            match chart.scale {
                BarScale::Shares => {
                    fields.extend([value.to_string(), (BarScale::Shares.position(value, total)).to_string()])
                }
                BarScale::Values { .. } => fields.push(value.to_string()),
            }
        }
        fields
    });
    csv_text(std::iter::once(header).chain(rows))
}

/// The histogram's numbers as CSV: one line per bucket, its count and share.
fn histogram_csv(chart: &Histogram, total: u64) -> String {
    let header = vec![format!("bucket ({})", chart.x_axis), format!("count ({})", chart.unit), "share (%)".to_owned()];
    let rows = chart.bars.iter().map(|bar| {
        let percent = if total > 0 { bar.value as f64 / total as f64 * 100.0 } else { 0.0 };
        vec![bar.label.clone(), bar.value.to_string(), percent.to_string()]
    });
    csv_text(std::iter::once(header).chain(rows))
}

/// Whether `text` fits in `width` SVG units at `font` size.
fn fits(text: &str, width: f64, font: f64) -> bool {
    text_width(text, font) <= width
}

/// The estimated width of the widest of `texts`.
fn widest(texts: &[impl AsRef<str>], font: f64) -> f64 {
    texts.iter().map(|text| text_width(text.as_ref(), font)).fold(0.0, f64::max)
}

/// The estimated width of `text` at `font` size.
fn text_width(text: &str, font: f64) -> f64 {
    text.chars().count() as f64 * font * GLYPH_WIDTH
}

/// A coordinate as an attribute value, to a tenth of a unit.
fn coord(value: f64) -> String {
    format!("{value:.1}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_ticks(max: f64, target: usize, expect: &[f64]) {
        assert_eq!(nice_ticks(max, target), expect, "max {max}, {target} steps");
    }

    #[test]
    fn ticks_are_round_and_reach_the_maximum() {
        check_ticks(100.0, 5, &[0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        check_ticks(47.3, 4, &[0.0, 20.0, 40.0, 60.0]);
        check_ticks(240.5, 4, &[0.0, 100.0, 200.0, 300.0]);
        check_ticks(8.0, 4, &[0.0, 2.0, 4.0, 6.0, 8.0]);
        check_ticks(0.3, 4, &[0.0, 0.1, 0.2, 0.30000000000000004]);
        check_ticks(1.0, 1, &[0.0, 1.0]);
    }

    #[test]
    fn ticks_of_nothing_still_make_an_axis() {
        check_ticks(0.0, 4, &[0.0, 1.0]);
        check_ticks(f64::NAN, 4, &[0.0, 1.0]);
        check_ticks(-3.0, 4, &[0.0, 1.0]);
    }

    #[test]
    fn tick_labels_drop_trailing_zeros_and_float_noise() {
        for (value, expect) in [(0.0, "0"), (20.0, "20"), (2.5, "2.5"), (0.1 + 0.2, "0.3"), (1e-7, "0")] {
            assert_eq!(tick_label(value), expect);
        }
    }

    #[test]
    fn shares_fill_the_axis_and_values_keep_their_size() {
        assert_eq!(BarScale::Shares.position(25.0, 100.0), 25.0);
        assert_eq!(BarScale::Shares.position(3.0, 4.0), 75.0);
        assert_eq!(BarScale::Shares.position(0.0, 0.0), 0.0, "an empty row is no NaN");
        assert_eq!(BarScale::Values { unit: "cycles", decimals: 1 }.position(3.0, 4.0), 3.0);
        assert_eq!(BarScale::Shares.exact(491_520.0, 9_545_920.0), "5.1% (491,520)");
        assert_eq!(BarScale::Values { unit: "cycles", decimals: 1 }.exact(12.345, 0.0), "12.3 cycles");
        assert_eq!(BarScale::Values { unit: "CPI", decimals: 2 }.short(0.254, 0.0), "0.25");
    }

    #[test]
    fn charts_export_their_numbers_with_units() {
        const SERIES: [Series; 2] = [
            Series { name: "hit", concept: Concept::L1Hit, explain: "" },
            Series { name: "miss", concept: Concept::L1Miss, explain: "" },
        ];
        let rows = vec![BarRow { label: "L1".into(), values: vec![3.0, 1.0] }];
        let frame = Frame { testid: "t", title: "T", explain: "", empty: "" };
        let shares = BarChart { frame, series: &SERIES, rows: rows.clone(), scale: BarScale::Shares, axis: "%" };
        assert_eq!(
            bar_chart_csv(&shares),
            "bar,hit (count),hit (% of bar),miss (count),miss (% of bar)\nL1,3,75,1,25\n"
        );
        let values = BarChart { scale: BarScale::Values { unit: "cycles", decimals: 1 }, ..shares };
        assert_eq!(bar_chart_csv(&values), "bar,hit (cycles),miss (cycles)\nL1,3,1\n");
        let histogram = Histogram {
            frame,
            series: SERIES[0],
            bars: vec![HistogramBar { label: "0".into(), value: 1 }, HistogramBar { label: "1–2".into(), value: 3 }],
            x_axis: "MSHRs in use".into(),
            y_axis: "% of SM cycles",
            unit: "SM cycles",
        };
        assert_eq!(
            histogram_csv(&histogram, 4),
            "bucket (MSHRs in use),count (SM cycles),share (%)\n0,1,25\n1–2,3,75\n"
        );
    }

    #[test]
    fn labels_fit_by_their_estimated_width() {
        assert!(fits("81.9%", 40.0, VALUE_FONT));
        assert!(!fits("81.9%", 20.0, VALUE_FONT));
        assert!(fits("", 0.0, FONT));
        assert_eq!(widest(&["0", "480–511"], 10.0), 7.0 * 10.0 * GLYPH_WIDTH);
    }
}
