//! "MDM + limits", warplab's extension beyond the papers: throughput floors
//! under MDM's cycles for the parts that serve one request (or instruction)
//! at a time, which neither GPUMech nor MDM models but a timing model meets.
//!
//! A wave cannot end sooner than its busiest such part can do the wave's
//! work, so the extension's wave takes `max(MDM's cycles, every floor)`; the
//! cycles a floor adds are charged to that floor's own CPI term, so the stack
//! says which resource bounds the kernel. The floors, per wave:
//!
//! | floor | work | rate (from the config) |
//! |---|---|---|
//! | LD/ST unit | the SM's warps' L1 lookups, sent in order one per bank per cycle up to the first bank conflict; shared-memory bank conflicts; accesses past the L1 one per cycle | one cycle per step |
//! | execution units | each class's initiation intervals | the SM's units of that class |
//! | L2 slice | the busiest slice's accesses (same-address atomics all land on one) | one per L2 cycle |
//! | NoC | requests in the busier direction (reads' replies, writes' data) | `B_NoC` per L1 block (Eq. 7's service) |
//! | DRAM | sectors read and written | `B_DRAM` |
//!
//! The work comes from the profile's functional pass (what the trace and the
//! config imply), never from a run; the rates are the config's peaks, so a
//! floor is a bound the simulator can reach but not beat.

use serde::{Deserialize, Serialize};
use warplab_config::GpuConfig;
use warplab_uarch::cache::SECTOR_BYTES;
use warplab_uarch::coalescer::SectorAccess;
use warplab_uarch::ops::{N_UNIT_CLASSES, unit_class};

use crate::machine::Machine;
use crate::profile::KernelProfile;

/// What all of one kernel's warps ask of the throughput-limited parts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KernelWork {
    /// Cycles the memory instructions hold their SM's LD/ST unit.
    pub ldst_cycles: u64,
    /// Per execution-unit class (`warplab_uarch::ops` dense index): the
    /// initiation intervals of the instructions issued to it, summed.
    pub unit_cycles: Vec<u64>,
    /// L2 accesses at the slice that takes the most.
    pub busiest_slice_accesses: u64,
}

/// The floors, in the order of the CPI stack's limit terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Limit {
    Ldst,
    Units,
    L2Slice,
    Noc,
    Dram,
}

impl Limit {
    pub const ALL: [Limit; 5] = [Self::Ldst, Self::Units, Self::L2Slice, Self::Noc, Self::Dram];
}

/// What the floors read of a GPU beyond the rest of [`Machine`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rates {
    /// Units of each class per SM (dense index).
    pub units: Vec<u32>,
    /// Core cycles per L2 cycle.
    pub l2_cycle: f64,
}

impl Rates {
    /// The rates `config` gives.
    pub fn of(config: &GpuConfig) -> Self {
        Self {
            units: (0..N_UNIT_CLASSES).map(|k| config.units.n_units(unit_class(k))).collect(),
            l2_cycle: config.clocks.core.khz() as f64 / config.clocks.l2.khz().max(1) as f64,
        }
    }
}

/// The L1 banks' step count for one instruction's accesses: in order, one per
/// bank per cycle, a new cycle at the first bank already taken this cycle,
/// as the timing model's LD/ST unit sends them (GPGPU-Sim 4's banked
/// `l1_latency_queue`; `crates/sim/src/sm/memory.rs`).
pub(crate) fn bank_cycles(accesses: &[SectorAccess], banks: u64) -> u64 {
    if banks <= 1 {
        return accesses.len() as u64;
    }
    let mut cycles = u64::from(!accesses.is_empty());
    let mut taken = 0u64;
    for access in accesses {
        let bank = 1u64 << ((access.sector_addr / u64::from(SECTOR_BYTES)) % banks.min(64));
        if taken & bank != 0 {
            cycles += 1;
            taken = 0;
        }
        taken |= bank;
    }
    cycles
}

/// Each floor's cycles for a wave with `warps_per_sm` warps on each of
/// `active_sms` SMs, in the order of [`Limit::ALL`].
pub(crate) fn floors(k: &KernelProfile, machine: &Machine, warps_per_sm: f64, active_sms: f64) -> [f64; 5] {
    if k.warps == 0 {
        return [0.0; 5];
    }
    // The wave's share of the kernel's work on one SM, and on the GPU.
    let per_sm = warps_per_sm / k.warps as f64;
    let per_gpu = per_sm * active_sms;
    let work = &k.work;
    let units = work
        .unit_cycles
        .iter()
        .zip(&machine.rates.units)
        .map(|(&cycles, &units)| if units > 0 { cycles as f64 / f64::from(units) } else { 0.0 })
        .fold(0.0, f64::max);
    let caches = &k.caches;
    let busier_direction = caches.read_requests.max(caches.write_requests) as f64;
    let requests = (caches.read_requests + caches.write_requests) as f64;
    let sectors = requests * caches.dram_sectors_per_request;
    Limit::ALL.map(|limit| match limit {
        Limit::Ldst => work.ldst_cycles as f64 * per_sm,
        Limit::Units => units * per_sm,
        Limit::L2Slice => work.busiest_slice_accesses as f64 * per_gpu * machine.rates.l2_cycle,
        Limit::Noc => busier_direction * per_gpu * machine.noc_service(),
        Limit::Dram => sectors * per_gpu * machine.dram_cycles(f64::from(SECTOR_BYTES)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(sector: u64) -> SectorAccess {
        SectorAccess { sector_addr: sector * u64::from(SECTOR_BYTES), byte_mask: u32::MAX, lanes: 1 }
    }

    #[test]
    fn accesses_take_one_step_per_bank_until_a_conflict() {
        let four = [at(0), at(1), at(2), at(3)];
        assert_eq!(bank_cycles(&four, 1), 4);
        assert_eq!(bank_cycles(&four, 4), 1);
        // Bank 0 twice: the second starts a new cycle, and bank 1 after it
        // goes in that cycle, in order.
        assert_eq!(bank_cycles(&[at(0), at(4), at(1)], 4), 2);
        assert_eq!(bank_cycles(&[], 4), 0);
    }
}
