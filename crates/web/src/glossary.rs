//! One-sentence explanations of the metrics the page shows, kept in one
//! table so every view (the report, the analytical panel) explains a term in
//! the same words; views show them as hover text (`title`). The animation's
//! parts (warp states, queues, bars) are explained by its own table,
//! `components/animation/explain.rs`, which its tooltips compose into
//! sentences about the part under the pointer.
//!
//! Every explanation is also an entry of [`ENTRIES`], with the term it
//! explains and an anchor id, which the glossary at the foot of the page lists
//! (`components/glossary_panel.rs`) and panel headings link to; a test checks
//! that the table names every constant here.

use warplab_lab::ModelKind;

/// Thread instructions per cycle.
pub const IPC: &str =
    "Thread instructions per core cycle: active lanes of every issued instruction, summed over all SMs.";
/// Warp instructions per cycle.
pub const WARP_IPC: &str =
    "Warp instructions per core cycle, summed over all SMs: each issued instruction counts once.";
/// The run's length.
pub const CYCLES: &str = "Core cycles from the start of the run to the end of the last kernel.";
/// Thread instructions.
pub const THREAD_INSTS: &str = "Instructions counted once per active lane (thread) that executed them.";
/// Warp instructions.
pub const WARP_INSTS: &str = "Instructions counted once per warp that issued them.";
/// The memory-stall share.
pub const F_MEM: &str =
    "Share of cycles with resident warps in which nothing issued because every warp waited on memory.";
/// L2 misses per kilo-instruction.
pub const L2_MPKI: &str = "L2 sector misses per 1,000 thread instructions.";
/// Shared-memory bank-conflict cycles.
pub const BANK_CONFLICTS: &str = "Cycles shared-memory instructions held an SM's LD/ST unit for bank conflicts, summed over SMs: an access whose lanes need n different words of one bank takes n cycles, n - 1 of them conflicts (GPGPU-Sim's gpgpu_n_shmem_bkconflict).";
/// A chiplet.
pub const CHIPLET: &str = "One die of a GPU built from several: its own SMs, L2 slices, memory channels and crossbar, linked to the other chiplets. An address lives on one chiplet (its home); an SM reaching another chiplet's slice crosses the links both ways.";
/// The share of L2 requests that went to another chiplet.
pub const REMOTE_SHARE: &str = "Share of the L2 requests from SMs whose slice was on another chiplet: each crossed the inter-chiplet links, and its reply came back over them.";
/// How busy the inter-chiplet links were.
pub const LINK_BUSY: &str = "Share of the time the inter-chiplet links spent sending, averaged over every link of both directions, and for the busiest link.";
/// Miss status holding registers.
pub const MSHR: &str =
    "Miss status holding registers: one per outstanding L1 miss line; when all are taken, further misses wait.";

/// The issue-slot breakdown as a whole.
pub const ISSUE_SLOTS: &str =
    "What every warp scheduler did in every cycle: issue an instruction, or the reason it could not.";
/// A scheduler issued.
pub const ISSUED: &str = "The scheduler issued an instruction.";
/// Stalled on memory.
pub const STALL_MEMORY: &str = "Nothing issued: every warp waited on a memory result or on the memory pipeline.";
/// Stalled on an arithmetic result.
pub const STALL_DEPENDENCE: &str = "Nothing issued: the ready-looking warps waited on an arithmetic result.";
/// Stalled at a barrier.
pub const STALL_BARRIER: &str = "Nothing issued: warps waited at a barrier for the rest of their CTA.";
/// Stalled on fetch.
pub const STALL_FETCH: &str = "Nothing issued: the warps not waiting on memory had empty instruction buffers (fetch, decode or an instruction-cache miss).";
/// Stalled on a busy unit.
pub const STALL_STRUCTURAL: &str = "Nothing issued: a warp was ready but the unit it needs was busy.";
/// No warp resident.
pub const NO_WARP: &str = "No warp was resident on this scheduler.";

/// Cache outcomes as a whole.
pub const CACHE_OUTCOMES: &str =
    "Every L1 data cache and L2 lookup by its outcome; a reservation fail is retried, so it counts again later.";
/// A hit.
pub const HIT: &str = "The sector was in the cache.";
/// A hit on a pending fill.
pub const HIT_RESERVED: &str =
    "The sector's fill was already on its way: the access merged into the outstanding miss (an MSHR).";
