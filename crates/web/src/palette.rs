//! The page's one colour vocabulary: every concept a view colours (a warp's
//! state, an L1 outcome, a part of a miss's latency, a CPI term, a line of
//! the scaling chart) has exactly one colour here, and no colour means two
//! concepts. The animation, the report's charts, the CPI stacks and the scale
//! panel's charts all take their colours from [`Concept::swatch`], and
//! `www/style.css` carries the same colours as custom properties
//! (`--concept-<id>`, checked against [`css_properties`] by a test), which
//! the stylesheet and the e2e palette test read.
//!
//! The choice: Okabe and Ito's eight colours (safe for the common kinds of
//! colour blindness) for the concepts a teacher points at most, extended
//! with a few of Paul Tol's "muted" colours (also designed for colour-blind
//! readers) and with lightened or darkened variants. A hue names a part of
//! the GPU, the lightness an aspect of it: pink is the L1's MSHRs (a miss
//! waiting for one, the CPI stack's `mshr`, the occupancy histogram, the
//! animation's MSHR bar) and dark wine a reservation fail, when no MSHR was
//! free; sky blue the crossbar; greens the DRAM; browns the L1's misses.
//! Waiting on memory (dark vermillion), waiting on a result (orange) and a
//! queue full (dark maroon) are set apart by lightness, which the common
//! colour-vision deficiencies keep: the tests check every view's colours
//! stay apart as a protanope, a deuteranope and a tritanope sees them
//! (Machado, Oliveira and Fernandes 2009), and that no colour is the only
//! way to tell two things apart (each view names its parts in words too).

use warplab_lab::WarpState;

/// A fill and the text colour that reads on it (contrast 4.5:1 or more).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Swatch {
    /// The fill, as `#RRGGBB`.
    pub fill: &'static str,
    /// Text drawn on the fill.
    pub ink: &'static str,
}

/// Everything a view colours. Two views showing the same thing (the
/// animation's "at a barrier" and the issue slots' "barrier") show the same
/// concept, so the same colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Concept {
    /// A warp ready to issue, a scheduler slot that issued, the CPI stack's
    /// base (issuing itself), and the IPC over time.
    Issuing,
    /// A warp waiting on memory (a load, a fence, room in the memory pipeline).
    WaitingOnMemory,
    /// A warp waiting on an arithmetic result; the CPI stack's `issue` term.
    WaitingOnResult,
    /// A warp at a barrier, in the animation, the issue slots and the CPI stack.
    AtBarrier,
    /// A warp waiting for fetch and decode.
    WaitingForFetch,
    /// A ready warp whose unit is busy; the CPI stack's execution-unit floor.
    UnitBusy,
    /// The CPI stack's LD/ST-unit floor: the unit memory instructions need.
    LdstUnit,
    /// A warp that ran its last instruction and drains (waits for its
    /// stores); the CPI stack's stores-at-exit term.
    Done,
    /// A warp slot or scheduler with no warp.
    NoWarp,
    /// How full a queue is (the animation's bars).
    QueueOccupancy,
    /// A queue at capacity: whatever feeds it waits.
    QueueFull,
    /// The L1's MSHRs: in use, waited for.
    Mshr,
    /// An access that found no free MSHR or queue slot and was retried.
    ReservationFail,
    /// An L1 hit.
    L1Hit,
    /// A hit on a fill another miss is fetching (the CPI stack's in-flight fill).
    PendingFill,
    /// An L1 line miss.
    L1Miss,
    /// An L1 sector miss (the line present, not the sector).
    SectorMiss,
    /// The crossbar (NoC) between SMs and memory partitions.
    Crossbar,
    /// The crossbar at its full bandwidth (a CPI floor).
    NocBandwidth,
    /// The L2: its slices, their accesses and misses.
    L2,
    /// Queueing for DRAM.
    DramQueue,
    /// DRAM service: latency, row commands and the burst.
    DramService,
    /// DRAM at its full bandwidth (a CPI floor).
    DramBandwidth,
    /// The kernel's slowest warp (a CPI floor).
    SlowestWarp,
    /// The kernel launch latency.
    Launch,
    /// A simulated figure, what the predictions are measured against.
    Simulated,
    /// The Scale-Model prediction.
    ScaleModel,
    /// The power-law fit.
    PowerLaw,
    /// The linear fit.
    Linear,
    /// The logarithmic fit.
    Logarithmic,
    /// Proportional scaling.
    Proportional,
    /// The sizes across which a miss-rate cliff falls.
    Cliff,
}

