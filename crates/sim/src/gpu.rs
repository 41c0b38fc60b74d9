//! The whole GPU and its clock: the central kernel and CTA scheduler, the
//! SMs, both crossbars and the memory system, advanced in one fixed order.
//!
//! At each instant the clocks due tick in this order, so that what a
//! component produced is seen by its consumer on the consumer's next edge:
//! 1. interconnect: each L2 slice puts its next reply into the reply
//!    crossbar, then both crossbars grant and move packets;
//! 2. DRAM: channels hand a finished request back, schedule commands and
//!    take requests from their slices;
//! 3. L2: each slice takes an arrival from the crossbar, answers a requester
//!    of a filled miss, takes a fill, serves one access;
//! 4. core: the CTA scheduler launches CTAs, then every SM runs its cycle
//!    (see [`crate::sm`]).
//!
//! Steps 2 and 3 read nothing that the CTA scheduler and the SMs write in
//! step 4 and write nothing they read, so when the SMs run on several
//! threads, the L2 and DRAM edges run while they do, with the same result
//! ([`Gpu::memory_may_run_beside`] lists what couples them and keeps them in
//! order). A DRAM edge at an instant without a core or L2 edge (DRAM's clock
//! is not the core's on any preset) then waits for the next core edge and
//! runs beside its SMs too, before that instant's own edges: nothing between
//! the two reads or writes what it does ([`Gpu::defers_dram`]).
//!
//! An SM is ticked only when it has work: a scheduler whose wait ended, an
//! access to make, a queue to drain, a result due, or a reply at its crossbar
//! port. In between it sleeps, and the cycles it slept through are charged to
//! its counters when it wakes, exactly as ticks would have counted them. Idle
//! crossbars, L2 slices and DRAM channels are not ticked either.

use std::collections::{BinaryHeap, VecDeque};

use warplab_config::GpuConfig;
use warplab_trace::{CtaSizes, KernelHeader};
use warplab_uarch::address_map::AddressMap;
use warplab_uarch::bitset::BitSet;
use warplab_uarch::occupancy::{CtaShape, footprint, occupancy};

use crate::SimOptions;
use crate::events::{Event, EventKind, EventLog};
use crate::gpu_sampling::{PredictedCta, sampler_for};
use crate::memory_partition::{MemoryEdges, MemoryNow, MemorySystem};
use crate::network::Network;
use crate::per_pc::{PerPc, SAMPLE_INTERVAL, samples_in};
use crate::report::MshrHistogram;
use crate::request::{MemoryRequests, RequestPool, Requests};
use crate::sampling::sampler::Sampler;
use crate::sm::port::{SmPort, SmWake};
use crate::sm::{CtaResources, KernelView, Sm};
use crate::snapshot::WarpState;
use crate::source::{Command, KernelSource, WorkloadSource};
use crate::threads::{Phase, SmTick};
use crate::time::{Clocks, Cycle, Domain};

/// How often GPGPU-Sim checks a run for progress (`gpu_sim_cycle % 50000`
/// in GPGPU-Sim 4's `gpgpu_sim::cycle`).
pub(crate) const DEADLOCK_CHECK_CYCLES: u64 = 50_000;

/// One kernel launch in the scheduler.
pub(crate) struct KernelRun {
    pub source: Option<Box<dyn KernelSource>>,
    pub header: KernelHeader,
    pub needs: CtaResources,
    pub ctas_per_sm: u32,
    pub limiter: String,
    pub ready_cycle: u64,
    pub start_cycle: u64,
    pub end_cycle: Option<u64>,
    pub ctas_issued: u64,
    pub ctas_done: u64,
    /// Warps launched in detail (sampling numbers them).
    pub warps_launched: u64,
    /// Sampling: the cycle a reused kernel ends (it runs no CTAs).
    pub ends_at: Option<u64>,
    /// Sampling: warp and thread instructions predicted, not simulated.
    pub predicted: [u64; 2],
    /// The sizes of the last CTA read: the next one's buffer is given room
    /// for as much before it is filled (a kernel's CTAs are mostly alike).
    pub last_cta: CtaSizes,
}

impl KernelRun {
    fn running(&self) -> bool {
        self.end_cycle.is_none()
    }

    fn has_ctas(&self) -> bool {
        self.source.is_some()
    }
}

