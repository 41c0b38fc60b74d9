//! The LLC miss-rate curve (DESIGN §6): L2 MPKI at every size of a scale
//! series, from one functional pass over the workload instead of one timing
//! simulation per size.
//!
//! The L1-filtered access stream is produced once, by the L1s of one
//! configuration (the *stream config*), and every request past the L1s goes
//! to one set of LLC tag arrays per size (`warplab_model::walk_caches`).
//! Each size's LLC has that size's own geometry: its slices (one per
//! sub-partition of its memory channels), the sets of each slice, the L2
//! cache string, the address mapping and the partition indexing. A scale
//! model has fewer slices, so an address lands in another slice and set, not
//! just in a smaller cache; that is why the series needs a bank of tag
//! arrays rather than one stack-distance profile.
//!
//! Which SM count makes the stream: **the smallest scale model's** (see
//! [`miss_rate_curve`] for why; `docs/validation.md`, "Miss-rate curve", has
//! the measurements).

use serde::{Deserialize, Serialize};
use warplab_config::GpuConfig;
use warplab_model::{ProfileOptions, walk_caches};
use warplab_trace::source::WorkloadSource;

/// L2 MPKI at each size of a scale series.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MissCurve {
    /// The SM count whose L1s filtered the access stream.
    pub stream_sms: u32,
    /// One point per size, in the order the sizes were given.
    pub points: Vec<MissPoint>,
    /// Oddities met reading the workload (unknown opcodes, kernels that
    /// cannot run on the stream config).
    pub diagnostics: Vec<String>,
}

/// The curve at one size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct MissPoint {
    /// SMs of the size's config.
    pub sms: u32,
    /// LLC capacity: slices × the L2 cache string's sets × ways × line size.
    pub llc_bytes: u64,
    /// L2 slices (memory channels × sub-partitions per channel).
    pub slices: u32,
    /// Requests at the LLC (reads, writes, atomics, L1 write-backs).
    pub l2_accesses: u64,
    /// L2 misses as DESIGN §2a counts them: sector requests that missed,
    /// reads and writes.
    pub l2_misses: u64,
    /// Thread instructions of the workload (the same at every size).
    pub thread_insts: u64,
    /// L2 misses per 1,000 thread instructions.
    pub mpki: f64,
}

/// The miss-rate curve of `workload` at each of `sizes`, from one pass.
///
/// The stream comes from `stream_config`'s SMs and L1s; each point's LLC
/// from the matching entry of `sizes`, of which only the memory system is
/// read (`memory`: channels, sub-partitions, the L2 string, the partition
/// indexing and the address mapping; `dram`: the banks the mapping decodes).
/// Pass the smallest scale model as `stream_config`. The stream's SM count
/// sets how many warps' requests fall between two uses of a line: one round
/// of the pass advances every resident warp of every SM, so a 128-SM stream
/// puts 16 times the traffic of an 8-SM one between a warp's re-uses, and at
/// the small sizes those re-uses miss. Measured against the timing model on
/// six kernels at 8 to 128 SMs of `scalemodel-128sm`, the 8-SM stream was
/// within 0.3% at 29 of 30 points, the 128-SM stream 3.4× to 7.5× too high
/// at 2 to 8 MiB on the memory-divergent kernels; at the large sizes the
/// footprint mostly fits and the stream's order does not matter. The one
/// point the 8-SM stream misses (+73%) is a region exactly the LLC's size,
/// where no single stream is right (the size's own stream is 53% off).
///
/// ```
/// use warplab_kernels::{GenSpec, generate};
/// use warplab_model::ProfileOptions;
/// use warplab_scale::miss_curve::miss_rate_curve;
///
/// let target = warplab_config::preset("scalemodel").unwrap().config().unwrap();
/// let sizes: Vec<_> = [16, 8].iter().map(|&f| target.scale_shared(f).unwrap().config).collect();
/// let spec: GenSpec = "vecadd:size=16".parse().unwrap();
/// let mut source = generate(&spec, &target).unwrap().into_source();
/// let curve = miss_rate_curve(&sizes[0], &sizes, &mut source, ProfileOptions::default()).unwrap();
/// assert_eq!(curve.points[1].sms, 16);
/// // Streaming: every sector misses once at every size.
/// assert_eq!(curve.points[0].l2_misses, curve.points[1].l2_misses);
/// ```
///
/// # Errors
/// No sizes, or the workload could not be read (the message names file, line
/// and field).
pub fn miss_rate_curve(
    stream_config: &GpuConfig,
    sizes: &[GpuConfig],
    workload: &mut dyn WorkloadSource,
    options: ProfileOptions,
) -> Result<MissCurve, String> {
    if sizes.is_empty() {
        return Err("a miss-rate curve needs at least one size".to_owned());
    }
    let llc_configs: Vec<&GpuConfig> = sizes.iter().collect();
    let walk = walk_caches(stream_config, &llc_configs, workload, options)?;
    let points =
        sizes.iter().zip(&walk.llcs).map(|(size, llc)| point(size, llc.accesses, llc.misses, walk.thread_insts));
    Ok(MissCurve { stream_sms: walk.stream_sms, points: points.collect(), diagnostics: walk.diagnostics })
}

