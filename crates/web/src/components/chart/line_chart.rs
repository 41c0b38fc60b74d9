//! A line chart over system sizes that double (8, 16, 32, … SMs): the x axis
//! is base-2 logarithmic with a tick at every size drawn, so each doubling
//! is one step; the y axis is linear from zero.
//!
//! Each line has its concept's colour ([`crate::palette`]), a dash pattern and a marker, so
//! the lines are told apart in greyscale and by readers who cannot tell the
//! colours apart; every point carries its exact value as a tooltip and a
//! `data-value`. Vertical bands mark a range of sizes (a miss-rate cliff)
//! with a label. It shares the figure, SVG, value axis and legend of the
//! other charts in `chart.rs`.

use yew::prelude::*;

use super::{
    Along, Export, Frame, LegendEntry, Plot, WIDTH, axis_end, coord, figure, legend_list, nice_ticks, svg, tick_label,
    value_axis, with_aside,
};
use crate::components::chart_export::csv_text;
use crate::format;
use crate::palette::{Concept, neutral};

/// The plot's height in SVG units.
const PLOT_HEIGHT: f64 = 200.0;
/// Room above the plot for a band's label.
const TOP: f64 = 18.0;
/// Room left of the plot for the y ticks and the turned y title.
const LEFT: f64 = 54.0;
/// Room right of the plot, so the last x tick's label fits.
const RIGHT: f64 = 16.0;
/// Room under the plot for the x ticks and the x title.
const BOTTOM: f64 = 40.0;
/// A band's colour: light enough that the lines read over it.
const BAND: Concept = Concept::Cliff;

/// A line chart: sizes on a log-2 x axis, a value on a linear y axis.
#[derive(Debug, Clone, PartialEq)]
pub struct LineChart {
    /// Heading, test id and notes.
    pub frame: Frame,
    /// The lines, drawn in order (the last on top).
    pub lines: Vec<Line>,
    /// Ranges of sizes to shade, with their labels.
    pub bands: Vec<Band>,
    /// The x axis' title with its unit, e.g. `SMs (log scale)`.
    pub x_axis: &'static str,
    /// What one x unit is called in tooltips, e.g. `SMs`.
    pub x_unit: &'static str,
    /// The y axis' title with its unit.
    pub y_axis: &'static str,
    /// What the y values are called in tooltips, e.g. `IPC`.
    pub y_unit: &'static str,
}

/// One line: how it looks and its `(x, y)` points in x order.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Its look, name and explanation.
    pub style: LineStyle,
    /// Its points; those with a y that is not a finite number are left out.
    pub points: Vec<(f64, f64)>,
}

/// How a line is drawn and named.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineStyle {
    /// The legend's and tooltips' name; also the points' `data-series`.
    pub name: &'static str,
    /// What the line shows, which gives its stroke and marker colour.
    pub concept: Concept,
    /// An SVG dash pattern (`6 3`), or `None` for a solid line; `Some("")`
    /// never draws a line: markers only.
    pub dash: Option<&'static str>,
    /// Stroke width in SVG units.
    pub width: f64,
    /// The mark at each point.
    pub marker: Marker,
    /// What the line is, on hovering its legend entry.
    pub explain: &'static str,
}

/// The mark drawn at a line's points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// A small filled dot.
    Dot,
    /// A filled square.
    Square,
    /// A large dot with a dark rim, for measured points that anchor the others.
    Big,
}

/// A shaded range of x, e.g. the sizes across which a miss-rate cliff falls.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// Where it starts and ends on the x axis.
    pub from: f64,
    /// Where it ends.
    pub to: f64,
    /// The label above it, and its legend entry.
    pub label: String,
    /// What it means, on hover.
    pub explain: &'static str,
}

impl LineStyle {
    /// The line's and its markers' colour.
    fn colour(&self) -> &'static str {
        self.concept.swatch().fill
    }

    /// Whether points are joined (a style with an empty dash is markers only).
    fn joined(&self) -> bool {
        self.dash != Some("")
    }
}

