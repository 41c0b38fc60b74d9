//! The sub-warp sectored coalescer: which 32-B sectors a warp's memory
//! instruction touches, with the bytes and lanes of each.
//!
//! This is GPGPU-Sim 4.0's `memory_coalescing_arch` for sectored L1 and L2
//! caches (`-gpgpu_coalesce_arch` 40 and above): every access becomes 32-B
//! requests, one per distinct sector a subwarp touches, whatever the access
//! width. The L1 and L2 then group these sectors by 128-B line.
//!
//! Differences from GPGPU-Sim, all deliberate:
//! - Byte masks are exact per sector. GPGPU-Sim keeps one mask over the
//!   128-B line for each request, so a lane that crosses a sector boundary
//!   also marks bytes of the neighbouring sector in the first request, and
//!   bytes past the line's end are dropped; the sectors and lanes are the same.
//! - Constant and texture accesses are coalesced like global ones. GPGPU-Sim
//!   groups them by the constant or texture cache's line size, for the whole
//!   warp; warplab has no separate constant and texture caches, so their
//!   accesses go to the L1 and L2 as sectors.
//! - A lane whose address is 0 is coalesced. GPGPU-Sim's trace-driven mode
//!   takes address 0 as "no address" and drops the lane.
//!
//! Local memory: GPGPU-Sim splits a local access wider than 4 B into 4-B
//! chunks, each needing its own per-lane address. A trace carries only the
//! first, so in Accel-Sim only the first 4 B of each lane's 8- or 16-B local
//! access are coalesced; warplab does the same (the byte masks cover 4 B per
//! lane, and the trailing bytes never add a sector).

use warplab_trace::{Addresses, Instruction, MemSpace, WARP_SIZE, lanes_in_one_run};

/// Bytes per sector: the unit of every request the coalescer emits.
pub const SECTOR_BYTES: u64 = 32;
/// Bytes per cache line (four sectors).
pub const LINE_BYTES: u64 = 128;
/// Lanes per warp.
pub(crate) const WARP_LANES: u32 = WARP_SIZE as u32;
/// The widest access a lane may make, in bytes (GPGPU-Sim's largest memory
/// access); wider widths are clamped to it.
pub const MAX_ACCESS_BYTES: u32 = 128;

/// One request: a sector one subwarp touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectorAccess {
    /// The sector's address (32-B aligned).
    pub sector_addr: u64,
    /// The bytes of the sector touched (bit i = byte `sector_addr + i`).
    pub byte_mask: u32,
    /// The lanes served (bit i = lane i), all from one subwarp.
    pub lanes: u32,
}

