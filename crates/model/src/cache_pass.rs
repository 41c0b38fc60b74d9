//! The functional cache pass's L1 stage: every memory instruction of a warp
//! through its SM's L1 and the requests past it to every LLC of the pass
//! (`llc.rs`: the configured sliced L2, and for a miss-rate curve the LLCs
//! of other sizes), at the configured geometry and policies, with no timing.
//! A miss is filled the moment it is sent, so two warps touching one sector
//! count one miss and one hit (what an MSHR merge does). The order in which
//! warps take turns is `walk.rs`'s.
//!
//! What one execution sent ([`Sent`]) is summed per memory site by the
//! profile (a PC at one ordinal among the warp's memory instructions, so
//! each loop iteration apart): how often a warp's instance misses the L1,
//! how many L1 miss requests it sends (one per sector fetched: the unit an
//! L1 MSHR holds; one per line for a non-sectored L1), how many of those
//! miss the first LLC, and whether it is a divergent load.

use rustc_hash::FxHashSet;
use warplab_config::cache::WritePolicy;
use warplab_config::{GpuConfig, Topology};
use warplab_trace::{Cta, Instruction, MemSpace};
use warplab_uarch::address_map::AddressMap;
use warplab_uarch::cache::{Access, AccessKind, Cache, Eviction, SECTOR_BYTES};
use warplab_uarch::coalescer::{LINE_BYTES, SectorAccess, coalesce_atomic, coalesce_instruction, lines_touched};
use warplab_uarch::latency::{chiplet_hops, link_round_trip_cycles, ring_way};
use warplab_uarch::ops::{OpInfo, OpKind};

use crate::limits::bank_cycles;
use crate::llc::SlicedLlc;
use crate::llc_stage::{LlcOp, LlcQueue, LlcStage, SiteLlc};

/// Bytes of a request's header on the interconnect.
const HEADER_BYTES: u64 = warplab_uarch::latency::PACKET_HEADER_BYTES as u64;

/// What one memory instruction (one PC) did over all its executions.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct PcStats {
    /// Warp executions.
    pub execs: u64,
    /// Executions that sent at least one read request past the L1.
    pub missing_execs: u64,
    /// Read requests past the L1 (MSHR entries, but for `bypass_requests`).
    pub read_requests: u64,
    /// Of those, the requests that skip the L1 and take no MSHR.
    pub bypass_requests: u64,
    /// Of those, the ones that missed the L2.
    pub llc_misses: u64,
    /// Write requests past the L1.
    pub write_requests: u64,
    /// Global loads whose lanes touch more lines than their width needs.
    pub divergent: u64,
    /// Executions that waited for memory: they sent a read request, or hit
    /// a sector another warp's miss had fetched in the same round, which in
    /// a run is still on its way (GPGPU-Sim's `HIT_RESERVED`, an MSHR merge).
    pub waiting_execs: u64,
    /// Read requests that hit the L2 on a block another request fetched from
    /// DRAM in the same round: in a run they wait for that fill.
    pub llc_waits: u64,
}

/// What one warp's execution of a memory instruction sent past its L1.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Sent {
    /// Read requests (MSHR entries, but for `bypass_reads`; atomics count
    /// here too).
    pub read_requests: u64,
    /// Of those, the ones that skip the L1 (atomics, and loads past it with
    /// `-gpgpu_gmem_skip_L1D` or no L1): the timing model sends them straight
    /// into the crossbar, one a cycle (GPGPU-Sim's `ldst_unit::memory_cycle`
    /// with `bypassL1D`), so they take no L1 MSHR.
    pub bypass_reads: u64,
    /// Write requests.
    pub write_requests: u64,
    /// A global load whose lanes touch more lines than their width needs.
    pub divergent: bool,
    /// A read that hit a sector fetched in this round: in a run it waits for
    /// that fill, as a miss would.
    pub pending: bool,
}

