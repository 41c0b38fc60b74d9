//! The IPC timeline: IPC so far against the cycle, as an SVG line chart with
//! labelled axes. SVG rather than a second canvas: it is one polyline, it
//! scales without redrawing, and its text stays selectable and sharp.

use std::fmt::Write as _;
use std::rc::Rc;

use yew::prelude::*;

use super::explain::Term;
use crate::components::{ChartExport, csv_text};
use crate::palette::Concept;

/// Properties of [`IpcTimeline`].
#[derive(Debug, Clone, Properties)]
pub struct IpcTimelineProps {
    /// `(cycle, IPC so far)` points in cycle order.
    pub points: Rc<Vec<(u64, f64)>>,
    /// The width to draw at, in CSS pixels.
    pub width: f64,
}

/// The chart's height in CSS pixels.
const HEIGHT: f64 = 150.0;
/// Room for the y axis's tick labels and title.
const LEFT: f64 = 48.0;
const RIGHT: f64 = 14.0;
const TOP: f64 = 10.0;
/// Room for the x axis's tick labels and title.
const BOTTOM: f64 = 36.0;
/// Width used before the container has been measured.
const FALLBACK_WIDTH: f64 = 600.0;
/// Tick marks aimed for on each axis.
const TICKS: f64 = 4.0;

impl PartialEq for IpcTimelineProps {
    /// The points compare by address: a run appends to a new vector, and
    /// comparing thousands of points on every hover would be waste.
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.points, &other.points) && self.width == other.width
    }
}

/// The line chart.
#[component]
pub fn IpcTimeline(props: &IpcTimelineProps) -> Html {
    let svg = use_node_ref();
    let width = if props.width > 0.0 { props.width } else { FALLBACK_WIDTH };
    let plot = Plot { width: (width - LEFT - RIGHT).max(1.0), height: HEIGHT - TOP - BOTTOM };
    let last_cycle = props.points.iter().map(|&(cycle, _)| cycle).max().unwrap_or(0);
    let max_ipc = props.points.iter().map(|&(_, ipc)| ipc).fold(0.0, f64::max);
    let x_axis = Axis::nice(last_cycle as f64);
    let y_axis = Axis::nice(max_ipc);
    let line = polyline(&props.points, &plot, &x_axis, &y_axis);
    let x_ticks = x_axis.ticks().map(|value| {
        let x = LEFT + plot.x(value, &x_axis);
        html! { <g><line x1={x.to_string()} x2={x.to_string()} y1={(TOP + plot.height).to_string()} y2={(TOP + plot.height + 4.0).to_string()} />
            <text x={x.to_string()} y={(TOP + plot.height + 16.0).to_string()} text-anchor="middle">{ compact(value) }</text></g> }
    });
    let y_ticks = y_axis.ticks().map(|value| {
        let y = TOP + plot.y(value, &y_axis);
        html! { <g><line x1={(LEFT - 4.0).to_string()} x2={(LEFT + plot.width).to_string()} y1={y.to_string()} y2={y.to_string()} class="grid" />
            <text x={(LEFT - 6.0).to_string()} y={(y + 4.0).to_string()} text-anchor="end">{ compact(value) }</text></g> }
    });
    let points = props.points.clone();
    let csv = Callback::from(move |()| timeline_csv(&points));
    html! {
        <figure class="ipc-timeline" data-testid="ipc-timeline" title={Term::Timeline.explanation()}>
            <ChartExport svg={svg.clone()} stem="ipc-timeline" {csv} />
            <svg ref={svg} viewBox={format!("0 0 {width} {HEIGHT}")} width={width.to_string()} height={HEIGHT.to_string()} role="img"
                aria-label="IPC so far against the core cycle">
                <title>{ "IPC so far against the core cycle" }</title>
                { for y_ticks }
                { for x_ticks }
                <line class="axis" x1={LEFT.to_string()} x2={LEFT.to_string()} y1={TOP.to_string()} y2={(TOP + plot.height).to_string()} />
                <line class="axis" x1={LEFT.to_string()} x2={(LEFT + plot.width).to_string()} y1={(TOP + plot.height).to_string()} y2={(TOP + plot.height).to_string()} />
                <polyline class="line" points={line} data-concept={Concept::Issuing.id()} />
                <text class="axis-title" x={(LEFT + plot.width / 2.0).to_string()} y={(HEIGHT - 4.0).to_string()} text-anchor="middle">{ "core cycle" }</text>
                <text class="axis-title" transform={format!("translate(12 {}) rotate(-90)", TOP + plot.height / 2.0)} text-anchor="middle">{ "IPC (instr./cycle)" }</text>
            </svg>
            if props.points.len() < 2 {
                <figcaption class="hint">{ "The IPC timeline fills in as the run advances." }</figcaption>
            }
        </figure>
    }
}

/// The plotting area's size.
#[derive(Debug, Clone, Copy)]
struct Plot {
    width: f64,
    height: f64,
}