/// Coalesces one warp memory instruction into sector requests, clearing
/// `out` and filling it.
///
/// `lanes` yields `(lane, address)` for the active lanes (what
/// `Cta::lane_addresses` gives); lanes outside `0..32` are ignored. Each lane
/// accesses `width_bytes` bytes from its address: 0 (a trace's width for an
/// instruction it could not size) is taken as 4, and widths above
/// [`MAX_ACCESS_BYTES`] are clamped. Bytes past `u64::MAX` are dropped. A
/// lane whose bytes cross a sector boundary is served by both sectors.
///
/// The warp is split into `subwarps` groups of 32 / `subwarps` consecutive
/// lanes that coalesce separately (`subwarps` is clamped to 1..=32, and when
/// it does not divide 32 the lanes left over join the last group). Global,
/// generic, local, constant and texture accesses are coalesced; shared
/// accesses (see [`crate::shared_memory`]) and non-memory instructions yield
/// nothing.
///
/// Order: the order GPGPU-Sim's LD/ST unit sends them in. It queues a
/// warp's requests by subwarp, then by ascending sector address
/// (`warp_inst_t::memory_coalescing_arch`), and takes them from the back of
/// that queue (`ldst_unit::memory_cycle`, `accessq_back`): so the last
/// subwarp's highest sector comes first. Each (subwarp, sector) appears
/// once. Allocates only when `out` must grow past its capacity.
pub fn coalesce(
    lanes: impl Iterator<Item = (u32, u64)>,
    width_bytes: u32,
    space: MemSpace,
    subwarps: u32,
    out: &mut Vec<SectorAccess>,
) {
    out.clear();
    let Some(lane_width_bytes) = lane_width_bytes(space, width_bytes) else { return };
    let subwarps = Subwarps::new(subwarps);
    let mut found = Found::default();
    for (lane, addr) in lanes {
        if lane >= WARP_LANES {
            continue;
        }
        let lane_bit = 1u32 << lane;
        let subwarp = subwarps.of_lane(lane);
        let end = addr.saturating_add(u64::from(lane_width_bytes));
        let mut sector_addr = addr & !(SECTOR_BYTES - 1);
        while sector_addr < end {
            let first_byte = addr.max(sector_addr) - sector_addr;
            let last_byte = end.min(sector_addr.saturating_add(SECTOR_BYTES)) - sector_addr;
            let byte_mask = byte_range_mask(first_byte as u32, last_byte as u32);
            match found.existing(out, sector_addr, subwarp, subwarps) {
                Some(access) => {
                    access.byte_mask |= byte_mask;
                    access.lanes |= lane_bit;
                }
                None => found.push(out, SectorAccess { sector_addr, byte_mask, lanes: lane_bit }, subwarp),
            }
            let Some(next) = sector_addr.checked_add(SECTOR_BYTES) else { break };
            sector_addr = next;
        }
    }
    if !found.in_order {
        out.sort_unstable_by_key(|access| (subwarps.of_lane(access.lanes.trailing_zeros()), access.sector_addr));
    }
    // GPGPU-Sim's queue order, taken from the back.
    out.reverse();
}

/// [`coalesce`] of `instruction`, whose `(lane, address)` pairs `lanes`
/// yields (what `Cta::lane_addresses` gives): its strided lanes side by side
/// through [`coalesce_side_by_side`], any others through [`coalesce`].
pub fn coalesce_instruction(
    instruction: &Instruction,
    lanes: impl Iterator<Item = (u32, u64)>,
    width_bytes: u32,
    space: MemSpace,
    subwarps: u32,
    out: &mut Vec<SectorAccess>,
) {
    if let Addresses::Strided { base, stride } = instruction.addresses {
        let strided = StridedLanes { mask: instruction.mask, base, stride };
        if coalesce_side_by_side(strided, width_bytes, space, subwarps, out) {
            return;
        }
    }
    coalesce(lanes, width_bytes, space, subwarps, out);
}

/// A warp's active lanes as a trace's strided address mode gives them: the
/// `k`-th lane of `mask` (from lane 0 up) accesses `base + k * stride`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StridedLanes {
    /// The active lanes.
    pub mask: u32,
    /// The first active lane's address.
    pub base: u64,
    /// Bytes from one active lane's address to the next's.
    pub stride: i64,
}

/// [`coalesce`] of `lanes` when they lie side by side, each within one
/// sector: the stride is the lane's width, which divides a sector, `base`
/// is aligned to it, the warp is one subwarp and the run ends below
/// `u64::MAX`. That is how most coalesced loads and stores are traced.
/// Their sectors then come in ascending order, each lane's in one, so each
/// lane joins the last request or starts the next, with none of the general
/// search; with no inactive lane between two active ones, a sector's lanes
/// are found at once. Returns false, leaving `out` as it was, for any other
/// run: the caller then calls [`coalesce`]. The requests are the same
/// either way.
pub fn coalesce_side_by_side(
    lanes: StridedLanes,
    width_bytes: u32,
    space: MemSpace,
    subwarps: u32,
    out: &mut Vec<SectorAccess>,
) -> bool {
    let Some(width) = lane_width_bytes(space, width_bytes) else { return false };
    let run_bytes = u64::from(lanes.mask.count_ones()) * u64::from(width);
    let side_by_side = lanes.stride == i64::from(width)
        && SECTOR_BYTES.is_multiple_of(u64::from(width))
        && lanes.base.is_multiple_of(u64::from(width))
        && lanes.base.checked_add(run_bytes).is_some()
        && subwarps <= 1;
    if !side_by_side {
        return false;
    }
    out.clear();
    if lanes_in_one_run(lanes.mask) {
        sectors_of_consecutive_lanes(lanes, width, out);
    } else {
        sectors_lane_by_lane(lanes, width, out);
    }
    // GPGPU-Sim's queue order, taken from the back.
    out.reverse();
    true
}

