//! A functional cache tag array with the policies of a GPGPU-Sim cache string:
//! sectors, replacement, allocation, write and write-allocate policies.
//!
//! This is GPGPU-Sim's `tag_array` plus the policy half of its `data_cache`:
//! it decides, for each access, the outcome (hit, pending hit, miss, sector
//! miss, reservation failure) and what the caller must send to the next level
//! (a sector fetch, the write itself, a dirty line's write-back). It owns no
//! MSHRs, queues or latencies: the timing model's L1 and L2 controllers own
//! those, and the analytical models' functional pass applies each fill right
//! after its fetch.
//!
//! Geometry: each field of a line lives in its own flat `Vec` (tags, sector
//! states, replacement ages, valid bytes), indexed by `set * assoc + way`;
//! each line keeps [`SECTORS_PER_LINE`] sector states (one unit for a
//! non-sectored cache), so an access allocates nothing, and a look-up or a
//! victim choice scans dense arrays: a 32-way set is 256 B of tags, 128 B of
//! states and 256 B of ages, where whole lines would be 1.3 KB; a look-up
//! compares a byte of each tag first, eight ways a word. Sets wider than that
//! (a unified L1 has up to hundreds of ways) are not scanned: a per-set hash
//! table finds a line and a per-set tournament tree keeps the victim (the
//! `wide` module, issue 39), both kept in step with the arrays as each
//! access changes its line.
//!
//! Set indexing: [`Cache::probe`], [`Cache::commit`] and [`Cache::fill`] pick
//! the set from the accessed address with the string's set-index function.
//! GPGPU-Sim's L2 instead indexes with the address after the memory-partition
//! bits are removed; the `*_at` variants ([`Cache::probe_at`],
//! [`Cache::commit_at`], [`Cache::fill_at`]) take that index address
//! separately from the address whose line is looked up. The caller must give
//! the same index address for every access to one line.

use serde::{Deserialize, Serialize};
use warplab_config::CacheConfig;
use warplab_config::cache::{Allocation, CacheKind, Replacement, WriteAllocate, WritePolicy};

use crate::set_index::SetIndexer;

mod wide;

use wide::{TagIndex, VictimKey, VictimRank, VictimTree};

/// Bytes in one sector: the unit a sectored cache fills and tracks.
pub const SECTOR_BYTES: u32 = 32;

/// Sectors in one 128 B sectored line.
pub const SECTORS_PER_LINE: u32 = 4;

/// A byte mask covering all [`SECTOR_BYTES`] bytes of a sector.
pub const FULL_SECTOR_MASK: u32 = u32::MAX;

/// How an access went: Accel-Sim's classification of cache requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Outcome {
    /// The sector holds readable data (or, for a write, the line and sector are present).
    Hit,
    /// The sector's fill is already pending: the caller merges into its MSHR.
    HitReserved,
    /// No line holds this address's tag.
    Miss,
    /// The line is present but this sector is not valid (or only partly
    /// written, for a read).
    SectorMiss,
    /// A line had to be allocated and every way of the set has a fill pending:
    /// nothing changed, and the caller retries later.
    ReservationFail,
}

/// A read or a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessKind {
    /// A load.
    Read,
    /// A store.
    Write,
}

/// One sector access, as the coalescer produces it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// Any byte address inside the 32 B sector accessed.
    pub addr: u64,
    /// Read or write.
    pub kind: AccessKind,
    /// The bytes of the sector touched (bit i = byte i of the 32 B sector).
    /// Writes use it for write-validate; reads ignore it, since a read needs
    /// the whole sector. A non-sectored cache ignores it and treats every
    /// write as covering the whole line.
    pub byte_mask: u32,
    /// A local-memory access: the `L` write policy is write-back for local
    /// accesses and write-evict for global ones.
    pub local: bool,
}

/// A line pushed out of the cache with modified data in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Eviction {
    /// The first byte address of the evicted line.
    pub line_addr: u64,
    /// Bit s = sector s is modified and must be written back. For a
    /// non-sectored cache bit 0 stands for the whole line.
    pub dirty_sectors: u8,
}

impl Eviction {
    /// The address of each sector to write back, lowest first.
    pub fn dirty_sector_addrs(self) -> impl Iterator<Item = u64> {
        (0..SECTORS_PER_LINE)
            .filter(move |sector| self.dirty_sectors & (1 << sector) != 0)
            .map(move |sector| self.line_addr + u64::from(sector * SECTOR_BYTES))
    }
}

/// What an access did and what the caller must do about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Effect {
    /// The access's classification.
    pub outcome: Outcome,
    /// The caller must read this sector (the whole line, if non-sectored) from
    /// the next level and call [`Cache::fill`] when it arrives.
    pub fetch: bool,
    /// The caller must send this write to the next level.
    pub write_down: bool,
    /// A modified line the access evicted, which the caller must write back.
    pub eviction: Option<Eviction>,
}

/// A look-up made by [`Cache::prepare`] (or [`Cache::prepare_at`]) for
/// [`Cache::commit_prepared`] to apply: a controller that first checks it has
/// room for an access's outcome looks the line up once instead of twice.
/// It describes the cache as it was; it must be committed before anything
/// else changes the cache, or dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    set: u32,
    lookup: Lookup,
}

impl Probe {
    /// What the access's commit will report.
    pub fn outcome(self) -> Outcome {
        self.lookup.outcome
    }

    /// The set the access looked up.
    pub fn set(self) -> u32 {
        self.set
    }
}

/// The tag array of one cache (one L1 of an SM, or one L2 slice).
#[derive(Debug, Clone)]
pub struct Cache {
    n_sets: u32,
    assoc: u32,
    line_size_bytes: u32,
    /// `line_size_bytes - 1` when the line size is a power of two (as
    /// validation makes it): a line offset is then a mask, not a division
    /// (one look-up takes several offsets, and a division costs more than the
    /// rest of its arithmetic).
    line_offset_mask: Option<u64>,
    /// 4 for a sectored cache, 1 for a cache whose line is one unit.
    units_per_line: u32,
    replacement: Replacement,
    write_policy: WritePolicy,
    allocation: Allocation,
    write_allocate: WriteAllocate,
    /// Which set an address maps to.
    indexer: SetIndexer,
    /// Each line's first byte address, which doubles as its tag.
    /// Invariant: this and the other per-line vectors have `n_sets * assoc`
    /// entries; line `way` of set `set` is at `set * assoc + way`, and no two
    /// present lines of a set share a tag.
    tags: Vec<u64>,
    /// For a cache whose sets are scanned, one byte of each line's tag
    /// ([`fingerprint`]), each set's row `fingerprint_row` bytes (its ways
    /// padded to whole 8-byte words): a look-up compares these eight at a
    /// time, and reads a tag only where its byte matched. Empty for a cache
    /// with wide sets, whose tag index finds lines.
    fingerprints: Vec<u8>,
    fingerprint_row: usize,
    /// Each line's sector states (a line whose sectors are all invalid is free).
    states: Vec<[SectorState; SECTORS_PER_LINE as usize]>,
    /// Each line's replacement age: the cycle of its last access under LRU,
    /// of its allocation under FIFO.
    ages: Vec<u64>,
    /// The rest of each line, read only once the line is found.
    bytes: Vec<LineBytes>,
    /// For sets of more than [`wide::SCAN_WAYS`] ways, the indexes that
    /// replace the scans of the tags and of the ages; `None` for narrower
    /// sets, which are scanned.
    wide: Option<WideSets>,
    /// Per set, how many times its lines have changed (wrapping): while
    /// this stays the same, a look-up in the set gives the same answer
    /// ([`Cache::changes_in`]); a call that may change a set's lines counts
    /// at least once if it does. Empty unless asked for
    /// ([`Cache::count_changes`]): the cache pass, which never asks, then
    /// writes nothing more per access.
    set_changes: Vec<u32>,
}

/// The per-set indexes of a cache with wide sets (see the `wide` module).
/// Invariant: they agree with the per-line arrays whenever no access is
/// under way; `Cache::line_changed` and `Cache::allocate` keep them so.
#[derive(Debug, Clone)]
struct WideSets {
    /// Each set's present lines by address.
    tags: TagIndex,
    /// Each set's ways ordered as the victim choice orders them.
    victims: VictimTree,
}

impl Outcome {
    /// Every outcome, in the order of [`Outcome::name`]'s stats columns.
    pub const ALL: [Outcome; 5] =
        [Outcome::Hit, Outcome::HitReserved, Outcome::Miss, Outcome::SectorMiss, Outcome::ReservationFail];

    /// The snake-case name used in statistics.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Hit => "hit",
            Outcome::HitReserved => "hit_reserved",
            Outcome::Miss => "miss",
            Outcome::SectorMiss => "sector_miss",
            Outcome::ReservationFail => "reservation_fail",
        }
    }
}

impl Access {
    /// A global read of the sector holding `addr`.
    pub fn read(addr: u64) -> Self {
        Self { addr, kind: AccessKind::Read, byte_mask: FULL_SECTOR_MASK, local: false }
    }

    /// A global write of the bytes `byte_mask` of the sector holding `addr`.
    pub fn write(addr: u64, byte_mask: u32) -> Self {
        Self { addr, kind: AccessKind::Write, byte_mask, local: false }
    }
}

impl Cache {
    /// An empty cache with the geometry and policies of `config`.
    pub fn new(config: &CacheConfig) -> Self {
        Self::with_ways(config, config.assoc)
    }

    /// An empty cache like [`Cache::new`] with `ways` ways per set instead of
    /// the string's: the adaptive L1/shared-memory carve-out changes the way
    /// count. A `ways` of 0 is taken as 1.
    pub fn with_ways(config: &CacheConfig, ways: u32) -> Self {
        Self::build(config, ways.max(1), wide::uses_indexes(ways.max(1)))
    }

    /// [`Cache::with_ways`] with its sets indexed (`indexed`) or scanned:
    /// the same behaviour either way, which the tests check.
    fn build(config: &CacheConfig, assoc: u32, indexed: bool) -> Self {
        let n_sets = config.n_sets.max(1);
        let units_per_line = if config.kind == CacheKind::Sectored { SECTORS_PER_LINE } else { 1 };
        let n_lines = n_sets as usize * assoc as usize;
        let mut cache = Self {
            n_sets,
            assoc,
            line_size_bytes: config.line_size_bytes.max(1),
            line_offset_mask: config.line_size_bytes.is_power_of_two().then(|| u64::from(config.line_size_bytes - 1)),
            units_per_line,
            replacement: config.replacement,
            write_policy: config.write_policy,
            allocation: config.allocation,
            write_allocate: config.write_allocate,
            indexer: SetIndexer::new(config.set_index, config.line_size_bytes, n_sets),
            tags: vec![0; n_lines],
            fingerprints: Vec::new(),
            fingerprint_row: 0,
            states: vec![EMPTY_STATES; n_lines],
            ages: vec![0; n_lines],
            bytes: vec![LineBytes::EMPTY; n_lines],
            wide: None,
            set_changes: Vec::new(),
        };
        if indexed {
            // Every set is empty: a way's key is the same in all of them.
            let victims = VictimTree::alike(n_sets, assoc, |way| cache.victim_key(0, way));
            cache.wide = Some(WideSets { tags: TagIndex::new(n_sets, assoc), victims });
        } else {
            cache.take_fingerprints();
        }
        cache
    }

