//! Where everything of the animation sits on the canvas: a pure function of
//! the canvas width and the GPU's shape, which drawing and hit-testing share.
//!
//! The SMs come first, as a grid of tiles. In a tile, row `s` of warp cells
//! holds the warp slots of scheduler `s` (slot `w` belongs to scheduler
//! `w % schedulers`), so each row ends in its scheduler's issue bar, and the
//! consecutive slots of one CTA form a block of columns, marked by a thin band
//! under them. Below the cells sit the L1 MSHR and miss-queue bars. The memory
//! side follows as three strips of small vertical bars: L2 slices (with the
//! request crossbar towards each), DRAM channels, and the reply crossbar
//! towards each SM.
//!
//! On a GPU of several chiplets the tiles are grouped by chiplet, each group
//! under its label and in a frame, and a fourth strip shows each chiplet's
//! outgoing inter-chiplet links.
//!
//! Every coordinate is a whole number of CSS pixels, so cells are drawn crisp
//! and a pixel read back at a cell's top-left corner has exactly the cell's
//! colour (its state's mark, `glyph.rs`, stays clear of that pixel).

use std::ops::Range;

use warplab_lab::Snapshot;

use super::measure::StripKind;

/// A rectangle in CSS pixels, origin at the canvas's top left.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// What the layout depends on; a new layout is computed only when it changes.
#[derive(Debug, Clone, PartialEq)]
pub struct LayoutInput {
    /// The canvas width in CSS pixels.
    pub width: f64,
    /// SMs to show.
    pub n_sms: usize,
    /// Warp slots per SM.
    pub warps_per_sm: usize,
    /// Warp schedulers per SM.
    pub schedulers: usize,
    /// L2 slices.
    pub n_slices: usize,
    /// DRAM channels.
    pub n_channels: usize,
    /// Each SM's chiplet; empty on a monolithic GPU.
    pub sm_chiplets: Vec<u32>,
}

/// Everything's place on the canvas.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// The canvas width in CSS pixels.
    pub width: f64,
    /// The height the canvas needs, in CSS pixels.
    pub height: f64,
    tiles: Vec<Rect>,
    parts: TileParts,
    strips: Vec<Strip>,
    /// Each chiplet's frame around its tiles, with its label's baseline.
    chiplets: Vec<ChipletFrame>,
}

/// One chiplet's group of tiles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChipletFrame {
    /// Around its tiles.
    pub rect: Rect,
    /// Where its label's baseline starts.
    pub label: (f64, f64),
}

/// What the pointer is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    /// An SM tile, between its parts.
    Sm(usize),
    /// A warp slot's cell.
    Warp {
        /// The SM.
        sm: usize,
        /// The warp slot.
        warp: usize,
    },
    /// The CTA band under a column of warp slots.
    Cta {
        /// The SM.
        sm: usize,
        /// The first warp slot of the column; the band shows its CTA.
        warp: usize,
    },
    /// A scheduler's issue bar.
    Issue {
        /// The SM.
        sm: usize,
        /// The scheduler.
        scheduler: usize,
    },
    /// An SM's L1 MSHR bar.
    Mshrs(usize),
    /// An SM's miss-queue bar.
    MissQueue(usize),
    /// A bar of the memory side.
    Queue {
        /// Its strip.
        kind: StripKind,
        /// The slice, channel or SM.
        item: usize,
        /// Which of the item's queues ([`StripKind::queues`]).
        bar: usize,
    },
}

/// One SM tile's parts, placed on the canvas.
#[derive(Debug, Clone, Copy)]
pub struct Tile<'a> {
    /// The whole tile.
    pub rect: Rect,
    parts: &'a TileParts,
}

/// The band under one column of warp cells.
#[derive(Debug, Clone, PartialEq)]
pub struct CtaMark {
    /// Where it is drawn.
    pub rect: Rect,
    /// The warp slots of the column, one per scheduler.
    pub warps: Range<usize>,
}