/// A line miss.
pub const MISS: &str = "No line with this tag: the access went to the next level.";
/// A sector miss.
pub const SECTOR_MISS: &str = "The line was present but not this 32-byte sector: the sector went to the next level.";
/// A reservation failure.
pub const RESERVATION_FAIL: &str =
    "The access could not proceed (no free MSHR, a full miss queue or every way reserved) and was retried.";

/// The MSHR occupancy histogram as a whole.
pub const MSHR_OCCUPANCY: &str = "How many L1 MSHR entries were in use, sampled every SM cycle: a histogram piled up at the right means misses waited for MSHRs.";

/// The L1-miss latency breakdown as a whole.
pub const MISS_LATENCY: &str =
    "Where an L1 read miss spends its cycles on average, from the first attempt to the returned data.";
/// Waiting for an MSHR.
pub const MSHR_WAIT: &str = "From the first attempt until the request entered the crossbar: waiting for an MSHR or miss-queue slot, then in the miss queue.";
/// In the network on chip.
pub const NOC: &str = "In the request and reply crossbars between SMs and memory partitions, queueing and transfer.";
/// In the memory partition.
pub const L2_ACCESS: &str = "In the memory partition: the ROP pipeline, the L2 queues and the L2 access itself.";
/// Waiting for DRAM.
pub const DRAM_QUEUE: &str = "Waiting for DRAM: the L2-to-DRAM queue and the DRAM scheduler's queue.";
/// DRAM service.
pub const DRAM_SERVICE: &str = "DRAM service: the fixed DRAM latency, row commands and the data burst.";

/// The analytical panel as a whole.
pub const ANALYTICAL: &str = "Analytical models (the MDM paper's five and warplab's own) predict the IPC from one profile of the workload (a representative warp's intervals and a functional cache pass), in a fraction of the simulation's time.";
/// GPUMech.
pub const MODEL_GPUMECH: &str = "GPUMech (Huang et al., MICRO 2014) as the MDM paper evaluates it: a multi-warp interval model; MSHR waits with the bare memory latency, and each request waits at DRAM for half of all the requests the SMs have in flight; no NoC queue.";
/// GPUMech+.
pub const MODEL_GPUMECH_PLUS: &str =
    "GPUMech+: GPUMech with the same half-of-all-requests queue on the NoC, and MSHR waits that include the queueing.";
/// MDM-Queue.
pub const MODEL_MDM_QUEUE: &str = "MDM-Queue: GPUMech+ with MDM's NoC and DRAM contention model: a memory-divergent interval on a saturated link waits for the whole drain.";
/// MDM-MSHR.
pub const MODEL_MDM_MSHR: &str = "MDM-MSHR: GPUMech+ with MDM's MSHR model: requests beyond the MSHRs wait in batches, on memory-divergent intervals only.";
/// MDM.
pub const MODEL_MDM: &str =
    "MDM (Wang et al., MICRO 2020): MDM's MSHR batching and its NoC/DRAM contention model together.";
/// warplab's M/D/1 variant.
pub const MODEL_GPUMECH_MD1: &str = "GPUMech M/D/1 (warplab's variant, not in the papers): GPUMech+ whose NoC and DRAM queues are M/D/1 queues at the wave's arrival rate, which gives it a bandwidth floor.";
/// warplab's MDM with throughput floors.
pub const MODEL_MDM_LIMITS: &str = "MDM + limits (warplab's extension, not in the papers): MDM, with each wave raised to the time its busiest throughput-limited part needs (L1 lookups through the LD/ST unit, an execution-unit class, the busiest L2 slice, the NoC and DRAM at full bandwidth). The work comes from the profile's functional pass, the rates from the config; what a floor adds is its own part of the CPI stack.";
/// warplab's core model, the one the IPC strip leads with.
pub const MODEL_WARPLAB: &str = "warplab core model (warplab's own, not in the papers): MDM's memory-divergence terms (GPUMech's interval analysis of a representative warp, MSHR batching) plus the stalls GCoM (Lee et al., ISCA 2022) found MDM-class models leave out, each its own part of the CPI stack: loads waiting for another warp's fill in flight, barriers that keep a CTA's warps in step, structural stalls (the busiest part of the GPU, per sub-core) and idle stalls (the slowest warp, the last partial wave). The IPC strip at the top leads with it.";
/// The box that hides warplab's extensions.
pub const PAPER_MODELS_ONLY: &str = "Show only the MDM paper's five models (GPUMech, GPUMech+, MDM-Queue, MDM-MSHR, MDM), without warplab's models beyond the paper (GPUMech M/D/1, MDM + limits, the warplab core model). A share link keeps the choice.";
/// A model's error.
pub const MODEL_ERROR: &str = "The model's error against the timing model's IPC for the same workload and config: 100 × (model − simulated) / simulated; positive means the model is optimistic.";

