//! The animation's colours, defined once for the canvas and the legend.
//!
//! Warp states use the Okabe–Ito palette, whose colours stay distinguishable
//! with the common kinds of colour blindness; the states a teacher points at
//! most (ready, memory, dependence) get the three most distinct hues. An empty
//! slot is a pale grey close to the tile, so occupancy reads at a glance.

use warplab_lab::WarpState;

/// A tile's background.
pub const TILE: &str = "#f0f2f5";
/// The outline of the selected SM (the page's accent).
pub const SELECTED: &str = "#2f6fde";
/// The frame around a chiplet's SMs.
pub const CHIPLET_FRAME: &str = "#9aa3b2";
/// The empty part of a bar.
pub const TRACK: &str = "#dde1e8";
/// The filled part of a bar.
pub const FILL: &str = "#3d4656";
/// The filled part of a bar whose queue is at capacity (its producer waits).
pub const FULL: &str = "#b42318";
/// CTA bands alternate between two greys by CTA slot, so neighbouring CTAs
/// are told apart without spending a hue.
pub const CTA_BANDS: [&str; 2] = ["#1d2330", "#9aa3b2"];
/// Text on the canvas.
pub const TEXT: &str = "#5b6475";

/// The colour of a warp slot in `state`, as a CSS hex colour.
pub fn warp_colour(state: WarpState) -> &'static str {
    match state {
        WarpState::Ready => "#009e73",
        WarpState::Memory => "#d55e00",
        WarpState::Dependence => "#e69f00",
        WarpState::Barrier => "#cc79a7",
        WarpState::Fetch => "#56b4e9",
        WarpState::Structural => "#f0e442",
        WarpState::Done => "#0072b2",
        WarpState::Empty => "#dde1e8",
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn every_state_has_its_own_colour_and_none_is_a_bar_colour() {
        let colours: HashSet<&str> = WarpState::ALL.iter().map(|&state| warp_colour(state)).collect();
        assert_eq!(colours.len(), WarpState::ALL.len());
        for bar in [FILL, FULL] {
            assert!(!colours.contains(bar), "{bar}");
        }
    }
}
