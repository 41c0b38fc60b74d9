//! The instruction cache a kernel's warps meet: which lines of its code a
//! warp has to wait for before it can issue them.
//!
//! The timing model fetches as Accel-Sim's trace-driven front end does
//! (`sim::sm::fetch`): every second trace instruction a warp looks up the
//! line holding its next instruction in the SM's L1 instruction cache, and a
//! miss sends a read of the line to the L2 and holds the warp until the line
//! is back. The L1I is never flushed between kernels, and every trace's PCs
//! start at 0, so a kernel finds whatever lines the kernels before it left.
//! A kernel's first warps therefore wait a whole memory round trip for their
//! first instruction, and another each time the warp at the front reaches a
//! line no warp has fetched yet. On a large kernel that is a few hundred
//! cycles of hundreds of thousands; on a small one, a traced `vectorAdd` of
//! one CTA, it is most of the run.
//!
//! This module counts, per warp, the lines of its path that are not in the
//! L1I when the kernel starts (the lines every earlier kernel of the
//! workload fetched, through the config's `il1` with its replacement), and
//! of those the ones no earlier kernel fetched at all, which miss the L2 as
//! well. Lines a kernel evicts from its own L1I while it runs (code larger
//! than the cache) are not counted: a documented limit.

use rustc_hash::{FxHashMap, FxHashSet};
use warplab_config::GpuConfig;
use warplab_uarch::cache::{Access, Cache, Outcome};
use warplab_uarch::fetch::{INSTRUCTIONS_PER_FETCH, code_address};

/// One warp's lines of code that were not in the L1I at the kernel's start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) struct ColdLines {
    /// Lines it fetched that the L1I did not hold.
    pub misses: u32,
    /// Of those, the lines no earlier kernel fetched: not in the L2 either.
    pub llc_misses: u32,
}

/// The L1 instruction cache across a workload's kernels.
pub(crate) struct CodeFetch {
    /// `None` when every fetch hits (`-gpgpu_perfect_inst_const_cache`, or
    /// an `il1` of `none`).
    l1i: Option<Cache>,
    /// Every line an earlier kernel fetched: in the L2.
    fetched: FxHashSet<u64>,
    /// This kernel's lines, each with the last warp that counted it.
    this_kernel: FxHashMap<u64, u32>,
    /// The warp being walked: its stamp, last line, and cold lines.
    warp: u32,
    last_line: Option<u64>,
    cold: ColdLines,
}

impl CodeFetch {
    /// The L1I `config` gives each SM (all SMs run the same kernels, so one
    /// stands for them all).
    pub fn new(config: &GpuConfig) -> Self {
        let l1i = config.l1i.as_ref().filter(|_| !config.scheduling.perfect_inst_const_cache).map(Cache::new);
        Self {
            l1i,
            fetched: FxHashSet::default(),
            this_kernel: FxHashMap::default(),
            warp: 0,
            last_line: None,
            cold: ColdLines::default(),
        }
    }

    /// Starts the count of warp `stamp` (a number no other warp of this
    /// kernel has).
    pub fn start_warp(&mut self, stamp: u32) {
        self.warp = stamp;
        self.last_line = None;
        self.cold = ColdLines::default();
    }

    /// The `index`-th trace instruction of the warp, at `pc`: every
    /// [`INSTRUCTIONS_PER_FETCH`]-th one is fetched.
    pub fn instruction(&mut self, index: usize, pc: u32) {
        let Some(l1i) = &self.l1i else { return };
        if !index.is_multiple_of(INSTRUCTIONS_PER_FETCH as usize) {
            return;
        }
        let line = l1i.line_addr(code_address(pc));
        if self.last_line == Some(line) {
            return;
        }
        self.last_line = Some(line);
        if l1i.probe(&Access::read(line)) == Outcome::Hit {
            return;
        }
        let counted_by = self.this_kernel.entry(line).or_insert(self.warp.wrapping_sub(1));
        if *counted_by != self.warp {
            *counted_by = self.warp;
            self.cold.misses += 1;
            self.cold.llc_misses += u32::from(!self.fetched.contains(&line));
        }
    }

    /// The cold lines of the warp walked since [`Self::start_warp`].
    pub fn warp_cold_lines(&self) -> ColdLines {
        self.cold
    }

