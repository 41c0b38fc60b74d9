//! Walking a workload through the functional caches: the order in which the
//! profile and the miss-rate curve feed `cache_pass.rs`, and the caches-only
//! walk ([`walk_caches`]) that feeds several LLCs in one pass.
//!
//! Each kernel runs one wave of CTAs at a time (what the GPU holds at once),
//! CTA `c` of a wave on SM `c mod #SMs` (the timing model's first round of
//! launches); inside a wave the warps take turns one memory instruction at a
//! time, SMs in turn inside each round, so the caches see the mix of streams
//! they would see in a run.
//!
//! Each round stands for one memory latency, in which an SM can have no more
//! misses in flight than its L1 has MSHRs: once a round's misses reach that,
//! the SM's other warps wait for the next round. Without this a
//! memory-divergent kernel's warps would all advance in lockstep and evict
//! each other's lines between two loads of the same line.
//!
//! Which warps the MSHRs let through follows the config's warp scheduler.
//! Taking turns (`lrr`, `rrr`): GPGPU-Sim's round robin starts after the
//! last warp that issued, so when the MSHRs are the limit every waiting warp
//! gets its turn before any goes again; a round starts where the last one
//! ran out of MSHRs, and a warp comes back to its lines only after every
//! other warp of its SM has brought in its own (on SM7_QV100,
//! `strided:gs=32` at its default size: 89% of the L1 lookups miss in the
//! run, 100% taking turns).
//!
//! Oldest first (`gto`, `old`, and in the pass the two-level and
//! warp-limiting policies too, whatever their inner order): the scheduler
//! gives the oldest warp with a memory instruction ready the next place in
//! the SM's memory pipeline (its `ID_OC` and `OC_EX` registers, the
//! collector units that take memory instructions, the LD/ST unit), and the
//! L1 takes them first in, first out; a load the MSHRs refuse stays at the
//! head until they take it (GPGPU-Sim's in-order LD/ST unit). So a warp
//! whose data came back queues behind the warps that got in meanwhile, and
//! comes back to its lines only after them: on mdm-pascal-28sm,
//! `strided:gs=32` at its default size, 60% of the L1 lookups miss in the
//! run and in this pass (34% when each round started at the oldest warp;
//! with the pipeline's registers four wide instead of one, the run's misses
//! rise to 79%).

use serde::{Deserialize, Serialize};
use warplab_config::{GpuConfig, SchedulerPolicy};
use warplab_trace::source::{Command, KernelSource, WorkloadSource};
use warplab_trace::{Cta, Instruction, KernelHeader};
use warplab_uarch::latency::IdleLatencies;
use warplab_uarch::occupancy::{CtaShape, occupancy};
use warplab_uarch::ops::{OpInfo, extend_op_table};

use std::collections::VecDeque;
use warplab_uarch::dispatch::{Pipe, collector_ports};

use crate::cache_pass::{CachePass, Sent};
use crate::interval::{KernelContext, l1_space};
use crate::llc::LlcCounts;
use crate::llc_stage::{NO_SITE, host_threads, overlapped};
use crate::profile::ProfileOptions;

/// What a caches-only walk measured: per LLC its counts, and the
/// instructions they are per.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheWalk {
    /// The SM count whose L1s filtered the stream.
    pub stream_sms: u32,
    /// Totals over all kernels, one per LLC config, in the order given.
    pub llcs: Vec<LlcCounts>,
    /// Warp instructions (trace lines) of the kernels that ran.
    pub warp_insts: u64,
    /// Thread instructions (active lanes summed, DESIGN §2a).
    pub thread_insts: u64,
    /// Kernels in launch order.
    pub kernels: Vec<KernelWalk>,
    /// Oddities met (unknown opcodes, kernels that cannot run).
    pub diagnostics: Vec<String>,
}

