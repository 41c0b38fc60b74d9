//! One last-level cache of the functional cache pass: a config's L2 slices
//! (`uarch::cache::Cache` each), its address-to-slice mapping and partition
//! addresses, and what it counts. A miss is filled the moment it is sent, so
//! nothing is ever pending.
//!
//! The LLC is apart from the L1 stage so that one L1-filtered stream can feed
//! several LLCs in one pass, each with its own geometry (the miss-rate curve
//! of DESIGN §6: a scale model has fewer slices, so other sets and another
//! mapping, not just less capacity).

use std::ops::AddAssign;

use serde::{Deserialize, Serialize};
use warplab_config::GpuConfig;
use warplab_uarch::address_map::AddressMap;
use warplab_uarch::cache::{Access, AccessKind, Cache, Eviction, Outcome, SECTOR_BYTES};

use crate::dram_rate::{DRAM_SAMPLE_REQUESTS, DramAccess};

/// What one LLC saw of the requests past the L1s.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlcCounts {
    /// Requests at the LLC: reads, writes, atomics and L1 write-backs, one
    /// per sector (per line for a non-sectored L1).
    pub accesses: u64,
    /// Misses as DESIGN §2a counts them for L2 MPKI (and the timing model's
    /// `SimReport::l2_mpki`): requests whose sector was absent (a miss or a
    /// sector miss), reads and writes alike, whether or not the write
    /// fetches. The pass fills at once, so there are no pending hits.
    pub misses: u64,
    /// Misses that read from DRAM: every read miss, and the write misses
    /// whose write-allocate policy fetches (what the profile reports as
    /// `CacheFigures::l2_misses`).
    pub fetches: u64,
    /// Sectors read from or written to DRAM (fetches, write-throughs, dirty
    /// write-backs; a non-sectored line counts all its sectors).
    pub dram_sectors: u64,
    /// Write requests DRAM acknowledges: those the LLC sent on to it
    /// (write-through, or a naive write-allocate miss), and under such
    /// policies those that found their block's fill in flight, which
    /// GPGPU-Sim sends on too (the pass, which fills at once, does not
    /// write them to DRAM, so `dram_sectors` leaves them out).
    #[serde(default)]
    pub writes_to_dram: u64,
}

impl AddAssign for LlcCounts {
    fn add_assign(&mut self, other: Self) {
        self.accesses += other.accesses;
        self.misses += other.misses;
        self.fetches += other.fetches;
        self.dram_sectors += other.dram_sectors;
        self.writes_to_dram += other.writes_to_dram;
    }
}

/// The LLC of one configuration: its slices, mapping and counts.
pub(crate) struct SlicedLlc {
    slices: Vec<Cache>,
    address_map: AddressMap,
    /// Sectors a miss reads from DRAM: one for a sectored L2, the whole line
    /// for one that is not.
    fetch_sectors: u64,
    /// This LLC's own clock for LRU and FIFO order: one tick per access, so
    /// every LLC of a pass orders its lines exactly as it would alone.
    now: u64,
    pub counts: LlcCounts,
    /// Accesses per slice since the counts were last reset.
    slice_accesses: Vec<u64>,
    /// The first requests to DRAM since the counts were last reset, at most
    /// [`DRAM_SAMPLE_REQUESTS`] (`dram_rate.rs` measures their rate).
    pub dram_sample: Vec<DramAccess>,
}

impl SlicedLlc {
    /// The empty LLC of `config`: its slices (`-gpgpu_n_mem` ×
    /// sub-partitions), the L2 cache string, the address mapping and the
    /// partition indexing.
    pub fn new(config: &GpuConfig) -> Self {
        let address_map = AddressMap::for_gpu(config);
        let l2 = &config.memory.l2;
        Self {
            slices: (0..address_map.n_sub_partitions()).map(|_| Cache::new(l2)).collect(),
            slice_accesses: vec![0; address_map.n_sub_partitions() as usize],
            address_map,
            fetch_sectors: u64::from(l2.fetch_bytes() / SECTOR_BYTES).max(1),
            now: 0,
            counts: LlcCounts::default(),
            dram_sample: Vec::new(),
        }
    }

