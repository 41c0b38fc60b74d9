//! The sampler the GPU consults: per kernel launch, the online analysis at
//! launch, the decision to reuse a simulated kernel, the stability tracking
//! while the kernel runs in detail, the switch to warp or basic-block
//! sampling, and the duration of each CTA it then predicts.

use warplab_trace::{Cta, OpcodeTable};

use super::bbv::{GpuBbv, SampleBuilder};
use super::blocks::{BlockTable, extend_ends};
use super::log::SampleLog;
use super::lookahead::Lookahead;
use super::projection::{BlockStats, OpcodeGaps, cta_cycles_by_blocks};
use super::stability::{BasisPoints, LaunchOrder, StabilityWindow};
use super::{KernelSampling, SampleLevel, SamplingOptions, SamplingReport};
use crate::source::KernelSource;

/// The most warps the online analysis reads ahead, whatever 1% of a grid is
/// (8,192 warps of a 32-thread CTA are a few MB of trace).
pub const MAX_SAMPLE_WARPS: u64 = 8_192;

/// What to do with a kernel at its launch.
pub(crate) enum Launch {
    /// Simulate it (its sample read ahead in front).
    Simulate(Box<dyn KernelSource>),
    /// Do not: it takes `cycles` and runs these instructions.
    Reuse { cycles: u64, warp_insts: u64, thread_insts: u64 },
}

/// A CTA the sampler predicts instead of simulating.
pub(crate) struct Predicted {
    /// Cycles it holds its SM.
    pub cycles: u64,
    pub warp_insts: u64,
    pub thread_insts: u64,
}

/// The grid of a launch as the sampler needs it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Grid {
    pub ctas: u64,
    pub warps_per_cta: u64,
    /// Warps the whole GPU holds of this kernel at once.
    pub capacity_warps: u64,
}

/// One kernel launch's sampling state.
struct KernelState {
    report: KernelSampling,
    bbv: GpuBbv,
    table: BlockTable,
    /// By opcode id: whether it ends a basic block.
    ends: Vec<bool>,
    track_warps: bool,
    track_blocks: bool,
    warps: StabilityWindow,
    warp_order: LaunchOrder,
    blocks: Vec<BlockStats>,
    gaps: OpcodeGaps,
    executed_insts: u64,
    stable_insts: u64,
    /// Once it ended, having been simulated: its thread instructions and cycles.
    simulated: Option<(u64, u64)>,
}

impl KernelState {
    /// Whether the detailed warps' times still feed the windows and the
    /// interval estimate: only until the switch. The detailed CTAs still in
    /// flight after it share their SMs with predicted CTAs, which issue
    /// nothing, so they run faster than the steady state the prediction
    /// stands for; their times would shorten every later prediction.
    fn measuring(&self) -> bool {
        self.report.level == SampleLevel::Detailed
    }

    /// A kernel of `warps` warps, in detail, tracking nothing yet.
    fn new(warps: u64, options: &SamplingOptions) -> Self {
        Self {
            report: KernelSampling {
                level: SampleLevel::Detailed,
                warps,
                sample_warps: 0,
                warp_types: 0,
                dominant_share: 0.0,
                nearest: None,
                detailed_warps: 0,
                detailed_warp_insts: 0,
                predicted_warps: 0,
                switched_at: None,
                warp_cycles: None,
                stable_block_share: 0.0,
            },
            bbv: GpuBbv::default(),
            table: BlockTable::default(),
            ends: Vec::new(),
            track_warps: false,
            track_blocks: false,
            warps: StabilityWindow::new(options.warp_window as usize),
            warp_order: LaunchOrder::default(),
            blocks: Vec::new(),
            gaps: OpcodeGaps::default(),
            executed_insts: 0,
            stable_insts: 0,
            simulated: None,
        }
    }

    fn stable_share(&self) -> f64 {
        if self.executed_insts == 0 { 0.0 } else { self.stable_insts as f64 / self.executed_insts as f64 }
    }
}

/// Sampling over a whole run.
pub(crate) struct Sampler {
    pub options: SamplingOptions,
    kernels: Vec<KernelState>,
    /// The buffer predicted CTAs are read into.
    scratch: Cta,
}

impl Sampler {
    pub(crate) fn new(options: SamplingOptions) -> Self {
        Self { options, kernels: Vec::new(), scratch: Cta::default() }
    }

