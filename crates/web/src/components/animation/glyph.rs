//! The marks drawn inside a warp cell and along a full queue's bar, so that
//! colour is never the only thing telling states apart (issue 42: waiting on
//! memory, waiting on a result and a full queue were three close warm
//! colours). Every warp state but ready has a mark of its own, so a ready
//! warp is the plain cell. The canvas and the legend's swatches draw the
//! same rectangles.
//!
//! Every mark is made of whole-pixel rectangles in the state's ink colour
//! (black or white, whichever reads on its fill), and none covers a cell's
//! top-left pixel, so a pixel read there is always the state's colour.

use warplab_lab::WarpState;

use super::layout::Rect;

/// A mark inside a warp cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Glyph {
    /// Nothing: a ready warp.
    Plain,
    /// A line across the middle: waiting on memory.
    Dash,
    /// A dot in the middle: waiting on a result.
    Dot,
    /// A line down the middle, a wall: at a barrier.
    Wall,
    /// A cross: every unit the instruction needs is busy.
    Cross,
    /// A square in the bottom right corner: waiting for fetch.
    Corner,
    /// A line along the bottom: a warp that is done.
    Floor,
    /// A square in the top right corner: a slot with no warp.
    Flag,
}

/// Pixels between a full queue's hatch marks.
const HATCH_PITCH: f64 = 4.0;

impl Glyph {
    /// The mark of a warp in `state`.
    pub const fn of_warp(state: WarpState) -> Glyph {
        match state {
            WarpState::Memory => Glyph::Dash,
            WarpState::Dependence => Glyph::Dot,
            WarpState::Barrier => Glyph::Wall,
            WarpState::Structural => Glyph::Cross,
            WarpState::Fetch => Glyph::Corner,
            WarpState::Done => Glyph::Floor,
            WarpState::Empty => Glyph::Flag,
            WarpState::Ready => Glyph::Plain,
        }
    }

    /// The mark's rectangles inside `cell` (at most two; none for
    /// [`Glyph::Plain`]).
    pub fn rects(self, cell: Rect) -> impl Iterator<Item = Rect> {
        let size = cell.width.min(cell.height);
        // Thin enough to leave the colour around it, at least a pixel.
        let thickness = (size / 4.0).floor().max(1.0);
        let inset = if size >= 7.0 { 2.0 } else { (size / 4.0).floor() };
        let middle = ((size - thickness) / 2.0).floor();
        let dash = Rect::new(cell.x + inset, cell.y + middle, size - 2.0 * inset, thickness);
        let wall = Rect::new(cell.x + middle, cell.y + inset, thickness, size - 2.0 * inset);
        let dot_size = (size / 3.0).round().max(1.0);
        let dot_at = ((size - dot_size) / 2.0).floor();
        let dot = Rect::new(cell.x + dot_at, cell.y + dot_at, dot_size, dot_size);
        let corner_at = size - dot_size - if size >= 7.0 { 1.0 } else { 0.0 };
        let corner = Rect::new(cell.x + corner_at, cell.y + corner_at, dot_size, dot_size);
        let edge = if size >= 7.0 { 1.0 } else { 0.0 };
        let floor = Rect::new(cell.x + inset, cell.y + size - thickness - edge, size - 2.0 * inset, thickness);
        let flag = Rect::new(cell.x + corner_at, cell.y + edge, dot_size, dot_size);
        let rects = match self {
            Glyph::Plain => [None, None],
            Glyph::Dash => [Some(dash), None],
            Glyph::Dot => [Some(dot), None],
            Glyph::Wall => [Some(wall), None],
            Glyph::Cross => [Some(dash), Some(wall)],
            Glyph::Corner => [Some(corner), None],
            Glyph::Floor => [Some(floor), None],
            Glyph::Flag => [Some(flag), None],
        };
        rects.into_iter().flatten()
    }
}

/// A full queue's hatch: a mark across `bar` every few pixels along it,
/// rightwards or upwards (the longer side).
pub fn hatch(bar: Rect) -> impl Iterator<Item = Rect> {
    let along_x = bar.width >= bar.height;
    let length = if along_x { bar.width } else { bar.height };
    let marks = ((length - 1.0) / HATCH_PITCH).floor().max(0.0) as usize;
    (1..=marks).map(move |mark| {
        let offset = mark as f64 * HATCH_PITCH - 1.0;
        if along_x {
            Rect::new(bar.x + offset, bar.y, 1.0, bar.height)
        } else {
            Rect::new(bar.x, bar.bottom() - offset - 1.0, bar.width, 1.0)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixels(glyph: Glyph, size: f64) -> Vec<(u32, u32)> {
        let mut pixels = Vec::new();
        for rect in glyph.rects(Rect::new(0.0, 0.0, size, size)) {
            for y in rect.y as u32..(rect.y + rect.height) as u32 {
                for x in rect.x as u32..(rect.x + rect.width) as u32 {
                    pixels.push((x, y));
                }
            }
        }
        pixels.sort_unstable();
        pixels.dedup();
        pixels
    }

    #[test]
    fn every_state_but_ready_has_a_distinct_mark_at_every_cell_size() {
        let states: Vec<WarpState> = WarpState::ALL.into_iter().filter(|&s| s != WarpState::Ready).collect();
        for size in 3..=11 {
            let size = f64::from(size);
            let marks: Vec<_> = states.iter().map(|&state| pixels(Glyph::of_warp(state), size)).collect();
            for (i, a) in marks.iter().enumerate() {
                assert!(!a.is_empty(), "{:?} has a mark at {size} px", states[i]);
                for b in &marks[i + 1..] {
                    assert_ne!(a, b, "two states share a mark at {size} px");
                }
            }
        }
    }

    #[test]
    fn marks_stay_inside_the_cell_and_off_its_top_left_pixel() {
        let glyphs = [Glyph::Dash, Glyph::Dot, Glyph::Wall, Glyph::Cross, Glyph::Corner, Glyph::Floor, Glyph::Flag];
        for size in 3..=11 {
            for glyph in glyphs {
                let pixels = pixels(glyph, f64::from(size));
                assert!(!pixels.contains(&(0, 0)), "{glyph:?} at {size} px covers the top-left pixel");
                assert!(pixels.iter().all(|&(x, y)| x < size && y < size), "{glyph:?} at {size} px spills");
                assert!(3 * pixels.len() <= 2 * (size * size) as usize, "{glyph:?} at {size} px hides the colour");
            }
        }
        assert_eq!(Glyph::Plain.rects(Rect::new(0.0, 0.0, 8.0, 8.0)).count(), 0);
    }

    #[test]
    fn a_full_bar_is_hatched_inside_itself() {
        let bar = Rect::new(10.0, 20.0, 17.0, 3.0);
        let marks: Vec<Rect> = hatch(bar).collect();
        assert_eq!(marks.iter().map(|m| m.x).collect::<Vec<_>>(), [13.0, 17.0, 21.0, 25.0]);
        let upright = Rect::new(0.0, 0.0, 6.0, 22.0);
        assert!(hatch(upright).all(|m| m.width == 6.0 && m.y >= 0.0 && m.bottom() <= 22.0));
        assert_eq!(hatch(upright).count(), 5);
    }
}