/// Colours of the page's furniture, not of any concept: the animation's
/// tiles and frames, the empty part of a bar.
pub mod neutral {
    /// A tile's background.
    pub const TILE: &str = "#F0F2F5";
    /// The outline of the selected SM (the page's accent).
    pub const SELECTED: &str = "#2F6FDE";
    /// The frame around a chiplet's SMs.
    pub const CHIPLET_FRAME: &str = "#9AA3B2";
    /// The empty part of a bar.
    pub const TRACK: &str = "#E4E7EC";
    /// Text on the canvas.
    pub const TEXT: &str = "#5B6475";
    /// CTA bands alternate between two greys by CTA slot, so neighbouring
    /// CTAs are told apart without spending a hue.
    pub const CTA_BANDS: [&str; 2] = ["#1D2330", "#9AA3B2"];
    /// A marker's rim.
    pub const RIM: &str = "#000000";
    /// Every neutral, for the checks that a view draws nothing else.
    #[cfg(test)]
    pub const ALL: [&str; 7] = [TILE, SELECTED, CHIPLET_FRAME, TRACK, TEXT, CTA_BANDS[0], CTA_BANDS[1]];
}

impl Concept {
    /// Every concept.
    #[cfg(test)]
    pub const ALL: [Concept; 32] = [
        Concept::Issuing,
        Concept::WaitingOnMemory,
        Concept::WaitingOnResult,
        Concept::AtBarrier,
        Concept::WaitingForFetch,
        Concept::UnitBusy,
        Concept::LdstUnit,
        Concept::Done,
        Concept::NoWarp,
        Concept::QueueOccupancy,
        Concept::QueueFull,
        Concept::Mshr,
        Concept::ReservationFail,
        Concept::L1Hit,
        Concept::PendingFill,
        Concept::L1Miss,
        Concept::SectorMiss,
        Concept::Crossbar,
        Concept::NocBandwidth,
        Concept::L2,
        Concept::DramQueue,
        Concept::DramService,
        Concept::DramBandwidth,
        Concept::SlowestWarp,
        Concept::Launch,
        Concept::Simulated,
        Concept::ScaleModel,
        Concept::PowerLaw,
        Concept::Linear,
        Concept::Logarithmic,
        Concept::Proportional,
        Concept::Cliff,
    ];

