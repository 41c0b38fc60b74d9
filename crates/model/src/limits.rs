//! "MDM + limits", warplab's extension beyond the papers: throughput floors
//! under MDM's cycles for the parts that serve one request (or instruction)
//! at a time, which neither GPUMech nor MDM models but a timing model meets.
//!
//! A wave cannot end sooner than its busiest such part can do the wave's
//! work, so the extension's wave takes `max(MDM's cycles, every floor)`; the
//! cycles a floor adds are charged to that floor's own CPI term, so the stack
//! says which resource bounds the kernel. The floors, per wave:
//!
//! | floor | work | rate (from the config) |
//! |---|---|---|
//! | LD/ST unit | the SM's warps' L1 lookups, sent in order one per bank per cycle up to the first bank conflict; shared-memory bank conflicts; accesses past the L1 one per cycle | one cycle per step |
//! | execution units | each class's initiation intervals; every pipeline's instructions through the operand collector | the SM's units of that class; for every set of pipelines, the fewer of the collector's input ports and dispatch units that serve it |
//! | L2 slice | the busiest slice's accesses (same-address atomics all land on one) | one per L2 cycle, and its crossbar port's packet in and packet out (`Interconnect::port_cycles` interconnect cycles each) |
//! | NoC | GPGPU-Sim's own crossbar: every request, a packet a cycle in each direction; BookSim: the requests of the busier direction (reads' replies, writes' data) | `B_NoC` per L1 block (Eq. 7's service) |
//! | DRAM | sectors read and written | `B_DRAM` |
//!
//! And one floor for the whole kernel, not a rate: it cannot end before its
//! slowest warp could alone on an idle GPU, after the launch latency (a
//! kernel whose warps mostly exit at once but one walks a long chain of
//! dependent loads, as `bfs`' early levels do, is that warp's time). The
//! profile keeps the paths that could be the slowest ([`PathTime`]).
//!
//! The work comes from the profile's functional pass (what the trace and the
//! config imply), never from a run; the rates are the config's peaks, so a
//! floor is a bound the simulator can reach but not beat.

use serde::{Deserialize, Serialize};
use warplab_config::{GpuConfig, NetworkMode};
use warplab_uarch::cache::SECTOR_BYTES;
use warplab_uarch::coalescer::SectorAccess;
use warplab_uarch::dispatch::{CollectorPort, Pipe, collector_ports};
use warplab_uarch::latency::in_core_cycles;
use warplab_uarch::ops::{N_UNIT_CLASSES, unit_class, unit_index};

use crate::machine::{Machine, full_rate};
use crate::predict::wait_for_last_write;
use crate::profile::{Interval, KernelProfile};