/// The CPI stack as a whole.
pub const CPI_STACK: &str =
    "Where each model says an SM's cycles go, per warp instruction: the parts add up to the model's CPI.";
/// The base CPI term.
pub const CPI_BASE: &str = "Issuing itself: the cycles per instruction when every stall is hidden by other warps.";
/// The issue CPI term.
pub const CPI_ISSUE: &str = "Issue and dependence stalls the other warps do not hide: arithmetic latencies and the loads' latency without contention.";
/// The in-flight-fill CPI term.
pub const CPI_PENDING: &str = "warplab core model only: loads that hit a sector another warp's miss is still fetching (a hit on a pending fill, GPGPU-Sim's HIT_RESERVED) send nothing, but wait for that fill.";
/// The barrier CPI term.
pub const CPI_BARRIER: &str = "warplab core model only: what barriers add: a CTA's warps leave each barrier together, so they stall together, and the scheduler overlaps its CTAs rather than its warps.";
/// The exit CPI term.
pub const CPI_EXIT: &str = "warplab core model only: a warp is done only once the stores it sent last are acknowledged, so the SM's warps, which reach their exit together, wait there while their stores leave the LD/ST unit one a cycle and make the round trip to the L2 (or DRAM); their CTA's slot stays taken until then.";
/// The MSHR CPI term.
pub const CPI_MSHR: &str = "Waiting for an L1 MSHR: misses beyond the MSHRs wait for earlier ones to return.";
/// The NoC CPI term.
pub const CPI_NOC: &str = "Queueing in the interconnect (NoC) between the SMs and the memory partitions.";
/// The DRAM CPI term.
pub const CPI_DRAM: &str = "Queueing at DRAM for the requests that miss the L2.";
/// The LD/ST-unit floor.
pub const CPI_LDST: &str = "MDM + limits and the warplab core model only: what the LD/ST unit's throughput adds. Each cycle it sends a warp's L1 accesses in order, one per L1 bank, until two want the same bank; shared-memory bank conflicts and accesses past the L1 also take a cycle each.";
/// The execution-unit floor.
pub const CPI_UNITS: &str = "MDM + limits and the warplab core model only: what the execution units add: the busiest class's initiation intervals over the SM's units of that class, or the instructions over the operand collector's ports and dispatch units (one instruction a cycle each), whichever binds.";
/// The L2-slice floor.
pub const CPI_L2_SLICE: &str = "MDM + limits and the warplab core model only: what the busiest L2 slice adds at one access per L2 cycle, or per packet its crossbar port moves if that is slower (atomics to one address all go to one slice).";
/// "MDM + limits"' kernel-wide floor.
pub const CPI_SLOWEST_WARP: &str = "MDM + limits and the warplab core model only: what the kernel's slowest warp adds: no kernel ends before its slowest warp could alone on an idle GPU (its instructions, its stalls and its misses' no-contention latencies), after the launch latency.";
/// The NoC-bandwidth floor.
pub const CPI_NOC_BANDWIDTH: &str = "MDM + limits and the warplab core model only: what moving every request's block over the NoC at its full bandwidth adds beyond the other terms.";
/// The DRAM-bandwidth floor.
pub const CPI_DRAM_BANDWIDTH: &str = "MDM + limits and the warplab core model only: what moving every DRAM sector at DRAM's full bandwidth adds beyond the other terms.";
/// The kernel-start CPI term: the launch latency, and the core model's
/// cold code (`fetch` in the JSON).
pub const CPI_LAUNCH: &str = "The kernel's start, spread over its instructions: the launch latency the config charges to every kernel and, in the warplab core model (the JSON's fetch term), the wait for each line of its code the L1 instruction cache does not hold, which stops a wave's warps while the first to reach it fetches it from the L2 (or DRAM, for code no earlier kernel fetched); none with a perfect instruction cache.";

