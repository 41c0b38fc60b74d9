//! The miss-rate cliff: the size at which the LLC MPKI drops by more than half
//! from one doubling to the next, because the working set starts to fit.
//!
//! The detector is the reference tool's, exactly, because the published
//! predictions depend on it: `a[i]` is the running (expanding) mean of the
//! MPKI up to `i`, `v` the population variance of `a`, and the cliff is the
//! first `i` where `|m[i] − a[i]| > 2v` and `m[i−1] / m[i] > 2`. Comparing a
//! deviation with a variance is not scale-invariant, which is why the MPKI
//! unit is fixed (DESIGN §2a). Only the first such `i` counts; one at or below
//! the second scale model is no cliff (the scale models already see it).

use serde::{Deserialize, Serialize};

use crate::error::ScaleError;

/// A detected cliff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cliff {
    /// Index of the size at the cliff in the size series (at least 2).
    pub index: usize,
    /// The size before the cliff.
    pub from: u32,
    /// The size at which MPKI has dropped.
    pub to: u32,
}

/// The reference tool's cliff, or `None`.
///
/// # Errors
/// [`ScaleError::ZeroMpki`] when the test reaches a size whose MPKI is zero
/// (the drop ratio is undefined there).
pub fn detect(sizes: &[u32], mpki: &[f64]) -> Result<Option<Cliff>, ScaleError> {
    let means = running_means(mpki);
    let variance = population_variance(&means);
    for i in 1..mpki.len() {
        if (mpki[i] - means[i]).abs() <= 2.0 * variance {
            continue;
        }
        if mpki[i] == 0.0 {
            return Err(ScaleError::ZeroMpki { size: sizes[i] });
        }
        if mpki[i - 1] / mpki[i] > 2.0 {
            // The tool stops at the first hit; one at the second scale model
            // never matches a predicted size, so it means no cliff.
            return Ok((i >= 2).then(|| Cliff { index: i, from: sizes[i - 1], to: sizes[i] }));
        }
    }
    Ok(None)
}

/// `a[i]` = mean of `m[0..=i]`, summed afresh as the tool does (so the
/// rounding is the same).
fn running_means(m: &[f64]) -> Vec<f64> {
    (0..m.len()).map(|i| m[..=i].iter().sum::<f64>() / (i + 1) as f64).collect()
}

fn population_variance(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZES: [u32; 5] = [8, 16, 32, 64, 128];

    #[test]
    fn a_flat_curve_has_no_cliff() {
        assert_eq!(detect(&SIZES, &[1.76, 1.75, 1.72, 1.69, 1.60]), Ok(None));
        assert_eq!(detect(&SIZES, &[3.0; 5]), Ok(None));
    }

    #[test]
    fn the_published_dct_curve_has_its_cliff_at_128() {
        let dct = [6.166853365, 6.178722328, 6.162565976, 5.524311167, 0.1004975147];
        assert_eq!(detect(&SIZES, &dct), Ok(Some(Cliff { index: 4, from: 64, to: 128 })));
    }

    #[test]
    fn a_drop_at_the_second_scale_model_means_no_cliff() {
        // The first size that passes the test is 16: the tool stops there,
        // and does not look on for the drop at 128.
        assert_eq!(detect(&SIZES, &[1.0, 0.1, 0.1, 0.1, 0.001]), Ok(None));
    }

    #[test]
    fn a_deviation_without_halving_is_not_a_cliff() {
        // Every step deviates from the running mean by more than 2v, but
        // none drops by 2x.
        let m = [1.0, 0.6, 0.35, 0.2, 0.12];
        let (means, v) = (running_means(&m), population_variance(&running_means(&m)));
        assert!((1..5).all(|i| (m[i] - means[i]).abs() > 2.0 * v));
        assert_eq!(detect(&SIZES, &m), Ok(None));
    }

    #[test]
    fn a_zero_where_the_ratio_is_taken_is_an_error() {
        assert_eq!(detect(&SIZES, &[6.0, 6.0, 6.0, 6.0, 0.0]), Err(ScaleError::ZeroMpki { size: 128 }));
        // Zero before any deviation is fine: no ratio is taken there.
        assert_eq!(detect(&SIZES, &[0.0, 0.0, 0.0, 0.0, 0.0]), Ok(None));
    }
}
