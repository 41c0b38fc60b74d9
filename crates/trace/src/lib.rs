//! Reading Accel-Sim GPU kernel traces.
//!
//! An Accel-Sim trace directory holds `kernelslist.g`, the list of commands the
//! application issued (kernel launches and host-to-device copies), and one
//! `.traceg` file per kernel launch with every warp's dynamic instruction stream.
//!
//! The central design decision: traces are read as streams, line by line, and
//! never held whole. A kernel can be larger than the memory a browser tab has,
//! so every reader here takes a [`std::io::BufRead`] and keeps only what the
//! current line needs. Errors name the file, the line and the field that was
//! malformed ([`ParseError`]).
//!
//! This first version summarises a kernel (name, grid, counts of warp and thread
//! instructions); the full instruction form arrives with the trace reader of the
//! "Real inputs" issue.
//!
//! ```
//! use warplab_trace::{Command, KernelList, KernelSummary};
//!
//! let list = KernelList::parse("kernelslist.g", "MemcpyHtoD,0x7f2b2d500000,400\nkernel-1.traceg\n")?;
//! assert_eq!(list.kernel_files().collect::<Vec<_>>(), ["kernel-1.traceg"]);
//! assert!(matches!(list.commands[0], Command::MemcpyHtoD { bytes: 400, .. }));
//!
//! let trace = "\
//! -kernel name = _Z3addPf
//! -grid dim = (1,1,1)
//! -block dim = (32,1,1)
//! -accelsim tracer version = 4
//! #BEGIN_TB
//! thread block = 0,0,0
//! warp = 0
//! insts = 2
//! 0008 ffffffff 1 R1 MOV 0 0
//! 0010 0000ffff 0 EXIT 0 0
//! #END_TB
//! ";
//! let summary = KernelSummary::read("kernel-1.traceg", trace.as_bytes())?;
//! assert_eq!(summary.name, "_Z3addPf");
//! assert_eq!(summary.warp_instructions, 2);
//! assert_eq!(summary.thread_instructions, 32 + 16);
//! # Ok::<(), warplab_trace::ParseError>(())
//! ```
#![deny(missing_docs)]

mod error;
mod kernel_list;
mod summary;

pub use error::ParseError;
pub use kernel_list::{Command, KernelList};
pub use summary::{Dim3, KernelSummary};