/// What MDM leaves out, the warplab core model adds: waits for fills in flight.
pub const MDM_MISSES_PENDING: &str = "Memory data stalls from fills in flight (CPI: in-flight fill): a load that hits a sector another warp's miss is still fetching waits for that fill, which MDM counts as a hit.";
/// What MDM leaves out: queueing as far as the load implies.
pub const MDM_MISSES_BARRIER: &str = "Synchronisation stalls at barriers (CPI: barrier): a CTA's warps leave each barrier together and stall on the same loads together, so only other CTAs hide those stalls, where MDM lets every warp hide every other's.";
/// What MDM leaves out: structural stalls.
pub const MDM_MISSES_STRUCTURAL: &str = "Structural stalls (CPI: LD/ST unit, units, L2 slice, NoC bandwidth, DRAM bandwidth): a wave cannot end before its busiest part (the LD/ST unit and L1 banks, the execution units and operand collector of each sub-core, the busiest L2 slice, the NoC and DRAM at full bandwidth) has done its work.";
/// What MDM leaves out: idle stalls.
pub const MDM_MISSES_IDLE: &str = "Idle stalls (CPI: stores at exit, slowest warp, kernel start): a wave's CTAs hold their slots until their warps' last stores are acknowledged, a kernel cannot end before its slowest warp, a last, partial wave takes as long as its busiest SM, and where the instruction cache is not perfect a kernel's warps first wait for the lines of its code it does not hold.";

/// Memory divergence.
pub const MD: &str = "Memory-divergent (MD): some interval has more read misses in flight per SM than the L1 has MSHRs (or, with a streaming L1, saturates the NoC); the share is of the representative warp's instructions in such intervals. NMD: none.";
/// Divergent loads per kilo-instruction.
pub const DPKI: &str = "Divergent loads per 1,000 warp instructions: global loads whose lanes touch more 128-byte lines than their data needs.";
/// Resident warps per SM.
pub const WARPS_PER_SM: &str = "W: warps resident on an SM in a full wave of CTAs.";
/// CTA waves.
pub const WAVES: &str = "Waves: how many rounds of CTAs the grid takes when every SM holds as many as fit.";
/// The L1 miss rate.
pub const L1_MISS_RATE: &str = "Share of L1 read sectors that missed, from the profile's functional cache pass.";
/// The L2 miss rate.
pub const L2_MISS_RATE: &str = "Share of L2 accesses that missed, from the profile's functional cache pass.";
/// The config knobs.
pub const CONFIG_KNOBS: &str = "Change the experiment's GPU: each move previews the models at once (bandwidths and clocks on the same profile, in well under a millisecond; the SM count and MSHRs on a profile taken again), and when the slider rests the change becomes a config edit that the simulation and the link follow.";

/// The scale panel as a whole.
pub const SCALE_PANEL: &str = "Predict a large GPU's IPC from two small, proportionally scaled-down copies of it (SeyyedAghaei, Naderan-Tahan and Eeckhout, HPCA 2024): simulate the two scale models, take the L2 miss-rate curve over every size, and extrapolate.";
/// A scale model.
pub const SCALE_MODEL: &str = "A scale model of factor F: the target GPU with its SMs, L2 capacity (slices), NoC bandwidth and DRAM bandwidth (channels) divided by F, and every per-SM resource (L1, MSHRs, warps, registers) kept.";
/// What a scale model divides.
pub const SCALE_DIVIDED: &str = "Shared by all SMs, so divided by the scale factor: SMs, L2 slices and capacity, NoC and DRAM bandwidth, memory channels.";
/// What a scale model keeps.
pub const SCALE_KEPT: &str = "Per SM, so kept as the target has them: L1 data cache, MSHRs, resident warps.";
/// The scale factor.
pub const SCALE_FACTOR: &str =
    "The target's SMs over this system's: its shared resources are the target's divided by this.";
/// The target size.
pub const SCALE_TARGET: &str =
    "The system size predicted: the loaded config, or a smaller size of the doubling series (quicker to validate).";
/// The miss-rate curve.
pub const MISS_CURVE: &str = "L2 misses per 1,000 thread instructions (MPKI) at every size of the series, from one functional pass of the workload through every size's L2 at once: much faster than simulating each size.";
/// MPKI in the scale model's sense.
pub const SCALE_MPKI: &str = "L2 MPKI: L2 sector misses per 1,000 thread instructions, the published data's unit (the cliff test depends on it).";
/// The miss-rate cliff.
pub const CLIFF: &str = "Cliff: the size at which the L2 MPKI falls by more than half in one doubling, because the working set starts to fit. Past it memory stalls vanish, so the prediction divides by (1 − f_mem) of the larger scale model there.";
/// f_mem as the scale model uses it.
pub const SCALE_F_MEM: &str = "f_mem of the larger scale model: the share of its cycles in which every warp waited on memory; the cliff formula assumes those stalls disappear once the working set fits.";
/// The scaling chart.
pub const SCALING_CHART: &str = "IPC against SM count, each doubling one step: the two simulated scale models, every method's prediction from them, and the simulated truth where known.";
/// The scale-model method.
pub const METHOD_SCALE_MODEL: &str = "Scale-Model: doubling IPC at each step, corrected by how far the second scale model fell short of doubling the first, with the cliff formula at a miss-rate cliff.";
/// The power-law baseline.
pub const METHOD_POWER_LAW: &str = "Power law a·x^b through the two scale models.";
/// The linear baseline.
pub const METHOD_LINEAR: &str = "A straight line a·x + b through the two scale models.";
/// The logarithmic baseline.
pub const METHOD_LOGARITHMIC: &str = "Logarithmic c + d·ln x through the two scale models.";
/// The proportional baseline.
pub const METHOD_PROPORTIONAL: &str =
    "Proportional: the smaller scale model's IPC times the size ratio, as if IPC grew with the SMs.";