/// [`coalesce_side_by_side`]'s requests in ascending order, one lane at a time.
fn sectors_lane_by_lane(lanes: StridedLanes, width: u32, out: &mut Vec<SectorAccess>) {
    let (mut mask, mut addr) = (lanes.mask, lanes.base);
    while mask != 0 {
        let lane_bit = mask & mask.wrapping_neg();
        mask &= mask - 1;
        let sector_addr = addr & !(SECTOR_BYTES - 1);
        let first = (addr - sector_addr) as u32;
        let byte_mask = byte_range_mask(first, first + width);
        match out.last_mut() {
            Some(access) if access.sector_addr == sector_addr => {
                access.byte_mask |= byte_mask;
                access.lanes |= lane_bit;
            }
            _ => out.push(SectorAccess { sector_addr, byte_mask, lanes: lane_bit }),
        }
        addr += u64::from(width);
    }
}

/// [`coalesce_side_by_side`]'s requests in ascending order when the active
/// lanes are consecutive (no lane off between two on), as in most warps of
/// a coalesced kernel: a sector at a time, its lanes and bytes each one run
/// of bits. Its lanes lie in it whole, since the width divides a sector and
/// the addresses are aligned to it.
fn sectors_of_consecutive_lanes(lanes: StridedLanes, width: u32, out: &mut Vec<SectorAccess>) {
    let width = u64::from(width);
    let end = lanes.base + u64::from(lanes.mask.count_ones()) * width;
    let (mut lane, mut addr) = (lanes.mask.trailing_zeros(), lanes.base);
    while addr < end {
        let sector_addr = addr & !(SECTOR_BYTES - 1);
        let stop = end.min(sector_addr.saturating_add(SECTOR_BYTES));
        let n_lanes = ((stop - addr) / width) as u32;
        out.push(SectorAccess {
            sector_addr,
            byte_mask: byte_range_mask((addr - sector_addr) as u32, (stop - sector_addr) as u32),
            lanes: byte_range_mask(lane, lane + n_lanes),
        });
        lane += n_lanes;
        addr = stop;
    }
}

/// What [`coalesce`] knows of the (subwarp, sector) pairs it has put in `out`.
///
/// A warp's lanes mostly access ascending addresses, so most pairs are the
/// last one pushed or come after it while `out` is in order: both are
/// answered without a search, and then `out` needs no sort either. Otherwise
/// a 64-bit filter holds a bit per pair (a pair whose bit is clear is new, so
/// a divergent warp, up to 32 distinct sectors, issue 39, mostly skips the
/// search; a set bit may be another pair's, and the search decides).
struct Found {
    filter: u64,
    /// The last pair pushed, if any.
    last: Option<(u32, u64)>,
    /// Every pair was pushed after every lower one: `out` is in
    /// (subwarp, sector) order, and the last pair is the highest.
    in_order: bool,
}

impl Default for Found {
    fn default() -> Self {
        Found { filter: 0, last: None, in_order: true }
    }
}

