//! Helpers the timing-model tests share: a hand-written trace of a grid of
//! CTAs, each warp running the lines a test gives it.

use std::io::Read;

use warplab_config::GpuConfig;
use warplab_lab::per_pc::PcStalls;
use warplab_lab::{Cycle, SimOptions, SimReport, Simulation, TraceWorkload};

/// Simulates a kernel of `ctas` CTAs of `warps` warps, warp `w` of CTA `c`
/// running `body(c, w)` (tracer-4 lines without the PC, at PCs 16 bytes
/// apart from 0), traced for SASS `binary_version`.
pub fn run_grid(
    config: &GpuConfig,
    binary_version: u32,
    ctas: u32,
    warps: u32,
    body: impl Fn(u32, u32) -> Vec<String>,
) -> SimReport {
    simulate_grid(config, SimOptions::default(), binary_version, ctas, warps, body).0
}

/// As [`run_grid`], with `options`, and the run's per-PC figures when the
/// options ask for them.
pub fn simulate_grid(
    config: &GpuConfig,
    options: SimOptions,
    binary_version: u32,
    ctas: u32,
    warps: u32,
    body: impl Fn(u32, u32) -> Vec<String>,
) -> (SimReport, Option<Vec<PcStalls>>) {
    let workload = grid_workload(binary_version, ctas, warps, body);
    let mut simulation = Simulation::new(config, options, workload);
    simulation.run_until(Cycle(u64::MAX));
    (simulation.report(), simulation.per_pc())
}

/// The trace [`run_grid`] runs, as a workload.
pub fn grid_workload(
    binary_version: u32,
    ctas: u32,
    warps: u32,
    body: impl Fn(u32, u32) -> Vec<String>,
) -> TraceWorkload<'static> {
    kernels_workload(vec![grid_trace(1, binary_version, ctas, warps, body)])
}

/// A workload launching `kernels` (`.traceg` texts) one after another.
pub fn kernels_workload(kernels: Vec<String>) -> TraceWorkload<'static> {
    let list: String = (1..=kernels.len()).map(|id| format!("kernel-{id}.traceg\n")).collect();
    let open = move |name: &str| -> Result<Box<dyn Read>, String> {
        let id: usize =
            name.trim_start_matches("kernel-").trim_end_matches(".traceg").parse().map_err(|_| name.to_owned())?;
        let text = kernels.get(id - 1).ok_or_else(|| name.to_owned())?;
        Ok(Box::new(std::io::Cursor::new(text.clone().into_bytes())) as Box<dyn Read>)
    };
    TraceWorkload::owning(&list, Box::new(open)).unwrap()
}

/// The `.traceg` text of kernel `id`, a grid as [`run_grid`] describes.
pub fn grid_trace(
    id: u32,
    binary_version: u32,
    ctas: u32,
    warps: u32,
    body: impl Fn(u32, u32) -> Vec<String>,
) -> String {
    let mut text = format!(
        "-kernel name = grid\n-kernel id = {id}\n-grid dim = ({ctas},1,1)\n-block dim = ({},1,1)\n-shmem = 0\n\
         -nregs = 16\n-binary version = {binary_version}\n-cuda stream id = 0\n\
         -shmem base_addr = 0x00007f2b5a000000\n-local mem base_addr = 0x00007f2b58000000\n\
         -nvbit version = 1.5.5\n-accelsim tracer version = 4\n-enable lineinfo = 0\n",
        32 * warps
    );
    for cta in 0..ctas {
        text += &format!("\n#BEGIN_TB\n\nthread block = {cta},0,0\n");
        for warp in 0..warps {
            let lines = body(cta, warp);
            text += &format!("\nwarp = {warp}\ninsts = {}\n", lines.len());
            for (k, line) in lines.iter().enumerate() {
                text += &format!("{:04x} {line}\n", 16 * k);
            }
        }
        text += "\n#END_TB\n";
    }
    text
}