/// The simulated GPU.
pub struct Gpu {
    pub(crate) config: GpuConfig,
    pub(crate) options: SimOptions,
    pub(crate) clocks: Clocks,
    pub(crate) sms: Vec<Sm>,
    pub(crate) memory: MemorySystem,
    pub(crate) request_network: Network,
    pub(crate) reply_network: Network,
    pub(crate) requests: Requests,
    /// SM `i`'s side of the crossbars during its cycle.
    ports: Vec<SmPort>,
    /// When SM `i` next has work, and whether it ran this cycle.
    wakes: Vec<SmWake>,
    /// Runs the SMs' cycles on several threads (natively, with
    /// [`SimOptions::threads`] above one).
    threads: crate::threads::SmThreads,
    pub(crate) address_map: AddressMap,
    pub(crate) views: Vec<KernelView>,
    pub(crate) runs: Vec<KernelRun>,
    pub(crate) diagnostics: Vec<String>,
    /// Sampled simulation, when on.
    pub(crate) sampler: Option<Sampler>,
    /// Predicted CTAs in flight, the first to end on top.
    pub(crate) predicted_ctas: BinaryHeap<PredictedCta>,
    pending: VecDeque<Command>,
    workload_done: bool,
    pub(crate) next_sm: usize,
    /// The SMs the CTA scheduler visits: every SM but those its last visit
    /// found full for every kernel with CTAs ready, and that have freed no
    /// resources since. The scan reads this flat set, not every SM's
    /// resource counts every cycle.
    pub(crate) launch_candidates: BitSet,
    /// The first cycle at which a kernel admitted since the last full scan
    /// has CTAs ready (`u64::MAX`: none): from then on every SM is a
    /// candidate again, as the new kernel may fit where the others did not.
    /// 0 at first, so that the first scan starts with every SM.
    launch_recheck_at: u64,
    /// The SMs whose L1 [`Gpu::flush_idle_l1s`] may have to empty: those
    /// that ended a cycle idle with a used L1 ([`Sm::l1_to_flush`]), or whose
    /// predicted CTAs ended, since its last look. Only an SM's tick uses its
    /// L1 or ends its CTAs, so every other SM is still busy or has nothing
    /// to flush, and the flush reads this flat set instead of every SM's
    /// counts every cycle (most SMs of a 1,024-SM GPU, read each cycle, do
    /// not stay in the host's caches).
    pub(crate) flush_candidates: BitSet,
    pub(crate) last_cycle: u64,
    /// Whether a kernel ran in the last core cycle (idle SMs then count
    /// "no warp" issue slots).
    any_running: bool,
    deadlocked: bool,
    /// GPGPU-Sim's deadlock check: the next multiple of
    /// [`DEADLOCK_CHECK_CYCLES`] to check at, and the warp instructions
    /// issued at the last check.
    liveness: (u64, u64),
    /// The event stream's window and what it has recorded.
    pub(crate) log: EventLog,
    /// The log the L2 and DRAM write to while they run beside the SMs: that
    /// happens only while events are off, so it stays empty.
    quiet_log: EventLog,
    /// DRAM edges of instants with no core or L2 edge, not yet run
    /// ([`Gpu::defers_dram`]), in order.
    deferred_dram: Vec<MemoryEdges>,
}

impl Gpu {
    /// A GPU of `config`, empty.
    pub fn new(config: &GpuConfig, options: SimOptions) -> Self {
        let n_sms = config.n_sms();
        let sampler = sampler_for(&options);
        let mut sms: Vec<Sm> = (0..n_sms).map(|id| Sm::new(id, config)).collect();
        for sm in &mut sms {
            sm.sample_log.on = sampler.is_some();
            sm.per_pc = options.per_pc.then(PerPc::default);
        }
        let mut memory = MemorySystem::new(config);
        if options.tick_every_cycle {
            memory.visit_every_cycle();
        }
        Self {
            config: config.clone(),
            options,
            clocks: Clocks::new(&config.clocks),
            sms,
            memory,
            request_network: Network::requests(config),
            reply_network: Network::replies(config),
            requests: Requests::new(n_sms),
            ports: (0..n_sms).map(SmPort::new).collect(),
            wakes: (0..n_sms).map(SmWake::new).collect(),
            threads: crate::threads::SmThreads::new(options.threads),
            address_map: AddressMap::for_gpu(config),
            views: Vec::new(),
            runs: Vec::new(),
            diagnostics: Vec::new(),
            sampler,
            predicted_ctas: BinaryHeap::new(),
            pending: VecDeque::new(),
            workload_done: false,
            next_sm: 0,
            launch_candidates: BitSet::new(n_sms as usize),
            launch_recheck_at: 0,
            flush_candidates: BitSet::new(n_sms as usize),
            last_cycle: 0,
            any_running: false,
            deadlocked: false,
            liveness: (DEADLOCK_CHECK_CYCLES, 0),
            log: EventLog::default(),
            quiet_log: EventLog::default(),
            deferred_dram: Vec::new(),
        }
    }

    /// Core cycles so far.
    pub fn cycle(&self) -> Cycle {
        self.clocks.core()
    }

    /// Whether the workload has run to its end.
    pub fn finished(&self) -> bool {
        self.deadlocked || (self.workload_done && self.pending.is_empty() && self.runs.iter().all(|run| !run.running()))
    }

    /// Ends a run in which nothing can ever happen again (e.g. an
    /// instruction for a unit class the config gives no units), saying
    /// `why`.
    pub(crate) fn deadlocked(&mut self, now: u64, why: &str) {
        self.diagnostics.push(format!("the simulation stopped at cycle {now}: {why}"));
        self.deadlocked = true;
        self.last_cycle = now;
    }

