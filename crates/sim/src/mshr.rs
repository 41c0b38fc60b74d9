//! Miss-status holding registers: the misses a cache has outstanding, each
//! with the requesters merged into it, for the L1s and the L2 slices.
//!
//! An entry is keyed by the address the cache fetches (a sector of a
//! sectored cache, a line otherwise). A miss to an address with an entry
//! merges into it while the entry has room (`mshr_max_merge`); otherwise it
//! needs a free entry. Running out of either is a reservation failure: the
//! access is retried and the cycle counts against the MSHRs.

/// Words of an entry's record before its requesters: the address's low and
/// high halves and the number of requesters.
const HEADER_WORDS: usize = 3;

/// An MSHR table.
#[derive(Debug, Clone)]
pub struct MshrTable {
    /// Entry `e`'s record is `records[e * record_words..][..record_words]`:
    /// its address (low, high), its requester count, then up to `max_merge`
    /// requesters in arrival order. One flat record per entry keeps what a
    /// fill reads (the address to unmap, the requesters) in one or two host
    /// cache lines, where a `Vec` per entry put the requesters a pointer away.
    records: Vec<u32>,
    record_words: usize,
    /// Entries in the table (read at every ticked cycle for the occupancy:
    /// kept, not divided out of the records' length).
    entries: usize,
    by_address: AddressIndex,
    free: Vec<u32>,
    max_merge: usize,
    /// Pops and releases so far, the only changes that make room: while the
    /// count stays the same, a refusal still stands ([`MshrTable::room_made`]).
    room_made: u64,
}

impl MshrTable {
    /// A table of `entries` entries merging up to `max_merge` requesters each.
    pub fn new(entries: u32, max_merge: u32) -> Self {
        let max_merge = max_merge.max(1) as usize;
        let n = entries.max(1);
        let record_words = HEADER_WORDS + max_merge;
        Self {
            records: vec![0; n as usize * record_words],
            record_words,
            entries: n as usize,
            by_address: AddressIndex::new(n),
            free: (0..n).rev().collect(),
            max_merge,
            room_made: 0,
        }
    }

    /// Entries in use.
    pub fn in_use(&self) -> usize {
        self.capacity() - self.free.len()
    }

    /// Entries in the table.
    pub fn capacity(&self) -> usize {
        self.entries
    }

    /// How many times the table has made room (a requester popped, an entry
    /// released). While this stays the same, [`MshrTable::can_take`] turns
    /// from false to true for no address: a take only fills an entry or
    /// uses a free one, so a caller can tell that a refusal still stands.
    pub fn room_made(&self) -> u64 {
        self.room_made
    }

    /// The entry outstanding for `address`.
    pub fn find(&self, address: u64) -> Option<u32> {
        self.by_address.get(address, |entry| self.address(entry) == address)
    }

    /// Whether a miss to `address` can be recorded now: merged into its
    /// entry if it has one with room, else in a free entry.
    pub fn can_take(&self, address: u64) -> bool {
        match self.find(address) {
            Some(entry) => self.waiting(entry) < self.max_merge,
            None => !self.free.is_empty(),
        }
    }

    /// Records `waiter` for `address` (the caller checked [`MshrTable::can_take`]);
    /// returns the entry and whether it is new (a new entry sends a request down).
    pub fn take(&mut self, address: u64, waiter: u32) -> (u32, bool) {
        let (entry, new) = match self.find(address) {
            Some(entry) => (entry, false),
            None => {
                let entry = self.free.pop().unwrap_or(0);
                let record = self.record_mut(entry);
                record[0] = address as u32;
                record[1] = (address >> 32) as u32;
                record[2] = 0;
                self.by_address.insert(address, entry);
                (entry, true)
            }
        };
        let max_merge = self.max_merge;
        let record = self.record_mut(entry);
        let n = record[2] as usize;
        debug_assert!(n < max_merge, "take on a full MSHR entry");
        // A full entry keeps the requesters it has (callers check `can_take`).
        if n < max_merge {
            record[HEADER_WORDS + n] = waiter;
            record[2] += 1;
        }
        (entry, new)
    }

    /// Requesters merged into `entry`.
    pub fn waiting(&self, entry: u32) -> usize {
        self.record(entry)[2] as usize
    }

    /// The requesters merged into `entry`, oldest first.
    pub fn waiters(&self, entry: u32) -> &[u32] {
        let record = self.record(entry);
        &record[HEADER_WORDS..HEADER_WORDS + record[2] as usize]
    }

    /// The address of `entry`.
    pub fn address(&self, entry: u32) -> u64 {
        let record = self.record(entry);
        u64::from(record[0]) | u64::from(record[1]) << 32
    }

