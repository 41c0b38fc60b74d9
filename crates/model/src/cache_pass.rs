//! The functional cache pass: every memory instruction of every warp through
//! one L1 per SM and the sliced L2, at the configured geometry and policies,
//! with no timing. A miss is filled the moment it is sent, so two warps
//! touching one sector count one miss and one hit (what an MSHR merge does).
//!
//! The warps of a wave (the CTAs resident at once) are interleaved round
//! robin, one memory instruction per warp per turn, SMs in turn inside each
//! round, so the caches see the mix of streams they would see in a run.
//!
//! What it measures is counted per memory site (a PC at one ordinal among the
//! warp's memory instructions, so each loop iteration apart): how often a
//! warp's instance misses the L1, how many L1 miss requests it sends (one per
//! sector fetched: the unit an L1 MSHR holds; one per line for a non-sectored
//! L1), how many of those miss the L2, and whether it is a divergent load.

use warplab_config::GpuConfig;
use warplab_config::cache::WritePolicy;
use warplab_trace::{Cta, Instruction, MemSpace};
use warplab_uarch::address_map::AddressMap;
use warplab_uarch::cache::{Access, AccessKind, Cache, Eviction, SECTOR_BYTES};
use warplab_uarch::coalescer::{LINE_BYTES, SectorAccess, coalesce, lines_touched};
use warplab_uarch::ops::{OpInfo, OpKind};

/// Bytes of a request's header on the interconnect.
const HEADER_BYTES: u64 = warplab_uarch::latency::PACKET_HEADER_BYTES as u64;

/// What one memory instruction (one PC) did over all its executions.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct PcStats {
    /// Warp executions.
    pub execs: u64,
    /// Executions that sent at least one read request past the L1.
    pub missing_execs: u64,
    /// Read requests past the L1 (MSHR entries).
    pub read_requests: u64,
    /// Of those, the ones that missed the L2.
    pub llc_misses: u64,
    /// Write requests past the L1.
    pub write_requests: u64,
    /// Global loads whose lanes touch more lines than their width needs.
    pub divergent: u64,
}

/// Totals over a kernel, for the report.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Traffic {
    /// Sector reads at the L1 and those that missed.
    pub l1_reads: u64,
    pub l1_read_misses: u64,
    /// Requests at the L2 (reads, writes, atomics, write-backs) and misses.
    pub l2_accesses: u64,
    pub l2_misses: u64,
    /// Bytes crossing the reply network and the request network.
    pub reply_bytes: u64,
    pub request_bytes: u64,
    /// Sectors read from or written to DRAM.
    pub dram_sectors: u64,
}

/// The caches of the whole GPU.
pub(crate) struct CachePass {
    l1s: Vec<Option<Cache>>,
    l1_sectored: bool,
    l1_line_bytes: u64,
    skip_l1_for_global: bool,
    write_back_local: bool,
    l2: Vec<Cache>,
    /// Sectors an L2 miss reads from DRAM: one for a sectored L2, the whole
    /// line for one that is not.
    l2_fetch_sectors: u64,
    address_map: AddressMap,
    accesses: Vec<SectorAccess>,
    now: u64,
    pub traffic: Traffic,
}

impl CachePass {
    pub fn new(config: &GpuConfig) -> Self {
        let dl1 = config.l1.dl1.as_ref();
        let address_map = AddressMap::new(&config.memory, &config.dram);
        Self {
            l1s: (0..config.n_sms()).map(|_| dl1.map(Cache::new)).collect(),
            l1_sectored: dl1.is_some_and(warplab_config::CacheConfig::is_sectored),
            l1_line_bytes: dl1.map_or(LINE_BYTES, |c| u64::from(c.line_size_bytes)),
            skip_l1_for_global: config.l1.gmem_skip_l1d,
            write_back_local: dl1.is_some_and(|c| {
                matches!(c.write_policy, WritePolicy::WriteBack | WritePolicy::LocalWriteBackGlobalWriteThrough)
            }),
            l2: (0..address_map.n_sub_partitions()).map(|_| Cache::new(&config.memory.l2)).collect(),
            l2_fetch_sectors: if config.memory.l2.is_sectored() {
                1
            } else {
                u64::from(config.memory.l2.line_size_bytes / SECTOR_BYTES).max(1)
            },
            address_map,
            accesses: Vec::with_capacity(64),
            now: 0,
            traffic: Traffic::default(),
        }
    }