/// The point of `size` for these counts.
fn point(size: &GpuConfig, l2_accesses: u64, l2_misses: u64, thread_insts: u64) -> MissPoint {
    MissPoint {
        sms: size.n_sms(),
        llc_bytes: size.memory.l2_total_bytes(),
        slices: size.memory.n_sub_partitions(),
        l2_accesses,
        l2_misses,
        thread_insts,
        mpki: mpki(l2_misses, thread_insts),
    }
}

/// Misses per 1,000 thread instructions, 0 without instructions (as
/// `SimReport::l2_mpki`).
pub fn mpki(misses: u64, thread_insts: u64) -> f64 {
    if thread_insts == 0 { 0.0 } else { misses as f64 * 1000.0 / thread_insts as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(misses: u64, thread_insts: u64, expect: f64) {
        assert_eq!(mpki(misses, thread_insts).to_bits(), expect.to_bits(), "{misses} / {thread_insts}");
    }

    #[test]
    fn mpki_is_misses_per_thousand_thread_instructions() {
        check(3, 1000, 3.0);
        check(1, 4000, 0.25);
        check(7, 0, 0.0);
    }

    #[test]
    fn a_point_describes_its_sizes_llc() {
        let target = warplab_config::preset("scalemodel").expect("bundled").config().expect("valid");
        let small = target.scale_shared(16).expect("128 / 16").config;
        let p = point(&small, 10, 5, 2000);
        // 8 SMs, one channel of the 16, 4 slices of 64 sets × 64 ways × 128 B.
        assert_eq!((p.sms, p.slices, p.llc_bytes), (8, 4, 4 * 64 * 64 * 128));
        assert_eq!(p.mpki, 2.5);
    }

    /// A workload whose first command cannot be read.
    struct Unreadable;

    impl WorkloadSource for Unreadable {
        fn next_command(&mut self) -> Option<Result<warplab_trace::source::Command, String>> {
            Some(Err("kernelslist.g:1: command: not a kernel or a copy".to_owned()))
        }
    }

    #[test]
    fn bad_input_is_an_error() {
        let target = warplab_config::preset("scalemodel").expect("bundled").config().expect("valid");
        let options = ProfileOptions::default();
        let no_sizes = miss_rate_curve(&target, &[], &mut Unreadable, options);
        assert_eq!(no_sizes, Err("a miss-rate curve needs at least one size".to_owned()));
        let unreadable = miss_rate_curve(&target, std::slice::from_ref(&target), &mut Unreadable, options);
        assert_eq!(unreadable, Err("kernelslist.g:1: command: not a kernel or a copy".to_owned()));
    }
}
