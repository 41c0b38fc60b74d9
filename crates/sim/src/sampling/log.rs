//! What an SM records for sampling while it simulates in detail: warps that
//! retired, basic-block executions that ended and the issue interval of each
//! instruction. The GPU hands the records to the sampler after the SM's
//! cycle, so the SM never sees the sampler; nothing is recorded (one flag
//! test per issue and retire) when sampling is off.

/// A warp that retired: the `seq`-th warp of its kernel launched in detail,
/// launched with its CTA at `start`, retired at `end`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WarpRecord {
    pub kernel: u32,
    pub seq: u64,
    pub start: u64,
    pub end: u64,
}

/// One execution of a block: from its first instruction's issue (the warp's
/// launch for a warp's first block) to the next block's first issue (the
/// warp's retirement for its last).
#[derive(Debug, Clone, Copy)]
pub(crate) struct BlockRecord {
    pub kernel: u32,
    pub block: u32,
    /// Its warp instructions.
    pub insts: u32,
    pub start: u64,
    pub end: u64,
}

/// One instruction's issue interval: cycles from its issue to its warp's next
/// issue (or retirement).
#[derive(Debug, Clone, Copy)]
pub(crate) struct GapRecord {
    pub kernel: u32,
    pub opcode: u16,
    pub cycles: u64,
}

/// An SM's records since the GPU last took them.
#[derive(Debug, Clone, Default)]
pub(crate) struct SampleLog {
    /// Whether to record at all (sampling is on).
    pub on: bool,
    pub warps: Vec<WarpRecord>,
    pub blocks: Vec<BlockRecord>,
    pub gaps: Vec<GapRecord>,
}

impl SampleLog {
    /// Whether there is anything to take.
    pub(crate) fn is_empty(&self) -> bool {
        self.warps.is_empty() && self.blocks.is_empty() && self.gaps.is_empty()
    }

    /// Forgets what was taken, keeping the allocations.
    pub(crate) fn clear(&mut self) {
        self.warps.clear();
        self.blocks.clear();
        self.gaps.clear();
    }
}