    /// The concept's colour.
    pub const fn swatch(self) -> Swatch {
        const fn on_light(fill: &'static str) -> Swatch {
            Swatch { fill, ink: "#000000" }
        }
        const fn on_dark(fill: &'static str) -> Swatch {
            Swatch { fill, ink: "#FFFFFF" }
        }
        match self {
            // Okabe–Ito bluish green.
            Concept::Issuing => on_light("#009E73"),
            // Okabe–Ito vermillion, darkened to stand apart from the orange.
            Concept::WaitingOnMemory => on_dark("#B34A00"),
            // Okabe–Ito orange.
            Concept::WaitingOnResult => on_light("#E69F00"),
            // Tol indigo.
            Concept::AtBarrier => on_dark("#332288"),
            // Tol cyan.
            Concept::WaitingForFetch => on_light("#88CCEE"),
            // Okabe–Ito yellow; the LD/ST unit is its darker olive.
            Concept::UnitBusy => on_light("#F0E442"),
            Concept::LdstUnit => on_light("#999933"),
            Concept::Done => on_dark("#5D6D99"),
            Concept::NoWarp => on_light("#D5DAE2"),
            Concept::QueueOccupancy => on_dark("#3D4656"),
            Concept::QueueFull => on_dark("#6A000D"),
            // Okabe–Ito reddish purple; a reservation fail is Tol wine.
            Concept::Mshr => on_light("#CC79A7"),
            Concept::ReservationFail => on_dark("#882255"),
            // Okabe–Ito blue; a hit on a fill in flight is violet.
            Concept::L1Hit => on_dark("#0072B2"),
            Concept::PendingFill => on_dark("#5E3C99"),
            Concept::L1Miss => on_light("#9C755F"),
            Concept::SectorMiss => on_light("#D9B99B"),
            // Okabe–Ito sky blue, and lightened for the bandwidth floor.
            Concept::Crossbar => on_light("#56B4E9"),
            Concept::NocBandwidth => on_light("#BBE1F6"),
            Concept::L2 => on_dark("#1F4E79"),
            // Tol green, then lighter greens.
            Concept::DramQueue => on_dark("#117733"),
            Concept::DramService => on_light("#5FB35F"),
            Concept::DramBandwidth => on_light("#B2DF8A"),
            Concept::SlowestWarp => on_dark("#6B6B6B"),
            Concept::Launch => on_light("#BBBBBB"),
            // The scaling chart: the simulation in black, the Scale-Model in
            // Tol teal, and the simpler fits in greys told apart by their
            // dashes (the chart's own test checks those differ).
            Concept::Simulated => on_dark("#000000"),
            Concept::ScaleModel => on_light("#44AA99"),
            Concept::PowerLaw => on_dark("#303030"),
            Concept::Linear => on_dark("#595959"),
            Concept::Logarithmic => on_light("#8C8C8C"),
            Concept::Proportional => on_light("#ABABAB"),
            Concept::Cliff => on_light("#F6E8C3"),
        }
    }

    /// The concept's id: its custom property `--concept-<id>` and the
    /// `data-concept` of everything drawn in its colour.
    pub const fn id(self) -> &'static str {
        match self {
            Concept::Issuing => "issuing",
            Concept::WaitingOnMemory => "waiting-on-memory",
            Concept::WaitingOnResult => "waiting-on-result",
            Concept::AtBarrier => "at-barrier",
            Concept::WaitingForFetch => "waiting-for-fetch",
            Concept::UnitBusy => "unit-busy",
            Concept::LdstUnit => "ldst-unit",
            Concept::Done => "done",
            Concept::NoWarp => "no-warp",
            Concept::QueueOccupancy => "queue-occupancy",
            Concept::QueueFull => "queue-full",
            Concept::Mshr => "mshr",
            Concept::ReservationFail => "reservation-fail",
            Concept::L1Hit => "l1-hit",
            Concept::PendingFill => "pending-fill",
            Concept::L1Miss => "l1-miss",
            Concept::SectorMiss => "sector-miss",
            Concept::Crossbar => "crossbar",
            Concept::NocBandwidth => "noc-bandwidth",
            Concept::L2 => "l2",
            Concept::DramQueue => "dram-queue",
            Concept::DramService => "dram-service",
            Concept::DramBandwidth => "dram-bandwidth",
            Concept::SlowestWarp => "slowest-warp",
            Concept::Launch => "launch",
            Concept::Simulated => "simulated",
            Concept::ScaleModel => "scale-model",
            Concept::PowerLaw => "power-law",
            Concept::Linear => "linear",
            Concept::Logarithmic => "logarithmic",
            Concept::Proportional => "proportional",
            Concept::Cliff => "cliff",
        }
    }

    /// The concept a warp in `state` shows.
    pub const fn of_warp(state: WarpState) -> Concept {
        match state {
            WarpState::Ready => Concept::Issuing,
            WarpState::Memory => Concept::WaitingOnMemory,
            WarpState::Dependence => Concept::WaitingOnResult,
            WarpState::Barrier => Concept::AtBarrier,
            WarpState::Fetch => Concept::WaitingForFetch,
            WarpState::Structural => Concept::UnitBusy,
            WarpState::Done => Concept::Done,
            WarpState::Empty => Concept::NoWarp,
        }
    }
}

