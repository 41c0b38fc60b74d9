//! Time: cycle counts that carry their clock in their type, and the four
//! clock domains.
//!
//! GPGPU-Sim (`gpgpu_sim::next_clock_domain`) keeps each domain's next edge
//! as a double-precision time in seconds, adds the domain's period (1 / its
//! frequency) at each edge, and ticks every domain whose time equals the
//! smallest. Which domains tick together is therefore decided by the
//! rounding of those sums, not by exact arithmetic: at 1400 MHz core and
//! 1093.75 MHz interconnect, edges that coincide exactly (every 32 core
//! cycles) tick one after the other as often as together. warplab keeps the
//! same sums in the same order, so its domains tick at the same instants
//! and in the same groups as GPGPU-Sim's; IEEE-754 addition is the same
//! natively and in WebAssembly, so every cycle count is too.

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
    /// Seconds per edge: `1 / Hz`, as GPGPU-Sim computes it.
    period_s: [f64; 4],
    /// The time of each domain's next edge (GPGPU-Sim's `core_time`,
    /// `icnt_time`, `l2_time`, `dram_time`), in seconds from the start.
    next_edge_s: [f64; 4],
    /// Edges each domain has had.
    pub cycles: [u64; 4],
}

impl Clocks {
    /// Clocks for the configured domains, all starting at time zero.
    pub fn new(domains: &ClockDomains) -> Self {
        // kHz × 1000 is the exact Hz GPGPU-Sim gets from the MHz text for
        // every frequency with at most three decimals (all of them here).
        let period = |khz: u64| 1.0 / (khz.max(1) as f64 * 1000.0);
        Self {
            period_s: [
                period(domains.core.khz()),
                period(domains.icnt.khz()),
                period(domains.l2.khz()),
                period(domains.dram.khz()),
            ],
            next_edge_s: [0.0; 4],
            cycles: [0; 4],
        }
    }

    /// Which domains have an edge at the next instant: those whose next
    /// edge is the earliest (compared exactly, as GPGPU-Sim does).
    fn due(&self) -> [bool; 4] {
        let earliest = self.next_edge_s.iter().copied().fold(f64::INFINITY, f64::min);
        self.next_edge_s.map(|edge| edge <= earliest)
    }

    /// Advances to the next instant at which any clock has an edge and says
    /// which do.
    pub fn advance(&mut self) -> Ticks {
        let due = self.due();
        for k in (0..4).filter(|&k| due[k]) {
            self.next_edge_s[k] += self.period_s[k];
            self.cycles[k] += 1;
        }
        Ticks { core: due[0], icnt: due[1], l2: due[2], dram: due[3] }
    }

    /// Moves every clock forward, without ticking, so that the next core
    /// edge is core cycle `target`; the edges of all domains before it are
    /// passed over. Does nothing unless `target` lies beyond the next core
    /// edge. The edges are passed one by one, since where they fall depends
    /// on every sum before them; that is a few additions per core cycle.
    pub fn skip_to_core(&mut self, target: u64) {
        if target <= self.cycles[0] + 1 {
            return;
        }
        while !(self.due()[0] && self.cycles[0] + 1 >= target) {
            self.advance();
        }
    }

    /// A core cycle at or before the one whose edge is at or before edge
    /// `cycle` of `domain`: one cycle early at most, since the rounding of
    /// the clocks' sums can move a coinciding edge either way, and waking
    /// early only costs another look, while waking late would pass an edge
    /// that had work over.
    pub fn core_cycle_at(&self, domain: Domain, cycle: u64) -> u64 {
        let at = cycle.saturating_sub(1) as f64 * self.period_s[domain as usize];
        let core = (at / self.period_s[0]).floor() as u64 + 1;
        core.saturating_sub(1).max(1)
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
    fn coinciding_edges_tick_as_the_double_sums_say() {
        // At 1400:1093.75:1400:1250 MHz the 9th DRAM edge and the 8th
        // interconnect edge are both at exactly 6.4 ns, but GPGPU-Sim's sums
        // put the DRAM edge first: they tick at two instants.
        let mut clocks = Clocks::new(&domains(1_400_000, 1_093_750, 1_400_000, 1_250_000));
        let ticks: Vec<Ticks> = (0..24).map(|_| clocks.advance()).collect();
        let dram_only = Ticks { dram: true, ..Ticks::default() };
        let icnt_only = Ticks { icnt: true, ..Ticks::default() };
        assert_eq!(&ticks[22..24], &[dram_only, icnt_only]);
        assert_eq!(clocks.cycles[1], 8);
        assert_eq!(clocks.cycles[3], 9);
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
        assert_eq!(skipped.next_edge_s, stepped.next_edge_s);
        assert_eq!(skipped.advance(), stepped.advance());
        // The DRAM edge after the skip is at or after core cycle 10,000's
        // edge (one cycle early at most).
        let dram_next = skipped.core_cycle_at(Domain::Dram, skipped.cycles[3] + 1);
        assert!((9_999..=10_000).contains(&dram_next), "{dram_next}");
    }
}
