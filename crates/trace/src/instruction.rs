//! The ISA-independent instruction form, and a CTA's worth of instructions in
//! flat vectors (the unit of streaming).

use crate::{Dim3, MemSpace, OpcodeId};

/// At most this many destination registers per instruction (Accel-Sim: 1).
pub const MAX_DST_REGS: usize = 2;
/// At most this many source registers per instruction (Accel-Sim: 4; the newest tracer writes up to 5).
pub const MAX_SRC_REGS: usize = 5;
/// Lanes per warp.
pub const WARP_SIZE: usize = 32;

/// A register: `R0`–`R254`, `R255` = RZ (reads zero, never written), and
/// uniform registers `UR<n>` as 256 + n.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Reg(pub u16);

impl Reg {
    /// The zero register `RZ`.
    pub const RZ: Reg = Reg(255);
    /// The first uniform register, `UR0`.
    pub const UR0: u16 = 256;
}

/// Where a memory instruction's per-lane addresses are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Addresses {
    /// Not a memory instruction (or one without traced addresses).
    #[default]
    None,
    /// The k-th active lane accesses `base + k * stride` (trace address mode 1,
    /// and any list that turns out to be strided).
    Strided {
        /// Address of the first active lane.
        base: u64,
        /// Byte distance between consecutive active lanes; may be negative.
        stride: i64,
    },
    /// One address per active lane, in lane order, at `start` in the CTA's
    /// address pool (trace modes 0 and 2).
    Listed {
        /// Index of the first active lane's address in [`Cta::addresses`].
        start: u32,
    },
}

/// One warp instruction in ISA-independent form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Instruction {
    /// Offset of the instruction in the kernel's code.
    pub pc: u32,
    /// Active lanes (bit i = lane i), predicated-off lanes removed.
    pub mask: u32,
    /// The interned opcode; see the kernel's `OpcodeTable`.
    pub opcode: OpcodeId,
    /// The memory space of this access (generic accesses resolved by address).
    pub space: MemSpace,
    /// Number of destination registers in `dst`.
    pub n_dst: u8,
    /// Number of source registers in `src`.
    pub n_src: u8,
    /// Destination registers; the first `n_dst` are valid.
    pub dst: [Reg; MAX_DST_REGS],
    /// Source registers; the first `n_src` are valid.
    pub src: [Reg; MAX_SRC_REGS],
    /// The trace's `mem_width` field (bytes per thread as NVBit reports it; 0
    /// for non-memory instructions). The access width the models use comes from
    /// the opcode ([`crate::OpcodeInfo::access_bytes`]), as in Accel-Sim.
    pub mem_width: u16,
    /// Per-lane addresses of a memory instruction.
    pub addresses: Addresses,
    /// The trailing immediate of tracer version 5 and later (0 before).
    pub immediate: i64,
    /// The source line number when the trace has `-enable lineinfo = 1`, else 0.
    pub source_line: u32,
}

impl Instruction {
    /// The valid destination registers.
    pub fn dsts(&self) -> &[Reg] {
        &self.dst[..usize::from(self.n_dst)]
    }

    /// The valid source registers.
    pub fn srcs(&self) -> &[Reg] {
        &self.src[..usize::from(self.n_src)]
    }

    /// Active lanes.
    pub fn active_lanes(&self) -> u32 {
        self.mask.count_ones()
    }

    /// Whether the instruction carries addresses.
    pub fn is_memory(&self) -> bool {
        self.addresses != Addresses::None
    }
}

/// Whether the active lanes of `mask` form one run, with no inactive lane
/// between two active ones (true of an empty mask): the mask, shifted down to
/// its first lane, is of the form 2^n - 1.
pub fn lanes_in_one_run(mask: u32) -> bool {
    let run = mask.checked_shr(mask.trailing_zeros()).unwrap_or(0);
    run & run.wrapping_add(1) == 0
}

/// One warp's instructions: a range of [`Cta::instructions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarpTrace {
    /// The warp's index within its CTA.
    pub warp_id: u32,
    /// Index of its first instruction.
    pub first: u32,
    /// Number of instructions.
    pub len: u32,
}

