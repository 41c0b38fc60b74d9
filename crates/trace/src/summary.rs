//! A one-pass summary of a kernel trace: its shape, instruction counts and
//! memory footprint, as `warplab info` and the web app show them.

use std::collections::{BTreeMap, HashSet};
use std::io::BufRead;

use serde::{Deserialize, Serialize};

use crate::{Cta, Diagnostic, Dim3, KernelHeader, KernelReader, MemSpace, OpcodeTable, ParseError};

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
        let mut builder = SummaryBuilder::new(kernel.header());
        let mut cta = Cta::default();
        while kernel.next_cta(&mut cta)? {
            builder.add_cta(&cta, kernel.opcodes());
        }
        Ok(builder.finish(kernel.diagnostics()))
    }
}

/// Builds a [`KernelSummary`] CTA by CTA, for kernels that do not come from a
/// file (the generators) as well as for [`KernelSummary::read`].
#[derive(Debug)]
pub struct SummaryBuilder {
    summary: KernelSummary,
    /// Memory instructions by space, indexed by [`MemSpace`]'s discriminant:
    /// the summary's map of names is made once, in [`SummaryBuilder::finish`],
    /// not looked up (and its key allocated) per instruction.
    by_space: [u64; MemSpace::ALL.len()],
    sectors: HashSet<u64>,
}

impl SummaryBuilder {
    /// Starts the summary of the kernel `header` describes.
    pub fn new(header: &KernelHeader) -> SummaryBuilder {
        let summary = KernelSummary {
            name: header.name.clone(),
            id: header.id,
            grid: header.grid,
            block: header.block,
            binary_version: header.binary_version,
            tracer_version: header.tracer_version,
            ..KernelSummary::default()
        };
        SummaryBuilder { summary, by_space: [0; MemSpace::ALL.len()], sectors: HashSet::new() }
    }

    /// Counts one CTA whose opcodes are interned in `opcodes`.
    pub fn add_cta(&mut self, cta: &Cta, opcodes: &OpcodeTable) {
        let summary = &mut self.summary;
        summary.ctas += 1;
        summary.warps += cta.warps.len() as u64;
        summary.warp_insts += cta.instructions.len() as u64;
        for inst in &cta.instructions {
            summary.thread_insts += u64::from(inst.active_lanes());
            if inst.mem_width == 0 {
                continue;
            }
            summary.mem_insts += 1;
            self.by_space[inst.space as usize] += 1;
            if inst.space == MemSpace::Global {
                let width = u64::from(opcodes.info(inst.opcode).access_bytes.max(1));
                note_sectors(&mut self.sectors, cta.lane_addresses(inst).map(|(_, address)| address), width);
            }
        }
    }

    /// The finished summary, with the reader's (or generator's) diagnostics.
    pub fn finish(mut self, diagnostics: &[Diagnostic]) -> KernelSummary {
        for (space, &count) in MemSpace::ALL.iter().zip(&self.by_space) {
            if count > 0 {
                self.summary.mem_insts_by_space.insert(space.name().to_owned(), count);
            }
        }
        self.summary.sectors = self.sectors.len() as u64;
        self.summary.diagnostics = diagnostics.iter().map(ToString::to_string).collect();
        self.summary
    }
}

/// Adds to `sectors` the sectors that accesses of `width` bytes at
/// `addresses` touch. Neighbouring lanes mostly share a sector (a coalesced
/// warp's 32 lanes touch 4 of them), so a sector equal to the one added just
/// before is not hashed again: the set ends the same, with a fraction of the
/// lookups.
fn note_sectors(sectors: &mut HashSet<u64>, addresses: impl Iterator<Item = u64>, width: u64) {
    let mut last = None;
    for address in addresses {
        let end = address.saturating_add(width - 1) / SECTOR_BYTES;
        for sector in address / SECTOR_BYTES..=end {
            if last != Some(sector) {
                sectors.insert(sector);
                last = Some(sector);
            }
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Skipping a sector equal to the one added before changes nothing:
        /// the set is every sector any access touches, whatever the order.
        #[test]
        fn the_sectors_noted_are_every_sector_touched(
            addresses in proptest::collection::vec(prop_oneof![0u64..4_096, Just(u64::MAX - 3)], 0..64),
            width in prop_oneof![Just(1u64), Just(4), Just(8), Just(16), Just(64)],
        ) {
            let mut noted = HashSet::new();
            note_sectors(&mut noted, addresses.iter().copied(), width);
            let mut every = HashSet::new();
            for &address in &addresses {
                every.extend(address / SECTOR_BYTES..=address.saturating_add(width - 1) / SECTOR_BYTES);
            }
            prop_assert_eq!(noted, every);
        }
    }
}