/// What all of one kernel's warps ask of the throughput-limited parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelWork {
    /// Cycles the memory instructions hold their SM's LD/ST unit.
    pub ldst_cycles: u64,
    /// Per execution-unit class (`warplab_uarch::ops` dense index): the
    /// initiation intervals of the instructions issued to it, summed.
    pub unit_cycles: Vec<u64>,
    /// Per pipeline (the unit classes' dense index, then [`MEMORY_PIPE`]):
    /// the instructions, each of which passes the operand collector.
    #[serde(default)]
    pub pipe_insts: Vec<u64>,
    /// L2 accesses at the slice that takes the most.
    pub busiest_slice_accesses: u64,
    /// Barrier instructions (`BAR`) the kernel's warps execute.
    #[serde(default)]
    pub barriers: u64,
    /// The paths that could be the slowest warp's ([`slowest_paths`]).
    #[serde(default)]
    pub slowest_paths: Vec<PathTime>,
    /// What the chiplet links add to a request's round trip to the L2, on
    /// average over the kernel's requests past the L1: each crosses from
    /// its SM's chiplet to its address's home and back (`cache_pass.rs`'
    /// `Links`); 0 on a monolithic GPU.
    #[serde(default)]
    pub link_round_trip: f64,
    /// The bytes the kernel's requests and replies put on the busiest
    /// chiplet link (`cache_pass.rs`' `Links`); 0 on a monolithic GPU.
    #[serde(default)]
    pub busiest_link_bytes: u64,
    /// The share of DRAM's nominal rate its channels keep under this
    /// kernel's requests with full queues (`dram_rate.rs`); 1 without
    /// requests, and in profiles written before it existed.
    #[serde(default = "full_rate")]
    pub dram_share: f64,
    /// The representative warp's write requests still in flight when it
    /// reaches its exit: those sent after its last stall on a load that can
    /// miss. A warp is done only once its stores are acknowledged
    /// (GPGPU-Sim's `shd_warp_t::stores_done`), and its CTA's slot is free
    /// only once all its warps are; 0 in profiles written before it existed.
    #[serde(default)]
    pub exit_writes: f64,
    /// The cycles the representative warp runs alone after the interval of
    /// its last write: time its writes have to come back before its exit.
    #[serde(default)]
    pub after_last_write: f64,
    /// The share of the kernel's write requests the L2 sends on to DRAM
    /// (write-through, or a naive write-allocate miss): DRAM, not the L2,
    /// acknowledges them; 0 in profiles written before it existed.
    #[serde(default)]
    pub writes_to_dram: f64,
    /// The lines of the representative warp's code that were not in the L1
    /// instruction cache when the kernel started (`code_fetch.rs`): the
    /// warps wait a round trip to the L2 for each; 0 in profiles written
    /// before it existed.
    #[serde(default)]
    pub fetch_misses: f64,
    /// Of those, the lines no earlier kernel fetched: not in the L2 either.
    #[serde(default)]
    pub fetch_llc_misses: f64,
}

impl Default for KernelWork {
    fn default() -> Self {
        Self {
            ldst_cycles: 0,
            unit_cycles: Vec::new(),
            pipe_insts: Vec::new(),
            busiest_slice_accesses: 0,
            barriers: 0,
            slowest_paths: Vec::new(),
            dram_share: full_rate(),
            exit_writes: 0.0,
            after_last_write: 0.0,
            writes_to_dram: 0.0,
            link_round_trip: 0.0,
            busiest_link_bytes: 0,
            fetch_misses: 0.0,
            fetch_llc_misses: 0.0,
        }
    }
}

/// The most paths [`slowest_paths`] keeps per kernel (a documented limit).
pub const MAX_SLOWEST_PATHS: usize = 32;

/// One path a kernel's warps take, reduced to what its time alone on an
/// idle GPU depends on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PathTime {
    /// Warp instructions.
    pub insts: f64,
    /// Stall cycles with every load at the L1 hit latency.
    pub stall: f64,
    /// Stalls that wait for an L1 miss, in expectation (each memory
    /// interval's chance).
    pub misses: f64,
    /// Of those, the ones whose request also misses the L2.
    pub llc_misses: f64,
    /// Lines of its code not in the L1 instruction cache at the kernel's
    /// start, each a round trip to the L2 (`code_fetch.rs`).
    #[serde(default)]
    pub fetch_misses: f64,
    /// Of those, the lines not in the L2 either.
    #[serde(default)]
    pub fetch_llc_misses: f64,
    /// Whether it waits at its exit for writes it sent after its last stall
    /// on a missing load (GPGPU-Sim's `stores_done`; `core_model::exit_wait`).
    #[serde(default)]
    pub exit_writes: bool,
    /// The share of its writes DRAM acknowledges ([`KernelWork::writes_to_dram`]).
    #[serde(default)]
    pub writes_to_dram: f64,
    /// The cycles it runs after its last write, which the writes' round
    /// trip overlaps.
    #[serde(default)]
    pub after_last_write: f64,
}

impl PathTime {
    /// The path whose intervals (with the cache pass's miss figures) are
    /// `intervals`, its other fields zero.
    pub(crate) fn of(intervals: &[Interval]) -> Self {
        intervals.iter().fold(Self::default(), |t, i| {
            let miss = if i.awaits_load { i.miss } else { 0.0 };
            Self {
                insts: t.insts + f64::from(i.insts),
                stall: t.stall + f64::from(i.stall_cycles),
                misses: t.misses + miss,
                llc_misses: t.llc_misses + miss * i.llc_miss,
                ..t
            }
        })
    }

