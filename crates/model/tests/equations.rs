//! The models' equations on hand-built profiles, each figure worked out by
//! hand in the comments: a two-interval warp, a memory-divergent interval
//! with `W · M_read = 3 · #MSHR`, and a saturated NoC.

use warplab_model::{
    CacheFigures, Interval, KernelProfile, KernelWork, Latencies, Machine, ModelKind, PathTime, Profile, Rates,
    SchedulerModel, predict, predict_model,
};

/// A machine with round numbers: 1 GHz, one scheduler per SM, no launch
/// latency, L1 hit 20, L_minLLC 100, L_minDRAM 100, and bandwidths so large
/// that queueing is negligible unless a test lowers them.
fn machine() -> Machine {
    Machine {
        n_sms: 1,
        schedulers_per_sm: 1,
        sub_cores: false,
        issue_rate: 1.0,
        scheduler: SchedulerModel::Gto,
        l1_mshrs: 32,
        streaming_l1: false,
        latencies: Latencies { l1_hit: 20.0, llc: 100.0, dram: 100.0 },
        core_hz: 1e9,
        noc_bytes_per_s: 1e18,
        noc_saturation: 1.0,
        l1_block_bytes: 32.0,
        dram_bytes_per_s: 1e18,
        dram_credit_bytes_per_s: None,
        llc_block_bytes: 32.0,
        launch_cycles: 0.0,
        rates: Rates {
            units: vec![1; 13],
            l2_cycle: 1.0,
            icnt_cycle: 1.0,
            port_flit_bytes: None,
            collector_ports: Vec::new(),
            collector_sets: Vec::new(),
            link_cycles_per_byte: 0.0,
        },
    }
}

fn alu(insts: u32, stall_cycles: u32) -> Interval {
    Interval {
        insts,
        stall_cycles,
        awaits_load: false,
        miss: 0.0,
        wait: 0.0,
        llc_miss: 0.0,
        llc_wait: 0.0,
        m_read: 0.0,
        m_write: 0.0,
        m_bypass: 0.0,
    }
}

/// A kernel of `ctas` one-warp CTAs, one CTA per SM at a time (so `W` = 1
/// unless `ctas_per_sm` says otherwise), 32 threads per warp instruction.
fn kernel(intervals: Vec<Interval>, ctas: u64, warps_per_cta: u32, ctas_per_sm: u32) -> Profile {
    let warps = ctas * u64::from(warps_per_cta);
    let per_warp: u64 = intervals.iter().map(|i| u64::from(i.insts)).sum();
    let caches = CacheFigures {
        reply_bytes_per_request: 32.0,
        request_bytes_per_request: 8.0,
        dram_sectors_per_request: 1.0,
        ..CacheFigures::default()
    };
    Profile {
        kernels: vec![KernelProfile {
            name: "k".to_owned(),
            id: 1,
            ctas,
            warps_per_cta,
            ctas_per_sm,
            warps,
            warp_insts: warps * per_warp,
            thread_insts: 32 * warps * per_warp,
            divergent_loads: 0,
            distinct_paths: 1,
            intervals,
            caches,
            work: KernelWork::default(),
        }],
        profiled_sms: 1,
        diagnostics: Vec::new(),
    }
}

fn close(actual: f64, expected: f64) -> bool {
    (actual - expected).abs() <= 1e-9 * expected.abs().max(1.0)
}

#[test]
fn a_two_interval_warp_alone() {
    // 4 instructions, a 20-cycle stall, 2 instructions, a 10-cycle stall:
    // 36 cycles for 6 warp instructions, whatever the model (no memory).
    let profile = kernel(vec![alu(4, 20), alu(2, 10)], 1, 1, 1);
    for model in ModelKind::ALL {
        let p = predict_model(&profile, &machine(), model);
        assert!(close(p.cycles, 36.0), "{model}: {}", p.cycles);
        assert!(close(p.warp_ipc, 6.0 / 36.0) && close(p.ipc, 32.0 * 6.0 / 36.0));
        // Base: 6 issue slots; the 30 stall cycles are issue/dependence.
        assert!(close(p.cpi_stack.base, 1.0) && close(p.cpi_stack.issue, 5.0), "{:?}", p.cpi_stack);
    }
}

#[test]
fn eight_warps_hide_the_stalls_up_to_the_issue_limit() {
    // Eight warps on one GTO scheduler: p = 6/36, Ī = 3; interval 1: q = 1,
    // X = 7·3 = 21, excess 1; interval 2: q = 1, X = 21, excess 11; Σ C_i =
    // 24 + 1 + 12 + 11 = 48 for 8 · 6 = 48 instructions: issue-bound.
    let profile = kernel(vec![alu(4, 20), alu(2, 10)], 1, 8, 1);
    let p = predict_model(&profile, &machine(), ModelKind::GpuMech);
    assert!(close(p.cycles, 48.0), "{}", p.cycles);
    assert!(close(p.warp_ipc, 1.0));
    // Round robin: p·[(W−1)(I−1) + max(0, W−1 − S)] = (1/6)(21) + (1/6)(7) = 4.67;
    // Σ C_i = 36 + 4.67 = 40.67 < 48, so issue-bound too.
    let rr = Machine { scheduler: SchedulerModel::RoundRobin, ..machine() };
    assert!(close(predict_model(&profile, &rr, ModelKind::GpuMech).cycles, 48.0));
}

/// One interval that loads and waits: `m_read` requests per warp, all missing
/// the L1 and hitting the L2, then a 20-cycle stall at L1-hit latency.
fn divergent(m_read: f64) -> Interval {
    Interval {
        insts: 1,
        stall_cycles: 20,
        awaits_load: true,
        miss: 1.0,
        wait: 1.0,
        llc_miss: 0.0,
        llc_wait: 0.0,
        m_read,
        m_write: 0.0,
        m_bypass: 0.0,
    }
}