    /// Gives a cache whose sets are scanned its fingerprints, from its tags.
    fn take_fingerprints(&mut self) {
        self.fingerprint_row = (self.assoc as usize).next_multiple_of(8);
        let (row, assoc) = (self.fingerprint_row, self.assoc as usize);
        let padded_ways = (0..self.n_sets as usize).flat_map(|set| (0..row).map(move |way| (set, way)));
        let tag = |(set, way)| if way < assoc { self.tags[set * assoc + way] } else { 0 };
        self.fingerprints = padded_ways.map(|line| fingerprint(tag(line))).collect();
    }

    /// Sets.
    pub fn n_sets(&self) -> u32 {
        self.n_sets
    }

    /// Ways per set.
    pub fn assoc(&self) -> u32 {
        self.assoc
    }

    /// Line size in bytes.
    pub fn line_size_bytes(&self) -> u32 {
        self.line_size_bytes
    }

    /// `addr` rounded down to the start of its line.
    pub fn line_addr(&self, addr: u64) -> u64 {
        addr - self.line_offset(addr)
    }

    /// `addr`'s byte offset in its line.
    fn line_offset(&self, addr: u64) -> u64 {
        self.line_offset_mask.map_or_else(|| addr % u64::from(self.line_size_bytes), |mask| addr & mask)
    }

    /// The sector of its line that `addr` falls in: `0..4` for a sectored
    /// cache, always 0 for a non-sectored one (the line is one unit).
    pub fn sector_of(&self, addr: u64) -> u32 {
        if self.units_per_line == 1 {
            return 0;
        }
        let offset = self.line_offset(addr);
        // Sectored lines are 128 B after validation; the remainder keeps any
        // other line size inside the four sector slots.
        u32::try_from(offset / u64::from(SECTOR_BYTES) % u64::from(SECTORS_PER_LINE)).unwrap_or(0)
    }

    /// The set that `index_addr` maps to under the string's set-index function.
    pub fn set_of(&self, index_addr: u64) -> u32 {
        self.indexer.set_of(index_addr)
    }

    /// Counts the changes to each set's lines from now on ([`Cache::changes_in`]).
    pub fn count_changes(&mut self) {
        self.set_changes = vec![0; self.n_sets as usize];
    }

    /// How many times set `set`'s lines have changed (wrapping) since
    /// [`Cache::count_changes`] (0 without it). While it stays the same,
    /// [`Cache::prepare`] of an access in the set gives the same probe: a
    /// caller that saw an access refused can tell that retrying it would be
    /// refused again without looking it up.
    pub fn changes_in(&self, set: u32) -> u32 {
        self.set_changes.get(set as usize).copied().unwrap_or(0)
    }

    /// Counts a change to set `set`'s lines, if counting.
    fn set_changed(&mut self, set: u32) {
        if let Some(changes) = self.set_changes.get_mut(set as usize) {
            *changes = changes.wrapping_add(1);
        }
    }

    /// What [`Cache::commit`] would report for `access` now; changes nothing.
    pub fn probe(&self, access: &Access) -> Outcome {
        self.probe_at(access, access.addr)
    }

    /// [`Cache::probe`] with the set taken from `index_addr` (see the module doc).
    pub fn probe_at(&self, access: &Access, index_addr: u64) -> Outcome {
        self.prepare_at(access, index_addr).outcome()
    }

    /// [`Cache::probe`], keeping the look-up for [`Cache::commit_prepared`].
    pub fn prepare(&self, access: &Access) -> Probe {
        self.prepare_at(access, access.addr)
    }

    /// [`Cache::prepare`] with the set taken from `index_addr` (see the module doc).
    pub fn prepare_at(&self, access: &Access, index_addr: u64) -> Probe {
        let set = self.set_of(index_addr);
        Probe { set, lookup: self.look_up(access, set) }
    }

    /// [`Cache::commit`] of the access `probe` looked up, which must be
    /// `access` with the cache unchanged since: the same effect, without
    /// finding the line (or choosing the victim) again.
    pub fn commit_prepared(&mut self, access: &Access, probe: Probe, now: u64) -> Effect {
        debug_assert_eq!(probe.lookup, self.look_up(access, probe.set), "the cache changed since the probe");
        let effect = match access.kind {
            AccessKind::Read => self.commit_read(access, probe.set, probe.lookup, now),
            AccessKind::Write => self.commit_write(access, probe.set, probe.lookup, now),
        };
        // An access changes at most the line it looked up (found or chosen
        // as victim); nothing at all without one.
        if let Some(way) = probe.lookup.way {
            self.line_changed(probe.set, way);
            self.set_changed(probe.set);
        }
        effect
    }

    /// Applies `access` at cycle `now` (the caller's clock, which orders LRU
    /// and FIFO replacement) and says what the caller must do.
    ///
    /// Reads: a readable sector hits; a reserved one is a pending hit; an
    /// absent line or sector (or a partly written one) is fetched, and with
    /// allocation on miss it is reserved now, in a free way or else the LRU
    /// (FIFO: oldest) line with no fill pending; if there is none, the
    /// outcome is [`Outcome::ReservationFail`] and nothing changes.
    ///
    /// Write hits: write-back (`B`, and `L` for local accesses) marks the
    /// sector modified; write-through (`T`, `R`) keeps it clean and sends the
    /// write down; write-evict (`E`, and `L` for global accesses) drops the
    /// sector and sends the write down. A write to a reserved sector is a
    /// pending hit; under write-back with `F` or `L` write-allocate its fill
    /// leaves the sector modified, otherwise the write goes down as a write
    /// miss does.
    ///
    /// Write misses, by write-allocate policy: `N` sends the write down and
    /// allocates nothing (and never fails); `W` sends it down and fetches the
    /// sector; `F` fetches a partly written sector and merges the write, while
    /// a full-sector write needs no fetch; `L` (write-validate) keeps the
    /// written bytes without a fetch, and a later read of a partly written
    /// sector fetches it. Except under write-back, the write also goes down,
    /// and data kept here is clean.
    pub fn commit(&mut self, access: &Access, now: u64) -> Effect {
        self.commit_at(access, access.addr, now)
    }

    /// [`Cache::commit`] with the set taken from `index_addr` (see the module doc).
    pub fn commit_at(&mut self, access: &Access, index_addr: u64, now: u64) -> Effect {
        let probe = self.prepare_at(access, index_addr);
        self.commit_prepared(access, probe, now)
    }

    /// The data of `addr`'s sector arrived from the next level at cycle `now`.
    ///
    /// With allocation on miss, the reserved sector becomes valid (modified,
    /// if a write is waiting on it); a fill for a line evicted or invalidated
    /// since its miss is ignored. With allocation on fill or streaming, the
    /// fill allocates the line if need be, and may evict a modified line.
    pub fn fill(&mut self, addr: u64, now: u64) -> Option<Eviction> {
        self.fill_at(addr, addr, now)
    }

    /// [`Cache::fill`] with the set taken from `index_addr` (see the module doc).
    pub fn fill_at(&mut self, addr: u64, index_addr: u64, now: u64) -> Option<Eviction> {
        let set = self.set_of(index_addr);
        let line_addr = self.line_addr(addr);
        let unit = self.sector_of(addr) as usize;
        if let Some(way) = self.find(set, line_addr) {
            self.fill_present(self.slot(set, way), unit);
            self.line_changed(set, way);
            self.set_changed(set);
            return None;
        }
        if self.allocation == Allocation::OnMiss {
            return None;
        }
        let way = self.victim(set)?;
        let eviction = self.allocate(set, way, line_addr, now);
        let slot = self.slot(set, way);
        self.set_sector(slot, unit, SectorState::Valid, FULL_SECTOR_MASK);
        self.line_changed(set, way);
        self.set_changed(set);
        eviction
    }

    /// [`Cache::commit_at`], and if the access fetches, [`Cache::fill_at`]
    /// of its address at the same cycle: what a functional pass does, where
    /// data arrives the moment it is asked for. The same effect and eviction
    /// as the two calls, without finding the line a second time. Returns the
    /// access's effect and the fill's eviction.
    pub fn commit_filled_at(&mut self, access: &Access, index_addr: u64, now: u64) -> (Effect, Option<Eviction>) {
        let set = self.set_of(index_addr);
        let lookup = self.look_up(access, set);
        // Counted once for all the call may change (the count only tells
        // whether the set may have changed).
        self.set_changed(set);
        // `commit_prepared` without its `line_changed`: when the fill acts on
        // the way the access did, one replay of the victim tree after both
        // changes leaves it as two would (each replay makes the tree agree
        // with the line arrays as they are), so it is done once.
        let effect = match access.kind {
            AccessKind::Read => self.commit_read(access, set, lookup, now),
            AccessKind::Write => self.commit_write(access, set, lookup, now),
        };
        let Some(way) = lookup.way else {
            // The access changed no line.
            let filled = if effect.fetch { self.fill_at(access.addr, index_addr, now) } else { None };
            return (effect, filled);
        };
        if effect.fetch {
            // A fetching access left its line in the way it looked up (found
            // or allocated), unless it allocated nothing; check rather than
            // assume.
            let slot = self.slot(set, way);
            if self.tags[slot] == self.line_addr(access.addr) && is_present(&self.states[slot]) {
                self.fill_present(slot, self.sector_of(access.addr) as usize);
                self.line_changed(set, way);
                return (effect, None);
            }
            self.line_changed(set, way);
            return (effect, self.fill_at(access.addr, index_addr, now));
        }
        self.line_changed(set, way);
        (effect, None)
    }