    /// Cycles a warp on this path takes alone: a round trip for each line of
    /// its code not in the L1I, its instructions issued, its stalls, each
    /// miss's no-contention latency beyond the L1 hit's (MDM's single-warp
    /// time, `predict.rs`), and the wait at its exit for its last writes.
    pub(crate) fn cycles(&self, machine: &Machine) -> f64 {
        let l = &machine.latencies;
        l.round_trips(self.fetch_misses, self.fetch_llc_misses)
            + self.insts / machine.issue_rate.max(f64::MIN_POSITIVE)
            + self.stall
            + self.misses * (l.llc - l.l1_hit).max(0.0)
            + self.llc_misses * l.dram
            + self.exit_wait(machine)
    }

    /// What its last writes' round trip adds at its exit (no other warp's
    /// writes ahead of them: it runs alone).
    fn exit_wait(&self, machine: &Machine) -> f64 {
        if self.exit_writes {
            wait_for_last_write(machine, 0.0, self.writes_to_dram, self.after_last_write)
        } else {
            0.0
        }
    }

    /// At least as slow as `other` whatever the latencies.
    fn covers(&self, other: &Self) -> bool {
        self.insts >= other.insts
            && self.stall >= other.stall
            && self.misses >= other.misses
            && self.llc_misses >= other.llc_misses
            && self.fetch_misses >= other.fetch_misses
            && self.fetch_llc_misses >= other.fetch_llc_misses
            && (self.exit_writes >= other.exit_writes)
            && (!other.exit_writes
                || (self.writes_to_dram >= other.writes_to_dram && self.after_last_write <= other.after_last_write))
    }
}

/// The paths no other path covers: whatever a machine's latencies, the
/// slowest is among them. Past [`MAX_SLOWEST_PATHS`] the slowest on
/// `machine` are kept (a knob that moves the latencies far could then miss
/// the slowest; the floor is lower, never wrong).
pub(crate) fn slowest_paths(paths: impl Iterator<Item = PathTime>, machine: &Machine) -> Vec<PathTime> {
    let mut kept: Vec<PathTime> = Vec::new();
    let by_time = |kept: &mut Vec<PathTime>| {
        kept.sort_by(|a, b| b.cycles(machine).total_cmp(&a.cycles(machine)));
        kept.truncate(MAX_SLOWEST_PATHS);
    };
    for path in paths {
        if kept.iter().any(|k| k.covers(&path)) {
            continue;
        }
        kept.retain(|k| !path.covers(k));
        kept.push(path);
        if kept.len() > 4 * MAX_SLOWEST_PATHS {
            by_time(&mut kept);
        }
    }
    by_time(&mut kept);
    kept
}

/// The kernel's floor: the launch latency, then its slowest warp alone.
pub(crate) fn slowest_warp_cycles(k: &KernelProfile, machine: &Machine) -> f64 {
    let alone = k.work.slowest_paths.iter().map(|p| p.cycles(machine)).fold(0.0, f64::max);
    if alone > 0.0 { machine.launch_cycles + alone } else { 0.0 }
}

/// The floors, in the order of the CPI stack's limit terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Limit {
    Ldst,
    Units,
    L2Slice,
    Noc,
    Dram,
}

/// How many per-wave floors there are.
pub(crate) const N_LIMITS: usize = 5;

impl Limit {
    pub const ALL: [Limit; N_LIMITS] = [Self::Ldst, Self::Units, Self::L2Slice, Self::Noc, Self::Dram];
}

/// The LD/ST unit's index among the pipelines, after the unit classes.
pub const MEMORY_PIPE: usize = N_UNIT_CLASSES;
/// Pipelines: the unit classes and the LD/ST unit.
pub const N_PIPES: usize = N_UNIT_CLASSES + 1;