    /// Analyses the sample of the kernel launched next (launch index
    /// `self.kernels.len()`) and decides whether to simulate it.
    pub(crate) fn launch(&mut self, source: Box<dyn KernelSource>, grid: Grid) -> Launch {
        let total_warps = grid.ctas * grid.warps_per_cta;
        let wanted = ceil_share(total_warps, self.options.sample).clamp(1, MAX_SAMPLE_WARPS);
        let mut table = BlockTable::default();
        let mut ends = Vec::new();
        let mut builder = SampleBuilder::default();
        let source = Lookahead::read(source, |cta, opcodes| {
            extend_ends(&mut ends, opcodes);
            builder.add_cta(cta, &ends, &mut table);
            builder.warps() < wanted
        });
        let analysis = builder.finish();
        let options = self.options;
        let dominant = analysis.warps > 0
            && !options.dominance.admits(u128::from(analysis.dominant_warps), u128::from(analysis.warps));
        let nearest = self.nearest(&analysis.bbv, total_warps, grid.capacity_warps);
        let mut state = KernelState::new(total_warps, &options);
        state.report.sample_warps = analysis.warps;
        state.report.warp_types = analysis.warp_types;
        state.report.dominant_share =
            if analysis.warps == 0 { 0.0 } else { analysis.dominant_warps as f64 / analysis.warps as f64 };
        state.report.nearest = nearest.map(|(k, d)| (k as u32, d));
        state.bbv = analysis.bbv;
        state.table = table;
        state.ends = ends;
        state.track_warps = options.mode.warps() && dominant;
        // Photon takes basic-block sampling for the kernels warp sampling cannot take.
        state.track_blocks = options.mode.blocks() && !state.track_warps;
        let reuse = nearest.filter(|&(_, distance)| {
            options.mode.kernels() && distance * 10_000.0 <= f64::from(options.kernel_distance.0)
        });
        let launch = match reuse.and_then(|(k, _)| self.kernels[k].simulated) {
            Some((their_insts, their_cycles)) if analysis.warps > 0 => {
                let scale = |sample: u64| mul_div(sample, total_warps, analysis.warps);
                let (warp_insts, thread_insts) = (scale(analysis.warp_insts), scale(analysis.thread_insts));
                // The same IPC: cycles = thread instructions × theirs / their thread instructions.
                let cycles =
                    if their_insts == 0 { their_cycles } else { mul_div_ceil(thread_insts, their_cycles, their_insts) };
                state.report.level = SampleLevel::Kernel;
                state.report.predicted_warps = total_warps;
                state.track_warps = false;
                state.track_blocks = false;
                Launch::Reuse { cycles: cycles.max(1), warp_insts, thread_insts }
            }
            _ => Launch::Simulate(Box::new(source)),
        };
        self.kernels.push(state);
        launch
    }

    /// Kernel launch `self.kernels.len()` cannot run at all: it gets a state
    /// so launch indices stay aligned, and is never reused.
    pub(crate) fn not_run(&mut self) {
        self.kernels.push(KernelState::new(0, &self.options));
    }

    /// The simulated kernel nearest in GPU BBV that `bbv` may reuse: one with
    /// the same warps when `warps` do not fill the GPU.
    fn nearest(&self, bbv: &GpuBbv, warps: u64, capacity: u64) -> Option<(usize, f64)> {
        let mut best: Option<(usize, f64)> = None;
        for (k, state) in self.kernels.iter().enumerate() {
            if state.simulated.is_none() || (warps < capacity && state.report.warps != warps) {
                continue;
            }
            let distance = state.bbv.distance(bbv);
            if best.is_none_or(|(_, d)| distance < d) {
                best = Some((k, distance));
            }
        }
        best
    }

    /// Whether kernel `kernel`'s new CTAs are predicted rather than simulated.
    pub(crate) fn predicts(&self, kernel: usize) -> bool {
        matches!(self.kernels[kernel].report.level, SampleLevel::Warp | SampleLevel::BasicBlock)
    }

    /// Fills `block_at` for a CTA of `kernel` about to run in detail: the
    /// block each instruction starts, when the kernel's blocks are tracked.
    pub(crate) fn annotate(&mut self, kernel: usize, cta: &Cta, opcodes: &OpcodeTable, block_at: &mut Vec<u32>) {
        let state = &mut self.kernels[kernel];
        if !state.track_blocks {
            block_at.clear();
            return;
        }
        extend_ends(&mut state.ends, opcodes);
        state.table.annotate(cta, &state.ends, block_at);
    }

    /// Reads kernel `kernel`'s next CTA and predicts it; `None` after its last.
    pub(crate) fn predict_next(
        &mut self,
        kernel: usize,
        source: &mut dyn KernelSource,
    ) -> Result<Option<Predicted>, String> {
        if !source.next_cta(&mut self.scratch)? {
            return Ok(None);
        }
        let cta = &self.scratch;
        let state = &mut self.kernels[kernel];
        extend_ends(&mut state.ends, source.opcodes());
        let cycles = match state.report.level {
            SampleLevel::BasicBlock => {
                cta_cycles_by_blocks(cta, &mut state.table, &state.ends, &state.blocks, &state.gaps)
            }
            _ => state.report.warp_cycles.unwrap_or(1),
        };
        let live = cta.warps.iter().filter(|w| w.len > 0).count() as u64;
        state.report.predicted_warps += live;
        let warp_insts = cta.instructions.len() as u64;
        let thread_insts = cta.instructions.iter().map(|i| u64::from(i.active_lanes())).sum();
        Ok(Some(Predicted { cycles, warp_insts, thread_insts }))
    }