    /// The kernel has ended: its lines are in the L1I (filled in address
    /// order, so the result does not depend on the order warps were walked)
    /// and in the L2.
    pub fn end_kernel(&mut self) {
        let mut lines: Vec<u64> = self.this_kernel.drain().map(|(line, _)| line).collect();
        lines.sort_unstable();
        if let Some(l1i) = &mut self.l1i {
            for (now, &line) in (1..).zip(&lines) {
                l1i.commit_filled_at(&Access::read(line), line, now);
            }
        }
        self.fetched.extend(lines);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GPU whose L1I is `il1` and not perfect.
    fn config(il1: &str) -> GpuConfig {
        let mut config = warplab_config::preset("SM7_QV100").unwrap().config().unwrap();
        config.scheduling.perfect_inst_const_cache = false;
        config.l1i = warplab_config::CacheConfig::parse(il1).unwrap();
        config
    }

    /// The cold lines of one warp whose instructions are at `pcs`.
    fn walk(code: &mut CodeFetch, stamp: u32, pcs: &[u32]) -> ColdLines {
        code.start_warp(stamp);
        for (index, &pc) in pcs.iter().enumerate() {
            code.instruction(index, pc);
        }
        code.warp_cold_lines()
    }

    /// `n` instructions of 16 bytes from PC 0: eight to a 128-B line.
    fn straight(n: u32) -> Vec<u32> {
        (0..n).map(|i| 16 * i).collect()
    }

    #[test]
    fn the_first_kernel_waits_for_every_line_and_the_next_for_none() {
        let mut code = CodeFetch::new(&config("N:64:128:16,L:R:f:N:L,S:2:48,4"));
        // 20 instructions over three lines, none in any cache yet.
        assert_eq!(walk(&mut code, 1, &straight(20)), ColdLines { misses: 3, llc_misses: 3 });
        // A second warp of the same kernel finds them missing too (they are
        // filled when the kernel ends: the warps start in step).
        assert_eq!(walk(&mut code, 2, &straight(20)), ColdLines { misses: 3, llc_misses: 3 });
        code.end_kernel();
        assert_eq!(walk(&mut code, 3, &straight(20)), ColdLines::default());
        // A longer kernel finds only its fourth line missing.
        assert_eq!(walk(&mut code, 4, &straight(32)), ColdLines { misses: 1, llc_misses: 1 });
    }

    #[test]
    fn a_loop_back_to_a_line_counts_it_once_and_only_fetched_instructions_count() {
        let mut code = CodeFetch::new(&config("N:64:128:16,L:R:f:N:L,S:2:48,4"));
        // Lines 0, 1, 0, 1: two lines.
        let looped: Vec<u32> = [straight(16), straight(16)].concat();
        assert_eq!(walk(&mut code, 1, &looped).misses, 2);
        // The second instruction of each fetch comes with the first: PCs 0
        // and 128 (line 1) are fetched as one, from line 0.
        assert_eq!(walk(&mut code, 2, &[0, 128]).misses, 1);
    }

    #[test]
    fn code_the_l1i_evicted_is_still_in_the_l2() {
        // One set of one line: the second kernel's line evicts the first's.
        let mut code = CodeFetch::new(&config("N:1:128:1,L:R:f:N:L,S:2:48,4"));
        walk(&mut code, 1, &straight(8));
        code.end_kernel();
        walk(&mut code, 2, &[128]);
        code.end_kernel();
        assert_eq!(walk(&mut code, 3, &straight(8)), ColdLines { misses: 1, llc_misses: 0 });
    }

    #[test]
    fn a_perfect_instruction_cache_never_misses() {
        let mut perfect = config("N:64:128:16,L:R:f:N:L,S:2:48,4");
        perfect.scheduling.perfect_inst_const_cache = true;
        let mut code = CodeFetch::new(&perfect);
        assert_eq!(walk(&mut code, 1, &straight(40)), ColdLines::default());
        let mut none = config("N:64:128:16,L:R:f:N:L,S:2:48,4");
        none.l1i = None;
        assert_eq!(walk(&mut CodeFetch::new(&none), 1, &straight(40)), ColdLines::default());
    }
}
