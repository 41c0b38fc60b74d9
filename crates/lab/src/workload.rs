//! Workloads as the lab sees them: a trace directory read through a caller's
//! file-opening closure.

use std::fmt;

use serde::{Deserialize, Serialize};
use warplab_trace::{Command, KernelList, KernelSummary, ParseError};

/// What the lab knows of a trace after one pass over it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct WorkloadSummary {
    /// A label for the workload (a sample name or a directory).
    pub label: String,
    /// One summary per kernel launch, in launch order.
    pub kernels: Vec<KernelSummary>,
    /// The number of `MemcpyHtoD` commands in `kernelslist.g`.
    pub memcpy_commands: usize,
}

impl WorkloadSummary {
    /// Warp instructions (trace lines) over all kernels.
    pub fn warp_instructions(&self) -> u64 {
        self.kernels.iter().map(|k| k.warp_instructions).sum()
    }

    /// Thread instructions (active lanes) over all kernels.
    pub fn thread_instructions(&self) -> u64 {
        self.kernels.iter().map(|k| k.thread_instructions).sum()
    }
}

/// Why the lab could not read a workload.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LabError {
    /// A trace file is malformed.
    Trace(ParseError),
    /// A file the trace names could not be opened.
    Missing {
        /// The file as named in the trace.
        file: String,
        /// Why opening it failed.
        reason: String,
    },
}

impl fmt::Display for LabError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LabError::Trace(error) => error.fmt(f),
            LabError::Missing { file, reason } => write!(f, "{file}: cannot open: {reason}"),
        }
    }
}

impl std::error::Error for LabError {}

impl From<ParseError> for LabError {
    fn from(error: ParseError) -> Self {
        LabError::Trace(error)
    }
}

/// The kernel trace files that `kernelslist.g` (given as text) names, in order.
///
/// The browser fetches these before calling [`summarize_trace`].
///
/// # Errors
/// A malformed line of `kernelslist.g`.
pub fn kernel_files(list_text: &str) -> Result<Vec<String>, LabError> {
    let list = KernelList::parse("kernelslist.g", list_text)?;
    Ok(list.kernel_files().map(str::to_owned).collect())
}

/// Reads the trace whose `kernelslist.g` text is `list_text`, asking `open` for
/// the bytes of each kernel file it names.
///
/// # Errors
/// A malformed `kernelslist.g` or kernel trace, or a file `open` cannot provide.
pub fn summarize_trace(
    label: &str,
    list_text: &str,
    mut open: impl FnMut(&str) -> Result<Vec<u8>, String>,
) -> Result<WorkloadSummary, LabError> {
    let list = KernelList::parse("kernelslist.g", list_text)?;
    let mut summary = WorkloadSummary { label: label.to_owned(), ..WorkloadSummary::default() };
    for command in &list.commands {
        match command {
            Command::Kernel { file } => {
                let bytes = open(file).map_err(|reason| LabError::Missing { file: file.clone(), reason })?;
                summary.kernels.push(KernelSummary::read(file, bytes.as_slice())?);
            }
            Command::MemcpyHtoD { .. } => summary.memcpy_commands += 1,
        }
    }
    Ok(summary)
}