/// The simulated truth.
pub const SIMULATED_TRUTH: &str =
    "The timing model's IPC at that size (the published simulation for the paper's benchmarks).";
/// The two scale models' simulated points.
pub const SCALE_MODEL_POINTS: &str = "The two scale models, simulated: every prediction starts from these.";
/// The reference rule.
pub const RULE_REFERENCE: &str = "The reference tool's rule: the correction compounds with each doubling; it reproduces the paper's published errors.";
/// The paper's printed rule.
pub const RULE_PAPER: &str =
    "The rule the paper prints: one correction factor C = (IPC_L / IPC_S) / (L / S) applied once.";
/// A prediction's error in the scale tables.
pub const SCALE_ERROR: &str =
    "Absolute error against the simulated IPC: |predicted − simulated| / simulated × 100, as the paper reports it.";
/// The speedup of predicting.
pub const SCALE_SPEEDUP: &str =
    "Wall time of simulating the target over that of the two scale models and the miss-rate curve, in this browser.";
/// Both rules shown side by side.
pub const RULE_BOTH: &str = "The same two scale models extrapolated by the other rule: the reference tool's compounding correction or the paper's printed one-time correction. Both come from the same measurements; the switch above chooses which the page leads with.";
/// The launch latency left out of the IPCs compared.
pub const SCALE_LAUNCH_LATENCY: &str = "The kernel launch latency (-gpgpu_kernel_launch_latency) is a fixed number of cycles per launch at every GPU size, so it is a larger share of a fast large GPU's run; a scale model cannot measure it, so the scale models', the targets' and the compared simulation's IPCs all leave it out.";
/// Write-backs per kilo-instruction.
pub const SCALE_WRITE_BACKS: &str = "DRAM writes per 1,000 thread instructions at each simulated size. A write-back L2 writes dirty lines to DRAM only when it is too small to keep them, so a smaller LLC can write more; the read-miss curve does not see it, and the page warns when it changes by more than 1.5× across sizes.";
/// Weak scaling.
pub const WEAK_SCALING: &str = "Weak scaling: each size runs its share of the work (a generated workload's size times its SMs over the target's), as the paper's weak-scaling workflow does: no miss-rate curve, the pre-cliff rule only, and the speedup is the target's simulation time over the two scale models'.";
/// The shortfall b.
pub const SCALE_SHORTFALL: &str = "b = (IPC₂ₛ − 2·IPCₛ) / IPC₂ₛ: the share of the larger scale model's IPC by which it missed doubling the smaller one's (negative: it fell short, the usual case; positive: it more than doubled). The scale-model rule carries this correction to the larger sizes.";

/// A warp.
pub const WARP: &str = "A warp: 32 threads that an SM schedules together, issuing one instruction for all of them at a time; lanes a branch switches off sit idle.";
/// A CTA.
pub const CTA: &str = "A CTA (cooperative thread array, a thread block): warps that run on one SM together and may share memory and barriers; the grid is handed out to SMs one CTA at a time.";
/// Coalescing.
pub const COALESCING: &str = "Coalescing: the SM merges a warp's 32 addresses into as few 32-byte sector accesses as they touch; scattered addresses make many accesses out of one instruction.";
/// Memory divergence, the idea.
pub const MEMORY_DIVERGENCE: &str = "Memory divergence: a warp's load touches many different lines, so one instruction needs many misses (and MSHRs) at once and waits for the slowest.";
/// The GTO scheduler.
pub const SCHEDULER_GTO: &str = "GTO (greedy then oldest): a warp scheduler keeps issuing from the same warp until it stalls, then picks the oldest ready warp.";
/// The LRR scheduler.
pub const SCHEDULER_LRR: &str =
    "LRR (loose round robin): a warp scheduler takes the ready warps in turn, one instruction each.";