/// One strip of the memory side.
#[derive(Debug, Clone, PartialEq)]
pub struct Strip {
    /// What it shows.
    pub kind: StripKind,
    /// Where its title's baseline starts.
    pub title: (f64, f64),
    /// One rectangle per item, holding its bars side by side.
    pub items: Vec<Rect>,
    bar_width: f64,
}

/// Warp-cell pitch (cell plus gap) in pixels, tried from the largest down.
const PITCHES: Range<u32> = 4..13;
/// Gap between warp cells, and between bars.
const GAP: f64 = 1.0;
/// Margin inside a tile.
const TILE_PADDING: f64 = 2.0;
/// Space between tiles.
const TILE_GAP: f64 = 6.0;
/// Height of the CTA band under each row of cells.
const CTA_MARK_HEIGHT: f64 = 2.0;
/// Height of the MSHR and miss-queue bars.
const SM_BAR_HEIGHT: f64 = 3.0;
/// Narrowest issue bar at its full length (one issue per cycle).
const MIN_ISSUE_WIDTH: f64 = 10.0;
/// A scheduler's slots beyond this many columns wrap into another band, so a
/// one-scheduler SM stays a compact block.
const MAX_COLUMNS: usize = 16;
/// Space above and between the memory strips.
const SECTION_GAP: f64 = 10.0;
/// Room for a strip's title line (12-px text).
const TITLE_HEIGHT: f64 = 16.0;
/// Height of the memory side's vertical bars.
const QUEUE_BAR_HEIGHT: f64 = 22.0;
/// Space between rows of a strip.
const ROW_GAP: f64 = 4.0;
/// Space between items of a strip.
const ITEM_GAP: f64 = 4.0;
/// Bar widths of the memory side.
const QUEUE_BAR_WIDTHS: Range<u32> = 3..9;
/// Room above a chiplet's tiles for its label, and between chiplets.
const CHIPLET_LABEL_HEIGHT: f64 = 16.0;

impl Rect {
    /// A rectangle from its top left corner and size.
    pub const fn new(x: f64, y: f64, width: f64, height: f64) -> Self {
        Rect { x, y, width, height }
    }

    /// Whether the point lies inside (left and top edges included).
    pub fn contains(&self, x: f64, y: f64) -> bool {
        x >= self.x && x < self.right() && y >= self.y && y < self.bottom()
    }

    /// The centre point.
    pub fn centre(&self) -> (f64, f64) {
        (self.x + self.width / 2.0, self.y + self.height / 2.0)
    }

    /// The right edge.
    pub fn right(&self) -> f64 {
        self.x + self.width
    }

    /// The bottom edge.
    pub fn bottom(&self) -> f64 {
        self.y + self.height
    }

    fn translate(self, dx: f64, dy: f64) -> Rect {
        Rect { x: self.x + dx, y: self.y + dy, ..self }
    }
}

impl Hit {
    /// The SM whose tile the part belongs to (`None` on the memory side).
    pub fn sm(self) -> Option<usize> {
        match self {
            Hit::Sm(sm) | Hit::Mshrs(sm) | Hit::MissQueue(sm) => Some(sm),
            Hit::Warp { sm, .. } | Hit::Cta { sm, .. } | Hit::Issue { sm, .. } => Some(sm),
            Hit::Queue { .. } => None,
        }
    }
}

impl LayoutInput {
    /// The shape of `snapshot` drawn `width` CSS pixels wide.
    pub fn of(snapshot: &Snapshot, width: f64) -> Self {
        LayoutInput {
            width,
            n_sms: snapshot.sms.len(),
            warps_per_sm: snapshot.sms.iter().map(|sm| sm.warps.len()).max().unwrap_or(0),
            schedulers: snapshot.schedulers_per_sm as usize,
            n_slices: StripKind::Slices.items(snapshot),
            n_channels: StripKind::Channels.items(snapshot),
            sm_chiplets: snapshot.sm_chiplets.clone(),
        }
    }

    fn items(&self, kind: StripKind) -> usize {
        match kind {
            StripKind::Slices => self.n_slices,
            StripKind::Channels => self.n_channels,
            StripKind::Replies => self.n_sms,
            StripKind::Links => self.chiplet_count(),
        }
    }