    /// Warp instructions the SMs have issued so far.
    pub(crate) fn warp_insts(&self) -> u64 {
        self.sms.iter().map(|sm| sm.counters.warp_insts).sum()
    }

    /// GPGPU-Sim's deadlock check (`gpgpu_sim::cycle`, `-gpgpu_deadlock_detect`,
    /// on by default): every [`DEADLOCK_CHECK_CYCLES`] core cycles, a run in
    /// which no warp instruction issued since the last check has stopped
    /// for good. It catches what the quiet check cannot: warps that retry an
    /// instruction every cycle that no unit will ever take (a specialized
    /// unit's instructions on a config with no generic operand collector
    /// units, which only they feed). Predicted CTAs and reused kernels of a
    /// sampled run issue nothing while they wait for their predicted end, so
    /// they hold it off.
    pub(crate) fn check_liveness(&mut self, now: u64) {
        let (next, issued_then) = self.liveness;
        if now < next {
            return;
        }
        let issued = self.warp_insts();
        let waiting_on_predictions = !self.predicted_ctas.is_empty();
        // A reused kernel of a sampled run runs no CTAs until its end.
        let simulating = self.runs.iter().any(|run| run.running() && run.ends_at.is_none());
        if issued == issued_then && !waiting_on_predictions && simulating {
            let why = format!(
                "no warp instruction issued in the last {DEADLOCK_CHECK_CYCLES} cycles (deadlock, as GPGPU-Sim's \
                 check finds it)"
            );
            self.deadlocked(now, &why);
            return;
        }
        self.liveness = ((now / DEADLOCK_CHECK_CYCLES + 1) * DEADLOCK_CHECK_CYCLES, issued);
    }

    /// Advances to the next clock edge of any domain; returns whether the
    /// core clock ticked.
    pub(crate) fn step(&mut self, workload: &mut dyn WorkloadSource) -> bool {
        let ticks = self.clocks.advance();
        let core_now = self.clocks.core().0;
        // What the crossbars' consumers see: a packet moved at an interconnect
        // edge is taken at the consumer's next edge after that instant
        // (GPGPU-Sim moves packets after the L2 and the SMs have popped), so
        // at an instant without an interconnect edge, everything the last
        // interconnect cycle delivered is there.
        let icnt_cycles = self.clocks.domain_cycles(Domain::Icnt);
        let icnt_now = if ticks.icnt { icnt_cycles } else { icnt_cycles + 1 };
        if self.log.window.is_some() {
            self.log.enter_cycle(core_now);
        }
        let memory_now = MemoryNow {
            // GPGPU-Sim's `gpu_sim_cycle` as the memory side reads it: the
            // core ticks last in an instant and counts its cycle after, so
            // an L2 or DRAM edge that coincides with a core edge still sees
            // the cycles before it.
            core_now: core_now - u64::from(ticks.core),
            event_cycle: core_now,
            icnt_now,
        };
        if ticks.icnt {
            // Replies enter the crossbar before it moves packets, as in GPGPU-Sim.
            let mut ctx =
                memory_now.context(self.requests.memory_mut(), &self.request_network, &self.address_map, &mut self.log);
            self.memory.icnt_cycle(&mut self.reply_network, &mut ctx);
            self.requests.bring_back_replied();
            self.request_network.cycle(icnt_cycles);
            self.reply_network.cycle(icnt_cycles);
        }
        let edges = MemoryEdges {
            dram: ticks.dram.then(|| self.clocks.domain_cycles(Domain::Dram)),
            l2: ticks.l2,
            now: memory_now,
        };
        if !ticks.core {
            if !ticks.l2 && self.defers_dram() {
                self.deferred_dram.extend(edges.dram.is_some().then_some(edges));
            } else {
                self.memory_cycle(edges);
            }
            return false;
        }
        let phase = self.threads.begin();
        // The L2 and DRAM run beside the SMs when the SMs run on the pool and
        // nothing the two read of each other can change.
        let memory_due = ticks.l2 || ticks.dram || !self.deferred_dram.is_empty();
        let beside = phase.on_pool() && memory_due && self.memory_may_run_beside();
        if !beside {
            self.memory_cycle(edges);
        }
        self.core_cycle(core_now, icnt_now, workload, &phase, beside.then_some(edges));
        self.threads.end(phase);
        if self.options.per_pc && core_now.is_multiple_of(SAMPLE_INTERVAL) {
            self.sample_warps(core_now, 1);
        }
        true
    }

    /// The DRAM edges deferred so far, then the L2 and DRAM edges of this
    /// instant, on this thread, and what they leave for the rest of the GPU.
    fn memory_cycle(&mut self, edges: MemoryEdges) {
        let requests = self.requests.memory_mut();
        let deferred = &mut self.deferred_dram;
        run_memory_edges(
            &mut self.memory,
            deferred,
            edges,
            requests,
            &self.request_network,
            &self.address_map,
            &mut self.log,
        );
        self.end_memory_cycle();
    }

