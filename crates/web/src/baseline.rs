//! A pinned baseline: an earlier experiment and the three IPCs the page
//! showed for it, kept while the user changes one thing, so every figure
//! can be read against it.

use warplab_lab::Experiment as Shared;

/// The three IPCs of one experiment (and MDM's as published beside the
/// headline model's), each when the page has it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Figures {
    /// The timing model's IPC (a finished run).
    pub simulated: Option<f64>,
    /// The headline analytical model's IPC (`warplab_lab::HEADLINE`) on
    /// the config itself.
    pub analytical: Option<f64>,
    /// MDM's IPC as published, on the config itself.
    pub mdm: Option<f64>,
    /// The scale-model prediction at the config's own SM count.
    pub scale: Option<f64>,
}

impl Figures {
    /// Takes every figure `newer` has.
    pub fn merge(&mut self, newer: Figures) {
        self.simulated = newer.simulated.or(self.simulated);
        self.analytical = newer.analytical.or(self.analytical);
        self.mdm = newer.mdm.or(self.mdm);
        self.scale = newer.scale.or(self.scale);
    }
}

/// What "Pin as baseline" keeps.
#[derive(Debug, Clone, PartialEq)]
pub struct Baseline {
    /// The experiment pinned (without a baseline of its own).
    pub experiment: Shared,
    /// Its figures: those shown when it was pinned, or, for a baseline a
    /// link carried, those the baseline worker computed so far.
    pub figures: Figures,
}

/// The change from `before` to `after` in percent, when both exist and
/// `before` is not zero.
pub fn change_pct(before: Option<f64>, after: Option<f64>) -> Option<f64> {
    match (before, after) {
        (Some(before), Some(after)) if before != 0.0 => Some(100.0 * (after - before) / before),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_change_needs_both_figures_and_a_nonzero_base() {
        assert_eq!(change_pct(Some(200.0), Some(250.0)), Some(25.0));
        assert_eq!(change_pct(Some(200.0), Some(100.0)), Some(-50.0));
        assert_eq!(change_pct(None, Some(1.0)), None);
        assert_eq!(change_pct(Some(0.0), Some(1.0)), None);
    }
}