#[test]
fn a_divergent_interval_with_three_mshr_batches() {
    // W = 4 warps, M_read = 24, #MSHR = 32: W · M_read = 96 = 3 · #MSHR.
    let profile = kernel(vec![divergent(24.0)], 1, 4, 1);
    let m = machine();
    // The stall with the miss latency: 20 + (L_minLLC − L1 hit) = 100 = L_nocont.
    // GTO, W = 4: p = 1/101, q = min(1, 100/101), X = q·3·1 < 100: no excess,
    // so C = 101; base = 4, issue = 97.
    // MDM: MD (96 > 32), S_MSHR = (⌈96/32⌉ − 1) · S_mem = 2 · 100 (queues ≈ 0).
    let mdm = predict_model(&profile, &m, ModelKind::Mdm);
    assert!((mdm.cycles - 301.0).abs() < 1e-3, "{}", mdm.cycles);
    assert!((mdm.cpi_stack.mshr - 200.0 / 4.0).abs() < 1e-3, "{:?}", mdm.cpi_stack);
    // GPUMech: the mean over j = 1..96 of 100·⌈j/32⌉, minus 100: 200 − 100 = 100.
    let gpumech = predict_model(&profile, &m, ModelKind::GpuMech);
    assert!((gpumech.cycles - 201.0).abs() < 1e-3, "{}", gpumech.cycles);
    // With W · M_read ≤ #MSHR nobody waits for an MSHR.
    let fits = kernel(vec![divergent(8.0)], 1, 4, 1);
    assert!((predict_model(&fits, &m, ModelKind::Mdm).cycles - 101.0).abs() < 1e-3);
    let report = predict(&profile, &m);
    assert!(report.kernels[0].md && !predict(&fits, &m).kernels[0].md);
}

#[test]
fn a_saturated_noc() {
    // 10 SMs, each with W = 4 warps of one interval of M_read = 24 (96 > 32:
    // MD), M = min(96, 32) = 32 requests per SM in flight.
    // NoC: 32 B at 3.2 GB/s and 1 GHz = 10 cycles a request; the drain
    // 10 SMs × 32 × 10 = 3,200 cycles > L_minLLC + L_minDRAM = 200: saturated,
    // so MDM charges the whole drain, 3,200, and MDM-Queue likewise.
    let profile = kernel(vec![divergent(24.0)], 10, 4, 1);
    let m = Machine { n_sms: 10, noc_bytes_per_s: 3.2e9, ..machine() };
    let queue = predict_model(&profile, &m, ModelKind::MdmQueue);
    assert!((queue.cpi_stack.noc * 4.0 - 3200.0).abs() < 1e-6, "{:?}", queue.cpi_stack);
    // MDM's S_mem = 100 + 3,200 (+ DRAM ≈ 0); two extra batches: 6,600.
    let mdm = predict_model(&profile, &m, ModelKind::Mdm);
    assert!((mdm.cycles - (101.0 + 3200.0 + 6600.0)).abs() < 1e-3, "{}", mdm.cycles);
    // An unsaturated NoC (a tenth of the traffic): half the drain.
    let light = Machine { noc_bytes_per_s: 3.2e11, ..m };
    let half = predict_model(&profile, &light, ModelKind::MdmQueue);
    assert!((half.cpi_stack.noc * 4.0 - 16.0).abs() < 1e-6, "{:?}", half.cpi_stack);
}

#[test]
fn the_papers_gpumech_waits_for_half_of_every_request_in_flight() {
    // The saturated NoC and a DRAM as slow (32 B at 3.2 GB/s: 10 cycles), and
    // every request missing the L2. The half drain is 10 SMs × 32 × 10 / 2 =
    // 1,600 cycles on each link, memory-divergent or not.
    let all_miss = Interval { llc_miss: 1.0, ..divergent(24.0) };
    let profile = kernel(vec![all_miss], 10, 4, 1);
    let m = Machine { n_sms: 10, noc_bytes_per_s: 3.2e9, dram_bytes_per_s: 3.2e9, ..machine() };
    let per_warp = |p: warplab_model::Prediction| (p.cpi_stack.noc * 4.0, p.cpi_stack.dram * 4.0);
    // GPUMech has no NoC; its DRAM queue is the half drain.
    let gpumech = predict_model(&profile, &m, ModelKind::GpuMech);
    assert!(close(per_warp(gpumech).0, 0.0) && close(per_warp(gpumech).1, 1600.0), "{:?}", gpumech.cpi_stack);
    // GPUMech+ and MDM-MSHR add the NoC's half drain; MDM-Queue and MDM wait
    // for the whole drain of both (MD and saturated).
    for (model, expected) in [
        (ModelKind::GpuMechPlus, 1600.0),
        (ModelKind::MdmMshr, 1600.0),
        (ModelKind::MdmQueue, 3200.0),
        (ModelKind::Mdm, 3200.0),
    ] {
        let p = predict_model(&profile, &m, model);
        let (noc, dram) = per_warp(p);
        assert!(close(noc, expected) && close(dram, expected), "{model}: {:?}", p.cpi_stack);
    }
    // Eq. 8 reads the interval's LLC miss ratio: with half the requests
    // missing, DRAM's service time and its drain halve.
    let half_miss = kernel(vec![Interval { llc_miss: 0.5, ..all_miss }], 10, 4, 1);
    let gpumech = predict_model(&half_miss, &m, ModelKind::GpuMech);
    assert!(close(per_warp(gpumech).1, 800.0), "{:?}", gpumech.cpi_stack);
}