    /// Drops every line, valid, reserved or modified, without write-backs:
    /// the L1 flush at a kernel boundary (the L1 is write-through, so nothing
    /// is lost). Fills still in flight are ignored when they arrive.
    pub fn invalidate_all(&mut self) {
        for changes in &mut self.set_changes {
            *changes = changes.wrapping_add(1);
        }
        self.tags.fill(0);
        self.fingerprints.fill(fingerprint(0));
        self.states.fill(EMPTY_STATES);
        self.ages.fill(0);
        self.bytes.fill(LineBytes::EMPTY);
        if let Some(mut wide) = self.wide.take() {
            wide.tags.clear();
            // Every set is empty now: a way's key is the same in all of them.
            wide.victims.rebuild_alike(|way| self.victim_key(0, way));
            self.wide = Some(wide);
        }
    }
}

/// The state of one sector (or of a whole non-sectored line). One byte, so
/// a line's four states are one word to test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum SectorState {
    /// No data.
    Invalid = 0,
    /// A fill is pending.
    Reserved,
    /// Clean data (the bytes in `valid_bytes`).
    Valid,
    /// Data newer than the next level's (the bytes in `valid_bytes`).
    Modified,
}

/// A line whose sectors are all invalid: a free way.
const EMPTY_STATES: [SectorState; SECTORS_PER_LINE as usize] = [SectorState::Invalid; SECTORS_PER_LINE as usize];

/// The bytes of one line's sectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LineBytes {
    /// Per sector, the bytes that hold data. Invariant: `FULL_SECTOR_MASK` for
    /// a sector that was filled; a write-validated sector may hold fewer, and
    /// is readable only once they are all there.
    valid_bytes: [u32; SECTORS_PER_LINE as usize],
    /// Bit s = reserved sector s had a write-back write (or modified bytes)
    /// merged into it, so its fill leaves it Modified.
    modified_on_fill: u8,
}

/// What a look-up found: the outcome commit will report and the way it acts
/// on (the hit way, or the victim for an allocating miss).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Lookup {
    outcome: Outcome,
    way: Option<u32>,
}

/// How a write that finds its sector present is handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WriteMode {
    /// Keep the data here, modified; nothing goes down.
    Back,
    /// Keep the data here, clean; the write goes down.
    Through,
    /// Drop the sector here; the write goes down.
    Evict,
}

/// How a write that misses is handled (the write-allocate policy, as it
/// applies to this cache).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WriteMissMode {
    /// Nothing is allocated; the write goes down.
    NoAllocate,
    /// The write goes down and the sector is fetched (allocated now with
    /// allocation on miss, at the fill otherwise).
    Naive,
    /// The sector is fetched and merged with the write (a full-sector write
    /// needs no fetch).
    FetchOnWrite,
    /// The written bytes are kept without a fetch; a read of a partly written
    /// sector fetches it then.
    WriteValidate,
}

impl LineBytes {
    const EMPTY: LineBytes = LineBytes { valid_bytes: [0; SECTORS_PER_LINE as usize], modified_on_fill: 0 };
}

/// One byte of a line address for [`Cache::find`]'s first comparison: its
/// bits above the smallest line offset folded together, so that lines of one
/// set (which share their index bits) still differ in it.
fn fingerprint(line_addr: u64) -> u8 {
    let line = line_addr >> 5;
    (line ^ (line >> 8) ^ (line >> 16) ^ (line >> 24) ^ (line >> 32)) as u8
}

/// Whether any sector holds or awaits data (a line whose sectors are all
/// invalid is free, whatever its old tag). `Invalid` is 0, so this is one
/// word compared with 0.
fn is_present(states: &[SectorState; SECTORS_PER_LINE as usize]) -> bool {
    state_word(states) != 0
}

/// A line's four sector states as one word, a byte each.
fn state_word(states: &[SectorState; SECTORS_PER_LINE as usize]) -> u32 {
    u32::from_ne_bytes(states.map(|state| state as u8))
}

/// Sets of at most this many ways choose their victim in one pass
/// ([`Cache::victim_in_one_pass`]): their ages fill one host cache line.
/// Wider scanned sets (the L2's 16 to 24 ways, full with no fill pending on
/// every miss of the cache pass) choose faster by passes without an early
/// exit, which the compiler turns into vector code (docs/performance.md).
const ONE_PASS_WAYS: u32 = 8;

/// [`SectorState::Reserved`] in each byte of a state word: a word XOR this
/// has a zero byte where a sector is reserved.
const RESERVED_IN_EVERY_BYTE: u32 = u32::from_ne_bytes([SectorState::Reserved as u8; SECTORS_PER_LINE as usize]);

/// Whether some byte of `word` is zero (the classic bit trick: a byte's
/// borrow reaches its top bit only if it was zero).
fn has_zero_byte(word: u32) -> bool {
    word.wrapping_sub(0x0101_0101) & !word & 0x8080_8080 != 0
}

/// The top bit of each zero byte of `word` ([`has_zero_byte`]'s trick on
/// eight bytes); a byte above a zero one may be flagged too, so a flag is
/// only a candidate, to be checked.
fn zero_bytes(word: u64) -> u64 {
    word.wrapping_sub(0x0101_0101_0101_0101) & !word & 0x8080_8080_8080_8080
}

/// Whether a fill is pending on any sector of a line's [`state_word`]: such
/// a line cannot be evicted. One word test, no branch.
fn word_has_reserved_sector(word: u32) -> bool {
    has_zero_byte(word ^ RESERVED_IN_EVERY_BYTE)
}

/// Bit s = sector s is modified.
fn dirty_sectors(states: &[SectorState; SECTORS_PER_LINE as usize]) -> u8 {
    (0..SECTORS_PER_LINE as usize)
        .filter(|&unit| states[unit] == SectorState::Modified)
        .fold(0, |mask, unit| mask | 1 << unit)
}

impl Cache {
    fn slot(&self, set: u32, way: u32) -> usize {
        set as usize * self.assoc as usize + way as usize
    }

    /// The slots of `set`'s ways.
    fn ways(&self, set: u32) -> std::ops::Range<usize> {
        let first = self.slot(set, 0);
        first..first + self.assoc as usize
    }

    /// The way of `set` holding `line_addr`, if any (at most one does: no
    /// two present lines of a set share a tag).
    fn find(&self, set: u32, line_addr: u64) -> Option<u32> {
        match &self.wide {
            Some(wide) => wide.tags.find(set, line_addr, &self.tags[self.ways(set)]),
            None => self.find_by_scan(set, line_addr),
        }
    }

    /// [`Cache::find`] by a pass over the set's ways: how a narrow set finds
    /// a line.
    fn find_by_scan(&self, set: u32, line_addr: u64) -> Option<u32> {
        let ways = self.ways(set);
        let (tags, states) = (&self.tags[ways.clone()], &self.states[ways]);
        let row = &self.fingerprints[set as usize * self.fingerprint_row..][..self.fingerprint_row];
        // Fingerprints first, eight at a time in one word (no branch, no
        // vector unit needed): the word XOR the wanted byte in every byte is
        // zero where a way's byte matched. Tags only for those ways. A
        // padding byte or a free way's stale tag may match too, so a match
        // counts only for a present line of the set.
        let wanted = u64::from_le_bytes([fingerprint(line_addr); 8]);
        let (words, _) = row.as_chunks::<8>();
        for (word_index, word) in words.iter().enumerate() {
            // Little-endian on every host: byte `i` is way `8 * word_index + i`.
            let mut matches = zero_bytes(u64::from_le_bytes(*word) ^ wanted);
            while matches != 0 {
                let way = 8 * word_index + matches.trailing_zeros() as usize / 8;
                if way < tags.len() && tags[way] == line_addr && is_present(&states[way]) {
                    return u32::try_from(way).ok();
                }
                matches &= matches - 1;
            }
        }
        None
    }

    /// Way `way` of `set` may have changed (its sector states or its age):
    /// a wide set's victim tree replays its matches. Called once per access
    /// or fill, after it has changed the one line it acts on. The tag index
    /// needs no update here: a line only becomes present when it is
    /// allocated, and only stops being present when a write evicts its last
    /// sector, and those two places update it.
    // Inlined for its test: a narrow cache (every L2) has nothing to do.
    #[inline(always)]
    fn line_changed(&mut self, set: u32, way: u32) {
        if self.wide.is_some() {
            self.wide_line_changed(set, way);
        }
    }

    /// [`Cache::line_changed`] of a wide set.
    fn wide_line_changed(&mut self, set: u32, way: u32) {
        let slot = self.slot(set, way);
        debug_assert_eq!(
            self.find(set, self.tags[slot]) == Some(way),
            is_present(&self.states[slot]),
            "way {way} of set {set}: the tag index disagrees with the line's states"
        );
        // The tree's lowest match is between the way and its neighbour.
        let pair = [way & !1, way | 1].map(|way| self.victim_key(set, way));
        match &mut self.wide {
            Some(wide) if pair.iter().all(|key| key.age < wide::AGE_LIMIT) => wide.victims.update(set, pair),
            _ => self.scan_from_now_on(),
        }
    }

    /// Drops a wide set's indexes for the scans, which hold any age: the
    /// victim tree packs ages below [`wide::AGE_LIMIT`], and a caller's clock
    /// has just passed it. Allocates the fingerprints once; no caller's clock
    /// gets there in practice.
    #[cold]
    fn scan_from_now_on(&mut self) {
        self.take_fingerprints();
        self.wide = None;
    }

    /// The line in way `way` of `set` is no longer present (its tag still
    /// in place): a wide set's tag index drops it.
    fn forget(&mut self, set: u32, way: u32) {
        let line_addr = self.tags[self.slot(set, way)];
        if let Some(wide) = &mut self.wide {
            wide.tags.remove(set, line_addr, way);
        }
    }

    /// Where way `way` of `set` stands in the victim choice; a way past the
    /// set's last (a leaf of a victim tree's padding) is never chosen.
    fn victim_key(&self, set: u32, way: u32) -> VictimKey {
        if way >= self.assoc {
            return VictimKey { rank: VictimRank::Padding, age: 0, way };
        }
        let slot = self.slot(set, way);
        let word = state_word(&self.states[slot]);
        let (rank, age) = if word == 0 {
            (VictimRank::Free, 0)
        } else if word_has_reserved_sector(word) {
            (VictimRank::Reserved, 0)
        } else {
            (VictimRank::Evictable, self.ages[slot])
        };
        VictimKey { rank, age, way }
    }

    /// Sector `unit` of the line at `slot` becomes `state`, holding `valid_bytes`.
    fn set_sector(&mut self, slot: usize, unit: usize, state: SectorState, valid_bytes: u32) {
        self.states[slot][unit] = state;
        self.bytes[slot].valid_bytes[unit] = valid_bytes;
    }