    /// Takes an SM's records of its cycle `now`, switching kernels whose warps
    /// or blocks became stable.
    pub(crate) fn take(&mut self, log: &mut SampleLog, now: u64) {
        let delta = self.options.delta;
        let window = self.options.block_window as usize;
        for record in &log.warps {
            let state = &mut self.kernels[record.kernel as usize];
            state.report.detailed_warps += 1;
            if state.track_warps && state.measuring() {
                state.warp_order.push(record.seq, record.start, record.end, &mut state.warps);
                self.maybe_switch(record.kernel as usize, now);
            }
        }
        for record in &log.blocks {
            let state = &mut self.kernels[record.kernel as usize];
            if !state.measuring() {
                continue;
            }
            state.executed_insts += u64::from(record.insts);
            let Some(block) = state.table.types.get(record.block as usize) else { continue };
            debug_assert_eq!(block.insts, record.insts);
            let k = record.block as usize;
            if state.blocks.len() <= k {
                state.blocks.resize_with(k + 1, || BlockStats {
                    window: StabilityWindow::new(window),
                    executed_insts: 0,
                    stable: false,
                });
            }
            let stats = &mut state.blocks[k];
            stats.window.push(record.start, record.end);
            stats.executed_insts += u64::from(record.insts);
            if stats.stable {
                state.stable_insts += u64::from(record.insts);
            } else if stats.window.is_stable(delta) {
                stats.stable = true;
                state.stable_insts += stats.executed_insts;
            }
            self.maybe_switch(record.kernel as usize, now);
        }
        for record in &log.gaps {
            let state = &mut self.kernels[record.kernel as usize];
            if state.measuring() {
                state.gaps.add(record.opcode, record.cycles);
            }
        }
        log.clear();
    }

    /// Switches kernel `kernel` to warp or basic-block sampling at `now` if
    /// its warps or blocks have become stable.
    fn maybe_switch(&mut self, kernel: usize, now: u64) {
        let (delta, coverage) = (self.options.delta, self.options.block_coverage);
        let state = &mut self.kernels[kernel];
        if state.report.level != SampleLevel::Detailed || state.simulated.is_some() {
            return;
        }
        let level = if state.track_warps && state.warps.is_stable(delta) {
            SampleLevel::Warp
        } else if state.track_blocks
            && state.executed_insts > 0
            && !coverage.admits(u128::from(state.stable_insts), u128::from(state.executed_insts))
        {
            SampleLevel::BasicBlock
        } else {
            return;
        };
        state.report.level = level;
        state.report.switched_at = Some(now);
        if level == SampleLevel::Warp {
            state.report.warp_cycles = Some(state.warps.mean_duration().max(1));
        }
        state.report.stable_block_share = state.stable_share();
    }

    /// Kernel `kernel` ended after `cycles`, having run `thread_insts`.
    pub(crate) fn ended(&mut self, kernel: usize, thread_insts: u64, cycles: u64) {
        let state = &mut self.kernels[kernel];
        if state.report.level == SampleLevel::Kernel {
            return;
        }
        state.simulated = Some((thread_insts, cycles));
        if state.report.switched_at.is_none() {
            state.report.stable_block_share = state.stable_share();
        }
    }

    /// The report, given each kernel's warp instructions simulated in detail.
    pub(crate) fn report(&self, detailed_warp_insts: impl Fn(usize) -> u64) -> SamplingReport {
        let kernels: Vec<KernelSampling> = (0..self.kernels.len())
            .map(|k| KernelSampling { detailed_warp_insts: detailed_warp_insts(k), ..self.kernels[k].report.clone() })
            .collect();
        let detailed = kernels.iter().map(|k| k.detailed_warp_insts).sum();
        SamplingReport { options: self.options, kernels, detailed_warp_insts: detailed }
    }
}

/// ⌈total × share⌉.
fn ceil_share(total: u64, share: BasisPoints) -> u64 {
    mul_div_ceil(total, u64::from(share.0), 10_000)
}

/// a × b / c, rounded down, without overflow (c > 0).
fn mul_div(a: u64, b: u64, c: u64) -> u64 {
    u64::try_from(u128::from(a) * u128::from(b) / u128::from(c)).unwrap_or(u64::MAX)
}

/// a × b / c, rounded up, without overflow (c > 0).
fn mul_div_ceil(a: u64, b: u64, c: u64) -> u64 {
    u64::try_from((u128::from(a) * u128::from(b)).div_ceil(u128::from(c))).unwrap_or(u64::MAX)
}