#[test]
fn an_md1_queue_finds_its_fixed_point() {
    // warplab's M/D/1 variant on the saturated NoC above: the M/D/1 wait makes the wave
    // slower, which lowers the arrival rate, until T = F(wait(T)). At the
    // answer, utilization is below 1 and the equation holds.
    let profile = kernel(vec![divergent(24.0)], 10, 4, 1);
    let m = Machine { n_sms: 10, noc_bytes_per_s: 3.2e9, ..machine() };
    let p = predict_model(&profile, &m, ModelKind::GpuMechMd1);
    let work = 10.0 * 4.0 * 24.0 * 10.0; // requests × 10 cycles each
    assert!(p.cycles > work, "utilization must stay below 1: {} vs {work}", p.cycles);
    let rho = work / p.cycles;
    let wait = rho * 10.0 / (2.0 * (1.0 - rho));
    // T = C + noc + MSHR with L = 100 + wait: 101 + wait + (100 + wait)·g, g = 1 (E = 3·#MSHR).
    assert!((p.cycles - (101.0 + wait + (100.0 + wait))).abs() < 1e-6 * p.cycles, "{} {wait}", p.cycles);
}

#[test]
fn waves_and_active_sms() {
    // 3 CTAs of 2 warps on 2 SMs holding 1 CTA each: a full wave (2 SMs)
    // then a partial one (1 SM), each 36 cycles of the two-interval warp
    // with W = 2 (GTO: p = 1/6, Ī = 3, q = 1: X = 3 → no excess: 36).
    let profile = kernel(vec![alu(4, 20), alu(2, 10)], 3, 2, 1);
    let m = Machine { n_sms: 2, ..machine() };
    let p = predict_model(&profile, &m, ModelKind::Mdm);
    assert!(close(p.cycles, 72.0), "{}", p.cycles);
    let report = predict(&profile, &m);
    assert_eq!((report.kernels[0].waves, report.kernels[0].active_sms, report.kernels[0].warps_per_sm), (2, 2, 2));
}

#[test]
fn mdm_with_limits_is_mdm_until_a_floor_binds_and_then_the_floor() {
    // One warp alone: 4 instructions, a 20-cycle stall, 2 more, 36 cycles.
    let mut profile = kernel(vec![alu(4, 20), alu(2, 10)], 1, 1, 1);
    let mdm = |p: &Profile| predict(p, &machine()).models[&ModelKind::Mdm];
    let limited = |p: &Profile| predict(p, &machine()).models[&ModelKind::MdmLimits];
    // Floors below MDM's 36 cycles change nothing.
    profile.kernels[0].work =
        KernelWork { ldst_cycles: 30, unit_cycles: vec![6; 13], pipe_insts: vec![0; 14], ..KernelWork::default() };
    profile.kernels[0].work.busiest_slice_accesses = 20;
    assert_eq!(limited(&profile), mdm(&profile));
    // 50 cycles in the LD/ST unit: the wave takes 50, the 14 it adds are
    // the LD/ST term (per warp instruction: 14 / 6).
    profile.kernels[0].work.ldst_cycles = 50;
    let p = limited(&profile);
    assert!(close(p.cycles, 50.0), "{p:?}");
    assert!(close(p.cpi_stack.ldst, 14.0 / 6.0) && p.cpi_stack.units == 0.0, "{:?}", p.cpi_stack);
    assert!(close(p.cpi_stack.total(), 50.0 / 6.0), "{:?}", p.cpi_stack);
    // The busiest unit class over its units: 120 cycles on one unit, or 60
    // on two, against LD/ST's 50.
    profile.kernels[0].work.unit_cycles[3] = 120;
    assert!(close(limited(&profile).cycles, 120.0) && limited(&profile).cpi_stack.ldst == 0.0);
    let mut two = machine();
    two.rates.units[3] = 2;
    assert!(close(predict(&profile, &two).models[&ModelKind::MdmLimits].cycles, 60.0));
    // The busiest slice at one access per L2 cycle, two core cycles each.
    profile.kernels[0].work.busiest_slice_accesses = 100;
    let mut slow_l2 = two;
    slow_l2.rates.l2_cycle = 2.0;
    let p = predict(&profile, &slow_l2).models[&ModelKind::MdmLimits];
    assert!(close(p.cycles, 200.0) && close(p.cpi_stack.l2_slice, 164.0 / 6.0), "{p:?}");
    // Or its crossbar port: under BookSim with 16-B flits the kernel's
    // 32-B replies hold it two interconnect cycles of 1.5 core cycles.
    let mut slow_port = slow_l2.clone();
    slow_port.rates.port_flit_bytes = Some(16);
    slow_port.rates.icnt_cycle = 1.5;
    assert!(close(predict(&profile, &slow_port).models[&ModelKind::MdmLimits].cycles, 300.0));
}

#[test]
fn no_kernel_ends_before_its_slowest_warp_alone() {
    let mut profile = kernel(vec![alu(4, 20), alu(2, 10)], 1, 1, 1);
    let limited = |p: &Profile, m: &Machine| predict(p, m).models[&ModelKind::MdmLimits];
    // A path of 10 instructions and 100 stall cycles at L1-hit latency, two
    // of its stalls missing the L1 (80 cycles more each to the L2) and one
    // of those the L2 (100 more): 370 cycles alone, against MDM's 36 for the
    // representative warp.
    let slow = PathTime { insts: 10.0, stall: 100.0, misses: 2.0, llc_misses: 1.0, ..PathTime::default() };
    profile.kernels[0].work.slowest_paths = vec![slow, PathTime { insts: 40.0, ..PathTime::default() }];
    let p = limited(&profile, &machine());
    assert!(close(p.cycles, 370.0), "{p:?}");
    assert!(close(p.cpi_stack.slowest_warp, 334.0 / 6.0) && close(p.cpi_stack.total(), 370.0 / 6.0), "{p:?}");
    // After a launch latency of 50: 420, of which the launch term holds 50.
    let mut launching = machine();
    launching.launch_cycles = 50.0;
    let p = limited(&profile, &launching);
    assert!(close(p.cycles, 420.0) && close(p.cpi_stack.launch, 50.0 / 6.0), "{p:?}");
    // The papers' models never see it.
    assert!(close(predict(&profile, &machine()).models[&ModelKind::Mdm].cycles, 36.0));
}