    /// Data for sector `unit` of the present line at `slot` arrived.
    fn fill_present(&mut self, slot: usize, unit: usize) {
        let allocates_on_fill = self.allocation != Allocation::OnMiss;
        match self.states[slot][unit] {
            SectorState::Reserved => self.complete_fill(slot, unit),
            // An on-fill cache validates whatever sector the data is for.
            SectorState::Invalid if allocates_on_fill => {
                self.set_sector(slot, unit, SectorState::Valid, FULL_SECTOR_MASK);
            }
            SectorState::Valid | SectorState::Modified if allocates_on_fill => {
                self.bytes[slot].valid_bytes[unit] = FULL_SECTOR_MASK;
            }
            // On miss: the reservation this fill answered is gone.
            _ => {}
        }
    }

    /// A reserved sector's data arrived: all of it is valid now.
    fn complete_fill(&mut self, slot: usize, unit: usize) {
        let bit = 1 << unit;
        let modified = self.bytes[slot].modified_on_fill & bit != 0;
        let state = if modified { SectorState::Modified } else { SectorState::Valid };
        self.bytes[slot].modified_on_fill &= !bit;
        self.set_sector(slot, unit, state, FULL_SECTOR_MASK);
    }

    /// Starts a fetch of `unit`: it becomes Reserved, and stays modified after
    /// the fill if it holds modified bytes now.
    fn reserve(&mut self, slot: usize, unit: usize) {
        if self.states[slot][unit] == SectorState::Modified {
            self.bytes[slot].modified_on_fill |= 1 << unit;
        }
        self.set_sector(slot, unit, SectorState::Reserved, 0);
    }

    /// An access to the line at `slot` at cycle `now`: its LRU age (a FIFO
    /// age is its allocation, which an access does not change).
    fn touch(&mut self, slot: usize, now: u64) {
        if self.replacement == Replacement::Lru {
            self.ages[slot] = now;
        }
    }

    /// The way a new line of `set` goes to: a free way first, else the least
    /// recently used (LRU) or oldest allocated (FIFO) line with no fill
    /// pending, the lowest way on a tie (the smallest [`VictimKey`]). `None`
    /// if every line awaits a fill.
    fn victim(&self, set: u32) -> Option<u32> {
        let Some(wide) = &self.wide else { return self.victim_by_scan(set) };
        let best = wide.victims.best(set);
        matches!(best.rank, VictimRank::Free | VictimRank::Evictable).then_some(best.way)
    }

    /// [`Cache::victim`] by scanning the set's ways: how a narrow set
    /// chooses, in one pass if it has at most [`ONE_PASS_WAYS`] ways.
    fn victim_by_scan(&self, set: u32) -> Option<u32> {
        if self.assoc <= ONE_PASS_WAYS { self.victim_in_one_pass(set) } else { self.victim_by_passes(set) }
    }

    /// [`Cache::victim_by_scan`] by passes over the set's ways.
    fn victim_by_passes(&self, set: u32) -> Option<u32> {
        // Each step is a pass over one array with no early exit, which the
        // compiler turns into vector code: are there free lines, and lines
        // with a fill pending? Then the lowest free way; else, with no fill
        // pending (always so in the functional pass), the lowest way of the
        // smallest age; else the same among the lines that can be evicted.
        let ways = self.ways(set);
        let (states, ages) = (&self.states[ways.clone()], &self.ages[ways]);
        let (mut free, mut reserved) = (false, false);
        for word in states.iter().map(state_word) {
            free |= word == 0;
            reserved |= word_has_reserved_sector(word);
        }
        let way = if free {
            states.iter().position(|states| !is_present(states))
        } else if !reserved {
            // One pass keeping the oldest so far, replaced only by a strictly
            // older line, so a tie stays with the lowest way (a `min` and
            // then a `position` were two passes, the first a 64-bit minimum
            // with no vector instruction for it on the baseline x86-64).
            let (mut oldest_way, mut oldest_age) = (0, *ages.first()?);
            for (way, &age) in ages.iter().enumerate().skip(1) {
                if age < oldest_age {
                    (oldest_way, oldest_age) = (way, age);
                }
            }
            Some(oldest_way)
        } else {
            let has_reserved_sector = |states| word_has_reserved_sector(state_word(states));
            let evictable = ages.iter().zip(states).enumerate().filter(|(_, (_, states))| !has_reserved_sector(states));
            evictable.min_by_key(|&(way, (&age, _))| (age, way)).map(|(way, _)| way)
        };
        way.and_then(|way| u32::try_from(way).ok())
    }

    /// [`Cache::victim_by_scan`] for a set of at most [`ONE_PASS_WAYS`]
    /// ways: one pass that ends at the first free way (every way before it
    /// was taken) and keeps the oldest line with no fill pending, a tie
    /// staying with the lower way. The same choice as the passes, which on
    /// sets this narrow cost more than they save.
    fn victim_in_one_pass(&self, set: u32) -> Option<u32> {
        let ways = self.ways(set);
        let (states, ages) = (&self.states[ways.clone()], &self.ages[ways]);
        let mut oldest: Option<(u64, usize)> = None;
        for (way, (states, &age)) in states.iter().zip(ages).enumerate() {
            let word = state_word(states);
            if word == 0 {
                return u32::try_from(way).ok();
            }
            if !word_has_reserved_sector(word) && oldest.is_none_or(|(oldest_age, _)| age < oldest_age) {
                oldest = Some((age, way));
            }
        }
        oldest.and_then(|(_, way)| u32::try_from(way).ok())
    }

    /// Clears way `way` of `set` for `line_addr` at cycle `now`, returning the
    /// old line's modified sectors for write-back.
    fn allocate(&mut self, set: u32, way: u32, line_addr: u64, now: u64) -> Option<Eviction> {
        let slot = self.slot(set, way);
        let (old_line_addr, old_states) = (self.tags[slot], self.states[slot]);
        let dirty_sectors = dirty_sectors(&old_states);
        // A wide set's tag index swaps the old line for the new one now:
        // every caller makes one of the new line's sectors valid or reserved
        // before the access ends, so the line is present (checked by
        // `line_changed` in debug builds).
        match &mut self.wide {
            Some(wide) => {
                if is_present(&old_states) {
                    wide.tags.remove(set, old_line_addr, way);
                }
                wide.tags.insert(set, line_addr, way);
            }
            None => self.fingerprints[set as usize * self.fingerprint_row + way as usize] = fingerprint(line_addr),
        }
        self.tags[slot] = line_addr;
        self.states[slot] = EMPTY_STATES;
        self.ages[slot] = now;
        self.bytes[slot] = LineBytes::EMPTY;
        (is_present(&old_states) && dirty_sectors != 0).then_some(Eviction { line_addr: old_line_addr, dirty_sectors })
    }

    fn write_mode(&self, access: &Access) -> WriteMode {
        match self.write_policy {
            WritePolicy::WriteBack => WriteMode::Back,
            // A read-only cache should see no writes; if it does, they pass through.
            WritePolicy::WriteThrough | WritePolicy::ReadOnly => WriteMode::Through,
            WritePolicy::WriteEvict => WriteMode::Evict,
            // GPGPU-Sim's `L` policy: write-back for local data, and a global
            // write that hits evicts the sector (its `wr_hit_global_we_local_wb`).
            WritePolicy::LocalWriteBackGlobalWriteThrough if access.local => WriteMode::Back,
            WritePolicy::LocalWriteBackGlobalWriteThrough => WriteMode::Evict,
        }
    }

    /// Whether a write that misses goes on below this cache, as GPGPU-Sim's
    /// write-miss handler sends it: under write-through or write-evict, and
    /// under no or naive write-allocate. A write to a sector whose fill is
    /// still in flight is handled as a miss (the `HitReserved` arm of a
    /// write), so the same rule sends it on.
    pub fn sends_write_misses_down(&self, access: &Access) -> bool {
        self.write_mode(access) != WriteMode::Back
            || matches!(self.write_miss_mode(), WriteMissMode::NoAllocate | WriteMissMode::Naive)
    }

    fn write_miss_mode(&self) -> WriteMissMode {
        // Write-evict never allocates on a write. Fetch-on-write and
        // write-validate need allocation on miss (validation enforces it);
        // with any other allocation they fall back to no allocation.
        let allocates_on_miss = self.allocation == Allocation::OnMiss;
        match self.write_allocate {
            _ if self.write_policy == WritePolicy::WriteEvict => WriteMissMode::NoAllocate,
            WriteAllocate::None => WriteMissMode::NoAllocate,
            WriteAllocate::WriteAllocate => WriteMissMode::Naive,
            WriteAllocate::FetchOnWrite if allocates_on_miss => WriteMissMode::FetchOnWrite,
            WriteAllocate::LazyFetchOnRead if allocates_on_miss => WriteMissMode::WriteValidate,
            WriteAllocate::FetchOnWrite | WriteAllocate::LazyFetchOnRead => WriteMissMode::NoAllocate,
        }
    }

    /// The byte mask a write covers: a non-sectored line is written whole.
    fn write_mask(&self, access: &Access) -> u32 {
        if self.units_per_line == 1 { FULL_SECTOR_MASK } else { access.byte_mask }
    }

    /// Whether a miss of `access` must allocate a line at commit.
    fn allocates_at_commit(&self, access: &Access) -> bool {
        match access.kind {
            AccessKind::Read => self.allocation == Allocation::OnMiss,
            AccessKind::Write => match self.write_miss_mode() {
                WriteMissMode::NoAllocate => false,
                WriteMissMode::Naive => self.allocation == Allocation::OnMiss,
                WriteMissMode::FetchOnWrite | WriteMissMode::WriteValidate => true,
            },
        }
    }

    /// Classifies `access` against `set` without changing anything: the one
    /// decision `probe` and `commit` share, so they cannot disagree.
    fn look_up(&self, access: &Access, set: u32) -> Lookup {
        let line_addr = self.line_addr(access.addr);
        let unit = self.sector_of(access.addr) as usize;
        let Some(way) = self.find(set, line_addr) else {
            if !self.allocates_at_commit(access) {
                return Lookup { outcome: Outcome::Miss, way: None };
            }
            return match self.victim(set) {
                Some(victim) => Lookup { outcome: Outcome::Miss, way: Some(victim) },
                None => Lookup { outcome: Outcome::ReservationFail, way: None },
            };
        };
        let slot = self.slot(set, way);
        let outcome = match (self.states[slot][unit], access.kind) {
            (SectorState::Reserved, _) => Outcome::HitReserved,
            (SectorState::Invalid, _) => Outcome::SectorMiss,
            // A write needs no data from below, so a partly written sector takes it.
            (SectorState::Valid | SectorState::Modified, AccessKind::Write) => Outcome::Hit,
            (SectorState::Valid | SectorState::Modified, AccessKind::Read) => {
                if self.bytes[slot].valid_bytes[unit] == FULL_SECTOR_MASK { Outcome::Hit } else { Outcome::SectorMiss }
            }
        };
        Lookup { outcome, way: Some(way) }
    }

