//! Helpers the generators' unit tests share.

use std::cell::RefCell;
use std::collections::HashSet;
use std::io::{self, Write};

use warplab_trace::{Cta, Instruction, KernelHeader, SECTOR_BYTES};

use crate::{GenSpec, Kernel, Workload, generate};

/// Runs `spec` for the default preset (`SM7_QV100`).
pub(crate) fn run(spec: &str) -> Workload {
    let config = warplab_config::default_preset().config().expect("default preset reads");
    let spec: GenSpec = spec.parse().expect("test spec parses");
    generate(&spec, &config).expect("test spec generates")
}

/// Visits every instruction of `kernel` whose opcode starts with `prefix`,
/// with its CTA and its per-lane addresses.
pub(crate) fn for_each_op(kernel: &Kernel, prefix: &str, mut visit: impl FnMut(&Cta, &Instruction, Vec<u64>)) {
    kernel.for_each_cta(|cta| {
        for inst in &cta.instructions {
            if kernel.opcodes().info(inst.opcode).text.starts_with(prefix) {
                visit(cta, inst, cta.lane_addresses(inst).map(|(_, address)| address).collect());
            }
        }
    });
}

/// Distinct 32-byte sectors the `nth` dynamic instruction starting with
/// `prefix` (in the first kernel, first CTA) touches.
pub(crate) fn distinct_sectors(workload: &Workload, prefix: &str, nth: usize) -> usize {
    let kernel = workload.kernels().next().expect("a kernel");
    let mut cta = Cta::default();
    kernel.fill_cta(0, &mut cta);
    let inst = cta
        .instructions
        .iter()
        .filter(|inst| kernel.opcodes().info(inst.opcode).text.starts_with(prefix))
        .nth(nth)
        .expect("the instruction");
    cta.lane_addresses(inst).map(|(_, address)| address / SECTOR_BYTES).collect::<HashSet<_>>().len()
}

/// Checks the `launches` knob on `spec` (which has a `:`). With
/// `launches=1` the workload is the plain spec's, byte for byte and under the
/// same canonical name (share links keep their text). With `launches`
/// launches it is the same copies, once, then that many kernels in order,
/// each the single launch's header (but its id) and CTAs, so the thread
/// instructions are `launches` times the single launch's.
pub(crate) fn assert_launches_repeat(spec: &str, launches: u64) {
    let single = run(spec);
    let once = run(&format!("{spec},launches=1"));
    assert_eq!(once.name, single.name, "launches=1 is left out of the canonical spec");
    assert_eq!(trace_files(&once), trace_files(&single), "launches=1 writes the single launch's bytes");
    let repeated = run(&format!("{spec},launches={launches}"));
    let more = (2..=launches).map(|id| format!("{}\n", Workload::kernel_file(id, false)));
    assert_eq!(repeated.kernel_list(false), single.kernel_list(false) + &more.collect::<String>());
    let kernel = single.kernels().next().expect("the single launch");
    for (id, repeat) in (1..).zip(repeated.kernels()) {
        assert_eq!(repeat.header(), &KernelHeader { id, ..kernel.header().clone() });
        assert!(ctas(repeat) == ctas(kernel), "launch {id} runs the single launch's CTAs");
    }
    let thread_insts = |w: &Workload| w.kernels().map(|kernel| kernel.summary().thread_insts).sum::<u64>();
    assert_eq!(thread_insts(&repeated), launches * thread_insts(&single));
}

/// Every CTA of `kernel`, in launch order.
fn ctas(kernel: &Kernel) -> Vec<Cta> {
    let mut ctas = Vec::new();
    kernel.for_each_cta(|cta| ctas.push(cta.clone()));
    ctas
}

/// The files `workload` writes as an uncompressed trace directory, in the
/// order written, with their bytes.
fn trace_files(workload: &Workload) -> Vec<(String, Vec<u8>)> {
    let files = RefCell::new(Vec::new());
    let create = |name: &str| {
        files.borrow_mut().push((name.to_owned(), Vec::new()));
        Ok(LastFile(&files))
    };
    workload.write_trace(false, create).expect("writing to memory cannot fail");
    files.into_inner()
}

/// A writer appending to the last file created (files are written one after
/// another).
struct LastFile<'a>(&'a RefCell<Vec<(String, Vec<u8>)>>);

impl Write for LastFile<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().last_mut().expect("a file was created").1.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
