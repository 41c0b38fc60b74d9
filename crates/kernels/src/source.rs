//! A generated workload as the command stream the timing model and the
//! analytical models read (`warplab_trace::source`): copies and launches in
//! order, each kernel's CTAs produced on demand into the reader's buffer.

use std::collections::VecDeque;

use warplab_trace::source::{Command as SourceCommand, KernelSource, WorkloadSource};
use warplab_trace::{Cta, KernelHeader, OpcodeTable};

use crate::{Command, Kernel, Workload};

/// A [`Workload`] handed out one command at a time.
pub struct WorkloadCommands {
    commands: VecDeque<Command>,
}

impl Workload {
    /// The workload as a command stream.
    pub fn into_source(self) -> WorkloadCommands {
        WorkloadCommands { commands: self.commands.into() }
    }
}

impl WorkloadSource for WorkloadCommands {
    fn next_command(&mut self) -> Option<Result<SourceCommand, String>> {
        Some(Ok(match self.commands.pop_front()? {
            Command::MemcpyHtoD { addr, bytes } => SourceCommand::MemcpyHtoD { address: addr, bytes },
            Command::Kernel(kernel) => SourceCommand::Kernel(Box::new(KernelCtas { kernel, next: 0 })),
        }))
    }
}

/// A generated kernel, its CTAs produced in launch order.
struct KernelCtas {
    kernel: Box<Kernel>,
    next: u64,
}

impl KernelSource for KernelCtas {
    fn header(&self) -> &KernelHeader {
        self.kernel.header()
    }

    fn opcodes(&self) -> &OpcodeTable {
        self.kernel.opcodes()
    }

    fn next_cta(&mut self, cta: &mut Cta) -> Result<bool, String> {
        if self.next >= self.kernel.cta_count() {
            return Ok(false);
        }
        self.kernel.fill_cta(self.next, cta);
        self.next += 1;
        Ok(true)
    }
}
