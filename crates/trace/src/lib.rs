//! Reading and writing Accel-Sim GPU kernel traces, in an ISA-independent
//! instruction form.
//!
//! An Accel-Sim trace directory holds `kernelslist.g`, the list of commands the
//! application issued (kernel launches and host-to-device copies), and one
//! `.traceg` (or `.traceg.xz`) file per kernel launch with every warp's dynamic
//! instruction stream, grouped by CTA.
//!
//! The central design decision: traces are read as streams, one CTA at a time,
//! into a [`Cta`] buffer the caller reuses. A kernel can be larger than the
//! memory a browser tab has, so a [`KernelReader`] keeps only the current line
//! and the current CTA, and reading allocates nothing per line once its
//! buffers have grown. Every error names the file, the line and the field
//! ([`ParseError`]); oddities that do not stop a run (an opcode missing from
//! the table) come back as [`Diagnostic`]s.
//!
//! Instructions keep what the models need: PC, active mask, registers, an
//! interned opcode with its Accel-Sim category, unit and access width, the
//! memory space, and per-lane addresses kept compact (a strided access is a
//! base and a stride). Every instruction-line layout the tracer has produced is
//! read (pre-v3 with CTA/warp prefixes, v3, v4 with line numbers, v5 with the
//! trailing immediate; address modes 0, 1 and 2); the writer produces v5.
//!
//! ```
//! use warplab_trace::{Cta, KernelReader, KernelSummary};
//!
//! let trace = "\
//! -kernel name = _Z3addPf
//! -grid dim = (1,1,1)
//! -block dim = (32,1,1)
//! -binary version = 80
//! -accelsim tracer version = 5
//! #BEGIN_TB
//! thread block = 0,0,0
//! warp = 0
//! insts = 2
//! 0000 ffffffff 1 R2 LDG.E 1 R4 4 1 0x7f0000000000 4 0
//! 0010 0000ffff 0 EXIT 0 0 0
//! #END_TB
//! ";
//! let mut reader = KernelReader::new("kernel-1.traceg", trace.as_bytes())?;
//! let mut cta = Cta::default();
//! assert!(reader.next_cta(&mut cta)?);
//! let load = cta.instructions[0];
//! assert_eq!(reader.opcodes().info(load.opcode).access_bytes, 4);
//! let lanes: Vec<_> = cta.lane_addresses(&load).take(2).collect();
//! assert_eq!(lanes, [(0, 0x7f0000000000), (1, 0x7f0000000004)]);
//! assert!(!reader.next_cta(&mut cta)?);
//!
//! let summary = KernelSummary::read("kernel-1.traceg", trace.as_bytes())?;
//! assert_eq!((summary.warp_insts, summary.thread_insts), (2, 32 + 16));
//! # Ok::<(), warplab_trace::ParseError>(())
//! ```
#![deny(missing_docs)]

mod compress;
mod diagnostic;
mod error;
mod fields;
#[doc(hidden)]
pub mod fuzzing;
mod header;
mod instruction;
mod kernel_list;
mod line;
mod lines;
mod numbers;
mod opcode;
mod reader;
pub mod source;
mod static_fields;
mod summary;
mod writer;

pub use compress::{XzTraceWriter, is_xz_data, is_xz_name, open_trace};
pub use diagnostic::Diagnostic;
pub use error::ParseError;
pub use header::{Dim3, KernelHeader};
pub use instruction::{
    Addresses, Cta, CtaSizes, Instruction, LaneAddresses, MAX_DST_REGS, MAX_SRC_REGS, Reg, WARP_SIZE, WarpTrace,
    lanes_in_one_run,
};
pub use kernel_list::{Command, KernelList};
pub use lines::MAX_LINE_BYTES;
pub use opcode::{
    Isa, MAX_OPCODES, MemSpace, OpCategory, OpcodeId, OpcodeInfo, OpcodeTable, UnitClass, access_bytes, describe,
};
pub use reader::{KernelReader, MAX_CTA_INSTRUCTIONS, MAX_WARPS_PER_CTA};
pub use summary::{KernelSummary, SECTOR_BYTES, SummaryBuilder};
pub use writer::{WRITTEN_TRACER_VERSION, write_cta, write_header};