/// The two-level scheduler.
pub const SCHEDULER_TWO_LEVEL: &str = "Two-level: a warp scheduler issues from a small active set of warps and swaps a warp out when it waits on a long-latency load.";
/// The correction factor.
pub const CORRECTION_FACTOR: &str = "Correction factor: how far the larger scale model's IPC missed doubling the smaller one's; the scale-model prediction applies it to every further doubling.";
/// The configuration panel.
pub const CONFIG_PANEL: &str = "The GPU configuration: a bundled preset or your gpgpusim.config files, read as GPGPU-Sim reads them, grouped by part of the GPU.";
/// The workload panel.
pub const WORKLOAD_PANEL: &str = "The workload: a teaching kernel generated in the browser or an Accel-Sim trace (a sample or your files), run by every model on the page.";
/// The simulation panel.
pub const RUN_PANEL: &str = "The timing model: a cycle-level simulation of the workload on the configured GPU, run in a Web Worker and shown cycle by cycle.";
/// The animation.
pub const ANIMATION_PANEL: &str = "The animation: every SM with its warps coloured (and lettered) by state, the memory system's queues, and IPC over time, at the cycle shown.";
/// The report.
pub const REPORT_PANEL: &str = "The report: what the timing model measured (IPC, issue slots, cache outcomes, MSHR occupancy, miss latency) over the cycles simulated so far.";
/// Photon's sampled simulation.
pub const PHOTON_SAMPLING: &str = "Photon sampling (Liu, Sun and Carlson, MICRO 2023): the timing model analyses 1% of each kernel's warps at launch, then skips a kernel like one already simulated (kernel level), or simulates in detail only until the warps' (warp level) or basic blocks' (basic-block level) times are stable and predicts the rest. Faster, at some IPC error; \"Run in full to compare\" measures both.";
/// The level a kernel was sampled at.
pub const SAMPLE_LEVEL: &str = "The level a kernel was simulated at: detailed (every warp), kernel (not simulated: the IPC of the nearest similar kernel), warp or bb (detailed until stable, then predicted per warp or per basic block).";
/// The distance between two kernels' basic-block vectors.
pub const BBV_DISTANCE: &str = "Distance between two kernels' GPU basic-block vectors (0: the same mix of blocks, 2: nothing in common); below 0.05 a kernel reuses the nearer one's IPC.";

