//! The memory side: one L2 slice per memory sub-partition (ticked at the L2
//! clock) and one DRAM channel per memory partition (ticked at the DRAM
//! clock), with the bounded queues of `-gpgpu_dram_partition_queues` between
//! them, after GPGPU-Sim's `memory_sub_partition` and `memory_partition_unit`
//! (`l2cache.cc`) and its `data_cache` (`gpu-cache.cc`).
//!
//! A slice takes a request from the crossbar (one per L2 cycle) only while its
//! `icnt to L2` queue has room for a line's four sectors; the request then
//! spends `-gpgpu_l2_rop_latency` core cycles in the ROP pipeline and waits in
//! the `icnt to L2` queue. One L2 cycle of a slice (`memory_sub_partition::cache_cycle`):
//! 1. the next requester of a filled MSHR entry is answered (one per cycle,
//!    GPGPU-Sim's `next_access`), if the `L2 to icnt` queue has room;
//! 2. the head of the `DRAM to L2` queue fills the L2 (when the fill port is
//!    free; a fill holds it for a fetch's bytes over the data port width), or,
//!    if it is a write DRAM has done, goes back to be acknowledged;
//! 3. the head of the L2's own miss queue (the cache string's miss-queue
//!    entries) moves to the `L2 to DRAM` queue, and the ports count down;
//! 4. the head of the `icnt to L2` queue is looked up, but only while the `L2
//!    to DRAM` queue and the `L2 to icnt` queue have room and the data port is
//!    free (GPGPU-Sim does not try otherwise, so nothing is counted). A hit
//!    replies and holds the data port for its bytes; a miss needs an MSHR
//!    entry (or one to merge into) and the miss queue room GPGPU-Sim's read
//!    and write handlers ask for, else it is a reservation failure, retried
//!    next cycle; a fetch asks for a sector from a sectored L2 and for the
//!    whole line from a non-sectored one;
//! 5. the head of the ROP pipeline moves to the `icnt to L2` queue.
//!
//! A write the slice keeps is acknowledged at once; a write it sends on to
//! DRAM (write-through, write-evict, no write-allocate, and the naive
//! write-allocate `W`, which also fetches the line) is acknowledged when DRAM
//! has written it, as GPGPU-Sim's DRAM returns the write itself as the reply.
//! Replies leave the `L2 to icnt` queue at the interconnect clock ([`MemorySystem::icnt_cycle`]).
//!
//! One DRAM cycle of a channel (`memory_partition_unit::dram_cycle`): the
//! head of the channel's return queue goes back to its slice's `DRAM to L2`
//! queue if that has room (a write-back simply ends); the DRAM advances; one
//! request moves from a slice's `L2 to DRAM` queue into the `-dram_latency`
//! pipeline (slices in round robin, each needing a credit, its `DRAM to L2`
//! queue not full and the DRAM scheduler's queue not full); and the head of
//! that pipeline, once its latency is over, enters the DRAM scheduler's queue
//! if it has room. Credits: every slice has one of its own and shares the
//! rest of the scheduler and return queues' entries; a request holds one
//! until it is back in its slice (a write-back, until DRAM has written it).

use std::collections::VecDeque;

use warplab_config::GpuConfig;
use warplab_config::cache::{Allocation, CacheConfig, WriteAllocate, WritePolicy};
use warplab_uarch::address_map::AddressMap;
use warplab_uarch::cache::{Access, AccessKind, Cache, Eviction, Outcome, SECTOR_BYTES, SECTORS_PER_LINE};

use crate::bitset::BitSet;
use crate::dram::{DramChannel, DramRequest};
use crate::events::{EventLog, Queue, note_queue};
use crate::fifo::Fifo;
use crate::mshr::MshrTable;
use crate::network::Network;
use crate::report::CacheReport;
use crate::request::{MemoryRequests, Request, RequestId, RequestKind, Stamps, Waiter};
use crate::snapshot::{ChannelSnapshot, Depth, SliceSnapshot};
use crate::time::{Clocks, Domain};

/// The MSHR waiter of a fill nobody waits for (a write-allocate fetch).
const NO_WAITER: u32 = u32::MAX;

/// One L2 slice and its queues.
#[derive(Debug, Clone)]
pub struct SubPartition {
    id: u32,
    rop: VecDeque<(u64, RequestId)>,
    icnt_to_l2: Fifo<RequestId>,
    l2: Cache,
    mshrs: MshrTable,
    /// The L2's own miss queue (GPGPU-Sim's `m_miss_queue`), drained into
    /// `l2_to_dram` one request per L2 cycle. Its bound is the cache
    /// string's; GPGPU-Sim checks it before an access for the most the access
    /// can send, so the queue itself has room for one line's write-backs more.
    miss_queue: Fifo<RequestId>,
    miss_queue_entries: usize,
    l2_to_dram: Fifo<RequestId>,
    dram_to_l2: Fifo<RequestId>,
    l2_to_icnt: Fifo<RequestId>,
    /// MSHR entries whose data arrived, oldest first; their requesters are
    /// answered one per cycle and the entry is freed with its last.
    filled: VecDeque<u32>,
    rop_latency: u64,
    policy: SlicePolicy,
    /// L2 cycles the data port and the fill port stay busy.
    data_port_busy_cycles: u32,
    fill_port_busy_cycles: u32,
    /// Accesses by outcome.
    pub(crate) stats: CacheReport,
}