/// One kernel of a [`CacheWalk`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelWalk {
    /// Kernel name.
    pub name: String,
    /// Launch id in the trace.
    pub id: u64,
    /// Warp instructions.
    pub warp_insts: u64,
    /// Thread instructions.
    pub thread_insts: u64,
    /// This kernel's counts, one per LLC config.
    pub llcs: Vec<LlcCounts>,
}

/// Walks every kernel of `workload` through the L1s of `config` (its SM
/// count, L1 cache string and carve-out, the profile's wave, round-robin and
/// MSHR-budget interleaving) and sends the requests past the L1s to one LLC
/// per entry of `llc_configs`, each with that config's slices, sets, L2
/// cache string, address mapping and partition indexing. Only the caches
/// run (no interval profile), so this costs a fraction of [`crate::profile`].
///
/// The stream is the profile's: with `llc_configs == [config]`, the LLC's
/// per-kernel `fetches` are the profile's `CacheFigures::l2_misses`. Copies
/// warm every LLC when `options.memcpy_warms_l2` says so. Only the memory
/// geometry of an LLC config is read; its SMs and L1 are ignored.
///
/// ```
/// use warplab_kernels::{GenSpec, generate};
/// use warplab_model::{ProfileOptions, walk_caches};
///
/// let config = warplab_config::preset("QV100").unwrap().config().unwrap();
/// let half = config.scale_shared(2).unwrap().config;
/// let spec: GenSpec = "vecadd:size=64".parse().unwrap();
/// let mut source = generate(&spec, &config).unwrap().into_source();
/// let walk = walk_caches(&config, &[&config, &half], &mut source, ProfileOptions::default()).unwrap();
/// // Streaming: every sector misses once, whatever the LLC's size.
/// assert_eq!(walk.llcs[0].misses, walk.llcs[1].misses);
/// ```
///
/// # Errors
/// The workload could not be read (the message names file, line and field).
pub fn walk_caches(
    config: &GpuConfig,
    llc_configs: &[&GpuConfig],
    workload: &mut dyn WorkloadSource,
    options: ProfileOptions,
) -> Result<CacheWalk, String> {
    let mut walker = Walker::new(config, llc_configs).with_threads(host_threads());
    let mut result = CacheWalk {
        stream_sms: config.n_sms(),
        llcs: vec![LlcCounts::default(); llc_configs.len()],
        ..CacheWalk::default()
    };
    walker.for_each_kernel(workload, options, |walker, source| {
        let mut counter = InstCounter::default();
        if let Some(launched) = walker.kernel(source, &mut result.diagnostics, &mut counter)? {
            let llcs: Vec<LlcCounts> = walker.cache.llc.stage().llcs.iter().map(|llc| llc.counts).collect();
            for (total, kernel) in result.llcs.iter_mut().zip(&llcs) {
                *total += *kernel;
            }
            result.warp_insts += counter.warp_insts;
            result.thread_insts += counter.thread_insts;
            let InstCounter { warp_insts, thread_insts } = counter;
            result.kernels.push(KernelWalk { name: launched.name, id: launched.id, warp_insts, thread_insts, llcs });
        }
        Ok(())
    })?;
    Ok(result)
}