    /// Chiplets (0 on a monolithic GPU).
    fn chiplet_count(&self) -> usize {
        self.sm_chiplets.iter().max().map_or(0, |&last| last as usize + 1)
    }

    /// The SMs of each group of tiles, in drawing order: one group per
    /// chiplet, or one of every SM.
    fn groups(&self) -> Vec<Vec<usize>> {
        let n = self.chiplet_count();
        if n == 0 || self.sm_chiplets.len() != self.n_sms {
            return vec![(0..self.n_sms).collect()];
        }
        let mut groups = vec![Vec::new(); n];
        for (sm, &chiplet) in self.sm_chiplets.iter().enumerate() {
            groups[chiplet as usize].push(sm);
        }
        groups
    }

    /// Height of the SM grid at `columns` tiles a row and `tile_height`.
    fn grid_height(&self, columns: usize, tile_height: f64) -> f64 {
        let groups = self.groups();
        let label = if groups.len() > 1 { CHIPLET_LABEL_HEIGHT } else { 0.0 };
        groups.iter().map(|g| g.len().div_ceil(columns.max(1)) as f64 * (tile_height + TILE_GAP) + label).sum()
    }
}

impl Layout {
    /// Places everything. The warp cells get the largest pitch at which the
    /// SM grid stays within half the canvas width in height (so 80 SMs fit a
    /// laptop screen with the memory side), but never less than 4 px.
    pub fn new(input: &LayoutInput) -> Self {
        let shape = TileShape::of(input);
        let (parts, columns) = choose_tile(input, &shape);
        let (tiles, chiplets) = place_tiles(input, columns, &parts);
        let grid_bottom = tiles.iter().map(Rect::bottom).fold(0.0, f64::max);
        let mut top = grid_bottom;
        let mut strips = Vec::new();
        for kind in StripKind::ALL {
            let n_items = input.items(kind);
            if n_items > 0 {
                let strip = Strip::new(kind, n_items, top + SECTION_GAP, input.width);
                top = strip.items.iter().map(Rect::bottom).fold(top, f64::max);
                strips.push(strip);
            }
        }
        Layout { width: input.width, height: top + TILE_PADDING, tiles, parts, strips, chiplets }
    }

    /// Each chiplet's frame, in chiplet order (none on a monolithic GPU).
    pub fn chiplets(&self) -> &[ChipletFrame] {
        &self.chiplets
    }

    /// SM `sm`'s tile.
    pub fn tile(&self, sm: usize) -> Option<Tile<'_>> {
        self.tiles.get(sm).map(|&rect| Tile { rect, parts: &self.parts })
    }

    /// Every SM's tile, in SM order.
    pub fn tiles(&self) -> impl Iterator<Item = Tile<'_>> {
        self.tiles.iter().map(|&rect| Tile { rect, parts: &self.parts })
    }

    /// The memory side's strips, top to bottom (strips without items left out).
    pub fn strips(&self) -> &[Strip] {
        &self.strips
    }

    /// What lies under the point, if anything.
    pub fn hit(&self, x: f64, y: f64) -> Option<Hit> {
        let tile = self.tiles.iter().enumerate().find(|(_, tile)| tile.contains(x, y));
        match tile {
            Some((sm, tile)) => Some(self.parts.hit(sm, x - tile.x, y - tile.y)),
            None => self.strips.iter().find_map(|strip| strip.hit(x, y)),
        }
    }
}

