//! Draws one snapshot on a 2D canvas, at the places the layout gives.
//!
//! A frame of 80 SMs is about 6,000 rectangles. They are collected per colour
//! and each colour is filled as one path: setting the fill style and filling
//! a dozen times instead of 6,000 times is what keeps a frame within a few
//! milliseconds. Bars are split into a filled and an empty part that do not
//! overlap, so the order of the colours never matters. The marks that go
//! with the colours ([`Glyph`]s in warp cells, a full queue's hatch) are
//! batched the same way, by ink colour, and filled after every colour.

use warplab_lab::{NO_CTA, SmSnapshot, Snapshot};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::explain::strip_title;
use super::glyph::{Glyph, hatch};
use super::layout::{Layout, Rect, Strip, Tile};
use super::measure::{self, FULL_ISSUE_RATE};
use crate::fetch::js_message;
use crate::palette::{Concept, neutral};

/// What one frame shows.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// The GPU at the frame's cycle.
    pub snapshot: &'a Snapshot,
    /// The snapshot before it, for issue rates.
    pub previous: Option<&'a Snapshot>,
    /// The SM to outline.
    pub selected_sm: Option<usize>,
}

/// Draws `frame` on `context`, whose coordinates are CSS pixels (the caller
/// scales for the device pixel ratio); `layout` must be the layout of
/// `frame.snapshot` (a stale one draws what still fits, never fails).
///
/// # Errors
/// The canvas refused the text of a title (a JavaScript exception).
pub fn draw(context: &CanvasRenderingContext2d, layout: &Layout, frame: &Frame<'_>) -> Result<(), JsValue> {
    context.clear_rect(0.0, 0.0, layout.width, layout.height);
    let mut batches = Batches::default();
    for (sm, tile) in layout.tiles().enumerate() {
        batches.add(neutral::TILE, tile.rect);
        if let Some(sm_snapshot) = frame.snapshot.sms.get(sm) {
            add_sm(&mut batches, &tile, sm_snapshot, frame, sm);
        }
    }
    for strip in layout.strips() {
        add_strip(&mut batches, strip, frame.snapshot);
    }
    batches.fill(context);
    if !layout.chiplets().is_empty() {
        context.set_stroke_style_str(neutral::CHIPLET_FRAME);
        context.set_line_width(1.0);
        for chiplet in layout.chiplets() {
            let r = chiplet.rect;
            context.stroke_rect(r.x + 0.5, r.y + 0.5, r.width - 1.0, r.height - 1.0);
        }
    }
    if let Some(tile) = frame.selected_sm.and_then(|sm| layout.tile(sm)) {
        context.set_stroke_style_str(neutral::SELECTED);
        context.set_line_width(2.0);
        let rect = tile.rect;
        context.stroke_rect(rect.x + 1.0, rect.y + 1.0, rect.width - 2.0, rect.height - 2.0);
    }
    draw_titles(context, layout)
}

/// The 2D context of `canvas`.
///
/// # Errors
/// The browser throws, or gives no 2D context (the canvas already has
/// another kind).
pub fn context_2d(canvas: &HtmlCanvasElement) -> Result<CanvasRenderingContext2d, String> {
    let context = canvas.get_context("2d").map_err(|e| js_message(&e))?.ok_or("the canvas has no 2D context")?;
    context.dyn_into().map_err(|_| "the canvas's context is not a 2D context".to_owned())
}

