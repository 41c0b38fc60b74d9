//! A one-pass summary of a kernel trace: its shape, instruction counts and
//! memory footprint, as `warplab info` and the web app show them.

use std::collections::{BTreeMap, HashSet};
use std::io::BufRead;

use serde::{Deserialize, Serialize};

use crate::{Cta, Dim3, KernelReader, MemSpace, ParseError};

/// Bytes per sector: the unit of the sectored caches.
pub const SECTOR_BYTES: u64 = 32;

/// What one pass over a `.traceg` file tells about the kernel.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct KernelSummary {
    /// The (mangled) kernel name.
    pub name: String,
    /// `-kernel id`.
    pub id: u64,
    /// Grid dimensions in CTAs.
    pub grid: Dim3,
    /// CTA dimensions in threads.
    pub block: Dim3,
    /// `-binary version`.
    pub binary_version: u32,
    /// `-accelsim tracer version` (0 when absent).
    pub tracer_version: u32,
    /// CTAs in the trace.
    pub ctas: u64,
    /// Warps in the trace.
    pub warps: u64,
    /// Warp instructions: instruction lines.
    pub warp_insts: u64,
    /// Thread instructions: the sum of active-mask popcounts (Accel-Sim's `gpu_sim_insn`).
    pub thread_insts: u64,
    /// Warp instructions that access memory (carry addresses).
    pub mem_insts: u64,
    /// `mem_insts` by memory space (`global`, `shared`, `local`, ...).
    pub mem_insts_by_space: BTreeMap<String, u64>,
    /// Distinct 32-byte sectors of global memory touched.
    pub sectors: u64,
    /// Diagnostics, as messages.
    pub diagnostics: Vec<String>,
}

impl KernelSummary {
    /// Reads the trace `file` from `reader` in one streaming pass.
    ///
    /// # Errors
    /// The first malformed line.
    pub fn read(file: &str, reader: impl BufRead) -> Result<KernelSummary, ParseError> {
        let mut kernel = KernelReader::new(file, reader)?;
        let header = kernel.header();
        let mut summary = KernelSummary {
            name: header.name.clone(),
            id: header.id,
            grid: header.grid,
            block: header.block,
            binary_version: header.binary_version,
            tracer_version: header.tracer_version,
            ..KernelSummary::default()
        };
        let mut sectors = HashSet::new();
        let mut cta = Cta::default();
        while kernel.next_cta(&mut cta)? {
            summary.add_cta(&cta, kernel.opcodes(), &mut sectors);
        }
        summary.sectors = sectors.len() as u64;
        summary.diagnostics = kernel.diagnostics().iter().map(ToString::to_string).collect();
        Ok(summary)
    }

    fn add_cta(&mut self, cta: &Cta, opcodes: &crate::OpcodeTable, sectors: &mut HashSet<u64>) {
        self.ctas += 1;
        self.warps += cta.warps.len() as u64;
        self.warp_insts += cta.instructions.len() as u64;
        for inst in &cta.instructions {
            self.thread_insts += u64::from(inst.active_lanes());
            if inst.mem_width == 0 {
                continue;
            }
            self.mem_insts += 1;
            *self.mem_insts_by_space.entry(inst.space.name().to_owned()).or_default() += 1;
            if inst.space == MemSpace::Global {
                let width = u64::from(opcodes.info(inst.opcode).access_bytes.max(1));
                for (_, address) in cta.lane_addresses(inst) {
                    let last = address.saturating_add(width - 1);
                    sectors.extend((address / SECTOR_BYTES)..=(last / SECTOR_BYTES));
                }
            }
        }
    }
}