impl Tile<'_> {
    /// Warp slot `warp`'s cell.
    pub fn warp_cell(&self, warp: usize) -> Option<Rect> {
        self.parts.warp_cells.get(warp).map(|cell| self.place(*cell))
    }

    /// Every warp slot's cell, in slot order.
    pub fn warp_cells(&self) -> impl Iterator<Item = Rect> + '_ {
        self.parts.warp_cells.iter().map(|cell| self.place(*cell))
    }

    /// The CTA bands, one per column of cells.
    pub fn cta_marks(&self) -> impl Iterator<Item = CtaMark> + '_ {
        self.parts.cta_marks.iter().map(|mark| CtaMark { rect: self.place(mark.rect), warps: mark.warps.clone() })
    }

    /// Each scheduler's issue bar (its full length), in scheduler order.
    pub fn issue_bars(&self) -> impl Iterator<Item = Rect> + '_ {
        self.parts.issue_bars.iter().map(|bar| self.place(*bar))
    }

    /// The L1 MSHR bar.
    pub fn mshr_bar(&self) -> Rect {
        self.place(self.parts.mshr_bar)
    }

    /// The miss-queue bar.
    pub fn miss_queue_bar(&self) -> Rect {
        self.place(self.parts.miss_queue_bar)
    }

    fn place(&self, rect: Rect) -> Rect {
        rect.translate(self.rect.x, self.rect.y)
    }
}

impl Strip {
    /// Lays out `n_items` items of `kind` from `top`: as many per row as fit
    /// at the narrowest bars, rows balanced, bars widened to use the room.
    fn new(kind: StripKind, n_items: usize, top: f64, width: f64) -> Self {
        let n_bars = kind.queues().len();
        let item_width = |bar_width: f64| n_bars as f64 * (bar_width + GAP) - GAP;
        let narrowest = item_width(f64::from(QUEUE_BAR_WIDTHS.start));
        let fit = ((width + ITEM_GAP) / (narrowest + ITEM_GAP)).floor().max(1.0) as usize;
        let rows = n_items.div_ceil(fit).max(1);
        let per_row = n_items.div_ceil(rows);
        let room = ((width + ITEM_GAP) / per_row as f64 - ITEM_GAP).floor();
        let bar_width = QUEUE_BAR_WIDTHS
            .rev()
            .map(f64::from)
            .find(|&bar_width| item_width(bar_width) <= room)
            .unwrap_or(f64::from(QUEUE_BAR_WIDTHS.start));
        let size = (item_width(bar_width), QUEUE_BAR_HEIGHT);
        let first_row = top + TITLE_HEIGHT;
        let items = (0..n_items)
            .map(|item| {
                let (row, column) = (item / per_row, item % per_row);
                let x = column as f64 * (size.0 + ITEM_GAP);
                Rect::new(x, first_row + row as f64 * (size.1 + ROW_GAP), size.0, size.1)
            })
            .collect();
        Strip { kind, title: (0.0, top + TITLE_HEIGHT - 4.0), items, bar_width }
    }

    /// Bar `bar` of item `item`: its full height, filled from the bottom.
    pub fn bar(&self, item: usize, bar: usize) -> Option<Rect> {
        let rect = self.items.get(item)?;
        (bar < self.kind.queues().len())
            .then(|| Rect::new(rect.x + bar as f64 * (self.bar_width + GAP), rect.y, self.bar_width, rect.height))
    }

    fn hit(&self, x: f64, y: f64) -> Option<Hit> {
        let item = self.items.iter().position(|rect| rect.contains(x, y))?;
        let bar = (0..self.kind.queues().len()).find(|&bar| self.bar(item, bar).is_some_and(|r| r.contains(x, y)))?;
        Some(Hit::Queue { kind: self.kind, item, bar })
    }
}

/// How the warp slots of a tile are arranged.
#[derive(Debug, Clone, Copy)]
struct TileShape {
    warps: usize,
    schedulers: usize,
    /// Cell columns per band.
    columns: usize,
    /// Bands of `schedulers` rows.
    bands: usize,
}

/// One SM tile's parts relative to its top left corner.
#[derive(Debug, Clone, PartialEq)]
struct TileParts {
    width: f64,
    height: f64,
    warp_cells: Vec<Rect>,
    cta_marks: Vec<CtaMark>,
    issue_bars: Vec<Rect>,
    mshr_bar: Rect,
    miss_queue_bar: Rect,
}

impl TileShape {
    fn of(input: &LayoutInput) -> Self {
        let schedulers = input.schedulers.max(1);
        let per_scheduler = input.warps_per_sm.div_ceil(schedulers).max(1);
        let columns = per_scheduler.min(MAX_COLUMNS);
        TileShape { warps: input.warps_per_sm, schedulers, columns, bands: per_scheduler.div_ceil(columns) }
    }

