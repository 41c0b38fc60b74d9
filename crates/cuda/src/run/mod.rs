//! The functional run: `host()` interpreted, each launch executed warp by
//! warp on a functional memory image, and the result as a workload of the
//! same form the generators produce (copies and launches whose CTAs hold
//! each warp's instructions, active masks and addresses).

mod host;
mod limits;
mod memory;
mod record;
mod warp;

use std::sync::Arc;

use warplab_kernels::{Command, Kernel, Workload, written_header};
use warplab_trace::{Diagnostic as TraceDiagnostic, Dim3, Instruction, Isa, KernelHeader, MemSpace, OpcodeTable, Reg};

pub use host::{MAX_ARRAY_ELEMENTS, MAX_HOST_STEPS};
pub use memory::{DeviceArray, HEAP_BASE};

use crate::Compiled;
use crate::codegen::CompiledKernel;
use crate::diagnostic::Diagnostic;
use crate::sass::{Inst, Operand, PC_STEP};
use host::{Host, HostCommand};
use record::RecordedCtas;

/// The default budget of warp instructions per launch.
pub const DEFAULT_MAX_WARP_INSTS: u64 = 100_000_000;

/// What the run needs to know about the GPU, and what to keep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// The most warp instructions one launch may execute.
    pub max_warp_insts: u64,
    /// What the user can do about a launch past `max_warp_insts`, said in
    /// parentheses after the error (the command line names its flag, the
    /// page its own limit); empty says nothing.
    pub budget_hint: String,
    /// Keep every warp's instructions to build a workload (a check that
    /// only counts them keeps nothing).
    pub record: bool,
    /// The GPU's shared memory per block, in bytes.
    pub shared_bytes_per_block: u32,
    /// The registers one block may use.
    pub registers_per_block: u32,
    /// The binary version whose opcode table the trace's SASS is read with.
    pub binary_version: u32,
}

/// One launch as it ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchSummary {
    /// The kernel.
    pub kernel: String,
    /// The grid, in blocks.
    pub grid: [u32; 3],
    /// The block, in threads.
    pub block: [u32; 3],
    /// Static and dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
    /// Registers per thread.
    pub registers: u32,
    /// Warp instructions executed.
    pub warp_insts: u64,
}

/// The result of a run.
pub struct Run {
    /// Every device array, with its final contents.
    pub arrays: Vec<DeviceArray>,
    /// Every launch, in order.
    pub launches: Vec<LaunchSummary>,
    /// Warp instructions over all launches.
    pub warp_insts: u64,
    /// The workload, when [`RunOptions::record`] asked for it.
    pub workload: Option<Workload>,
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run").field("launches", &self.launches).field("warp_insts", &self.warp_insts).finish()
    }
}

/// Runs `host()` of a compiled file, every launch functionally.
///
/// # Errors
/// A fault, a launch the GPU cannot hold, or a budget run out, located at
/// the source of the instruction (or host statement) where it happened.
pub fn run(file: &str, source: &str, compiled: &Compiled, options: &RunOptions) -> Result<Run, Diagnostic> {
    let mut by_function: Vec<Option<CompiledKernel>> = vec![None; compiled.program.functions.len()];
    for kernel in &compiled.kernels {
        by_function[kernel.function.0 as usize] = Some(kernel.clone());
    }
    let mut host = Host::new(&compiled.program, &by_function, options);
    host.run().map_err(|error| Diagnostic::new(file, source, error))?;
    let warp_insts = host.launches.iter().map(|launch| launch.warp_insts).sum();
    let workload = options.record.then(|| workload(file, source, &by_function, &mut host, options));
    Ok(Run { arrays: std::mem::take(&mut host.memory.arrays), launches: host.launches, warp_insts, workload })
}

fn workload(
    file: &str,
    source: &str,
    kernels: &[Option<CompiledKernel>],
    host: &mut Host<'_>,
    options: &RunOptions,
) -> Workload {
    let lines = LineIndex::new(source);
    let tables: Vec<Option<(OpcodeTable, Arc<Vec<Instruction>>)>> = kernels
        .iter()
        .map(|kernel| kernel.as_ref().map(|kernel| templates(kernel, &lines, options.binary_version)))
        .collect();
    let mut commands = Vec::new();
    let mut next_id = 1;
    for command in std::mem::take(&mut host.commands) {
        match command {
            HostCommand::Copy(array) => {
                let array = &host.memory.arrays[array];
                commands.push(Command::MemcpyHtoD { addr: array.base, bytes: array.words.len() as u64 * 4 });
            }
            HostCommand::Launch(record) => {
                let Some((Some(kernel), Some((opcodes, templates)))) =
                    kernels.get(record.kernel).zip(tables.get(record.kernel))
                else {
                    continue;
                };
                let header = header(kernel, &record, next_id, options.binary_version);
                next_id += 1;
                let body = RecordedCtas { templates: Arc::clone(templates), record: *record };
                commands.push(Command::Kernel(Box::new(Kernel::with_header(header, opcodes.clone(), Box::new(body)))));
            }
        }
    }
    Workload { name: file.to_owned(), commands }
}

fn header(kernel: &CompiledKernel, record: &record::LaunchRecord, id: u64, binary_version: u32) -> KernelHeader {
    let dim = |d: [u32; 3]| Dim3 { x: d[0], y: d[1], z: d[2] };
    let shape = (dim(record.grid), dim(record.block), record.shared_bytes);
    KernelHeader { id, ..written_header(kernel.name.clone(), shape, kernel.registers, binary_version) }
}

/// Each static instruction in the trace's form, its opcode interned in the
/// table of `binary_version`.
fn templates(kernel: &CompiledKernel, lines: &LineIndex, binary_version: u32) -> (OpcodeTable, Arc<Vec<Instruction>>) {
    let (isa, _) = Isa::for_binary_version(binary_version);
    let mut opcodes = OpcodeTable::new(isa);
    let mut diagnostics: Vec<TraceDiagnostic> = Vec::new();
    let templates = kernel
        .insts
        .iter()
        .enumerate()
        .map(|(index, inst)| {
            let opcode = opcodes.intern(&inst.text, &mut diagnostics).unwrap_or_default();
            let space = opcodes.info(opcode).space;
            trace_instruction(inst, index, opcode, space, lines.line(inst.span.start))
        })
        .collect();
    (opcodes, Arc::new(templates))
}

fn trace_instruction(
    inst: &Inst,
    index: usize,
    opcode: warplab_trace::OpcodeId,
    space: MemSpace,
    line: u32,
) -> Instruction {
    let mut instruction = Instruction {
        pc: index as u32 * PC_STEP,
        opcode,
        space: if inst.is_memory() { space } else { MemSpace::None },
        mem_width: if inst.is_memory() { 4 } else { 0 },
        source_line: line,
        ..Instruction::default()
    };
    if let Operand::Reg(reg) = inst.dst {
        instruction.dst[0] = Reg(reg as u16);
        instruction.n_dst = 1;
    }
    for reg in inst.source_registers().take(instruction.src.len()) {
        instruction.src[usize::from(instruction.n_src)] = Reg(reg as u16);
        instruction.n_src += 1;
    }
    instruction
}

/// Byte offsets to 1-based line numbers.
pub(crate) struct LineIndex {
    starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(source: &str) -> LineIndex {
        let starts = std::iter::once(0).chain(source.match_indices('\n').map(|(i, _)| i as u32 + 1)).collect();
        LineIndex { starts }
    }

    pub fn line(&self, offset: u32) -> u32 {
        self.starts.partition_point(|&start| start <= offset) as u32
    }
}
