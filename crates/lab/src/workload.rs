//! Workloads as the lab sees them: a trace directory read through the
//! caller's file-opening closure, summarized or converted, one CTA at a time.

use std::fmt;
use std::io::{BufRead, Read, Write};

use serde::{Deserialize, Serialize};
use warplab_trace::{
    Command, Cta, KernelList, KernelReader, KernelSummary, ParseError, XzTraceWriter, open_trace, write_cta,
    write_header,
};

/// Opens a file named in a trace directory for reading.
pub type OpenRead<'a> = dyn FnMut(&str) -> Result<Box<dyn Read + 'a>, String> + 'a;

/// Creates an output file by name.
pub type CreateWrite<'a> = dyn FnMut(&str) -> Result<Box<dyn Write>, String> + 'a;

/// What `warplab info` and the web app show of a trace.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct WorkloadSummary {
    /// A label for the workload (a sample name or a path).
    pub label: String,
    /// One summary per kernel launch, in launch order.
    pub kernels: Vec<KernelSummary>,
    /// Totals over all kernels.
    pub totals: Totals,
    /// The `MemcpyHtoD` commands of `kernelslist.g`, in order.
    pub memcpys: Vec<Memcpy>,
    /// Diagnostics of all kernels, as messages.
    pub diagnostics: Vec<String>,
}

/// Totals over the kernels of a workload.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Totals {
    /// Kernel launches.
    pub kernels: u64,
    /// CTAs.
    pub ctas: u64,
    /// Warps.
    pub warps: u64,
    /// Warp instructions.
    pub warp_insts: u64,
    /// Thread instructions.
    pub thread_insts: u64,
}

/// A host-to-device copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memcpy {
    /// Destination device address.
    pub addr: u64,
    /// Bytes copied.
    pub bytes: u64,
}

impl WorkloadSummary {
    /// Adds a kernel's summary to the workload's (an authored kernel's
    /// workload is summed by the CLI, outside the lab).
    pub fn add(&mut self, kernel: KernelSummary) {
        self.totals.kernels += 1;
        self.totals.ctas += kernel.ctas;
        self.totals.warps += kernel.warps;
        self.totals.warp_insts += kernel.warp_insts;
        self.totals.thread_insts += kernel.thread_insts;
        self.diagnostics.extend(kernel.diagnostics.iter().cloned());
        self.kernels.push(kernel);
    }
}

/// Why the lab could not read or write a workload.
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
    /// A GPU configuration is malformed or invalid (boxed: the error is large
    /// and the success path should not pay for it).
    Config(Box<warplab_config::ConfigError>),
    /// No bundled preset has this name.
    UnknownPreset(String),
    /// A generator spec that does not run (unknown kernel or knob, value out
    /// of range).
    Gen(warplab_kernels::GenError),
    /// Writing an output file failed.
    Write {
        /// The output file.
        file: String,
        /// Why.
        reason: String,
    },
    /// Reading the workload for the analytical models failed (the message
    /// names file, line and field).
    Profile(String),
    /// A config knob that does not exist or a value it cannot take.
    Knob(String),
    /// Files fed to a `ContentHasher` out of order or with the wrong length.
    Hash(String),
    /// A recorded Accel-Sim reference set that cannot be read or run (the
    /// message names the file or case).
    Reference(String),
}

impl fmt::Display for LabError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LabError::Trace(error) => error.fmt(f),
            LabError::Missing { file, reason } => write!(f, "{file}: cannot open: {reason}"),
            LabError::Config(error) => error.fmt(f),
            LabError::UnknownPreset(name) => {
                let names: Vec<_> = warplab_config::PRESETS.iter().map(|p| p.name).collect();
                write!(f, "no preset is called `{name}`; the presets are {}", names.join(", "))
            }
            LabError::Gen(error) => error.fmt(f),
            LabError::Write { file, reason } => write!(f, "{file}: cannot write: {reason}"),
            LabError::Profile(message) => write!(f, "profiling the workload: {message}"),
            LabError::Knob(message) => f.write_str(message),
            LabError::Hash(message) => write!(f, "content hash: {message}"),
            LabError::Reference(message) => write!(f, "Accel-Sim reference: {message}"),
        }
    }
}

impl std::error::Error for LabError {}

impl From<warplab_config::ConfigError> for LabError {
    fn from(error: warplab_config::ConfigError) -> Self {
        LabError::Config(Box::new(error))
    }
}

impl From<ParseError> for LabError {
    fn from(error: ParseError) -> Self {
        LabError::Trace(error)
    }
}

/// The kernel trace files that `kernelslist.g` (given as text) names, in order.
///
/// # Errors
/// A malformed line of `kernelslist.g`.
pub fn kernel_files(list_text: &str) -> Result<Vec<String>, LabError> {
    let list = KernelList::parse("kernelslist.g", list_text)?;
    Ok(list.kernel_files().map(str::to_owned).collect())
}

