//! Photon's stability test over the last executions of something (warps of a
//! kernel, or executions of one basic-block type): the least-squares slope of
//! end time against start time over the last `n` is within δ of 1, and the
//! mean durations over the last `n` and the last `2n` agree within δ.
//!
//! A slope of 1 means a unit that starts later ends later by the same amount:
//! the GPU is in a steady state, and the next unit will take about as long as
//! the recent ones. The second test rejects a slow drift the slope cannot see.
//!
//! Everything is exact integer arithmetic on running sums (`i128` holds them
//! with room to spare: 2·4,096 executions of cycles below 2^40), so the test
//! gives the same answer natively and in WebAssembly, and costs O(1) per
//! execution however large `n` is.

use std::collections::VecDeque;

/// The largest window (`n`) a test may use: a window holds `2n` pairs of
/// 16 bytes, so a block type's window is at most 256 KiB.
pub const MAX_WINDOW: u32 = 8_192;

/// Hundredths of a percent: δ = 3% is `BasisPoints(300)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct BasisPoints(pub u32);

impl BasisPoints {
    /// Whether `part ≤ self · whole` (both non-negative).
    pub fn admits(self, part: u128, whole: u128) -> bool {
        part.saturating_mul(10_000) <= u128::from(self.0).saturating_mul(whole)
    }

    /// The fraction as a float, for reports.
    pub fn fraction(self) -> f64 {
        f64::from(self.0) / 10_000.0
    }
}

/// Running sums over one window of (start, end) pairs.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    x: i128,
    y: i128,
    xy: i128,
    xx: i128,
}

impl Sums {
    fn add(&mut self, x: i128, y: i128, sign: i128) {
        self.x += sign * x;
        self.y += sign * y;
        self.xy += sign * x * y;
        self.xx += sign * x * x;
    }
}

/// The last `2n` (start, end) pairs and the sums over the last `n` and `2n`.
#[derive(Debug, Clone)]
pub struct StabilityWindow {
    n: usize,
    /// A ring of the last `2n` pairs; grows to `2n` and is then overwritten.
    ring: Vec<(u64, u64)>,
    /// Where the next pair goes once the ring is full.
    head: usize,
    recent: Sums,
    all: Sums,
    seen: u64,
}

impl StabilityWindow {
    /// A window over the last `n` executions (and `2n` for the drift test).
    pub fn new(n: usize) -> Self {
        Self {
            n: n.clamp(2, MAX_WINDOW as usize),
            ring: Vec::new(),
            head: 0,
            recent: Sums::default(),
            all: Sums::default(),
            seen: 0,
        }
    }

    /// Records one execution that started at `start` and ended at `end`.
    pub fn push(&mut self, start: u64, end: u64) {
        let cap = 2 * self.n;
        let (x, y) = (i128::from(start), i128::from(end));
        if self.ring.len() < cap {
            self.ring.push((start, end));
        } else {
            let (ox, oy) = self.ring[self.head];
            self.all.add(i128::from(ox), i128::from(oy), -1);
            self.ring[self.head] = (start, end);
            self.head = (self.head + 1) % cap;
        }
        self.all.add(x, y, 1);
        self.recent.add(x, y, 1);
        // The pair that just left the last n is the (n+1)-th newest.
        if self.ring.len() > self.n {
            let (ox, oy) = self.nth_newest(self.n);
            self.recent.add(i128::from(ox), i128::from(oy), -1);
        }
        self.seen += 1;
    }

    /// The `k`-th newest pair (0: the newest); `k < ring.len()`.
    fn nth_newest(&self, k: usize) -> (u64, u64) {
        let len = self.ring.len();
        let newest = if len < 2 * self.n { len - 1 } else { (self.head + len - 1) % len };
        self.ring[(newest + len - k) % len]
    }

    /// Executions recorded so far.
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// Whether the last `2n` executions pass both tests with tolerance `delta`.
    pub fn is_stable(&self, delta: BasisPoints) -> bool {
        if self.ring.len() < 2 * self.n {
            return false;
        }
        let n = self.n as i128;
        let s = &self.recent;
        // slope = (nΣxy − ΣxΣy) / (nΣx² − (Σx)²); |slope − 1| ≤ δ without dividing.
        let numerator = n * s.xy - s.x * s.y;
        let denominator = n * s.xx - s.x * s.x;
        if denominator <= 0 {
            // Every start at the same cycle: no slope to speak of yet.
            return false;
        }
        let slope_off = (numerator - denominator).unsigned_abs();
        if !delta.admits(slope_off, denominator.unsigned_abs()) {
            return false;
        }
        // mean over n vs mean over 2n: |2·S_n − S_2n| ≤ δ · S_2n.
        let (recent, all) = (s.y - s.x, self.all.y - self.all.x);
        if all <= 0 {
            return false;
        }
        delta.admits((2 * recent - all).unsigned_abs(), all.unsigned_abs())
    }