impl Found {
    /// The access of `out` for the pair `(subwarp, sector_addr)`, if any.
    // Called per active lane: inlined, its first tests settle most lanes
    // without a call (left to itself, the compiler moved it out of line when
    // the code around the coalescer changed, +1.3% on `vecadd`).
    #[inline(always)]
    fn existing<'a>(
        &self,
        out: &'a mut [SectorAccess],
        sector_addr: u64,
        subwarp: u32,
        subwarps: Subwarps,
    ) -> Option<&'a mut SectorAccess> {
        let key = (subwarp, sector_addr);
        match self.last {
            None => return None,
            // Each pair is in `out` once: the last one pushed is its access.
            Some(last) if last == key => return out.last_mut(),
            Some(last) if self.in_order && key > last => return None,
            Some(_) => {}
        }
        if self.filter & (1u64 << filter_slot(sector_addr, subwarp)) == 0 {
            return None;
        }
        out.iter_mut().find(|access| {
            access.sector_addr == sector_addr && subwarps.of_lane(access.lanes.trailing_zeros()) == subwarp
        })
    }

    /// Pushes a new pair's access.
    fn push(&mut self, out: &mut Vec<SectorAccess>, access: SectorAccess, subwarp: u32) {
        let key = (subwarp, access.sector_addr);
        self.in_order &= self.last.is_none_or(|last| key > last);
        self.last = Some(key);
        self.filter |= 1u64 << filter_slot(access.sector_addr, subwarp);
        out.push(access);
    }
}

/// A (subwarp, sector) pair's bit in [`coalesce`]'s filter: the top six bits
/// of a multiplicative hash of the sector number and the subwarp.
fn filter_slot(sector_addr: u64, subwarp: u32) -> u32 {
    let key = (sector_addr / SECTOR_BYTES) ^ (u64::from(subwarp) << 59);
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as u32
}

/// Coalesces one warp atomic into sector requests, as GPGPU-Sim's
/// `memory_coalescing_arch_atomic` does for `-gpgpu_coalesce_arch` 40 and
/// above: lanes are grouped by 32-B sector within each subwarp, but two lanes
/// that update the same bytes cannot share a request (each update is its own
/// read-modify-write at the L2), so a lane joins the first request of its
/// sector whose bytes it does not overlap, or starts a new one. A histogram
/// whose lanes hit one bin makes one request per lane.
///
/// Order: the reverse of by subwarp, then by sector address, then in the
/// order the requests were started (GPGPU-Sim's queue, taken from the back
/// as in [`coalesce`]). A lane's bytes are taken within its own sector (an atomic
/// never crosses one).
pub fn coalesce_atomic(
    lanes: impl Iterator<Item = (u32, u64)>,
    width_bytes: u32,
    subwarps: u32,
    out: &mut Vec<SectorAccess>,
) {
    out.clear();
    let width = access_width_bytes(width_bytes).min(SECTOR_BYTES as u32);
    let subwarps = Subwarps::new(subwarps);
    for (lane, addr) in lanes {
        if lane >= WARP_LANES {
            continue;
        }
        let subwarp = subwarps.of_lane(lane);
        let sector_addr = addr & !(SECTOR_BYTES - 1);
        let first = (addr - sector_addr) as u32;
        let byte_mask = byte_range_mask(first, (first + width).min(SECTOR_BYTES as u32));
        let free = out.iter_mut().find(|access| {
            access.sector_addr == sector_addr
                && subwarps.of_lane(access.lanes.trailing_zeros()) == subwarp
                && access.byte_mask & byte_mask == 0
        });
        match free {
            Some(access) => {
                access.byte_mask |= byte_mask;
                access.lanes |= 1 << lane;
            }
            None => out.push(SectorAccess { sector_addr, byte_mask, lanes: 1 << lane }),
        }
    }
    // Stable: requests of one sector keep the order they were started in.
    out.sort_by_key(|access| (subwarps.of_lane(access.lanes.trailing_zeros()), access.sector_addr));
    // GPGPU-Sim's queue order, taken from the back (see `coalesce`).
    out.reverse();
}