    fn commit_read(&mut self, access: &Access, set: u32, lookup: Lookup, now: u64) -> Effect {
        let unit = self.sector_of(access.addr) as usize;
        let line_addr = self.line_addr(access.addr);
        let allocates_on_miss = self.allocation == Allocation::OnMiss;
        let mut effect = Effect { outcome: lookup.outcome, fetch: false, write_down: false, eviction: None };
        match (lookup.outcome, lookup.way) {
            (Outcome::Hit | Outcome::HitReserved, Some(way)) => {
                self.touch(self.slot(set, way), now);
            }
            (Outcome::SectorMiss, Some(way)) => {
                effect.fetch = true;
                if allocates_on_miss {
                    let slot = self.slot(set, way);
                    self.reserve(slot, unit);
                    self.touch(slot, now);
                }
            }
            (Outcome::Miss, way) => {
                effect.fetch = true;
                if let Some(way) = way {
                    effect.eviction = self.allocate(set, way, line_addr, now);
                    self.reserve(self.slot(set, way), unit);
                }
            }
            _ => {}
        }
        effect
    }

    fn commit_write(&mut self, access: &Access, set: u32, lookup: Lookup, now: u64) -> Effect {
        let unit = self.sector_of(access.addr) as usize;
        let line_addr = self.line_addr(access.addr);
        let mask = self.write_mask(access);
        let mode = self.write_mode(access);
        let mut effect = Effect { outcome: lookup.outcome, fetch: false, write_down: false, eviction: None };
        match (lookup.outcome, lookup.way) {
            (Outcome::Hit, Some(way)) => {
                let slot = self.slot(set, way);
                match mode {
                    WriteMode::Back => {
                        let valid_bytes = self.bytes[slot].valid_bytes[unit] | mask;
                        self.set_sector(slot, unit, SectorState::Modified, valid_bytes);
                        self.touch(slot, now);
                    }
                    WriteMode::Through => {
                        self.bytes[slot].valid_bytes[unit] |= mask;
                        self.touch(slot, now);
                        effect.write_down = true;
                    }
                    WriteMode::Evict => {
                        // GPGPU-Sim drops the sector without writing back any
                        // other modified bytes in it: under the `L` policy only
                        // local writes modify, and local and global data never
                        // share a line.
                        self.set_sector(slot, unit, SectorState::Invalid, 0);
                        if !is_present(&self.states[slot]) {
                            self.forget(set, way);
                        }
                        effect.write_down = true;
                    }
                }
            }
            (Outcome::HitReserved, Some(way)) => {
                // GPGPU-Sim handles a write to a reserved sector as a write
                // miss: without write-allocate, or under the naive one, the
                // write goes down and the line is left alone.
                let slot = self.slot(set, way);
                self.touch(slot, now);
                if !self.sends_write_misses_down(access) {
                    self.bytes[slot].modified_on_fill |= 1 << unit;
                } else {
                    effect.write_down = true;
                }
            }
            (Outcome::Miss | Outcome::SectorMiss, way) => {
                self.write_miss(access, set, way, line_addr, now, &mut effect);
            }
            _ => {}
        }
        effect
    }