    /// Column `index` (counted across bands) of cells: its band and column in the band.
    fn band_and_column(&self, index: usize) -> (usize, usize) {
        (index / self.columns, index % self.columns)
    }
}

impl TileParts {
    fn new(shape: &TileShape, pitch: f64, issue_width: f64) -> Self {
        let cell = pitch - GAP;
        let band_height = shape.schedulers as f64 * pitch + CTA_MARK_HEIGHT + GAP;
        let cell_origin = |index: usize, scheduler: usize| {
            let (band, column) = shape.band_and_column(index);
            let y = TILE_PADDING + band as f64 * band_height + scheduler as f64 * pitch;
            (TILE_PADDING + column as f64 * pitch, y)
        };
        let warp_cells = (0..shape.warps)
            .map(|warp| {
                let (x, y) = cell_origin(warp / shape.schedulers, warp % shape.schedulers);
                Rect::new(x, y, cell, cell)
            })
            .collect();
        let cta_marks = (0..shape.warps.div_ceil(shape.schedulers))
            .map(|index| {
                let (x, y) = cell_origin(index, shape.schedulers);
                let first = index * shape.schedulers;
                CtaMark {
                    rect: Rect::new(x, y, cell, CTA_MARK_HEIGHT),
                    warps: first..(first + shape.schedulers).min(shape.warps),
                }
            })
            .collect();
        let issue_x = TILE_PADDING + shape.columns as f64 * pitch - GAP + 2.0 * GAP;
        let issue_bars = (0..shape.schedulers)
            .map(|scheduler| Rect::new(issue_x, TILE_PADDING + scheduler as f64 * pitch, issue_width, cell))
            .collect();
        let width = issue_x + issue_width + TILE_PADDING;
        let bars_y = TILE_PADDING + shape.bands as f64 * band_height;
        let bar = |y: f64| Rect::new(TILE_PADDING, y, width - 2.0 * TILE_PADDING, SM_BAR_HEIGHT);
        let miss_queue_y = bars_y + SM_BAR_HEIGHT + GAP;
        TileParts {
            width,
            height: miss_queue_y + SM_BAR_HEIGHT + TILE_PADDING,
            warp_cells,
            cta_marks,
            issue_bars,
            mshr_bar: bar(bars_y),
            miss_queue_bar: bar(miss_queue_y),
        }
    }

    /// What lies at `(x, y)` relative to the tile of SM `sm`.
    fn hit(&self, sm: usize, x: f64, y: f64) -> Hit {
        let find = |rects: &[Rect]| rects.iter().position(|rect| rect.contains(x, y));
        if let Some(warp) = find(&self.warp_cells) {
            Hit::Warp { sm, warp }
        } else if let Some(mark) = self.cta_marks.iter().find(|mark| mark.rect.contains(x, y)) {
            Hit::Cta { sm, warp: mark.warps.start }
        } else if let Some(scheduler) = find(&self.issue_bars) {
            Hit::Issue { sm, scheduler }
        } else if self.mshr_bar.contains(x, y) {
            Hit::Mshrs(sm)
        } else if self.miss_queue_bar.contains(x, y) {
            Hit::MissQueue(sm)
        } else {
            Hit::Sm(sm)
        }
    }
}

/// The largest pitch whose grid is no taller than half the width (the
/// smallest pitch when none is), with the tile widened to share the row's
/// room, and the number of tile columns.
fn choose_tile(input: &LayoutInput, shape: &TileShape) -> (TileParts, usize) {
    let budget = input.width / 2.0;
    let fits = |pitch: f64| {
        let parts = TileParts::new(shape, pitch, MIN_ISSUE_WIDTH);
        let columns = tile_columns(input, parts.width);
        (input.grid_height(columns, parts.height) <= budget).then_some(pitch)
    };
    let pitch = PITCHES.rev().map(f64::from).find_map(fits).unwrap_or(f64::from(PITCHES.start));
    let narrow = TileParts::new(shape, pitch, MIN_ISSUE_WIDTH);
    let columns = tile_columns(input, narrow.width);
    // Leftover room goes to the issue bars (finer rates), up to half the cells' width.
    let room = ((input.width + TILE_GAP) / columns as f64 - TILE_GAP).floor() - narrow.width;
    let issue_width = (MIN_ISSUE_WIDTH + room).min(shape.columns as f64 * pitch / 2.0).max(MIN_ISSUE_WIDTH);
    (TileParts::new(shape, pitch, issue_width.floor()), columns)
}