/// What the floors read of a GPU beyond the rest of [`Machine`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rates {
    /// Units of each class per SM (dense index).
    pub units: Vec<u32>,
    /// Core cycles per L2 cycle.
    pub l2_cycle: f64,
    /// Core cycles per interconnect cycle.
    #[serde(default)]
    pub icnt_cycle: f64,
    /// The flit a crossbar port moves a cycle under BookSim; `None` under
    /// GPGPU-Sim's own crossbar, which moves a whole packet a cycle.
    #[serde(default)]
    pub port_flit_bytes: Option<u32>,
    /// The operand collector's input ports, one instruction a cycle each,
    /// grouped by the pipelines they take: (a bit per pipeline index, ports).
    #[serde(default)]
    pub collector_ports: Vec<(u32, u32)>,
    /// Its collector-unit sets that have units: the pipelines whose ports
    /// allocate in the set, and its dispatch units (one instruction a cycle
    /// each, `-gpgpu_operand_collector_num_out_ports_<set>`).
    #[serde(default)]
    pub collector_sets: Vec<(u32, u32)>,
    /// Core cycles a chiplet link takes per byte (`-warplab_chiplet_link_gbps`,
    /// each way); 0 on a monolithic GPU.
    #[serde(default)]
    pub link_cycles_per_byte: f64,
}

impl Rates {
    /// The rates `config` gives.
    pub fn of(config: &GpuConfig) -> Self {
        let ports = collector_ports(config);
        let pipes_of = |port: &CollectorPort| port.pipes.iter().fold(0u32, |mask, &pipe| mask | 1 << pipe_index(pipe));
        let mut port_groups: Vec<(u32, u32)> = Vec::new();
        for pipes in ports.iter().map(pipes_of) {
            match port_groups.iter_mut().find(|group| group.0 == pipes) {
                Some(group) => group.1 += 1,
                None => port_groups.push((pipes, 1)),
            }
        }
        let collector_sets = config
            .units
            .operand_collector
            .built_sets()
            .filter(|set| set.units > 0)
            .map(|set| {
                let reach = ports.iter().filter(|port| port.sets.contains(&set.kind)).fold(0, |m, p| m | pipes_of(p));
                (reach, set.out_ports)
            })
            .collect();
        Self {
            units: (0..N_UNIT_CLASSES).map(|k| config.units.n_units(unit_class(k))).collect(),
            l2_cycle: in_core_cycles(config, 1.0, config.clocks.l2.khz()),
            icnt_cycle: in_core_cycles(config, 1.0, config.clocks.icnt.khz()),
            port_flit_bytes: match config.interconnect.mode {
                NetworkMode::BookSim => Some(config.interconnect.effective_flit_size_bytes().max(1)),
                NetworkMode::LocalCrossbar => None,
            },
            collector_ports: port_groups,
            collector_sets,
            link_cycles_per_byte: if config.chiplets.enabled() {
                let link = config.chiplets.link_bytes_per_second(&config.memory, &config.clocks).max(1);
                config.clocks.core.khz() as f64 * 1000.0 / link as f64
            } else {
                0.0
            },
        }
    }

    /// Core cycles an L2 slice needs per access: one L2 cycle for the
    /// access, and at its crossbar port a request of `request_bytes` in and
    /// a reply of `reply_bytes` out (the two directions are separate
    /// networks), as many interconnect cycles as each packet holds the port.
    fn slice_access_cycles(&self, request_bytes: f64, reply_bytes: f64) -> f64 {
        let port = |bytes: f64| self.port_flit_bytes.map_or(1.0, |flit| (bytes / f64::from(flit)).ceil().max(1.0));
        self.l2_cycle.max(self.icnt_cycle * port(request_bytes).max(port(reply_bytes)))
    }
}

/// A pipeline's index in [`KernelWork::pipe_insts`].
fn pipe_index(pipe: Pipe) -> usize {
    match pipe {
        Pipe::Unit(class) => unit_index(class),
        Pipe::Memory => MEMORY_PIPE,
    }
}

