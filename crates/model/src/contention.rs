//! The contention terms: waiting for an L1 MSHR, and queueing on the NoC and
//! at DRAM, as GPUMech, GPUMech+ and MDM each model them.
//!
//! Notation (the MDM paper's): `W` resident warps per SM, `M_read` / `M_write`
//! an interval's requests per warp, `#MSHR` the L1's MSHRs, `L` a miss's
//! latency. Every term is in core cycles.

/// GPUMech's MSHR delay factor: with `E = M_read · W` requests and `N`
/// MSHRs served in batches of `N`, request `j` waits for `⌈j/N⌉` latencies;
/// the mean extra wait is `(1/E) Σ_{j=1..E} L ⌈j/N⌉ − L`, returned here
/// divided by `L`. Fractional `E` (an expectation) interpolates between the
/// neighbouring whole numbers.
pub fn mshr_average_factor(requests: f64, mshrs: f64) -> f64 {
    let whole = |e: f64| -> f64 {
        if e < 1.0 {
            return 0.0;
        }
        // Σ_{j=1..E} ⌈j/N⌉ with E = qN + r: N·q(q+1)/2 + r(q+1).
        let q = (e / mshrs).floor();
        let r = e - q * mshrs;
        (mshrs * q * (q + 1.0) / 2.0 + r * (q + 1.0)) / e - 1.0
    };
    let low = requests.floor();
    let t = requests - low;
    (1.0 - t) * whole(low) + t * whole(low + 1.0)
}

/// MDM's batching: a memory-divergent interval's `M_read · W` requests go out
/// in `⌈M_read · W / #MSHR⌉` batches, each a full memory latency; the warp
/// waits for all but the first, `(⌈M_read·W / #MSHR⌉ − 1)`, on top.
pub fn mshr_batches_beyond_first(requests: f64, mshrs: f64) -> f64 {
    // A whisker below the ratio so an exact multiple of #MSHR is not rounded up by float noise.
    ((requests / mshrs - 1e-9).ceil() - 1.0).max(0.0)
}

/// The MSHR batches beyond the first of `requests` flowing through `mshrs`
/// MSHRs that are never idle: `max(0, requests / #MSHR − 1)`. Unlike MDM's
/// whole batches ([`mshr_batches_beyond_first`]), a partial batch takes its
/// share of a batch's time, because the MSHRs it leaves free are taken by
/// the next requests in flight rather than left empty until it is done.
pub fn mshr_batches_flowing(requests: f64, mshrs: f64) -> f64 {
    (requests / mshrs.max(1.0) - 1.0).max(0.0)
}

/// Waiting time of an M/D/1 queue (Poisson arrivals, deterministic service
/// `service` cycles) at utilization `rho` < 1: `ρ · s / (2 (1 − ρ))`.
pub fn md1_wait(rho: f64, service: f64) -> f64 {
    rho * service / (2.0 * (1.0 - rho))
}

/// MDM's queueing delay on a link (NoC or DRAM): all active SMs' `M`
/// requests drain through it at `service` cycles each. When the interval is
/// memory-divergent and the drain outlasts the no-contention latency
/// (`saturated`), the warp waits for the whole drain; otherwise, on average,
/// for half of it.
pub fn mdm_queue_delay(active_sms: f64, requests: f64, service: f64, no_contention: f64, divergent: bool) -> f64 {
    if divergent && saturated(active_sms, requests, service, no_contention) {
        active_sms * requests * service
    } else {
        mdm_burst_delay(active_sms, requests, service)
    }
}

/// MDM's queueing delay for a burst the MSHRs hold at once: all active SMs'
/// `M` requests drain through the link at `service` cycles each, and a
/// request waits for half of the drain on average.
pub fn mdm_burst_delay(active_sms: f64, requests: f64, service: f64) -> f64 {
    active_sms * requests * service / 2.0
}

/// The waits at each queueing station of a closed network: `population`
/// requests cycle through a pure delay of `latency` cycles and stations of
/// `services` cycles each, by Schweitzer's approximate mean-value analysis.
pub fn closed_queue_waits<const N: usize>(population: f64, latency: f64, services: [f64; N]) -> [f64; N] {
    if population <= 1.0 {
        return services;
    }
    let mut queue = [population / (N as f64 + 1.0); N];
    let mut waits = services;
    for _ in 0..200 {
        for i in 0..N {
            waits[i] = services[i] * (1.0 + queue[i] * (population - 1.0) / population);
        }
        let cycle = latency + waits.iter().sum::<f64>();
        let throughput = population / cycle;
        for i in 0..N {
            queue[i] = throughput * waits[i];
        }
    }
    waits
}

