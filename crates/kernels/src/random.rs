//! Seeded input data: the same seed gives the same data, natively and in
//! wasm, on every platform (PCG is value-stable across `rand_pcg` releases).

use rand_pcg::Pcg64Mcg;
use rand_pcg::rand_core::{Rng, SeedableRng};

/// A seeded random source for a generator's input data.
#[derive(Debug, Clone)]
pub struct Random(Pcg64Mcg);

impl Random {
    /// The source for `seed`.
    pub fn new(seed: u64) -> Random {
        Random(Pcg64Mcg::seed_from_u64(seed))
    }

    /// A uniform 64-bit value.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A value in `0..n` (`n > 0`), by multiply-and-shift: the bias is below
    /// n / 2⁶⁴, far under anything a trace could show.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A value in `low..=high`.
    pub fn between(&mut self, low: u64, high: u64) -> u64 {
        low + self.below(high - low + 1)
    }

    /// Shuffles `items` uniformly (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i as u64 + 1) as usize);
        }
    }

    /// A random permutation of `0..n` that is one single cycle (Sattolo's
    /// algorithm): following `next[i]` from any start visits every index
    /// before returning, which is what a pointer chase needs.
    pub fn single_cycle(&mut self, n: u32) -> Vec<u32> {
        let mut next: Vec<u32> = (0..n).collect();
        for i in (1..n as usize).rev() {
            next.swap(i, self.below(i as u64) as usize);
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_single_cycle_visits_every_index() {
        let next = Random::new(7).single_cycle(1000);
        let (mut at, mut steps) = (0u32, 0);
        loop {
            at = next[at as usize];
            steps += 1;
            if at == 0 {
                break;
            }
        }
        assert_eq!(steps, 1000);
    }

    #[test]
    fn the_same_seed_gives_the_same_values() {
        let draw = |seed| (0..4).map(|_| Random::new(seed).below(1000)).collect::<Vec<_>>();
        assert_eq!(draw(3), draw(3));
        let mut random = Random::new(3);
        let values: Vec<_> = (0..1000).map(|_| random.between(5, 9)).collect();
        assert!(values.iter().all(|v| (5..=9).contains(v)));
        assert!((5..=9).all(|v| values.contains(&v)));
    }
}