/// How many tiles `tile_width` wide fit side by side (at least one, at most one per SM).
fn tile_columns(input: &LayoutInput, tile_width: f64) -> usize {
    let fit = ((input.width + TILE_GAP) / (tile_width + TILE_GAP)).floor().max(1.0) as usize;
    fit.min(input.n_sms.max(1))
}

/// Each SM's tile, and each chiplet's frame: the groups of
/// [`LayoutInput::groups`] one under the other, each starting a row (under
/// its label when there are several).
fn place_tiles(input: &LayoutInput, columns: usize, parts: &TileParts) -> (Vec<Rect>, Vec<ChipletFrame>) {
    let groups = input.groups();
    let labelled = groups.len() > 1;
    let mut tiles = vec![Rect::default(); input.n_sms];
    let mut frames = Vec::new();
    let mut top = 0.0;
    for group in &groups {
        let label_top = top;
        if labelled {
            top += CHIPLET_LABEL_HEIGHT;
        }
        for (k, &sm) in group.iter().enumerate() {
            let (row, column) = (k / columns, k % columns);
            let x = column as f64 * (parts.width + TILE_GAP);
            tiles[sm] = Rect::new(x, top + row as f64 * (parts.height + TILE_GAP), parts.width, parts.height);
        }
        let rows = group.len().div_ceil(columns.max(1));
        let bottom = top + rows as f64 * (parts.height + TILE_GAP) - TILE_GAP;
        let width = group.len().min(columns) as f64 * (parts.width + TILE_GAP) - TILE_GAP;
        if labelled {
            let rect = Rect::new(0.0, label_top, width.max(0.0), bottom - label_top);
            frames.push(ChipletFrame { rect, label: (2.0, label_top + 12.0) });
        }
        top = bottom + TILE_GAP;
    }
    (tiles, frames)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(width: f64, n_sms: usize) -> LayoutInput {
        LayoutInput { width, n_sms, warps_per_sm: 64, schedulers: 4, n_slices: 64, n_channels: 32, sm_chiplets: vec![] }
    }

    fn overlaps(a: &Rect, b: &Rect) -> bool {
        a.x < b.right() && b.x < a.right() && a.y < b.bottom() && b.y < a.bottom()
    }

    fn inside(inner: &Rect, outer: &Rect) -> bool {
        inner.x >= outer.x && inner.y >= outer.y && inner.right() <= outer.right() && inner.bottom() <= outer.bottom()
    }

    fn assert_disjoint(rects: &[Rect], what: &str) {
        for (i, a) in rects.iter().enumerate() {
            for b in &rects[i + 1..] {
                assert!(!overlaps(a, b), "{what}: {a:?} overlaps {b:?}");
            }
        }
    }

    /// Every part of a tile, each bar at its full length.
    fn tile_parts(tile: &Tile<'_>) -> Vec<Rect> {
        let mut parts: Vec<Rect> = tile.warp_cells().collect();
        parts.extend(tile.cta_marks().map(|mark| mark.rect));
        parts.extend(tile.issue_bars());
        parts.extend([tile.mshr_bar(), tile.miss_queue_bar()]);
        parts
    }

    /// Checks that tiles and strip items are disjoint and on the canvas, that
    /// each tile's parts are disjoint and inside it, that each item's bars are
    /// inside it, and that every coordinate is a whole pixel.
    fn check_geometry(input: LayoutInput) {
        let layout = Layout::new(&input);
        let canvas = Rect::new(0.0, 0.0, layout.width, layout.height);
        let mut top_level: Vec<Rect> = layout.tiles().map(|tile| tile.rect).collect();
        assert_eq!(top_level.len(), input.n_sms);
        for tile in layout.tiles() {
            let parts = tile_parts(&tile);
            assert_eq!(parts.len(), 64 + 16 + 4 + 2);
            assert_disjoint(&parts, "tile parts");
            for part in &parts {
                assert!(inside(part, &tile.rect), "{part:?} outside its tile {:?}", tile.rect);
                assert!([part.x, part.y, part.width, part.height].iter().all(|v| v.fract() == 0.0), "{part:?}");
            }
        }
        for strip in layout.strips() {
            for (item, rect) in strip.items.iter().enumerate() {
                let bars: Vec<Rect> = (0..strip.kind.queues().len()).filter_map(|bar| strip.bar(item, bar)).collect();
                assert_eq!(bars.len(), strip.kind.queues().len());
                assert_disjoint(&bars, "bars");
                assert!(bars.iter().all(|bar| inside(bar, rect) && bar.width >= 3.0));
            }
            top_level.extend(&strip.items);
        }
        assert_disjoint(&top_level, "tiles and strip items");
        for rect in &top_level {
            assert!(inside(rect, &canvas), "{rect:?} outside the {}×{} canvas", layout.width, layout.height);
        }
    }

    #[test]
    fn nothing_overlaps_and_everything_is_on_the_canvas() {
        for width in [300.0, 390.0, 1100.0] {
            for n_sms in [1, 28, 80, 132] {
                check_geometry(input(width, n_sms));
            }
        }
    }

    #[test]
    fn eighty_sms_fit_a_laptop_and_a_phone() {
        let wide = Layout::new(&input(1100.0, 80));
        let cell = wide.tile(0).and_then(|tile| tile.warp_cell(0)).expect("SM 0 has slot 0");
        assert!(cell.width >= 5.0, "cells readable on a laptop: {cell:?}");
        assert!(wide.height <= 800.0, "80 SMs and the memory side fit a laptop screen: {}", wide.height);
        let narrow = Layout::new(&input(390.0, 80));
        let last = narrow.tile(79).expect("SM 79 has a tile").rect;
        assert!(last.right() <= 390.0 && narrow.height < 1600.0, "{last:?}, {}", narrow.height);
    }

    #[test]
    fn a_schedulers_slots_form_a_row_and_a_ctas_slots_a_block_of_columns() {
        let layout = Layout::new(&input(1100.0, 2));
        let tile = layout.tile(1).expect("SM 1 has a tile");
        let cell = |warp| tile.warp_cell(warp).expect("the slot has a cell");
        let issue: Vec<Rect> = tile.issue_bars().collect();
        for warp in [0, 5, 62] {
            assert_eq!(cell(warp).y, issue[warp % 4].y, "warp {warp} sits in its scheduler's row");
        }
        assert_eq!(cell(4).x, cell(7).x, "slots 4..8 share a column");
        assert!(cell(8).x > cell(4).x);
        let marks: Vec<CtaMark> = tile.cta_marks().collect();
        assert_eq!(marks.len(), 16);
        assert_eq!(marks[1].warps, 4..8);
        assert!(marks[1].rect.y > cell(7).bottom() && marks[1].rect.x == cell(4).x);
    }

    #[test]
    fn hits_name_what_is_under_the_pointer() {
        let layout = Layout::new(&input(1100.0, 80));
        let tile = layout.tile(3).expect("SM 3 has a tile");
        let at = |rect: Option<Rect>| {
            let (x, y) = rect.expect("the part exists").centre();
            layout.hit(x, y)
        };
        assert_eq!(at(tile.warp_cell(12)), Some(Hit::Warp { sm: 3, warp: 12 }));
        assert_eq!(at(tile.cta_marks().nth(2).map(|mark| mark.rect)), Some(Hit::Cta { sm: 3, warp: 8 }));
        assert_eq!(at(tile.issue_bars().nth(1)), Some(Hit::Issue { sm: 3, scheduler: 1 }));
        assert_eq!(at(Some(tile.mshr_bar())), Some(Hit::Mshrs(3)));
        assert_eq!(at(Some(tile.miss_queue_bar())), Some(Hit::MissQueue(3)));
        assert_eq!(layout.hit(tile.rect.x + 0.5, tile.rect.y + 0.5), Some(Hit::Sm(3)), "the tile's margin");
        for strip in layout.strips() {
            let last = strip.items.len() - 1;
            let expect = Some(Hit::Queue { kind: strip.kind, item: last, bar: 0 });
            assert_eq!(at(strip.bar(last, 0)), expect);
        }
        assert_eq!(layout.hit(-1.0, 5.0), None);
        assert_eq!(layout.hit(5.0, layout.height + 1.0), None);
    }

    #[test]
    fn one_scheduler_wraps_its_slots_into_bands() {
        let layout = Layout::new(&LayoutInput { schedulers: 1, ..input(1100.0, 4) });
        let tile = layout.tile(0).expect("SM 0 has a tile");
        let parts = tile_parts(&tile);
        assert_eq!(parts.len(), 64 + 64 + 1 + 2);
        assert_disjoint(&parts, "one-scheduler tile");
        let cell = |warp| tile.warp_cell(warp).expect("the slot has a cell");
        assert_eq!(cell(16).x, cell(0).x, "slot 16 starts the second band");
        assert!(cell(16).y > cell(0).bottom());
    }

    #[test]
    fn odd_shapes_give_a_layout_without_failing() {
        for input in [
            LayoutInput {
                width: 0.0,
                n_sms: 0,
                warps_per_sm: 0,
                schedulers: 0,
                n_slices: 0,
                n_channels: 0,
                sm_chiplets: vec![],
            },
            LayoutInput {
                width: 20.0,
                n_sms: 1024,
                warps_per_sm: 3,
                schedulers: 4,
                n_slices: 1,
                n_channels: 0,
                sm_chiplets: vec![],
            },
            LayoutInput {
                width: 1e6,
                n_sms: 2,
                warps_per_sm: 100,
                schedulers: 3,
                n_slices: 5,
                n_channels: 5,
                sm_chiplets: vec![],
            },
            // A chiplet map that does not match the SMs is ignored.
            LayoutInput {
                width: 300.0,
                n_sms: 3,
                warps_per_sm: 4,
                schedulers: 1,
                n_slices: 2,
                n_channels: 1,
                sm_chiplets: vec![0, 1],
            },
        ] {
            let layout = Layout::new(&input);
            assert_eq!(layout.tiles().count(), input.n_sms);
            assert!(layout.height.is_finite() && layout.height >= 0.0);
            let links = input.chiplet_count();
            assert_eq!(
                layout.strips().len(),
                [input.n_slices, input.n_channels, input.n_sms, links].iter().filter(|&&n| n > 0).count()
            );
        }
    }

    #[test]
    fn chiplets_group_their_tiles_in_frames_and_get_a_links_strip() {
        // 16 SMs on 4 chiplets, interleaved: SM i on chiplet i mod 4.
        let sm_chiplets: Vec<u32> = (0..16).map(|sm| sm % 4).collect();
        let grouped = LayoutInput { sm_chiplets, ..input(1100.0, 16) };
        let layout = Layout::new(&grouped);
        check_geometry(grouped);
        assert_eq!(layout.chiplets().len(), 4);
        for (c, frame) in layout.chiplets().iter().enumerate() {
            for sm in (c..16).step_by(4) {
                let tile = layout.tile(sm).expect("a tile").rect;
                assert!(inside(&tile, &frame.rect), "SM {sm} in chiplet {c}'s frame");
            }
        }
        let frames: Vec<Rect> = layout.chiplets().iter().map(|f| f.rect).collect();
        assert_disjoint(&frames, "chiplet frames");
        let links = layout.strips().iter().find(|s| s.kind == StripKind::Links).expect("a links strip");
        assert_eq!(links.items.len(), 4);
        assert!(Layout::new(&input(1100.0, 16)).chiplets().is_empty(), "a monolithic GPU has no frames");
    }
}