/// What a slice's cache string fixes about its accesses.
#[derive(Debug, Clone, Copy)]
struct SlicePolicy {
    /// The L2 allocates lines when fills arrive, so a fill may evict a dirty line.
    allocates_on_fill: bool,
    /// Bytes a miss fetches from DRAM: a sector, or the whole line of a
    /// non-sectored L2 (GPGPU-Sim's atom size).
    fetch_bytes: u32,
    line_bytes: u32,
    sectored: bool,
    data_port_width: u32,
    write_policy: WritePolicy,
    write_allocate: WriteAllocate,
}

/// One DRAM channel with its fixed-latency pipeline and the credits of its slices.
#[derive(Debug, Clone)]
pub struct Channel {
    pub(crate) dram: DramChannel,
    latency_queue: VecDeque<(u64, RequestId)>,
    /// The slice (within the channel) that last sent a request to DRAM.
    last_sender: u32,
    credits: Credits,
    /// DRAM cycles a request waited because the scheduler queue was full.
    pub(crate) full_cycles: u64,
    /// Until when the channel's cycle only counts its DRAM's clock.
    wake: ChannelWake,
}

/// When a busy channel next has something to move: its DRAM's next event
/// (a request to schedule, a command due, data done), or the head of its
/// latency pipeline leaving it. Before both, a channel cycle would only
/// count the DRAM's clock ([`DramChannel::pass`]): on memory-divergent runs
/// most busy channels wait so for a row or a transfer most of their cycles.
/// A request a slice leaves for the channel, or data waiting in its return
/// queue, wakes it at once ([`ChannelWake::NOW`]).
#[derive(Debug, Clone, Copy)]
struct ChannelWake {
    /// A DRAM cycle.
    dram: u64,
    /// A core cycle, what the latency pipeline counts in.
    core: u64,
}

impl ChannelWake {
    const NOW: Self = Self { dram: 0, core: 0 };

    /// Whether a channel cycle at `dram_now` and `core_now` may move something.
    fn is_due(self, dram_now: u64, core_now: u64) -> bool {
        dram_now >= self.dram || core_now >= self.core
    }
}

/// GPGPU-Sim's `arbitration_metadata`: requests a slice may have between its
/// `L2 to DRAM` queue and its return.
#[derive(Debug, Clone)]
struct Credits {
    /// Per slice of the channel: its own credit in use (0 or 1).
    private: Vec<u32>,
    shared: u32,
    /// 0: no limit (an unlimited scheduler or return queue).
    shared_limit: u32,
}

/// The L2 slices, DRAM channels and what they need to talk to the rest.
#[derive(Debug, Clone)]
pub struct MemorySystem {
    pub(crate) slices: Vec<SubPartition>,
    pub(crate) channels: Vec<Channel>,
    /// The slices that may have work of their own: every slice that is not
    /// idle is here (a slice enters when its cycle leaves it busy or DRAM
    /// returns data to it, and leaves when a visit finds it idle), so an L2
    /// or interconnect cycle visits only these and the slices a request is
    /// arriving at, not every slice's queues.
    busy_slices: BitSet,
    /// Per slice, the core cycle before which a busy slice that no request
    /// is arriving at has nothing to do (0: the next L2 cycle). A slice that
    /// holds only requests in its ROP pipeline waits for the first to leave
    /// it, `rop_latency` cycles (about a hundred) after it arrived; until
    /// then its cycle changes nothing, so the L2 cycle passes it over
    /// without reading it. Set at each visit from [`SubPartition::next_event`],
    /// and cleared by DRAM returning data to the slice, the one change from
    /// outside the slice's own cycle that gives it work.
    slice_wakes: Vec<u64>,
    /// The reference the tests compare against (`SimOptions::tick_every_cycle`):
    /// every busy slice and channel cycled every cycle, no wake kept.
    visits_every_cycle: bool,
    /// Likewise the channels that may have work: a channel enters when one of
    /// its slices leaves a request in its `L2 to DRAM` queue.
    busy_channels: BitSet,
    /// The slices that took a request from the crossbar this L2 cycle, whose
    /// outputs [`MemorySystem::apply_takes`] pops after it: the L2 cycle
    /// only reads the request crossbar, so that it can run while the SMs
    /// read it too.
    takes: Vec<u32>,
    per_channel: u32,
    dram_latency: u64,
    dram_access_bytes: u32,
    core_khz: u64,
    dram_khz: u64,
}

/// Shared state a memory cycle touches.
pub(crate) struct PartitionContext<'a> {
    pub requests: &'a mut MemoryRequests,
    /// Read only: the slices' takes are applied after their cycle.
    pub request_network: &'a Network,
    pub address_map: &'a AddressMap,
    /// The core cycles completed before this instant's core edge: GPGPU-Sim's
    /// `gpu_sim_cycle` as its L2 and DRAM read it (the core ticks last in an
    /// instant), which every memory-side latency is counted in.
    pub core_now: u64,
    /// The core cycle events are stamped with: the SMs' count, which the
    /// event window is in (`core_now` lags it by one at a core edge).
    pub event_cycle: u64,
    /// The interconnect cycle whose deliveries the crossbars' consumers see
    /// (see [`crate::network::Network::peek`]).
    pub icnt_now: u64,
    pub log: &'a mut EventLog,
}

/// The clocks as the memory side reads them at an instant (see
/// [`PartitionContext`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct MemoryNow {
    pub core_now: u64,
    pub event_cycle: u64,
    pub icnt_now: u64,
}

/// The L2 and DRAM edges of an instant.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MemoryEdges {
    /// The DRAM cycle, if DRAM ticks.
    pub dram: Option<u64>,
    pub l2: bool,
    pub now: MemoryNow,
}