    /// A write whose sector holds no data: allocate as the write-allocate
    /// policy says. `way` is the line's way for a sector miss, the victim for
    /// an allocating miss, and `None` for a miss that allocates nothing now.
    fn write_miss(
        &mut self,
        access: &Access,
        set: u32,
        way: Option<u32>,
        line_addr: u64,
        now: u64,
        effect: &mut Effect,
    ) {
        let unit = self.sector_of(access.addr) as usize;
        let mask = self.write_mask(access);
        let mode = self.write_mode(access);
        let miss_mode = self.write_miss_mode();
        // Data kept here after a write-back write is modified; after a
        // write-through (or write-evict) write it is clean, since the write
        // also goes down.
        let kept = if mode == WriteMode::Back { SectorState::Modified } else { SectorState::Valid };
        effect.write_down = self.sends_write_misses_down(access);
        // A sector miss under allocation on fill leaves the line alone too.
        let way = way.filter(|_| self.allocates_at_commit(access));
        let Some(way) = way else {
            // No allocation now: no-write-allocate, or a naive write-allocate
            // whose line arrives with the fill.
            effect.fetch = miss_mode == WriteMissMode::Naive;
            return;
        };
        if miss_mode == WriteMissMode::NoAllocate {
            return;
        }
        if effect.outcome == Outcome::Miss {
            effect.eviction = self.allocate(set, way, line_addr, now);
        }
        let slot = self.slot(set, way);
        self.touch(slot, now);
        match miss_mode {
            WriteMissMode::NoAllocate => {}
            WriteMissMode::Naive => {
                self.set_sector(slot, unit, SectorState::Reserved, 0);
                effect.fetch = true;
            }
            WriteMissMode::FetchOnWrite if mask == FULL_SECTOR_MASK => {
                self.set_sector(slot, unit, kept, FULL_SECTOR_MASK);
            }
            WriteMissMode::FetchOnWrite => {
                self.set_sector(slot, unit, SectorState::Reserved, 0);
                if mode == WriteMode::Back {
                    self.bytes[slot].modified_on_fill |= 1 << unit;
                }
                effect.fetch = true;
            }
            WriteMissMode::WriteValidate => self.set_sector(slot, unit, kept, mask),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// One step of a test sequence.
    #[derive(Debug, Clone, Copy)]
    enum Op {
        Read(u64),
        /// A global write of the byte mask.
        Write(u64, u32),
        /// A local-memory write of the byte mask.
        LocalWrite(u64, u32),
        Fill(u64),
        InvalidateAll,
    }

    use Op::{Fill, InvalidateAll, LocalWrite, Read, Write};

    fn cache(string: &str) -> Cache {
        Cache::new(&config(string))
    }

    fn config(string: &str) -> CacheConfig {
        CacheConfig::parse(string).expect("a valid cache string").expect("a cache")
    }

    fn show_eviction(eviction: Option<Eviction>) -> String {
        eviction.map_or(String::new(), |e| format!(" evict {:#x}:{:04b}", e.line_addr, e.dirty_sectors))
    }

    /// Runs `ops` (step i at cycle i) and renders each step's result, checking
    /// on the way that every access's probe predicted its commit.
    fn run(cache: &mut Cache, ops: &[Op]) -> Vec<String> {
        let mut lines = Vec::new();
        for (now, op) in ops.iter().enumerate() {
            let now = now as u64;
            let access = match *op {
                Read(addr) => Access::read(addr),
                Write(addr, mask) => Access::write(addr, mask),
                LocalWrite(addr, mask) => Access { local: true, ..Access::write(addr, mask) },
                Fill(addr) => {
                    lines.push(format!("fill{}", show_eviction(cache.fill(addr, now))));
                    continue;
                }
                InvalidateAll => {
                    cache.invalidate_all();
                    lines.push("invalidate".to_owned());
                    continue;
                }
            };
            let predicted = cache.probe(&access);
            let effect = cache.commit(&access, now);
            assert_eq!(predicted, effect.outcome, "probe disagrees with commit at step {now}: {op:?}");
            lines.push(format!(
                "{}{}{}{}",
                effect.outcome.name(),
                if effect.fetch { " fetch" } else { "" },
                if effect.write_down { " down" } else { "" },
                show_eviction(effect.eviction),
            ));
        }
        lines
    }

    /// Runs `ops` on an empty cache of `string` and compares each step's result.
    fn check(string: &str, ops: &[Op], expect: &[&str]) {
        let got = run(&mut cache(string), ops);
        let got: Vec<&str> = got.iter().map(String::as_str).collect();
        assert_eq!(got, expect, "{string}");
    }

    // Two sets of two 128 B ways with linear indexing: lines 0x0, 0x100, 0x200
    // share set 0; sectors sit at +0x20, +0x40, +0x60.

    #[test]
    fn outcome_names() {
        let names: Vec<&str> = Outcome::ALL.iter().map(|o| o.name()).collect();
        assert_eq!(names, ["hit", "hit_reserved", "miss", "sector_miss", "reservation_fail"]);
    }

    #[test]
    fn allocate_on_miss_reads() {
        check(
            "S:2:128:2,L:T:m:N:L,A:8:4,4",
            &[
                Read(0x0),
                Read(0x10),
                Read(0x20),
                Fill(0x0),
                Read(0x0),
                Read(0x100),
                Read(0x200),
                Fill(0x20),
                Fill(0x100),
                Read(0x200),
                Read(0x0),
            ],
            &[
                "miss fetch",
                "hit_reserved",
                "sector_miss fetch",
                "fill",
                "hit",
                "miss fetch",
                // Both ways of set 0 wait on a fill.
                "reservation_fail",
                "fill",
                "fill",
                // 0x0 was used at step 4, 0x100 at step 5: 0x0 goes.
                "miss fetch",
                "miss fetch",
            ],
        );
    }

    #[test]
    fn allocate_on_fill_and_streaming_reads() {
        let ops = [
            Read(0x0),
            Read(0x0),
            Fill(0x0),
            Read(0x0),
            Read(0x20),
            Fill(0x20),
            Read(0x20),
            Read(0x100),
            Read(0x200),
            Fill(0x100),
            Fill(0x200),
            Read(0x0),
            Read(0x100),
        ];
        let expect = [
            "miss fetch",
            // Nothing is reserved: the caller's MSHR merges the second miss.
            "miss fetch",
            "fill",
            "hit",
            "sector_miss fetch",
            "fill",
            "hit",
            "miss fetch",
            "miss fetch",
            "fill",
            // The fill allocates and evicts 0x0 (last used at step 6), which is clean.
            "fill",
            "miss fetch",
            "hit",
        ];
        check("S:2:128:2,L:T:f:N:L,A:8:4,4", &ops, &expect);
        check("S:2:128:2,L:T:s:N:L,A:8:4,4", &ops, &expect);
    }

    #[test]
    fn write_through_no_allocate() {
        check(
            "S:2:128:2,L:T:m:N:L,A:8:4,4",
            &[Write(0x0, !0), Read(0x0), Fill(0x0), Write(0x0, 0xF), Read(0x0), Write(0x20, !0), Read(0x20)],
            &["miss down", "miss fetch", "fill", "hit down", "hit", "sector_miss down", "sector_miss fetch"],
        );
    }

    #[test]
    fn write_through_write_validate_is_the_volta_l1() {
        check(
            "S:2:128:2,L:T:m:L:L,A:8:4,4",
            &[
                Write(0x0, 0xF),
                Read(0x0),
                Fill(0x0),
                Read(0x0),
                Write(0x20, !0),
                Read(0x20),
                Read(0x100),
                Fill(0x100),
                Read(0x200),
            ],
            &[
                // Allocated with the written bytes only; the write still goes down.
                "miss down",
                // Partly written: the read fetches the sector.
                "sector_miss fetch",
                "fill",
                "hit",
                // A full-sector write makes the sector readable without a fetch.
                "sector_miss down",
                "hit",
                "miss fetch",
                "fill",
                // Write-through lines are clean: evicting 0x0 writes nothing back.
                "miss fetch",
            ],
        );
    }

    #[test]
    fn write_evict() {
        check(
            "S:2:128:2,L:E:m:N:L,A:8:4,4",
            &[Read(0x0), Fill(0x0), Write(0x0, !0), Read(0x0), Write(0x100, !0)],
            // The hit drops the line's only valid sector, so the line is gone.
            &["miss fetch", "fill", "hit down", "miss fetch", "miss down"],
        );
    }

    #[test]
    fn write_back_no_allocate() {
        check(
            "S:2:128:2,L:B:m:N:L,A:8:4,4",
            &[Read(0x0), Fill(0x0), Write(0x0, 0xF), Read(0x0), Write(0x100, !0), Read(0x100), Read(0x200)],
            &["miss fetch", "fill", "hit", "hit", "miss down", "miss fetch", "miss fetch evict 0x0:0001"],
        );
    }

    #[test]
    fn write_back_fetch_on_write() {
        check(
            "S:2:128:2,L:B:m:F:L,A:8:4,4",
            &[
                Write(0x0, 0xF),
                Read(0x0),
                Fill(0x0),
                Read(0x0),
                Write(0x20, !0),
                Read(0x20),
                Write(0x100, !0),
                Write(0x200, !0),
                Read(0x0),
                Read(0x100),
            ],
            &[
                // A partial write fetches the rest of the sector.
                "miss fetch",
                "hit_reserved",
                "fill",
                "hit",
                // A full-sector write needs no fetch.
                "sector_miss",
                "hit",
                "miss",
                // 0x0 is least recently used; its two modified sectors go back, once.
                "miss evict 0x0:0011",
                "miss fetch evict 0x100:0001",
                "miss fetch evict 0x200:0001",
            ],
        );
    }

    #[test]
    fn write_back_naive_write_allocate() {
        check(
            "S:2:128:2,L:B:m:W:L,A:8:4,4",
            &[Write(0x0, 0xF), Read(0x0), Fill(0x0), Read(0x0), Read(0x100), Fill(0x100), Read(0x200)],
            // The write goes down and the sector is fetched, so the line stays clean.
            &["miss fetch down", "hit_reserved", "fill", "hit", "miss fetch", "fill", "miss fetch"],
        );
    }

    #[test]
    fn write_back_write_validate_is_the_l2() {
        check(
            "S:2:128:2,L:B:m:L:L,A:8:4,4",
            &[
                Write(0x0, 0xF),
                Read(0x0),
                Fill(0x0),
                Read(0x0),
                Write(0x20, !0),
                Read(0x20),
                Write(0x100, !0),
                Read(0x200),
                Fill(0x200),
                Read(0x100),
                Read(0x0),
            ],
            &[
                "miss",
                // Partly written: fetch, then the sector is modified and whole.
                "sector_miss fetch",
                "fill",
                "hit",
                "sector_miss",
                "hit",
                "miss",
                "miss fetch evict 0x0:0011",
                "fill",
                "hit",
                // The victim is 0x200 (0x100 was used at step 9), which is clean.
                "miss fetch",
            ],
        );
    }

    #[test]
    fn dirty_sectors_are_written_back_once() {
        check(
            "S:2:128:2,L:B:m:N:L,A:8:4,4",
            &[
                Read(0x0),
                Fill(0x0),
                Write(0x0, !0),
                Read(0x100),
                Fill(0x100),
                Read(0x200),
                Fill(0x200),
                Read(0x0),
                Fill(0x0),
                Read(0x100),
                Fill(0x100),
                Read(0x200),
            ],
            &[
                "miss fetch",
                "fill",
                "hit",
                "miss fetch",
                "fill",
                "miss fetch evict 0x0:0001",
                "fill",
                "miss fetch",
                "fill",
                "miss fetch",
                "fill",
                // 0x0 came back clean: evicting it again writes nothing.
                "miss fetch",
            ],
        );
    }

    #[test]
    fn writes_to_a_reserved_sector() {
        check(
            "S:2:128:2,L:B:m:F:L,A:8:4,4",
            &[Read(0x0), Write(0x0, 0x1), Fill(0x0), Read(0x0), Read(0x100), Fill(0x100), Read(0x200)],
            // Under fetch-on-write the merged write makes the filled sector modified.
            &["miss fetch", "hit_reserved", "fill", "hit", "miss fetch", "fill", "miss fetch evict 0x0:0001"],
        );
        for string in ["S:2:128:2,L:B:m:N:L,A:8:4,4", "S:2:128:2,L:B:m:W:L,A:8:4,4"] {
            check(
                string,
                &[Read(0x0), Write(0x0, 0x1), Fill(0x0), Read(0x0), Read(0x100), Fill(0x100), Read(0x200)],
                // Without write-allocate, or naive, it goes down as a write
                // miss does (GPGPU-Sim's `m_wr_miss`), and the line stays clean.
                &["miss fetch", "hit_reserved down", "fill", "hit", "miss fetch", "fill", "miss fetch"],
            );
        }
        check(
            "S:2:128:2,L:T:m:N:L,A:8:4,4",
            &[Read(0x0), Write(0x0, 0x1), Fill(0x0), Read(0x0)],
            &["miss fetch", "hit_reserved down", "fill", "hit"],
        );
    }

    #[test]
    fn local_write_back_global_write_evict() {
        check(
            "S:2:128:2,L:L:m:N:L,A:8:4,4",
            &[
                Read(0x0),
                Fill(0x0),
                LocalWrite(0x0, 0xF),
                Read(0x0),
                Read(0x20),
                Fill(0x20),
                Write(0x20, !0),
                Read(0x20),
                Fill(0x20),
                LocalWrite(0x100, !0),
                Read(0x100),
                Fill(0x100),
                Read(0x200),
            ],
            &[
                "miss fetch",
                "fill",
                // Local: write-back.
                "hit",
                "hit",
                "sector_miss fetch",
                "fill",
                // Global: the hit evicts the sector and the write goes down.
                "hit down",
                "sector_miss fetch",
                "fill",
                "miss down",
                "miss fetch",
                "fill",
                "miss fetch evict 0x0:0001",
            ],
        );
    }

    #[test]
    fn lru_and_fifo_choose_different_victims() {
        let ops = [Read(0x0), Fill(0x0), Read(0x100), Fill(0x100), Read(0x0), Read(0x200), Read(0x0), Read(0x100)];
        check(
            "S:2:128:2,L:B:m:N:L,A:8:4,4",
            &ops,
            &["miss fetch", "fill", "miss fetch", "fill", "hit", "miss fetch", "hit", "miss fetch"],
        );
        check(
            "S:2:128:2,F:B:m:N:L,A:8:4,4",
            &ops,
            &["miss fetch", "fill", "miss fetch", "fill", "hit", "miss fetch", "miss fetch", "reservation_fail"],
        );
    }

    #[test]
    fn reservation_fail_changes_nothing_and_spares_no_allocate_writes() {
        let mut cache = cache("S:2:128:2,L:B:m:L:L,A:8:4,4");
        let before = run(&mut cache, &[Read(0x0), Read(0x100)]);
        assert_eq!(before, ["miss fetch", "miss fetch"]);
        assert_eq!(cache.probe(&Access::read(0x200)), Outcome::ReservationFail);
        assert_eq!(cache.probe(&Access::write(0x200, 0xF)), Outcome::ReservationFail);
        let after = run(&mut cache, &[Read(0x200), Write(0x200, 0xF), Fill(0x0), Read(0x0), Read(0x200)]);
        assert_eq!(after, ["reservation_fail", "reservation_fail", "fill", "hit", "miss fetch"]);
        // Without write-allocate a write never needs a line, so it never fails.
        let mut cache = self::cache("S:2:128:2,L:B:m:N:L,A:8:4,4");
        let got = run(&mut cache, &[Read(0x0), Read(0x100), Write(0x200, 0xF)]);
        assert_eq!(got, ["miss fetch", "miss fetch", "miss down"]);
    }

    #[test]
    fn non_sectored_lines_are_one_unit() {
        let mut cache = cache("N:2:128:2,L:B:m:N:L,A:8:4,4");
        assert_eq!((cache.sector_of(0x60), cache.line_addr(0x1e4)), (0, 0x180));
        let got = run(
            &mut cache,
            &[Read(0x0), Read(0x20), Fill(0x40), Read(0x60), Write(0x10, 0x1), Read(0x100), Fill(0x100), Read(0x200)],
        );
        assert_eq!(
            got,
            ["miss fetch", "hit_reserved", "fill", "hit", "hit", "miss fetch", "fill", "miss fetch evict 0x0:0001"]
        );
    }

    #[test]
    fn invalidate_all_drops_lines_and_pending_fills() {
        check(
            "S:2:128:2,L:T:m:N:L,A:8:4,4",
            &[Read(0x0), Fill(0x0), InvalidateAll, Read(0x0), InvalidateAll, Fill(0x0), Read(0x0)],
            &["miss fetch", "fill", "invalidate", "miss fetch", "invalidate", "fill", "miss fetch"],
        );
    }

    #[test]
    fn fewer_ways_for_a_carve_out() {
        let mut cache = Cache::with_ways(&config("S:2:128:2,L:T:m:N:L,A:8:4,4"), 1);
        assert_eq!((cache.n_sets(), cache.assoc(), cache.line_size_bytes()), (2, 1, 128));
        let got = run(&mut cache, &[Read(0x0), Fill(0x0), Read(0x100), Fill(0x100), Read(0x0)]);
        assert_eq!(got, ["miss fetch", "fill", "miss fetch", "fill", "miss fetch"]);
        assert_eq!(Cache::with_ways(&config("S:2:128:2,L:T:m:N:L,A:8:4,4"), 0).assoc(), 1);
    }

    #[test]
    fn an_index_address_apart_from_the_tag_address() {
        // The L2 indexes with the partition bits removed: here 0x80, which is
        // in set 1 by its own address, is placed by index address 0 in set 0.
        let mut cache = cache("S:2:128:2,L:B:m:N:L,A:8:4,4");
        let read = Access::read(0x80);
        assert_eq!(cache.set_of(0x80), 1);
        assert_eq!(cache.commit_at(&read, 0, 0).outcome, Outcome::Miss);
        assert_eq!(cache.fill_at(0x80, 0, 1), None);
        assert_eq!(cache.probe_at(&read, 0), Outcome::Hit);
        assert_eq!(cache.probe(&read), Outcome::Miss);
    }

    /// Every cache string with 2 sets × 2 ways (and IPOLY with 16 sets) that
    /// validation accepts.
    fn all_valid_strings() -> Vec<String> {
        let mut strings = Vec::new();
        for kind in ["S", "N"] {
            for replacement in ["L", "F"] {
                for write in ["R", "B", "T", "E", "L"] {
                    for allocation in ["m", "f", "s"] {
                        for write_allocate in ["N", "W", "F", "L"] {
                            for (sets, index) in [(2, "L"), (2, "X"), (16, "P"), (2, "C")] {
                                let string = format!(
                                    "{kind}:{sets}:128:2,{replacement}:{write}:{allocation}:{write_allocate}:{index},A:8:4,4"
                                );
                                if let Ok(Some(_)) = CacheConfig::parse(&string) {
                                    strings.push(string);
                                }
                            }
                        }
                    }
                }
            }
        }
        strings
    }

    /// Any of [`all_valid_strings`].
    fn valid_string() -> impl Strategy<Value = String> {
        prop::sample::select(all_valid_strings())
    }

    /// A random access: a sector of line `line`, its bytes `mask`.
    #[derive(Debug, Clone, Copy)]
    struct AccessOp {
        line: u64,
        sector: u64,
        write: bool,
        local: bool,
        mask: u32,
    }

    impl AccessOp {
        /// The access, with lines `spread` lines of 128 B apart.
        fn access(self, spread: u64) -> Access {
            let kind = if self.write { AccessKind::Write } else { AccessKind::Read };
            Access { addr: self.line * 128 * spread + self.sector * 32, kind, byte_mask: self.mask, local: self.local }
        }
    }

    /// Accesses to the lines `line` gives.
    fn access_op(line: impl Strategy<Value = u64>) -> impl Strategy<Value = AccessOp> {
        let mask = prop_oneof![Just(FULL_SECTOR_MASK), Just(0xF), Just(0xF0F0), any::<u32>()];
        (line, 0u64..4, any::<bool>(), any::<bool>(), mask).prop_map(|(line, sector, write, local, mask)| AccessOp {
            line,
            sector,
            write,
            local,
            mask,
        })
    }

    /// A random step: an access, or the fill of one of the outstanding fetches.
    #[derive(Debug, Clone, Copy)]
    enum RandomOp {
        Access(AccessOp),
        FillPending(usize),
    }

    fn random_op() -> impl Strategy<Value = RandomOp> {
        prop_oneof![
            3 => access_op(0u64..6).prop_map(RandomOp::Access),
            1 => any::<usize>().prop_map(RandomOp::FillPending),
        ]
    }

    /// Applies `op` at cycle `now`: an access (its fetch left in `pending`),
    /// the fill of a pending fetch, or with none pending a flush.
    fn apply(cache: &mut Cache, op: RandomOp, spread: u64, now: u64, pending: &mut Vec<u64>) {
        match op {
            RandomOp::Access(op) => {
                let access = op.access(spread);
                if cache.commit(&access, now).fetch {
                    pending.push(access.addr);
                }
            }
            RandomOp::FillPending(i) if !pending.is_empty() => {
                let addr = pending.remove(i % pending.len());
                cache.fill(addr, now);
            }
            RandomOp::FillPending(_) => cache.invalidate_all(),
        }
    }

    /// A random step for a wide cache, with the cycle it happens at if not
    /// its step number.
    #[derive(Debug, Clone, Copy)]
    enum WideOp {
        /// An access, by [`Cache::commit_filled_at`] if the flag is set, else
        /// by [`Cache::commit`] with the fill left pending.
        Access(AccessOp, bool),
        FillPending(usize),
        InvalidateAll,
    }

    fn wide_op() -> impl Strategy<Value = (WideOp, Option<u64>)> {
        // A quarter of the accesses to 20 hot lines, the rest to 300 lines,
        // up to 150 per set of a 2-set cache, several times its ways: lines
        // are hit, sets fill, and lines are evicted and fetched again.
        let line = prop_oneof![1 => 0u64..20, 3 => 0u64..300];
        let op = prop_oneof![
            300 => (access_op(line), any::<bool>()).prop_map(|(op, filled)| WideOp::Access(op, filled)),
            100 => any::<usize>().prop_map(WideOp::FillPending),
            // About once a case: a flush empties the sets they took long to fill.
            1 => Just(WideOp::InvalidateAll),
        ];
        let clock = prop_oneof![4 => Just(None), 1 => (0u64..4).prop_map(Some)];
        (op, clock)
    }

    impl Cache {
        /// Whether a line holds `addr` (in any sector state).
        fn holds(&self, addr: u64) -> bool {
            self.find(self.set_of(addr), self.line_addr(addr)).is_some()
        }
    }

    /// The structural invariants: every present line sits in the set its
    /// address maps to, once.
    fn check_invariants(cache: &Cache) {
        for set in 0..cache.n_sets {
            let present: Vec<u64> =
                cache.ways(set).filter(|&slot| is_present(&cache.states[slot])).map(|slot| cache.tags[slot]).collect();
            for (i, line_addr) in present.iter().enumerate() {
                assert_eq!(cache.set_of(*line_addr), set);
                assert!(!present[..i].contains(line_addr), "{line_addr:#x} twice in set {set}");
            }
        }
        let present = cache.states.iter().filter(|states| is_present(states)).count();
        assert!(present <= cache.n_sets as usize * cache.assoc as usize);
        if cache.wide.is_none() {
            for (set, way) in (0..cache.n_sets).flat_map(|set| (0..cache.assoc).map(move |way| (set, way))) {
                let fingerprint_of = cache.fingerprints[set as usize * cache.fingerprint_row + way as usize];
                assert_eq!(fingerprint_of, fingerprint(cache.tags[cache.slot(set, way)]), "{set}:{way}'s fingerprint");
            }
        }
        for set in 0..cache.n_sets {
            assert_eq!(cache.victim(set), reference_victim(cache, set), "set {set}'s victim");
            // Every tag of the set, a free way's stale one included.
            for line_addr in cache.ways(set).map(|slot| cache.tags[slot]) {
                assert_eq!(
                    cache.find(set, line_addr),
                    reference_find(cache, set, line_addr),
                    "set {set}: {line_addr:#x}"
                );
            }
        }
        if let Some(wide) = &cache.wide {
            check_wide_indexes(cache, wide);
        }
    }

    /// The line search at its plainest: the first way whose present line has
    /// the tag (there is at most one).
    fn reference_find(cache: &Cache, set: u32, line_addr: u64) -> Option<u32> {
        (0..cache.assoc).find(|&way| {
            let slot = cache.slot(set, way);
            cache.tags[slot] == line_addr && is_present(&cache.states[slot])
        })
    }

    /// The victim choice at its plainest: the lowest free way, else the
    /// line with no fill pending of the smallest age, the lowest way on a tie.
    fn reference_victim(cache: &Cache, set: u32) -> Option<u32> {
        let states = |way| cache.states[cache.slot(set, way)];
        let free = (0..cache.assoc).find(|&way| states(way) == EMPTY_STATES);
        let evictable = (0..cache.assoc).filter(|&way| !states(way).contains(&SectorState::Reserved));
        free.or_else(|| evictable.min_by_key(|&way| (cache.ages[cache.slot(set, way)], way)))
    }

    /// A wide set's indexes agree with its arrays: the tag index holds
    /// exactly the present ways, and the victim tree is the one a rebuild
    /// gives.
    fn check_wide_indexes(cache: &Cache, wide: &WideSets) {
        for set in 0..cache.n_sets {
            let mut indexed: Vec<u32> = wide.tags.ways(set).collect();
            indexed.sort_unstable();
            let present: Vec<u32> =
                (0..cache.assoc).filter(|&way| is_present(&cache.states[cache.slot(set, way)])).collect();
            assert_eq!(indexed, present, "set {set}'s tag index");
        }
        let rebuilt = VictimTree::new(cache.n_sets, cache.assoc, |set, way| cache.victim_key(set, way));
        assert_eq!(wide.victims, rebuilt, "the victim tree");
    }

    /// A cache of `string` with `ways` ways per set (more than
    /// [`wide::SCAN_WAYS`]: it keeps the indexes), and the same cache made to
    /// scan its sets instead: the reference it must match step for step.
    fn wide_and_scanned(string: &str, ways: u32) -> (Cache, Cache) {
        let wide = Cache::with_ways(&config(string), ways);
        assert!(wide.wide.is_some(), "{ways} ways keep the indexes");
        (wide, Cache::build(&config(string), ways, false))
    }

    /// The state a cache's behaviour depends on: its per-line arrays, not
    /// what it derives from them to find lines and victims.
    fn lines(cache: &Cache) -> impl PartialEq + std::fmt::Debug + '_ {
        (&cache.tags, &cache.states, &cache.ages, &cache.bytes)
    }

    #[test]
    fn a_wide_set_chooses_the_victim_a_scan_chooses() {
        // 2 sets of 40 ways (lines 0x100 apart share set 0), allocation on
        // miss, write-through: fill set 0, then miss in it again and again.
        let (mut wide, mut scanned) = wide_and_scanned("S:2:128:2,L:T:m:N:L,A:8:4,4", 40);
        let line = |i: u64| i * 0x100;
        let mut evicted = Vec::new();
        for cache in [&mut wide, &mut scanned] {
            // Lines 0..40 at cycle 10, but line 7 at 3 and line 20 at 12: the
            // oldest is line 7, then lines 0..40 but 7 and 20, lowest way first.
            for i in 0..40 {
                let now = match i {
                    7 => 3,
                    20 => 12,
                    _ => 10,
                };
                assert_eq!(cache.commit(&Access::read(line(i)), now).outcome, Outcome::Miss);
                assert_eq!(cache.fill(line(i), now), None);
            }
            // Line 0 is used again at cycle 11: it is no longer the oldest.
            assert_eq!(cache.commit(&Access::read(line(0)), 11).outcome, Outcome::Hit);
            let mut gone = Vec::new();
            for i in 40..44 {
                let held: Vec<bool> = (0..40).map(|j| cache.holds(line(j))).collect();
                assert_eq!(cache.commit(&Access::read(line(i)), 20).outcome, Outcome::Miss);
                gone.push((0..40).find(|&j| held[j as usize] && !cache.holds(line(j))));
                check_invariants(cache);
            }
            evicted.push(gone);
        }
        assert_eq!(evicted[0], [Some(7), Some(1), Some(2), Some(3)]);
        assert_eq!(evicted[0], evicted[1]);
        // A set whose every line awaits a fill has no victim.
        assert_eq!(wide.victim(0), Some(4), "lines 1..4 were replaced by reserved ones");
        let mut full = wide_and_scanned("S:2:128:2,L:T:m:N:L,A:8:4,4", 40).0;
        for i in 0..40 {
            full.commit(&Access::read(line(i)), 0);
        }
        assert_eq!(full.victim(0), None);
        assert_eq!(full.commit(&Access::read(line(40)), 1).outcome, Outcome::ReservationFail);
        check_invariants(&full);
    }

    #[test]
    fn a_clock_past_the_victim_trees_ages_turns_to_scans() {
        // The victim tree packs ages below 2^46; a clock beyond that (no
        // run gets there, but the cache takes any u64) makes the cache scan
        // its sets from then on, with the same results.
        let (mut wide, mut scanned) = wide_and_scanned("S:2:128:2,L:B:m:N:L,A:8:4,4", 40);
        let clocks = (0..60).map(|i| i * 1000).chain((0..60).map(|i| u64::MAX - 100 + i)).chain(0..60);
        for (i, now) in (0..).zip(clocks) {
            let line = (i * 7919) % 120 * 0x100;
            for cache in [&mut wide, &mut scanned] {
                cache.commit(&Access::write(line, 0xFF), now);
            }
            let effects = [&mut wide, &mut scanned].map(|cache| cache.commit(&Access::read(line + 0x20), now));
            assert_eq!(effects[0], effects[1], "step {i} at {now}");
            if effects[0].fetch {
                assert_eq!(wide.fill(line + 0x20, now), scanned.fill(line + 0x20, now));
            }
            assert_eq!(wide.wide.is_some(), now < wide::AGE_LIMIT && i < 60, "step {i} at {now}");
            assert_eq!(lines(&wide), lines(&scanned));
            check_invariants(&wide);
        }
    }

    #[test]
    fn a_wide_set_at_the_volta_l1_geometry_matches_the_scan() {
        // QV100's unified L1 with no shared memory: 4 sets of 256 ways. A
        // long pseudo-random stream over three times its lines, half of them
        // hot, committed and filled as the profile's cache pass does.
        let (mut wide, mut scanned) = wide_and_scanned("S:4:128:64,L:T:m:L:L,A:512:8,16:0,32", 256);
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for now in 0..40_000 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let line = (seed >> 33) % if seed & 1 == 0 { 512 } else { 3072 };
            let addr = line * 128 + (seed >> 20) % 4 * 32;
            let access = if seed & 0x300 == 0 { Access::write(addr, 0xFF) } else { Access::read(addr) };
            let (a, b) = (wide.commit(&access, now), scanned.commit(&access, now));
            assert_eq!(a, b, "step {now}: {access:?}");
            if a.fetch {
                assert_eq!(wide.fill(addr, now), scanned.fill(addr, now), "step {now}: fill {addr:#x}");
            }
            if now % 4096 == 0 {
                check_invariants(&wide);
            }
        }
        assert_eq!(lines(&wide), lines(&scanned));
        check_invariants(&wide);
        wide.invalidate_all();
        check_invariants(&wide);
    }