    /// Whether a DRAM edge at an instant without a core or L2 edge waits to
    /// run beside the next core edge's SMs, before that instant's own edges.
    /// What comes between (interconnect edges, the CTA scheduler) reads and
    /// writes none of what a DRAM edge does: the channels, the slices' queues
    /// to and from DRAM, the records of the requests in them and the memory
    /// side's own requests; the replies the interconnect edge takes from the
    /// slices' `L2 to icnt` queues, which only an L2 edge fills. So it
    /// waits only where the SMs may run on threads and it could run beside
    /// them ([`Gpu::memory_may_run_beside`]); a core edge that does not run
    /// the memory side beside its SMs runs the deferred edges first, as do an
    /// L2 edge and the end of a slice.
    fn defers_dram(&self) -> bool {
        self.threads.has_pool() && self.memory_may_run_beside()
    }

    /// Applies what the L2 and DRAM edges left: the slices' takes from the
    /// request crossbar and the SM requests they ended.
    fn end_memory_cycle(&mut self) {
        self.memory.apply_takes(&mut self.request_network);
        self.requests.free_ended();
    }

    /// Whether this instant's L2 and DRAM edges may run while the SMs run
    /// their cycles, with the same result as before them. The SMs read the
    /// request crossbar's inputs and the reply crossbar, which the L2 and
    /// DRAM do not change (a slice's take from the request crossbar is
    /// applied after, [`MemorySystem::apply_takes`]), and the L2 and DRAM
    /// read nothing an SM writes (an SM request's record is the memory
    /// side's copy, [`crate::request::MemoryRequests`]). Three things would
    /// couple them, and each keeps the edges before the SMs:
    /// - events: the memory side records into the event log, which the SMs
    ///   read, and its events come before the CTA launches';
    /// - an L1 write-back in the memory side: the L2 may end it, freeing
    ///   its slot in its SM's pool, where the SM's cycle could reuse it;
    /// - a copy warming the L2 (`--memcpy-warms-l2`): the CTA scheduler's
    ///   step before the SMs would write the L2 the edges read.
    fn memory_may_run_beside(&self) -> bool {
        !self.log.on && !self.requests.may_end_sm_requests() && !self.options.memcpy_warms_l2
    }

    /// Adds `n` per-PC samples of every resident warp's state after core
    /// cycle `now` (`per_pc.rs`).
    fn sample_warps(&mut self, now: u64, n: u64) {
        for sm in &mut self.sms {
            let Some(mut per_pc) = sm.per_pc.take() else { continue };
            for w in 0..sm.warps.len() {
                if let Some(at) = sm.waiting_at(w) {
                    per_pc.sample(w, at, sm.warp_state(w, now + 1, &self.views), n);
                }
            }
            sm.per_pc = Some(per_pc);
        }
    }

    /// The core's cycle; `beside`: the L2 and DRAM edges to run while the
    /// SMs run theirs (see [`Gpu::memory_may_run_beside`]).
    fn core_cycle(
        &mut self,
        now: u64,
        icnt_now: u64,
        workload: &mut dyn WorkloadSource,
        phase: &Phase,
        beside: Option<MemoryEdges>,
    ) {
        self.admit_kernels(now, workload);
        self.end_predicted(now);
        self.launch_ctas(now);
        self.flush_idle_l1s();
        let any_running = self.runs.iter().any(KernelRun::running);
        if any_running != self.any_running {
            // Sleeping SMs' idle cycles so far were charged under the old value.
            self.settle_sms(now - 1);
            self.any_running = any_running;
        }
        let cycle = SmCycle {
            request_network: &self.request_network,
            reply_network: &self.reply_network,
            address_map: &self.address_map,
            views: &self.views,
            log: &self.log,
            now,
            icnt_now,
            any_running,
            tick_every_cycle: self.options.tick_every_cycle,
        };
        let (pools, memory_requests) = self.requests.split_mut();
        let (memory, request_network, address_map) = (&mut self.memory, &self.request_network, &self.address_map);
        let (quiet_log, deferred) = (&mut self.quiet_log, &mut self.deferred_dram);
        let memory_edges = beside.map(|edges| {
            move || run_memory_edges(memory, deferred, edges, memory_requests, request_network, address_map, quiet_log)
        });
        let all = (&mut self.sms[..], pools, &mut self.ports[..], &mut self.wakes[..]);
        self.threads.for_each_sm(phase, all, cycle, memory_edges);
        if beside.is_some() {
            self.end_memory_cycle();
        }
        self.end_sm_cycles(now);
        if self.log.on {
            self.observe_warps(now);
        }
        self.retire_kernels(now);
    }

