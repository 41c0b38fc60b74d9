//! The caches-only walk (`walk_caches`): at the config's own LLC it is the
//! profile's cache pass, extra LLCs do not disturb one another, and misses
//! are counted as DESIGN §2a defines them (write misses that fetch nothing
//! included).

use warplab_config::cache::SetIndex;
use warplab_config::{GpuConfig, SchedulerPolicy};
use warplab_kernels::{GenSpec, generate};
use warplab_model::{CacheWalk, ProfileOptions, profile, walk_caches};

fn config(preset: &str) -> GpuConfig {
    warplab_config::preset(preset).expect("a bundled preset").config().expect("a valid preset")
}

fn walk(config: &GpuConfig, llcs: &[&GpuConfig], spec: &str, options: ProfileOptions) -> CacheWalk {
    let spec: GenSpec = spec.parse().expect("a valid spec");
    let mut source = generate(&spec, config).expect("the spec fits").into_source();
    walk_caches(config, llcs, &mut source, options).expect("the workload walks")
}

/// Every kernel's figures at the config's own LLC equal the profile's.
fn check_same_as_profile(preset: &str, spec: &str, options: ProfileOptions) {
    let config = config(preset);
    let walked = walk(&config, &[&config], spec, options);
    let parsed: GenSpec = spec.parse().expect("a valid spec");
    let mut source = generate(&parsed, &config).expect("the spec fits").into_source();
    let profiled = profile(&config, &mut source, options).expect("the workload profiles");
    assert_eq!(walked.kernels.len(), profiled.kernels.len(), "{preset} {spec}");
    for (w, p) in walked.kernels.iter().zip(&profiled.kernels) {
        let what = format!("{preset} {spec} kernel {}", p.id);
        assert_eq!((w.warp_insts, w.thread_insts), (p.warp_insts, p.thread_insts), "{what}");
        assert_eq!(w.llcs[0].fetches, p.caches.l2_misses, "{what}");
        assert_eq!(w.llcs[0].accesses, p.caches.l2_accesses, "{what}");
    }
    assert_eq!(walked.thread_insts, profiled.kernels.iter().map(|k| k.thread_insts).sum::<u64>());
    assert_eq!(walked.diagnostics, profiled.diagnostics, "{preset} {spec}");
}

#[test]
fn at_the_configs_own_llc_the_walk_is_the_profiles_pass() {
    let cold = ProfileOptions::default();
    check_same_as_profile("QV100", "vecadd:size=64", cold);
    check_same_as_profile("mdm-pascal-28sm", "strided:gs=32,size=14", cold);
    check_same_as_profile("mdm-pascal-28sm", "bfs:size=2", cold);
    check_same_as_profile("RTX3070", "histogram:size=4", ProfileOptions { memcpy_warms_l2: true });
}

#[test]
fn extra_llcs_see_the_same_stream_without_disturbing_each_other() {
    let target = config("scalemodel");
    let half = target.scale_shared(2).expect("128 SMs halve").config;
    let options = ProfileOptions::default();
    let spec = "stencil2d";
    let alone = walk(&target, &[&half], spec, options);
    let together = walk(&target, &[&target, &half], spec, options);
    assert_eq!(together.llcs[1], alone.llcs[0]);
    assert_eq!(together.kernels[0].llcs[1], alone.kernels[0].llcs[0]);
    // The same requests reach both.
    assert_eq!(together.llcs[0].accesses, together.llcs[1].accesses);
}

#[test]
fn write_misses_count_though_the_write_validate_l2_fetches_nothing() {
    // vecadd reads a and b and writes c, each n floats, each sector once:
    // the L2 (write-back, write-validate) fetches a's and b's sectors and
    // allocates c's without a fetch, but all three miss (DESIGN §2a).
    let config = config("QV100");
    let walked = walk(&config, &[&config], "vecadd:size=64,tail=0", ProfileOptions::default());
    let sectors_per_array = 64 * 1024 * 4 / 32;
    let llc = walked.llcs[0];
    assert_eq!(llc.fetches, 2 * sectors_per_array);
    assert_eq!(llc.misses, 3 * sectors_per_array);
    assert_eq!(llc.accesses, 3 * sectors_per_array);
}