impl MemoryNow {
    /// The context of a memory cycle at this instant.
    pub(crate) fn context<'a>(
        self,
        requests: &'a mut MemoryRequests,
        request_network: &'a Network,
        address_map: &'a AddressMap,
        log: &'a mut EventLog,
    ) -> PartitionContext<'a> {
        let MemoryNow { core_now, event_cycle, icnt_now } = self;
        PartitionContext { requests, request_network, address_map, core_now, event_cycle, icnt_now, log }
    }
}

impl PartitionContext<'_> {
    /// Records request `id` entering (`true`) or leaving `queue` now.
    #[inline]
    fn note(&mut self, queue: Queue, id: RequestId, entered: bool) {
        let requests = &*self.requests;
        note_queue(self.log, || *requests.get(id), self.event_cycle, queue, id, entered);
    }
}

impl SlicePolicy {
    fn of(l2: &CacheConfig) -> Self {
        let sectored = l2.is_sectored();
        Self {
            allocates_on_fill: l2.allocation != Allocation::OnMiss,
            fetch_bytes: if sectored { SECTOR_BYTES } else { l2.line_size_bytes },
            line_bytes: l2.line_size_bytes,
            sectored,
            data_port_width: l2.data_port_width_bytes.max(1),
            write_policy: l2.write_policy,
            write_allocate: l2.write_allocate,
        }
    }

    /// L2 cycles the data or fill port is busy moving `bytes`.
    fn port_cycles(self, bytes: u32) -> u32 {
        bytes.div_ceil(self.data_port_width)
    }

    /// Free miss-queue entries an access needs before it may go on: GPGPU-Sim's
    /// `miss_queue_full(n)` checks in its read and write handlers, as one
    /// more than `n` (`rd_miss_base` keeps room for a fetch and a write-back;
    /// the naive write-allocate for the write, a fetch and a write-back).
    fn miss_queue_needed(self, access: &Access, outcome: Outcome) -> usize {
        let write_keeps = |policy| match policy {
            WritePolicy::WriteBack => true,
            WritePolicy::LocalWriteBackGlobalWriteThrough => access.local,
            _ => false,
        };
        match (access.kind, outcome) {
            (AccessKind::Read, Outcome::Hit) => 0,
            (AccessKind::Read, _) => 2,
            (AccessKind::Write, Outcome::Hit) if write_keeps(self.write_policy) => 0,
            (AccessKind::Write, Outcome::Hit) => 1,
            (AccessKind::Write, _) => match self.write_allocate {
                WriteAllocate::WriteAllocate => 3,
                WriteAllocate::FetchOnWrite => 2,
                WriteAllocate::None | WriteAllocate::LazyFetchOnRead => 1,
            },
        }
    }
}

impl Credits {
    fn new(config: &GpuConfig) -> Self {
        let per_channel = config.memory.sub_partitions_per_channel;
        let shared_limit = config.dram.shared_credits(per_channel).unwrap_or(0);
        Self { private: vec![0; per_channel as usize], shared: 0, shared_limit }
    }

    fn available(&self, slice: usize) -> bool {
        self.private[slice] < 1 || self.shared_limit == 0 || self.shared < self.shared_limit
    }

    fn borrow(&mut self, slice: usize) {
        if self.private[slice] < 1 {
            self.private[slice] += 1;
        } else {
            self.shared += 1;
        }
    }

    fn give_back(&mut self, slice: usize) {
        if self.private[slice] > 0 {
            self.private[slice] -= 1;
        } else {
            self.shared = self.shared.saturating_sub(1);
        }
    }
}

impl MemorySystem {
    /// The memory system of `config`.
    pub fn new(config: &GpuConfig) -> Self {
        let memory = &config.memory;
        let q = memory.queues;
        let policy = SlicePolicy::of(&memory.l2);
        let miss_queue_entries = memory.l2.miss_queue_entries.max(1) as usize;
        let slices: Vec<SubPartition> = (0..memory.n_sub_partitions())
            .map(|id| SubPartition {
                id,
                rop: VecDeque::new(),
                icnt_to_l2: Fifo::new(q.icnt_to_l2),
                l2: Cache::new(&memory.l2),
                mshrs: MshrTable::new(memory.l2.mshr_entries, memory.l2.mshr_max_merge),
                miss_queue: Fifo::new((miss_queue_entries + 1 + SECTORS_PER_LINE as usize) as u32),
                miss_queue_entries,
                l2_to_dram: Fifo::new(q.l2_to_dram),
                dram_to_l2: Fifo::new(q.dram_to_l2),
                l2_to_icnt: Fifo::new(q.l2_to_icnt),
                filled: VecDeque::new(),
                rop_latency: u64::from(memory.l2_rop_latency_cycles),
                policy,
                data_port_busy_cycles: 0,
                fill_port_busy_cycles: 0,
                stats: CacheReport::default(),
            })
            .collect();
        let channels: Vec<Channel> = (0..memory.n_channels)
            .map(|_| Channel {
                dram: DramChannel::new(&config.dram),
                latency_queue: VecDeque::new(),
                last_sender: memory.sub_partitions_per_channel.saturating_sub(1),
                credits: Credits::new(config),
                full_cycles: 0,
                wake: ChannelWake::NOW,
            })
            .collect();
        Self {
            busy_slices: BitSet::new(slices.len()),
            slice_wakes: vec![0; slices.len()],
            visits_every_cycle: false,
            busy_channels: BitSet::new(channels.len()),
            takes: Vec::new(),
            slices,
            channels,
            per_channel: memory.sub_partitions_per_channel,
            dram_latency: u64::from(memory.dram_latency_cycles),
            dram_access_bytes: config.dram.access_bytes().max(1),
            core_khz: config.clocks.core.khz(),
            dram_khz: config.clocks.dram.khz().max(1),
        }
    }