    proptest! {
        #[test]
        fn probe_predicts_commit_and_fills_make_hits(
            string in valid_string(),
            spread in prop_oneof![Just(1u64), Just(2), Just(16)],
            ops in prop::collection::vec(random_op(), 1..80),
        ) {
            let mut cache = cache(&string);
            let mut pending: Vec<u64> = Vec::new();
            let fill = |cache: &mut Cache, addr: u64, now: u64| {
                if let Some(eviction) = cache.fill(addr, now) {
                    assert!(!cache.holds(eviction.line_addr), "{string}: evicted {eviction:?} still held");
                }
                assert_eq!(cache.probe(&Access::read(addr)), Outcome::Hit, "{string}: read after fill of {addr:#x}");
            };
            for (now, op) in ops.iter().enumerate() {
                let now = now as u64;
                match *op {
                    RandomOp::Access(op) => {
                        let access = op.access(spread);
                        let addr = access.addr;
                        let predicted = cache.probe(&access);
                        let effect = cache.commit(&access, now);
                        prop_assert_eq!(predicted, effect.outcome, "{} {:?}", string, access);
                        if let Some(eviction) = effect.eviction {
                            prop_assert!(eviction.dirty_sectors != 0);
                            // Gone, so its dirty sectors cannot be reported twice.
                            prop_assert!(!cache.holds(eviction.line_addr));
                        }
                        if effect.outcome == Outcome::ReservationFail {
                            prop_assert!(!effect.fetch && !effect.write_down && effect.eviction.is_none());
                        }
                        if effect.fetch {
                            pending.push(addr);
                        }
                    }
                    RandomOp::FillPending(i) if !pending.is_empty() => {
                        let addr = pending.remove(i % pending.len());
                        fill(&mut cache, addr, now);
                    }
                    RandomOp::FillPending(_) => {}
                }
                check_invariants(&cache);
            }
            for addr in std::mem::take(&mut pending) {
                fill(&mut cache, addr, ops.len() as u64);
                check_invariants(&cache);
            }
        }

        /// A set whose count of changes is unchanged answers every look-up
        /// as before, whatever happened in other sets: what the L1's bank
        /// heads rely on to count a refused retry without making it. Narrow
        /// sets are scanned, wide ones (40 ways) indexed.
        #[test]
        fn a_set_with_no_new_changes_looks_up_as_before(
            string in valid_string(),
            wide in any::<bool>(),
            spread in prop_oneof![Just(1u64), Just(2), Just(16)],
            ops in prop::collection::vec(random_op(), 1..80),
        ) {
            let mut cache = if wide { Cache::with_ways(&config(&string), 40) } else { cache(&string) };
            cache.count_changes();
            let watched: Vec<Access> =
                ops.iter().filter_map(|op| if let RandomOp::Access(op) = *op { Some(op.access(spread)) } else { None }).collect();
            let mut pending: Vec<u64> = Vec::new();
            for (now, op) in ops.iter().enumerate() {
                let before: Vec<(Probe, u32)> =
                    watched.iter().map(|access| { let probe = cache.prepare(access); (probe, cache.changes_in(probe.set())) }).collect();
                apply(&mut cache, *op, spread, now as u64, &mut pending);
                for (access, &(probe, changes)) in watched.iter().zip(&before) {
                    if cache.changes_in(probe.set()) == changes {
                        prop_assert_eq!(cache.prepare(access), probe, "{} {:?} after {:?}", string, access, op);
                    }
                }
            }
        }

        /// A narrow set's victim in one pass is the one the passes choose,
        /// after any mix of accesses, fills and flushes.
        #[test]
        fn one_pass_chooses_the_victim_the_passes_choose(
            string in valid_string(),
            ways in 1u32..=ONE_PASS_WAYS,
            ops in prop::collection::vec(random_op(), 1..120),
        ) {
            let mut cache = Cache::with_ways(&config(&string), ways);
            let mut pending: Vec<u64> = Vec::new();
            for (step, op) in ops.iter().enumerate() {
                // Four steps to a cycle: lines of the same age, whose tie the lower way wins.
                apply(&mut cache, *op, 1, step as u64 / 4, &mut pending);
                for set in 0..cache.n_sets {
                    prop_assert_eq!(cache.victim_in_one_pass(set), cache.victim_by_passes(set), "{} set {}", string, set);
                }
            }
        }

        #[test]
        fn commit_filled_is_commit_then_fill(
            string in valid_string(),
            spread in prop_oneof![Just(1u64), Just(2), Just(16)],
            ops in prop::collection::vec(random_op(), 1..80),
        ) {
            let (mut apart, mut together) = (cache(&string), cache(&string));
            for (now, op) in ops.iter().enumerate() {
                let RandomOp::Access(op) = *op else { continue };
                let (now, access) = (now as u64, op.access(spread));
                let addr = access.addr;
                let effect = apart.commit(&access, now);
                let filled = if effect.fetch { apart.fill(addr, now) } else { None };
                prop_assert_eq!(together.commit_filled_at(&access, addr, now), (effect, filled), "{} {:?}", string, access);
                prop_assert_eq!(format!("{together:?}"), format!("{apart:?}"), "{} {:?}", string, access);
            }
        }
    }

