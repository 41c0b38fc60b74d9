//! What the profile hands the models: every request a warp sends is in some
//! interval's `M` (Eq. 3), reads and writes alike, and the stalls that wait
//! for loads carry those loads' misses.

use warplab_kernels::{GenSpec, generate};
use warplab_model::{KernelProfile, ProfileOptions, profile, profile_on_threads};

fn kernels(preset: &str, spec: &str) -> Vec<KernelProfile> {
    let config = warplab_config::preset(preset).expect("a bundled preset").config().expect("a valid preset");
    let spec: GenSpec = spec.parse().expect("a valid spec");
    let mut source = generate(&spec, &config).expect("the spec fits").into_source();
    profile(&config, &mut source, ProfileOptions::default()).expect("the workload profiles").kernels
}

/// The representative warp's `Σ M_read` and `Σ M_write` against the mean
/// warp's requests from the cache pass.
fn charged_and_sent(k: &KernelProfile) -> ([f64; 2], [f64; 2]) {
    let charged = k.intervals.iter().fold([0.0, 0.0], |[r, w], i| [r + i.m_read, w + i.m_write]);
    let warps = k.warps.max(1) as f64;
    (charged, [k.caches.read_requests as f64 / warps, k.caches.write_requests as f64 / warps])
}

#[test]
fn every_request_of_a_uniform_kernel_is_in_m() {
    // Every warp of these kernels sends the same requests, so the
    // representative warp's charged requests are the mean warp's exactly;
    // vecadd's and gemm-tiled's stores come after their last load stall.
    for preset in ["SM7_QV100", "mdm-pascal-28sm"] {
        for spec in ["vecadd:size=64", "strided:gs=32,size=56", "gemm-tiled:size=2"] {
            for k in kernels(preset, spec) {
                let (charged, sent) = charged_and_sent(&k);
                for (what, c, s) in [("reads", charged[0], sent[0]), ("writes", charged[1], sent[1])] {
                    assert!((c - s).abs() <= 1e-9 * s.max(1.0), "{preset} {spec}: {what} charged {c}, sent {s}");
                }
                assert!(charged[1] > 0.0 || spec.starts_with("strided"), "{preset} {spec}: no write charged");
            }
        }
    }
}

#[test]
fn the_writes_after_the_last_load_are_the_ones_a_warp_waits_for_at_its_exit() {
    // vecadd stores once, after its loads: all its writes are still in
    // flight at the exit (a warp's 128 B, four sector writes). QV100's
    // write-back L2 keeps them (lazy fetch on read). mdm-pascal-28sm's
    // naive write-allocate L2 sends a write that misses on to DRAM and
    // fetches the line, and the three writes behind it find that fill in
    // flight and go on to DRAM too: DRAM acknowledges all of them.
    // strided stores to shared memory only: nothing to wait for.
    for (preset, writes, to_dram) in [("SM7_QV100", 4.0, 0.0), ("mdm-pascal-28sm", 4.0, 1.0)] {
        let k = &kernels(preset, "vecadd:size=64")[0];
        assert_eq!((k.work.exit_writes, k.work.writes_to_dram), (writes, to_dram), "{preset}");
        assert_eq!(kernels(preset, "strided:gs=32,size=56")[0].work.exit_writes, 0.0, "{preset}");
    }
}

/// The representative warp's expected stalls that wait for a miss, and for
/// memory at all (a miss or a fill in flight).
fn misses_and_waits(k: &KernelProfile) -> (f64, f64) {
    k.intervals.iter().filter(|i| i.awaits_load).fold((0.0, 0.0), |(m, w), i| (m + i.miss, w + i.wait))
}

#[test]
fn loads_of_a_line_another_warp_is_fetching_wait_for_it() {
    // gemm-naive: the warps of a CTA read the same row of B at the same k,
    // so one warp's miss brings the sectors the others then hit while they
    // are still on their way (the run's HIT_RESERVED: on SM7_QV100 at the
    // default size 229,376 of 524,288 L1 lookups). Those stalls wait for
    // memory though they miss nothing.
    for k in kernels("SM7_QV100", "gemm-naive:size=2") {
        let (misses, waits) = misses_and_waits(&k);
        assert!(waits > 2.0 * misses, "{}: misses {misses}, waits {waits}", k.name);
    }
    // vecadd: every warp streams its own lines; nothing is shared.
    for k in kernels("SM7_QV100", "vecadd:size=64") {
        let (misses, waits) = misses_and_waits(&k);
        assert!(misses > 0.0 && (waits - misses).abs() < 1e-9, "{}: misses {misses}, waits {waits}", k.name);
    }
}

/// Hand-worked: `histogram:size=1,skew=100` is 1,024 threads (32 warps)
/// each reading four values and adding each to bin 0. A warp's loads read
/// 4 × 32 × 4 bytes, 16 sectors, through the L1; its four atomics update
/// one word from all 32 lanes, 128 requests that skip the L1 and take no
/// MSHR (the timing model sends them straight into the crossbar).
#[test]
fn atomics_are_the_requests_that_skip_the_l1() {
    let [k] = &kernels("SM7_QV100", "histogram:size=1,skew=100")[..] else { panic!("one kernel") };
    let (read, bypass) = k.intervals.iter().fold((0.0, 0.0), |(r, b), i| (r + i.m_read, b + i.m_bypass));
    assert_eq!((read - bypass, bypass), (16.0, 128.0));
}

#[test]
fn the_profile_is_the_same_on_one_thread_and_two() {
    // The LLC stage runs on a second thread beside the L1 stage; the same
    // requests in the same order must give the same profile. `gemm-naive`
    // has L2 fills in flight (per-site waits), `bfs` several kernels,
    // `histogram` atomics past the L1, `strided` the turns of round robin.
    for (preset, spec) in [
        ("SM7_QV100", "gemm-naive:size=2"),
        ("SM7_QV100", "strided:gs=32,size=56"),
        ("SM86_RTX3070", "bfs:size=4"),
        ("mdm-pascal-28sm", "histogram:size=4"),
    ] {
        let config = warplab_config::preset(preset).expect("a bundled preset").config().expect("a valid preset");
        let spec: GenSpec = spec.parse().expect("a valid spec");
        let on = |threads| {
            let mut source = generate(&spec, &config).expect("the spec fits").into_source();
            profile_on_threads(&config, &mut source, ProfileOptions::default(), threads).expect("the workload profiles")
        };
        let (one, two) = (on(1), on(2));
        assert_eq!(one, two, "{preset} {spec}");
        assert!(one.kernels.iter().any(|k| k.caches.l2_misses > 0), "{preset} {spec}: the LLC stage did work");
    }
}