/// Every entry of the glossary: the term, its anchor id (the page prefixes
/// `glossary-`) and its explanation, in the order the page lists them.
pub const ENTRIES: &[(&str, &str, &str)] = &[
    // What the page is made of.
    ("Workload", "workload", WORKLOAD_PANEL),
    ("GPU configuration", "config", CONFIG_PANEL),
    ("Timing model", "simulation", RUN_PANEL),
    ("Animation", "animation", ANIMATION_PANEL),
    ("Report", "report", REPORT_PANEL),
    // GPU basics.
    ("Warp", "warp", WARP),
    ("CTA", "cta", CTA),
    ("Coalescing", "coalescing", COALESCING),
    ("Memory divergence", "memory-divergence", MEMORY_DIVERGENCE),
    ("MSHR", "mshr", MSHR),
    ("Chiplet", "chiplet", CHIPLET),
    ("GTO scheduler", "gto", SCHEDULER_GTO),
    ("LRR scheduler", "lrr", SCHEDULER_LRR),
    ("Two-level scheduler", "two-level", SCHEDULER_TWO_LEVEL),
    // The report's metrics.
    ("IPC", "ipc", IPC),
    ("Warp IPC", "warp-ipc", WARP_IPC),
    ("Cycles", "cycles", CYCLES),
    ("Thread instructions", "thread-instructions", THREAD_INSTS),
    ("Warp instructions", "warp-instructions", WARP_INSTS),
    ("f_mem", "f-mem", F_MEM),
    ("MPKI", "mpki", L2_MPKI),
    ("Bank-conflict cycles", "bank-conflicts", BANK_CONFLICTS),
    ("Remote L2 requests", "remote-share", REMOTE_SHARE),
    ("Links busy", "links-busy", LINK_BUSY),
    ("Issue slots", "issue-slots", ISSUE_SLOTS),
    ("Issued", "issued", ISSUED),
    ("Memory stall", "stall-memory", STALL_MEMORY),
    ("Dependence stall", "stall-dependence", STALL_DEPENDENCE),
    ("Barrier stall", "stall-barrier", STALL_BARRIER),
    ("Fetch stall", "stall-fetch", STALL_FETCH),
    ("Structural stall", "stall-structural", STALL_STRUCTURAL),
    ("No warp", "no-warp", NO_WARP),
    ("Cache outcomes", "cache-outcomes", CACHE_OUTCOMES),
    ("Hit", "hit", HIT),
    ("Hit reserved", "hit-reserved", HIT_RESERVED),
    ("Miss", "miss", MISS),
    ("Sector miss", "sector-miss", SECTOR_MISS),
    ("Reservation fail", "reservation-fail", RESERVATION_FAIL),
    ("MSHR occupancy", "mshr-occupancy", MSHR_OCCUPANCY),
    ("L1-miss latency", "miss-latency", MISS_LATENCY),
    ("MSHR wait", "mshr-wait", MSHR_WAIT),
    ("NoC", "noc", NOC),
    ("L2 access", "l2-access", L2_ACCESS),
    ("DRAM queue", "dram-queue", DRAM_QUEUE),
    ("DRAM service", "dram-service", DRAM_SERVICE),
    // The analytical models.
    ("Analytical models", "analytical", ANALYTICAL),
    ("GPUMech", "gpumech", MODEL_GPUMECH),
    ("GPUMech+", "gpumech-plus", MODEL_GPUMECH_PLUS),
    ("MDM-Queue", "mdm-queue", MODEL_MDM_QUEUE),
    ("MDM-MSHR", "mdm-mshr", MODEL_MDM_MSHR),
    ("MDM", "mdm", MODEL_MDM),
    ("GPUMech M/D/1", "gpumech-md1", MODEL_GPUMECH_MD1),
    ("MDM + limits", "mdm-limits", MODEL_MDM_LIMITS),
    ("warplab core model", "warplab", MODEL_WARPLAB),
    ("MDM leaves out: fills in flight", "mdm-misses-pending", MDM_MISSES_PENDING),
    ("MDM leaves out: barriers", "mdm-misses-barrier", MDM_MISSES_BARRIER),
    ("MDM leaves out: structural stalls", "mdm-misses-structural", MDM_MISSES_STRUCTURAL),
    ("MDM leaves out: idle stalls", "mdm-misses-idle", MDM_MISSES_IDLE),
    ("The MDM paper's models only", "paper-models-only", PAPER_MODELS_ONLY),
    ("Model error", "model-error", MODEL_ERROR),
    ("CPI stack", "cpi-stack", CPI_STACK),
    ("CPI: base", "cpi-base", CPI_BASE),
    ("CPI: issue", "cpi-issue", CPI_ISSUE),
    ("CPI: in-flight fill", "cpi-pending", CPI_PENDING),
    ("CPI: barrier", "cpi-barrier", CPI_BARRIER),
    ("CPI: stores at exit", "cpi-exit", CPI_EXIT),
    ("CPI: MSHR", "cpi-mshr", CPI_MSHR),
    ("CPI: NoC", "cpi-noc", CPI_NOC),
    ("CPI: DRAM", "cpi-dram", CPI_DRAM),
    ("CPI: LD/ST unit", "cpi-ldst", CPI_LDST),
    ("CPI: units", "cpi-units", CPI_UNITS),
    ("CPI: L2 slice", "cpi-l2-slice", CPI_L2_SLICE),
    ("CPI: slowest warp", "cpi-slowest-warp", CPI_SLOWEST_WARP),
    ("CPI: NoC bandwidth", "cpi-noc-bandwidth", CPI_NOC_BANDWIDTH),
    ("CPI: DRAM bandwidth", "cpi-dram-bandwidth", CPI_DRAM_BANDWIDTH),
    ("CPI: kernel start", "cpi-launch", CPI_LAUNCH),
    ("MD / NMD", "md", MD),
    ("DPKI", "dpki", DPKI),
    ("Warps per SM", "warps-per-sm", WARPS_PER_SM),
    ("Waves", "waves", WAVES),
    ("L1 miss rate", "l1-miss-rate", L1_MISS_RATE),
    ("L2 miss rate", "l2-miss-rate", L2_MISS_RATE),
    ("Config knobs", "config-knobs", CONFIG_KNOBS),
    // Scale models.
    ("Scale-model prediction", "scale-panel", SCALE_PANEL),
    ("Scale model", "scale-model", SCALE_MODEL),
    ("Divided resources", "scale-divided", SCALE_DIVIDED),
    ("Kept resources", "scale-kept", SCALE_KEPT),
    ("Scale factor", "scale-factor", SCALE_FACTOR),
    ("Target size", "scale-target", SCALE_TARGET),
    ("Miss-rate curve", "miss-curve", MISS_CURVE),
    ("L2 MPKI (scale models)", "scale-mpki", SCALE_MPKI),
    ("Cliff", "cliff", CLIFF),
    ("f_mem (scale models)", "scale-f-mem", SCALE_F_MEM),
    ("Both rules", "rule-both", RULE_BOTH),
    ("Launch latency (scale models)", "scale-launch-latency", SCALE_LAUNCH_LATENCY),
    ("DRAM writes per kilo-instruction", "scale-write-backs", SCALE_WRITE_BACKS),
    ("Weak scaling", "weak-scaling", WEAK_SCALING),
    ("Correction factor", "correction-factor", CORRECTION_FACTOR),
    ("Shortfall b", "scale-shortfall", SCALE_SHORTFALL),
    ("Scaling chart", "scaling-chart", SCALING_CHART),
    ("Scale-Model method", "method-scale-model", METHOD_SCALE_MODEL),
    ("Power law", "method-power-law", METHOD_POWER_LAW),
    ("Linear", "method-linear", METHOD_LINEAR),
    ("Logarithmic", "method-logarithmic", METHOD_LOGARITHMIC),
    ("Proportional", "method-proportional", METHOD_PROPORTIONAL),
    ("Simulated truth", "simulated-truth", SIMULATED_TRUTH),
    ("Scale models (simulated)", "scale-model-points", SCALE_MODEL_POINTS),
    ("Reference rule", "rule-reference", RULE_REFERENCE),
    ("Paper rule", "rule-paper", RULE_PAPER),
    ("Prediction error", "scale-error", SCALE_ERROR),
    ("Speedup", "scale-speedup", SCALE_SPEEDUP),
    // Sampled simulation.
    ("Photon sampling", "photon-sampling", PHOTON_SAMPLING),
    ("Sampling level", "sample-level", SAMPLE_LEVEL),
    ("BBV distance", "bbv-distance", BBV_DISTANCE),
];

