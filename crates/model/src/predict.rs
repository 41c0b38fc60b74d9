//! The analytical models on a profile: the MDM paper's five (GPUMech,
//! GPUMech+, MDM-Queue, MDM-MSHR, MDM), each a choice of how MSHR waits and
//! NoC/DRAM queueing are modelled on top of GPUMech's multi-warp interval
//! model, and warplab's two extensions: GPUMech with M/D/1 queues, and MDM
//! with throughput floors.
//!
//! Per kernel and per CTA wave, the representative warp's cycles are
//! `Σ_i (C_i + S_i^MSHR + S_i^NoC + S_i^DRAM)`: `C_i` from the overlap model
//! (its stall given the awaited load's no-contention latency
//! `L_nocont = L_minLLC + LLC miss ratio · L_minDRAM`), the rest only on
//! intervals that wait for a load that misses. An SM's IPC is `W · ΣI`
//! over that; the GPU's is the active SMs' sum.
//!
//! | model        | MSHR wait                              | NoC queue  | DRAM queue |
//! |--------------|----------------------------------------|------------|------------|
//! | GPUMech      | batch average, `L = L_nocont`          | none       | half drain |
//! | GPUMech+     | batch average, `L` with queueing       | half drain | half drain |
//! | MDM-Queue    | batch average, `L` with queueing       | MDM        | MDM        |
//! | MDM-MSHR     | MDM batching on MD intervals           | half drain | half drain |
//! | MDM          | MDM batching on MD intervals           | MDM        | MDM        |
//! | GPUMech M/D/1 (warplab's) | batch average, `L` with queueing | M/D/1 | M/D/1   |
//! | MDM + limits (warplab's)  | as MDM, then each wave raised to its throughput floors (`limits.rs`) | MDM | MDM |
//!
//! "Half drain" is GPUMech's queue as the MDM paper describes it: a request
//! waits for half of all the requests the SMs have in flight,
//! `#SMs · M · L_service / 2`. MDM's queue waits for the whole drain when
//! the interval is memory-divergent and the drain outlasts the
//! no-contention latency. An M/D/1 queue's arrival rate depends on the IPC
//! it slows down, so that variant solves for the wave's cycles `T` with
//! `T = F(wait(T))` by bisection; every term is linear in the two waits, so
//! each step is O(1).

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::contention::{md1_wait, mdm_queue_delay, mshr_average_factor, mshr_batches_beyond_first};
use crate::core_model::predict_core;
use crate::limits::{N_LIMITS, floors, slowest_warp_cycles};
use crate::machine::Machine;
use crate::overlap::{Span, overlapped_cycles};
use crate::profile::{CacheFigures, Interval, KernelProfile, Profile};

/// One of the analytical models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ModelKind {
    /// GPUMech (Huang et al., MICRO 2014) as the MDM paper evaluates it.
    #[serde(rename = "gpumech")]
    GpuMech,
    /// GPUMech with a NoC queue and queue-aware MSHR waits.
    #[serde(rename = "gpumech+")]
    GpuMechPlus,
    /// GPUMech+ with MDM's NoC/DRAM contention model.
    #[serde(rename = "mdm-queue")]
    MdmQueue,
    /// GPUMech+ with MDM's MSHR batching model.
    #[serde(rename = "mdm-mshr")]
    MdmMshr,
    /// MDM (Wang et al., MICRO 2020): both.
    #[serde(rename = "mdm")]
    Mdm,
    /// warplab's variant, beyond the papers: GPUMech+ whose NoC and DRAM
    /// queues are M/D/1 queues at the wave's arrival rate.
    #[serde(rename = "gpumech-md1")]
    GpuMechMd1,
    /// warplab's extension, beyond the papers: MDM with throughput floors
    /// (`limits.rs`), each its own CPI term.
    #[serde(rename = "mdm-limits")]
    MdmLimits,
    /// warplab's core model (`core_model.rs`): MDM's memory-divergence terms
    /// with the stalls of modern cores GCoM names, and queueing as the load
    /// implies. The model the page's strip leads with ([`HEADLINE`]).
    #[serde(rename = "warplab")]
    Warplab,
}

/// The model the page's strip and `warplab predict --json`'s `headline` lead
/// with: the one closest to the timing model (docs/validation.md). One fixed
/// choice, never made per run.
pub const HEADLINE: ModelKind = ModelKind::Warplab;