/// The distinct 128-B lines `accesses` touch (a line two subwarps both touch
/// counts once): the memory-divergence measure of an instruction.
pub fn lines_touched(accesses: &[SectorAccess]) -> u32 {
    let mut n_lines = 0;
    for (index, access) in accesses.iter().enumerate() {
        let line = access.sector_addr / LINE_BYTES;
        if !accesses[..index].iter().any(|earlier| earlier.sector_addr / LINE_BYTES == line) {
            n_lines += 1;
        }
    }
    n_lines
}

/// The bytes one lane accesses: 0 means 4, and at most [`MAX_ACCESS_BYTES`].
pub(crate) fn access_width_bytes(width_bytes: u32) -> u32 {
    if width_bytes == 0 { 4 } else { width_bytes.min(MAX_ACCESS_BYTES) }
}

/// The bytes each lane's address covers for a coalesced access of
/// `width_bytes` in `space`; `None` for spaces the coalescer leaves alone
/// (shared memory, non-memory instructions).
fn lane_width_bytes(space: MemSpace, width_bytes: u32) -> Option<u32> {
    match space {
        MemSpace::None | MemSpace::Shared => None,
        // Only the first 4-B chunk of a wide local access has an address in a trace.
        MemSpace::Local if width_bytes >= 4 => Some(4),
        MemSpace::Global | MemSpace::Generic | MemSpace::Local | MemSpace::Const | MemSpace::Tex => {
            Some(access_width_bytes(width_bytes))
        }
    }
}

/// How a warp splits into subwarps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Subwarps {
    /// Invariant: 1..=32.
    count: u32,
    /// Invariant: 32 / `count`, so at least 1.
    lanes_per_subwarp: u32,
}

impl Subwarps {
    /// `count` subwarps, clamped to 1..=32.
    #[inline]
    pub(crate) fn new(count: u32) -> Self {
        let count = count.clamp(1, WARP_LANES);
        Self { count, lanes_per_subwarp: WARP_LANES / count }
    }

    /// The subwarp of `lane`; lanes past the last whole group join the last subwarp.
    #[inline]
    pub(crate) fn of_lane(self, lane: u32) -> u32 {
        // The coalescer asks for every lane and every comparison; a division
        // each time was its largest cost, and the usual counts are powers of two.
        let subwarp = if self.lanes_per_subwarp.is_power_of_two() {
            lane >> self.lanes_per_subwarp.trailing_zeros()
        } else {
            lane / self.lanes_per_subwarp
        };
        subwarp.min(self.count - 1)
    }
}