/// Draws a line chart, or its "no data" note when no line has a point.
pub fn line_chart(chart: &LineChart) -> Html {
    let lines: Vec<(LineStyle, Vec<(f64, f64)>)> =
        chart.lines.iter().map(|line| (line.style, drawable(&line.points))).filter(|(_, p)| !p.is_empty()).collect();
    let sizes = x_ticks(&lines);
    let (Some(&first), Some(&last)) = (sizes.first(), sizes.last()) else { return figure(&chart.frame, None) };
    let max_y = lines.iter().flat_map(|(_, points)| points.iter().map(|&(_, y)| y)).fold(0.0, f64::max);
    let y_ticks = nice_ticks(max_y, 4);
    let plot = Plot { left: LEFT, right: WIDTH - RIGHT, top: TOP, bottom: TOP + PLOT_HEIGHT };
    let scale = Scale { plot, first, last, y_end: axis_end(&y_ticks) };
    let body = html! {
        <>
            { for chart.bands.iter().map(|band| scale.band(band)) }
            { value_axis(&y_ticks, &plot, Along::Left, chart.y_axis) }
            { scale.x_axis(&sizes, chart.x_axis) }
            { for lines.iter().map(|(style, points)| scale.line(chart, style, points)) }
        </>
    };
    let node = NodeRef::default();
    let drawing = svg(&chart.frame, &node, plot.bottom + BOTTOM, summary(chart, &lines), body);
    // The legend lists the lines from the top of the drawing down: what is
    // drawn last, and so most important, first.
    let entries = lines.iter().rev().map(|(style, _)| LegendEntry {
        key: line_key(style),
        name: style.name,
        explain: style.explain,
        value: None,
    });
    let bands = chart.bands.iter().map(|band| LegendEntry {
        key: html! {
            <span class="swatch band-key" style={format!("background: {}", BAND.swatch().fill)} data-concept={BAND.id()}></span>
        },
        name: &band.label,
        explain: band.explain,
        value: None,
    });
    let export = Export { svg: node, csv: csv(chart, &lines) };
    figure(&chart.frame, Some((html! { <>{ drawing }{ legend_list(entries.chain(bands)) }</> }, export)))
}

/// The lines' points as CSV, one line per point: the series, x in its unit,
/// y with its axis' title (which carries the unit); then each band's ends.
fn csv(chart: &LineChart, lines: &[(LineStyle, Vec<(f64, f64)>)]) -> String {
    let header = vec!["series".to_owned(), chart.x_unit.to_owned(), chart.y_axis.to_owned()];
    let points = lines.iter().flat_map(|(style, points)| {
        points.iter().map(|&(x, y)| vec![style.name.to_owned(), x.to_string(), y.to_string()])
    });
    let bands = chart
        .bands
        .iter()
        .flat_map(|band| [band.from, band.to].map(|x| vec![band.label.clone(), x.to_string(), String::new()]));
    csv_text(std::iter::once(header).chain(points).chain(bands))
}

/// Maps sizes and values to the plot.
struct Scale {
    plot: Plot,
    /// The smallest and largest size drawn.
    first: f64,
    last: f64,
    /// The y axis' end.
    y_end: f64,
}

impl Scale {
    /// A size's x: doublings from the first, spread over the plot's width (a
    /// single size sits in the middle).
    fn x(&self, size: f64) -> f64 {
        let span = (self.last / self.first).log2();
        let fraction = if span > 0.0 { (size / self.first).log2() / span } else { 0.5 };
        self.plot.left + self.plot.width() * fraction
    }

    fn y(&self, value: f64) -> f64 {
        self.plot.bottom - self.plot.height() * value / self.y_end
    }

