//! What the timing model and the analytical models read: a workload as a
//! sequence of commands, each kernel a stream of CTAs pulled in launch order.
//!
//! Neither model holds a whole kernel: like the trace reader, a kernel hands
//! out one CTA at a time into a buffer the caller owns and reuses, so a trace
//! larger than memory is simulated or profiled in memory bounded by the
//! resident CTAs. `warplab-lab` implements these traits for trace directories
//! (streaming `.traceg` files) and for generated workloads. They live here, not
//! in `warplab-sim`, because `warplab-model` must not depend on the simulator.

use crate::{Cta, KernelHeader, OpcodeTable};

/// One kernel launch as the simulator consumes it.
pub trait KernelSource {
    /// The launch: name, grid, block, shared memory, registers, stream.
    fn header(&self) -> &KernelHeader;
    /// The kernel's opcodes, indexed by the `OpcodeId`s its instructions carry.
    fn opcodes(&self) -> &OpcodeTable;
    /// Refills `cta` with the next CTA in launch order; `Ok(false)` after the last.
    ///
    /// # Errors
    /// A message naming file, line and field when the input is malformed; the
    /// simulator stops the kernel there and reports what it simulated.
    fn next_cta(&mut self, cta: &mut Cta) -> Result<bool, String>;
    /// Recoverable oddities met so far (unknown opcodes and the like).
    fn diagnostics(&self) -> Vec<String> {
        Vec::new()
    }
}

/// One command of a workload, in `kernelslist.g` order.
pub enum Command {
    /// A host-to-device copy of `bytes` bytes at `address`.
    MemcpyHtoD {
        /// Device address.
        address: u64,
        /// Bytes copied.
        bytes: u64,
    },
    /// A kernel launch.
    Kernel(Box<dyn KernelSource>),
}

/// A workload: its commands, opened one at a time as the simulator reaches them.
pub trait WorkloadSource {
    /// The next command, `None` at the end.
    ///
    /// # Errors
    /// A message naming the file that could not be opened or parsed.
    fn next_command(&mut self) -> Option<Result<Command, String>>;
}

impl<W: WorkloadSource + ?Sized> WorkloadSource for &mut W {
    fn next_command(&mut self) -> Option<Result<Command, String>> {
        (**self).next_command()
    }
}

impl<W: WorkloadSource + ?Sized> WorkloadSource for Box<W> {
    fn next_command(&mut self) -> Option<Result<Command, String>> {
        (**self).next_command()
    }
}