#[test]
fn the_operand_collector_floor_is_its_most_binding_cut() {
    // Pipelines: 0 SP, 3 SFU, 13 the LD/ST unit.
    let (sp, sfu, mem) = (1u32, 1 << 3, 1 << 13);
    let mut profile = kernel(vec![alu(4, 20), alu(2, 10)], 1, 1, 1);
    profile.kernels[0].work.pipe_insts = vec![0; 14];
    profile.kernels[0].work.pipe_insts[0] = 300;
    profile.kernels[0].work.pipe_insts[3] = 40;
    profile.kernels[0].work.pipe_insts[13] = 100;
    let cycles = |ports: Vec<(u32, u32)>, sets: Vec<(u32, u32)>| {
        let mut m = machine();
        m.rates.collector_ports = ports;
        m.rates.collector_sets = sets;
        let p = predict(&profile, &m).models[&ModelKind::MdmLimits];
        (p.cycles, p.cpi_stack.units)
    };
    // One port and one dispatch unit per pipeline (mdm-pascal-28sm): the
    // SP instructions one a cycle.
    let own = vec![(sp, 1), (sfu, 1), (mem, 1)];
    let (c, units) = cycles(own.clone(), own);
    assert!(close(c, 300.0) && close(units, 264.0 / 6.0), "{c} {units}");
    // A generic port beside them: SP alone has two (150), SP with the
    // LD/ST unit three for 400 (133), everything four for 440 (110).
    let (c, _) = cycles(vec![(sp, 1), (sfu, 1), (mem, 1), (sp | sfu | mem, 1)], vec![(sp | sfu | mem, 4)]);
    assert!(close(c, 150.0), "{c}");
    // Eight generic ports but two dispatch units: everything over two.
    let (c, _) = cycles(vec![(sp | sfu | mem, 8)], vec![(sp | sfu | mem, 2)]);
    assert!(close(c, 220.0), "{c}");
    // Nothing serves them (no collector described): no floor, MDM's 36.
    let (c, _) = cycles(Vec::new(), Vec::new());
    assert!(close(c, 36.0), "{c}");
}

// warplab's core model (`core_model.rs`, docs/analytical.md "warplab's core
// model"): each of its terms worked by hand.

/// Within a thousandth: the closed network's waits are an iteration's.
fn near(actual: f64, expected: f64) -> bool {
    (actual / expected - 1.0).abs() < 1e-3
}

#[test]
fn without_fills_in_flight_barriers_sub_cores_or_a_second_batch_the_core_model_is_mdm_with_limits() {
    // The core model keeps MDM's first MSHR batch and queues, and MDM +
    // limits' floors; what it adds needs in-flight fills, barriers, sub-core
    // units or a second batch, which these profiles do not have (four warps
    // of 8 reads fill the 32 MSHRs once). (It puts the queue waits in the
    // stall the other warps may hide, where MDM adds them after; here no
    // warp has the instructions to hide them.)
    let cases = [
        (kernel(vec![alu(4, 20), alu(2, 10)], 1, 8, 1), machine()),
        (kernel(vec![divergent(8.0)], 1, 4, 1), machine()),
        (kernel(vec![divergent(8.0)], 10, 4, 1), Machine { n_sms: 10, noc_bytes_per_s: 3.2e9, ..machine() }),
    ];
    for (profile, m) in &cases {
        let core = predict_model(profile, m, ModelKind::Warplab);
        let limits = predict_model(profile, m, ModelKind::MdmLimits);
        assert!(close(core.cycles, limits.cycles), "{} against {}", core.cycles, limits.cycles);
        assert!(close(core.cpi_stack.mshr, limits.cpi_stack.mshr), "{:?}", core.cpi_stack);
    }
}

