//! Runs the timing model on a trace directory or a generated workload: the
//! adapters that make both look like the simulator's command stream.
//!
//! A trace kernel is opened only when the simulator reaches its launch and is
//! read one CTA at a time as CTAs launch, so a run's memory is bounded by the
//! resident CTAs whatever the trace's size; a generated kernel produces its
//! CTAs on demand the same way.

use std::collections::VecDeque;
use std::io::BufRead;

use warplab_config::GpuConfig;
use warplab_kernels::{GenSpec, WorkloadCommands};
use warplab_sim::source::{Command, KernelSource, WorkloadSource};
use warplab_sim::{SimOptions, SimReport, simulate};
use warplab_trace::{Cta, KernelHeader, KernelList, KernelReader, OpcodeTable};

use crate::generated::generate;
use crate::workload::{decompressed, open_file};
use crate::{LabError, OpenRead};

/// A trace directory as the simulator's command stream. Its files are opened
/// while the simulator runs, so the opener hands out streams that own their
/// data (`OpenRead<'static>`).
pub struct TraceWorkload<'a> {
    commands: VecDeque<warplab_trace::Command>,
    open: Opener<'a>,
}

/// The opener a [`TraceWorkload`] uses: lent by the caller (the CLI, tests),
/// or owned, so a run can outlive the call that started it (the worker).
enum Opener<'a> {
    Lent(&'a mut OpenRead<'static>),
    Owned(Box<OpenRead<'static>>),
}

impl<'a> TraceWorkload<'a> {
    /// The workload `kernelslist.g` (given as text) describes; kernel files are
    /// opened with `open` when the simulator reaches them.
    ///
    /// # Errors
    /// A malformed `kernelslist.g`.
    pub fn new(list_text: &str, open: &'a mut OpenRead<'static>) -> Result<Self, LabError> {
        Self::with_opener(list_text, Opener::Lent(open))
    }

    fn with_opener(list_text: &str, open: Opener<'a>) -> Result<Self, LabError> {
        let list = KernelList::parse("kernelslist.g", list_text)?;
        Ok(Self { commands: list.commands.into_iter().collect(), open })
    }
}

impl TraceWorkload<'static> {
    /// As [`TraceWorkload::new`], owning its opener.
    ///
    /// # Errors
    /// A malformed `kernelslist.g`.
    pub fn owning(list_text: &str, open: Box<OpenRead<'static>>) -> Result<Self, LabError> {
        Self::with_opener(list_text, Opener::Owned(open))
    }
}

impl WorkloadSource for TraceWorkload<'_> {
    fn next_command(&mut self) -> Option<Result<Command, String>> {
        Some(match self.commands.pop_front()? {
            warplab_trace::Command::MemcpyHtoD { addr, bytes } => Ok(Command::MemcpyHtoD { address: addr, bytes }),
            warplab_trace::Command::Kernel { file } => match &mut self.open {
                Opener::Lent(open) => open_kernel(&file, &mut **open),
                Opener::Owned(open) => open_kernel(&file, &mut **open),
            },
        })
    }
}

fn open_kernel(file: &str, open: &mut OpenRead<'static>) -> Result<Command, String> {
    let text = decompressed(file, open_file(file, open).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    let reader = KernelReader::new(file, text).map_err(|e| e.to_string())?;
    Ok(Command::Kernel(Box::new(TraceKernel { reader })))
}

/// One `.traceg` file, read CTA by CTA.
struct TraceKernel {
    reader: KernelReader<Box<dyn BufRead>>,
}

impl KernelSource for TraceKernel {
    fn header(&self) -> &KernelHeader {
        self.reader.header()
    }

    fn opcodes(&self) -> &OpcodeTable {
        self.reader.opcodes()
    }

    fn next_cta(&mut self, cta: &mut Cta) -> Result<bool, String> {
        self.reader.next_cta(cta).map_err(|e| e.to_string())
    }

    fn diagnostics(&self) -> Vec<String> {
        self.reader.diagnostics().iter().map(ToString::to_string).collect()
    }
}

/// A generated workload as the simulator's command stream.
pub struct GeneratedWorkload(WorkloadCommands);

impl GeneratedWorkload {
    /// The workload `spec` generates for `config`.
    ///
    /// # Errors
    /// A spec that does not fit the generator or the config.
    pub fn new(spec: &GenSpec, config: &GpuConfig) -> Result<Self, LabError> {
        Ok(Self(generate(spec, config)?.into_source()))
    }
}

impl WorkloadSource for GeneratedWorkload {
    fn next_command(&mut self) -> Option<Result<Command, String>> {
        self.0.next_command()
    }
}

/// Simulates the trace whose `kernelslist.g` text is `list_text` on `config`.
///
/// # Errors
/// A malformed `kernelslist.g`. Errors inside a kernel file do not fail the
/// run: the simulator stops reading that kernel and the report's diagnostics
/// name the file and line.
pub fn simulate_trace(
    config: &GpuConfig,
    options: SimOptions,
    list_text: &str,
    open: &mut OpenRead<'static>,
) -> Result<SimReport, LabError> {
    let mut workload = TraceWorkload::new(list_text, open)?;
    Ok(simulate(config, options, &mut workload))
}

/// Simulates the workload `spec` generates for `config`.
///
/// # Errors
/// A spec that does not fit the generator or the config.
pub fn simulate_generated(config: &GpuConfig, options: SimOptions, spec: &GenSpec) -> Result<SimReport, LabError> {
    let mut workload = GeneratedWorkload::new(spec, config)?;
    Ok(simulate(config, options, &mut workload))
}