/// Every warp of one CTA, in flat vectors. A reader refills the same `Cta`
/// for each CTA, so streaming a kernel allocates only while the vectors grow.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cta {
    /// The CTA's index in the grid.
    pub id: Dim3,
    /// Its warps, in trace order.
    pub warps: Vec<WarpTrace>,
    /// All instructions of all its warps.
    pub instructions: Vec<Instruction>,
    /// The address pool of `Addresses::Listed` instructions.
    pub addresses: Vec<u64>,
}

/// The lengths of a [`Cta`]'s three lists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CtaSizes {
    /// Entries of [`Cta::warps`].
    pub warps: usize,
    /// Entries of [`Cta::instructions`].
    pub instructions: usize,
    /// Entries of [`Cta::addresses`].
    pub addresses: usize,
}

/// Gives `list` room for `total` items in all.
fn reserve_total<T>(list: &mut Vec<T>, total: usize) {
    list.reserve(total.saturating_sub(list.len()));
}

impl Cta {
    /// Empties the CTA, keeping its allocations.
    pub fn clear(&mut self) {
        self.id = Dim3::default();
        self.warps.clear();
        self.instructions.clear();
        self.addresses.clear();
    }

    /// How many warps, instructions and pooled addresses the CTA holds.
    pub fn sizes(&self) -> CtaSizes {
        CtaSizes { warps: self.warps.len(), instructions: self.instructions.len(), addresses: self.addresses.len() }
    }

    /// Makes room for a CTA of `sizes` without growing on the way: a buffer
    /// filled one push at a time copies everything it holds at each doubling.
    pub fn reserve_for(&mut self, sizes: CtaSizes) {
        reserve_total(&mut self.warps, sizes.warps);
        reserve_total(&mut self.instructions, sizes.instructions);
        reserve_total(&mut self.addresses, sizes.addresses);
    }

    /// The instructions of `warp`.
    pub fn warp_instructions(&self, warp: &WarpTrace) -> &[Instruction] {
        let first = warp.first as usize;
        &self.instructions[first..first + warp.len as usize]
    }

    /// Appends the addresses of one memory instruction's active lanes, in lane
    /// order, and returns where they are: `Strided` when they form one stride
    /// (nothing is added to the pool), else `Listed`.
    pub fn push_addresses(&mut self, addresses: impl IntoIterator<Item = u64>) -> Addresses {
        let start = self.addresses.len();
        self.addresses.extend(addresses);
        compact(&mut self.addresses, start)
    }

    /// The `(lane, address)` pairs of `instruction`, in lane order.
    pub fn lane_addresses(&self, instruction: &Instruction) -> LaneAddresses<'_> {
        LaneAddresses { mask: instruction.mask, k: 0, addresses: instruction.addresses, pool: &self.addresses }
    }
}

/// Iterator over the `(lane, address)` pairs of one instruction.
#[derive(Debug, Clone)]
pub struct LaneAddresses<'a> {
    mask: u32,
    k: u32,
    addresses: Addresses,
    pool: &'a [u64],
}

impl Iterator for LaneAddresses<'_> {
    type Item = (u32, u64);

    fn next(&mut self) -> Option<(u32, u64)> {
        if self.mask == 0 {
            return None;
        }
        let lane = self.mask.trailing_zeros();
        self.mask &= self.mask - 1;
        let k = self.k;
        self.k += 1;
        let address = match self.addresses {
            Addresses::None => return None,
            Addresses::Strided { base, stride } => base.wrapping_add_signed(stride.wrapping_mul(i64::from(k))),
            Addresses::Listed { start } => *self.pool.get(start as usize + k as usize)?,
        };
        Some((lane, address))
    }
}

/// Keeps the run of addresses from `start` as `Strided` when it is one (most
/// coalesced accesses are), dropping it from the pool.
pub(crate) fn compact(pool: &mut Vec<u64>, start: usize) -> Addresses {
    let run = &pool[start..];
    let stride = match run {
        [] | [_] => 0,
        [a, b, ..] => b.wrapping_sub(*a) as i64,
    };
    let strided = run.windows(2).all(|w| w[1].wrapping_sub(w[0]) as i64 == stride);
    if strided {
        let base = run.first().copied().unwrap_or(0);
        pool.truncate(start);
        Addresses::Strided { base, stride }
    } else {
        Addresses::Listed { start: start as u32 }
    }
}
