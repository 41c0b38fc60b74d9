//! A launch run functionally, CTA by CTA, and what it recorded: each warp's
//! steps (instruction, active mask) and addresses, replayed on demand into
//! the trace crate's `Cta` as a generator's body would write it.

use std::sync::Arc;

use warplab_kernels::CtaBody;
use warplab_trace::{Addresses, Cta, Instruction, WarpTrace};

use super::RunOptions;
use super::memory::DeviceMemory;
use super::warp::{CtaRunner, Launch, STRIDED};
use crate::diagnostic::{Error, ErrorKind, Result, Span};

/// What one launch executed.
pub(crate) struct LaunchRecord {
    pub kernel: usize,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    pub warp_insts: u64,
    warps_per_cta: usize,
    /// Per warp of every CTA in order: first step, step count, first address.
    warps: Vec<(usize, u32, usize)>,
    steps: Vec<(u32, u32)>,
    addresses: Vec<u64>,
}

/// Runs every CTA of `launch` in grid order (x fastest) on `memory`.
///
/// # Errors
/// A fault, or the launch ran past its warp-instruction budget.
pub(crate) fn run_launch(
    launch: &Launch<'_>,
    memory: &mut DeviceMemory,
    runner: &mut CtaRunner,
    options: &RunOptions,
) -> Result<LaunchRecord> {
    let [gx, gy, gz] = launch.grid.map(u64::from);
    let threads: usize = launch.block.iter().map(|&d| d as usize).product();
    let mut record = LaunchRecord {
        kernel: launch.kernel.function.0 as usize,
        grid: launch.grid,
        block: launch.block,
        shared_bytes: launch.shared_bytes,
        warp_insts: 0,
        warps_per_cta: threads.div_ceil(32),
        warps: Vec::new(),
        steps: Vec::new(),
        addresses: Vec::new(),
    };
    let mut budget = options.max_warp_insts;
    for index in 0..gx * gy * gz {
        let block_index = [(index % gx) as u32, (index / gx % gy) as u32, (index / (gx * gy)) as u32];
        if let Err(fault) = runner.run(launch, block_index, memory, &mut budget) {
            let span = launch.kernel.insts.get(fault.inst).map_or(Span::point(0), |inst| inst.span);
            let (kind, message) = if fault.message.is_empty() {
                let mut message = format!(
                    "kernel '{}' ran past its budget of {} warp instructions in one launch",
                    launch.kernel.name, options.max_warp_insts
                );
                if !options.budget_hint.is_empty() {
                    message = format!("{message} ({})", options.budget_hint);
                }
                (ErrorKind::Limit, message)
            } else {
                (ErrorKind::Fault, fault.message)
            };
            return Err(Error { span: Span::point(span.start), kind, message });
        }
        if options.record {
            record.append(runner);
        }
    }
    record.warp_insts = options.max_warp_insts - budget;
    Ok(record)
}

impl LaunchRecord {
    fn append(&mut self, runner: &CtaRunner) {
        for stream in &runner.streams[..self.warps_per_cta] {
            self.warps.push((self.steps.len(), stream.steps.len() as u32, self.addresses.len()));
            self.steps.extend_from_slice(&stream.steps);
            self.addresses.extend_from_slice(&stream.addresses);
        }
    }
}

/// A recorded launch as a generator-style CTA body.
pub(crate) struct RecordedCtas {
    /// One trace instruction per static instruction, mask and addresses unset.
    pub templates: Arc<Vec<Instruction>>,
    pub record: LaunchRecord,
}

impl CtaBody for RecordedCtas {
    fn fill(&self, index: u64, cta: &mut Cta) {
        let record = &self.record;
        let first_warp = index as usize * record.warps_per_cta;
        let Some(warps) = record.warps.get(first_warp..first_warp + record.warps_per_cta) else { return };
        for (warp_id, &(first_step, len, mut address)) in warps.iter().enumerate() {
            let first = cta.instructions.len() as u32;
            for &(step, mask) in &record.steps[first_step..first_step + len as usize] {
                let index = (step & !STRIDED) as usize;
                let mut instruction = self.templates[index];
                instruction.mask = mask;
                if instruction.mem_width > 0 {
                    instruction.addresses = if step & STRIDED != 0 {
                        let (base, stride) = (record.addresses[address], record.addresses[address + 1]);
                        address += 2;
                        Addresses::Strided { base, stride: stride as i64 }
                    } else if mask == 0 {
                        Addresses::Strided { base: 0, stride: 0 }
                    } else {
                        let count = mask.count_ones() as usize;
                        address += count;
                        cta.push_addresses(record.addresses[address - count..address].iter().copied())
                    };
                }
                cta.instructions.push(instruction);
            }
            let len = cta.instructions.len() as u32 - first;
            cta.warps.push(WarpTrace { warp_id: warp_id as u32, first, len });
        }
    }
}