/// An axis from 0 to a round maximum, in round steps.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Axis {
    step: f64,
    max: f64,
}

impl Plot {
    fn x(&self, value: f64, axis: &Axis) -> f64 {
        value / axis.max * self.width
    }

    /// Distance from the top: larger values sit higher.
    fn y(&self, value: f64, axis: &Axis) -> f64 {
        self.height - value / axis.max * self.height
    }
}

impl Axis {
    /// Steps of 1, 2 or 5 times a power of ten, about [`TICKS`] of them up to
    /// `max` (up to 1 when there is no data yet).
    fn nice(max: f64) -> Self {
        let max = if max.is_finite() && max > 0.0 { max } else { 1.0 };
        let raw = max / TICKS;
        let magnitude = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * magnitude).find(|&s| s >= raw).unwrap_or(raw);
        Axis { step, max: (max / step).ceil() * step }
    }

    fn ticks(&self) -> impl Iterator<Item = f64> {
        let (step, count) = (self.step, (self.max / self.step).round() as u32);
        (0..=count).map(move |index| f64::from(index) * step)
    }
}

/// The points as SVG `x,y` pairs, thinned to about two per horizontal pixel
/// (the last point always kept) so a long run stays a light element.
fn polyline(points: &[(u64, f64)], plot: &Plot, x_axis: &Axis, y_axis: &Axis) -> String {
    let stride = points.len().div_ceil((plot.width * 2.0).max(1.0) as usize).max(1);
    let last = points.len().saturating_sub(1);
    let mut text = String::new();
    for (index, &(cycle, ipc)) in points.iter().enumerate() {
        if index % stride == 0 || index == last {
            let (x, y) = (LEFT + plot.x(cycle as f64, x_axis), TOP + plot.y(ipc, y_axis));
            let _ = write!(text, "{x:.1},{y:.1} ");
        }
    }
    text.trim_end().to_owned()
}

/// The timeline's points as CSV: the cycle, and the IPC up to it.
fn timeline_csv(points: &[(u64, f64)]) -> String {
    let header = ["core cycle".to_owned(), "IPC so far (thread instructions / cycle)".to_owned()];
    let rows = points.iter().map(|&(cycle, ipc)| [cycle.to_string(), ipc.to_string()]);
    csv_text(std::iter::once(header).chain(rows))
}

/// A tick label: `2.5k`, `1.2M`, `0.25`.
fn compact(value: f64) -> String {
    let (scaled, suffix) = [(1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        .find(|&(unit, _)| value >= unit)
        .map_or((value, ""), |(unit, suffix)| (value / unit, suffix));
    let digits = format!("{scaled:.3}");
    let digits = if digits.contains('.') { digits.trim_end_matches('0').trim_end_matches('.') } else { &digits };
    format!("{digits}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(max: f64, expect_step: f64, expect_max: f64) {
        assert_eq!(Axis::nice(max), Axis { step: expect_step, max: expect_max }, "max {max}");
    }

    #[test]
    fn axes_end_at_round_numbers() {
        check(29_831.0, 10_000.0, 30_000.0);
        check(1.37, 0.5, 1.5);
        check(100.0, 50.0, 100.0);
        check(0.0, 0.5, 1.0);
        check(f64::NAN, 0.5, 1.0);
        let ticks: Vec<f64> = Axis::nice(1.37).ticks().collect();
        assert_eq!(ticks, [0.0, 0.5, 1.0, 1.5]);
    }

    #[test]
    fn the_csv_has_every_point_and_units() {
        assert_eq!(
            timeline_csv(&[(0, 0.0), (100, 1.5)]),
            "core cycle,IPC so far (thread instructions / cycle)\n0,0\n100,1.5\n"
        );
    }

    #[test]
    fn tick_labels_are_short() {
        for (value, expect) in
            [(0.0, "0"), (0.25, "0.25"), (2500.0, "2.5k"), (30_000.0, "30k"), (1.2e6, "1.2M"), (12.0, "12")]
        {
            assert_eq!(compact(value), expect);
        }
    }

    #[test]
    fn long_runs_are_thinned_and_keep_their_last_point() {
        let plot = Plot { width: 100.0, height: 100.0 };
        let (x_axis, y_axis) = (Axis { step: 250.0, max: 1000.0 }, Axis { step: 0.5, max: 2.0 });
        let points: Vec<(u64, f64)> = (0..=1000).map(|cycle| (cycle, 1.0)).collect();
        let line = polyline(&points, &plot, &x_axis, &y_axis);
        let pairs: Vec<&str> = line.split(' ').collect();
        assert!(pairs.len() <= 202, "{} points", pairs.len());
        assert_eq!(pairs.first(), Some(&format!("{LEFT:.1},{:.1}", TOP + 50.0).as_str()));
        assert_eq!(pairs.last(), Some(&format!("{:.1},{:.1}", LEFT + 100.0, TOP + 50.0).as_str()));
        assert_eq!(polyline(&[], &plot, &x_axis, &y_axis), "");
    }
}
