//! Per-set indexes for caches with wide sets, so that a look-up and a victim
//! choice cost a few steps instead of a pass over every way (issue 39).
//!
//! A unified L1 carved out of a large array is very associative: Volta's is
//! 4 sets of up to 256 ways, Ampere's up to 384. Scanning such a set on every
//! access (the tags to find a line, the ages to choose a victim) was most of
//! the analytical models' profile time. A cache with more than
//! [`SCAN_WAYS`] ways per set keeps, beside its per-line arrays, two indexes
//! of each set:
//!
//! - [`TagIndex`]: an open-addressing hash table from a present line's
//!   address to its way, so a look-up reads one or two table entries and one
//!   tag;
//! - [`VictimTree`]: a tournament tree over the ways' [`VictimKey`]s, whose
//!   root is the victim the scan would choose, so a victim costs nothing to
//!   find and a line whose key changed costs one walk up the tree (a level
//!   or two for a line used again, every level for the line just evicted).
//!
//! Both are derived data: the cache's per-line arrays stay the truth, and
//! the scans over them (which narrower sets keep using) give the same
//! answers, which the tests check step by step. They are kept in step by the
//! cache at the few places a line changes (see `Cache::line_changed`), never
//! rebuilt per access, and allocate nothing after construction.

/// Sets of at most this many ways are scanned (their tag bytes are four
/// words, their states and ages six host cache lines); wider sets use the
/// indexes. Indexing the L2's 16- to 24-way sets too missed the host's
/// caches more, not less (the indexes are more memory to keep warm; see
/// docs/performance.md).
pub(super) const SCAN_WAYS: u32 = 32;

/// Whether a cache with `assoc` ways per set keeps the indexes: wider than
/// [`SCAN_WAYS`], and narrow enough that a way (plus one) and a tag table's
/// entry number fit 16 bits (the tag index's entries keep both in a `u32`).
pub(super) fn uses_indexes(assoc: u32) -> bool {
    (SCAN_WAYS + 1..=1 << 15).contains(&assoc)
}

/// How eligible a way is to be the next victim, smallest first: a free way
/// first, the lowest such; else the oldest line (by LRU or FIFO age) with no
/// fill pending, the lowest way on a tie; a line with a fill pending never.
/// The victim is the way with the smallest key, if its rank allows: what a
/// narrow set's scan finds in passes over its states and ages, and what a
/// wide set's [`VictimTree`] keeps at its root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct VictimKey {
    pub rank: VictimRank,
    /// The replacement age for [`VictimRank::Evictable`]; 0 for the other
    /// ranks, whose ways age does not order.
    pub age: u64,
    /// The way itself, so no two keys are equal and ties go to the lowest way.
    pub way: u32,
}

/// The classes of [`VictimKey`], in the order a victim is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum VictimRank {
    /// Every sector invalid: taken before any present line.
    Free,
    /// Present, with no fill pending: taken by age.
    Evictable,
    /// A fill is pending: never taken.
    Reserved,
    /// A leaf of the tree beyond the last way (the tree has a power of two
    /// of leaves): never taken.
    Padding,
}

/// Per set, an open-addressing table (linear probing) from the address of
/// each present line to its way.
///
/// Each entry keeps the top 16 bits of its line's hash beside the way, so a
/// probe reads a line's tag only where those bits match (a miss usually
/// reads no tag at all), and a deletion finds each entry's home without the
/// tags.
///
/// Invariant: set `s`'s table holds exactly the ways of `s` whose line is
/// present, each once, reachable from the home entry of its line address
/// without crossing an empty entry. It is at most half full, so a probe ends
/// after an entry or two on average.
#[derive(Debug, Clone)]
pub(super) struct TagIndex {
    /// Entries per set: a power of two at least twice the ways, and at most
    /// 2^16 (`uses_indexes`), so a home fits the 16 hash bits an entry keeps.
    per_set: usize,
    /// `16 - log2(per_set)`: a home is the top bits of the 16 kept.
    home_shift: u32,
    /// Set `s`'s table is `entries[s * per_set..][..per_set]`: 0 for an empty
    /// entry, else the line's [`hash16`] above one more than its way.
    entries: Vec<u32>,
}

/// 2^64 divided by the golden ratio, odd: Knuth's multiplicative hash.
const FIBONACCI: u64 = 0x9E37_79B9_7F4A_7C15;

/// The top 16 bits of a line address times a large odd constant (Fibonacci
/// hashing): every address bit above the set index moves them, so the
/// strided addresses that share a set still spread over the table.
fn hash16(line_addr: u64) -> u32 {
    (line_addr.wrapping_mul(FIBONACCI) >> 48) as u32
}