/// How a model charges queueing on the NoC and at DRAM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Queue {
    /// GPUMech's: half of every SM's requests ahead of each one.
    HalfDrain,
    /// MDM's: the whole drain when memory-divergent and saturated.
    Mdm,
    /// M/D/1 at the wave's arrival rate.
    Md1,
}

impl ModelKind {
    /// Every model: the MDM paper's five, simplest first, then warplab's.
    pub const ALL: [ModelKind; 8] = [
        Self::GpuMech,
        Self::GpuMechPlus,
        Self::MdmQueue,
        Self::MdmMshr,
        Self::Mdm,
        Self::GpuMechMd1,
        Self::MdmLimits,
        Self::Warplab,
    ];

    /// The name the command line and the JSON use.
    pub fn name(self) -> &'static str {
        match self {
            Self::GpuMech => "gpumech",
            Self::GpuMechPlus => "gpumech+",
            Self::MdmQueue => "mdm-queue",
            Self::MdmMshr => "mdm-mshr",
            Self::Mdm => "mdm",
            Self::GpuMechMd1 => "gpumech-md1",
            Self::MdmLimits => "mdm-limits",
            Self::Warplab => "warplab",
        }
    }

    /// The name as the papers write it.
    pub fn label(self) -> &'static str {
        match self {
            Self::GpuMech => "GPUMech",
            Self::GpuMechPlus => "GPUMech+",
            Self::MdmQueue => "MDM-Queue",
            Self::MdmMshr => "MDM-MSHR",
            Self::Mdm => "MDM",
            Self::GpuMechMd1 => "GPUMech M/D/1",
            Self::MdmLimits => "MDM + limits",
            Self::Warplab => "warplab core model",
        }
    }

    /// Whether the model is one of the MDM paper's (the others are warplab's
    /// extensions).
    pub fn in_paper(self) -> bool {
        !matches!(self, Self::GpuMechMd1 | Self::MdmLimits | Self::Warplab)
    }

    fn mdm_batching(self) -> bool {
        matches!(self, Self::MdmMshr | Self::Mdm | Self::MdmLimits)
    }

    fn queue(self) -> Queue {
        match self {
            Self::GpuMech | Self::GpuMechPlus | Self::MdmMshr => Queue::HalfDrain,
            Self::MdmQueue | Self::Mdm | Self::MdmLimits => Queue::Mdm,
            Self::GpuMechMd1 => Queue::Md1,
            // `core_model.rs` charges MDM's queue itself; it never gets here.
            Self::Warplab => Queue::Mdm,
        }
    }
}

impl fmt::Display for ModelKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ModelKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|m| m.name() == s.to_ascii_lowercase()).ok_or_else(|| {
            let names: Vec<_> = Self::ALL.iter().map(|m| m.name()).collect();
            format!("unknown model `{s}`; expected one of {}", names.join(", "))
        })
    }
}

/// Where the cycles go, in SM cycles per warp instruction (they add up to the
/// SM's CPI).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CpiStack {
    /// Issuing itself: `1 / (R · schedulers)` per instruction when every
    /// stall is hidden.
    pub base: f64,
    /// Issue and dependence stalls the other warps do not hide (arithmetic
    /// latencies and the loads' no-contention latency).
    pub issue: f64,
    /// warplab's core model only: loads that hit a sector another warp's
    /// miss is still fetching, waiting for that fill.
    #[serde(default)]
    pub pending: f64,
    /// warplab's core model only: what barriers add by keeping a CTA's warps
    /// in step, so that they stall together.
    #[serde(default)]
    pub barrier: f64,
    /// warplab's core model only: the warps waiting at their exit for their
    /// last stores' acknowledgements, which hold their CTA's slot.
    #[serde(default)]
    pub exit: f64,
    /// Waiting for an L1 MSHR.
    pub mshr: f64,
    /// Queueing on the NoC.
    pub noc: f64,
    /// Queueing at DRAM.
    pub dram: f64,
    /// "MDM + limits" only: what the LD/ST unit's throughput (L1 lookups per
    /// bank, shared-memory conflicts) adds beyond the other terms.
    #[serde(default)]
    pub ldst: f64,
    /// "MDM + limits" only: what the busiest execution-unit class adds.
    #[serde(default)]
    pub units: f64,
    /// "MDM + limits" only: what the busiest L2 slice adds.
    #[serde(default)]
    pub l2_slice: f64,
    /// "MDM + limits" only: what the NoC at full bandwidth adds.
    #[serde(default)]
    pub noc_bandwidth: f64,
    /// "MDM + limits" only: what DRAM at full bandwidth adds.
    #[serde(default)]
    pub dram_bandwidth: f64,
    /// "MDM + limits" only: what the kernel's slowest warp, alone on an
    /// idle GPU, adds beyond the rest (a kernel-wide floor).
    #[serde(default)]
    pub slowest_warp: f64,
    /// warplab's core model only: waiting at the kernel's start for the
    /// lines of its code the L1 instruction cache does not hold.
    #[serde(default)]
    pub fetch: f64,
    /// The kernel launch latency the config charges to every kernel.
    pub launch: f64,
}