#[test]
fn a_memory_divergent_interval_s_batches_each_take_a_closed_network_s_cycle() {
    // a_saturated_noc: 10 SMs, 4 warps of 24 reads, 32 MSHRs: three
    // batches. The MSHRs stay full, each request's successor taking its
    // MSHR as its data comes back, so the 320 requests in flight cycle
    // through a 100-cycle latency and a 10-cycle link: the link's 3,200
    // cycles a round, the latency hidden behind it, for the first batch as
    // for the two behind it (1 + 3 · 3,200). MDM charges its first batch the
    // whole drain after the latency and each batch behind it 100 + 3,200.
    let profile = kernel(vec![divergent(24.0)], 10, 4, 1);
    let saturated = Machine { n_sms: 10, noc_bytes_per_s: 3.2e9, ..machine() };
    let core = predict_model(&profile, &saturated, ModelKind::Warplab);
    assert!(near(core.cycles, 1.0 + 3.0 * 3200.0), "{}", core.cycles);
    let mdm = predict_model(&profile, &saturated, ModelKind::MdmLimits);
    assert!(close(mdm.cycles, 101.0 + 3200.0 + 2.0 * 3300.0), "{}", mdm.cycles);
    // A link a hundred times faster (0.1 cycles a request, a 32-cycle
    // drain): a batch takes the latency and a fraction of a cycle of
    // queueing (the link is a third busy), where MDM adds half the drain.
    let light = Machine { noc_bytes_per_s: 3.2e11, ..saturated.clone() };
    let mshr_cycles = |model| predict_model(&profile, &light, model).cpi_stack.mshr * 4.0;
    let core = mshr_cycles(ModelKind::Warplab);
    assert!(core > 2.0 * 100.0 && core < 2.0 * 101.0, "{core}");
    assert!(close(mshr_cycles(ModelKind::MdmLimits), 2.0 * (100.0 + 16.0)), "{}", mshr_cycles(ModelKind::MdmLimits));
    // 20 reads a warp: 80 requests, two and a half batches. The MSHRs the
    // last half batch leaves free are taken by the requests behind it, so
    // it costs half a round (1 + 2.5 · 3,200); MDM's batches are whole.
    let profile = kernel(vec![divergent(20.0)], 10, 4, 1);
    let core = predict_model(&profile, &saturated, ModelKind::Warplab);
    assert!(near(core.cycles, 1.0 + 2.5 * 3200.0), "{}", core.cycles);
    let mdm = predict_model(&profile, &saturated, ModelKind::MdmLimits);
    assert!(close(mdm.cycles, 101.0 + 3200.0 + 2.0 * 3300.0), "{}", mdm.cycles);
}

#[test]
fn more_mshrs_never_make_a_memory_divergent_interval_slower() {
    // a_saturated_noc's interval with 8 to 128 MSHRs: every batch costs
    // the closed network's round, whose population grows with the MSHRs
    // while the batches fall, so the interval never costs more with more
    // MSHRs. With MDM's whole drain for the first batch and the closed
    // network's round behind it, 64 MSHRs (a burst of 640 requests drained
    // whole after the latency, 6,400 cycles, then a round of 6,400 for the
    // half batch left, rounded up to a whole one) had cost 12,901 cycles
    // where 32 cost 9,702.
    let profile = kernel(vec![divergent(24.0)], 10, 4, 1);
    let cycles = |mshrs| {
        let m = Machine { n_sms: 10, noc_bytes_per_s: 3.2e9, l1_mshrs: mshrs, ..machine() };
        predict_model(&profile, &m, ModelKind::Warplab).cycles
    };
    let by_mshrs: Vec<f64> = [8, 16, 32, 64, 96, 128].map(cycles).to_vec();
    assert!(by_mshrs.windows(2).all(|w| w[1] <= w[0] * (1.0 + 1e-9)), "{by_mshrs:?}");
}

#[test]
fn the_core_model_drains_an_intervals_writes_once_not_once_per_batch() {
    // a_saturated_noc's interval with 8 writes a warp: W · M_write = 32
    // writes beside 96 reads in B = 3 batches. MDM's queue takes all 32 in
    // each batch's M (32 + 32 = 64: a 6,400-cycle drain, charged by each of
    // the two extra batches); the core model a third of them in each
    // (10 SMs · (32 + 32/3) requests at 10 cycles: 4,266.7 cycles a round).
    let writes = Interval { m_write: 8.0, ..divergent(24.0) };
    let profile = kernel(vec![writes], 10, 4, 1);
    let m = Machine { n_sms: 10, noc_bytes_per_s: 3.2e9, ..machine() };
    let mshr_cycles = |model| predict_model(&profile, &m, model).cpi_stack.mshr * 4.0;
    assert!(close(mshr_cycles(ModelKind::Mdm), 2.0 * (100.0 + 6400.0)), "{}", mshr_cycles(ModelKind::Mdm));
    let round = 10.0 * (32.0 + 32.0 / 3.0) * 10.0;
    assert!(near(mshr_cycles(ModelKind::Warplab), 2.0 * round), "{}", mshr_cycles(ModelKind::Warplab));
}

#[test]
fn the_core_model_drains_the_noc_at_the_rate_a_saturated_crossbar_keeps() {
    // a_saturated_noc on a crossbar that keeps half its ports busy when
    // saturated: the core model's link takes 20 cycles a request, so the
    // first batch's drain doubles (6,400) and so do the two rounds behind
    // it; MDM's stays at the ports' rate (3,200; two batches of 100 + 3,200).
    let profile = kernel(vec![divergent(24.0)], 10, 4, 1);
    let m = Machine { n_sms: 10, noc_bytes_per_s: 3.2e9, noc_saturation: 0.5, ..machine() };
    let core = predict_model(&profile, &m, ModelKind::Warplab);
    assert!(near(core.cycles, 1.0 + 3.0 * 6400.0), "{}", core.cycles);
    let mdm = predict_model(&profile, &m, ModelKind::Mdm);
    assert!((mdm.cycles - (101.0 + 3200.0 + 6600.0)).abs() < 1e-3, "{}", mdm.cycles);
}

#[test]
fn a_load_that_hits_a_fill_in_flight_waits_for_it() {
    // One warp, one load: it misses a quarter of the time, and the rest of
    // the time hits a sector another warp's miss is still fetching (wait 1).
    // Every instance waits the miss latency: 1 + 20 + 80 = 101 cycles. The
    // misses' share, 0.25 · 80 = 20, is issue; the in-flight fills' 60 are
    // their own term. The paper's models see only the misses: 1 + 20 + 20.
    let load = Interval { miss: 0.25, wait: 1.0, ..divergent(1.0) };
    let profile = kernel(vec![load], 1, 1, 1);
    let core = predict_model(&profile, &machine(), ModelKind::Warplab);
    assert!(close(core.cycles, 101.0), "{}", core.cycles);
    assert!(close(core.cpi_stack.pending, 60.0) && close(core.cpi_stack.issue, 40.0), "{:?}", core.cpi_stack);
    assert!(close(predict_model(&profile, &machine(), ModelKind::Mdm).cycles, 41.0));
}