/// The L1 side of a kernel's traffic, for the report.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Traffic {
    /// Sector reads at the L1 and those that missed.
    pub l1_reads: u64,
    pub l1_read_misses: u64,

    /// Bytes crossing the reply network and the request network.
    pub reply_bytes: u64,
    pub request_bytes: u64,
    /// Cycles the global and local accesses hold the LD/ST unit.
    pub ldst_cycles: u64,
    /// The requests past the L1s from an SM (reads, atomics, writes), and
    /// the round trips over the chiplet links they add, summed: each
    /// request's home chiplet (its address's) against its SM's.
    pub requests_from_sms: u64,
    pub link_cycles: f64,
}

/// The caches of the whole GPU: one L1 per SM, and every LLC the requests
/// past the L1s go to. The first LLC is the one whose misses the per-PC
/// figures count; the others see the same requests in the same order.
pub(crate) struct CachePass {
    l1s: Vec<Option<Cache>>,
    l1_sectored: bool,
    l1_line_bytes: u64,
    /// Banks the L1's lookups are spread over (`L1Config::lookup_banks`).
    l1_banks: u64,
    skip_l1_for_global: bool,
    write_back_local: bool,
    /// The requests past the L1s, on their way to the LLC stage.
    pub llc: LlcQueue,
    accesses: Vec<SectorAccess>,
    /// Per SM, the sectors its L1 fetched in the current round: a round
    /// stands for one memory latency, so they are still in flight.
    in_flight: Vec<FxHashSet<u64>>,
    /// On a chiplet GPU, what a request adds crossing the links.
    links: Option<Links>,

    /// The L1s' clock for LRU and FIFO order: one tick per L1 access.
    now: u64,
    pub traffic: Traffic,
}

impl Sent {
    /// The read requests that take an L1 MSHR.
    pub fn mshr_reads(&self) -> u64 {
        self.read_requests - self.bypass_reads
    }
}

impl PcStats {
    /// Adds one execution.
    pub fn record(&mut self, sent: Sent) {
        self.execs += 1;
        self.missing_execs += u64::from(sent.read_requests > 0);
        self.read_requests += sent.read_requests;
        self.bypass_requests += sent.bypass_reads;
        self.write_requests += sent.write_requests;
        self.divergent += u64::from(sent.divergent);
        self.waiting_execs += u64::from(sent.read_requests > 0 || sent.pending);
    }

    /// Adds what the site's reads found at the first LLC (the LLC stage
    /// answers after the L1 stage has moved on).
    pub fn credit(&mut self, llc: SiteLlc) {
        self.llc_misses += llc.misses;
        self.llc_waits += llc.waits;
    }
}

impl CachePass {
    /// The L1s of `config` (one per SM, with its cache string and L1
    /// policies) in front of the LLC of each of `llc_configs`.
    pub fn new(config: &GpuConfig, llc_configs: &[&GpuConfig]) -> Self {
        let dl1 = config.l1.dl1.as_ref();
        Self {
            l1s: (0..config.n_sms()).map(|_| dl1.map(Cache::new)).collect(),
            l1_sectored: dl1.is_some_and(warplab_config::CacheConfig::is_sectored),
            l1_line_bytes: dl1.map_or(LINE_BYTES, |c| u64::from(c.line_size_bytes)),
            l1_banks: u64::from(config.l1.lookup_banks()),
            skip_l1_for_global: config.l1.gmem_skip_l1d,
            write_back_local: dl1.is_some_and(|c| {
                matches!(c.write_policy, WritePolicy::WriteBack | WritePolicy::LocalWriteBackGlobalWriteThrough)
            }),
            llc: LlcQueue::new(LlcStage::new(
                llc_configs.iter().map(|c| SlicedLlc::new(c)).collect(),
                llc_configs.first().map_or(1, |c| u64::from(c.memory.l2.fetch_bytes())),
            )),
            accesses: Vec::with_capacity(64),
            in_flight: (0..config.n_sms()).map(|_| FxHashSet::default()).collect(),
            links: Links::of(config),

            now: 0,
            traffic: Traffic::default(),
        }
    }