    proptest! {
        // Each case is hundreds of steps (sets must fill before victims
        // matter), so fewer cases than the default keep the test quick.
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Wide sets keep indexes where narrow ones scan: under every
        /// valid policy, any clock (ties and steps back included) and any
        /// mix of accesses, fills and flushes, both give the same effects and
        /// leave the same lines.
        #[test]
        fn wide_sets_behave_as_scanned_ones(
            string in valid_string(),
            ways in prop_oneof![Just(33u32), Just(40), Just(64)],
            ops in prop::collection::vec(wide_op(), 100..500),
        ) {
            let (mut wide, mut scanned) = wide_and_scanned(&string, ways);
            let mut pending: Vec<u64> = Vec::new();
            for (step, &(op, clock)) in ops.iter().enumerate() {
                // Mostly the step, sometimes a small cycle: ties, and time going back.
                let now = clock.unwrap_or(step as u64);
                match op {
                    WideOp::Access(op, filled) => {
                        let access = op.access(1);
                        let addr = access.addr;
                        if filled {
                            let got = wide.commit_filled_at(&access, addr, now);
                            prop_assert_eq!(got, scanned.commit_filled_at(&access, addr, now), "{} {:?}", string, access);
                        } else {
                            let effect = wide.commit(&access, now);
                            prop_assert_eq!(effect, scanned.commit(&access, now), "{} {:?}", string, access);
                            if effect.fetch {
                                pending.push(addr);
                            }
                        }
                    }
                    WideOp::FillPending(i) if !pending.is_empty() => {
                        let addr = pending.remove(i % pending.len());
                        prop_assert_eq!(wide.fill(addr, now), scanned.fill(addr, now), "{} fill {:#x}", string, addr);
                    }
                    WideOp::FillPending(_) => {}
                    WideOp::InvalidateAll => {
                        wide.invalidate_all();
                        scanned.invalidate_all();
                    }
                }
                prop_assert_eq!(lines(&wide), lines(&scanned), "{} after {:?}", string, op);
                check_invariants(&wide);
            }
        }
    }
}