    /// A tick and its label at every size, the axis line and its title.
    fn x_axis(&self, sizes: &[f64], title: &str) -> Html {
        let plot = self.plot;
        let ticks = sizes.iter().map(|&size| {
            let x = coord(self.x(size));
            html! {
                <>
                    <line class="grid" x1={x.clone()} y1={coord(plot.top)} x2={x.clone()} y2={coord(plot.bottom + 4.0)} />
                    <text class="tick" x={x} y={coord(plot.bottom + 16.0)} text-anchor="middle">{ tick_label(size) }</text>
                </>
            }
        });
        html! {
            <g class="axis x-axis">
                { for ticks }
                <text class="axis-title" x={coord(plot.left + plot.width() / 2.0)} y={coord(plot.bottom + 34.0)}
                    text-anchor="middle">{ with_aside(title) }</text>
            </g>
        }
    }

    /// A shaded band over the plot's height, its label above it.
    fn band(&self, band: &Band) -> Html {
        let (left, right) = (self.x(band.from.min(band.to)), self.x(band.from.max(band.to)));
        let plot = self.plot;
        html! {
            <g class="band" data-testid="chart-band" data-from={band.from.to_string()} data-to={band.to.to_string()}>
                <title>{ format!("{}: {}", band.label, band.explain) }</title>
                <rect x={coord(left)} y={coord(plot.top)} width={coord((right - left).max(2.0))}
                    height={coord(plot.height())} fill={BAND.swatch().fill} data-concept={BAND.id()} />
                <text class="band-label" x={coord((left + right) / 2.0)} y={coord(plot.top - 5.0)}
                    text-anchor="middle">{ &band.label }</text>
            </g>
        }
    }

    /// A line (unless markers only) and a marker with its tooltip at each point.
    fn line(&self, chart: &LineChart, style: &LineStyle, points: &[(f64, f64)]) -> Html {
        let path: Vec<String> =
            points.iter().map(|&(x, y)| format!("{},{}", coord(self.x(x)), coord(self.y(y)))).collect();
        let markers = points.iter().map(|&(x, y)| {
            let tip = format!(
                "{}: {} {} at {} {}",
                style.name,
                format::decimal(y),
                chart.y_unit,
                tick_label(x),
                chart.x_unit
            );
            html! {
                <g class="point">
                    <title>{ tip }</title>
                    { marker(style, self.x(x), self.y(y), Some((x, y))) }
                </g>
            }
        });
        html! {
            <g class="series" data-series={style.name}>
                if style.joined() && points.len() > 1 {
                    <polyline class="line" points={path.join(" ")} fill="none" stroke={style.colour()}
                        data-concept={style.concept.id()}
                        stroke-width={coord(style.width)} stroke-dasharray={style.dash.unwrap_or("none")}
                        stroke-linejoin="round" />
                }
                { for markers }
            </g>
        }
    }
}

/// The marker at (`cx`, `cy`); for a data point, with its `(x, y)` values for
/// tests and tools (a legend's sample has none).
fn marker(style: &LineStyle, cx: f64, cy: f64, point: Option<(f64, f64)>) -> Html {
    let x = point.map(|(x, _)| AttrValue::from(x.to_string()));
    let y = point.map(|(_, y)| AttrValue::from(y.to_string()));
    match style.marker {
        Marker::Dot => html! {
            <circle cx={coord(cx)} cy={coord(cy)} r="2.5" fill={style.colour()} data-concept={style.concept.id()} data-x={x} data-value={y} />
        },
        Marker::Big => html! {
            <circle cx={coord(cx)} cy={coord(cy)} r="5.5" fill={style.colour()} stroke={neutral::RIM} stroke-width="1.5"
                data-concept={style.concept.id()}
                data-x={x} data-value={y} />
        },
        Marker::Square => html! {
            <rect x={coord(cx - 3.5)} y={coord(cy - 3.5)} width="7" height="7" fill={style.colour()} data-concept={style.concept.id()} data-x={x}
                data-value={y} />
        },
    }
}

/// A short sample of the line, with its marker, for the legend.
fn line_key(style: &LineStyle) -> Html {
    let dash = style.dash.unwrap_or("none");
    html! {
        <svg class="line-key" viewBox="0 0 30 12" width="30" height="12" aria-hidden="true">
            if style.joined() {
                <line x1="1" y1="6" x2="29" y2="6" stroke={style.colour()} data-concept={style.concept.id()} stroke-width={coord(style.width)}
                    stroke-dasharray={dash} />
            }
            { marker(style, 15.0, 6.0, None) }
        </svg>
    }
}