    /// Removes the oldest requester of `entry` and returns it; the entry is
    /// freed with its last requester. This is how a cache whose fill answers
    /// its requesters one per cycle (GPGPU-Sim's `next_access`, the
    /// instruction cache) keeps the entry busy until all are answered.
    pub fn pop_waiter(&mut self, entry: u32) -> Option<u32> {
        self.room_made += 1;
        let record = self.record_mut(entry);
        let n = record[2] as usize;
        if n == 0 {
            return None;
        }
        let waiter = record[HEADER_WORDS];
        record.copy_within(HEADER_WORDS + 1..HEADER_WORDS + n, HEADER_WORDS);
        record[2] -= 1;
        if n == 1 {
            self.free_entry(entry);
        }
        Some(waiter)
    }

    /// Frees `entry`, moving its waiters into `out` (cleared first).
    pub fn release(&mut self, entry: u32, out: &mut Vec<u32>) {
        self.room_made += 1;
        let record = self.record_mut(entry);
        let n = record[2] as usize;
        record[2] = 0;
        out.clear();
        out.extend_from_slice(&record[HEADER_WORDS..HEADER_WORDS + n]);
        self.free_entry(entry);
    }

    fn free_entry(&mut self, entry: u32) {
        self.by_address.remove(self.address(entry), entry);
        self.free.push(entry);
    }

    fn record(&self, entry: u32) -> &[u32] {
        let start = entry as usize * self.record_words;
        &self.records[start..start + self.record_words]
    }

    fn record_mut(&mut self, entry: u32) -> &mut [u32] {
        let start = entry as usize * self.record_words;
        &mut self.records[start..start + self.record_words]
    }
}

/// The entry of each address with one: open addressing with linear probing
/// in a power-of-two table kept at most half full, deletion by backward
/// shift (no tombstones, so a long run never slows the probes); the table
/// never grows, its size is fixed by the MSHR count. A slot holds its entry
/// and the top 32 bits of its address's hash, 8 bytes: the hash gives the
/// slot's home for the shift and rules out other addresses without reading
/// their records, and the one record a hit reads is the one its caller
/// reads next anyway. (With the address in the slot, a 192-entry L2 MSHR's
/// index was 8 KB, and its misses were most of `pop_waiter`'s time.)
#[derive(Debug, Clone)]
struct AddressIndex {
    slots: Vec<IndexSlot>,
    /// `32 - log2(slots.len())`: a hash's top bits pick its home slot.
    shift: u32,
}

#[derive(Debug, Clone, Copy)]
struct IndexSlot {
    hash: u32,
    /// [`VACANT`] when the slot is free.
    entry: u32,
}

const VACANT: u32 = u32::MAX;