/// Whether the link is saturated: draining every SM's requests takes longer
/// than a request's no-contention latency.
pub fn saturated(active_sms: f64, requests: f64, service: f64, no_contention: f64) -> bool {
    active_sms * requests * service > no_contention
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpumech_mshr_average_by_hand() {
        // E = 3N with N = 2: waits 1,1,2,2,3,3 latencies, mean 2, so 1 extra.
        assert!((mshr_average_factor(6.0, 2.0) - 1.0).abs() < 1e-12);
        // E ≤ N: nobody waits.
        assert_eq!(mshr_average_factor(2.0, 4.0), 0.0);
        // E = 5, N = 2: (1+1+2+2+3)/5 − 1 = 0.8.
        assert!((mshr_average_factor(5.0, 2.0) - 0.8).abs() < 1e-12);
        // Halfway between 5 and 6.
        assert!((mshr_average_factor(5.5, 2.0) - 0.9).abs() < 1e-12);
    }

    #[test]
    fn a_closed_network_s_waits_follow_its_load() {
        // One request alone waits for nobody.
        assert_eq!(closed_queue_waits(1.0, 500.0, [2.0, 3.0]), [2.0, 3.0]);
        // Light load: 10 requests, a 500-cycle latency and 1-cycle
        // stations barely queue.
        let [a, b] = closed_queue_waits(10.0, 500.0, [1.0, 1.0]);
        assert!(a < 1.05 && b < 1.05, "{a} {b}");
        // Heavy load: 10,000 requests through a 3-cycle station take
        // 30,000 cycles a round, the latency and the faster station hidden.
        let [fast, slow] = closed_queue_waits(10_000.0, 500.0, [1.0, 3.0]);
        let cycle = 500.0 + fast + slow;
        assert!((cycle / 30_000.0 - 1.0).abs() < 0.01, "{cycle}");
        assert!(fast < 10.0, "{fast}");
    }

    #[test]
    fn mdm_batches_by_hand() {
        // W · M_read = 3 · #MSHR: three batches, two beyond the first.
        assert_eq!(mshr_batches_beyond_first(3.0 * 128.0, 128.0), 2.0);
        assert_eq!(mshr_batches_beyond_first(3.0 * 128.0 + 1.0, 128.0), 3.0);
        assert_eq!(mshr_batches_beyond_first(100.0, 128.0), 0.0);
    }

    #[test]
    fn flowing_batches_by_hand() {
        // 3 · #MSHR requests: two batches beyond the first, as MDM's.
        assert_eq!(mshr_batches_flowing(3.0 * 128.0, 128.0), 2.0);
        // Half a batch more is half a batch, where MDM's whole batches round up.
        assert_eq!(mshr_batches_flowing(3.5 * 128.0, 128.0), 2.5);
        assert_eq!(mshr_batches_beyond_first(3.5 * 128.0, 128.0), 3.0);
        // What the MSHRs hold at once has no batch behind it.
        assert_eq!(mshr_batches_flowing(100.0, 128.0), 0.0);
    }

    #[test]
    fn md1_by_hand() {
        assert_eq!(md1_wait(0.5, 4.0), 2.0);
        assert_eq!(md1_wait(0.0, 4.0), 0.0);
    }

    #[test]
    fn a_saturated_noc_waits_the_whole_drain() {
        // 28 SMs × 128 requests × 0.25 cycles = 896 cycles > 400: saturated.
        assert!(saturated(28.0, 128.0, 0.25, 400.0));
        assert_eq!(mdm_queue_delay(28.0, 128.0, 0.25, 400.0, true), 896.0);
        // Not divergent, or not saturated: half.
        assert_eq!(mdm_queue_delay(28.0, 128.0, 0.25, 400.0, false), 448.0);
        assert_eq!(mdm_queue_delay(28.0, 16.0, 0.25, 400.0, true), 56.0);
    }
}