    /// The reference of the tests: every busy slice and channel cycled
    /// every cycle ([`crate::SimOptions::tick_every_cycle`]).
    pub(crate) fn visit_every_cycle(&mut self) {
        self.visits_every_cycle = true;
    }

    /// Fills the L2 with `bytes` at `address` (a host-to-device copy when
    /// `--memcpy-warms-l2` asks for it): each sector becomes valid and clean.
    pub fn warm(&mut self, address: u64, bytes: u64, address_map: &AddressMap) {
        let first = address / u64::from(SECTOR_BYTES);
        let last = (address + bytes).div_ceil(u64::from(SECTOR_BYTES));
        for sector in first..last {
            let addr = sector * u64::from(SECTOR_BYTES);
            let slice = &mut self.slices[address_map.sub_partition(addr) as usize];
            let index_addr = address_map.partition_address(addr);
            let access = Access { addr, kind: AccessKind::Read, byte_mask: u32::MAX, local: false };
            if slice.l2.probe_at(&access, index_addr) != Outcome::Hit
                && slice.l2.commit_at(&access, index_addr, 0).fetch
            {
                slice.l2.fill_at(addr, index_addr, 0);
            }
        }
    }

    /// One interconnect cycle of every slice: the head of its `L2 to icnt`
    /// queue enters the reply crossbar (GPGPU-Sim does this at the
    /// interconnect clock, before the crossbar moves packets).
    pub(crate) fn icnt_cycle(&mut self, reply_network: &mut Network, ctx: &mut PartitionContext<'_>) {
        // An idle slice has no reply to send.
        let slices = &mut self.slices;
        self.busy_slices.for_each(|s| slices[s].send_reply(reply_network, ctx));
    }

    /// Pops the requests the slices took in the last L2 cycle from the
    /// request crossbar.
    pub(crate) fn apply_takes(&mut self, request_network: &mut Network) {
        for s in self.takes.drain(..) {
            request_network.pop(s);
        }
    }

    /// The DRAM edge, then the L2 edge, of an instant (either may be
    /// absent); the slices' takes wait for [`MemorySystem::apply_takes`].
    pub(crate) fn edges(
        &mut self,
        edges: MemoryEdges,
        requests: &mut MemoryRequests,
        request_network: &Network,
        address_map: &AddressMap,
        log: &mut EventLog,
    ) {
        let mut ctx = edges.now.context(requests, request_network, address_map, log);
        if let Some(dram_now) = edges.dram {
            self.dram_cycle(dram_now, &mut ctx);
        }
        if edges.l2 {
            self.l2_cycle(&mut ctx);
        }
    }

    /// One L2 cycle of every slice.
    pub(crate) fn l2_cycle(&mut self, ctx: &mut PartitionContext<'_>) {
        for s in 0..self.slices.len() {
            // Simulation gating: a slice with nothing queued and nothing
            // arriving, or one waiting only for its ROP head to be due
            // (`slice_wakes`), has nothing to do this cycle.
            let arriving = ctx.request_network.has_pending(s as u32);
            if !arriving && (!self.busy_slices.contains(s) || self.slice_wakes[s] > ctx.core_now) {
                continue;
            }
            let slice = &mut self.slices[s];
            if slice.is_idle() && !arriving {
                self.busy_slices.remove(s);
                continue;
            }
            if slice.take_arrival(ctx) {
                self.takes.push(s as u32);
            }
            slice.cycle(ctx);
            // `Some(u64::MAX)`: idle; `None`: work next cycle.
            let wake = slice.next_event();
            self.busy_slices.set(s, wake != Some(u64::MAX));
            if !self.visits_every_cycle {
                self.slice_wakes[s] = wake.unwrap_or(0);
            }
            if !slice.l2_to_dram.is_empty() {
                let c = s / self.per_channel as usize;
                self.busy_channels.insert(c);
                self.channels[c].wake = ChannelWake::NOW;
            }
        }
    }

    /// One DRAM cycle of every channel.
    pub(crate) fn dram_cycle(&mut self, dram_now: u64, ctx: &mut PartitionContext<'_>) {
        for c in 0..self.channels.len() {
            if !self.busy_channels.contains(c) {
                continue;
            }
            if !self.channels[c].wake.is_due(dram_now, ctx.core_now) {
                self.channels[c].dram.pass(dram_now);
                continue;
            }
            let channel = &self.channels[c];
            let idle = channel.latency_queue.is_empty() && channel.dram.is_idle() && !self.slices_send_to(c);
            if idle {
                self.busy_channels.remove(c);
            } else {
                self.channel_cycle(c, dram_now, ctx);
                if !self.visits_every_cycle {
                    self.channels[c].wake = self.channel_wake(c);
                }
            }
        }
    }

    /// Whether a slice of channel `c` holds a request for it.
    fn slices_send_to(&self, c: usize) -> bool {
        let first = c * self.per_channel as usize;
        self.slices[first..first + self.per_channel as usize].iter().any(|slice| !slice.l2_to_dram.is_empty())
    }