/// The element id of the glossary entry `id` (an id of [`ENTRIES`]).
pub fn anchor(id: &str) -> String {
    format!("glossary-{id}")
}

/// The explanation of `model`, for hovering its name.
pub fn model(model: ModelKind) -> &'static str {
    match model {
        ModelKind::GpuMech => MODEL_GPUMECH,
        ModelKind::GpuMechPlus => MODEL_GPUMECH_PLUS,
        ModelKind::MdmQueue => MODEL_MDM_QUEUE,
        ModelKind::MdmMshr => MODEL_MDM_MSHR,
        ModelKind::Mdm => MODEL_MDM,
        ModelKind::GpuMechMd1 => MODEL_GPUMECH_MD1,
        ModelKind::MdmLimits => MODEL_MDM_LIMITS,
        ModelKind::Warplab => MODEL_WARPLAB,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// This file's text, to find every constant it declares.
    const SOURCE: &str = include_str!("glossary.rs");

    #[test]
    fn every_explanation_is_an_entry_once() {
        let (declared, table) = SOURCE.split_once("pub const ENTRIES").unwrap_or_default();
        let names: Vec<&str> = declared
            .lines()
            .filter_map(|line| line.strip_prefix("pub const "))
            .filter_map(|rest| rest.split(':').next())
            .collect();
        assert!(names.len() > 80, "{} constants found", names.len());
        for name in &names {
            assert_eq!(table.matches(&format!(", {name}),")).count(), 1, "{name} is not in ENTRIES once");
        }
        assert_eq!(ENTRIES.len(), names.len(), "ENTRIES has an entry that is no constant");
        let ids: HashSet<&str> = ENTRIES.iter().map(|(_, id, _)| *id).collect();
        let terms: HashSet<&str> = ENTRIES.iter().map(|(term, _, _)| *term).collect();
        assert_eq!((ids.len(), terms.len()), (ENTRIES.len(), ENTRIES.len()), "ids and terms are unique");
        assert!(ids.iter().all(|id| id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')));
    }

    #[test]
    fn the_asked_for_terms_are_explained() {
        for id in [
            "mshr",
            "f-mem",
            "mpki",
            "cpi-base",
            "cpi-issue",
            "cpi-mshr",
            "cpi-noc",
            "cpi-dram",
            "cpi-launch",
            "cliff",
            "scale-model",
            "correction-factor",
            "ipc",
            "warp",
            "cta",
            "coalescing",
            "memory-divergence",
            "gto",
            "lrr",
            "two-level",
        ] {
            assert!(ENTRIES.iter().any(|(_, entry, _)| *entry == id), "{id}");
        }
        assert_eq!(anchor("mshr"), "glossary-mshr");
    }
}