/// Reads the trace whose `kernelslist.g` text is `list_text`, opening each
/// kernel file it names with `open` and streaming it (plain or xz).
///
/// # Errors
/// A malformed `kernelslist.g` or kernel trace, or a file `open` cannot provide.
pub fn summarize_trace(label: &str, list_text: &str, open: &mut OpenRead<'_>) -> Result<WorkloadSummary, LabError> {
    let list = KernelList::parse("kernelslist.g", list_text)?;
    let mut summary = WorkloadSummary { label: label.to_owned(), ..WorkloadSummary::default() };
    for command in &list.commands {
        match command {
            Command::Kernel { file } => summary.add(summarize_kernel(file, open_file(file, open)?)?),
            Command::MemcpyHtoD { addr, bytes } => summary.memcpys.push(Memcpy { addr: *addr, bytes: *bytes }),
        }
    }
    Ok(summary)
}

/// Summarizes a single kernel trace file (plain or xz) as a one-kernel workload.
///
/// # Errors
/// A malformed trace.
pub fn summarize_kernel_file(label: &str, file: &str, reader: impl Read) -> Result<WorkloadSummary, LabError> {
    let mut summary = WorkloadSummary { label: label.to_owned(), ..WorkloadSummary::default() };
    summary.add(summarize_kernel(file, reader)?);
    Ok(summary)
}

fn summarize_kernel(file: &str, reader: impl Read) -> Result<KernelSummary, LabError> {
    Ok(KernelSummary::read(file, decompressed(file, reader)?)?)
}

/// The trace text of `file`, decompressed when it is xz.
pub(crate) fn decompressed<'a>(file: &str, reader: impl Read + 'a) -> Result<Box<dyn BufRead + 'a>, LabError> {
    open_trace(reader).map_err(|e| LabError::Missing { file: file.to_owned(), reason: e.to_string() })
}

/// Turns a write failure on `file` into a `LabError`.
fn write_error(file: &str) -> impl Fn(std::io::Error) -> LabError + '_ {
    move |e| LabError::Write { file: file.to_owned(), reason: e.to_string() }
}

pub(crate) fn open_file<'a>(file: &str, open: &mut OpenRead<'a>) -> Result<Box<dyn Read + 'a>, LabError> {
    open(file).map_err(|reason| LabError::Missing { file: file.to_owned(), reason })
}

/// Rewrites a trace directory as version-5 traces (xz-compressed when `xz`),
/// one CTA at a time: each kernel from `open`, each output to `create` (by file
/// name), and a new `kernelslist.g` naming the new files. Returns the new
/// `kernelslist.g` text.
///
/// # Errors
/// A malformed input, a file that cannot be opened, or a write that fails.
pub fn convert_trace(
    list_text: &str,
    open: &mut OpenRead<'_>,
    create: &mut CreateWrite<'_>,
    xz: bool,
) -> Result<String, LabError> {
    let list = KernelList::parse("kernelslist.g", list_text)?;
    let mut new_list = String::new();
    for command in &list.commands {
        match command {
            Command::MemcpyHtoD { .. } => new_list.push_str(&format!("{command}\n")),
            Command::Kernel { file } => {
                let stem = file.strip_suffix(".xz").unwrap_or(file);
                let out_name = if xz { format!("{stem}.xz") } else { stem.to_owned() };
                let out = create(&out_name).map_err(|reason| LabError::Write { file: out_name.clone(), reason })?;
                convert_kernel(file, open_file(file, open)?, &out_name, out, xz)?;
                new_list.push_str(&out_name);
                new_list.push('\n');
            }
        }
    }
    Ok(new_list)
}

/// Streams one kernel from `input` to `out` as a version-5 trace.
fn convert_kernel(file: &str, input: impl Read, out_name: &str, out: Box<dyn Write>, xz: bool) -> Result<(), LabError> {
    let mut reader = KernelReader::new(file, decompressed(file, input)?)?;
    if xz {
        let mut compressed = XzTraceWriter::new(out, 1).map_err(write_error(out_name))?;
        copy_kernel(&mut reader, &mut compressed, out_name)?;
        compressed.finish().and_then(|mut out| out.flush()).map_err(write_error(out_name))
    } else {
        let mut out = out;
        copy_kernel(&mut reader, &mut out, out_name)?;
        out.flush().map_err(write_error(out_name))
    }
}

fn copy_kernel(reader: &mut KernelReader<impl BufRead>, out: &mut impl Write, out_name: &str) -> Result<(), LabError> {
    write_header(out, reader.header()).map_err(write_error(out_name))?;
    let mut cta = Cta::default();
    while reader.next_cta(&mut cta)? {
        write_cta(out, &cta, reader.opcodes()).map_err(write_error(out_name))?;
    }
    Ok(())
}