    /// Empties every L1 and gives it the kernel's carve-out (`ways`), as the
    /// timing model does at a kernel launch; the LLCs keep their contents.
    /// The counts start again from zero: they are per kernel.
    pub fn start_kernel(&mut self, config: &GpuConfig, ways: Option<u32>) {
        if let Some(dl1) = config.l1.dl1.as_ref() {
            for l1 in &mut self.l1s {
                *l1 = Some(ways.map_or_else(|| Cache::new(dl1), |ways| Cache::with_ways(dl1, ways.max(1))));
            }
        }
        self.traffic = Traffic::default();
        if let Some(links) = &mut self.links {
            links.pair_bytes.fill(0);
        }
        self.llc.stage().start_kernel();
    }

    /// The bytes this kernel's requests and replies put on the busiest
    /// chiplet link (0 on a monolithic GPU).
    pub fn busiest_link_bytes(&self) -> u64 {
        self.links.as_ref().map_or(0, Links::busiest_link_bytes)
    }

    /// A new round of the walk: what the L1s fetched before has arrived.
    pub fn new_round(&mut self) {
        for sectors in &mut self.in_flight {
            if !sectors.is_empty() {
                sectors.clear();
            }
        }
        self.llc.push(LlcOp::NewRound);
    }

    /// A host-to-device copy that warms every LLC (`--memcpy-warms-l2`).
    pub fn warm_llcs(&mut self, address: u64, bytes: u64) {
        for llc in &mut self.llc.stage().llcs {
            llc.warm(address, bytes);
        }
    }

    /// One warp's execution of a memory instruction on SM `sm`, memory site
    /// `site` of the walk's sink; what it sent past the L1.
    pub fn access(
        &mut self,
        sm: usize,
        (cta, instruction, site): (&Cta, &Instruction, u32),
        op: OpInfo,
        space: MemSpace,
    ) -> Sent {
        let lanes = cta.lane_addresses(instruction);
        // An atomic's lanes that update the same bytes cannot share a request
        // (each is its own read-modify-write at the L2), as the timing model
        // coalesces them.
        if matches!(op.kind, OpKind::Atomic(_)) {
            coalesce_atomic(lanes, op.access_bytes, 1, &mut self.accesses);
        } else {
            coalesce_instruction(instruction, lanes, op.access_bytes, space, 1, &mut self.accesses);
        }
        let mut sent = Sent::default();
        let local = space == MemSpace::Local;
        let past_l1 = matches!(op.kind, OpKind::Atomic(_))
            || self.l1s[sm].is_none()
            || (self.skip_l1_for_global && space == MemSpace::Global);
        // Past the L1 the LD/ST unit sends one access a cycle.
        self.traffic.ldst_cycles +=
            if past_l1 { self.accesses.len() as u64 } else { bank_cycles(&self.accesses, self.l1_banks) };
        match op.kind {
            OpKind::Load(_) => {
                sent.divergent =
                    space == MemSpace::Global && is_divergent(&self.accesses, instruction, op.access_bytes);
                for i in 0..self.accesses.len() {
                    let addr = self.accesses[i].sector_addr;
                    if past_l1 {
                        self.request_read(sm, addr, site, &mut sent);
                    } else {
                        self.read_through_l1(sm, (addr, site), local, &mut sent);
                    }
                }
            }
            OpKind::Store(_) => {
                for i in 0..self.accesses.len() {
                    let SectorAccess { sector_addr, byte_mask, .. } = self.accesses[i];
                    self.write_through_l1(sm, sector_addr, byte_mask, local, &mut sent);
                }
            }
            _ => {
                // Atomics are done at the L2: each sector is a request that needs a reply.
                for i in 0..self.accesses.len() {
                    self.request_read(sm, self.accesses[i].sector_addr, site, &mut sent);
                }
            }
        }
        if past_l1 {
            sent.bypass_reads = sent.read_requests;
        }
        sent
    }

    fn tick(&mut self) -> u64 {
        self.now += 1;
        self.now
    }

