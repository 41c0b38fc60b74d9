//! The memory side: one L2 slice per memory sub-partition (ticked at the L2
//! clock) and one DRAM channel per memory partition (ticked at the DRAM
//! clock), with the bounded queues of `-gpgpu_dram_partition_queues` between
//! them.
//!
//! A slice takes a request from the crossbar (one per L2 cycle) only while its
//! `icnt to L2` queue has room for a line's four sectors, as GPGPU-Sim does
//! (otherwise the request waits in the crossbar's output buffer); the request
//! then spends `-gpgpu_l2_rop_latency` core cycles in the ROP pipeline and
//! waits in the `icnt to L2` queue for the slice, which serves one access per
//! L2 cycle. A read hit goes to the `L2 to icnt` queue and back through the
//! reply crossbar; a miss takes an L2 MSHR entry (or merges into one) and the
//! slice sends a fill read down the `L2 to DRAM` queue; writes follow the
//! slice's cache string (write-back, write-validate, ...). A write the slice
//! keeps is acknowledged at once; a write it sends on to DRAM (write-through,
//! write-evict, no write-allocate, and the naive write-allocate `W`, which
//! also fetches the line) is acknowledged when DRAM has written it, as in
//! GPGPU-Sim, where DRAM returns the write itself as the reply. On the DRAM
//! side a channel takes one request per DRAM cycle from its slices while its
//! scheduler queue has room; the request waits `-dram_latency` core cycles,
//! then enters that queue; its completion comes back through the `DRAM to L2`
//! queue, fills the slice and answers every request merged into the MSHR
//! entry.

use std::collections::VecDeque;

use warplab_config::GpuConfig;
use warplab_config::cache::Allocation;
use warplab_uarch::address_map::AddressMap;
use warplab_uarch::cache::{Access, AccessKind, Cache, Eviction, Outcome, SECTOR_BYTES, SECTORS_PER_LINE};

use crate::dram::{DramChannel, DramCompletion, DramRequest};
use crate::events::{EventLog, Queue, note_queue};
use crate::fifo::Fifo;
use crate::interconnect::Crossbar;
use crate::mshr::MshrTable;
use crate::report::CacheReport;
use crate::request::{Request, RequestId, RequestKind, Requests, Stamps, Waiter};
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
    l2_to_dram: Fifo<RequestId>,
    dram_to_l2: Fifo<RequestId>,
    l2_to_icnt: Fifo<RequestId>,
    rop_latency: u64,
    /// The L2 allocates lines when fills arrive, so a fill may evict a dirty line.
    allocates_on_fill: bool,
    waiters: Vec<u32>,
    /// Accesses by outcome.
    pub(crate) stats: CacheReport,
}

/// One DRAM channel with its fixed-latency queue.
#[derive(Debug, Clone)]
pub struct Channel {
    pub(crate) dram: DramChannel,
    latency_queue: VecDeque<(u64, RequestId)>,
    returned: VecDeque<(RequestId, DramCompletion)>,
    next_sub_partition: u32,
    /// DRAM cycles a request waited because the scheduler queue was full.
    pub(crate) full_cycles: u64,
}

/// The L2 slices, DRAM channels and what they need to talk to the rest.
#[derive(Debug, Clone)]
pub struct MemorySystem {
    pub(crate) slices: Vec<SubPartition>,
    pub(crate) channels: Vec<Channel>,
    per_channel: u32,
    dram_latency: u64,
    core_khz: u64,
    dram_khz: u64,
}

/// Shared state a memory cycle touches.
pub(crate) struct PartitionContext<'a> {
    pub requests: &'a mut Requests,
    pub request_network: &'a mut Crossbar,
    pub reply_network: &'a mut Crossbar,
    pub address_map: &'a AddressMap,
    pub core_now: u64,
    pub icnt_now: u64,
    pub log: &'a mut EventLog,
}

impl PartitionContext<'_> {
    /// Records request `id` entering (`true`) or leaving `queue` now.
    fn note(&mut self, queue: Queue, id: RequestId, entered: bool) {
        note_queue(self.log, self.requests, self.core_now, queue, id, entered);
    }
}