#[test]
fn a_request_that_hits_an_l2_fill_in_flight_waits_for_dram() {
    // One warp, one load that always misses the L1 and hits the L2
    // (llc_miss 0): 1 + 20 + (100 − 20) = 101 cycles. When half its requests
    // hit an L2 block another SM's miss is still fetching from DRAM
    // (llc_wait 0.5), they wait as misses do: the no-contention latency is
    // 100 + 0.5 · 100 = 150, and the load 1 + 20 + 130 = 151. The paper's
    // models read only the misses.
    let hit = kernel(vec![divergent(1.0)], 1, 1, 1);
    let waiting = kernel(vec![Interval { llc_wait: 0.5, ..divergent(1.0) }], 1, 1, 1);
    assert!(close(predict_model(&hit, &machine(), ModelKind::Warplab).cycles, 101.0));
    let core = predict_model(&waiting, &machine(), ModelKind::Warplab);
    // The 50 cycles beyond the L2 hit are the fill's: the `pending` term.
    assert!(close(core.cycles, 151.0) && close(core.cpi_stack.pending, 50.0), "{:?}", core.cpi_stack);
    assert!(close(predict_model(&waiting, &machine(), ModelKind::Mdm).cycles, 101.0));
}

#[test]
fn barriers_make_a_ctas_warps_stall_together() {
    // Eight warps of one CTA on one GTO scheduler, the two-interval warp:
    // without barriers they hide each other's stalls (48 cycles, issue-bound,
    // eight_warps_hide_the_stalls_up_to_the_issue_limit). With a barrier the
    // CTA moves as one: 8 · 4 instructions, the 20-cycle stall, 8 · 2, the
    // 10-cycle stall: 78 cycles, 30 of them the barrier's.
    let mut profile = kernel(vec![alu(4, 20), alu(2, 10)], 1, 8, 1);
    assert!(close(predict_model(&profile, &machine(), ModelKind::Warplab).cycles, 48.0));
    profile.kernels[0].work.barriers = 8;
    let core = predict_model(&profile, &machine(), ModelKind::Warplab);
    assert!(close(core.cycles, 78.0), "{}", core.cycles);
    // Per warp instruction: 30 cycles over the 48 instructions.
    assert!(close(core.cpi_stack.barrier, 30.0 / 48.0), "{:?}", core.cpi_stack);
    // Two CTAs of four warps on the scheduler: each CTA's four move as one
    // (16 and 8 instructions), and the two CTAs overlap under GTO with
    // p = 24/54, Ī = 12: interval 1: q = 1, X = 12 < 20, no excess; interval
    // 2: q = 1, X = 12, excess 12 − 10 = 2. Σ C_i = 36 + 20 = 56 ≥ 48.
    let mut two = kernel(vec![alu(4, 20), alu(2, 10)], 2, 4, 2);
    two.kernels[0].work.barriers = 8;
    let cycles = predict_model(&two, &machine(), ModelKind::Warplab).cycles;
    assert!(close(cycles, 56.0), "{cycles}");
}

#[test]
fn sub_cores_put_the_unit_floor_on_the_busiest_scheduler() {
    // Six warps of one-instruction intervals on four schedulers; the SP
    // class needs 600 cycles of its one unit for the wave. SM-wide that is
    // the floor; with a unit per scheduler (-gpgpu_sub_core_model) warps 0
    // and 4, 1 and 5 share two schedulers: the busiest has 2 of 6 warps,
    // a third of the work on a quarter of the units: 600 · (2 · 4 / 6) = 800.
    let mut profile = kernel(vec![alu(1, 0)], 1, 6, 1);
    profile.kernels[0].work = KernelWork { unit_cycles: vec![600, 0, 0, 0], ..KernelWork::default() };
    let m = Machine { schedulers_per_sm: 4, ..machine() };
    assert!(close(predict_model(&profile, &m, ModelKind::Warplab).cycles, 600.0));
    let sub_cores = Machine { sub_cores: true, ..m };
    let core = predict_model(&profile, &sub_cores, ModelKind::Warplab);
    assert!(close(core.cycles, 800.0), "{}", core.cycles);
    assert!(core.cpi_stack.units > 0.0, "{:?}", core.cpi_stack);
}

#[test]
fn atomics_take_no_mshr_in_the_core_model() {
    // The three-batch interval above (W = 4, M_read = 24, #MSHR = 32), its
    // requests atomics: they skip the L1 and go straight into the crossbar,
    // so no MSHR batch waits behind another. The core model's load is then
    // one round trip, 1 + 20 + 80 = 101 cycles, as with everything fitting
    // the MSHRs; MDM, which reads only M_read, still charges 2 · 100.
    let atomics = kernel(vec![Interval { m_bypass: 24.0, ..divergent(24.0) }], 1, 4, 1);
    let core = predict_model(&atomics, &machine(), ModelKind::Warplab);
    assert!((core.cycles - 101.0).abs() < 1e-3 && core.cpi_stack.mshr == 0.0, "{:?}", core.cpi_stack);
    assert!((predict_model(&atomics, &machine(), ModelKind::Mdm).cycles - 301.0).abs() < 1e-3);
    // Loads among them take their MSHRs: 24 of each warp's 32 requests
    // loads (96 = 3 · #MSHR), 8 atomics, the loads' three batches again.
    let mixed = kernel(vec![Interval { m_bypass: 8.0, ..divergent(32.0) }], 1, 4, 1);
    let core = predict_model(&mixed, &machine(), ModelKind::Warplab);
    assert!((core.cpi_stack.mshr - 200.0 / 4.0).abs() < 1e-3, "{:?}", core.cpi_stack);
}

