//! Fixed-size sets of small ids (warp slots, crossbar inputs) in 64-bit
//! words, with the round-robin search both the fetch stage and the crossbar's
//! iSLIP arbiter need: the first member at or after a pointer, wrapping.
//!
//! Each set keeps a summary word beside its words: bit `g` says that group
//! `g` of its words holds a member, a group being one word for sets of up to
//! 4,096 ids and a power of two of words beyond. The search then reads the
//! words that hold members, not every word on the way: a chiplet GPU's
//! crossbars have 1,024 inputs, and iSLIP searches the inputs wanting each
//! output every cycle, most of them empty.

/// A set of the ids `0..len`. The first word is kept inline: most sets hold
/// at most 64 ids, and the hot paths that test them then read no other memory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BitSet {
    first: u64,
    /// Words 1 and on.
    rest: Vec<u64>,
    /// Bit `g` set when group `g` of the words holds a member.
    summary: u64,
    /// Words per group, as a power of two.
    group_shift: u32,
    len: usize,
    count: usize,
}

impl BitSet {
    /// An empty set of the ids `0..len`.
    pub fn new(len: usize) -> Self {
        let n_words = len.div_ceil(64);
        let rest = vec![0; n_words.saturating_sub(1)];
        Self { first: 0, rest, summary: 0, group_shift: group_shift(n_words), len, count: 0 }
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
            self.summary |= 1 << ((id / 64) >> self.group_shift);
        }
    }

    /// Removes `id`.
    pub fn remove(&mut self, id: usize) {
        let bit = 1u64 << (id % 64);
        let word = self.word_mut(id / 64);
        if *word & bit != 0 {
            *word &= !bit;
            let emptied = *word == 0;
            self.count -= 1;
            if emptied {
                let group = (id / 64) >> self.group_shift;
                let words = Words { word: |w| self.word(w), n_words: self.n_words(), group_shift: self.group_shift };
                if words.group_is_empty(group) {
                    self.summary &= !(1 << group);
                }
            }
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
            self.summary = 0;
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
        Words { word: |w| self.word(w), n_words: self.n_words(), group_shift: self.group_shift }
            .next_from(self.summary, start)
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

/// Words per summary group, as a power of two, for a set of `n_words`
/// words: the fewest that leave at most 64 groups.
fn group_shift(n_words: usize) -> u32 {
    n_words.div_ceil(64).max(1).next_power_of_two().trailing_zeros()
}

/// A set's words, read through `word`, for the searches both kinds of set
/// share.
struct Words<F: Fn(usize) -> u64> {
    word: F,
    n_words: usize,
    group_shift: u32,
}

impl<F: Fn(usize) -> u64> Words<F> {
    /// The words of group `group`.
    fn group(&self, group: usize) -> std::ops::Range<usize> {
        let first = group << self.group_shift;
        first..(first + (1 << self.group_shift)).min(self.n_words)
    }

    fn group_is_empty(&self, group: usize) -> bool {
        self.group(group).all(|w| (self.word)(w) == 0)
    }

    /// The first member in words `words`.
    fn first_in(&self, words: std::ops::Range<usize>) -> Option<usize> {
        words.into_iter().find_map(|w| {
            let value = (self.word)(w);
            (value != 0).then(|| w * 64 + value.trailing_zeros() as usize)
        })
    }

    /// The first member at or after `start` (an id of the set), wrapping,
    /// with `summary` the set's summary word.
    fn next_from(&self, summary: u64, start: usize) -> Option<usize> {
        let (first_word, first_bit) = (start / 64, start % 64);
        let here = (self.word)(first_word) & (u64::MAX << first_bit);
        if here != 0 {
            return Some(first_word * 64 + here.trailing_zeros() as usize);
        }
        // The rest of the start word's group, then the next group with a
        // member; else the first group with one, from word 0 (the start
        // group's members below `start` among them: none is at or after it).
        let group = first_word >> self.group_shift;
        let rest_of_group = first_word + 1..self.group(group).end;
        if let Some(id) = self.first_in(rest_of_group) {
            return Some(id);
        }
        let later = summary & !(u64::MAX >> (63 - group));
        let next = if later != 0 { later } else { summary };
        if next == 0 {
            return None;
        }
        self.first_in(self.group(next.trailing_zeros() as usize))
    }
}

/// Sets of the ids `0..len`, one per row, stored flat: row `r`'s words
/// follow row `r - 1`'s, and the rows' summary words lie side by side. For
/// many sets visited in turn every cycle (iSLIP's inputs per output), an
/// empty row costs one summary word read from a dense array, not a set's
/// header and its own allocation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BitRows {
    words: Vec<u64>,
    summaries: Vec<u64>,
    row_words: usize,
    group_shift: u32,
    len: usize,
}

impl BitRows {
    /// `rows` empty sets of the ids `0..len`.
    pub fn new(rows: usize, len: usize) -> Self {
        let row_words = len.div_ceil(64);
        Self {
            words: vec![0; rows * row_words],
            summaries: vec![0; rows],
            row_words,
            group_shift: group_shift(row_words),
            len,
        }
    }

    fn row(&self, row: usize) -> Words<impl Fn(usize) -> u64 + '_> {
        let words = &self.words[row * self.row_words..(row + 1) * self.row_words];
        Words { word: move |w| words[w], n_words: self.row_words, group_shift: self.group_shift }
    }

    /// Whether row `row` has no member.
    pub fn is_empty(&self, row: usize) -> bool {
        self.summaries[row] == 0
    }

    /// Adds `id` (below `len`) to row `row`.
    pub fn insert(&mut self, row: usize, id: usize) {
        self.words[row * self.row_words + id / 64] |= 1 << (id % 64);
        self.summaries[row] |= 1 << ((id / 64) >> self.group_shift);
    }

    /// Removes `id` from row `row`.
    pub fn remove(&mut self, row: usize, id: usize) {
        let word = &mut self.words[row * self.row_words + id / 64];
        *word &= !(1 << (id % 64));
        if *word == 0 {
            let group = (id / 64) >> self.group_shift;
            if self.row(row).group_is_empty(group) {
                self.summaries[row] &= !(1 << group);
            }
        }
    }

    /// Row `row`'s first member at or after `start`, wrapping around past
    /// `len - 1` to 0 (a `start` at or beyond `len` starts at 0).
    pub fn next_from(&self, row: usize, start: usize) -> Option<usize> {
        let summary = self.summaries[row];
        if summary == 0 {
            return None;
        }
        let start = if start >= self.len { 0 } else { start };
        self.row(row).next_from(summary, start)
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

    /// The id sets `inserted` then `removed` leave: some removals hit
    /// members (emptying words and whole groups), some do not.
    fn model(len: usize, inserted: &[usize], removed: &[usize]) -> Vec<(usize, bool)> {
        let ids = inserted.iter().map(|&id| (id % len, true));
        let gone = removed.iter().map(|&k| (inserted.get(k).map_or(k, |&id| id) % len, false));
        ids.chain(gone).collect()
    }

    /// What a walk over every id from `start` finds.
    fn walk(members: &[bool], start: usize) -> Option<usize> {
        let len = members.len();
        let from = if start >= len { 0 } else { start };
        (0..len).map(|k| (from + k) % len).find(|&id| members[id])
    }

    proptest::proptest! {
        /// The search by summary finds what a walk over the ids finds, after
        /// any inserts and removes, on sets of one word to groups of four words.
        #[test]
        fn the_search_is_a_walk_over_the_ids(
            len in proptest::prop_oneof![1usize..200, 1usize..9000],
            inserted in proptest::collection::vec(0usize..9000, 0..60),
            removed in proptest::collection::vec(0usize..60, 0..40),
            start in 0usize..9100,
        ) {
            let mut set = BitSet::new(len);
            let mut members = vec![false; len];
            for (id, member) in model(len, &inserted, &removed) {
                set.set(id, member);
                members[id] = member;
            }
            proptest::prop_assert_eq!(set.next_from(start), walk(&members, start));
            proptest::prop_assert_eq!(set.count(), members.iter().filter(|&&m| m).count());
        }

        /// Each row of a `BitRows` is a set of its own: changing one leaves
        /// the others, and each searches as a walk over its ids.
        #[test]
        fn rows_are_sets_side_by_side(
            len in proptest::prop_oneof![1usize..200, 1usize..9000],
            changes in proptest::collection::vec((0usize..3, 0usize..9000, 0usize..60), 0..60),
            start in 0usize..9100,
        ) {
            let mut rows = BitRows::new(3, len);
            let mut members = vec![vec![false; len]; 3];
            for (row, id, k) in changes {
                // An insert, then (for some) a removal of an id inserted before.
                let id = id % len;
                rows.insert(row, id);
                members[row][id] = true;
                if k % 3 == 0 {
                    let gone = (id + k) % len;
                    rows.remove(row, gone);
                    members[row][gone] = false;
                }
            }
            for (row, members) in members.iter().enumerate() {
                proptest::prop_assert_eq!(rows.next_from(row, start), walk(members, start));
                proptest::prop_assert_eq!(rows.is_empty(row), !members.contains(&true));
            }
        }
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