    /// What the SMs' cycles left for the rest of the GPU, applied SM by SM
    /// in SM order, as one thread ticking them in turn would have applied it:
    /// packets sent and replies taken, events, sampling records and finished CTAs.
    fn end_sm_cycles(&mut self, now: u64) {
        let flushing = self.config.l1.flush_l1_cache;
        for (s, ((sm, port), wake)) in self.sms.iter_mut().zip(&mut self.ports).zip(&mut self.wakes).enumerate() {
            if !wake.ticked {
                continue;
            }
            wake.ticked = false;
            if flushing && sm.l1_to_flush() {
                self.flush_candidates.insert(s);
            }
            port.apply(&mut self.requests, &mut self.request_network, &mut self.reply_network, &mut self.log);
            if let Some(sampler) = &mut self.sampler
                && !sm.sample_log.is_empty()
            {
                sampler.take(&mut sm.sample_log, now);
            }
            // Taken and put back only when it holds something: the SM's
            // thread reads the list's line, which need not move to this core.
            if sm.finished_ctas.is_empty() {
                continue;
            }
            // Its resources freed, the SM may take a CTA again.
            self.launch_candidates.insert(s);
            let mut finished = std::mem::take(&mut sm.finished_ctas);
            for (kernel, slot) in finished.drain(..) {
                self.runs[kernel as usize].ctas_done += 1;
                let cta = || cta_index(&self.runs, sm, slot);
                self.log.record_sm(sm.id, now, || EventKind::CtaFinished { sm: sm.id, kernel, cta: cta(), slot });
            }
            sm.finished_ctas = finished;
        }
    }

    /// The L1 MSHR occupancy of all SMs.
    pub(crate) fn mshr_occupancy(&self) -> MshrHistogram {
        let mut histogram = MshrHistogram::for_l1(&self.config);
        for sm in &self.sms {
            histogram += &sm.mshr_occupancy;
        }
        histogram
    }

    /// Records, for each SM in the event window, the instructions its
    /// schedulers issued this cycle and its warps whose state changed.
    fn observe_warps(&mut self, now: u64) {
        let Some(window) = &self.log.window else { return };
        let sms = window.sms.start.min(self.sms.len() as u32)..window.sms.end.min(self.sms.len() as u32);
        for s in sms {
            let sm = &self.sms[s as usize];
            let log = &mut self.log;
            if log.states.len() <= s as usize {
                log.states.resize(s as usize + 1, Vec::new());
                log.issued.resize(s as usize + 1, Vec::new());
            }
            observe_issue(sm, &self.views, now, log);
            observe_states(sm, &self.views, now, log);
        }
    }

    /// When every component only waits, the first core cycle after `now` at
    /// which anything has work: an SM waking, a packet arriving, a slice's or
    /// channel's latency ending, a DRAM command due, a kernel's launch
    /// latency ending. `None` while something moves
    /// or could start next cycle; `Some(u64::MAX)` when nothing ever will.
    pub(crate) fn quiet_until(&self, now: u64) -> Option<u64> {
        // A kernel that ended this cycle may let the next command start.
        if self.runs.iter().any(|run| run.end_cycle == Some(now)) {
            return None;
        }
        let arrival = self.request_network.next_arrival()?.min(self.reply_network.next_arrival()?);
        // A packet arriving at interconnect cycle `arrival` is seen at the
        // first edge of any domain after interconnect edge `arrival - 1`:
        // wake at the core edge at or before that one, so that no edge after it is passed over.
        let mut next = if arrival == u64::MAX {
            u64::MAX
        } else {
            self.clocks.core_cycle_at(Domain::Icnt, arrival.saturating_sub(1))
        };
        for wake in &self.wakes {
            next = next.min(wake.at);
            if next <= now + 1 {
                return None;
            }
        }
        next = next.min(self.memory.next_event(&self.clocks)?).min(self.next_predicted_end());
        for run in self.runs.iter().filter(|run| run.has_ctas()) {
            if run.ready_cycle > now {
                next = next.min(run.ready_cycle);
            } else if self.sms.iter().any(|sm| sm.fits(run.needs)) {
                return None;
            }
        }
        (next > now + 1).then_some(next)
    }

    /// Jumps the clocks to core cycle `target` when every component only
    /// waits until then; nothing is ticked in between, and the SMs charge
    /// the cycles when they wake ([`Sm::settle`]).
    pub(crate) fn skip_to(&mut self, target: u64) {
        let now = self.clocks.core().0;
        if self.options.per_pc && target > now + 1 {
            // Nothing changes in the cycles passed over: every warp's state
            // after this one holds for their samples.
            let samples = samples_in(now + 1, target - 1);
            if samples > 0 {
                self.sample_warps(now, samples);
            }
        }
        self.clocks.skip_to_core(target);
    }

    /// Charges every SM's slept cycles through core cycle `through`.
    fn settle_sms(&mut self, through: u64) {
        for sm in &mut self.sms {
            sm.settle(through, self.any_running);
        }
    }

    /// Brings every counter up to the current cycle (before a report).
    pub(crate) fn settle(&mut self) {
        // A slice ends after a core edge, which ran any deferred DRAM edges;
        // were one still waiting, what the run shows now would miss it.
        if let Some(last) = self.deferred_dram.pop() {
            self.memory_cycle(last);
        }
        self.settle_sms(self.clocks.core().0);
    }