/// What the walk tells its user about each wave and each memory access.
pub(crate) trait WalkSink {
    /// The wave's CTAs, before the caches see them.
    ///
    /// # Errors
    /// Whatever the sink cannot hold (the profile's path bound).
    fn wave(&mut self, wave: &[Cta], k: &KernelContext<'_>) -> Result<(), String>;

    /// The number of the memory site of `instruction` as a warp's
    /// `ordinal`-th memory instruction, under which the LLC stage credits
    /// its reads' answers (`llc_stage::NO_SITE` for none).
    fn site(&mut self, instruction: &Instruction, ordinal: u32) -> u32;

    /// One warp's execution of memory site `site`, and what it sent past
    /// the L1.
    fn access(&mut self, site: u32, sent: Sent);
}

/// A kernel the walk ran.
pub(crate) struct LaunchedKernel {
    pub name: String,
    pub id: u64,
    pub ctas: u64,
    pub warps_per_cta: u32,
    /// CTAs per SM the occupancy rule allows.
    pub ctas_per_sm: u32,
}

/// State kept across kernels: the caches (the LLCs persist) and the buffers
/// of one wave.
pub(crate) struct Walker<'c> {
    config: &'c GpuConfig,
    pub cache: CachePass,
    wave: Vec<Cta>,
    l1_hit: u64,
    /// L1 MSHRs per SM: the misses one round lets through.
    mshrs_per_sm: u32,
    /// Every warp of the wave, grouped by SM (reused from wave to wave).
    cursors: Vec<Cursor>,
    /// Where each SM's warps start in `cursors`, and one past the last.
    sm_starts: Vec<usize>,
    /// Whether the schedulers take warps in turn (`lrr`, `rrr`) rather than
    /// oldest first: then a round starts where the last one ran out of MSHRs.
    takes_turns: bool,
    /// Per SM, the warp (index into its cursors) the next round starts at.
    turns: Vec<usize>,
    /// Memory instructions an SM holds between issue and its L1
    /// ([`memory_pipeline_slots`]).
    memory_pipeline: usize,
    /// Per SM under oldest-first scheduling, the warps waiting in its
    /// memory pipeline, first in first out, from one round to the next.
    pipelines: Vec<VecDeque<usize>>,
    /// Rounds walked in this wave.
    rounds: u32,
    /// The LLC stage runs on a second thread (`llc_stage.rs`).
    overlap: bool,
}

/// Where one warp of the wave is.
#[derive(Debug, Clone, Copy)]
struct Cursor {
    cta: usize,
    warp: usize,
    /// Its next instruction.
    next: usize,
    /// Memory instructions it has done.
    ordinal: u32,
    /// Waiting in its SM's memory pipeline.
    queued: bool,
    /// The last round it did a memory instruction in (1-based; 0: none).
    served: u32,
}

/// Counts a kernel's instructions, wave by wave.
#[derive(Debug, Clone, Copy, Default)]
struct InstCounter {
    warp_insts: u64,
    thread_insts: u64,
}

impl<'c> Walker<'c> {
    /// The L1s of `config` in front of the LLCs of `llc_configs`.
    pub fn new(config: &'c GpuConfig, llc_configs: &[&GpuConfig]) -> Self {
        Self {
            config,
            cache: CachePass::new(config, llc_configs),
            wave: Vec::new(),
            l1_hit: IdleLatencies::of(config).l1_hit.round() as u64,
            mshrs_per_sm: config.l1.dl1.as_ref().map_or(u32::MAX, warplab_config::CacheConfig::mshrs_in_use),
            cursors: Vec::new(),
            sm_starts: Vec::new(),
            takes_turns: matches!(config.scheduling.policy, SchedulerPolicy::Lrr | SchedulerPolicy::Rrr),
            turns: Vec::new(),
            memory_pipeline: memory_pipeline_slots(config),
            pipelines: Vec::new(),
            rounds: 0,
            overlap: false,
        }
    }