    /// When channel `c`, just cycled, next has something to move.
    fn channel_wake(&self, c: usize) -> ChannelWake {
        let channel = &self.channels[c];
        if channel.dram.has_completed() || self.slices_send_to(c) {
            return ChannelWake::NOW;
        }
        ChannelWake {
            dram: channel.dram.next_event().unwrap_or(u64::MAX),
            core: channel.latency_queue.front().map_or(u64::MAX, |&(ready, _)| ready),
        }
    }

    /// When nothing moves between the L2 slices and DRAM: the first core
    /// cycle at which a slice or channel has work (a request leaving the ROP
    /// or DRAM latency queue, a DRAM command or transfer due), `u64::MAX` if
    /// none; `None` while a slice's queues or a channel's return queue hold
    /// something.
    pub(crate) fn next_event(&self, clocks: &Clocks) -> Option<u64> {
        let mut next = u64::MAX;
        for slice in &self.slices {
            next = next.min(slice.next_event()?);
        }
        for channel in &self.channels {
            if channel.dram.has_completed() {
                return None;
            }
            if let Some(&(ready, _)) = channel.latency_queue.front() {
                next = next.min(ready);
            }
            if let Some(dram_cycle) = channel.dram.next_event() {
                next = next.min(clocks.core_cycle_at(Domain::Dram, dram_cycle));
            }
        }
        Some(next)
    }

    fn to_core_cycles(&self, dram_cycles: u64) -> u64 {
        dram_cycles * self.core_khz / self.dram_khz
    }

    /// One DRAM cycle of channel `c`, in GPGPU-Sim's order (see the module doc).
    fn channel_cycle(&mut self, c: usize, dram_now: u64, ctx: &mut PartitionContext<'_>) {
        self.deliver_return(c, ctx);
        self.channels[c].dram.cycle(dram_now);
        self.send_to_dram(c, ctx);
        let channel = &mut self.channels[c];
        if let Some(&(ready, id)) = channel.latency_queue.front()
            && ready <= ctx.core_now
        {
            if channel.dram.can_accept() {
                channel.latency_queue.pop_front();
                let stamps = ctx.requests.stamps_mut(id);
                stamps.dram_queue += ctx.core_now - ready;
                stamps.dram_service += self.dram_latency;
                let request = ctx.requests.get(id);
                let at = ctx.address_map.decode(request.address);
                let is_write = request.kind != RequestKind::L2Fill;
                let bursts = request.bytes.div_ceil(self.dram_access_bytes).max(1);
                let dram_request =
                    DramRequest { tag: id.0, bank: at.bank, row: at.row, column: at.column, is_write, bursts };
                channel.dram.push(dram_request, dram_now);
            } else {
                channel.full_cycles += 1;
            }
        }
    }

    /// Moves one request from a slice's `L2 to DRAM` queue into the channel's
    /// latency pipeline: slices in round robin after the last that sent, the
    /// first with a request, a credit and room in its `DRAM to L2` queue; none
    /// while the DRAM scheduler's queue is full.
    fn send_to_dram(&mut self, c: usize, ctx: &mut PartitionContext<'_>) {
        let per_channel = self.per_channel;
        let first = c as u32 * per_channel;
        for k in 0..per_channel {
            let local = (self.channels[c].last_sender + 1 + k) % per_channel;
            let slice = &self.slices[(first + local) as usize];
            if slice.l2_to_dram.is_empty()
                || !self.channels[c].credits.available(local as usize)
                || !slice.dram_to_l2.can_push()
            {
                continue;
            }
            if !self.channels[c].dram.can_accept() {
                return;
            }
            let Some(id) = self.slices[(first + local) as usize].l2_to_dram.pop() else { return };
            let stamps = ctx.requests.stamps_mut(id);
            stamps.dram_queue += ctx.core_now.saturating_sub(stamps.to_dram);
            let channel = &mut self.channels[c];
            channel.latency_queue.push_back((ctx.core_now + self.dram_latency, id));
            channel.credits.borrow(local as usize);
            channel.last_sender = local;
            return;
        }
    }

    /// Moves the head of channel `c`'s return queue back to its slice, if the
    /// slice's `DRAM to L2` queue has room; write-backs end here.
    fn deliver_return(&mut self, c: usize, ctx: &mut PartitionContext<'_>) {
        let first = c as u32 * self.per_channel;
        let mut delivered_one = false;
        while let Some(done) = self.channels[c].dram.peek_completed() {
            let id = RequestId(done.tag);
            let request = ctx.requests.get(id);
            let slice = request.sub_partition as usize;
            let local = (request.sub_partition - first) as usize;
            if request.kind == RequestKind::Writeback {
                // GPGPU-Sim ends a write-back in DRAM, outside the return queue.
                self.channels[c].dram.pop_completed();
                self.channels[c].credits.give_back(local);
                ctx.note(Queue::Dram, id, false);
                ctx.requests.remove(id);
                continue;
            }
            if delivered_one || !self.slices[slice].dram_to_l2.try_reserve() {
                return;
            }
            self.channels[c].dram.pop_completed();
            self.channels[c].credits.give_back(local);
            ctx.note(Queue::Dram, id, false);
            let queued = self.to_core_cycles(done.queued_cycles);
            let service = self.to_core_cycles(done.service_cycles);
            let stamps = ctx.requests.stamps_mut(id);
            stamps.dram_queue += queued;
            stamps.dram_service += service;
            stamps.from_dram = ctx.core_now;
            self.slices[slice].dram_to_l2.push(id);
            self.busy_slices.insert(slice);
            self.slice_wakes[slice] = 0;
            delivered_one = true;
        }
    }
}

