//! How many CTAs of a kernel fit on one SM at once, and what limits them.
//!
//! The rule is GPGPU-Sim's (`shader_core_config::max_cta`): a CTA occupies
//! its thread count rounded up to whole warps; registers are allocated per
//! thread in multiples of 4, for every thread of those warps; shared memory
//! is counted against the SM's full (largest carve-out) capacity; and there
//! is a fixed number of CTA slots. The smallest of the four quotients wins.

use std::fmt;

use serde::{Deserialize, Serialize};
use warplab_config::GpuConfig;

/// What a kernel asks of an SM per CTA.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CtaShape {
    /// Threads per CTA.
    pub threads: u32,
    /// Registers per thread, as the trace header says.
    pub regs_per_thread: u32,
    /// Shared memory per CTA in bytes.
    pub shmem_bytes: u32,
}

/// The resource that caps CTAs per SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Limiter {
    /// Resident threads (warps).
    Threads,
    /// The register file.
    Registers,
    /// Shared memory.
    SharedMemory,
    /// CTA slots.
    CtaSlots,
}

/// The CTAs of one kernel an SM holds at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Occupancy {
    /// CTAs resident per SM (at least 1).
    pub ctas_per_sm: u32,
    /// Warps resident per SM.
    pub warps_per_sm: u32,
    /// What stops one more CTA from fitting.
    pub limiter: Limiter,
}

/// What one CTA occupies on an SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CtaFootprint {
    /// Warps: the threads rounded up to whole warps.
    pub warps: u64,
    /// Threads, padded to whole warps.
    pub threads: u64,
    /// Registers: 4-register granules per thread, for every padded thread.
    pub regs: u64,
    /// Shared memory bytes.
    pub shmem_bytes: u64,
}

/// What one CTA of `shape` occupies on an SM of `config`: the allocation
/// granularity the occupancy rule and the simulator's resource checks share.
pub fn footprint(config: &GpuConfig, shape: CtaShape) -> CtaFootprint {
    let warp_size = u64::from(config.cores.warp_size.max(1));
    let warps = u64::from(shape.threads.max(1)).div_ceil(warp_size);
    let threads = warps * warp_size;
    CtaFootprint {
        warps,
        threads,
        regs: threads * u64::from(shape.regs_per_thread.div_ceil(4) * 4),
        shmem_bytes: u64::from(shape.shmem_bytes),
    }
}

/// A CTA that does not fit on an SM even alone: the kernel cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DoesNotFit {
    /// The resource that is short.
    pub limiter: Limiter,
    /// What one CTA needs of it.
    pub needed: u64,
    /// What an SM (or a CTA, for the per-CTA register limit) has.
    pub available: u64,
}

impl fmt::Display for DoesNotFit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.limiter {
            Limiter::Threads => "threads",
            Limiter::Registers => "registers",
            Limiter::SharedMemory => "bytes of shared memory",
            Limiter::CtaSlots => "CTA slots",
        };
        write!(f, "one CTA needs {} {what} but an SM has {}", self.needed, self.available)
    }
}

impl std::error::Error for DoesNotFit {}

/// CTAs of `shape` per SM of `config`.
///
/// # Errors
/// One CTA alone needs more threads, registers or shared memory than an SM
/// (or the per-CTA register limit) has.
pub fn occupancy(config: &GpuConfig, shape: CtaShape) -> Result<Occupancy, DoesNotFit> {
    let cores = &config.cores;
    let CtaFootprint { warps, threads: padded_threads, regs, shmem_bytes } = footprint(config, shape);
    if regs > u64::from(cores.regs_per_cta) {
        let available = u64::from(cores.regs_per_cta);
        return Err(DoesNotFit { limiter: Limiter::Registers, needed: regs, available });
    }
    let limits = [
        (Limiter::CtaSlots, 1, u64::from(cores.max_ctas_per_sm)),
        (Limiter::Threads, padded_threads, u64::from(cores.max_threads_per_sm)),
        (Limiter::Registers, regs, u64::from(cores.regs_per_sm)),
        (Limiter::SharedMemory, shmem_bytes, u64::from(config.l1.shmem_per_sm_bytes)),
    ];
    let mut best: Option<(u64, Limiter)> = None;
    for (limiter, needed, available) in limits {
        if needed == 0 {
            continue;
        }
        let fit = available / needed;
        if fit == 0 {
            return Err(DoesNotFit { limiter, needed, available });
        }
        if best.is_none_or(|(ctas, _)| fit < ctas) {
            best = Some((fit, limiter));
        }
    }
    let (ctas, limiter) = best.expect("CTA slots always limit");
    let ctas_per_sm = u32::try_from(ctas).unwrap_or(u32::MAX);
    let warps_per_sm = u32::try_from(warps).unwrap_or(u32::MAX).saturating_mul(ctas_per_sm);
    Ok(Occupancy { ctas_per_sm, warps_per_sm, limiter })
}

/// Full GPU waves a grid of `ctas` CTAs takes: the CTAs divided by what
/// all SMs hold at once, rounded up (a partial last wave counts).
pub fn waves(ctas: u64, occupancy: Occupancy, n_sms: u32) -> u64 {
    let per_wave = u64::from(occupancy.ctas_per_sm) * u64::from(n_sms);
    ctas.div_ceil(per_wave.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qv100() -> GpuConfig {
        warplab_config::preset("QV100").unwrap().config().unwrap()
    }

    fn shape(threads: u32, regs_per_thread: u32, shmem_bytes: u32) -> CtaShape {
        CtaShape { threads, regs_per_thread, shmem_bytes }
    }

    #[test]
    fn each_resource_can_be_the_limit() {
        let config = qv100();
        let cores = &config.cores;
        let check = |s: CtaShape, ctas: u32, limiter: Limiter| {
            let got = occupancy(&config, s).unwrap();
            assert_eq!((got.ctas_per_sm, got.limiter), (ctas, limiter), "{s:?}");
        };
        check(shape(256, 16, 0), cores.max_threads_per_sm / 256, Limiter::Threads);
        // 33 threads occupy two warps: 64 threads' worth.
        check(shape(33, 8, 0), (cores.max_threads_per_sm / 64).min(cores.max_ctas_per_sm), Limiter::CtaSlots);
        // 38 registers are allocated as 40.
        check(shape(256, 38, 0), cores.regs_per_sm / (256 * 40), Limiter::Registers);
        check(shape(64, 8, 40 * 1024), config.l1.shmem_per_sm_bytes / (40 * 1024), Limiter::SharedMemory);
    }

    #[test]
    fn a_cta_too_big_for_an_sm_is_an_error() {
        let config = qv100();
        let too_much_shmem = config.l1.shmem_per_sm_bytes + 1;
        let error = occupancy(&config, shape(32, 8, too_much_shmem)).unwrap_err();
        assert_eq!(error.limiter, Limiter::SharedMemory);
        assert!(occupancy(&config, shape(1024, 255, 0)).is_err());
        assert!(occupancy(&config, shape(config.cores.max_threads_per_sm + 32, 8, 0)).is_err());
    }

    #[test]
    fn waves_round_up() {
        let config = qv100();
        let occ = occupancy(&config, shape(256, 16, 0)).unwrap();
        let per_wave = u64::from(occ.ctas_per_sm * config.n_sms());
        assert_eq!(waves(per_wave, occ, config.n_sms()), 1);
        assert_eq!(waves(per_wave + 1, occ, config.n_sms()), 2);
        assert_eq!(waves(4 * per_wave, occ, config.n_sms()), 4);
    }
}