/// The CPI stack's terms.
pub const CPI_TERMS: usize = 16;

impl CpiStack {
    /// The terms: base, issue, pending, barrier, exit, mshr, noc, dram, then the limits
    /// (ldst, units, l2_slice, noc_bandwidth, dram_bandwidth, slowest_warp),
    /// then fetch and launch.
    pub fn terms(&self) -> [f64; CPI_TERMS] {
        [
            self.base,
            self.issue,
            self.pending,
            self.barrier,
            self.exit,
            self.mshr,
            self.noc,
            self.dram,
            self.ldst,
            self.units,
            self.l2_slice,
            self.noc_bandwidth,
            self.dram_bandwidth,
            self.slowest_warp,
            self.fetch,
            self.launch,
        ]
    }

    fn from_terms(
        [
            base,
            issue,
            pending,
            barrier,
            exit,
            mshr,
            noc,
            dram,
            ldst,
            units,
            l2_slice,
            noc_bandwidth,
            dram_bandwidth,
            slowest_warp,
            fetch,
            launch,
        ]: [f64; CPI_TERMS],
    ) -> Self {
        Self {
            base,
            issue,
            pending,
            barrier,
            exit,
            mshr,
            noc,
            dram,
            ldst,
            units,
            l2_slice,
            noc_bandwidth,
            dram_bandwidth,
            slowest_warp,
            fetch,
            launch,
        }
    }

    /// The SM's CPI: the terms' sum.
    pub fn total(&self) -> f64 {
        self.terms().iter().sum()
    }

    /// `self + other · factor`, term by term.
    pub(crate) fn plus_scaled(&self, other: &CpiStack, factor: f64) -> Self {
        let (a, b) = (self.terms(), other.terms());
        Self::from_terms(std::array::from_fn(|i| a[i] + b[i] * factor))
    }

    pub(crate) fn scaled(&self, factor: f64) -> Self {
        Self::default().plus_scaled(self, factor)
    }
}

/// One model's answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// Thread instructions per cycle.
    pub ipc: f64,
    /// Warp instructions per cycle.
    pub warp_ipc: f64,
    /// Core cycles.
    pub cycles: f64,
    /// The CPI stack.
    pub cpi_stack: CpiStack,
}

/// One kernel: what characterises it, and every model's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelResult {
    /// Kernel name.
    pub name: String,
    /// Launch id.
    pub id: u64,
    /// Memory-divergent: some interval of the representative warp has more
    /// read misses in flight per SM than the L1 has MSHRs (NoC saturation
    /// with a streaming L1).
    pub md: bool,
    /// The share of the representative warp's instructions in MD intervals.
    pub md_share: f64,
    /// Divergent loads per 1,000 warp instructions.
    pub dpki: f64,
    /// Resident warps per SM in a full wave (`W`).
    pub warps_per_sm: u32,
    /// SMs with work in the first wave.
    pub active_sms: u32,
    /// CTA waves.
    pub waves: u64,
    /// L1 read miss rate (sectors) and L2 miss rate from the cache pass.
    pub l1_miss_rate: f64,
    /// L2 miss rate.
    pub l2_miss_rate: f64,
    /// The cache pass's counts, for comparing with a run's.
    pub caches: CacheFigures,
    /// Warp instructions.
    pub warp_insts: u64,
    /// Thread instructions.
    pub thread_insts: u64,
    /// Every model's prediction for this kernel.
    pub models: BTreeMap<ModelKind, Prediction>,
}

