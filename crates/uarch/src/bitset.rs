//! A fixed-size set of small ids (warp slots, crossbar inputs) in 64-bit
//! words, with the round-robin search both the fetch stage and the crossbar's
//! iSLIP arbiter need: the first member at or after a pointer, wrapping.

/// A set of the ids `0..len`. The first word is kept inline: most sets hold
/// at most 64 ids, and the hot paths that test them then read no other memory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BitSet {
    first: u64,
    /// Words 1 and on.
    rest: Vec<u64>,
    len: usize,
    count: usize,
}

impl BitSet {
    /// An empty set of the ids `0..len`.
    pub fn new(len: usize) -> Self {
        Self { first: 0, rest: vec![0; len.div_ceil(64).saturating_sub(1)], len, count: 0 }
    }

    /// Members.
    pub fn count(&self) -> usize {
        self.count
    }

    fn word_mut(&mut self, word: usize) -> &mut u64 {
        if word == 0 { &mut self.first } else { &mut self.rest[word - 1] }
    }

    /// Adds `id` (below `len`).
    pub fn insert(&mut self, id: usize) {
        let bit = 1u64 << (id % 64);
        let word = self.word_mut(id / 64);
        if *word & bit == 0 {
            *word |= bit;
            self.count += 1;
        }
    }

    /// Removes `id`.
    pub fn remove(&mut self, id: usize) {
        let bit = 1u64 << (id % 64);
        let word = self.word_mut(id / 64);
        if *word & bit != 0 {
            *word &= !bit;
            self.count -= 1;
        }
    }

    /// Whether `id` is a member.
    pub fn contains(&self, id: usize) -> bool {
        self.word(id / 64) & (1 << (id % 64)) != 0
    }

    /// Adds `id` when `member`, else removes it.
    pub fn set(&mut self, id: usize, member: bool) {
        if member {
            self.insert(id);
        } else {
            self.remove(id);
        }
    }

    /// Removes every member.
    pub fn clear(&mut self) {
        if self.count > 0 {
            self.first = 0;
            // Most sets have no other word, and `fill` on an empty slice is
            // still a call to `memset` (1.4% of a run's time, from the
            // collector's bank claims cleared each cycle).
            if !self.rest.is_empty() {
                self.rest.fill(0);
            }
            self.count = 0;
        }
    }

    /// The members `64 * word .. 64 * word + 64`, as the bits of one word.
    pub fn word(&self, word: usize) -> u64 {
        if word == 0 { self.first } else { self.rest[word - 1] }
    }

    /// Words of 64 ids.
    pub fn n_words(&self) -> usize {
        self.len.div_ceil(64)
    }

    /// Calls `f` with each member, in increasing order.
    pub fn for_each(&self, mut f: impl FnMut(usize)) {
        for word in 0..self.n_words() {
            for_each_bit(word, self.word(word), &mut f);
        }
    }

    /// The first member at or after `start`, wrapping around past `len - 1`
    /// to 0 (a `start` at or beyond `len` starts at 0).
    pub fn next_from(&self, start: usize) -> Option<usize> {
        if self.count == 0 {
            return None;
        }
        let start = if start >= self.len { 0 } else { start };
        let n_words = self.n_words();
        let (first_word, first_bit) = (start / 64, start % 64);
        // The start word from `start` on, the following words, then the start
        // word again below `start`.
        for k in 0..=n_words {
            let word = (first_word + k) % n_words;
            let mut value = self.word(word);
            if k == 0 {
                value &= u64::MAX << first_bit;
            } else if k == n_words {
                value &= !(u64::MAX << first_bit);
            }
            if value != 0 {
                return Some(word * 64 + value.trailing_zeros() as usize);
            }
        }
        None
    }

