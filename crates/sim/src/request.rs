//! Memory requests in flight between the SMs and DRAM, kept in slabs and
//! named by [`RequestId`], so queues move four-byte ids instead of structs and
//! nothing is allocated per request once the slabs have grown.
//!
//! Each SM makes its requests in a pool of its own, and the memory side
//! (L2 fills and the L2's write-backs) in one more. An SM's cycle then only
//! touches its own pool, so SMs can run their cycles on several threads, and
//! a request's id does not depend on the order in which SMs ran.

/// A request's name: its pool in the high bits, its slot in the pool below.
/// Only an identity: nothing in the model orders requests by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RequestId(pub u32);

/// Bits of a [`RequestId`] that name the slot within its pool.
const SLOT_BITS: u32 = 21;

/// Most requests one pool holds at once (2,097,152). Queues are bounded, so a
/// pool holds far fewer: an SM's requests are bounded by its MSHRs, miss
/// queues and crossbar buffers, the memory side's by the L2's MSHRs and queues.
pub const MAX_REQUESTS_PER_POOL: u32 = 1 << SLOT_BITS;

// Every SM and the memory side need a pool number below 2^(32 - SLOT_BITS).
const _: () = assert!(warplab_config::sm::MAX_SMS < (1 << (32 - SLOT_BITS)));

impl RequestId {
    fn new(pool: u32, slot: u32) -> Self {
        assert!(slot < MAX_REQUESTS_PER_POOL, "more than {MAX_REQUESTS_PER_POOL} requests in flight in one pool");
        Self((pool << SLOT_BITS) | slot)
    }

    /// The pool the request was made in: an SM's id, or the memory side's.
    pub fn pool(self) -> u32 {
        self.0 >> SLOT_BITS
    }

    fn slot(self) -> u32 {
        self.0 & (MAX_REQUESTS_PER_POOL - 1)
    }
}

/// What a request asks of the memory system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    /// Read a sector (or line); data comes back.
    Read,
    /// Write bytes; an acknowledgement comes back.
    Write,
    /// A write-back of an evicted dirty sector; nothing comes back.
    Writeback,
    /// An atomic or reduction performed at the L2; data comes back.
    Atomic,
    /// An L2 fill read sent to DRAM for the slice's MSHR entry.
    L2Fill,
}

/// Who waits for a request's answer at the SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waiter {
    /// Nobody (write-backs).
    None,
    /// An L1 MSHR entry, whose merged loads complete together.
    Mshr(u32),
    /// One load instruction directly (bypassing the L1).
    Load(u32),
    /// The store count of a warp slot.
    Store(u32),
    /// An instruction-cache MSHR entry, whose warps then fetch one by one.
    Fetch(u32),
}

/// The moments of a request's life, in core cycles, for the latency breakdown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stamps {
    /// The access first tried the L1.
    pub first_try: u64,
    /// It entered the request crossbar.
    pub injected: u64,
    /// It left the crossbar at its slice.
    pub at_partition: u64,
    /// It went to the L2-to-DRAM queue (a miss), or 0.
    pub to_dram: u64,
    /// DRAM command issue-to-data time, in core cycles.
    pub dram_service: u64,
    /// DRAM queueing in the scheduler, in core cycles.
    pub dram_queue: u64,
    /// Its data came back from DRAM, or 0.
    pub from_dram: u64,
    /// The reply entered the reply crossbar.
    pub reply_injected: u64,
}

/// One request.
#[derive(Debug, Clone, Copy)]
pub struct Request {
    /// What it is.
    pub kind: RequestKind,
    /// The SM that sent it (or the slice, for `L2Fill` and write-backs).
    pub source: u32,
    /// The L2 slice it goes to.
    pub sub_partition: u32,
    /// The sector or line address.
    pub address: u64,
    /// Data bytes it carries (writes) or asks for (reads).
    pub bytes: u32,
    /// Written bytes of the sector (writes).
    pub byte_mask: u32,
    /// Local-memory access (the `L` write policy treats it as write-back).
    pub local: bool,
    /// Who waits for it.
    pub waiter: Waiter,
    /// The L2 MSHR entry an `L2Fill` serves.
    pub l2_entry: u32,
}