/// Every model on a whole workload.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AnalyticalReport {
    /// Each model's figures for the workload (kernels' instructions and
    /// cycles summed).
    pub models: BTreeMap<ModelKind, Prediction>,
    /// Per kernel.
    pub kernels: Vec<KernelResult>,
    /// What the profile reported.
    pub diagnostics: Vec<String>,
}

/// Every model on `profile` for `machine`.
pub fn predict(profile: &Profile, machine: &Machine) -> AnalyticalReport {
    let kernels: Vec<KernelResult> = profile.kernels.iter().map(|k| kernel_result(k, machine)).collect();
    let models = ModelKind::ALL
        .into_iter()
        .map(|model| (model, total(profile, kernels.iter().map(|k| k.models[&model]))))
        .collect();
    AnalyticalReport { models, kernels, diagnostics: profile.diagnostics.clone() }
}

/// One model on `profile` for `machine`: what a sweep evaluates per point.
pub fn predict_model(profile: &Profile, machine: &Machine, model: ModelKind) -> Prediction {
    total(profile, profile.kernels.iter().map(|k| predict_kernel(k, machine, model)))
}

/// A workload's figures from its kernels': instructions and cycles summed,
/// the CPI stacks weighted by instructions.
fn total(profile: &Profile, kernels: impl Iterator<Item = Prediction>) -> Prediction {
    let mut out = Prediction::default();
    let mut warp_insts = 0.0;
    let mut thread_insts = 0.0;
    let mut stack = CpiStack::default();
    for (kernel, prediction) in profile.kernels.iter().zip(kernels) {
        out.cycles += prediction.cycles;
        warp_insts += kernel.warp_insts as f64;
        thread_insts += kernel.thread_insts as f64;
        stack = stack.plus_scaled(&prediction.cpi_stack, kernel.warp_insts as f64);
    }
    if out.cycles > 0.0 {
        out.ipc = thread_insts / out.cycles;
        out.warp_ipc = warp_insts / out.cycles;
    }
    out.cpi_stack = stack.scaled(1.0 / warp_insts.max(1.0));
    out
}

fn kernel_result(k: &KernelProfile, machine: &Machine) -> KernelResult {
    let waves = waves(k, machine.n_sms);
    let first = waves.first().copied().unwrap_or(Wave { count: 0.0, warps_per_sm: 0, active_sms: 0 });
    let (md_insts, all_insts) = k.intervals.iter().fold((0.0, 0.0), |(md, all), interval| {
        let insts = f64::from(interval.insts);
        let divergent = memory(interval).is_some_and(|_| is_md(machine, interval, first));
        (md + if divergent { insts } else { 0.0 }, all + insts)
    });
    let caches = k.caches;
    KernelResult {
        name: k.name.clone(),
        id: k.id,
        md: md_insts > 0.0,
        md_share: if all_insts > 0.0 { md_insts / all_insts } else { 0.0 },
        dpki: k.dpki(),
        warps_per_sm: first.warps_per_sm,
        active_sms: first.active_sms,
        waves: waves.iter().map(|w| w.count as u64).sum(),
        l1_miss_rate: caches.l1_read_misses as f64 / caches.l1_reads.max(1) as f64,
        l2_miss_rate: caches.l2_misses as f64 / caches.l2_accesses.max(1) as f64,
        caches,
        warp_insts: k.warp_insts,
        thread_insts: k.thread_insts,
        models: ModelKind::ALL.into_iter().map(|m| (m, predict_kernel(k, machine, m))).collect(),
    }
}

/// CTA waves of one shape: `count` waves with `warps_per_sm` warps on each of
/// `active_sms` SMs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Wave {
    pub count: f64,
    pub warps_per_sm: u32,
    pub active_sms: u32,
}

/// Full waves of `ctas_per_sm` CTAs on every SM, then a last partial wave
/// whose busiest SM holds `⌈remaining / #SMs⌉` CTAs.
pub(crate) fn waves(k: &KernelProfile, n_sms: u32) -> Vec<Wave> {
    let n_sms = u64::from(n_sms.max(1));
    let per_sm = u64::from(k.ctas_per_sm.max(1));
    let per_wave = per_sm * n_sms;
    let (full, rest) = (k.ctas / per_wave, k.ctas % per_wave);
    let mut out = Vec::with_capacity(2);
    let warps = |ctas: u64| u32::try_from(ctas * u64::from(k.warps_per_cta)).unwrap_or(u32::MAX);
    if full > 0 {
        out.push(Wave { count: full as f64, warps_per_sm: warps(per_sm), active_sms: n_sms as u32 });
    }
    if rest > 0 {
        out.push(Wave { count: 1.0, warps_per_sm: warps(rest.div_ceil(n_sms)), active_sms: rest.min(n_sms) as u32 });
    }
    out
}