    /// The mean duration of the last `n` executions (of all, before `n`),
    /// rounded to the nearest cycle.
    pub fn mean_duration(&self) -> u64 {
        let (sum, count) = if self.ring.len() > self.n {
            (self.recent.y - self.recent.x, self.n as i128)
        } else {
            (self.all.y - self.all.x, self.ring.len() as i128)
        };
        if count == 0 { 0 } else { u64::try_from((sum + count / 2) / count).unwrap_or(u64::MAX) }
    }
}

/// Puts warps that retire out of order back into launch order before they
/// enter a window.
///
/// A window of the last `n` warps to *retire* is biased early in each wave:
/// the warps of a wave that have retired by then are its fast ones, and a
/// mix of two waves can show a slope near 1 by chance. The last `n` warps in
/// *launch* order whose predecessors have all retired are a complete run of
/// consecutive launches, which is what a slope of retire time against launch
/// time describes. The buffer holds at most the warps resident at once.
#[derive(Debug, Clone, Default)]
pub struct LaunchOrder {
    next: u64,
    waiting: VecDeque<Option<(u64, u64)>>,
}

impl LaunchOrder {
    /// The `seq`-th launched warp (counting from 0) ran from `start` to
    /// `end`; feeds `window` every warp now in order.
    pub fn push(&mut self, seq: u64, start: u64, end: u64, window: &mut StabilityWindow) {
        let Some(k) = seq.checked_sub(self.next) else { return };
        let k = usize::try_from(k).unwrap_or(usize::MAX);
        if self.waiting.len() <= k {
            self.waiting.resize(k + 1, None);
        }
        self.waiting[k] = Some((start, end));
        while let Some(&Some((start, end))) = self.waiting.front() {
            window.push(start, end);
            self.waiting.pop_front();
            self.next += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warps_enter_the_window_in_launch_order() {
        let mut order = LaunchOrder::default();
        let mut window = StabilityWindow::new(2);
        order.push(1, 10, 30, &mut window);
        order.push(2, 20, 35, &mut window);
        assert_eq!(window.seen(), 0, "warp 0 has not retired");
        order.push(0, 0, 100, &mut window);
        assert_eq!(window.seen(), 3);
        assert_eq!(window.nth_newest(0), (20, 35));
        assert_eq!(window.nth_newest(2), (0, 100));
    }

    const DELTA: BasisPoints = BasisPoints(300);

    #[test]
    fn a_steady_stream_is_stable_once_2n_have_run() {
        let mut window = StabilityWindow::new(8);
        for k in 0..15 {
            window.push(k * 10, k * 10 + 100);
            assert!(!window.is_stable(DELTA), "only {} of 16", k + 1);
        }
        window.push(150, 250);
        assert!(window.is_stable(DELTA));
        assert_eq!(window.mean_duration(), 100);
    }

    #[test]
    fn durations_that_grow_fail_the_slope_test() {
        let mut window = StabilityWindow::new(8);
        // Each start 10 cycles later, each duration 2 cycles longer: slope 1.2.
        for k in 0..16 {
            window.push(k * 10, k * 10 + 100 + 2 * k);
        }
        assert!(!window.is_stable(DELTA));
        assert!(window.is_stable(BasisPoints(2_000)));
    }

    #[test]
    fn a_jump_in_duration_fails_the_mean_test_until_it_leaves_the_window() {
        let mut window = StabilityWindow::new(4);
        for k in 0..4 {
            window.push(k * 10, k * 10 + 100);
        }
        for k in 4..8 {
            window.push(k * 10, k * 10 + 200);
        }
        // The last 4 agree with each other (slope 1) but not with the last 8.
        assert!(!window.is_stable(DELTA));
        for k in 8..12 {
            window.push(k * 10, k * 10 + 200);
        }
        assert!(window.is_stable(DELTA));
        assert_eq!(window.mean_duration(), 200);
    }

    #[test]
    fn simultaneous_starts_have_no_slope() {
        let mut window = StabilityWindow::new(4);
        for k in 0..8 {
            window.push(0, 100 + k);
        }
        assert!(!window.is_stable(BasisPoints(10_000)));
    }

    #[test]
    fn the_sums_match_a_recount_after_many_pushes() {
        let mut window = StabilityWindow::new(5);
        let pairs: Vec<(u64, u64)> = (0..57u64).map(|k| (k * 7 % 31 + k * 3, k * 11 % 17 + k * 3 + 40)).collect();
        for &(x, y) in &pairs {
            window.push(x, y);
        }
        let last = |m: usize| &pairs[pairs.len() - m..];
        let mean = |m: usize| last(m).iter().map(|&(x, y)| (y - x) as i128).sum::<i128>();
        assert_eq!(window.recent.y - window.recent.x, mean(5));
        assert_eq!(window.all.y - window.all.x, mean(10));
        let xx: i128 = last(5).iter().map(|&(x, _)| i128::from(x) * i128::from(x)).sum();
        assert_eq!(window.recent.xx, xx);
    }
}