/// The requests one SM (or the memory side) made that are in flight: what
/// the memory system reads as a request moves (a [`Request`], 40 bytes), and
/// apart from it its [`Stamps`], which only the latency breakdown reads. Kept
/// together they made 104-byte records, two host cache lines read for every
/// queue step of every request.
#[derive(Debug, Clone, Default)]
pub struct RequestPool {
    /// The pool's number, the high bits of its ids.
    number: u32,
    records: Slab<Request>,
    /// Slot `i`'s timestamps are `stamps[i]`.
    stamps: Vec<Stamps>,
}

/// Every request in flight: one [`RequestPool`] per SM, and the memory
/// side's view ([`MemoryRequests`]).
/// (No `Default`: a table without the memory side's pool could not take its requests.)
#[derive(Debug, Clone)]
pub struct Requests {
    sm_pools: Vec<RequestPool>,
    memory: MemoryRequests,
}

/// The requests the memory side reads and writes: its own (L2 fills and the
/// L2's write-backs) and a copy of each SM request it holds.
///
/// Why a copy: the memory side's L2 and DRAM cycles may run on one thread
/// while the SMs run theirs on others (`crate::gpu`), and an SM's cycle
/// inserts into its own pool, which may move the pool's storage. So an SM
/// request's record is copied to the memory side when the GPU applies the
/// SM's sends to the request crossbar ([`Requests::send_away`]), and its
/// stamps, the one part the memory side writes, go back when its reply
/// enters the reply crossbar ([`Requests::bring_back_replied`]), both
/// between the two phases. Its slot in the SM's pool stays taken meanwhile,
/// so ids are what they would be without the copy.
#[derive(Debug, Clone)]
pub struct MemoryRequests {
    own: RequestPool,
    /// Per SM, by slot: the record and stamps of each of its requests now
    /// in the memory side (slots of requests at the SM hold stale copies).
    away: Vec<Vec<(Request, Stamps)>>,
    /// SM requests the memory side ended (write-backs the L2 kept), whose
    /// slots the GPU frees in their SM's pool, in this order, before the
    /// SMs' next phase ([`Requests::free_ended`]).
    ended: Vec<RequestId>,
    /// SM write-backs in the memory side: while there are any, an L2 cycle
    /// may end one, which must free its slot before the SMs' phase, so the
    /// L2 cannot run beside that phase ([`Requests::may_end_sm_requests`]).
    away_writebacks: u32,
    /// SM requests whose replies entered the reply crossbar, to move back
    /// to their SMs ([`Requests::bring_back_replied`]).
    replied: Vec<RequestId>,
}

/// Records named by their index, with a free list, so that records are
/// created and dropped without allocating once the slab has grown.
#[derive(Debug, Clone)]
pub struct Slab<T> {
    slots: Vec<T>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Self { slots: Vec::new(), free: Vec::new() }
    }
}