/// One model on one kernel.
fn predict_kernel(k: &KernelProfile, machine: &Machine, model: ModelKind) -> Prediction {
    if model == ModelKind::Warplab {
        return predict_core(k, machine);
    }
    let scale = representative_scale(k);
    let mut cycles = machine.launch_cycles;
    let mut stack = CpiStack::default();
    let waves = waves(k, machine.n_sms);
    for wave in &waves {
        let mut terms = wave_terms(k, machine, model, *wave);
        if model == ModelKind::MdmLimits {
            let floors = floors(k, machine, f64::from(wave.warps_per_sm), f64::from(wave.active_sms));
            terms = terms.with_floors(floors, scale);
        }
        cycles += wave.count * terms.total() * scale;
        stack = stack.plus_scaled(&terms.as_stack(), wave.count * scale * f64::from(wave.active_sms));
    }
    let sms = f64::from(waves.first().map_or(0, |w| w.active_sms));
    if model == ModelKind::MdmLimits {
        raise_to_slowest_warp(k, machine, sms, &mut cycles, &mut stack);
    }
    stack.launch = machine.launch_cycles * sms;
    prediction(k, cycles, &stack)
}

/// The kernel's floor: no sooner than its slowest warp alone after the
/// launch latency; what that adds, over `sms` SMs, is its own CPI term.
pub(crate) fn raise_to_slowest_warp(
    k: &KernelProfile,
    machine: &Machine,
    sms: f64,
    cycles: &mut f64,
    stack: &mut CpiStack,
) {
    let excess = slowest_warp_cycles(k, machine) - *cycles;
    if excess > 0.0 {
        *cycles += excess;
        stack.slowest_warp = excess * sms;
    }
}

/// How many of the mean warp's instructions one of the representative
/// warp's stands for: its time stands for the mean warp's.
pub(crate) fn representative_scale(k: &KernelProfile) -> f64 {
    let rep_insts = k.representative_insts();
    if rep_insts > 0 && k.warps > 0 { k.warp_insts as f64 / k.warps as f64 / rep_insts as f64 } else { 0.0 }
}

/// A kernel's prediction from its cycles and its stack summed over the
/// SMs (`stack`, in SM cycles), which becomes cycles per warp instruction.
pub(crate) fn prediction(k: &KernelProfile, cycles: f64, stack: &CpiStack) -> Prediction {
    let warp_insts = k.warp_insts as f64;
    Prediction {
        ipc: if cycles > 0.0 { k.thread_insts as f64 / cycles } else { 0.0 },
        warp_ipc: if cycles > 0.0 { warp_insts / cycles } else { 0.0 },
        cycles,
        cpi_stack: stack.scaled(1.0 / warp_insts.max(1.0)),
    }
}

/// The representative warp's cycles in one wave, by cause.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Terms {
    base: f64,
    issue: f64,
    mshr: f64,
    noc: f64,
    dram: f64,
    /// What each floor adds (at most one is not zero), in [`Limit::ALL`]'s order.
    limits: [f64; N_LIMITS],
}

impl Terms {
    fn as_stack(&self) -> CpiStack {
        let [ldst, units, l2_slice, noc_bandwidth, dram_bandwidth] = self.limits;
        CpiStack {
            base: self.base,
            issue: self.issue,
            mshr: self.mshr,
            noc: self.noc,
            dram: self.dram,
            ldst,
            units,
            l2_slice,
            noc_bandwidth,
            dram_bandwidth,
            ..CpiStack::default()
        }
    }