impl Channel {
    /// The channel's queue depths now.
    pub(crate) fn snapshot(&self) -> ChannelSnapshot {
        let queue = Depth { len: self.dram.queue_len() as u32, capacity: self.dram.queue_capacity() as u32 };
        ChannelSnapshot { latency_pipeline: self.latency_queue.len() as u32, queue }
    }
}

impl SubPartition {
    fn is_idle(&self) -> bool {
        self.rop.is_empty() && self.holds_nothing_past_rop()
    }

    /// Whether everything but the ROP pipeline is empty and both ports free.
    fn holds_nothing_past_rop(&self) -> bool {
        self.icnt_to_l2.is_empty()
            && self.miss_queue.is_empty()
            && self.l2_to_dram.is_empty()
            && self.dram_to_l2.is_empty()
            && self.l2_to_icnt.is_empty()
            && self.filled.is_empty()
            && self.data_port_busy_cycles == 0
            && self.fill_port_busy_cycles == 0
    }

    /// The core cycle the first request leaves the ROP queue when that is all
    /// the slice holds (`u64::MAX`: nothing at all); `None` otherwise.
    fn next_event(&self) -> Option<u64> {
        self.holds_nothing_past_rop().then(|| self.rop.front().map_or(u64::MAX, |&(ready, _)| ready))
    }

    /// The slice's queue depths now.
    pub(crate) fn snapshot(&self) -> SliceSnapshot {
        let to_l2 = self.icnt_to_l2.depth();
        let to_dram = Depth {
            len: (self.l2_to_dram.len() + self.miss_queue.len()) as u32,
            capacity: (self.l2_to_dram.capacity() + self.miss_queue_entries) as u32,
        };
        SliceSnapshot {
            to_l2: Depth { len: to_l2.len + self.rop.len() as u32, capacity: to_l2.capacity },
            mshrs_in_use: Depth { len: self.mshrs.in_use() as u32, capacity: self.mshrs.capacity() as u32 },
            to_dram,
            from_dram: self.dram_to_l2.depth(),
            to_crossbar: self.l2_to_icnt.depth(),
        }
    }

    /// Queue stalls of this slice's links: icnt→L2, L2→DRAM, DRAM→L2, L2→icnt.
    pub(crate) fn queue_stalls(&self) -> [u64; 4] {
        [
            self.icnt_to_l2.full_stalls,
            self.l2_to_dram.full_stalls,
            self.dram_to_l2.full_stalls,
            self.l2_to_icnt.full_stalls,
        ]
    }

    /// Takes one request from the crossbar into the ROP pipeline, while the
    /// `icnt to L2` queue has room for a whole line's sectors
    /// (`full(SECTOR_CHUNCK_SIZE)`), however many wait in the ROP pipeline;
    /// otherwise the request stays in the crossbar's output buffer.
    /// Returns whether it took one (the caller pops it from the crossbar).
    fn take_arrival(&mut self, ctx: &mut PartitionContext<'_>) -> bool {
        let room = self.icnt_to_l2.len() + SECTORS_PER_LINE as usize <= self.icnt_to_l2.capacity();
        if !room {
            // GPGPU-Sim's `gpu_stall_dramfull`.
            self.icnt_to_l2.full_stalls += 1;
            return false;
        }
        let Some(id) = ctx.request_network.peek(self.id, ctx.icnt_now) else { return false };
        ctx.note(Queue::RequestNetwork, id, false);
        ctx.note(Queue::L2, id, true);
        ctx.requests.stamps_mut(id).at_partition = ctx.core_now;
        self.rop.push_back((ctx.core_now + self.rop_latency, id));
        true
    }

    /// One L2 cycle, in GPGPU-Sim's order (see the module doc).
    fn cycle(&mut self, ctx: &mut PartitionContext<'_>) {
        self.answer_filled();
        self.take_from_dram(ctx);
        if let Some(&id) = self.miss_queue.front()
            && self.l2_to_dram.try_reserve()
        {
            self.miss_queue.pop();
            self.l2_to_dram.push(id);
        }
        self.data_port_busy_cycles = self.data_port_busy_cycles.saturating_sub(1);
        self.fill_port_busy_cycles = self.fill_port_busy_cycles.saturating_sub(1);
        if !self.icnt_to_l2.is_empty()
            && self.l2_to_dram.can_push()
            && self.l2_to_icnt.can_push()
            && self.data_port_busy_cycles == 0
        {
            self.access(ctx);
        }
        if let Some(&(ready, id)) = self.rop.front()
            && ready <= ctx.core_now
            && self.icnt_to_l2.can_push()
        {
            self.rop.pop_front();
            self.icnt_to_l2.push(id);
        }
    }

    fn send_reply(&mut self, reply_network: &mut Network, ctx: &mut PartitionContext<'_>) {
        let Some(&id) = self.l2_to_icnt.front() else { return };
        if !reply_network.can_inject(self.id) {
            reply_network.count_full(self.id);
            return;
        }
        self.l2_to_icnt.pop();
        ctx.note(Queue::ReplyNetwork, id, true);
        ctx.requests.stamps_mut(id).reply_injected = ctx.core_now;
        let request = ctx.requests.get(id);
        let data = match request.kind {
            RequestKind::Read | RequestKind::Atomic => request.bytes,
            _ => 0,
        };
        reply_network.inject(self.id, request.source, data, id);
        ctx.requests.replied(id);
    }