/// The operand collector's floor on one SM for `pipe_insts`: every issued
/// instruction enters a collector unit through an input port that takes its
/// pipeline and leaves through a dispatch unit of that unit's set, one a
/// cycle each (GPGPU-Sim's `opndcoll_rfu_t`: `allocate_cu`, then
/// `dispatch_ready_cu`), so for any set of pipelines their instructions need
/// at least as many cycles as they are over the fewer of the ports and the
/// dispatch units that serve the set. The most binding set is the floor.
fn collector_cycles(pipe_insts: &[u64], rates: &Rates) -> f64 {
    // Pipelines the same ports and sets serve are one for this bound:
    // (which ports and sets, the pipelines, their instructions).
    let mut groups = [(0u32, 0u32, 0u64); N_PIPES];
    let mut n = 0;
    for (pipe, &insts) in pipe_insts.iter().enumerate().take(N_PIPES).filter(|&(_, &insts)| insts > 0) {
        let bit = 1u32 << pipe;
        let signature = serving(bit, &rates.collector_ports) | serving(bit, &rates.collector_sets) << 16;
        if let Some(group) = groups[..n].iter_mut().find(|group| group.0 == signature) {
            group.1 |= bit;
            group.2 += insts;
        } else {
            groups[n] = (signature, bit, insts);
            n += 1;
        }
    }
    let mut worst = 0.0f64;
    for subset in 1u32..(1 << n) {
        let (pipes, insts) = groups[..n]
            .iter()
            .enumerate()
            .filter(|&(i, _)| subset & (1 << i) != 0)
            .fold((0, 0), |(pipes, insts), (_, group)| (pipes | group.1, insts + group.2));
        // Pipelines nothing serves never issue in the simulator either
        // (Accel-Sim's checks refuse such a config): no floor from them.
        let servers = servers(pipes, &rates.collector_ports).min(servers(pipes, &rates.collector_sets));
        if servers > 0 {
            worst = worst.max(insts as f64 / servers as f64);
        }
    }
    worst
}

/// Bit `i` set when the `i`-th of `groups` (a pipeline mask and a count)
/// serves a pipeline of `pipes`.
fn serving(pipes: u32, groups: &[(u32, u32)]) -> u32 {
    groups.iter().take(16).enumerate().filter(|(_, group)| group.0 & pipes != 0).fold(0, |bits, (i, _)| bits | 1 << i)
}

/// How many of `groups`' servers serve a pipeline of `pipes`.
fn servers(pipes: u32, groups: &[(u32, u32)]) -> u64 {
    groups.iter().filter(|group| group.0 & pipes != 0).map(|group| u64::from(group.1)).sum()
}

/// The L1 banks' step count for one instruction's accesses: in order, one per
/// bank per cycle, a new cycle at the first bank already taken this cycle,
/// as the timing model's LD/ST unit sends them (GPGPU-Sim 4's banked
/// `l1_latency_queue`; `crates/sim/src/sm/memory.rs`).
pub(crate) fn bank_cycles(accesses: &[SectorAccess], banks: u64) -> u64 {
    if banks <= 1 {
        return accesses.len() as u64;
    }
    let mut cycles = u64::from(!accesses.is_empty());
    let mut taken = 0u64;
    let banks = banks.min(64);
    // Every preset's bank count is a power of two: a mask, not a division
    // per access (this runs for every L1 access of the profile).
    let bank_of = |sector: u64| if banks.is_power_of_two() { sector & (banks - 1) } else { sector % banks };
    for access in accesses {
        let bank = 1u64 << bank_of(access.sector_addr / u64::from(SECTOR_BYTES));
        if taken & bank != 0 {
            cycles += 1;
            taken = 0;
        }
        taken |= bank;
    }
    cycles
}