/// The points that can be drawn: positive sizes, finite values, not below zero.
fn drawable(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    points.iter().copied().filter(|&(x, y)| x > 0.0 && x.is_finite() && y.is_finite() && y >= 0.0).collect()
}

/// Every size some line has a point at, ascending, each once.
fn x_ticks(lines: &[(LineStyle, Vec<(f64, f64)>)]) -> Vec<f64> {
    let mut sizes: Vec<f64> = lines.iter().flat_map(|(_, points)| points.iter().map(|&(x, _)| x)).collect();
    sizes.sort_by(f64::total_cmp);
    sizes.dedup();
    sizes
}

/// The lines' numbers, one sentence each, for screen readers.
fn summary(chart: &LineChart, lines: &[(LineStyle, Vec<(f64, f64)>)]) -> String {
    let sentences = lines.iter().map(|(style, points)| {
        let values: Vec<String> = points
            .iter()
            .map(|&(x, y)| format!("{} at {} {}", format::decimal(y), tick_label(x), chart.x_unit))
            .collect();
        format!("{}: {}.", style.name, values.join(", "))
    });
    let bands = chart.bands.iter().map(|band| format!("{}.", band.label));
    format!("{} against {}. {}", chart.y_axis, chart.x_axis, sentences.chain(bands).collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A solid black line with dots.
    const PLAIN: LineStyle =
        LineStyle { name: "a", concept: Concept::Simulated, dash: None, width: 1.0, marker: Marker::Dot, explain: "" };

    fn scale() -> Scale {
        let plot = Plot { left: 0.0, right: 400.0, top: 0.0, bottom: 200.0 };
        Scale { plot, first: 8.0, last: 128.0, y_end: 100.0 }
    }

    #[test]
    fn each_doubling_is_one_step_along_x() {
        let scale = scale();
        let xs: Vec<f64> = [8.0, 16.0, 32.0, 64.0, 128.0].into_iter().map(|s| scale.x(s)).collect();
        assert_eq!(xs, [0.0, 100.0, 200.0, 300.0, 400.0]);
        assert_eq!((scale.y(0.0), scale.y(50.0)), (200.0, 100.0));
        let one = Scale { first: 8.0, last: 8.0, ..scale };
        assert_eq!(one.x(8.0), 200.0, "a single size sits in the middle");
    }

    #[test]
    fn only_drawable_points_count_and_ticks_are_the_sizes() {
        let points = [(8.0, 1.0), (16.0, f64::NAN), (0.0, 2.0), (32.0, -1.0), (64.0, 3.0)];
        assert_eq!(drawable(&points), [(8.0, 1.0), (64.0, 3.0)]);
        let style = PLAIN;
        let lines = [(style, vec![(16.0, 1.0), (8.0, 1.0)]), (style, vec![(16.0, 2.0), (32.0, 2.0)])];
        assert_eq!(x_ticks(&lines), [8.0, 16.0, 32.0]);
        assert!(!LineStyle { dash: Some(""), ..style }.joined(), "markers only");
    }

    #[test]
    fn the_csv_lists_every_drawn_point_with_units() {
        let style = PLAIN;
        let chart = LineChart {
            frame: Frame { testid: "t", title: "T", explain: "", empty: "" },
            lines: Vec::new(),
            bands: vec![Band { from: 8.0, to: 16.0, label: "cliff".into(), explain: "" }],
            x_axis: "SMs (log scale)",
            x_unit: "SMs",
            y_axis: "IPC (thread instructions / cycle)",
            y_unit: "IPC",
        };
        let text = csv(&chart, &[(style, vec![(8.0, 1.5), (16.0, 2.0)])]);
        assert_eq!(text, "series,SMs,IPC (thread instructions / cycle)\na,8,1.5\na,16,2\ncliff,8,\ncliff,16,\n");
    }
}