    /// Answers the next requester of the oldest filled MSHR entry (GPGPU-Sim's
    /// `access_ready` / `next_access`: one a cycle, the entry held until its last).
    fn answer_filled(&mut self) {
        let Some(&entry) = self.filled.front() else { return };
        if !self.l2_to_icnt.try_reserve() {
            return;
        }
        match self.mshrs.pop_waiter(entry) {
            Some(NO_WAITER) | None => {}
            Some(waiter) => self.l2_to_icnt.push(RequestId(waiter)),
        }
        // The entry is freed with its last requester.
        if self.mshrs.waiting(entry) == 0 {
            self.filled.pop_front();
        }
    }

    /// The head of the `DRAM to L2` queue: a fill, or a write DRAM has done.
    fn take_from_dram(&mut self, ctx: &mut PartitionContext<'_>) {
        let Some(&id) = self.dram_to_l2.front() else { return };
        let fill = *ctx.requests.get(id);
        if fill.kind != RequestKind::L2Fill {
            // DRAM has written it: the acknowledgement goes back to the SM.
            if self.l2_to_icnt.try_reserve() {
                self.dram_to_l2.pop();
                self.l2_to_icnt.push(id);
            }
            return;
        }
        // Only a cache that allocates on fill can evict (and write back) here.
        let room_for_write_backs = !self.policy.allocates_on_fill || self.miss_queue.can_push();
        if self.fill_port_busy_cycles > 0 || !room_for_write_backs {
            return;
        }
        self.dram_to_l2.pop();
        self.fill_port_busy_cycles += self.policy.port_cycles(self.policy.fetch_bytes);
        let index_addr = ctx.address_map.partition_address(fill.address);
        if let Some(eviction) = self.l2.fill_at(fill.address, index_addr, ctx.core_now) {
            self.write_back(eviction, ctx);
        }
        let entry = fill.l2_entry;
        let fill_stamps = *ctx.requests.stamps(id);
        for &waiter in self.mshrs.waiters(entry) {
            if waiter != NO_WAITER {
                let stamps = ctx.requests.stamps_mut(RequestId(waiter));
                stamps.dram_queue = fill_stamps.dram_queue;
                stamps.dram_service = fill_stamps.dram_service;
            }
        }
        self.filled.push_back(entry);
        ctx.requests.remove(id);
    }

    /// Free entries of the L2's miss queue, against the cache string's bound.
    fn miss_queue_free(&self) -> usize {
        self.miss_queue_entries.saturating_sub(self.miss_queue.len())
    }

    /// Serves the head of the `icnt to L2` queue, or leaves it for a retry.
    fn access(&mut self, ctx: &mut PartitionContext<'_>) {
        let Some(&id) = self.icnt_to_l2.front() else { return };
        let request = *ctx.requests.get(id);
        let is_write = matches!(request.kind, RequestKind::Write | RequestKind::Writeback);
        let kind = if is_write { AccessKind::Write } else { AccessKind::Read };
        let byte_mask = if is_write { request.byte_mask } else { u32::MAX };
        let access = Access { addr: request.address, kind, byte_mask, local: request.local };
        let index_addr = ctx.address_map.partition_address(request.address);
        let probe = self.l2.prepare_at(&access, index_addr);
        let outcome = probe.outcome();
        let fetch_addr = self.fetch_address(request.address);
        let fetches = !matches!(outcome, Outcome::Hit | Outcome::ReservationFail)
            && (!is_write
                || self.policy.write_allocate == WriteAllocate::WriteAllocate
                || (self.policy.write_allocate == WriteAllocate::FetchOnWrite && byte_mask != u32::MAX));
        let fits = outcome != Outcome::ReservationFail
            && self.miss_queue_free() >= self.policy.miss_queue_needed(&access, outcome)
            && (!fetches || self.mshrs.can_take(fetch_addr));
        let counts = match request.kind {
            RequestKind::Atomic => &mut self.stats.atomics,
            _ if is_write => &mut self.stats.writes,
            _ => &mut self.stats.reads,
        };
        if !fits {
            counts.count(Outcome::ReservationFail);
            return;
        }
        counts.count(outcome);
        self.icnt_to_l2.pop();
        ctx.note(Queue::L2, id, false);
        let effect = self.l2.commit_prepared(&access, probe, ctx.core_now);
        if outcome == Outcome::Hit {
            self.data_port_busy_cycles += self.policy.port_cycles(request.bytes);
        }
        if let Some(eviction) = effect.eviction {
            // Reading the victim's data out takes the data port too.
            self.data_port_busy_cycles += self.policy.port_cycles(self.write_back_bytes(eviction));
            self.write_back(eviction, ctx);
        }
        let needs_reply = matches!(request.kind, RequestKind::Read | RequestKind::Write | RequestKind::Atomic);
        if is_write {
            // A write that fetches also when its line's fill is pending: it
            // merges into that MSHR entry (GPGPU-Sim's write-allocate
            // handlers send their read, `send_read_request`'s MSHR hit).
            self.finish_write(id, &request, fetches, effect.write_down, needs_reply, ctx);
            return;
        }
        match outcome {
            Outcome::Hit => self.l2_to_icnt.push(id),
            _ => {
                let (entry, new) = self.mshrs.take(fetch_addr, id.0);
                if new {
                    ctx.requests.stamps_mut(id).to_dram = ctx.core_now;
                    self.send_fill(fetch_addr, entry, ctx);
                }
            }
        }
    }

    /// The address an L2 miss of `address` fetches: its sector, or its line
    /// in a non-sectored L2.
    fn fetch_address(&self, address: u64) -> u64 {
        address & !u64::from(self.policy.fetch_bytes - 1)
    }

