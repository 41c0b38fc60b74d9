//! Miss-status holding registers: the misses a cache has outstanding, each
//! with the requesters merged into it, for the L1s and the L2 slices.
//!
//! An entry is keyed by the address the cache fetches (a sector of a
//! sectored cache, a line otherwise). A miss to an address with an entry
//! merges into it while the entry has room (`mshr_max_merge`); otherwise it
//! needs a free entry. Running out of either is a reservation failure: the
//! access is retried and the cycle counts against the MSHRs.

use rustc_hash::FxHashMap;

/// One outstanding miss.
#[derive(Debug, Clone)]
struct Entry {
    address: u64,
    /// Requesters, in arrival order (capacity `max_merge`, allocated once).
    waiters: Vec<u32>,
}

/// An MSHR table.
#[derive(Debug, Clone)]
pub struct MshrTable {
    entries: Vec<Entry>,
    /// FxHash: the keys are addresses the model makes, not attacker input.
    by_address: FxHashMap<u64, u32>,
    free: Vec<u32>,
    max_merge: usize,
}

impl MshrTable {
    /// A table of `entries` entries merging up to `max_merge` requesters each.
    pub fn new(entries: u32, max_merge: u32) -> Self {
        let max_merge = max_merge.max(1) as usize;
        let n = entries.max(1);
        Self {
            entries: (0..n).map(|_| Entry { address: 0, waiters: Vec::with_capacity(max_merge) }).collect(),
            by_address: FxHashMap::with_capacity_and_hasher(n as usize, Default::default()),
            free: (0..n).rev().collect(),
            max_merge,
        }
    }

    /// Entries in use.
    pub fn in_use(&self) -> usize {
        self.entries.len() - self.free.len()
    }

    /// Entries in the table.
    pub fn capacity(&self) -> usize {
        self.entries.len()
    }

    /// The entry outstanding for `address`.
    pub fn find(&self, address: u64) -> Option<u32> {
        self.by_address.get(&address).copied()
    }

    /// Whether a miss to `address` can be recorded now: merged into its
    /// entry if it has one with room, else in a free entry.
    pub fn can_take(&self, address: u64) -> bool {
        match self.find(address) {
            Some(entry) => self.entries[entry as usize].waiters.len() < self.max_merge,
            None => !self.free.is_empty(),
        }
    }

    /// Records `waiter` for `address` (the caller checked [`MshrTable::can_take`]);
    /// returns the entry and whether it is new (a new entry sends a request down).
    pub fn take(&mut self, address: u64, waiter: u32) -> (u32, bool) {
        if let Some(entry) = self.find(address) {
            self.entries[entry as usize].waiters.push(waiter);
            return (entry, false);
        }
        let entry = self.free.pop().unwrap_or(0);
        let slot = &mut self.entries[entry as usize];
        slot.address = address;
        slot.waiters.clear();
        slot.waiters.push(waiter);
        self.by_address.insert(address, entry);
        (entry, true)
    }

    /// Requesters merged into `entry`.
    pub fn waiting(&self, entry: u32) -> usize {
        self.entries[entry as usize].waiters.len()
    }

    /// The address of `entry`.
    pub fn address(&self, entry: u32) -> u64 {
        self.entries[entry as usize].address
    }

    /// Removes the oldest requester of `entry` and returns it; the entry is
    /// freed with its last requester. This is how a cache whose fill answers
    /// its requesters one per cycle (GPGPU-Sim's `next_access`, the
    /// instruction cache) keeps the entry busy until all are answered.
    pub fn pop_waiter(&mut self, entry: u32) -> Option<u32> {
        let slot = &mut self.entries[entry as usize];
        if slot.waiters.is_empty() {
            return None;
        }
        let waiter = slot.waiters.remove(0);
        if slot.waiters.is_empty() {
            self.by_address.remove(&slot.address);
            self.free.push(entry);
        }
        Some(waiter)
    }

    /// Frees `entry`, moving its waiters into `out` (cleared first).
    pub fn release(&mut self, entry: u32, out: &mut Vec<u32>) {
        let slot = &mut self.entries[entry as usize];
        out.clear();
        out.extend_from_slice(&slot.waiters);
        slot.waiters.clear();
        self.by_address.remove(&slot.address);
        self.free.push(entry);
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
}