#[test]
fn no_llc_is_a_walk_of_the_l1s_alone() {
    let config = config("QV100");
    let walked = walk(&config, &[], "vecadd:size=8", ProfileOptions::default());
    assert!(walked.llcs.is_empty());
    // 8,192 threads in 256 warps of 15 instructions.
    assert_eq!(walked.warp_insts, 256 * 15);
}

/// The profile's L1 read lookups and misses of `spec` on one SM of
/// mdm-pascal-28sm with a 4-set, 128-way L1 (512 lines, linear index) of
/// 32 MSHRs, under the scheduling `policy`, with the LD/ST pipeline's issue
/// and dispatch registers `width` wide.
fn one_sm_l1(policy: SchedulerPolicy, spec: &str, width: u32) -> (u64, u64) {
    let mut config = config("mdm-pascal-28sm");
    (config.cores.n_clusters, config.cores.cores_per_cluster) = (1, 1);
    config.scheduling.policy = policy;
    (config.units.widths.id_oc_mem, config.units.widths.oc_ex_mem) = (width, width);
    let dl1 = config.l1.dl1.as_mut().expect("pascal has an L1");
    (dl1.n_sets, dl1.assoc, dl1.mshr_entries, dl1.set_index) = (4, 128, 32, SetIndex::Linear);
    let parsed: GenSpec = spec.parse().expect("a valid spec");
    let mut source = generate(&parsed, &config).expect("the spec fits").into_source();
    let profiled = profile(&config, &mut source, ProfileOptions::default()).expect("the workload profiles");
    let caches = &profiled.kernels[0].caches;
    (caches.l1_reads, caches.l1_read_misses)
}

/// 32 warps on the SM, each loading the same 32 lines eight times (gs =
/// 32, n = 8); one warp's load fills a round's 32 MSHRs. Taking turns, a
/// warp comes back to its lines after the 31 others' 992 have gone through
/// the 512-line L1: every load misses. Oldest first, the warps in turn are
/// the ones in the SM's memory pipeline (five places on this GPU: one issue
/// register, two collector units, one dispatch register, the LD/ST unit)
/// and the ones that got in while they waited, so more of the lines
/// survive, though not every warp's: more than the 1,024 compulsory misses
/// (the count is the pass's, measured). Four-wide registers put eleven
/// places in the pipeline and more warps in turn, so more misses, as the
/// run's (60% → 79% of `strided:gs=32`'s lookups at its default size).
#[test]
fn oldest_first_the_memory_pipeline_sets_how_many_warps_take_turns() {
    let spec = "strided:gs=32,n=8,size=1";
    assert_eq!(one_sm_l1(SchedulerPolicy::Lrr, spec, 1), (8192, 8192));
    let narrow = one_sm_l1(SchedulerPolicy::Gto, spec, 1);
    assert_eq!(narrow, (8192, 2848));
    assert_eq!(one_sm_l1(SchedulerPolicy::OldestFirst, spec, 1), narrow);
    let wide = one_sm_l1(SchedulerPolicy::Gto, spec, 4);
    assert!(narrow.1 < wide.1 && wide.1 < 8192, "{narrow:?} {wide:?}");
}

/// Hand-worked: `histogram:size=1,skew=100` is 1,024 threads adding four
/// values each, every one to bin 0. The loads read 4,096 four-byte values,
/// 512 sectors. The atomics' lanes all update one word, so no two can share
/// a request (each is its own read-modify-write at the L2, GPGPU-Sim's
/// `memory_coalescing_arch_atomic`, as the timing model coalesces them):
/// 4,096 requests more, not one per warp instruction.
#[test]
fn atomics_on_one_word_need_a_request_each() {
    let config = config("SM7_QV100");
    let walked = walk(&config, &[&config], "histogram:size=1,skew=100", ProfileOptions::default());
    assert_eq!(walked.llcs[0].accesses, 512 + 4096);
}