    /// Takes commands from the workload while they may start: a copy waits for
    /// running kernels; a kernel waits for its stream's earlier kernel, and for
    /// every running kernel unless the config allows concurrent kernels.
    ///
    /// Never inlined, as [`Gpu::launch_ctas`], so the workload's `dyn` calls
    /// stay out of `core_cycle`: in the browser, V8 inlines such a call's
    /// target where it was seen, and the page's workers share one compiled
    /// module but run different workloads (the run's is wrapped by the load
    /// book), so each one's target undid the code compiled for another's,
    /// and `core_cycle`, the largest hot function, was compiled three times
    /// (docs/performance.md, seventh increment).
    #[inline(never)]
    fn admit_kernels(&mut self, now: u64, workload: &mut dyn WorkloadSource) {
        loop {
            if self.pending.is_empty() && !self.workload_done {
                match workload.next_command() {
                    Some(Ok(command)) => self.pending.push_back(command),
                    Some(Err(message)) => {
                        self.diagnostics.push(message);
                        self.workload_done = true;
                    }
                    None => self.workload_done = true,
                }
            }
            let Some(command) = self.pending.front() else { return };
            let n_running = self.runs.iter().filter(|r| r.running()).count() as u32;
            match command {
                Command::MemcpyHtoD { address, bytes } => {
                    if n_running > 0 {
                        return;
                    }
                    if self.options.memcpy_warms_l2 {
                        self.memory.warm(*address, *bytes, &self.address_map);
                    }
                    self.pending.pop_front();
                }
                Command::Kernel(source) => {
                    let stream = source.header().stream_id;
                    let kernels = &self.config.kernels;
                    let concurrent = kernels.concurrent_kernel_sm
                        && n_running < kernels.max_concurrent_kernels.max(1)
                        && !self.runs.iter().any(|r| r.running() && r.header.stream_id == stream);
                    if n_running > 0 && !concurrent {
                        return;
                    }
                    let Some(Command::Kernel(source)) = self.pending.pop_front() else { return };
                    self.start_kernel(source, now, n_running == 0);
                }
            }
        }
    }

    fn start_kernel(&mut self, source: Box<dyn KernelSource>, now: u64, alone: bool) {
        let header = source.header().clone();
        let mut view = KernelView {
            ops: Vec::new(),
            names: Vec::new(),
            shmem_base: header.shmem_base,
            local_base: header.local_base,
        };
        let fallbacks = view.extend(source.opcodes(), &self.config);
        self.note_fallbacks(&header, fallbacks);
        let threads = u32::try_from(header.block.size()).unwrap_or(u32::MAX);
        let shape = CtaShape { threads, regs_per_thread: header.nregs, shmem_bytes: header.shmem_bytes };
        let cta = footprint(&self.config, shape);
        let fit = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        let needs = CtaResources {
            threads: fit(cta.threads),
            regs: fit(cta.regs),
            shmem_bytes: fit(cta.shmem_bytes),
            warps: fit(cta.warps),
        };
        let launch_latency = u64::from(self.config.kernels.kernel_launch_latency_cycles);
        let mut run = KernelRun {
            source: None,
            header,
            needs,
            ctas_per_sm: 0,
            limiter: String::new(),
            // GPGPU-Sim issues CTAs at the end of a core cycle
            // (`gpgpu_sim::cycle`: `issue_block2core` after the clusters'
            // cycle, then `decrement_kernel_latency`), so a kernel's first
            // CTAs run in the cycle after the one in which its latency
            // counter reaches 0; warplab launches them at the start of a cycle.
            ready_cycle: now + launch_latency + 1,
            start_cycle: now,
            end_cycle: None,
            ctas_issued: 0,
            ctas_done: 0,
            warps_launched: 0,
            ends_at: None,
            predicted: [0, 0],
            last_cta: CtaSizes::default(),
        };
        match occupancy(&self.config, shape) {
            Ok(occ) => {
                run.ctas_per_sm = occ.ctas_per_sm;
                run.limiter = format!("{:?}", occ.limiter);
                if alone {
                    let carveout = self.config.l1.carveout_for(occ.ctas_per_sm * shape.shmem_bytes);
                    for sm in &mut self.sms {
                        sm.configure_l1(&self.config, carveout.map(|(_, ways)| ways));
                    }
                }
                self.sample_launch(&mut run, source, now);
            }
            Err(error) => {
                self.diagnostics.push(format!("kernel {} ({}) cannot run: {error}", run.header.id, run.header.name));
                if let Some(sampler) = &mut self.sampler {
                    sampler.not_run();
                }
                run.end_cycle = Some(now);
            }
        }
        self.views.push(view);
        self.launch_recheck_at = self.launch_recheck_at.min(run.ready_cycle);
        self.runs.push(run);
    }