    fn finish_write(
        &mut self,
        id: RequestId,
        request: &Request,
        fetch: bool,
        write_down: bool,
        needs_reply: bool,
        ctx: &mut PartitionContext<'_>,
    ) {
        // The write goes down before the fetch, as GPGPU-Sim queues them.
        let acknowledged_below = write_down && request.kind == RequestKind::Write;
        if acknowledged_below {
            // The write itself goes to DRAM and comes back as its acknowledgement.
            ctx.requests.stamps_mut(id).to_dram = ctx.core_now;
            self.miss_queue.push(id);
            ctx.note(Queue::Dram, id, true);
        } else if write_down {
            self.send_down(RequestKind::Writeback, request.address, request.bytes, ctx);
        }
        let fetch_addr = self.fetch_address(request.address);
        if fetch && self.mshrs.can_take(fetch_addr) {
            // Write-allocate: the fill completes the sector; nobody waits for it.
            let (entry, new) = self.mshrs.take(fetch_addr, NO_WAITER);
            if new {
                self.send_fill(fetch_addr, entry, ctx);
            }
        }
        if acknowledged_below {
            return;
        }
        if needs_reply {
            self.l2_to_icnt.push(id);
        } else {
            ctx.requests.remove(id);
        }
    }

    fn send_fill(&mut self, address: u64, entry: u32, ctx: &mut PartitionContext<'_>) {
        let fill = self.send_down(RequestKind::L2Fill, address, self.policy.fetch_bytes, ctx);
        let request = ctx.requests.own_mut(fill);
        request.l2_entry = entry;
    }

    fn send_down(&mut self, kind: RequestKind, address: u64, bytes: u32, ctx: &mut PartitionContext<'_>) -> RequestId {
        let request = Request {
            kind,
            source: self.id,
            sub_partition: self.id,
            address,
            bytes,
            byte_mask: u32::MAX,
            local: false,
            waiter: Waiter::None,
            l2_entry: 0,
        };
        let id = ctx.requests.insert(request, Stamps { to_dram: ctx.core_now, ..Stamps::default() });
        self.miss_queue.push(id);
        ctx.note(Queue::Dram, id, true);
        id
    }

    /// An evicted line's modified data goes to DRAM as one write of its dirty
    /// sectors (GPGPU-Sim's write-back of `m_modified_size` bytes); a
    /// non-sectored line is written whole.
    fn write_back(&mut self, eviction: Eviction, ctx: &mut PartitionContext<'_>) {
        let bytes = self.write_back_bytes(eviction);
        self.send_down(RequestKind::Writeback, eviction.line_addr, bytes, ctx);
    }

    fn write_back_bytes(&self, eviction: Eviction) -> u32 {
        if self.policy.sectored { eviction.dirty_sectors.count_ones() * SECTOR_BYTES } else { self.policy.line_bytes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sector addresses of slice `slice`, in address order.
    fn sectors_of(address_map: &AddressMap, slice: u32, n: usize) -> Vec<u64> {
        (0u64..)
            .map(|k| k * u64::from(SECTOR_BYTES))
            .filter(|&a| address_map.sub_partition(a) == slice)
            .take(n)
            .collect()
    }

    #[test]
    fn a_slice_takes_no_request_while_its_l2_queue_lacks_room_for_a_line() {
        // QV100 with DRAM never ticked: the slice's misses fill the L2-to-DRAM
        // queue, the L2 stops, and the `icnt to L2` queue fills from the ROP.
        let config = warplab_config::preset("QV100").unwrap().config().unwrap();
        let mut memory = MemorySystem::new(&config);
        let address_map = AddressMap::for_gpu(&config);
        let mut requests = crate::request::Requests::new(1);
        let mut request_network = Network::requests(&config);
        let sent = 400;
        for address in sectors_of(&address_map, 0, sent) {
            let request = Request {
                kind: RequestKind::Read,
                source: 0,
                sub_partition: 0,
                address,
                bytes: SECTOR_BYTES,
                byte_mask: 0,
                local: false,
                waiter: Waiter::None,
                l2_entry: 0,
            };
            let id = requests.memory_mut().insert(request, Stamps::default());
            request_network.inject(0, 0, 0, id);
        }
        let capacity = config.memory.queues.icnt_to_l2 as usize;
        let taken = |memory: &MemorySystem| {
            let slice = &memory.slices[0];
            slice.stats.reads.accesses() as usize + slice.icnt_to_l2.len() + slice.rop.len()
        };
        let mut log = EventLog::default();
        let mut taken_at_2000 = 0;
        for now in 1..=3_000 {
            request_network.cycle(now);
            let mut ctx = PartitionContext {
                requests: requests.memory_mut(),
                request_network: &request_network,
                address_map: &address_map,
                core_now: now,
                event_cycle: now,
                icnt_now: now,
                log: &mut log,
            };
            memory.l2_cycle(&mut ctx);
            memory.apply_takes(&mut request_network);
            if now == 2_000 {
                taken_at_2000 = taken(&memory);
            }
        }
        let slice = &memory.slices[0];
        assert_eq!(slice.icnt_to_l2.len(), capacity, "the ROP filled the queue");
        // Requests stopped leaving the crossbar once the queue had fewer than
        // four free entries; the rest wait in the crossbar's output buffer.
        assert!(request_network.has_pending(0), "no request waits in the crossbar");
        assert_eq!(taken(&memory), taken_at_2000, "the slice kept taking requests");
        assert!(taken(&memory) < sent);
    }
}