    /// Empties every L1 and gives it the kernel's carve-out (`ways`), as the
    /// timing model does at a kernel launch; the L2 keeps its contents.
    pub fn start_kernel(&mut self, config: &GpuConfig, ways: Option<u32>) {
        if let Some(dl1) = config.l1.dl1.as_ref() {
            for l1 in &mut self.l1s {
                *l1 = Some(ways.map_or_else(|| Cache::new(dl1), |ways| Cache::with_ways(dl1, ways.max(1))));
            }
        }
        self.traffic = Traffic::default();
    }

    /// A host-to-device copy that warms the L2 (`--memcpy-warms-l2`).
    pub fn warm_l2(&mut self, address: u64, bytes: u64) {
        let sector = u64::from(SECTOR_BYTES);
        for s in address / sector..(address.saturating_add(bytes)).div_ceil(sector) {
            let addr = s * sector;
            let (slice, index) = self.slice_of(addr);
            let access = Access::read(addr);
            if self.l2[slice].commit_at(&access, index, 0).fetch {
                self.l2[slice].fill_at(addr, index, 0);
            }
        }
    }

    /// One warp's execution of a memory instruction on SM `sm`.
    pub fn access(
        &mut self,
        sm: usize,
        cta: &Cta,
        instruction: &Instruction,
        op: OpInfo,
        space: MemSpace,
        pc: &mut PcStats,
    ) {
        let lanes = cta.lane_addresses(instruction);
        coalesce(lanes, op.access_bytes, space, 1, &mut self.accesses);
        pc.execs += 1;
        let local = space == MemSpace::Local;
        match op.kind {
            OpKind::Load(_) => {
                if space == MemSpace::Global && is_divergent(&self.accesses, instruction, op.access_bytes) {
                    pc.divergent += 1;
                }
                let past_l1 = self.skip_l1_for_global && space == MemSpace::Global;
                let before = pc.read_requests;
                for i in 0..self.accesses.len() {
                    let addr = self.accesses[i].sector_addr;
                    if past_l1 {
                        self.request_read(addr, pc);
                    } else {
                        self.read_through_l1(sm, addr, local, pc);
                    }
                }
                pc.missing_execs += u64::from(pc.read_requests > before);
            }
            OpKind::Store(_) => {
                for i in 0..self.accesses.len() {
                    let SectorAccess { sector_addr, byte_mask, .. } = self.accesses[i];
                    self.write_through_l1(sm, sector_addr, byte_mask, local, pc);
                }
            }
            _ => {
                // Atomics are done at the L2: each sector is a request that needs a reply.
                for i in 0..self.accesses.len() {
                    self.request_read(self.accesses[i].sector_addr, pc);
                }
                pc.missing_execs += u64::from(!self.accesses.is_empty());
            }
        }
    }

    fn tick(&mut self) -> u64 {
        self.now += 1;
        self.now
    }

    fn read_through_l1(&mut self, sm: usize, addr: u64, local: bool, pc: &mut PcStats) {
        let now = self.tick();
        let Some(l1) = self.l1s.get_mut(sm).and_then(Option::as_mut) else {
            self.request_read(addr, pc);
            return;
        };
        self.traffic.l1_reads += 1;
        let access = Access { addr, kind: AccessKind::Read, byte_mask: u32::MAX, local };
        let effect = l1.commit(&access, now);
        if !effect.fetch {
            return;
        }
        let fetch =
            if self.l1_sectored { addr & !u64::from(SECTOR_BYTES - 1) } else { addr & !(self.l1_line_bytes - 1) };
        let filled = l1.fill(fetch, now);
        self.traffic.l1_read_misses += 1;
        self.request_read(fetch, pc);
        for eviction in [effect.eviction, filled].into_iter().flatten() {
            self.write_back_l1(eviction);
        }
    }