    /// Launches at most one CTA per SM per cycle, SMs in round-robin order,
    /// from the oldest kernel with CTAs left that fits. Never inlined (see
    /// [`Gpu::admit_kernels`]).
    #[inline(never)]
    fn launch_ctas(&mut self, now: u64) {
        if !self.runs.iter().any(|run| run.has_ctas() && run.ready_cycle <= now) {
            return;
        }
        // Ticking every cycle is the reference the tests compare with: there
        // every SM is visited.
        if now >= self.launch_recheck_at || self.options.tick_every_cycle {
            (0..self.sms.len()).for_each(|s| self.launch_candidates.insert(s));
            let waiting = self.runs.iter().map(|run| run.ready_cycle).filter(|&ready| ready > now);
            self.launch_recheck_at = waiting.min().unwrap_or(u64::MAX);
        }
        // As GPGPU-Sim: the scan starts after the SM that got the last CTA of
        // the previous cycle and visits every SM once. It passes over the SMs
        // that are not candidates: each would find no kernel that fits.
        let start = self.next_sm;
        let mut step = 0;
        while let Some((s, at)) = self.launch_candidates.next_in_scan(start, step) {
            step = at + 1;
            if !self.launch_on(s, now) {
                self.launch_candidates.remove(s);
            }
        }
    }

    /// Launches a CTA on SM `s` from the oldest kernel with CTAs ready that
    /// fits, if any; returns whether one fitted. An SM none fits stays so
    /// until it frees resources or a kernel is admitted: launches on other
    /// SMs and kernels running out of CTAs only take fitting kernels away.
    fn launch_on(&mut self, s: usize, now: u64) -> bool {
        for r in 0..self.runs.len() {
            let run = &self.runs[r];
            if !run.has_ctas() || run.ready_cycle > now || !self.sms[s].fits(run.needs) {
                continue;
            }
            if self.predicts(r) {
                self.launch_predicted(s, r, now);
                return true;
            }
            let run = &mut self.runs[r];
            let Some(slot) = self.sms[s].free_cta_slot() else { return true };
            let Some(source) = run.source.as_mut() else { continue };
            let buffer = self.sms[s].cta_buffer(slot);
            buffer.reserve_for(run.last_cta);
            match source.next_cta(buffer) {
                Ok(true) => {
                    run.last_cta = buffer.sizes();
                    self.start_cta(s, r, slot, now);
                }
                Ok(false) => self.close_source(r),
                Err(message) => {
                    self.diagnostics.push(message);
                    self.close_source(r);
                }
            }
            return true;
        }
        false
    }

    /// Starts the CTA kernel `r`'s source just wrote into CTA slot `slot` of SM `s`.
    fn start_cta(&mut self, s: usize, r: usize, slot: usize, now: u64) {
        if let Some(source) = &self.runs[r].source {
            if let Some(sampler) = &mut self.sampler {
                let slot = &mut self.sms[s].ctas[slot];
                sampler.annotate(r, &slot.cta, source.opcodes(), &mut slot.block_at);
            }
            let fallbacks = self.views[r].extend(source.opcodes(), &self.config);
            if !fallbacks.is_empty() {
                let header = self.runs[r].header.clone();
                self.note_fallbacks(&header, fallbacks);
            }
        }
        let run = &mut self.runs[r];
        run.ctas_issued += 1;
        let (needs, first) = (run.needs, run.warps_launched);
        self.sms[s].settle(now - 1, self.any_running);
        self.runs[r].warps_launched += self.sms[s].launch_cta(slot, r as u32, needs, now, first);
        self.wakes[s].at = 0;
        self.next_sm = (s + 1) % self.sms.len();
        let (sm, kernel, slot) = (s as u32, r as u32, slot as u16);
        let cta = || cta_index(&self.runs, &self.sms[s], slot);
        self.log.record_sm(sm, now, || EventKind::CtaLaunched { sm, kernel, cta: cta(), slot });
    }

    fn note_fallbacks(&mut self, header: &KernelHeader, fallbacks: Vec<String>) {
        for message in fallbacks {
            self.diagnostics.push(format!("kernel {} ({}): {message}", header.id, header.name));
        }
    }

    pub(crate) fn close_source(&mut self, r: usize) {
        if let Some(source) = self.runs[r].source.take() {
            for message in source.diagnostics() {
                let header = &self.runs[r].header;
                self.diagnostics.push(format!("kernel {} ({}): {message}", header.id, header.name));
            }
        }
    }

    fn retire_kernels(&mut self, now: u64) {
        for r in 0..self.runs.len() {
            let run = &mut self.runs[r];
            let done = run.source.is_none() && run.ctas_done == run.ctas_issued;
            if run.running() && done && run.ends_at.is_none_or(|end| end <= now) {
                run.end_cycle = Some(now);
                self.last_cycle = now;
                self.sample_ended(r, now);
            }
        }
    }

    /// With `-gpgpu_flush_l1_cache`, GPGPU-Sim invalidates the L1 of every SM
    /// that has no unfinished thread, at the end of each core cycle after
    /// issuing CTAs (`gpgpu_sim::cycle`): an SM's L1 is emptied as soon as it
    /// runs out of work, between kernels and within one. warplab issues the
    /// CTAs at the start of the next cycle, so it looks then, after them.
    fn flush_idle_l1s(&mut self) {
        if !self.config.l1.flush_l1_cache || self.flush_candidates.count() == 0 {
            return;
        }
        let sms = &mut self.sms;
        self.flush_candidates.for_each(|s| {
            if sms[s].l1_to_flush() {
                sms[s].memory.invalidate_l1();
            }
        });
        self.flush_candidates.clear();
    }
}