    fn read_through_l1(&mut self, sm: usize, (addr, site): (u64, u32), local: bool, sent: &mut Sent) {
        let now = self.tick();
        let Some(l1) = self.l1s.get_mut(sm).and_then(Option::as_mut) else {
            self.request_read(sm, addr, site, sent);
            return;
        };
        self.traffic.l1_reads += 1;
        let access = Access { addr, kind: AccessKind::Read, byte_mask: u32::MAX, local };
        // The miss's fill at once, with the one look-up: `fetch` is in
        // `addr`'s line and sector, and the set index depends only on the
        // line, so this is `commit` followed by `fill(fetch, now)`.
        let (effect, filled) = l1.commit_filled_at(&access, addr, now);
        let fetch =
            if self.l1_sectored { addr & !u64::from(SECTOR_BYTES - 1) } else { addr & !(self.l1_line_bytes - 1) };
        if !effect.fetch {
            // One pending sector makes the execution wait; once it does, the
            // rest need no look-up.
            if !sent.pending {
                sent.pending = self.in_flight[sm].contains(&fetch);
            }
            return;
        }
        self.in_flight[sm].insert(fetch);
        self.traffic.l1_read_misses += 1;
        self.request_read(sm, fetch, site, sent);
        if let Some(eviction) = effect.eviction {
            self.write_back_l1(eviction);
        }
        if let Some(eviction) = filled {
            self.write_back_l1(eviction);
        }
    }

    fn write_through_l1(&mut self, sm: usize, addr: u64, byte_mask: u32, local: bool, sent: &mut Sent) {
        let now = self.tick();
        let access = Access { addr, kind: AccessKind::Write, byte_mask, local };
        let (write_down, eviction) = match self.l1s.get_mut(sm).and_then(Option::as_mut) {
            Some(l1) => {
                let (effect, filled) = l1.commit_filled_at(&access, addr, now);
                (effect.write_down, effect.eviction.or(filled))
            }
            None => (true, None),
        };
        if write_down {
            sent.write_requests += 1;
            self.past_l1(sm, addr, HEADER_BYTES + u64::from(byte_mask.count_ones()), HEADER_BYTES);
            self.llc_write(addr, byte_mask, local);
        }
        if let Some(eviction) = eviction {
            self.write_back_l1(eviction);
        }
    }

    /// A read request past the L1 for memory site `site`: header out, the
    /// data back.
    fn request_read(&mut self, sm: usize, addr: u64, site: u32, sent: &mut Sent) {
        sent.read_requests += 1;
        let bytes = if self.l1_sectored { u64::from(SECTOR_BYTES) } else { self.l1_line_bytes };
        self.past_l1(sm, addr, HEADER_BYTES, HEADER_BYTES + bytes);
        self.llc.push(LlcOp::Read { addr, site });
    }

    /// Counts a request from SM `sm` for `addr` past the L1, of `out` bytes
    /// with a reply of `back`, on the networks and, on a chiplet GPU, on
    /// the links to its home chiplet, with the round trip it takes there.
    fn past_l1(&mut self, sm: usize, addr: u64, out: u64, back: u64) {
        self.traffic.requests_from_sms += 1;
        self.traffic.request_bytes += out;
        self.traffic.reply_bytes += back;
        if let Some(links) = &mut self.links {
            self.traffic.link_cycles += links.cross(sm, addr, out, back);
        }
    }

    fn write_back_l1(&mut self, eviction: Eviction) {
        if !self.write_back_local {
            return;
        }
        for addr in eviction.dirty_sector_addrs() {
            self.traffic.request_bytes += HEADER_BYTES + u64::from(SECTOR_BYTES);
            self.llc_write(addr, u32::MAX, true);
        }
    }

    fn llc_write(&mut self, addr: u64, byte_mask: u32, local: bool) {
        self.llc.push(LlcOp::Write { addr, byte_mask, local });
    }
}

/// A chiplet GPU's links as the requests past the L1 meet them: the
/// chiplet of each SM and of each address's home (the timing model's
/// address map), and the round trip over the links between each pair
/// (`uarch::latency::link_round_trip_cycles`, for the hops between them).
struct Links {
    sm_chiplet: Vec<u32>,
    map: AddressMap,
    chiplets: usize,
    ring: bool,
    /// Indexed `from × chiplets + to`; 0 on the diagonal.
    round_trips: Vec<f64>,
    /// This kernel's bytes from one chiplet to another, indexed the same way.
    pair_bytes: Vec<u64>,
}