    /// Raises the wave to its highest floor (in wave cycles; the terms are
    /// the representative warp's, `scale` of them per wave cycle), charging
    /// what it adds to that floor.
    fn with_floors(mut self, floors: [f64; N_LIMITS], scale: f64) -> Self {
        if scale <= 0.0 {
            return self;
        }
        let (highest, floor) = floors.iter().copied().enumerate().fold((0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
        let excess = floor / scale - self.total();
        if excess > 0.0 {
            self.limits[highest] = excess;
        }
        self
    }

    fn total(&self) -> f64 {
        self.as_stack().total()
    }
}

/// A term linear in the NoC and DRAM queue waits: `c + n·wq_noc + d·wq_dram`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Linear {
    c: f64,
    n: f64,
    d: f64,
}

impl Linear {
    fn at(self, wq_noc: f64, wq_dram: f64) -> f64 {
        self.c + self.n * wq_noc + self.d * wq_dram
    }

    fn plus(self, o: Linear) -> Linear {
        Linear { c: self.c + o.c, n: self.n + o.n, d: self.d + o.d }
    }

    fn times(self, k: f64) -> Linear {
        Linear { c: self.c * k, n: self.n * k, d: self.d * k }
    }
}

/// What the memory terms of one interval need: `(miss, llc_miss)` of the
/// awaited loads, for intervals that wait for a load that can miss.
fn memory(interval: &Interval) -> Option<(f64, f64)> {
    (interval.awaits_load && interval.miss > 0.0).then_some((interval.miss, interval.llc_miss))
}

/// `L_nocont` of an interval's awaited load.
pub(crate) fn no_contention(machine: &Machine, llc_miss: f64) -> f64 {
    machine.latencies.round_trips(1.0, llc_miss)
}

/// How long a warp waits at its exit for the acknowledgement of its last
/// write (GPGPU-Sim's `stores_done`): the `drain` writes that leave the
/// LD/ST unit ahead of it, one a cycle, then its round trip, on to DRAM for
/// the share `to_dram` DRAM acknowledges, less the `after_last_write`
/// cycles the warp still runs meanwhile.
pub(crate) fn wait_for_last_write(machine: &Machine, drain: f64, to_dram: f64, after_last_write: f64) -> f64 {
    (drain + no_contention(machine, to_dram) - after_last_write).max(0.0)
}

/// Eq. 3, `M = min(M_read · W, #MSHR) + M_write · W`: the requests an SM has
/// in flight during the interval.
fn in_flight(interval: &Interval, machine: &Machine, warps_per_sm: f64) -> f64 {
    (interval.m_read * warps_per_sm).min(f64::from(machine.l1_mshrs)) + interval.m_write * warps_per_sm
}

/// MDM's memory-divergence test for one interval: more read requests in
/// flight per SM than MSHRs (for a streaming L1, than its NoC queue holds).
fn is_md(machine: &Machine, interval: &Interval, wave: Wave) -> bool {
    interval.m_read * f64::from(wave.warps_per_sm) > f64::from(machine.l1_mshrs)
}

/// The terms of one wave under `model`.
fn wave_terms(k: &KernelProfile, machine: &Machine, model: ModelKind, wave: Wave) -> Terms {
    let rate = machine.issue_rate;
    let per_scheduler = wave.warps_per_sm.div_ceil(machine.schedulers_per_sm.max(1)).max(1);
    let (gto, overlapped) = machine.scheduler.overlapped_warps(per_scheduler);
    // With a limited active set the scheduler's warps take turns in groups.
    let rounds = f64::from(per_scheduler) / f64::from(overlapped);
    let l1_hit = machine.latencies.l1_hit;
    let spans = k.intervals.iter().map(|i| {
        let extra = memory(i).map_or(0.0, |(miss, llc)| miss * (no_contention(machine, llc) - l1_hit).max(0.0));
        Span { insts: f64::from(i.insts), stall: f64::from(i.stall_cycles) + extra }
    });
    let total_insts: f64 = k.intervals.iter().map(|i| f64::from(i.insts)).sum();
    let base = f64::from(overlapped) * total_insts / rate;
    let overlap = overlapped_cycles(spans, f64::from(overlapped), rate, gto).max(base);
    let [mshr, noc, dram] = memory_terms(k, machine, model, wave);
    let (wq_noc, wq_dram) = solve_queues(k, machine, wave, rounds, overlap, mshr.plus(noc).plus(dram));
    Terms {
        base: rounds * base,
        issue: rounds * (overlap - base),
        mshr: rounds * mshr.at(wq_noc, wq_dram),
        noc: rounds * noc.at(wq_noc, wq_dram),
        dram: rounds * dram.at(wq_noc, wq_dram),
        limits: [0.0; N_LIMITS],
    }
}

/// The MSHR, NoC and DRAM terms summed over the representative warp's
/// memory intervals, as linear functions of the M/D/1 waits.
fn memory_terms(k: &KernelProfile, machine: &Machine, model: ModelKind, wave: Wave) -> [Linear; 3] {
    let warps = f64::from(wave.warps_per_sm);
    let active = f64::from(wave.active_sms);
    let mshrs = f64::from(machine.l1_mshrs);
    let noc_service = machine.noc_service();
    let saturation_limit = machine.latencies.llc + machine.latencies.dram;
    let mut sums = [Linear::default(); 3];
    for interval in &k.intervals {
        let Some((_, llc_miss)) = memory(interval) else { continue };
        let md = is_md(machine, interval, wave);
        let requests = in_flight(interval, machine, warps);
        let dram_service = machine.dram_service(llc_miss);
        let drain = |service: f64, divergent: bool| Linear {
            c: mdm_queue_delay(active, requests, service, saturation_limit, divergent),
            ..Linear::default()
        };
        let (noc, dram) = match model.queue() {
            // GPUMech models no NoC.
            Queue::HalfDrain if model == ModelKind::GpuMech => (Linear::default(), drain(dram_service, false)),
            Queue::HalfDrain => (drain(noc_service, false), drain(dram_service, false)),
            Queue::Mdm => (drain(noc_service, md), drain(dram_service, md)),
            // The warp's request waits the NoC queue's mean wait and, if it
            // misses the L2, the DRAM queue's.
            Queue::Md1 => (Linear { n: 1.0, ..Linear::default() }, Linear { d: llc_miss, ..Linear::default() }),
        };
        let latency = Linear { c: no_contention(machine, llc_miss), ..Linear::default() };
        // GPUMech's MSHR wait uses the bare latency; the others see the queues.
        let loaded = if model == ModelKind::GpuMech { latency } else { latency.plus(noc).plus(dram) };
        let mshr = if model.mdm_batching() {
            if md { loaded.times(mshr_batches_beyond_first(interval.m_read * warps, mshrs)) } else { Linear::default() }
        } else {
            loaded.times(mshr_average_factor(interval.m_read * warps, mshrs))
        };
        sums = [sums[0].plus(mshr), sums[1].plus(noc), sums[2].plus(dram)];
    }
    sums
}

/// The M/D/1 waits `(wq_noc, wq_dram)` at the fixed point where the wave's
/// cycles `T = rounds · (fixed + memory(wq))` produce the arrival rates that
/// give those waits. `(0, 0)` when no term depends on them.
fn solve_queues(
    k: &KernelProfile,
    machine: &Machine,
    wave: Wave,
    rounds: f64,
    fixed: f64,
    memory: Linear,
) -> (f64, f64) {
    if memory.n == 0.0 && memory.d == 0.0 {
        return (0.0, 0.0);
    }
    let noc_service = machine.noc_service();
    let dram_sector_service = machine.dram_cycles(f64::from(warplab_uarch::cache::SECTOR_BYTES));
    // Requests (and DRAM sectors) the wave sends, GPU-wide.
    let requests_per_warp: f64 = k.intervals.iter().map(|i| i.m_read + i.m_write).sum();
    let requests = f64::from(wave.active_sms) * f64::from(wave.warps_per_sm) * requests_per_warp;
    let sectors = requests * k.caches.dram_sectors_per_request;
    let noc_work = requests * noc_service;
    let dram_work = sectors * dram_sector_service;
    let waits = |t: f64| {
        let wq =
            |work: f64, service: f64| if work > 0.0 { md1_wait((work / t).min(1.0 - 1e-12), service) } else { 0.0 };
        (wq(noc_work, noc_service), wq(dram_work, dram_sector_service))
    };
    // h(T) = rounds·(fixed + memory(waits(T))) − T falls as T grows; below
    // the busiest link's work it is infinite.
    let h = |t: f64| {
        let (n, d) = waits(t);
        rounds * (fixed + memory.at(n, d)) - t
    };
    let mut lo = noc_work.max(dram_work);
    let mut hi = (rounds * (fixed + memory.c)).max(lo) * 2.0 + 1.0;
    while h(hi) > 0.0 && hi < 1e18 {
        lo = hi;
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if h(mid) > 0.0 { lo = mid } else { hi = mid }
    }
    waits(hi)
}