#[test]
fn the_noc_floor_counts_packets_on_gpgpu_sims_crossbar_and_flits_under_booksim() {
    // One warp alone (36 cycles) whose 60 reads and 40 writes cross a NoC
    // that moves one 32-B block a core cycle. GPGPU-Sim's own crossbar
    // moves a packet a cycle whatever its size: the request direction
    // carries 60 read requests and 40 writes' data, 100 cycles. Under
    // BookSim the ports move flits, and the busier direction's data (60
    // reads' replies) fills them: 60 cycles.
    let mut profile = kernel(vec![alu(4, 20), alu(2, 10)], 1, 1, 1);
    profile.kernels[0].caches.read_requests = 60;
    profile.kernels[0].caches.write_requests = 40;
    let crossbar = Machine { noc_bytes_per_s: 32e9, ..machine() };
    let limited = |m: &Machine| predict(&profile, m).models[&ModelKind::MdmLimits];
    let p = limited(&crossbar);
    assert!(close(p.cycles, 100.0) && close(p.cpi_stack.noc_bandwidth, 64.0 / 6.0), "{p:?}");
    let mut booksim = crossbar.clone();
    booksim.rates.port_flit_bytes = Some(40);
    assert!(close(limited(&booksim).cycles, 60.0));
}

#[test]
fn the_warps_wait_at_their_exit_for_their_last_stores() {
    // One CTA of W = 4 warps, each 10 ALU instructions, then 2 write
    // requests it is still waiting for at its exit, half of which the L2
    // sends on to DRAM. The warps issue in 4 · 10 = 40 cycles; the last
    // one's writes leave the LD/ST unit behind the others' 4 · 2 = 8, one a
    // cycle, then take the round trip, L_minLLC plus half of L_minDRAM:
    // 8 + 100 + 50 = 158 cycles at the exit. MDM does not wait: 40.
    let mut profile = kernel(vec![alu(10, 0)], 1, 4, 1);
    profile.kernels[0].work = KernelWork { exit_writes: 2.0, writes_to_dram: 0.5, ..KernelWork::default() };
    let core = predict_model(&profile, &machine(), ModelKind::Warplab);
    assert!(close(core.cycles, 40.0 + 158.0), "{}", core.cycles);
    assert!(close(core.cpi_stack.exit * 40.0, 158.0), "{:?}", core.cpi_stack);
    assert!(close(predict_model(&profile, &machine(), ModelKind::Mdm).cycles, 40.0));
    // Had the warp run 100 more cycles after its last write, only 58
    // would be left to wait; after 200, nothing.
    for (after, exit) in [(100.0, 58.0), (200.0, 0.0)] {
        profile.kernels[0].work.after_last_write = after;
        let core = predict_model(&profile, &machine(), ModelKind::Warplab);
        assert!(close(core.cycles, 40.0 + exit), "{after}: {}", core.cycles);
    }
}

#[test]
fn the_core_model_charges_the_writes_after_the_last_load_at_the_exit_not_the_first_stall() {
    // a_saturated_noc's interval, whose warps also send 8 writes after it,
    // which the profile charges to that stall for the paper's models (MDM's
    // drain grows to 10 SMs · (32 + 32) · 10 = 6,400). The core model takes
    // them off it, so its NoC queue is the write-free interval's, and waits
    // for them at the exit instead: 4 · 8 + 100 = 132 cycles.
    let m = Machine { n_sms: 10, noc_bytes_per_s: 3.2e9, ..machine() };
    let mut with_writes = kernel(vec![Interval { m_write: 8.0, ..divergent(24.0) }], 10, 4, 1);
    with_writes.kernels[0].work.exit_writes = 8.0;
    let without = kernel(vec![divergent(24.0)], 10, 4, 1);
    let (core, free) =
        (predict_model(&with_writes, &m, ModelKind::Warplab), predict_model(&without, &m, ModelKind::Warplab));
    assert!(close(core.cpi_stack.noc, free.cpi_stack.noc), "{:?} {:?}", core.cpi_stack, free.cpi_stack);
    assert!(close(core.cycles - free.cycles, 132.0), "{} {}", core.cycles, free.cycles);
    let mdm = predict_model(&with_writes, &m, ModelKind::MdmQueue);
    assert!(close(mdm.cpi_stack.noc * 4.0, 6400.0), "{:?}", mdm.cpi_stack);
}

#[test]
fn the_core_model_drains_dram_no_faster_than_its_channels_credits_return() {
    // a_saturated_noc's divergent interval, every request missing the L2,
    // on a DRAM bus as fast as the rest (1e18 B/s) but with channels whose
    // credits return only 3.2 GB/s of 32-B fetches: 10 cycles a request, as
    // if the bus itself were that slow. The core model drains DRAM at the
    // lower rate; MDM reads the bus, as the paper does, and sees no DRAM.
    let profile = kernel(vec![Interval { llc_miss: 1.0, ..divergent(24.0) }], 10, 4, 1);
    let credit_bound = Machine { n_sms: 10, dram_credit_bytes_per_s: Some(3.2e9), ..machine() };
    let slow_bus = Machine { n_sms: 10, dram_bytes_per_s: 3.2e9, ..machine() };
    // Each of its three batches takes a closed network's round, DRAM's
    // 10 SMs × 32 × 10 = 3,200 cycles, the latency hidden behind it
    // (a_memory_divergent_interval_s_batches_each_take_a_closed_network_s_cycle).
    let core = predict_model(&profile, &credit_bound, ModelKind::Warplab);
    let bus_bound = predict_model(&profile, &slow_bus, ModelKind::Warplab);
    assert_eq!(core.cpi_stack, bus_bound.cpi_stack);
    assert!(near(core.cycles, 1.0 + 3.0 * 3200.0), "{}", core.cycles);
    let mdm = predict_model(&profile, &credit_bound, ModelKind::Mdm);
    assert!(mdm.cpi_stack.dram < 1e-3, "{:?}", mdm.cpi_stack);
    // Credits faster than the bus change nothing.
    let loose = Machine { dram_credit_bytes_per_s: Some(1e19), ..slow_bus };
    assert!(close(predict_model(&profile, &loose, ModelKind::Warplab).cycles, bus_bound.cycles));
}