impl Links {
    /// `config`'s links; `None` on a monolithic GPU.
    fn of(config: &GpuConfig) -> Option<Self> {
        if !config.chiplets.enabled() {
            return None;
        }
        let n = config.chiplets.count;
        let round_trips = (0..n * n)
            .map(|i| match chiplet_hops(config, i / n, i % n) {
                0 => 0.0,
                hops => link_round_trip_cycles(config, hops),
            })
            .collect();
        Some(Self {
            sm_chiplet: (0..config.n_sms()).map(|sm| config.chiplet_of_sm(sm)).collect(),
            map: AddressMap::for_gpu(config),
            chiplets: n as usize,
            ring: config.chiplets.topology == Topology::Ring,
            round_trips,
            pair_bytes: vec![0; (n * n) as usize],
        })
    }

    /// A request of `out` bytes from SM `sm` to `addr`'s home and its reply
    /// of `back`: their bytes on the links, and the round trip it adds.
    fn cross(&mut self, sm: usize, addr: u64, out: u64, back: u64) -> f64 {
        let n = self.chiplets;
        let from = self.sm_chiplet.get(sm).map_or(0, |&c| c as usize) % n;
        let to = self.map.chiplet(addr) as usize % n;
        if from == to {
            return 0.0;
        }
        self.pair_bytes[from * n + to] += out;
        self.pair_bytes[to * n + from] += back;
        self.round_trips[from * n + to]
    }

    /// The bytes on the busiest link, routed as the timing model routes them
    /// (`sim::network`): all_to_all through the source's outgoing and the
    /// destination's incoming link; a ring link by link the shorter way
    /// round, clockwise on a tie.
    fn busiest_link_bytes(&self) -> u64 {
        let n = self.chiplets;
        // all_to_all: `2c` is chiplet c's outgoing link, `2c + 1` its
        // incoming one; ring: `2c` goes from c to c + 1, `2c + 1` to c − 1.
        let mut links = vec![0u64; 2 * n];
        for (pair, &bytes) in self.pair_bytes.iter().enumerate().filter(|(_, b)| **b > 0) {
            let (from, to) = (pair / n, pair % n);
            if !self.ring {
                links[2 * from] += bytes;
                links[2 * to + 1] += bytes;
                continue;
            }
            let (clockwise, hops) = ring_way(n as u32, from as u32, to as u32);
            let step = if clockwise { 1 } else { n - 1 };
            let mut at = from;
            for _ in 0..hops {
                links[2 * at + usize::from(!clockwise)] += bytes;
                at = (at + step) % n;
            }
        }
        links.into_iter().max().unwrap_or(0)
    }
}

/// A global load is divergent when its active lanes touch more 128-B lines
/// than their bytes need: `ceil(active lanes × width / 128)` packed, plus
/// one, since a contiguous run that does not start on a line boundary
/// straddles one more line without being divergent (`strided` with GS = 1).
fn is_divergent(accesses: &[SectorAccess], instruction: &Instruction, access_bytes: u32) -> bool {
    let packed = (u64::from(instruction.active_lanes()) * u64::from(access_bytes.max(1))).div_ceil(LINE_BYTES);
    u64::from(lines_touched(accesses)) > packed.max(1) + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_busiest_link_is_found_along_the_timing_models_routes() {
        // Four chiplets: 100 bytes from 0 to 2, 50 from 1 to 2, 80 from 0 to 3.
        // all_to_all: chiplet 0's outgoing link carries 180. ring: 0 → 2 goes
        // clockwise on the tie (0→1, 1→2), 1 → 2 one hop, 0 → 3 the other way
        // (0→3): the link 1→2 carries 150.
        let mut config = warplab_config::preset("H100").unwrap().config().unwrap();
        config.chiplets.count = 4;
        for (topology, busiest) in [(Topology::AllToAll, 180), (Topology::Ring, 150)] {
            config.chiplets.topology = topology;
            let mut links = Links::of(&config).expect("a chiplet GPU");
            for (from, to, bytes) in [(0, 2, 100), (1, 2, 50), (0, 3, 80)] {
                links.pair_bytes[from * 4 + to] = bytes;
            }
            assert_eq!(links.busiest_link_bytes(), busiest, "{topology:?}");
        }
        config.chiplets.count = 1;
        assert!(Links::of(&config).is_none());
    }
}
