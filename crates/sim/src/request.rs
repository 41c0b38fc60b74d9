//! Memory requests in flight between the SMs and DRAM, kept in one slab and
//! named by [`RequestId`], so queues move four-byte ids instead of structs and
//! nothing is allocated per request once the slab has grown.

/// Index of a request in the [`Requests`] slab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RequestId(pub u32);

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

/// The requests in flight: what the memory system reads as a request moves
/// (a [`Request`], 40 bytes), and apart from it its [`Stamps`], which only
/// the latency breakdown reads. Kept together they made 104-byte records,
/// two host cache lines read for every queue step of every request.
#[derive(Debug, Clone, Default)]
pub struct Requests {
    records: Slab<Request>,
    /// Request `i`'s timestamps are `stamps[i]`.
    stamps: Vec<Stamps>,
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

impl Requests {
    /// Stores a request with its first timestamps and names it.
    pub fn insert(&mut self, request: Request, stamps: Stamps) -> RequestId {
        let index = self.records.insert_index(request);
        match self.stamps.get_mut(index as usize) {
            Some(slot) => *slot = stamps,
            None => self.stamps.push(stamps),
        }
        RequestId(index)
    }

    /// The request `id` names.
    pub fn get(&self, id: RequestId) -> &Request {
        &self.records[id.0]
    }

    /// The request `id` names, to update.
    pub fn get_mut(&mut self, id: RequestId) -> &mut Request {
        &mut self.records[id.0]
    }

    /// The timestamps of request `id`.
    pub fn stamps(&self, id: RequestId) -> &Stamps {
        &self.stamps[id.0 as usize]
    }

    /// The timestamps of request `id`, to update.
    pub fn stamps_mut(&mut self, id: RequestId) -> &mut Stamps {
        &mut self.stamps[id.0 as usize]
    }

    /// Frees the request; the id must not be used again.
    pub fn remove(&mut self, id: RequestId) {
        self.records.remove_index(id.0);
    }
}
