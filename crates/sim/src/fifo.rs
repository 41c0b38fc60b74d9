//! A bounded first-in, first-out queue: every link between two units.
//!
//! A full queue never drops or grows: the producer checks [`Fifo::can_push`],
//! and when it is full it waits and counts a stall against the link, which is
//! how back-pressure (a full miss queue, a full DRAM queue) reaches the SMs.

use std::collections::VecDeque;

/// Items a new queue has room for before it first grows.
const INITIAL_ROOM: usize = 8;

/// A queue of at most `capacity` items.
#[derive(Debug, Clone)]
pub struct Fifo<T> {
    items: VecDeque<T>,
    capacity: usize,
    /// Cycles a producer found this queue full.
    pub full_stalls: u64,
}

impl<T> Fifo<T> {
    /// An empty queue for `capacity` items (at least one), with room for a
    /// few: it grows to what it holds at most, and keeps that room. Most
    /// queues never fill, and reserving every queue's bound cost a
    /// `chiplet-1024sm` GPU 200 MB for its 32,768 crossbar inputs alone,
    /// untouched but counted against a browser's memory.
    pub fn new(capacity: u32) -> Self {
        let capacity = capacity.max(1) as usize;
        Self { items: VecDeque::with_capacity(capacity.min(INITIAL_ROOM)), capacity, full_stalls: 0 }
    }

    /// Whether one more item fits.
    pub fn can_push(&self) -> bool {
        self.items.len() < self.capacity
    }

    /// Whether one more item fits; counts a stall when it does not.
    pub fn try_reserve(&mut self) -> bool {
        let fits = self.can_push();
        if !fits {
            self.full_stalls += 1;
        }
        fits
    }

    /// Appends an item. The caller has checked [`Fifo::can_push`]; pushing onto a
    /// full queue still keeps the item (never loses a request) but is a bug the
    /// debug build reports.
    pub fn push(&mut self, item: T) {
        debug_assert!(self.can_push(), "push onto a full FIFO");
        self.items.push_back(item);
    }

    /// The oldest item.
    pub fn front(&self) -> Option<&T> {
        self.items.front()
    }

    /// Removes the oldest item.
    pub fn pop(&mut self) -> Option<T> {
        self.items.pop_front()
    }

    /// The items, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.items.iter()
    }

    /// Items queued and their capacity, as a snapshot shows them.
    pub fn depth(&self) -> crate::snapshot::Depth {
        crate::snapshot::Depth { len: self.items.len() as u32, capacity: self.capacity as u32 }
    }

    /// Items queued.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The most items the queue holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_fifo_refuses_and_counts() {
        let mut fifo = Fifo::new(2);
        assert!(fifo.try_reserve());
        fifo.push(1);
        fifo.push(2);
        assert!(!fifo.try_reserve());
        assert_eq!(fifo.full_stalls, 1);
        assert_eq!(fifo.pop(), Some(1));
        assert!(fifo.can_push());
    }
}