    /// Runs the LLC stage on a second thread when `threads` > 1 (a host
    /// without threads, such as the page's wasm worker, passes 1). The
    /// counts are the same either way.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.overlap = threads > 1;
        self
    }

    /// Reads `workload`'s commands: copies warm the LLCs if `options` say
    /// so, and each kernel goes to `kernel`.
    pub fn for_each_kernel(
        &mut self,
        workload: &mut dyn WorkloadSource,
        options: ProfileOptions,
        mut kernel: impl FnMut(&mut Self, Box<dyn KernelSource>) -> Result<(), String>,
    ) -> Result<(), String> {
        while let Some(command) = workload.next_command() {
            match command? {
                Command::MemcpyHtoD { address, bytes } => {
                    if options.memcpy_warms_l2 {
                        self.cache.warm_llcs(address, bytes);
                    }
                }
                Command::Kernel(source) => kernel(self, source)?,
            }
        }
        Ok(())
    }

    /// Walks one kernel wave by wave, telling `sink`; `None` when the kernel
    /// cannot run on the config (with a diagnostic). The caches' counts are
    /// this kernel's afterwards.
    pub fn kernel<S: WalkSink>(
        &mut self,
        mut source: Box<dyn KernelSource>,
        diagnostics: &mut Vec<String>,
        sink: &mut S,
    ) -> Result<Option<LaunchedKernel>, String> {
        let header = source.header().clone();
        let shape = CtaShape {
            threads: header.block.size() as u32,
            regs_per_thread: header.nregs,
            shmem_bytes: header.shmem_bytes,
        };
        let occupancy = match occupancy(self.config, shape) {
            Ok(occupancy) => occupancy,
            Err(error) => {
                diagnostics.push(format!("kernel {} ({}) cannot run: {error}", header.id, header.name));
                return Ok(None);
            }
        };
        let carveout = self.config.l1.carveout_for(occupancy.ctas_per_sm * shape.shmem_bytes);
        self.cache.start_kernel(self.config, carveout.map(|(_, ways)| ways));
        let wave_ctas = (occupancy.ctas_per_sm as usize) * (self.config.n_sms() as usize);
        let mut walk = |walker: &mut Self| walker.waves(source.as_mut(), (&header, wave_ctas), diagnostics, sink);
        let ctas = if self.overlap { overlapped(self, |walker| &mut walker.cache.llc, walk) } else { walk(self) }?;
        diagnostics.extend(source.diagnostics());
        let warps_per_cta = (shape.threads.max(1)).div_ceil(self.config.cores.warp_size.max(1));
        Ok(Some(LaunchedKernel {
            name: header.name,
            id: header.id,
            ctas,
            warps_per_cta,
            ctas_per_sm: occupancy.ctas_per_sm,
        }))
    }

    /// Walks the CTAs of the kernel `header` describes from `source` through
    /// the caches, a wave of at most `wave_ctas` at a time, telling `sink`;
    /// the CTAs walked.
    fn waves<S: WalkSink>(
        &mut self,
        source: &mut dyn KernelSource,
        (header, wave_ctas): (&KernelHeader, usize),
        diagnostics: &mut Vec<String>,
        sink: &mut S,
    ) -> Result<u64, String> {
        let mut ops: Vec<OpInfo> = Vec::new();
        let mut ctas = 0u64;
        loop {
            let n = self.fill_wave(source, wave_ctas)?;
            if n == 0 {
                return Ok(ctas);
            }
            ctas += n as u64;
            for message in extend_op_table(&mut ops, source.opcodes(), self.config) {
                diagnostics.push(format!("kernel {}: {message}", header.id));
            }
            let k = KernelContext {
                ops: &ops,
                l1_hit: self.l1_hit,
                shared: u64::from(self.config.l1.shmem_latency_cycles.max(1)),
                shmem_base: header.shmem_base,
                local_base: header.local_base,
                shmem_banks: self.config.l1.shmem_banks,
            };
            sink.wave(&self.wave[..n], &k)?;
            self.run_caches(n, &k, sink);
        }
    }

    /// Reads up to `limit` CTAs into the wave buffers; how many it read.
    fn fill_wave(&mut self, source: &mut dyn KernelSource, limit: usize) -> Result<usize, String> {
        let mut n = 0;
        while n < limit.max(1) {
            if self.wave.len() == n {
                self.wave.push(Cta::default());
            }
            if !source.next_cta(&mut self.wave[n])? {
                break;
            }
            n += 1;
        }
        Ok(n)
    }

    /// The cache pass over the wave's first `n` CTAs, in the module doc's order.
    fn run_caches<S: WalkSink>(&mut self, n: usize, k: &KernelContext<'_>, sink: &mut S) {
        let n_sms = self.config.n_sms().max(1) as usize;
        self.cursors.clear();
        self.sm_starts.clear();
        for sm in 0..n_sms {
            self.sm_starts.push(self.cursors.len());
            for cta in (sm..n).step_by(n_sms) {
                let warps = self.wave[cta].warps.len();
                self.cursors.extend((0..warps).map(|warp| Cursor {
                    cta,
                    warp,
                    next: 0,
                    ordinal: 0,
                    queued: false,
                    served: 0,
                }));
            }
        }
        self.sm_starts.push(self.cursors.len());
        self.turns.clear();
        self.turns.resize(n_sms, 0);
        self.pipelines.resize_with(n_sms, VecDeque::new);
        self.pipelines.iter_mut().for_each(VecDeque::clear);
        self.rounds = 0;
        let mut live = self.cursors.len();
        while live > 0 {
            self.cache.new_round();
            self.rounds += 1;
            live = (0..n_sms)
                .map(|sm| {
                    if self.takes_turns {
                        self.round_in_turn(sm, k, sink)
                    } else {
                        self.oldest_first_round(sm, k, sink)
                    }
                })
                .sum();
        }
    }

    /// One round of SM `sm`'s warps under round robin: each in turn does
    /// its next memory instruction until the round's misses fill the L1's
    /// MSHRs; the warps the MSHRs turned away go first next round, and a
    /// warp comes back to its lines only after every other warp has had its
    /// turn. The warps not done.
    fn round_in_turn<S: WalkSink>(&mut self, sm: usize, k: &KernelContext<'_>, sink: &mut S) -> usize {
        let cursors = &mut self.cursors[self.sm_starts[sm]..self.sm_starts[sm + 1]];
        let start = self.turns[sm].min(cursors.len());
        let mut budget = u64::from(self.mshrs_per_sm);
        let mut live = 0;
        for i in (start..cursors.len()).chain(0..start) {
            let cursor = &mut cursors[i];
            let cta = &self.wave[cursor.cta];
            let instructions = cta.warp_instructions(&cta.warps[cursor.warp]);
            if budget > 0 {
                let sent = next_access(&mut self.cache, sm, cta, instructions, cursor, k, sink);
                budget = budget.saturating_sub(sent);
                if budget == 0 {
                    self.turns[sm] = i + 1;
                }
            }
            live += usize::from(cursor.next < instructions.len());
        }
        live
    }

    /// One round of SM `sm`'s warps under oldest-first scheduling: the
    /// scheduler puts the oldest warp with a memory instruction ready into
    /// the memory pipeline whenever it has room, and the L1 takes them in
    /// the pipeline's order, each at most once a round (a round stands for
    /// one memory latency), until the round's misses fill the MSHRs. What is
    /// still in the pipeline then goes first next round, so a warp whose
    /// data came back queues behind the warps that got in meanwhile, and
    /// comes back to its lines only after them (GPGPU-Sim's in-order LD/ST
    /// unit, which holds a load the MSHRs refuse until they take it). The
    /// warps not done.
    fn oldest_first_round<S: WalkSink>(&mut self, sm: usize, k: &KernelContext<'_>, sink: &mut S) -> usize {
        let cursors = &mut self.cursors[self.sm_starts[sm]..self.sm_starts[sm + 1]];
        let pipeline = &mut self.pipelines[sm];
        let mut budget = u64::from(self.mshrs_per_sm);
        let mut oldest = 0;
        while budget > 0 {
            while pipeline.len() < self.memory_pipeline && oldest < cursors.len() {
                let cursor = &mut cursors[oldest];
                if !cursor.queued && cursor.served != self.rounds && is_live(&self.wave, cursor) {
                    cursor.queued = true;
                    pipeline.push_back(oldest);
                }
                oldest += 1;
            }
            let Some(i) = pipeline.pop_front() else { break };
            let cursor = &mut cursors[i];
            let cta = &self.wave[cursor.cta];
            let instructions = cta.warp_instructions(&cta.warps[cursor.warp]);
            (cursor.queued, cursor.served) = (false, self.rounds);
            let sent = next_access(&mut self.cache, sm, cta, instructions, cursor, k, sink);
            budget = budget.saturating_sub(sent);
        }
        cursors.iter().filter(|cursor| is_live(&self.wave, cursor)).count()
    }
}

