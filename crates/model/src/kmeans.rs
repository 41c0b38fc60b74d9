//! The representative warp: k-means with k = 2 on (warp cycles / mean, warp
//! instructions / mean), and the warp nearest the centroid of the larger
//! cluster (GPUMech's choice, which ignores a minority of odd warps such as
//! a last CTA's partial warps).
//!
//! Points carry weights (the warps that took one path share a point), so the
//! cost depends on the distinct paths, not on the warp count. Deterministic:
//! the first centroids are the points with the smallest and the largest
//! coordinate sum, ties go to the lower index, and there is no randomness.

/// One distinct warp behaviour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Single-warp cycles.
    pub cycles: f64,
    /// Warp instructions.
    pub insts: f64,
    /// Warps that share it.
    pub weight: f64,
}

/// Iterations after which the clustering stops even if it still moves.
const MAX_ITERATIONS: usize = 100;

/// The index of the representative point, `None` for no points.
pub fn representative(points: &[Point]) -> Option<usize> {
    let total: f64 = points.iter().map(|p| p.weight).sum();
    if points.is_empty() || total <= 0.0 {
        return points.first().map(|_| 0);
    }
    let mean_cycles = points.iter().map(|p| p.cycles * p.weight).sum::<f64>() / total;
    let mean_insts = points.iter().map(|p| p.insts * p.weight).sum::<f64>() / total;
    let scaled: Vec<(f64, f64)> = points
        .iter()
        .map(|p| (p.cycles / mean_cycles.max(f64::MIN_POSITIVE), p.insts / mean_insts.max(f64::MIN_POSITIVE)))
        .collect();
    let sum = |i: &usize| scaled[*i].0 + scaled[*i].1;
    let lowest = (0..points.len()).min_by(|a, b| sum(a).total_cmp(&sum(b)))?;
    let highest = (0..points.len()).max_by(|a, b| sum(a).total_cmp(&sum(b)).then(b.cmp(a)))?;
    let mut centroids = [scaled[lowest], scaled[highest]];
    let mut cluster = vec![0u8; points.len()];
    for _ in 0..MAX_ITERATIONS {
        let mut moved = false;
        for (i, &point) in scaled.iter().enumerate() {
            let nearest = u8::from(distance(point, centroids[1]) < distance(point, centroids[0]));
            moved |= nearest != cluster[i];
            cluster[i] = nearest;
        }
        let mut sums = [(0.0, 0.0, 0.0); 2];
        for (i, &(x, y)) in scaled.iter().enumerate() {
            let s = &mut sums[usize::from(cluster[i])];
            let w = points[i].weight;
            *s = (s.0 + x * w, s.1 + y * w, s.2 + w);
        }
        for (centroid, (x, y, w)) in centroids.iter_mut().zip(sums) {
            if w > 0.0 {
                *centroid = (x / w, y / w);
            }
        }
        if !moved {
            break;
        }
    }
    let weight_of = |c: u8| (0..points.len()).filter(|&i| cluster[i] == c).map(|i| points[i].weight).sum::<f64>();
    let larger = u8::from(weight_of(1) > weight_of(0));
    let centroid = centroids[usize::from(larger)];
    (0..points.len())
        .filter(|&i| cluster[i] == larger)
        .min_by(|&a, &b| distance(scaled[a], centroid).total_cmp(&distance(scaled[b], centroid)).then(a.cmp(&b)))
}

fn distance(a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(cycles: f64, insts: f64, weight: f64) -> Point {
        Point { cycles, insts, weight }
    }

    #[test]
    fn the_larger_cluster_wins_and_its_central_warp_is_chosen() {
        // Nine warps near (100, 50) and three long ones near (400, 200).
        let points = [
            point(98.0, 50.0, 3.0),
            point(100.0, 50.0, 4.0),
            point(104.0, 50.0, 2.0),
            point(400.0, 200.0, 2.0),
            point(420.0, 210.0, 1.0),
        ];
        assert_eq!(representative(&points), Some(1));
    }

    #[test]
    fn weights_decide_which_cluster_is_larger() {
        let points = [point(100.0, 50.0, 1.0), point(400.0, 200.0, 10.0)];
        assert_eq!(representative(&points), Some(1));
    }

    #[test]
    fn identical_warps_and_no_warps() {
        assert_eq!(representative(&[point(10.0, 5.0, 7.0)]), Some(0));
        assert_eq!(representative(&[point(10.0, 5.0, 1.0), point(10.0, 5.0, 1.0)]), Some(0));
        assert_eq!(representative(&[]), None);
    }
}