/// What every SM's cycle reads from the rest of the GPU: nothing in it
/// changes while the SMs run their cycles.
struct SmCycle<'a> {
    request_network: &'a Network,
    reply_network: &'a Network,
    address_map: &'a AddressMap,
    views: &'a [KernelView],
    log: &'a EventLog,
    now: u64,
    icnt_now: u64,
    any_running: bool,
    tick_every_cycle: bool,
}

impl SmTick for SmCycle<'_> {
    /// Whether the SM has work or a reply waits at its port: judged on
    /// `wake` alone and the reply crossbar's flat record of its output.
    fn is_due(&self, wake: &SmWake) -> bool {
        wake.at <= self.now || self.reply_network.first_arrival(wake.sm) <= self.icnt_now
    }

    /// SM `sm`'s cycle: its requests in `requests`, what it sends and takes
    /// in `port`, when it next has work in `wake`.
    fn tick(&self, sm: &mut Sm, requests: &mut RequestPool, port: &mut SmPort, wake: &mut SmWake) {
        let now = self.now;
        sm.settle(now - 1, self.any_running);
        if sm.is_idle() {
            wake.at = u64::MAX;
            return;
        }
        wake.ticked = true;
        port.open(self.log);
        let mut ctx = crate::sm::memory::MemoryContext {
            requests,
            request_network: self.request_network,
            reply_network: self.reply_network,
            port,
            address_map: self.address_map,
            icnt_now: self.icnt_now,
            now,
        };
        sm.execute_cycle(now, &mut ctx, self.views);
        let (issued, all_memory) = sm.issue_cycle(now, self.views);
        sm.fetch_cycle(now, &mut ctx);
        sm.count_cycles(1, !issued && all_memory);
        sm.charged_through = now;
        wake.at = if self.tick_every_cycle { now + 1 } else { sm.next_wake(now) };
    }
}

/// Runs the DRAM edges `deferred` holds (emptying it), then `edges`, on the
/// memory side.
fn run_memory_edges(
    memory: &mut MemorySystem,
    deferred: &mut Vec<MemoryEdges>,
    edges: MemoryEdges,
    requests: &mut MemoryRequests,
    request_network: &Network,
    address_map: &AddressMap,
    log: &mut EventLog,
) {
    for earlier in deferred.drain(..).chain([edges]) {
        memory.edges(earlier, requests, request_network, address_map, log);
    }
}

/// The grid index (x fastest) of the CTA in slot `slot` of `sm`.
pub(crate) fn cta_index(runs: &[KernelRun], sm: &Sm, slot: u16) -> u64 {
    let cta = &sm.ctas[slot as usize];
    cta.cta.id.index_in(runs[cta.kernel as usize].header.grid)
}

/// Records an `Issued` event for each instruction a scheduler of `sm` issued
/// since the last recorded cycle (two from one warp under dual issue).
fn observe_issue(sm: &Sm, views: &[KernelView], now: u64, log: &mut EventLog) {
    let before = std::mem::take(&mut log.issued[sm.id as usize]);
    for (k, scheduler) in sm.schedulers.iter().enumerate() {
        let Some(&count) = before.get(k) else { continue };
        let w = scheduler.issued_warp as usize;
        let warp = &sm.warps[w];
        for back in (1..=scheduler.issued.saturating_sub(count)).rev() {
            let instruction = &sm.ctas[warp.cta_slot as usize].cta.instructions[warp.next as usize - back as usize];
            let names = &views[warp.kernel as usize].names;
            let opcode = names.get(instruction.opcode.0 as usize).cloned().unwrap_or_default();
            let (sm, scheduler, warp, pc) = (sm.id, k as u32, w as u32, u64::from(instruction.pc));
            log.push(Event { cycle: now, kind: EventKind::Issued { sm, scheduler, warp, pc, opcode } });
        }
    }
    log.issued[sm.id as usize] = sm.schedulers.iter().map(|s| s.issued).collect();
}

/// Records a `WarpState` event for each warp slot of `sm` whose state at the
/// start of the next cycle differs from the last recorded one.
fn observe_states(sm: &Sm, views: &[KernelView], now: u64, log: &mut EventLog) {
    let mut states = std::mem::take(&mut log.states[sm.id as usize]);
    states.resize(sm.warps.len(), WarpState::Empty);
    for (w, last) in states.iter_mut().enumerate() {
        let state = sm.warp_state(w, now + 1, views);
        if state != *last {
            *last = state;
            let (sm, warp) = (sm.id, w as u32);
            log.push(Event { cycle: now, kind: EventKind::WarpState { sm, warp, state } });
        }
    }
    log.states[sm.id as usize] = states;
}