#[test]
fn the_core_model_crosses_the_chiplet_links_on_its_way_to_the_l2() {
    // One warp, one load that misses the L1 and hits the L2: 1 + 20 + (100 −
    // 20) = 101 cycles on a monolithic GPU. With the kernel's requests
    // crossing links worth 60 cycles a round trip on average, L_minLLC is
    // 160 and the load 161 in the core model; MDM's models know no links.
    let mut linked = kernel(vec![divergent(1.0)], 1, 1, 1);
    linked.kernels[0].work.link_round_trip = 60.0;
    assert!(close(predict_model(&linked, &machine(), ModelKind::Warplab).cycles, 161.0));
    assert!(close(predict_model(&linked, &machine(), ModelKind::Mdm).cycles, 101.0));
}

#[test]
fn a_narrow_chiplet_link_bounds_the_network_as_its_crossbar_does() {
    // the_noc_floor_counts_packets_on_gpgpu_sims_crossbar_and_flits_under_booksim's
    // warp, its crossbar taking 100 cycles, now with 4,000 bytes on its
    // busiest chiplet link at 0.05 core cycles a byte: 200 cycles, which
    // bind. Links ten times wider (20 cycles) leave the crossbar's 100.
    let mut profile = kernel(vec![alu(4, 20), alu(2, 10)], 1, 1, 1);
    profile.kernels[0].caches.read_requests = 60;
    profile.kernels[0].caches.write_requests = 40;
    profile.kernels[0].work.busiest_link_bytes = 4_000;
    let mut m = Machine { noc_bytes_per_s: 32e9, ..machine() };
    m.rates.link_cycles_per_byte = 0.05;
    for model in [ModelKind::MdmLimits, ModelKind::Warplab] {
        assert!(close(predict(&profile, &m).models[&model].cycles, 200.0), "{model}");
    }
    m.rates.link_cycles_per_byte = 0.005;
    assert!(close(predict(&profile, &m).models[&ModelKind::MdmLimits].cycles, 100.0));
}

#[test]
fn a_kernel_waits_once_for_each_line_of_its_code_the_l1i_does_not_hold() {
    // The two-interval warp (36 cycles alone) in a kernel whose code has
    // three lines the L1 instruction cache does not hold at its start, two
    // of which no earlier kernel fetched: the warps wait a round trip to the
    // L2 for each, and on to DRAM for the two, 3 · 100 + 2 · 100 = 500
    // cycles, in a term of their own. MDM does not see them: 36.
    let mut profile = kernel(vec![alu(4, 20), alu(2, 10)], 1, 1, 1);
    profile.kernels[0].work = KernelWork { fetch_misses: 3.0, fetch_llc_misses: 2.0, ..KernelWork::default() };
    let core = predict_model(&profile, &machine(), ModelKind::Warplab);
    assert!(close(core.cycles, 536.0), "{}", core.cycles);
    assert!(close(core.cpi_stack.fetch, 500.0 / 6.0), "{:?}", core.cpi_stack);
    assert!(close(predict_model(&profile, &machine(), ModelKind::Mdm).cycles, 36.0));
    // Four CTAs, one at a time on the one SM: four waves of 36 cycles, and
    // the later waves find the lines in place, so still 500 once.
    let mut waves = kernel(vec![alu(4, 20), alu(2, 10)], 4, 1, 1);
    waves.kernels[0].work = profile.kernels[0].work.clone();
    let core = predict_model(&waves, &machine(), ModelKind::Warplab);
    assert!(close(core.cycles, 4.0 * 36.0 + 500.0), "{}", core.cycles);
}

#[test]
fn the_slowest_warp_alone_fetches_its_code_and_waits_at_its_exit_for_its_last_writes() {
    // A path of 10 instructions and no stalls, two lines of its code cold,
    // one of them in no cache: 2 · 100 + 100 = 300 cycles of fetch. It sent
    // writes after its last load, half of which DRAM acknowledges, and runs
    // 30 cycles after the last: it waits 100 + 50 − 30 = 120 at its exit.
    // 10 + 300 + 120 = 430 cycles alone, above the representative warp's 36.
    let mut profile = kernel(vec![alu(4, 20), alu(2, 10)], 1, 1, 1);
    let slow = PathTime {
        insts: 10.0,
        fetch_misses: 2.0,
        fetch_llc_misses: 1.0,
        exit_writes: true,
        writes_to_dram: 0.5,
        after_last_write: 30.0,
        ..PathTime::default()
    };
    profile.kernels[0].work.slowest_paths = vec![slow];
    for model in [ModelKind::MdmLimits, ModelKind::Warplab] {
        let p = predict_model(&profile, &machine(), model);
        assert!(close(p.cycles, 430.0), "{model}: {}", p.cycles);
    }
    // A warp that runs 150 cycles after its last write does not wait: 310.
    profile.kernels[0].work.slowest_paths[0].after_last_write = 150.0;
    assert!(close(predict_model(&profile, &machine(), ModelKind::MdmLimits).cycles, 310.0));
}
