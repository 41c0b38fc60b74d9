//! The four baselines the paper compares against, fitted exactly through the
//! two scale-model points `(S, IPC_S)` and `(L, IPC_L)` and extrapolated, as
//! the reference tool computes them.
//!
//! Two points determine each two-parameter curve, so the tool's least-squares
//! fits (scipy's `curve_fit`, scikit-learn's `LinearRegression`) are the
//! closed forms below. Transcendentals come from `libm`, so native and wasm
//! agree to the last bit (DESIGN §2a).

/// `IPC_S · x / S`: perfect scaling from the smallest scale model only. (The
/// tool's value at the second size is `2·IPC_S`, not the measured `IPC_L`.)
pub fn proportional(small: (f64, f64), x: f64) -> f64 {
    small.1 * x / small.0
}

/// The straight line through both points.
pub fn linear(small: (f64, f64), large: (f64, f64), x: f64) -> f64 {
    let slope = (large.1 - small.1) / (large.0 - small.0);
    small.1 + slope * (x - small.0)
}

/// `a · x^b` through both points (`IPC_S · (x/S)^b`, the same curve with less rounding).
pub fn power_law(small: (f64, f64), large: (f64, f64), x: f64) -> f64 {
    let b = libm::log(large.1 / small.1) / libm::log(large.0 / small.0);
    small.1 * libm::pow(x / small.0, b)
}

/// `c + d · ln x` through both points.
pub fn logarithmic(small: (f64, f64), large: (f64, f64), x: f64) -> f64 {
    let d = (large.1 - small.1) / libm::log(large.0 / small.0);
    small.1 + d * libm::log(x / small.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: (f64, f64) = (8.0, 100.0);
    const L: (f64, f64) = (16.0, 180.0);

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn every_fitted_curve_passes_through_both_points() {
        for f in [linear, power_law, logarithmic] {
            assert!(close(f(S, L, 8.0), 100.0) && close(f(S, L, 16.0), 180.0));
        }
    }

    #[test]
    fn hand_worked_extrapolations_to_32_and_64() {
        assert!(close(proportional(S, 16.0), 200.0) && close(proportional(S, 64.0), 800.0));
        // Slope 10 per SM.
        assert!(close(linear(S, L, 32.0), 340.0) && close(linear(S, L, 64.0), 660.0));
        // Each doubling multiplies by 1.8.
        assert!(close(power_law(S, L, 32.0), 324.0) && close(power_law(S, L, 64.0), 583.2));
        // Each doubling adds 80.
        assert!(close(logarithmic(S, L, 32.0), 260.0) && close(logarithmic(S, L, 64.0), 340.0));
    }
}
