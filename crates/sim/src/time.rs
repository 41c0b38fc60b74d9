//! Time: cycle counts that carry their clock in their type, and the four
//! clock domains stepped in integer femtoseconds.
//!
//! GPGPU-Sim advances whichever domain (core, interconnect, L2, DRAM) is due
//! next by comparing floating-point picosecond times. warplab does the same
//! with integer femtosecond periods rounded once from the configured kHz, so
//! the order of ticks, and hence every cycle count, is identical natively and
//! in WebAssembly.

use std::ops::{Add, AddAssign, Sub};

use serde::{Deserialize, Serialize};
use warplab_config::ClockDomains;

/// A count of core (SM) clock cycles; every latency the report gives is one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
pub struct Cycle(pub u64);

impl Add<u64> for Cycle {
    type Output = Cycle;
    fn add(self, cycles: u64) -> Cycle {
        Cycle(self.0 + cycles)
    }
}

impl AddAssign<u64> for Cycle {
    fn add_assign(&mut self, cycles: u64) {
        self.0 += cycles;
    }
}

impl Sub for Cycle {
    type Output = u64;
    fn sub(self, earlier: Cycle) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}

/// The four clock domains of a GPU, in the order GPGPU-Sim lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Domain {
    /// The SMs.
    Core,
    /// The crossbar.
    Icnt,
    /// The L2 slices and memory partitions.
    L2,
    /// The DRAM command clock.
    Dram,
}

/// Which domains tick at one instant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ticks {
    /// The core clock ticks.
    pub core: bool,
    /// The interconnect clock ticks.
    pub icnt: bool,
    /// The L2 clock ticks.
    pub l2: bool,
    /// The DRAM clock ticks.
    pub dram: bool,
}

/// The four clocks: each domain's period and the time of its next edge.
#[derive(Debug, Clone)]
pub struct Clocks {
    period_fs: [u64; 4],
    next_edge_fs: [u64; 4],
    /// Edges each domain has had.
    pub cycles: [u64; 4],
}

const FS_PER_SECOND_OVER_KHZ: u64 = 1_000_000_000_000;

impl Clocks {
    /// Clocks for the configured domains, all starting at time zero.
    pub fn new(domains: &ClockDomains) -> Self {
        let period = |khz: u64| (FS_PER_SECOND_OVER_KHZ / khz.max(1)).max(1);
        Self {
            period_fs: [
                period(domains.core.khz()),
                period(domains.icnt.khz()),
                period(domains.l2.khz()),
                period(domains.dram.khz()),
            ],
            next_edge_fs: [0; 4],
            cycles: [0; 4],
        }
    }

    /// Advances to the next instant at which any clock has an edge and says
    /// which do.
    pub fn advance(&mut self) -> Ticks {
        let now = *self.next_edge_fs.iter().min().unwrap_or(&0);
        let mut due = [false; 4];
        for (k, edge) in self.next_edge_fs.iter_mut().enumerate() {
            if *edge == now {
                due[k] = true;
                *edge += self.period_fs[k];
                self.cycles[k] += 1;
            }
        }
        Ticks { core: due[0], icnt: due[1], l2: due[2], dram: due[3] }
    }

    /// Moves every clock forward, without ticking, so that the next core
    /// edge is core cycle `target`; the edges of all domains before it are
    /// passed over. Does nothing unless `target` lies beyond the next core edge.
    pub fn skip_to_core(&mut self, target: u64) {
        if target <= self.cycles[0] + 1 {
            return;
        }
        // Edge `n` of a domain (1-based) is at `(n - 1) × period`.
        let at = (target - 1).saturating_mul(self.period_fs[0]);
        for k in 0..4 {
            let edges_before = at.div_ceil(self.period_fs[k]);
            if edges_before > self.cycles[k] {
                self.cycles[k] = edges_before;
                self.next_edge_fs[k] = edges_before * self.period_fs[k];
            }
        }
    }

    /// The last core cycle whose edge is at or before edge `cycle` of `domain`.
    pub fn core_cycle_at(&self, domain: Domain, cycle: u64) -> u64 {
        let at = cycle.saturating_sub(1).saturating_mul(self.period_fs[domain as usize]);
        at / self.period_fs[0] + 1
    }

    /// Core cycles elapsed.
    pub fn core(&self) -> Cycle {
        Cycle(self.cycles[0])
    }

    /// Cycles elapsed in `domain`.
    pub fn domain_cycles(&self, domain: Domain) -> u64 {
        self.cycles[domain as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warplab_config::Frequency;

    fn domains(core: u64, icnt: u64, l2: u64, dram: u64) -> ClockDomains {
        let f = Frequency::from_khz;
        ClockDomains { core: f(core), icnt: f(icnt), l2: f(l2), dram: f(dram) }
    }

    #[test]
    fn domains_tick_in_proportion_to_their_frequency() {
        let mut clocks = Clocks::new(&domains(1_400_000, 1_093_750, 1_400_000, 1_250_000));
        while clocks.core().0 < 14_000 {
            clocks.advance();
        }
        assert_eq!(clocks.cycles[2], 14_000, "L2 at the core clock ticks together with it");
        assert!((10_930..=10_940).contains(&clocks.cycles[1]), "{}", clocks.cycles[1]);
        assert!((12_490..=12_510).contains(&clocks.cycles[3]), "{}", clocks.cycles[3]);
    }

    #[test]
    fn skipping_ahead_lands_where_stepping_would() {
        let config = domains(1_417_000, 1_095_000, 1_417_000, 2_500_000);
        let mut stepped = Clocks::new(&config);
        for _ in 0..5 {
            stepped.advance();
        }
        let mut skipped = stepped.clone();
        // Step until the next edge would be core cycle 10,000.
        loop {
            let mut ahead = stepped.clone();
            ahead.advance();
            if ahead.core().0 == 10_000 {
                break;
            }
            stepped = ahead;
        }
        skipped.skip_to_core(10_000);
        assert_eq!(skipped.cycles, stepped.cycles);
        assert_eq!(skipped.next_edge_fs, stepped.next_edge_fs);
        assert_eq!(skipped.advance(), stepped.advance());
        // The DRAM edge after the skip is at or after core cycle 10,000's edge.
        assert_eq!(skipped.core_cycle_at(Domain::Dram, skipped.cycles[3] + 1), 10_000);
    }
}