/// Whether the warp at `cursor` has instructions left.
fn is_live(wave: &[Cta], cursor: &Cursor) -> bool {
    let cta = &wave[cursor.cta];
    cursor.next < cta.warp_instructions(&cta.warps[cursor.warp]).len()
}

/// Memory instructions an SM holds between issue and its L1: the LD/ST
/// pipeline's issue and dispatch registers (`-gpgpu_pipeline_widths`), the
/// collector units its instructions can take, and the LD/ST unit's own.
fn memory_pipeline_slots(config: &GpuConfig) -> usize {
    let widths = config.units.widths;
    let ports = collector_ports(config);
    let takes_memory = |kind| ports.iter().any(|port| port.pipes.contains(&Pipe::Memory) && port.sets.contains(&kind));
    let oc = &config.units.operand_collector;
    let units: u32 = oc.built_sets().filter(|set| takes_memory(set.kind)).map(|set| set.units).sum();
    (widths.id_oc_mem + units + widths.oc_ex_mem + 1) as usize
}

impl WalkSink for InstCounter {
    fn wave(&mut self, wave: &[Cta], _: &KernelContext<'_>) -> Result<(), String> {
        for cta in wave {
            for warp in &cta.warps {
                let instructions = cta.warp_instructions(warp);
                self.warp_insts += instructions.len() as u64;
                self.thread_insts += instructions.iter().map(|i| u64::from(i.active_lanes())).sum::<u64>();
            }
        }
        Ok(())
    }