/// Rectangles waiting to be filled, grouped by colour in the order each
/// colour first appeared; the marks drawn over them likewise.
#[derive(Debug, Default)]
struct Batches {
    batches: Vec<(&'static str, Vec<Rect>)>,
    marks: Vec<(&'static str, Vec<Rect>)>,
}

/// What a bar counts, and whether it is at capacity.
#[derive(Debug, Clone, Copy)]
struct Bar {
    counts: Concept,
    full: bool,
}

/// Which way a bar fills.
#[derive(Debug, Clone, Copy)]
enum Direction {
    Rightwards,
    Upwards,
}

impl Batches {
    fn add(&mut self, colour: &'static str, rect: Rect) {
        add_to(&mut self.batches, colour, rect);
    }

    /// A mark over whatever the colours fill there.
    fn add_mark(&mut self, ink: &'static str, rect: Rect) {
        add_to(&mut self.marks, ink, rect);
    }

    /// A bar `fraction` full in the colour of what it counts; a queue at
    /// capacity is filled in the colour of a full queue instead.
    fn add_bar(&mut self, rect: Rect, fraction: f64, bar: Bar, direction: Direction) {
        let (filled, empty) = split(rect, fraction, direction);
        let shows = if bar.full { Concept::QueueFull } else { bar.counts };
        self.add(shows.swatch().fill, filled);
        self.add(neutral::TRACK, empty);
        if bar.full {
            for mark in hatch(filled) {
                self.add_mark(shows.swatch().ink, mark);
            }
        }
    }

    fn fill(&self, context: &CanvasRenderingContext2d) {
        for (colour, rects) in self.batches.iter().chain(&self.marks) {
            context.set_fill_style_str(colour);
            context.begin_path();
            for rect in rects {
                context.rect(rect.x, rect.y, rect.width, rect.height);
            }
            context.fill();
        }
    }
}

/// Adds `rect` to `colour`'s batch; an empty rectangle is skipped.
fn add_to(batches: &mut Vec<(&'static str, Vec<Rect>)>, colour: &'static str, rect: Rect) {
    if rect.width <= 0.0 || rect.height <= 0.0 {
        return;
    }
    match batches.iter_mut().find(|(batch_colour, _)| *batch_colour == colour) {
        Some((_, rects)) => rects.push(rect),
        None => batches.push((colour, vec![rect])),
    }
}

/// The filled and empty parts of a bar, cut at a whole pixel.
fn split(rect: Rect, fraction: f64, direction: Direction) -> (Rect, Rect) {
    let fraction = fraction.clamp(0.0, 1.0);
    match direction {
        Direction::Rightwards => {
            let filled = (rect.width * fraction).round();
            (Rect { width: filled, ..rect }, Rect { x: rect.x + filled, width: rect.width - filled, ..rect })
        }
        Direction::Upwards => {
            let filled = (rect.height * fraction).round();
            let empty = rect.height - filled;
            (Rect { y: rect.y + empty, height: filled, ..rect }, Rect { height: empty, ..rect })
        }
    }
}

fn add_sm(batches: &mut Batches, tile: &Tile<'_>, sm: &SmSnapshot, frame: &Frame<'_>, sm_index: usize) {
    for (cell, warp) in tile.warp_cells().zip(&sm.warps) {
        let swatch = Concept::of_warp(warp.state).swatch();
        batches.add(swatch.fill, cell);
        for mark in Glyph::of_warp(warp.state).rects(cell) {
            batches.add_mark(swatch.ink, mark);
        }
    }
    for mark in tile.cta_marks() {
        let occupied = sm.warps.get(mark.warps.clone()).and_then(|warps| warps.iter().find(|w| w.cta_slot != NO_CTA));
        if let Some(warp) = occupied {
            batches.add(neutral::CTA_BANDS[usize::from(warp.cta_slot) % neutral::CTA_BANDS.len()], mark.rect);
        }
    }
    for (scheduler, bar) in tile.issue_bars().enumerate() {
        let rate = measure::issue_rate(frame.snapshot, frame.previous, sm_index, scheduler).unwrap_or(0.0);
        let issuing = Bar { counts: Concept::Issuing, full: false };
        batches.add_bar(bar, rate / FULL_ISSUE_RATE, issuing, Direction::Rightwards);
    }
    let queues = [
        (tile.mshr_bar(), measure::mshr_depth(sm), Concept::Mshr),
        (tile.miss_queue_bar(), measure::miss_queue_depth(sm), Concept::QueueOccupancy),
    ];
    for (rect, depth, counts) in queues {
        let bar = Bar { counts, full: measure::is_full(depth) };
        batches.add_bar(rect, measure::fill_fraction(depth), bar, Direction::Rightwards);
    }
}

fn add_strip(batches: &mut Batches, strip: &Strip, snapshot: &Snapshot) {
    for item in 0..strip.items.len() {
        for (bar, &queue) in strip.kind.queues().iter().enumerate() {
            if let Some(rect) = strip.bar(item, bar) {
                let depth = measure::queue_depth(snapshot, queue, item);
                let bar = Bar { counts: Concept::QueueOccupancy, full: measure::is_full(depth) };
                batches.add_bar(rect, measure::fill_fraction(depth), bar, Direction::Upwards);
            }
        }
    }
}

fn draw_titles(context: &CanvasRenderingContext2d, layout: &Layout) -> Result<(), JsValue> {
    context.set_fill_style_str(neutral::TEXT);
    context.set_font("12px system-ui, sans-serif");
    for (chiplet, frame) in layout.chiplets().iter().enumerate() {
        let (x, y) = frame.label;
        context.fill_text(&format!("chiplet {chiplet}"), x, y)?;
    }
    for strip in layout.strips() {
        let (x, y) = strip.title;
        // A title too long for a phone is a shorter one, not a squeezed one;
        // the width limit only guards against a font wider than expected.
        context.fill_text_with_max_width(&strip_title(strip.kind, layout.width - x), x, y, layout.width)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_split_at_whole_pixels_into_disjoint_parts() {
        let rect = Rect::new(10.0, 20.0, 30.0, 8.0);
        let (filled, empty) = split(rect, 0.5, Direction::Rightwards);
        assert_eq!((filled, empty), (Rect::new(10.0, 20.0, 15.0, 8.0), Rect::new(25.0, 20.0, 15.0, 8.0)));
        let (filled, empty) = split(rect, 0.3, Direction::Upwards);
        assert_eq!((filled, empty), (Rect::new(10.0, 26.0, 30.0, 2.0), Rect::new(10.0, 20.0, 30.0, 6.0)));
        assert_eq!(split(rect, 7.0, Direction::Upwards).0, rect, "clamped to full");
        assert_eq!(split(rect, -1.0, Direction::Rightwards).1, rect, "clamped to empty");
    }

    #[test]
    fn batches_group_by_colour_and_skip_empty_rectangles() {
        let mut batches = Batches::default();
        batches.add("#000", Rect::new(0.0, 0.0, 1.0, 1.0));
        batches.add("#fff", Rect::new(1.0, 0.0, 1.0, 1.0));
        batches.add("#000", Rect::new(2.0, 0.0, 1.0, 1.0));
        batches.add("#abc", Rect::new(3.0, 0.0, 0.0, 1.0));
        let summary: Vec<(&str, usize)> =
            batches.batches.iter().map(|(colour, rects)| (*colour, rects.len())).collect();
        assert_eq!(summary, [("#000", 2), ("#fff", 1)]);
    }
}
