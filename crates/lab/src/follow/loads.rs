//! Which sectors each global load of the CTAs handed to the simulator reads,
//! so a chosen load can be followed ([`super::Follower::for_load`]): the
//! events name an issued load by its SM, warp slot and PC, and an L1 miss only
//! by its SM and sector, and this book joins the two.
//!
//! Central decision: the book reads the workload, not the timing model. A
//! [`booked`] wrapper notes each CTA's loads as the simulator takes the CTA
//! from its workload, so following changes no cycle of the run. It keeps the
//! newest [`LoadBook::MAX_CTAS`] CTAs, more than a GPU holds resident, so
//! the memory it takes is bounded whatever the trace's size.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use warplab_sim::source::{Command, KernelSource, WorkloadSource};
use warplab_trace::{Cta, KernelHeader, MemSpace, OpCategory, OpcodeTable, SECTOR_BYTES};

/// The book shared by the wrapped workload, which writes it, and the
/// follower, which reads it (both live on the worker's one thread).
pub type SharedLoadBook = Rc<RefCell<LoadBook>>;

/// A global load instruction of the workload, as the page offers it to follow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadPc {
    /// Its PC.
    pub pc: u64,
    /// Its opcode, as the trace spells it.
    pub opcode: String,
}

/// The sectors read by the global loads of the newest CTAs handed out.
#[derive(Debug, Default)]
pub struct LoadBook {
    ctas: VecDeque<CtaLoads>,
    loads: Vec<LoadPc>,
}

/// One CTA's global loads.
#[derive(Debug)]
struct CtaLoads {
    kernel: u32,
    cta: u64,
    /// Warp slots the CTA takes on its SM: its warps sit in a run of that
    /// many slots starting at a multiple of it (the simulator's
    /// `first_warp_slot`), so slot `s` holds the CTA's warp `s % warps`.
    warps: u32,
    loads: Vec<WarpLoad>,
}

/// The sectors one warp's load at one PC reads, over all the times it runs.
#[derive(Debug)]
struct WarpLoad {
    warp: u32,
    pc: u64,
    sectors: Vec<u64>,
}

impl LoadBook {
    /// CTAs kept, newest first out: more than any GPU holds resident.
    pub const MAX_CTAS: usize = 8_192;
    /// Distinct load PCs listed for the page.
    pub const MAX_LOAD_PCS: usize = 64;

    /// The global loads met so far, by PC.
    pub fn loads(&self) -> &[LoadPc] {
        &self.loads
    }

    /// The sectors warp slot `warp_slot` reads with its load at `pc`, for CTA
    /// `cta` (grid index) of launch `kernel`; `None` if the book does not hold
    /// that CTA or the warp has no global load there.
    pub fn sectors(&self, kernel: u32, cta: u64, warp_slot: u32, pc: u64) -> Option<&[u64]> {
        let loads = self.ctas.iter().rev().find(|c| c.kernel == kernel && c.cta == cta)?;
        let warp = warp_slot % loads.warps.max(1);
        loads.loads.iter().find(|load| load.warp == warp && load.pc == pc).map(|load| load.sectors.as_slice())
    }

    /// Notes CTA `cta` of launch `kernel`, as the simulator takes it.
    fn note(&mut self, kernel: u32, header: &KernelHeader, opcodes: &OpcodeTable, cta: &Cta, warp_size: u32) {
        let mut loads: Vec<WarpLoad> = Vec::new();
        for (warp, trace) in cta.warps.iter().enumerate() {
            for instruction in cta.warp_instructions(trace) {
                let info = opcodes.info(instruction.opcode);
                if info.category != OpCategory::Load || info.atomic || instruction.space != MemSpace::Global {
                    continue;
                }
                let pc = u64::from(instruction.pc);
                self.list(pc, &info.text);
                let index = match loads.iter().position(|load| load.warp == warp as u32 && load.pc == pc) {
                    Some(index) => index,
                    None => {
                        loads.push(WarpLoad { warp: warp as u32, pc, sectors: Vec::new() });
                        loads.len() - 1
                    }
                };
                let last_byte = u64::from(info.access_bytes.max(1)) - 1;
                let sectors = &mut loads[index].sectors;
                for (_, address) in cta.lane_addresses(instruction) {
                    // Neighbouring lanes mostly share a sector: one equal to
                    // the last noted is left out here rather than by the
                    // sort and dedup below, which end the same either way.
                    for sector in [sector_of(address), sector_of(address.saturating_add(last_byte))] {
                        if sectors.last() != Some(&sector) {
                            sectors.push(sector);
                        }
                    }
                }
            }
        }
        for load in &mut loads {
            load.sectors.sort_unstable();
            load.sectors.dedup();
        }
        let index = cta.id.index_in(header.grid);
        let threads = u32::try_from(header.block.size()).unwrap_or(u32::MAX);
        let warps = threads.max(1).div_ceil(warp_size.max(1));
        if self.ctas.len() == Self::MAX_CTAS {
            self.ctas.pop_front();
        }
        self.ctas.push_back(CtaLoads { kernel, cta: index, warps, loads });
    }

    fn list(&mut self, pc: u64, opcode: &str) {
        if self.loads.len() < Self::MAX_LOAD_PCS && !self.loads.iter().any(|load| load.pc == pc) {
            self.loads.push(LoadPc { pc, opcode: opcode.to_owned() });
            self.loads.sort_by_key(|load| load.pc);
        }
    }
}

/// The 32-byte sector holding `address`.
fn sector_of(address: u64) -> u64 {
    address & !(SECTOR_BYTES - 1)
}

/// `workload`, noting in `book` each CTA's global loads as the simulator
/// takes it; `warp_size` is the GPU's.
pub fn booked(workload: Box<dyn WorkloadSource>, book: SharedLoadBook, warp_size: u32) -> Box<dyn WorkloadSource> {
    Box::new(BookedWorkload { inner: workload, book, warp_size, kernels: 0 })
}

struct BookedWorkload {
    inner: Box<dyn WorkloadSource>,
    book: SharedLoadBook,
    warp_size: u32,
    /// Kernels handed out so far: the next one's launch index.
    kernels: u32,
}

impl WorkloadSource for BookedWorkload {
    fn next_command(&mut self) -> Option<Result<Command, String>> {
        let command = self.inner.next_command()?;
        let Ok(Command::Kernel(inner)) = command else { return Some(command) };
        let kernel = self.kernels;
        self.kernels += 1;
        let booked = BookedKernel { inner, book: Rc::clone(&self.book), kernel, warp_size: self.warp_size };
        Some(Ok(Command::Kernel(Box::new(booked))))
    }
}

struct BookedKernel {
    inner: Box<dyn KernelSource>,
    book: SharedLoadBook,
    kernel: u32,
    warp_size: u32,
}

impl KernelSource for BookedKernel {
    fn header(&self) -> &KernelHeader {
        self.inner.header()
    }

    fn opcodes(&self) -> &OpcodeTable {
        self.inner.opcodes()
    }

    fn next_cta(&mut self, cta: &mut Cta) -> Result<bool, String> {
        let more = self.inner.next_cta(cta)?;
        if more {
            let (header, opcodes) = (self.inner.header(), self.inner.opcodes());
            self.book.borrow_mut().note(self.kernel, header, opcodes, cta, self.warp_size);
        }
        Ok(more)
    }

    fn diagnostics(&self) -> Vec<String> {
        self.inner.diagnostics()
    }
}