    fn site(&mut self, _: &Instruction, _: u32) -> u32 {
        NO_SITE
    }

    fn access(&mut self, _: u32, _: Sent) {}
}

/// Runs a warp's next memory instruction through the caches; the read
/// requests it sent past the L1 that took an MSHR (those that skip the L1,
/// atomics above all, take none, so they leave the round's budget alone).
fn next_access<S: WalkSink>(
    cache: &mut CachePass,
    sm: usize,
    cta: &Cta,
    instructions: &[Instruction],
    cursor: &mut Cursor,
    k: &KernelContext<'_>,
    sink: &mut S,
) -> u64 {
    while let Some(instruction) = instructions.get(cursor.next) {
        cursor.next += 1;
        let Some(&op) = k.ops.get(instruction.opcode.0 as usize) else { continue };
        if let Some(space) = l1_space(cta, instruction, op, k) {
            let site = sink.site(instruction, cursor.ordinal);
            let sent = cache.access(sm, (cta, instruction, site), op, space);
            sink.access(site, sent);
            cursor.ordinal += 1;
            return sent.mshr_reads();
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memory_pipeline_holds_its_registers_collector_units_and_the_ldst_unit() {
        let config = |name| warplab_config::preset(name).expect("a bundled preset").config().expect("valid");
        // mdm-pascal-28sm: `ID_OC_MEM` and `OC_EX_MEM` one wide, the memory
        // collector set's two units, the LD/ST unit.
        assert_eq!(memory_pipeline_slots(&config("mdm-pascal-28sm")), 1 + 2 + 1 + 1);
        // SM7_QV100: four-wide registers, and the eight generic collector
        // units, which take memory instructions too.
        assert_eq!(memory_pipeline_slots(&config("SM7_QV100")), 4 + 8 + 4 + 1);
    }
}