    /// In a scan of every id from `start` (below `len`) on, wrapping, which
    /// visits id `(start + step) % len` at step `step`: the first member the
    /// scan visits at step `step` or later, with its step. A scan that
    /// visits only members this way reads a word per member, not one id
    /// per step.
    pub fn next_in_scan(&self, start: usize, step: usize) -> Option<(usize, usize)> {
        let len = self.len;
        if step >= len {
            return None;
        }
        if len <= 64 {
            // One word, rotated so that the scan's order is the bits' order.
            let ones = if len == 64 { u64::MAX } else { (1 << len) - 1 };
            let word = self.first;
            let rotated = if start == 0 { word } else { ((word >> start) | (word << (len - start))) & ones };
            let left = rotated & (u64::MAX << step);
            if left == 0 {
                return None;
            }
            let at = left.trailing_zeros() as usize;
            let id = start + at;
            return Some((if id >= len { id - len } else { id }, at));
        }
        let id = self.next_from((start + step) % len)?;
        let at = (id + len - start) % len;
        (at >= step).then_some((id, at))
    }
}

/// Calls `f` with the id of each bit set in `bits`, word `word` of a set, in
/// increasing order.
pub fn for_each_bit(word: usize, mut bits: u64, mut f: impl FnMut(usize)) {
    while bits != 0 {
        f(word * 64 + bits.trailing_zeros() as usize);
        bits &= bits - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_finds_the_next_member_and_wraps() {
        let check = |members: &[usize], len: usize, start: usize, expect: Option<usize>| {
            let mut set = BitSet::new(len);
            for &id in members {
                set.insert(id);
            }
            assert_eq!(set.next_from(start), expect, "{members:?} from {start}");
        };
        check(&[], 64, 0, None);
        check(&[3], 64, 0, Some(3));
        check(&[3], 64, 3, Some(3));
        check(&[3], 64, 4, Some(3));
        check(&[3, 40], 64, 4, Some(40));
        check(&[3, 70], 96, 71, Some(3));
        check(&[70], 96, 5, Some(70));
        check(&[5, 70], 96, 70, Some(70));
        check(&[63, 64], 128, 64, Some(64));
        check(&[63], 128, 64, Some(63));
        check(&[3, 65], 128, 4, Some(65));
        check(&[3, 65], 128, 66, Some(3));
        check(&[3, 65], 128, 200, Some(3));
    }

    #[test]
    fn a_scan_from_a_start_visits_the_members_in_its_order() {
        let mut set = BitSet::new(100);
        for id in [2, 50, 70, 99] {
            set.insert(id);
        }
        let scan = |start: usize| {
            let mut seen = Vec::new();
            let mut step = 0;
            while let Some((id, at)) = set.next_in_scan(start, step) {
                assert_eq!((start + at) % 100, id);
                seen.push(id);
                step = at + 1;
            }
            seen
        };
        assert_eq!(scan(0), [2, 50, 70, 99]);
        assert_eq!(scan(60), [70, 99, 2, 50]);
        assert_eq!(scan(99), [99, 2, 50, 70]);
        assert_eq!(set.next_in_scan(60, 50), Some((50, 90)));
        assert_eq!(set.next_in_scan(60, 91), None, "past the scan's end");
        assert_eq!(BitSet::new(8).next_in_scan(3, 0), None);
        // A set of one word takes the rotation.
        let mut small = BitSet::new(16);
        for id in [1, 9, 15] {
            small.insert(id);
        }
        assert_eq!(small.next_in_scan(10, 0), Some((15, 5)));
        assert_eq!(small.next_in_scan(10, 6), Some((1, 7)));
        assert_eq!(small.next_in_scan(10, 8), Some((9, 15)));
        assert_eq!(small.next_in_scan(10, 16), None);
        assert_eq!(small.next_in_scan(0, 2), Some((9, 9)));
    }

    #[test]
    fn members_are_counted_once() {
        let mut set = BitSet::new(10);
        set.insert(4);
        set.insert(4);
        assert_eq!(set.count(), 1);
        set.remove(4);
        set.remove(4);
        assert_eq!((set.count(), set.next_from(0)), (0, None));
    }

    #[test]
    fn members_are_visited_in_order_across_words() {
        let mut set = BitSet::new(130);
        for id in [129, 3, 64, 63] {
            set.insert(id);
        }
        assert!(set.contains(64) && !set.contains(65));
        let mut seen = Vec::new();
        set.for_each(|id| seen.push(id));
        assert_eq!(seen, [3, 63, 64, 129]);
        set.set(3, false);
        set.set(5, true);
        assert_eq!((set.count(), set.word(0)), (4, (1 << 5) | (1 << 63)));
        set.clear();
        assert_eq!((set.count(), set.next_from(0)), (0, None));
    }
}