impl MemorySystem {
    /// The memory system of `config`.
    pub fn new(config: &GpuConfig) -> Self {
        let memory = &config.memory;
        let q = memory.queues;
        let slices = (0..memory.n_sub_partitions())
            .map(|id| SubPartition {
                id,
                rop: VecDeque::new(),
                icnt_to_l2: Fifo::new(q.icnt_to_l2),
                l2: Cache::new(&memory.l2),
                mshrs: MshrTable::new(memory.l2.mshr_entries, memory.l2.mshr_max_merge),
                l2_to_dram: Fifo::new(q.l2_to_dram),
                dram_to_l2: Fifo::new(q.dram_to_l2),
                l2_to_icnt: Fifo::new(q.l2_to_icnt),
                rop_latency: u64::from(memory.l2_rop_latency_cycles),
                allocates_on_fill: memory.l2.allocation != Allocation::OnMiss,
                waiters: Vec::new(),
                stats: CacheReport::default(),
            })
            .collect();
        let channels = (0..memory.n_channels)
            .map(|_| Channel {
                dram: DramChannel::new(&config.dram),
                latency_queue: VecDeque::new(),
                returned: VecDeque::new(),
                next_sub_partition: 0,
                full_cycles: 0,
            })
            .collect();
        Self {
            slices,
            channels,
            per_channel: memory.sub_partitions_per_channel,
            dram_latency: u64::from(memory.dram_latency_cycles),
            core_khz: config.clocks.core.khz(),
            dram_khz: config.clocks.dram.khz().max(1),
        }
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

    /// One L2 cycle of every slice.
    pub(crate) fn l2_cycle(&mut self, ctx: &mut PartitionContext<'_>) {
        for slice in &mut self.slices {
            // Simulation gating: a slice with nothing queued and nothing
            // arriving has nothing to do this cycle.
            if slice.is_idle() && !ctx.request_network.has_pending(slice.id) {
                continue;
            }
            slice.cycle(ctx);
        }
    }

    /// One DRAM cycle of every channel.
    pub(crate) fn dram_cycle(&mut self, dram_now: u64, ctx: &mut PartitionContext<'_>) {
        for c in 0..self.channels.len() {
            let channel = &self.channels[c];
            let first = c * self.per_channel as usize;
            let slices = &self.slices[first..first + self.per_channel as usize];
            let idle = channel.latency_queue.is_empty()
                && channel.returned.is_empty()
                && channel.dram.is_idle()
                && slices.iter().all(|slice| slice.l2_to_dram.is_empty());
            if !idle {
                self.channel_cycle(c, dram_now, ctx);
            }
        }
    }

    /// When nothing moves between the L2 slices and DRAM: the first core
    /// cycle at which a slice or channel has work (a request leaving the ROP
    /// or DRAM latency queue, a DRAM command or transfer due), `u64::MAX` if
    /// none; `None` while a slice's queues or a channel's return path hold
    /// something.
    pub(crate) fn next_event(&self, clocks: &Clocks) -> Option<u64> {
        let mut next = u64::MAX;
        for slice in &self.slices {
            next = next.min(slice.next_event()?);
        }
        for channel in &self.channels {
            if !channel.returned.is_empty() {
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

    fn channel_cycle(&mut self, c: usize, dram_now: u64, ctx: &mut PartitionContext<'_>) {
        let per_channel = self.per_channel;
        let first = c as u32 * per_channel;
        // Take one request per cycle from the channel's slices, round-robin,
        // while the DRAM scheduler's queue has room (GPGPU-Sim checks
        // `dram_t::full` before a request enters the latency queue).
        let takes = if self.channels[c].dram.can_accept() { per_channel } else { 0 };
        for k in 0..takes {
            let s = first + (self.channels[c].next_sub_partition + k) % per_channel;
            if let Some(id) = self.slices[s as usize].l2_to_dram.pop() {
                let request = ctx.requests.get_mut(id);
                request.stamps.dram_queue += ctx.core_now.saturating_sub(request.stamps.to_dram);
                self.channels[c].latency_queue.push_back((ctx.core_now + self.dram_latency, id));
                self.channels[c].next_sub_partition = (self.channels[c].next_sub_partition + k + 1) % per_channel;
                break;
            }
        }
        let channel = &mut self.channels[c];
        if let Some(&(ready, id)) = channel.latency_queue.front()
            && ready <= ctx.core_now
        {
            if channel.dram.can_accept() {
                channel.latency_queue.pop_front();
                let request = ctx.requests.get_mut(id);
                request.stamps.dram_queue += ctx.core_now - ready;
                request.stamps.dram_service += self.dram_latency;
                let at = ctx.address_map.decode(request.address);
                let is_write = request.kind != RequestKind::L2Fill;
                let dram_request = DramRequest { tag: id.0, bank: at.bank, row: at.row, column: at.column, is_write };
                channel.dram.push(dram_request, dram_now);
            } else {
                channel.full_cycles += 1;
            }
        }
        channel.dram.cycle(dram_now);
        while let Some(done) = channel.dram.pop_completed(dram_now) {
            channel.returned.push_back((RequestId(done.tag), done));
        }
        self.deliver_returns(c, ctx);
    }

    /// Moves finished DRAM requests back to their slices while there is room.
    fn deliver_returns(&mut self, c: usize, ctx: &mut PartitionContext<'_>) {
        while let Some(&(id, done)) = self.channels[c].returned.front() {
            let kind = ctx.requests.get(id).kind;
            if kind == RequestKind::Writeback {
                // Write-backs end at DRAM; a write goes back to be acknowledged.
                self.channels[c].returned.pop_front();
                ctx.note(Queue::Dram, id, false);
                ctx.requests.remove(id);
                continue;
            }
            let slice = ctx.requests.get(id).sub_partition as usize;
            if !self.slices[slice].dram_to_l2.try_reserve() {
                break;
            }
            self.channels[c].returned.pop_front();
            ctx.note(Queue::Dram, id, false);
            let queued = self.to_core_cycles(done.queued_cycles);
            let service = self.to_core_cycles(done.service_cycles);
            let request = ctx.requests.get_mut(id);
            request.stamps.dram_queue += queued;
            request.stamps.dram_service += service;
            request.stamps.from_dram = ctx.core_now;
            self.slices[slice].dram_to_l2.push(id);
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
        self.rop.is_empty()
            && self.icnt_to_l2.is_empty()
            && self.l2_to_dram.is_empty()
            && self.dram_to_l2.is_empty()
            && self.l2_to_icnt.is_empty()
    }

    /// The core cycle the first request leaves the ROP queue when that is all
    /// the slice holds (`u64::MAX`: nothing at all); `None` otherwise.
    fn next_event(&self) -> Option<u64> {
        let queues_empty = self.icnt_to_l2.is_empty()
            && self.l2_to_dram.is_empty()
            && self.dram_to_l2.is_empty()
            && self.l2_to_icnt.is_empty();
        queues_empty.then(|| self.rop.front().map_or(u64::MAX, |&(ready, _)| ready))
    }

    /// The slice's queue depths now.
    pub(crate) fn snapshot(&self) -> SliceSnapshot {
        let to_l2 = self.icnt_to_l2.depth();
        SliceSnapshot {
            to_l2: Depth { len: to_l2.len + self.rop.len() as u32, capacity: to_l2.capacity },
            mshrs_in_use: Depth { len: self.mshrs.in_use() as u32, capacity: self.mshrs.capacity() as u32 },
            to_dram: self.l2_to_dram.depth(),
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

    /// One L2 cycle, back to front: replies out, fills in, one access, arrivals.
    fn cycle(&mut self, ctx: &mut PartitionContext<'_>) {
        self.send_reply(ctx);
        self.take_fill(ctx);
        self.access(ctx);
        if let Some(&(ready, id)) = self.rop.front()
            && ready <= ctx.core_now
            && self.icnt_to_l2.try_reserve()
        {
            self.rop.pop_front();
            self.icnt_to_l2.push(id);
        }
        // GPGPU-Sim takes a request from the crossbar only while the `icnt to
        // L2` queue has room for a whole line's sectors (`full(SECTOR_CHUNCK_SIZE)`),
        // however many wait in the ROP pipeline; otherwise the request stays in
        // the crossbar's output buffer.
        let room = self.icnt_to_l2.len() + SECTORS_PER_LINE as usize <= self.icnt_to_l2.capacity();
        if room && let Some(id) = ctx.request_network.peek(self.id, ctx.icnt_now) {
            ctx.request_network.pop(self.id);
            ctx.note(Queue::RequestNetwork, id, false);
            ctx.note(Queue::L2, id, true);
            ctx.requests.get_mut(id).stamps.at_partition = ctx.core_now;
            self.rop.push_back((ctx.core_now + self.rop_latency, id));
        }
    }

    fn send_reply(&mut self, ctx: &mut PartitionContext<'_>) {
        let Some(&id) = self.l2_to_icnt.front() else { return };
        if !ctx.reply_network.can_inject(self.id) {
            ctx.reply_network.count_full(self.id);
            return;
        }
        self.l2_to_icnt.pop();
        ctx.note(Queue::ReplyNetwork, id, true);
        let request = ctx.requests.get_mut(id);
        request.stamps.reply_injected = ctx.core_now;
        let data = match request.kind {
            RequestKind::Read | RequestKind::Atomic => request.bytes,
            _ => 0,
        };
        ctx.reply_network.inject(self.id, request.source, data, id);
    }

    fn take_fill(&mut self, ctx: &mut PartitionContext<'_>) {
        let Some(&id) = self.dram_to_l2.front() else { return };
        let fill = *ctx.requests.get(id);
        if fill.kind == RequestKind::Write {
            // DRAM has written it: the acknowledgement goes back to the SM.
            if self.l2_to_icnt.try_reserve() {
                self.dram_to_l2.pop();
                self.l2_to_icnt.push(id);
            }
            return;
        }
        let entry = fill.l2_entry;
        let merged = self.mshrs.waiting(entry);
        // Only a cache that allocates on fill can evict (and write back) here.
        let room_for_write_backs = !self.allocates_on_fill || self.l2_to_dram_room();
        if self.l2_to_icnt.len() + merged > self.l2_to_icnt.capacity() || !room_for_write_backs {
            self.l2_to_icnt.full_stalls += 1;
            return;
        }
        self.dram_to_l2.pop();
        let index_addr = ctx.address_map.partition_address(fill.address);
        if let Some(eviction) = self.l2.fill_at(fill.address, index_addr, ctx.core_now) {
            self.write_back(eviction, ctx);
        }
        let mut waiters = std::mem::take(&mut self.waiters);
        self.mshrs.release(entry, &mut waiters);
        for &waiter in waiters.iter().filter(|&&waiter| waiter != NO_WAITER) {
            let request = ctx.requests.get_mut(RequestId(waiter));
            request.stamps.dram_queue = fill.stamps.dram_queue;
            request.stamps.dram_service = fill.stamps.dram_service;
            self.l2_to_icnt.push(RequestId(waiter));
        }
        self.waiters = waiters;
        ctx.requests.remove(id);
    }

    /// Whether the `L2 to DRAM` queue has room for `n` requests and the
    /// write-backs of one evicted line.
    fn l2_to_dram_room_for(&self, n: usize) -> bool {
        let needed = n + SECTORS_PER_LINE as usize;
        self.l2_to_dram.len() + needed <= self.l2_to_dram.capacity().max(needed)
    }

    fn l2_to_dram_room(&self) -> bool {
        self.l2_to_dram_room_for(1)
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
        let needs_reply = matches!(request.kind, RequestKind::Read | RequestKind::Write | RequestKind::Atomic);
        let fetch_addr = request.address & !u64::from(SECTOR_BYTES - 1);
        let fits = match outcome {
            Outcome::ReservationFail => false,
            Outcome::Hit if !is_write => self.l2_to_icnt.can_push(),
            Outcome::HitReserved if !is_write => self.mshrs.can_take(fetch_addr),
            // A write miss may send the write itself and a fetch.
            _ if is_write => self.l2_to_dram_room_for(2) && (!needs_reply || self.l2_to_icnt.can_push()),
            _ => self.mshrs.can_take(fetch_addr) && self.l2_to_dram_room(),
        };
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
        if let Some(eviction) = effect.eviction {
            self.write_back(eviction, ctx);
        }
        if is_write {
            self.finish_write(id, &request, effect.fetch, effect.write_down, needs_reply, ctx);
            return;
        }
        match outcome {
            Outcome::Hit => self.l2_to_icnt.push(id),
            _ => {
                let (entry, new) = self.mshrs.take(fetch_addr, id.0);
                if new {
                    ctx.requests.get_mut(id).stamps.to_dram = ctx.core_now;
                    self.send_fill(fetch_addr, entry, ctx);
                }
            }
        }
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
            ctx.requests.get_mut(id).stamps.to_dram = ctx.core_now;
            self.l2_to_dram.push(id);
            ctx.note(Queue::Dram, id, true);
        } else if write_down {
            self.send_down(RequestKind::Writeback, request.address, request.bytes, ctx);
        }
        let fetch_addr = request.address & !u64::from(SECTOR_BYTES - 1);
        if fetch && self.mshrs.find(fetch_addr).is_none() && self.mshrs.can_take(fetch_addr) {
            // Write-allocate: the fill completes the sector; nobody waits for it.
            let (entry, _) = self.mshrs.take(fetch_addr, NO_WAITER);
            self.send_fill(fetch_addr, entry, ctx);
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
        let fill = self.send_down(RequestKind::L2Fill, address, SECTOR_BYTES, ctx);
        let request = ctx.requests.get_mut(fill);
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
            stamps: Stamps { to_dram: ctx.core_now, ..Stamps::default() },
        };
        let id = ctx.requests.insert(request);
        self.l2_to_dram.push(id);
        ctx.note(Queue::Dram, id, true);
        id
    }

    fn write_back(&mut self, eviction: Eviction, ctx: &mut PartitionContext<'_>) {
        for addr in eviction.dirty_sector_addrs() {
            self.send_down(RequestKind::Writeback, addr, SECTOR_BYTES, ctx);
        }
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
        let address_map = AddressMap::new(&config.memory, &config.dram);
        let mut requests = Requests::default();
        let ic = &config.interconnect;
        let mut request_network = Crossbar::for_config(config.n_sms(), config.memory.n_sub_partitions(), ic);
        let mut reply_network = Crossbar::for_config(config.memory.n_sub_partitions(), config.n_sms(), ic);
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
                stamps: Stamps::default(),
            };
            let id = requests.insert(request);
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
                requests: &mut requests,
                request_network: &mut request_network,
                reply_network: &mut reply_network,
                address_map: &address_map,
                core_now: now,
                icnt_now: now,
                log: &mut log,
            };
            memory.l2_cycle(&mut ctx);
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
