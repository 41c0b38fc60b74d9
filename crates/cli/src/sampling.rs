//! `warplab run --sample`: Photon's sampled simulation, its thresholds as
//! options (Photon's values by default), and the table of what it did per
//! kernel, with the error and speedup against a full run when one was made.

use clap::Args;
use warplab_lab::sampling::{BasisPoints, SampleMode, SamplingComparison, SamplingOptions, SamplingReport};

/// The sampling options of `warplab run`.
#[derive(Debug, Clone, Args)]
pub struct SamplingArgs {
    /// Sampled simulation: photon (kernel, warp and basic-block sampling), kernel, warp, bb, or off.
    #[arg(long = "sample", default_value = "off", value_name = "MODE")]
    pub mode: SampleMode,
    /// With --sample: also run the full simulation and report each kernel's IPC error and the speedup.
    #[arg(long)]
    pub against_full: bool,
    /// Share of each kernel's warps analysed at its launch, in percent.
    #[arg(long, default_value_t = 1.0, value_name = "PCT")]
    pub sample_pct: f64,
    /// GPU BBV distance (0 to 2) within which a kernel reuses a simulated kernel's IPC.
    #[arg(long, default_value_t = 0.05, value_name = "D")]
    pub kernel_distance: f64,
    /// Warp sampling needs one warp type above this share of the sample, in percent.
    #[arg(long, default_value_t = 95.0, value_name = "PCT")]
    pub dominance_pct: f64,
    /// Warps in the warp-level stability window (n).
    #[arg(long, default_value_t = 1024, value_name = "N")]
    pub warp_window: u32,
    /// Tolerance δ of the stability tests, in percent.
    #[arg(long, default_value_t = 3.0, value_name = "PCT")]
    pub delta_pct: f64,
    /// Executions in each basic-block type's stability window.
    #[arg(long, default_value_t = 2048, value_name = "N")]
    pub block_window: u32,
    /// Stable block types must cover more than this share of executed instructions, in percent.
    #[arg(long, default_value_t = 95.0, value_name = "PCT")]
    pub block_coverage_pct: f64,
}

impl SamplingArgs {
    /// The options, or which one is out of range.
    pub fn options(&self) -> Result<SamplingOptions, String> {
        let percent = |name: &str, value: f64| basis_points(name, value, 100.0);
        Ok(SamplingOptions {
            mode: self.mode,
            sample: percent("--sample-pct", self.sample_pct)?,
            kernel_distance: basis_points("--kernel-distance", self.kernel_distance * 100.0, 200.0)?,
            dominance: percent("--dominance-pct", self.dominance_pct)?,
            warp_window: window("--warp-window", self.warp_window)?,
            delta: percent("--delta-pct", self.delta_pct)?,
            block_window: window("--block-window", self.block_window)?,
            block_coverage: percent("--block-coverage-pct", self.block_coverage_pct)?,
        })
    }
}

/// `percent` (0 to `max`) in hundredths of a percent.
fn basis_points(name: &str, percent: f64, max: f64) -> Result<BasisPoints, String> {
    if !(0.0..=max).contains(&percent) {
        return Err(format!("{name}: {percent} is outside 0..={max}"));
    }
    Ok(BasisPoints((percent * 100.0).round() as u32))
}

fn window(name: &str, n: u32) -> Result<u32, String> {
    if (2..=warplab_lab::sampling::MAX_WINDOW).contains(&n) {
        Ok(n)
    } else {
        Err(format!("{name}: {n} is outside 2..={}", warplab_lab::sampling::MAX_WINDOW))
    }
}

/// The per-kernel table of a sampled run, with the comparison when a full
/// run was made.
pub fn text(report: &SamplingReport, comparison: Option<&SamplingComparison>) -> String {
    let mut out = format!("sampling ({}): per kernel, the level used\n", report.options.mode);
    for (k, kernel) in report.kernels.iter().enumerate() {
        out += &format!(
            "  kernel {k}: {:<8} warps {} ({} in the sample, {} types, top {:.1}%), detailed {} warps / {} warp insts",
            kernel.level.name(),
            kernel.warps,
            kernel.sample_warps,
            kernel.warp_types,
            100.0 * kernel.dominant_share,
            kernel.detailed_warps,
            kernel.detailed_warp_insts,
        );
        if let Some((nearest, distance)) = kernel.nearest {
            out += &format!(", nearest kernel {nearest} at {distance:.3}");
        }
        if let Some(cycle) = kernel.switched_at {
            out += &format!(", switched at cycle {cycle}");
        }
        if let Some(cycles) = kernel.warp_cycles {
            out += &format!(", predicted CTAs hold {cycles} cycles");
        }
        if let Some(error) = comparison.and_then(|c| c.kernels.get(k)) {
            out += &format!(", IPC error {:+.2}%", 100.0 * error.ipc_error);
        }
        out.push('\n');
    }
    out += &format!("  detailed warp instructions: {}\n", report.detailed_warp_insts);
    if let Some(c) = comparison {
        out += &format!(
            "  against the full run: IPC {:.3} vs {:.3} ({:+.2}%), cycles {} vs {}, speedup {:.2}x in wall time, {:.2}x in detailed instructions\n",
            c.sampled_ipc,
            c.full_ipc,
            100.0 * c.ipc_error,
            c.sampled_cycles,
            c.full_cycles,
            c.wall_speedup.unwrap_or(f64::NAN),
            c.instruction_speedup
        );
    }
    out
}