/// Fibonacci hashing: the addresses are sector or line addresses, whose low
/// bits are zero, and the multiply spreads their middle bits into the top
/// bits kept.
fn hash(address: u64) -> u32 {
    (address.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32
}

impl AddressIndex {
    fn new(entries: u32) -> Self {
        let size = (2 * entries as usize).next_power_of_two().max(2);
        Self { slots: vec![IndexSlot { hash: 0, entry: VACANT }; size], shift: 32 - size.trailing_zeros() }
    }

    fn home(&self, hash: u32) -> usize {
        (hash >> self.shift) as usize
    }

    fn next(&self, slot: usize) -> usize {
        (slot + 1) & (self.slots.len() - 1)
    }

    /// Walks the probe run from `hash`'s home: the first slot that `wanted`
    /// accepts (`Ok`), or the vacant slot that ends the run (`Err`). The
    /// table is at most half full, so every run ends.
    fn probe(&self, hash: u32, wanted: impl Fn(IndexSlot) -> bool) -> Result<usize, usize> {
        let mut slot = self.home(hash);
        loop {
            let found = self.slots[slot];
            if found.entry == VACANT {
                return Err(slot);
            }
            if wanted(found) {
                return Ok(slot);
            }
            slot = self.next(slot);
        }
    }

    /// The entry of `address`; `holds(entry)` says whether an entry whose
    /// hash matches is really that address's.
    fn get(&self, address: u64, holds: impl Fn(u32) -> bool) -> Option<u32> {
        let hash = hash(address);
        let slot = self.probe(hash, |found| found.hash == hash && holds(found.entry)).ok()?;
        Some(self.slots[slot].entry)
    }

    /// Adds `entry` for `address` (which has none yet), in the vacant slot
    /// that ends its probe run.
    fn insert(&mut self, address: u64, entry: u32) {
        let hash = hash(address);
        let (Ok(slot) | Err(slot)) = self.probe(hash, |_| false);
        self.slots[slot] = IndexSlot { hash, entry };
    }

    /// Removes `entry`, indexed under `address`, then moves back each later
    /// slot of its probe run that may sit in the hole (its home is not
    /// cyclically between the hole and itself), so every entry stays
    /// reachable from its home.
    fn remove(&mut self, address: u64, entry: u32) {
        let Ok(slot) = self.probe(hash(address), |found| found.entry == entry) else { return };
        let mask = self.slots.len() - 1;
        let mut hole = slot;
        let mut probe = self.next(hole);
        while self.slots[probe].entry != VACANT {
            let home = self.home(self.slots[probe].hash);
            // Distance from home to probe, and from hole to probe, cyclically.
            if (probe.wrapping_sub(home) & mask) >= (probe.wrapping_sub(hole) & mask) {
                self.slots[hole] = self.slots[probe];
                hole = probe;
            }
            probe = self.next(probe);
        }
        self.slots[hole].entry = VACANT;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_up_to_the_limit_then_refuses() {
        let mut mshr = MshrTable::new(1, 2);
        assert!(mshr.can_take(0x100));
        assert_eq!(mshr.take(0x100, 1), (0, true));
        assert_eq!(mshr.take(0x100, 2), (0, false));
        assert!(!mshr.can_take(0x100), "merge limit");
        assert!(!mshr.can_take(0x200), "no free entry");
        let mut waiters = Vec::new();
        mshr.release(0, &mut waiters);
        assert_eq!(waiters, [1, 2]);
        assert!(mshr.can_take(0x200));
        assert_eq!(mshr.in_use(), 0);
    }

    #[test]
    fn popping_waiters_frees_the_entry_with_the_last() {
        let mut mshr = MshrTable::new(1, 4);
        mshr.take(0x100, 7);
        mshr.take(0x100, 8);
        assert_eq!(mshr.pop_waiter(0), Some(7));
        assert_eq!((mshr.in_use(), mshr.find(0x100)), (1, Some(0)), "still busy with one requester");
        assert_eq!(mshr.pop_waiter(0), Some(8));
        assert_eq!((mshr.in_use(), mshr.find(0x100), mshr.pop_waiter(0)), (0, None, None));
    }

    proptest::proptest! {
        /// A refusal stands while the table makes no room: under any takes,
        /// pops and releases, an address `can_take` refused is refused
        /// again as long as `room_made` has not moved.
        #[test]
        fn a_refusal_stands_until_room_is_made(ops in proptest::collection::vec((0u64..6, 0u8..3), 0..300)) {
            let mut mshr = MshrTable::new(3, 2);
            let mut refused: Vec<(u64, u64)> = Vec::new();
            let mut out = Vec::new();
            for (key, op) in ops {
                let address = key * 32;
                match op {
                    0 if mshr.can_take(address) => _ = mshr.take(address, 0),
                    0 => refused.push((address, mshr.room_made())),
                    1 => _ = mshr.find(address).map(|entry| mshr.pop_waiter(entry)),
                    _ => {
                        if let Some(entry) = mshr.find(address) {
                            mshr.release(entry, &mut out);
                        }
                    }
                }
                for &(address, room) in &refused {
                    if mshr.room_made() == room {
                        proptest::prop_assert!(!mshr.can_take(address), "{:#x} taken with no room made", address);
                    }
                }
            }
        }

        /// The index agrees with a map under any sequence of inserts and
        /// removes of colliding addresses (few distinct ones, so probe runs
        /// wrap and removals shift).
        #[test]
        fn the_address_index_is_a_map(ops in proptest::collection::vec((0u64..24, proptest::bool::ANY), 0..400)) {
            let mut index = AddressIndex::new(8);
            let mut model = std::collections::BTreeMap::new();
            let mut free: Vec<u32> = (0..8).collect();
            let mut address_of = [u64::MAX; 8];
            for (key, insert) in ops {
                let address = key * 32;
                if insert && !model.contains_key(&address) && !free.is_empty() {
                    let entry = free.pop().unwrap_or(0);
                    index.insert(address, entry);
                    address_of[entry as usize] = address;
                    model.insert(address, entry);
                } else if !insert && let Some(entry) = model.remove(&address) {
                    index.remove(address, entry);
                    free.push(entry);
                }
                for k in 0..24 {
                    let found = index.get(k * 32, |entry| address_of[entry as usize] == k * 32);
                    proptest::prop_assert_eq!(found, model.get(&(k * 32)).copied());
                }
            }
        }
    }
}
