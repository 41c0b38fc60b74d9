//! A generated workload: the commands an application issues (copies and
//! kernel launches), with each kernel's CTAs produced on demand.

use std::io::{self, Write};
use std::sync::Arc;

use warplab_trace::{Cta, Dim3, KernelHeader, OpcodeTable, SummaryBuilder, WRITTEN_TRACER_VERSION, XzTraceWriter};

use crate::code::Code;
use crate::device::{DeviceMemory, LOCAL_BASE, SHMEM_BASE};
use crate::generators::grid_x;
use crate::spec::GenError;

/// What a kernel does for one CTA: appends the instruction streams of its
/// warps. Implementations hold the listing's ops and the algorithm's data
/// (read-only), so any CTA can be produced in any order.
pub trait CtaBody: Send + Sync {
    /// Writes CTA `index` (its linear index in the grid, x fastest) into
    /// `cta`, which arrives empty with its `id` set.
    fn fill(&self, index: u64, cta: &mut Cta);
}

/// The body of a kernel launched several times ([`Kernel::repeated`]).
struct Shared(Arc<dyn CtaBody>);

impl CtaBody for Shared {
    fn fill(&self, index: u64, cta: &mut Cta) {
        self.0.fill(index, cta);
    }
}

/// One generated kernel launch.
pub struct Kernel {
    header: KernelHeader,
    opcodes: OpcodeTable,
    body: Box<dyn CtaBody>,
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel").field("header", &self.header).finish_non_exhaustive()
    }
}

/// How a kernel is launched: its name, grid and CTA shape, and its static
/// shared memory.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The mangled kernel name, as `nvcc` would emit it.
    pub name: &'static str,
    /// Grid dimensions in CTAs.
    pub grid: Dim3,
    /// CTA dimensions in threads.
    pub block: Dim3,
    /// Shared memory per CTA in bytes.
    pub shmem_bytes: u32,
}

impl Launch {
    /// A one-dimensional launch: `ctas` CTAs of `block` threads in x.
    ///
    /// # Errors
    /// More CTAs than CUDA's grid limit.
    pub fn linear(name: &'static str, ctas: u64, block: u64, shmem_bytes: u32) -> Result<Launch, GenError> {
        let (grid, block) = (Dim3 { x: grid_x(ctas)?, y: 1, z: 1 }, Dim3 { x: block as u32, y: 1, z: 1 });
        Ok(Launch { name, grid, block, shmem_bytes })
    }
}

/// The header warplab writes for a kernel it made (a generator's or a
/// compiled one): launch id 0, the launch's `(grid, block, shared bytes)`,
/// `nregs` registers per thread, the address-space bases every generated
/// kernel uses, and the tracer version the writer writes.
pub fn written_header(
    name: String,
    (grid, block, shmem_bytes): (Dim3, Dim3, u32),
    nregs: u32,
    binary_version: u32,
) -> KernelHeader {
    KernelHeader {
        name,
        id: 0,
        grid,
        block,
        shmem_bytes,
        nregs,
        binary_version,
        stream_id: 0,
        shmem_base: SHMEM_BASE,
        local_base: LOCAL_BASE,
        nvbit_version: "warplab".to_owned(),
        tracer_version: WRITTEN_TRACER_VERSION,
        line_info: false,
        other: Vec::new(),
    }
}

impl Kernel {
    /// A kernel running `body` over the listing `code`. Registers per thread
    /// are the highest register the listing names, plus one.
    pub fn new(launch: Launch, code: &Code, body: impl CtaBody + 'static) -> Kernel {
        let shape = (launch.grid, launch.block, launch.shmem_bytes);
        let header = written_header(launch.name.to_owned(), shape, code.registers_per_thread(), code.binary_version());
        Kernel { header, opcodes: code.opcodes().clone(), body: Box::new(body) }
    }

    /// A kernel whose caller wrote its header (a compiled kernel names itself
    /// and counts its own registers) running `body` over `opcodes`.
    pub fn with_header(header: KernelHeader, opcodes: OpcodeTable, body: Box<dyn CtaBody>) -> Kernel {
        Kernel { header, opcodes, body }
    }

    /// `launches` launches of one kernel in a row, each running `body` (shared
    /// rather than copied, so every launch produces the same CTAs). Ids are
    /// given by [`Workload::new`].
    pub(crate) fn repeated(launch: &Launch, code: &Code, body: impl CtaBody + 'static, launches: u64) -> Vec<Kernel> {
        let body: Arc<dyn CtaBody> = Arc::new(body);
        (0..launches).map(|_| Kernel::new(launch.clone(), code, Shared(Arc::clone(&body)))).collect()
    }

    /// The header a trace of this kernel carries.
    pub fn header(&self) -> &KernelHeader {
        &self.header
    }

    /// The opcode table the kernel's instructions are interned in.
    pub fn opcodes(&self) -> &OpcodeTable {
        &self.opcodes
    }

    /// CTAs in the grid.
    pub fn cta_count(&self) -> u64 {
        self.header.grid.size()
    }

    /// Writes CTA `index` (linear, x fastest) into `cta`, reusing its buffers.
    pub fn fill_cta(&self, index: u64, cta: &mut Cta) {
        cta.clear();
        let grid = self.header.grid;
        let (x, y) = (u64::from(grid.x.max(1)), u64::from(grid.y.max(1)));
        cta.id = Dim3 { x: (index % x) as u32, y: (index / x % y) as u32, z: (index / (x * y)) as u32 };
        self.body.fill(index, cta);
    }