/// A mask of bits `first..last` (`last` ≤ 32).
fn byte_range_mask(first: u32, last: u32) -> u32 {
    let below_last = if last >= 32 { u32::MAX } else { (1u32 << last) - 1 };
    let below_first = if first >= 32 { u32::MAX } else { (1u32 << first) - 1 };
    below_last & !below_first
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Coalesces `addresses` (one per lane from lane 0) and compares the
    /// result with `expect`, given as (sector address, byte mask, lanes) in
    /// the order GPGPU-Sim queues them; the coalescer emits them in reverse,
    /// the order they are sent in.
    fn check(addresses: &[u64], width_bytes: u32, space: MemSpace, subwarps: u32, expect: &[(u64, u32, u32)]) {
        let mut out = Vec::new();
        coalesce(
            addresses.iter().copied().enumerate().map(|(lane, addr)| (lane as u32, addr)),
            width_bytes,
            space,
            subwarps,
            &mut out,
        );
        let got: Vec<(u64, u32, u32)> = out.iter().rev().map(|a| (a.sector_addr, a.byte_mask, a.lanes)).collect();
        assert_eq!(got, expect);
    }

    fn run(
        addresses: impl Iterator<Item = u64>,
        width_bytes: u32,
        space: MemSpace,
        subwarps: u32,
    ) -> Vec<SectorAccess> {
        let mut out = Vec::new();
        coalesce(addresses.enumerate().map(|(lane, addr)| (lane as u32, addr)), width_bytes, space, subwarps, &mut out);
        out
    }

    proptest! {
        /// Runs side by side give what the general coalescer gives, and any
        /// other run is left to it. Fails if a lane's bytes, a request's
        /// lanes or the order differ, or if a run the fast path cannot take
        /// (misaligned, wider than a sector, another stride, two subwarps,
        /// ending past `u64::MAX`) is taken.
        #[test]
        fn side_by_side_runs_coalesce_as_any_run(
            mask in prop_oneof![any::<u32>(), (0u32..=32, 0u32..32).prop_map(|(n, at)| byte_range_mask(0, n) << at)],
            base in prop_oneof![0u64..4096, (u64::MAX - 4096)..=u64::MAX, any::<u64>()],
            width in prop_oneof![Just(0u32), Just(1), Just(2), Just(4), Just(8), Just(16), Just(32), Just(64), 0u32..200],
            stride_is_width in any::<bool>(),
            stride in -64i64..64,
            space in prop_oneof![Just(MemSpace::Global), Just(MemSpace::Local), Just(MemSpace::Shared), Just(MemSpace::Tex)],
            subwarps in prop_oneof![Just(1u32), 0u32..4],
        ) {
            let lane_width = lane_width_bytes(space, width).unwrap_or(4);
            let stride = if stride_is_width { i64::from(lane_width) } else { stride };
            let lanes = StridedLanes { mask, base, stride };
            let mut fast = vec![SectorAccess { sector_addr: 1, byte_mask: 2, lanes: 3 }];
            let before = fast.clone();
            let taken = coalesce_side_by_side(lanes, width, space, subwarps, &mut fast);
            let listed = (0..32u32).filter(|lane| mask & (1 << lane) != 0).enumerate().map(|(k, lane)| {
                (lane, base.wrapping_add_signed(stride.wrapping_mul(k as i64)))
            });
            let mut general = Vec::new();
            coalesce(listed, width, space, subwarps, &mut general);
            if taken {
                prop_assert_eq!(fast, general);
            } else {
                prop_assert_eq!(fast, before);
            }
            let eligible = stride == i64::from(lane_width)
                && 32u32.is_multiple_of(lane_width)
                && base.is_multiple_of(u64::from(lane_width))
                && base.checked_add(u64::from(mask.count_ones()) * u64::from(lane_width)).is_some()
                && subwarps <= 1
                && !matches!(space, MemSpace::Shared);
            prop_assert_eq!(taken, eligible);
        }
    }

    #[test]
    fn atomics_to_the_same_bytes_need_a_request_each() {
        // Lanes 0-2 update one word, lane 3 the next word of the same sector,
        // lane 4 another sector: three requests for the shared word (lane 3
        // joins the first), one for the other sector.
        let addresses = [0x100, 0x100, 0x100, 0x104, 0x140];
        let mut out = Vec::new();
        coalesce_atomic(addresses.iter().copied().enumerate().map(|(l, a)| (l as u32, a)), 4, 1, &mut out);
        let got: Vec<(u64, u32, u32)> = out.iter().map(|a| (a.sector_addr, a.byte_mask, a.lanes)).collect();
        // Sent from the back of GPGPU-Sim's queue: the other sector first.
        assert_eq!(got, [(0x140, 0x0F, 0b1_0000), (0x100, 0x0F, 0b0100), (0x100, 0x0F, 0b0010), (0x100, 0xFF, 0b1001)]);
    }

    #[test]
    fn consecutive_words_make_four_full_sectors_on_one_line() {
        let addresses: Vec<u64> = (0..32).map(|lane| 0x1000 + lane * 4).collect();
        check(
            &addresses,
            4,
            MemSpace::Global,
            1,
            &[
                (0x1000, u32::MAX, 0x0000_00FF),
                (0x1020, u32::MAX, 0x0000_FF00),
                (0x1040, u32::MAX, 0x00FF_0000),
                (0x1060, u32::MAX, 0xFF00_0000),
            ],
        );
        assert_eq!(lines_touched(&run(addresses.into_iter(), 4, MemSpace::Global, 1)), 1);
    }

    #[test]
    fn stride_of_a_line_makes_one_sector_per_lane() {
        let out = run((0..32).map(|lane| lane * 128), 4, MemSpace::Global, 1);
        assert_eq!(out.len(), 32);
        assert!(out.iter().all(|access| access.byte_mask == 0xF && access.lanes.count_ones() == 1));
        assert_eq!(lines_touched(&out), 32);
    }

    #[test]
    fn same_address_everywhere_is_one_sector() {
        check(&[0x2004; 32], 4, MemSpace::Global, 1, &[(0x2000, 0xF0, u32::MAX)]);
    }

    #[test]
    fn sixteen_bytes_per_lane_makes_sixteen_sectors() {
        let out = run((0..32).map(|lane| lane * 16), 16, MemSpace::Global, 1);
        assert_eq!(out.len(), 16);
        assert!(out.iter().all(|access| access.byte_mask == u32::MAX && access.lanes.count_ones() == 2));
        assert_eq!(lines_touched(&out), 4);
    }

    #[test]
    fn misaligned_access_touches_both_sectors() {
        // Lane 0 reads bytes 30..34: the last two bytes of one sector and the first two of the next.
        check(&[30], 4, MemSpace::Global, 1, &[(0, 0xC000_0000, 1), (32, 0x3, 1)]);
        // Crossing a line boundary as well.
        check(&[126, 4], 4, MemSpace::Global, 1, &[(0, 0xF0, 0b10), (96, 0xC000_0000, 0b01), (128, 0x3, 0b01)]);
    }

    #[test]
    fn two_subwarps_double_a_contiguous_warp() {
        // 32 contiguous bytes: one sector for the warp, one per half-warp with two subwarps.
        check(&(0..32).collect::<Vec<u64>>(), 1, MemSpace::Global, 1, &[(0, u32::MAX, u32::MAX)]);
        check(
            &(0..32).collect::<Vec<u64>>(),
            1,
            MemSpace::Global,
            2,
            &[(0, 0x0000_FFFF, 0x0000_FFFF), (0, 0xFFFF_0000, 0xFFFF_0000)],
        );
        // A contiguous 4-B warp is not doubled: each of its sectors serves 8
        // consecutive lanes, which never straddle the two halves.
        let addresses: Vec<u64> = (0..32).map(|lane| lane * 4).collect();
        assert_eq!(run(addresses.iter().copied(), 4, MemSpace::Global, 2).len(), 4);
        // Both halves reading the same 64 B: two sectors each, the last
        // subwarp's highest sector first.
        let out = run((0..32).map(|lane| (lane % 16) * 4), 4, MemSpace::Global, 2);
        let got: Vec<(u64, u32)> = out.iter().map(|access| (access.sector_addr, access.lanes)).collect();
        assert_eq!(got, [(32, 0xFF00_0000), (0, 0x00FF_0000), (32, 0x0000_FF00), (0, 0x0000_00FF)]);
        assert_eq!(run((0..32).map(|lane| (lane % 16) * 4), 4, MemSpace::Global, 1).len(), 2);
        assert_eq!(lines_touched(&out), 1);
    }

    #[test]
    fn wide_local_accesses_coalesce_their_first_word_only() {
        // Lane 0's 16-B access at 28 would cross into the next sector; only its first 4 B count.
        check(&[28], 16, MemSpace::Local, 1, &[(0, 0xF000_0000, 1)]);
        check(&[28], 16, MemSpace::Global, 1, &[(0, 0xF000_0000, 1), (32, 0xFFF, 1)]);
        check(&[29], 2, MemSpace::Local, 1, &[(0, 0x6000_0000, 1)]);
    }

    #[test]
    fn shared_and_unsized_accesses() {
        check(&[0, 4], 4, MemSpace::Shared, 1, &[]);
        check(&[0, 4], 4, MemSpace::None, 1, &[]);
        // Width 0 is taken as 4.
        check(&[0, 4], 0, MemSpace::Const, 1, &[(0, 0xFF, 0b11)]);
        // Lanes outside the warp are ignored; the end of the address space is clamped.
        let mut out = vec![SectorAccess { sector_addr: 1, byte_mask: 1, lanes: 1 }];
        coalesce([(40, 0), (0, u64::MAX - 1)].into_iter(), 4, MemSpace::Tex, 1, &mut out);
        assert_eq!(out, [SectorAccess { sector_addr: u64::MAX - 31, byte_mask: 0x4000_0000, lanes: 1 }]);
    }

    proptest! {
        #[test]
        fn sectors_cover_exactly_the_lanes_bytes(
            mask in any::<u32>(),
            base in 0u64..1 << 40,
            offsets in proptest::collection::vec(0u64..1024, 32),
            width_index in 0usize..6,
            subwarps_log2 in 0u32..=5,
            // Lanes in ascending order of address, as most warps' are, take
            // `coalesce`'s shortcut; a narrow spread makes lanes share sectors.
            ascending in any::<bool>(),
            spread in prop_oneof![Just(64u64), Just(1024)],
        ) {
            let width = [0u32, 1, 2, 4, 8, 16][width_index];
            let lane_width = u64::from(access_width_bytes(width));
            let subwarps = 1u32 << subwarps_log2;
            let mut offsets: Vec<u64> = offsets.iter().map(|offset| offset % spread).collect();
            if ascending {
                offsets.sort_unstable();
            }
            let lanes: Vec<(u32, u64)> =
                (0..32).filter(|lane| mask & (1 << lane) != 0).map(|lane| (lane, base + offsets[lane as usize])).collect();
            let mut out = Vec::new();
            coalesce(lanes.iter().copied(), width, MemSpace::Global, subwarps, &mut out);

            // Every lane byte is in a sector that serves the lane.
            let split = Subwarps::new(subwarps);
            for &(lane, addr) in &lanes {
                for byte in addr..addr + lane_width {
                    let sector = byte & !31;
                    let covered = out.iter().any(|access| {
                        access.sector_addr == sector && access.lanes & (1 << lane) != 0 && access.byte_mask & (1 << (byte - sector)) != 0
                    });
                    prop_assert!(covered, "lane {lane} byte {byte:#x}");
                }
            }
            // Every marked byte belongs to a lane the access serves, and every served lane touches the sector.
            for access in &out {
                prop_assert_eq!(access.sector_addr % 32, 0);
                prop_assert_ne!(access.lanes, 0);
                for bit in 0..32u64 {
                    let byte = access.sector_addr + bit;
                    let owned = lanes.iter().any(|&(lane, addr)| {
                        access.lanes & (1 << lane) != 0 && (addr..addr + lane_width).contains(&byte)
                    });
                    prop_assert_eq!(access.byte_mask & (1 << bit) != 0, owned, "{:?} byte {:#x}", access, byte);
                }
                let subwarp = split.of_lane(access.lanes.trailing_zeros());
                prop_assert!((0..32).filter(|lane| access.lanes & (1 << lane) != 0).all(|lane| split.of_lane(lane) == subwarp));
            }
            // Distinct and in the reverse of (subwarp, sector) order.
            let keys: Vec<(u32, u64)> = out.iter().map(|a| (split.of_lane(a.lanes.trailing_zeros()), a.sector_addr)).collect();
            prop_assert!(keys.windows(2).all(|pair| pair[0] > pair[1]), "{:?}", keys);
            prop_assert!(lines_touched(&out) as usize <= out.len());
        }
    }
}