/// Each floor's cycles for a wave with `warps_per_sm` warps on each of
/// `active_sms` SMs, in the order of [`Limit::ALL`].
pub(crate) fn floors(k: &KernelProfile, machine: &Machine, warps_per_sm: f64, active_sms: f64) -> [f64; N_LIMITS] {
    if k.warps == 0 {
        return [0.0; N_LIMITS];
    }
    // The wave's share of the kernel's work on one SM, and on the GPU.
    let per_sm = warps_per_sm / k.warps as f64;
    let per_gpu = per_sm * active_sms;
    let work = &k.work;
    let units = work
        .unit_cycles
        .iter()
        .zip(&machine.rates.units)
        .map(|(&cycles, &units)| if units > 0 { cycles as f64 / f64::from(units) } else { 0.0 })
        .fold(collector_cycles(&work.pipe_insts, &machine.rates), f64::max);
    let caches = &k.caches;
    // GPGPU-Sim's own crossbar moves a whole packet a cycle, whatever its
    // size, so each direction carries every request: reads' requests and
    // writes' data one way, reads' data and writes' acknowledgements the
    // other. Under BookSim a port moves a flit a cycle, and the busier
    // direction's data packets are what fill it.
    let requests = (caches.read_requests + caches.write_requests) as f64;
    let noc_packets = if machine.rates.port_flit_bytes.is_none() {
        requests
    } else {
        caches.read_requests.max(caches.write_requests) as f64
    };
    let sectors = requests * caches.dram_sectors_per_request;
    Limit::ALL.map(|limit| match limit {
        Limit::Ldst => work.ldst_cycles as f64 * per_sm,
        Limit::Units => units * per_sm,
        Limit::L2Slice => {
            let access =
                machine.rates.slice_access_cycles(caches.request_bytes_per_request, caches.reply_bytes_per_request);
            work.busiest_slice_accesses as f64 * per_gpu * access
        }
        // A chiplet GPU's requests also cross its links, each a part of the
        // network with its own bandwidth: the busiest bounds it too.
        Limit::Noc => {
            (noc_packets * machine.noc_service())
                .max(work.busiest_link_bytes as f64 * machine.rates.link_cycles_per_byte)
                * per_gpu
        }
        Limit::Dram => sectors * per_gpu * machine.dram_cycles(f64::from(SECTOR_BYTES)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(sector: u64) -> SectorAccess {
        SectorAccess { sector_addr: sector * u64::from(SECTOR_BYTES), byte_mask: u32::MAX, lanes: 1 }
    }

    #[test]
    fn presets_give_their_collector_ports_and_slice_ports() {
        let config = |name| warplab_config::preset(name).unwrap().config().unwrap();
        let (sp, sfu, mem) = (1u32, 1 << 3, 1 << MEMORY_PIPE);
        // mdm-pascal-28sm: one port and one dispatch unit for each of SP,
        // SFU and LD/ST (and the tensor set's, with no tensor unit).
        let pascal = Rates::of(&config("mdm-pascal-28sm"));
        for pipe in [sp, sfu, mem] {
            assert!(pascal.collector_ports.contains(&(pipe, 1)), "{:?}", pascal.collector_ports);
            assert!(pascal.collector_sets.contains(&(pipe, 1)), "{:?}", pascal.collector_sets);
        }
        assert_eq!(collector_cycles(&pipe_insts(&[(0, 300), (MEMORY_PIPE, 100)]), &pascal), 300.0);
        // Its crossbar runs at 341.797 MHz against the core's 1,400 and
        // moves a packet a cycle: 4.1 core cycles per L2 slice access.
        assert!((pascal.slice_access_cycles(8.0, 136.0) - 1_400_000.0 / 341_797.0).abs() < 1e-3);
        // SM7_QV100: eight generic ports and dispatch units for everything.
        let qv100 = Rates::of(&config("SM7_QV100"));
        assert_eq!(qv100.collector_ports.len(), 1);
        assert_eq!(qv100.collector_ports[0].1, 8);
        assert_eq!(collector_cycles(&pipe_insts(&[(0, 300), (MEMORY_PIPE, 100)]), &qv100), 50.0);
    }

    fn pipe_insts(counts: &[(usize, u64)]) -> Vec<u64> {
        let mut insts = vec![0; N_PIPES];
        for &(pipe, n) in counts {
            insts[pipe] = n;
        }
        insts
    }

    #[test]
    fn accesses_take_one_step_per_bank_until_a_conflict() {
        let four = [at(0), at(1), at(2), at(3)];
        assert_eq!(bank_cycles(&four, 1), 4);
        assert_eq!(bank_cycles(&four, 4), 1);
        // Bank 0 twice: the second starts a new cycle, and bank 1 after it
        // goes in that cycle, in order.
        assert_eq!(bank_cycles(&[at(0), at(4), at(1)], 4), 2);
        assert_eq!(bank_cycles(&[], 4), 0);
    }
}