    /// Every CTA in launch order, one at a time through `visit`.
    pub fn for_each_cta(&self, mut visit: impl FnMut(&Cta)) {
        let mut cta = Cta::default();
        for index in 0..self.cta_count() {
            self.fill_cta(index, &mut cta);
            visit(&cta);
        }
    }

    /// The summary `warplab info` prints for the kernel.
    pub fn summary(&self) -> warplab_trace::KernelSummary {
        let mut builder = SummaryBuilder::new(&self.header);
        self.for_each_cta(|cta| builder.add_cta(cta, &self.opcodes));
        builder.finish(&[])
    }

    fn write_trace(&self, out: &mut impl Write) -> io::Result<()> {
        warplab_trace::write_header(out, &self.header)?;
        let mut result = Ok(());
        self.for_each_cta(|cta| {
            if result.is_ok() {
                result = warplab_trace::write_cta(out, cta, &self.opcodes);
            }
        });
        result
    }
}

/// One command of a generated application.
#[derive(Debug)]
pub enum Command {
    /// A host-to-device copy.
    MemcpyHtoD {
        /// Destination device address.
        addr: u64,
        /// Bytes copied.
        bytes: u64,
    },
    /// A kernel launch (boxed: a kernel carries its opcode table).
    Kernel(Box<Kernel>),
}

/// A generated application: copies and launches in issue order.
#[derive(Debug)]
pub struct Workload {
    /// The spec that produced it, in canonical form (`strided:gs=32,size=4`).
    pub name: String,
    /// The commands, in order.
    pub commands: Vec<Command>,
}

impl Workload {
    /// A workload whose inputs are the arrays `memory` copied in, followed by
    /// `kernels` launched in order (ids 1, 2, ...).
    pub fn new(memory: &DeviceMemory, kernels: Vec<Kernel>) -> Workload {
        let copies = memory.copies().iter().map(|&(addr, bytes)| Command::MemcpyHtoD { addr, bytes });
        let launches = kernels.into_iter().enumerate().map(|(index, mut kernel)| {
            kernel.header.id = index as u64 + 1;
            Command::Kernel(Box::new(kernel))
        });
        Workload { name: String::new(), commands: copies.chain(launches).collect() }
    }

    /// The kernels, in launch order.
    pub fn kernels(&self) -> impl Iterator<Item = &Kernel> {
        self.commands.iter().filter_map(|command| match command {
            Command::Kernel(kernel) => Some(&**kernel),
            Command::MemcpyHtoD { .. } => None,
        })
    }

    /// Warp instructions, estimated without walking the workload: each
    /// kernel's first CTA times its CTA count. Exact for kernels whose CTAs
    /// all run the same path; a budget check before a full walk.
    pub fn estimated_warp_insts(&self) -> u64 {
        let mut cta = Cta::default();
        self.kernels().filter(|kernel| kernel.cta_count() > 0).fold(0, |total, kernel| {
            kernel.fill_cta(0, &mut cta);
            total.saturating_add((cta.instructions.len() as u64).saturating_mul(kernel.cta_count()))
        })
    }

    /// The file name kernel `id` is written to.
    pub fn kernel_file(id: u64, xz: bool) -> String {
        if xz { format!("kernel-{id}.traceg.xz") } else { format!("kernel-{id}.traceg") }
    }

    /// The text of `kernelslist.g`.
    pub fn kernel_list(&self, xz: bool) -> String {
        let mut list = String::new();
        for command in &self.commands {
            let line = match command {
                Command::MemcpyHtoD { addr, bytes } => {
                    warplab_trace::Command::MemcpyHtoD { addr: *addr, bytes: *bytes }
                }
                Command::Kernel(kernel) => {
                    warplab_trace::Command::Kernel { file: Self::kernel_file(kernel.header.id, xz) }
                }
            };
            list.push_str(&format!("{line}\n"));
        }
        list
    }

    /// Writes the workload as an Accel-Sim trace directory: `kernelslist.g`
    /// and one version-5 `.traceg` (or `.traceg.xz`) per kernel, each file
    /// made by `create(name)`.
    ///
    /// # Errors
    /// Creating or writing a file failed.
    pub fn write_trace<W: Write>(&self, xz: bool, mut create: impl FnMut(&str) -> io::Result<W>) -> io::Result<()> {
        create("kernelslist.g")?.write_all(self.kernel_list(xz).as_bytes())?;
        for kernel in self.kernels() {
            let out = create(&Self::kernel_file(kernel.header.id, xz))?;
            if xz {
                let mut buffered = io::BufWriter::new(XzTraceWriter::new(out, XZ_LEVEL)?);
                kernel.write_trace(&mut buffered)?;
                buffered.into_inner().map_err(io::IntoInnerError::into_error)?.finish()?.flush()?;
            } else {
                let mut out = io::BufWriter::new(out);
                kernel.write_trace(&mut out)?;
                out.flush()?;
            }
        }
        Ok(())
    }
}

/// The xz preset for written traces: 6 is `xz`'s own default.
const XZ_LEVEL: u32 = 6;