impl<T> Slab<T> {
    /// Stores a record and returns its index.
    pub fn insert_index(&mut self, record: T) -> u32 {
        match self.free.pop() {
            Some(index) => {
                self.slots[index as usize] = record;
                index
            }
            None => {
                self.slots.push(record);
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// Frees index `index`; it must not be used again.
    pub fn remove_index(&mut self, index: u32) {
        self.free.push(index);
    }
}

impl<T> std::ops::Index<u32> for Slab<T> {
    type Output = T;
    fn index(&self, index: u32) -> &T {
        &self.slots[index as usize]
    }
}

impl<T> std::ops::IndexMut<u32> for Slab<T> {
    fn index_mut(&mut self, index: u32) -> &mut T {
        &mut self.slots[index as usize]
    }
}

impl RequestPool {
    /// An empty pool numbered `number`.
    pub fn new(number: u32) -> Self {
        Self { number, records: Slab::default(), stamps: Vec::new() }
    }

    /// Stores a request with its first timestamps and names it.
    pub fn insert(&mut self, request: Request, stamps: Stamps) -> RequestId {
        let slot = self.records.insert_index(request);
        match self.stamps.get_mut(slot as usize) {
            Some(entry) => *entry = stamps,
            None => self.stamps.push(stamps),
        }
        RequestId::new(self.number, slot)
    }

    /// The request `id` (of this pool) names.
    pub fn get(&self, id: RequestId) -> &Request {
        debug_assert_eq!(id.pool(), self.number);
        &self.records[id.slot()]
    }

    /// The request `id` (of this pool) names, to update.
    pub fn get_mut(&mut self, id: RequestId) -> &mut Request {
        debug_assert_eq!(id.pool(), self.number);
        &mut self.records[id.slot()]
    }

    /// The timestamps of request `id` (of this pool).
    pub fn stamps(&self, id: RequestId) -> &Stamps {
        &self.stamps[id.slot() as usize]
    }

    /// The timestamps of request `id` (of this pool), to update.
    pub fn stamps_mut(&mut self, id: RequestId) -> &mut Stamps {
        &mut self.stamps[id.slot() as usize]
    }

    /// Frees the request; the id must not be used again.
    pub fn remove(&mut self, id: RequestId) {
        debug_assert_eq!(id.pool(), self.number);
        self.records.remove_index(id.slot());
    }
}

impl Requests {
    /// Pools for `n_sms` SMs and the memory side.
    pub fn new(n_sms: u32) -> Self {
        let memory = MemoryRequests {
            own: RequestPool::new(n_sms),
            away: vec![Vec::new(); n_sms as usize],
            ended: Vec::new(),
            away_writebacks: 0,
            replied: Vec::new(),
        };
        Self { sm_pools: (0..n_sms).map(RequestPool::new).collect(), memory }
    }

    /// What the memory side reads and writes.
    pub fn memory_mut(&mut self) -> &mut MemoryRequests {
        &mut self.memory
    }

    /// The SMs' pools and the memory side's requests, apart.
    pub fn split_mut(&mut self) -> (&mut [RequestPool], &mut MemoryRequests) {
        (&mut self.sm_pools, &mut self.memory)
    }

    /// Moves SM request `id`'s record to the memory side (it entered the
    /// request crossbar).
    pub fn send_away(&mut self, id: RequestId) {
        let pool = &self.sm_pools[id.pool() as usize];
        let record = (*pool.get(id), *pool.stamps(id));
        if record.0.kind == RequestKind::Writeback {
            self.memory.away_writebacks += 1;
        }
        let away = &mut self.memory.away[id.pool() as usize];
        let slot = id.slot() as usize;
        if slot >= away.len() {
            away.resize(slot + 1, record);
        }
        away[slot] = record;
    }

    /// Moves the records of the SM requests whose replies entered the reply
    /// crossbar back to their SMs: their stamps, the one part the memory
    /// side writes.
    pub fn bring_back_replied(&mut self) {
        for id in self.memory.replied.drain(..) {
            let (_, stamps) = self.memory.away[id.pool() as usize][id.slot() as usize];
            *self.sm_pools[id.pool() as usize].stamps_mut(id) = stamps;
        }
    }

    /// Frees, in their SMs' pools, the SM requests the memory side ended.
    pub fn free_ended(&mut self) {
        for id in self.memory.ended.drain(..) {
            self.sm_pools[id.pool() as usize].remove(id);
        }
    }

    /// Whether the memory side holds an SM request it may end without a
    /// reply (an L1 write-back).
    pub fn may_end_sm_requests(&self) -> bool {
        self.memory.away_writebacks > 0
    }
}

impl MemoryRequests {
    /// Whether `id` is the memory side's own request.
    fn is_own(&self, id: RequestId) -> bool {
        id.pool() == self.own.number
    }

    /// Stores a request the memory side made and names it.
    pub fn insert(&mut self, request: Request, stamps: Stamps) -> RequestId {
        self.own.insert(request, stamps)
    }

    /// The request `id` names.
    pub fn get(&self, id: RequestId) -> &Request {
        if self.is_own(id) { self.own.get(id) } else { &self.away[id.pool() as usize][id.slot() as usize].0 }
    }

    /// The memory side's own request `id`, to update (an SM's request
    /// is not changed here, so only its stamps go back).
    pub fn own_mut(&mut self, id: RequestId) -> &mut Request {
        self.own.get_mut(id)
    }

    /// The timestamps of request `id`.
    pub fn stamps(&self, id: RequestId) -> &Stamps {
        if self.is_own(id) { self.own.stamps(id) } else { &self.away[id.pool() as usize][id.slot() as usize].1 }
    }

    /// The timestamps of request `id`, to update.
    pub fn stamps_mut(&mut self, id: RequestId) -> &mut Stamps {
        if self.is_own(id) { self.own.stamps_mut(id) } else { &mut self.away[id.pool() as usize][id.slot() as usize].1 }
    }

    /// Notes that request `id`'s reply entered the reply crossbar: an SM's
    /// record goes back to its SM ([`Requests::bring_back_replied`]).
    pub fn replied(&mut self, id: RequestId) {
        if !self.is_own(id) {
            self.replied.push(id);
        }
    }

    /// Ends request `id`: the memory side's own is freed now, an SM's when
    /// the GPU frees the ended ones ([`Requests::free_ended`]).
    pub fn remove(&mut self, id: RequestId) {
        if self.is_own(id) {
            self.own.remove(id);
            return;
        }
        if self.get(id).kind == RequestKind::Writeback {
            self.away_writebacks -= 1;
        }
        self.ended.push(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(kind: RequestKind) -> Request {
        Request {
            kind,
            source: 0,
            sub_partition: 0,
            address: 0x100,
            bytes: 32,
            byte_mask: u32::MAX,
            local: false,
            waiter: Waiter::None,
            l2_entry: 0,
        }
    }

    #[test]
    fn an_sm_request_goes_to_the_memory_side_and_its_stamps_come_back() {
        let mut requests = Requests::new(2);
        let (pools, _) = requests.split_mut();
        let id = pools[1].insert(request(RequestKind::Read), Stamps { first_try: 5, ..Stamps::default() });
        requests.send_away(id);
        let memory = requests.memory_mut();
        assert_eq!(memory.get(id).address, 0x100);
        memory.stamps_mut(id).at_partition = 40;
        memory.replied(id);
        requests.bring_back_replied();
        let (pools, _) = requests.split_mut();
        assert_eq!((pools[1].stamps(id).first_try, pools[1].stamps(id).at_partition), (5, 40));
    }

    #[test]
    fn an_ended_sm_write_back_is_freed_in_its_pool_in_order_and_no_longer_counted() {
        let mut requests = Requests::new(1);
        let (pools, _) = requests.split_mut();
        let ids: Vec<RequestId> =
            (0..3).map(|_| pools[0].insert(request(RequestKind::Writeback), Stamps::default())).collect();
        for &id in &ids {
            requests.send_away(id);
        }
        assert!(requests.may_end_sm_requests());
        requests.memory_mut().remove(ids[2]);
        requests.memory_mut().remove(ids[0]);
        // Not freed until the GPU frees the ended ones.
        let (pools, _) = requests.split_mut();
        let held = pools[0].insert(request(RequestKind::Read), Stamps::default());
        assert_eq!(held.0 & (MAX_REQUESTS_PER_POOL - 1), 3);
        requests.free_ended();
        // The free list gives back the last freed first, as if freed in the L2's cycle.
        let (pools, _) = requests.split_mut();
        assert_eq!(pools[0].insert(request(RequestKind::Read), Stamps::default()), ids[0]);
        assert_eq!(pools[0].insert(request(RequestKind::Read), Stamps::default()), ids[2]);
        assert!(requests.may_end_sm_requests(), "one write-back is still away");
        requests.memory_mut().remove(ids[1]);
        assert!(!requests.may_end_sm_requests());
    }

    #[test]
    fn the_memory_side_keeps_its_own_requests() {
        let mut requests = Requests::new(1);
        let memory = requests.memory_mut();
        let id = memory.insert(request(RequestKind::L2Fill), Stamps::default());
        assert_eq!(id.pool(), 1);
        memory.own_mut(id).l2_entry = 7;
        assert_eq!(memory.get(id).l2_entry, 7);
        memory.replied(id);
        memory.remove(id);
        requests.bring_back_replied();
        requests.free_ended();
        assert_eq!(requests.memory_mut().insert(request(RequestKind::L2Fill), Stamps::default()), id);
    }
}
