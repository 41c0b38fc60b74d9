//! How the microbenchmarks size themselves for the chosen config (`--for`):
//! the memory level they target, the capacities their footprints derive
//! from, and how many CTAs of a kernel an SM holds at once.
//!
//! The L1 capacity is what a kernel without shared memory gets: with the
//! adaptive L1/shared carve-out, the ways `carveout_for(0)` leaves × sets ×
//! line size (the whole unified array on Volta, 128 KiB on QV100); otherwise
//! the `-gpgpu_cache:dl1` size. The L2 capacity is the total over all slices.
//!
//! Resident CTAs are bounded by the thread limit (CTA rounded up to whole
//! warps) and the CTA slots; registers and shared memory can only lower the
//! count, which keeps every footprint rule on the safe side.

use warplab_config::GpuConfig;

use crate::spec::GenError;

/// The level of the memory hierarchy a microbenchmark's footprint targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    /// Fits in the L1 data cache.
    L1,
    /// Misses in the L1, fits in the L2.
    L2,
    /// Misses in the L2.
    Dram,
}

/// Bytes of L1 data cache a kernel without shared memory gets (module doc).
pub(crate) fn l1_bytes(config: &GpuConfig) -> Result<u64, GenError> {
    let l1 = &config.l1;
    let dl1 = l1.dl1.as_ref().ok_or_else(|| GenError::Inconsistent("the config has no L1 data cache".to_owned()))?;
    Ok(match l1.carveout_for(0) {
        Some((_, ways)) => u64::from(ways) * u64::from(dl1.n_sets) * u64::from(dl1.line_size_bytes),
        None => dl1.size_bytes(),
    })
}

/// The L1 line size: what one pointer per line means.
pub(crate) fn l1_line_bytes(config: &GpuConfig) -> Result<u64, GenError> {
    let dl1 =
        config.l1.dl1.as_ref().ok_or_else(|| GenError::Inconsistent("the config has no L1 data cache".to_owned()))?;
    Ok(u64::from(dl1.line_size_bytes))
}

/// Total L2 bytes over all slices.
pub(crate) fn l2_bytes(config: &GpuConfig) -> u64 {
    config.memory.l2_total_bytes()
}

/// Half the L2, checked to hold at least 4× the L1: an L2-level footprint
/// must miss in the L1 and still fit in half the L2.
pub(crate) fn half_l2_beyond_l1(config: &GpuConfig) -> Result<u64, GenError> {
    let (half_l2, l1) = (l2_bytes(config) / 2, l1_bytes(config)?);
    if half_l2 < 4 * l1 {
        return Err(GenError::Inconsistent(format!(
            "half the L2 ({half_l2} B) is smaller than 4x the L1 ({l1} B): no footprint misses the L1 and fits the L2"
        )));
    }
    Ok(half_l2)
}

/// The most CTAs of `block` threads one SM can hold: its thread limit
/// (CTAs rounded up to whole warps) and its CTA slots. Registers and shared
/// memory can only lower this (the full rule is `warplab_uarch::occupancy`);
/// the microbenchmarks size per-CTA regions and waves from this bound, so a
/// region never overflows the L1 and a run never has fewer waves than asked.
pub(crate) fn resident_ctas(config: &GpuConfig, block: u64) -> u64 {
    let cores = &config.cores;
    let warp = u64::from(cores.warp_size.max(1));
    let threads = block.div_ceil(warp) * warp;
    (u64::from(cores.max_threads_per_sm) / threads).min(u64::from(cores.max_ctas_per_sm)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qv100() -> GpuConfig {
        warplab_config::default_preset().config().unwrap()
    }

    #[test]
    fn qv100_has_the_whole_unified_array_as_l1_and_6_mib_of_l2() {
        let config = qv100();
        assert_eq!(l1_bytes(&config).unwrap(), u64::from(config.l1.unified_l1d_size_bytes));
        assert_eq!(l1_bytes(&config).unwrap(), 128 << 10);
        assert_eq!(l2_bytes(&config), 6 << 20);
        assert_eq!(half_l2_beyond_l1(&config).unwrap(), 3 << 20);
    }

    #[test]
    fn without_the_adaptive_carveout_the_l1_is_the_cache_string() {
        let config = warplab_config::preset("mdm-pascal-28sm").unwrap().config().unwrap();
        assert_eq!(l1_bytes(&config).unwrap(), config.l1.dl1.as_ref().unwrap().size_bytes());
    }

    #[test]
    fn resident_ctas_are_bounded_by_threads_and_slots() {
        let config = qv100();
        let cores = &config.cores;
        assert_eq!(resident_ctas(&config, 256), u64::from(cores.max_threads_per_sm / 256));
        assert_eq!(resident_ctas(&config, 32), u64::from(cores.max_ctas_per_sm));
        // 200 threads occupy 7 warps.
        assert_eq!(resident_ctas(&config, 200), u64::from(cores.max_threads_per_sm / 224));
    }
}