impl TagIndex {
    /// Empty tables for `n_sets` sets of `assoc` ways.
    pub fn new(n_sets: u32, assoc: u32) -> Self {
        let per_set = (2 * assoc as usize).next_power_of_two();
        Self { per_set, home_shift: 16 - per_set.trailing_zeros(), entries: vec![0; n_sets as usize * per_set] }
    }

    fn table(&self, set: u32) -> &[u32] {
        &self.entries[set as usize * self.per_set..][..self.per_set]
    }

    fn table_mut(&mut self, set: u32) -> &mut [u32] {
        &mut self.entries[set as usize * self.per_set..][..self.per_set]
    }

    /// The home entry of an entry's (or a line's) 16 hash bits.
    fn home(&self, hash: u32) -> usize {
        (hash >> self.home_shift) as usize
    }

    /// The way of `set` whose present line is `line_addr`, if any. `tags`
    /// are the set's tags, indexed by way.
    pub fn find(&self, set: u32, line_addr: u64, tags: &[u64]) -> Option<u32> {
        let hash = hash16(line_addr);
        let (table, mask) = (self.table(set), self.per_set - 1);
        let mut at = self.home(hash);
        // Only present lines are in the table, so a tag that matches is the
        // line (a free way's stale tag is never compared). The table is at
        // most half full, so an empty entry ends the probe.
        loop {
            let entry = table[at];
            let way = (entry & 0xFFFF).checked_sub(1)?;
            if entry >> 16 == hash && tags[way as usize] == line_addr {
                return Some(way);
            }
            at = (at + 1) & mask;
        }
    }

    /// Records that way `way` of `set` now holds the present line `line_addr`.
    pub fn insert(&mut self, set: u32, line_addr: u64, way: u32) {
        let hash = hash16(line_addr);
        let (mut at, mask) = (self.home(hash), self.per_set - 1);
        let table = self.table_mut(set);
        while table[at] != 0 {
            at = (at + 1) & mask;
        }
        // `uses_indexes` keeps `way + 1` within 16 bits.
        table[at] = hash << 16 | (way + 1);
    }

    /// Forgets way `way` of `set`, whose present line is `line_addr`.
    ///
    /// Deletes without tombstones (Knuth's algorithm R for linear probing):
    /// the entries after the hole move back into it when their home is not
    /// between the hole and themselves, so every remaining entry stays
    /// reachable from its home and the table never fills with dead entries.
    pub fn remove(&mut self, set: u32, line_addr: u64, way: u32) {
        let wanted = hash16(line_addr) << 16 | (way + 1);
        let (mut hole, mask, home_shift) = (self.home(hash16(line_addr)), self.per_set - 1, self.home_shift);
        let table = self.table_mut(set);
        while table[hole] != wanted {
            debug_assert_ne!(table[hole], 0, "way {way} of set {set} is not in the tag index");
            hole = (hole + 1) & mask;
        }
        let mut at = hole;
        loop {
            at = (at + 1) & mask;
            let entry = table[at];
            if entry == 0 {
                break;
            }
            // The entry may fill the hole if its home is at or before the
            // hole along the probe sequence that reached it.
            let home = (entry >> 16 >> home_shift) as usize;
            if (at.wrapping_sub(home) & mask) >= (at.wrapping_sub(hole) & mask) {
                table[hole] = entry;
                hole = at;
            }
        }
        table[hole] = 0;
    }

    /// Forgets every line.
    pub fn clear(&mut self) {
        self.entries.fill(0);
    }

    /// The ways in `set`'s table, in table order (for the tests' checks).
    #[cfg(test)]
    pub fn ways(&self, set: u32) -> impl Iterator<Item = u32> + '_ {
        self.table(set).iter().filter_map(|&entry| (entry & 0xFFFF).checked_sub(1))
    }
}

/// Per set, a tournament tree over the ways' [`VictimKey`]s: each node holds
/// the smallest key below it, so the root is the key of the way the scan
/// would choose as victim.
///
/// The inner nodes' keys are kept (packed into a `u64`: rank, age, way, so
/// one integer comparison orders them), the leaves' are not: a leaf's key is
/// read from the cache's arrays, where the line that changed and its
/// neighbour way sit side by side, already in the host's cache. Replaying a
/// way's matches then reads one pair of sibling keys per level above, side by
/// side, and nothing else. The packing holds ages below [`AGE_LIMIT`]; the
/// cache stops indexing before it would pack a larger one.
///
/// Layout: a set's tree is `leaves` entries of `keys` (`leaves` is the ways
/// rounded up to a power of two, at least 2), heap-ordered: entry 1 is the
/// root, node `n`'s children are `2n` and `2n + 1`, the children of nodes
/// `leaves / 2..leaves` are the leaves of ways `2n - leaves` and
/// `2n + 1 - leaves`, and entry 0 is unused. 2 KB for a 256-way set.
///
/// Invariant: each node holds the smallest key of the ways below it, as the
/// cache's arrays give them now ([`VictimRank::Padding`] past the last way).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct VictimTree {
    leaves: usize,
    keys: Vec<u64>,
}