    fn write_through_l1(&mut self, sm: usize, addr: u64, byte_mask: u32, local: bool, pc: &mut PcStats) {
        let now = self.tick();
        let access = Access { addr, kind: AccessKind::Write, byte_mask, local };
        let (write_down, eviction) = match self.l1s.get_mut(sm).and_then(Option::as_mut) {
            Some(l1) => {
                let effect = l1.commit(&access, now);
                let filled = if effect.fetch { l1.fill(addr, now) } else { None };
                (effect.write_down, effect.eviction.or(filled))
            }
            None => (true, None),
        };
        if write_down {
            pc.write_requests += 1;
            self.traffic.request_bytes += HEADER_BYTES + u64::from(byte_mask.count_ones());
            self.traffic.reply_bytes += HEADER_BYTES;
            self.l2_write(addr, byte_mask, local);
        }
        if let Some(eviction) = eviction {
            self.write_back_l1(eviction);
        }
    }

    /// A read request past the L1: header out, the data back.
    fn request_read(&mut self, addr: u64, pc: &mut PcStats) {
        pc.read_requests += 1;
        let bytes = if self.l1_sectored { u64::from(SECTOR_BYTES) } else { self.l1_line_bytes };
        self.traffic.request_bytes += HEADER_BYTES;
        self.traffic.reply_bytes += HEADER_BYTES + bytes;
        if self.l2_read(addr) {
            pc.llc_misses += 1;
        }
    }

    fn write_back_l1(&mut self, eviction: Eviction) {
        if !self.write_back_local {
            return;
        }
        for addr in eviction.dirty_sector_addrs() {
            self.traffic.request_bytes += HEADER_BYTES + u64::from(SECTOR_BYTES);
            self.l2_write(addr, u32::MAX, true);
        }
    }

    fn slice_of(&self, addr: u64) -> (usize, u64) {
        (self.address_map.sub_partition(addr) as usize, self.address_map.partition_address(addr))
    }

    /// An L2 read; true when it misses (goes to DRAM).
    fn l2_read(&mut self, addr: u64) -> bool {
        let now = self.tick();
        let (slice, index) = self.slice_of(addr);
        let effect = self.l2[slice].commit_at(&Access::read(addr), index, now);
        self.traffic.l2_accesses += 1;
        if !effect.fetch {
            return false;
        }
        self.traffic.l2_misses += 1;
        self.traffic.dram_sectors += self.l2_fetch_sectors;
        let filled = self.l2[slice].fill_at(addr, index, now);
        self.write_back_l2(effect.eviction);
        self.write_back_l2(filled);
        true
    }

    fn l2_write(&mut self, addr: u64, byte_mask: u32, local: bool) {
        let now = self.tick();
        let (slice, index) = self.slice_of(addr);
        let access = Access { addr, kind: AccessKind::Write, byte_mask, local };
        let effect = self.l2[slice].commit_at(&access, index, now);
        self.traffic.l2_accesses += 1;
        self.write_back_l2(effect.eviction);
        if effect.fetch {
            self.traffic.l2_misses += 1;
            self.traffic.dram_sectors += self.l2_fetch_sectors;
            let filled = self.l2[slice].fill_at(addr, index, now);
            self.write_back_l2(filled);
        }
        self.traffic.dram_sectors += u64::from(effect.write_down);
    }

    fn write_back_l2(&mut self, eviction: Option<Eviction>) {
        if let Some(eviction) = eviction {
            // A non-sectored line's one dirty bit stands for the whole line.
            let per_bit = if self.l2_fetch_sectors > 1 { self.l2_fetch_sectors } else { 1 };
            self.traffic.dram_sectors += u64::from(eviction.dirty_sectors.count_ones()) * per_bit;
        }
    }
}

/// A global load is divergent when its active lanes touch more 128-B lines
/// than their bytes need: `ceil(active lanes × width / 128)` packed, plus
/// one, since a contiguous run that does not start on a line boundary
/// straddles one more line without being divergent (`strided` with GS = 1).
fn is_divergent(accesses: &[SectorAccess], instruction: &Instruction, access_bytes: u32) -> bool {
    let packed = (u64::from(instruction.active_lanes()) * u64::from(access_bytes.max(1))).div_ceil(LINE_BYTES);
    u64::from(lines_touched(accesses)) > packed.max(1) + 1
}
