//! GPUMech's multi-warp models: how much of the representative warp's stall
//! the other warps of its scheduler fill, and how many of their instructions
//! land in its way instead.
//!
//! Each interval `i` has `I_i` instructions and a stall `S_i` (here already
//! with its loads' miss latency). `p = ΣI / (ΣI/R + ΣS)` is the chance a warp
//! can issue in a given cycle.
//! - Round robin: between two of the warp's own instructions the other
//!   `W − 1` warps each issue one when ready, and during its stall they take
//!   `(W − 1)/R` cycles; what they add is
//!   `p · [(W − 1)(I_i − 1)/R + max(0, (W − 1)/R − S_i)]`.
//! - GTO: the warp runs greedily; during its stall the others issue
//!   `X = q · (W − 1) · Ī` instructions with `q = min(1, p · S_i)` and `Ī` the
//!   mean interval length; what does not fit in the stall, `max(0, X − R·S_i)`,
//!   delays the warp by that many issue slots.

/// One interval as the overlap models see it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    /// Instructions.
    pub insts: f64,
    /// Stall cycles after them.
    pub stall: f64,
}

/// The representative warp's cycles `Σ C_i` with `warps` warps on its
/// scheduler issuing `rate` instructions a cycle, under GTO (`gto`) or round
/// robin. The caller caps the result at the issue limit.
pub fn overlapped_cycles(spans: impl Iterator<Item = Span> + Clone, warps: f64, rate: f64, gto: bool) -> f64 {
    let (n, total_insts, total_stall) =
        spans.clone().fold((0.0, 0.0, 0.0), |(n, i, s), span| (n + 1.0, i + span.insts, s + span.stall));
    if n == 0.0 || total_insts == 0.0 {
        return 0.0;
    }
    let p = total_insts / (total_insts / rate + total_stall);
    let others = (warps - 1.0).max(0.0);
    let mean_interval = total_insts / n;
    spans
        .map(|Span { insts, stall }| {
            let own = insts / rate + stall;
            let extra = if gto {
                let q = (p * stall).min(1.0);
                let x = q * others * mean_interval;
                (x - rate * stall).max(0.0) / rate
            } else {
                p * (others * (insts - 1.0).max(0.0) / rate + (others / rate - stall).max(0.0))
            };
            own + extra
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-interval warp: 4 instructions then a 20-cycle stall, 2
    /// instructions then a 10-cycle stall; R = 1.
    const TWO: [Span; 2] = [Span { insts: 4.0, stall: 20.0 }, Span { insts: 2.0, stall: 10.0 }];

    #[test]
    fn one_warp_is_its_own_profile() {
        let cycles = overlapped_cycles(TWO.into_iter(), 1.0, 1.0, false);
        assert_eq!(cycles, 36.0);
        assert_eq!(overlapped_cycles(TWO.into_iter(), 1.0, 1.0, true), 36.0);
    }

    #[test]
    fn round_robin_by_hand() {
        // p = 6 / (6 + 30) = 1/6; W = 4.
        // Interval 1: 24 + (1/6)(3·3 + max(0, 3 − 20)) = 24 + 1.5.
        // Interval 2: 12 + (1/6)(3·1 + 0) = 12 + 0.5.
        let cycles = overlapped_cycles(TWO.into_iter(), 4.0, 1.0, false);
        assert!((cycles - 38.0).abs() < 1e-12, "{cycles}");
    }

    #[test]
    fn gto_by_hand() {
        // p = 1/6, Ī = 3, W = 8: interval 1: q = min(1, 20/6) = 1, X = 7·3 = 21,
        // excess 21 − 20 = 1; interval 2: q = 1, X = 21, excess 11.
        let cycles = overlapped_cycles(TWO.into_iter(), 8.0, 1.0, true);
        assert!((cycles - (24.0 + 1.0 + 12.0 + 11.0)).abs() < 1e-12, "{cycles}");
    }
}
