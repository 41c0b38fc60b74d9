//! Helpers the generators' unit tests share.

use std::collections::HashSet;

use warplab_trace::{Cta, Instruction, SECTOR_BYTES};

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