/// The colour of a warp slot in `state`, as a CSS hex colour.
pub const fn warp_colour(state: WarpState) -> &'static str {
    Concept::of_warp(state).swatch().fill
}

/// The `:root` rule that gives the stylesheet every concept's colour, as
/// `www/style.css` holds it between its palette markers.
#[cfg(test)]
pub fn css_properties() -> String {
    let lines: String = Concept::ALL
        .iter()
        .map(|concept| format!("  --concept-{}: {};\n", concept.id(), concept.swatch().fill))
        .collect();
    format!(":root {{\n{lines}}}\n")
}

#[cfg(test)]
mod tests {
    //! The palette's promises: one colour per concept and one concept per
    //! colour, text that reads on every fill, the stylesheet in step, and
    //! every view's colours apart for colour-blind readers.

    use std::collections::HashSet;

    use super::*;
    use crate::components::chart::Series;

    /// Colour-vision deficiencies at full severity (Machado, Oliveira and
    /// Fernandes 2009), as matrices on linear RGB; the identity is normal vision.
    const VISIONS: [(&str, [[f64; 3]; 3]); 4] = [
        ("normal", [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
        (
            "protanopia",
            [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
        ),
        (
            "deuteranopia",
            [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
        ),
        (
            "tritanopia",
            [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
        ),
    ];

    /// CIELAB distance two colours of one view keep in every vision: about
    /// where two patches side by side stop being told apart at a glance.
    const MIN_APART: f64 = 10.0;
    /// Waiting on memory, waiting on a result and a full queue are what a
    /// teacher points at most in the animation; they keep more.
    const MIN_APART_WARM: f64 = 25.0;

    fn linear_rgb(hex: &str) -> [f64; 3] {
        let channel = |at: usize| {
            let value = f64::from(u8::from_str_radix(&hex[at..at + 2], 16).expect("hex digits")) / 255.0;
            if value <= 0.04045 { value / 12.92 } else { ((value + 0.055) / 1.055).powf(2.4) }
        };
        [channel(1), channel(3), channel(5)]
    }

    fn lab(rgb: [f64; 3]) -> [f64; 3] {
        let [r, g, b] = rgb.map(|c| c.clamp(0.0, 1.0));
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
        let f = |t: f64| if t > 0.008856 { t.cbrt() } else { 7.787 * t + 16.0 / 116.0 };
        [116.0 * f(y) - 16.0, 500.0 * (f(x) - f(y)), 200.0 * (f(y) - f(z))]
    }

    fn seen(hex: &str, matrix: &[[f64; 3]; 3]) -> [f64; 3] {
        let rgb = linear_rgb(hex);
        lab(matrix.map(|row| row.iter().zip(rgb).map(|(m, c)| m * c).sum()))
    }

    /// The smallest CIELAB distance between two of `concepts` in any vision,
    /// with the pair and the vision.
    fn closest(concepts: &[Concept]) -> (f64, String) {
        let mut closest = (f64::INFINITY, String::new());
        for (i, a) in concepts.iter().enumerate() {
            for b in &concepts[i + 1..] {
                for (vision, matrix) in &VISIONS {
                    let (x, y) = (seen(a.swatch().fill, matrix), seen(b.swatch().fill, matrix));
                    let distance = x.iter().zip(y).map(|(p, q)| (p - q).powi(2)).sum::<f64>().sqrt();
                    if distance < closest.0 {
                        closest = (distance, format!("{} and {} ({vision})", a.id(), b.id()));
                    }
                }
            }
        }
        closest
    }

    fn luminance(hex: &str) -> f64 {
        let [r, g, b] = linear_rgb(hex);
        0.2126 * r + 0.7152 * g + 0.0722 * b
    }

    fn concepts_of(series: &[Series]) -> Vec<Concept> {
        series.iter().map(|series| series.concept).collect()
    }

    /// Every view that colours things side by side, with its concepts.
    fn views() -> Vec<(&'static str, Vec<Concept>)> {
        use crate::components::animation::legend_concepts;
        use crate::components::{CPI_SERIES, ISSUE_SERIES, LATENCY_SERIES, OUTCOME_SERIES};
        vec![
            ("animation", legend_concepts()),
            ("issue slots", concepts_of(&ISSUE_SERIES)),
            ("cache outcomes", concepts_of(&OUTCOME_SERIES)),
            ("L1-miss latency", concepts_of(&LATENCY_SERIES)),
            ("CPI stacks", concepts_of(&CPI_SERIES)),
        ]
    }

    #[test]
    fn no_colour_means_two_concepts_and_no_concept_is_furniture() {
        let fills: HashSet<&str> = Concept::ALL.iter().map(|concept| concept.swatch().fill).collect();
        assert_eq!(fills.len(), Concept::ALL.len(), "two concepts share a colour");
        let ids: HashSet<&str> = Concept::ALL.iter().map(|concept| concept.id()).collect();
        assert_eq!(ids.len(), Concept::ALL.len(), "two concepts share an id");
        for colour in neutral::ALL {
            assert!(!fills.contains(colour), "{colour} is furniture and a concept");
        }
        for fill in &fills {
            assert!(fill.len() == 7 && fill.starts_with('#'), "{fill} is #RRGGBB");
        }
    }

    #[test]
    fn text_on_every_fill_reads() {
        for concept in Concept::ALL {
            let Swatch { fill, ink } = concept.swatch();
            let (a, b) = (luminance(fill), luminance(ink));
            let contrast = (a.max(b) + 0.05) / (a.min(b) + 0.05);
            assert!(contrast >= 4.5, "{} text on {fill}: {contrast:.2}:1", concept.id());
        }
    }

    #[test]
    fn every_view_keeps_its_colours_apart_in_every_vision() {
        for (view, concepts) in views() {
            let unique: HashSet<Concept> = concepts.iter().copied().collect();
            assert_eq!(unique.len(), concepts.len(), "{view} shows a concept twice");
            let (distance, pair) = closest(&concepts);
            assert!(distance >= MIN_APART, "{view}: {pair} are {distance:.1} apart");
        }
        let warm = [Concept::WaitingOnMemory, Concept::WaitingOnResult, Concept::QueueFull];
        let (distance, pair) = closest(&warm);
        assert!(distance >= MIN_APART_WARM, "{pair} are {distance:.1} apart");
    }

    #[test]
    fn the_warm_states_were_too_close_before_this_palette() {
        // Regression for issue 42: the animation's old vermillion, orange and
        // red, which a deuteranope could hardly tell apart.
        let old = ["#D55E00", "#E69F00", "#B42318"];
        let matrix = &VISIONS[2].1;
        let distance = |a: &str, b: &str| {
            seen(a, matrix).iter().zip(seen(b, matrix)).map(|(p, q)| (p - q).powi(2)).sum::<f64>().sqrt()
        };
        assert!(distance(old[0], old[2]) < MIN_APART_WARM, "the check can fail");
    }

    #[test]
    fn the_stylesheet_carries_the_palette() {
        let css = include_str!("../../../www/style.css");
        let (begin, end) = ("/* palette:begin (crate::palette::css_properties) */\n", "/* palette:end */");
        let start = css.find(begin).expect("style.css has the palette's begin marker") + begin.len();
        let stop = css[start..].find(end).expect("and its end marker") + start;
        assert_eq!(&css[start..stop], css_properties(), "www/style.css's palette is not crate::palette's");
    }
}