    /// A host-to-device copy that warms the LLC (`--memcpy-warms-l2`): every
    /// sector read in, at time 0, and not counted.
    pub fn warm(&mut self, address: u64, bytes: u64) {
        let sector = u64::from(SECTOR_BYTES);
        for s in address / sector..(address.saturating_add(bytes)).div_ceil(sector) {
            let addr = s * sector;
            let (slice, index) = self.slice_of(addr);
            self.slices[slice].commit_filled_at(&Access::read(addr), index, 0);
        }
    }

    /// A read (or atomic) request; true when it goes to DRAM.
    pub fn read(&mut self, addr: u64) -> bool {
        let now = self.tick();
        let (slice, index) = self.slice_of(addr);
        let (effect, filled) = self.slices[slice].commit_filled_at(&Access::read(addr), index, now);
        self.count(slice, effect.outcome);
        if !effect.fetch {
            return false;
        }
        self.fetch(addr);
        self.write_back(effect.eviction);
        self.write_back(filled);
        true
    }

    /// A write request of the bytes `byte_mask` of `addr`'s sector. The
    /// pass fills at once, so whether the write found its block's fill
    /// still in flight is the caller's to say (`to_fill`): under a policy
    /// that sends such writes on (`Cache::sends_write_misses_down`), DRAM
    /// acknowledges it. True when the write fetches the block from DRAM.
    pub fn write(&mut self, addr: u64, byte_mask: u32, local: bool, to_fill: bool) -> bool {
        let now = self.tick();
        let (slice, index) = self.slice_of(addr);
        let access = Access { addr, kind: AccessKind::Write, byte_mask, local };
        let (effect, filled) = self.slices[slice].commit_filled_at(&access, index, now);
        self.count(slice, effect.outcome);
        self.write_back(effect.eviction);
        if effect.fetch {
            self.fetch(addr);
            self.write_back(filled);
        }
        if effect.write_down {
            self.counts.dram_sectors += 1;
            self.sample(addr, 1, true);
        }
        let on_to_fill = to_fill && self.slices[slice].sends_write_misses_down(&access);
        self.counts.writes_to_dram += u64::from(effect.write_down || on_to_fill);
        effect.fetch
    }

    /// Starts the counts again from zero (a new kernel).
    pub fn reset_counts(&mut self) {
        self.counts = LlcCounts::default();
        self.slice_accesses.fill(0);
        self.dram_sample.clear();
    }

    /// Accesses at the slice that has taken the most since the last reset.
    pub fn busiest_slice_accesses(&self) -> u64 {
        self.slice_accesses.iter().copied().max().unwrap_or(0)
    }

    fn tick(&mut self) -> u64 {
        self.now += 1;
        self.now
    }

    fn count(&mut self, slice: usize, outcome: Outcome) {
        self.counts.accesses += 1;
        self.slice_accesses[slice] += 1;
        self.counts.misses += u64::from(matches!(outcome, Outcome::Miss | Outcome::SectorMiss));
    }

    fn slice_of(&self, addr: u64) -> (usize, u64) {
        (self.address_map.sub_partition(addr) as usize, self.address_map.partition_address(addr))
    }

    /// A miss's read from DRAM.
    fn fetch(&mut self, addr: u64) {
        self.counts.fetches += 1;
        self.counts.dram_sectors += self.fetch_sectors;
        self.sample(addr, self.fetch_sectors, false);
    }

    fn write_back(&mut self, eviction: Option<Eviction>) {
        if let Some(eviction) = eviction {
            // A non-sectored line's one dirty bit stands for the whole line.
            self.counts.dram_sectors += u64::from(eviction.dirty_sectors.count_ones()) * self.fetch_sectors;
            if self.fetch_sectors > 1 {
                self.sample(eviction.line_addr, self.fetch_sectors, true);
            } else {
                eviction.dirty_sector_addrs().for_each(|addr| self.sample(addr, 1, true));
            }
        }
    }

    /// Keeps a request of `sectors` sectors at `addr` in the DRAM sample
    /// while it has room.
    fn sample(&mut self, addr: u64, sectors: u64, is_write: bool) {
        if self.dram_sample.len() < DRAM_SAMPLE_REQUESTS {
            let bytes = u32::try_from(sectors * u64::from(SECTOR_BYTES)).unwrap_or(u32::MAX);
            self.dram_sample.push(DramAccess { addr, bytes, is_write });
        }
    }
}