/// The ages a [`VictimTree`] can hold: 46 bits, 7 × 10^13 cycles (19 hours
/// of simulated time at 1 GHz, far beyond any run). Rank and way take the
/// other 18 bits of a packed key.
pub(super) const AGE_LIMIT: u64 = 1 << 46;

impl VictimKey {
    /// The key as one integer with the same order: rank, then age, then way
    /// (`age` below [`AGE_LIMIT`], `way` below 2^16).
    fn packed(self) -> u64 {
        debug_assert!(self.age < AGE_LIMIT && self.way <= 0xFFFF, "{self:?} does not pack");
        (self.rank as u64) << 62 | self.age << 16 | u64::from(self.way)
    }

    fn unpacked(packed: u64) -> Self {
        let rank = match packed >> 62 {
            0 => VictimRank::Free,
            1 => VictimRank::Evictable,
            2 => VictimRank::Reserved,
            _ => VictimRank::Padding,
        };
        Self { rank, age: (packed >> 16) & (AGE_LIMIT - 1), way: (packed & 0xFFFF) as u32 }
    }
}

impl VictimTree {
    /// The trees of `n_sets` sets of `assoc` ways, built from `key(set, way)`
    /// (the reference the tests check a cache's kept trees against).
    #[cfg(test)]
    pub fn new(n_sets: u32, assoc: u32, key: impl Fn(u32, u32) -> VictimKey) -> Self {
        let mut tree = Self::unbuilt(n_sets, assoc);
        for set in 0..n_sets {
            tree.rebuild(set, |way| key(set, way));
        }
        tree
    }

    /// The trees of `n_sets` sets of `assoc` ways whose ways have the same
    /// keys in every set, `key(way)`: those of an empty cache.
    pub fn alike(n_sets: u32, assoc: u32, key: impl Fn(u32) -> VictimKey) -> Self {
        let mut tree = Self::unbuilt(n_sets, assoc);
        tree.rebuild_alike(key);
        tree
    }

    /// Trees of `n_sets` sets of `assoc` ways, their keys not computed yet.
    fn unbuilt(n_sets: u32, assoc: u32) -> Self {
        let leaves = (assoc as usize).next_power_of_two().max(2);
        Self { leaves, keys: vec![0; n_sets as usize * leaves] }
    }

    /// Recomputes every set's tree from keys `key(way)` that are the same in
    /// every set: the first set's tree is built and copied to the others,
    /// which makes emptying a cache of many sets a copy rather than a
    /// rebuild of each.
    pub fn rebuild_alike(&mut self, key: impl Fn(u32) -> VictimKey) {
        if self.keys.is_empty() {
            return;
        }
        self.rebuild(0, key);
        let (first, rest) = self.keys.split_at_mut(self.leaves);
        for tree in rest.chunks_exact_mut(self.leaves) {
            tree.copy_from_slice(first);
        }
    }

    fn tree_mut(&mut self, set: u32) -> &mut [u64] {
        &mut self.keys[set as usize * self.leaves..][..self.leaves]
    }

    /// Recomputes `set`'s whole tree from `key(way)`, bottom up.
    pub fn rebuild(&mut self, set: u32, key: impl Fn(u32) -> VictimKey) {
        let leaves = self.leaves;
        let tree = self.tree_mut(set);
        for node in (1..leaves).rev() {
            tree[node] = if 2 * node >= leaves {
                let first_way = (2 * node - leaves) as u32;
                key(first_way).packed().min(key(first_way + 1).packed())
            } else {
                tree[2 * node].min(tree[2 * node + 1])
            };
        }
    }

    /// The smallest key of `set`: the victim's, if its rank lets it be evicted.
    pub fn best(&self, set: u32) -> VictimKey {
        VictimKey::unpacked(self.keys[set as usize * self.leaves + 1])
    }

    /// One of two sibling ways (`2k` and `2k + 1`) has a new key; `pair` is
    /// both ways' keys, in way order: replays their match and the matches
    /// above.
    ///
    /// The walk stops at the first node whose key is unchanged: the nodes
    /// above it see the same children. A line used again (its LRU age
    /// grows) stops at the first match it lost before and loses again,
    /// most often its first or second.
    pub fn update(&mut self, set: u32, pair: [VictimKey; 2]) {
        let leaves = self.leaves;
        let tree = self.tree_mut(set);
        let mut node = (leaves + pair[0].way as usize) / 2;
        let mut smaller = pair[0].packed().min(pair[1].packed());
        while tree[node] != smaller {
            tree[node] = smaller;
            if node == 1 {
                break;
            }
            smaller = smaller.min(tree[node ^ 1]);
            node /= 2;
        }
    }
}
