//! The generators, one module per algorithm.

mod bandwidth;
mod bfs;
mod gemm;
mod histogram;
mod maxflops;
mod pchase;
mod prologue;
mod reduction;
mod sizing;
mod spmv;
mod stencil2d;
mod strided;
mod vecadd;

use crate::Generator;
use crate::spec::GenError;

/// Every generator, in the order the CLI and the web form list them.
pub const GENERATORS: &[Generator] = &[
    vecadd::GENERATOR,
    strided::GENERATOR,
    gemm::NAIVE,
    gemm::TILED,
    stencil2d::GENERATOR,
    reduction::GENERATOR,
    bfs::GENERATOR,
    spmv::GENERATOR,
    histogram::GENERATOR,
    pchase::L1,
    pchase::L2,
    pchase::DRAM,
    bandwidth::L1,
    bandwidth::L2,
    bandwidth::DRAM,
    maxflops::GENERATOR,
];

/// A grid's x extent, which CUDA caps at 2³¹ − 1 CTAs.
pub(crate) fn grid_x(ctas: u64) -> Result<u32, GenError> {
    u32::try_from(ctas)
        .ok()
        .filter(|&x| x < 1 << 31)
        .ok_or_else(|| GenError::Inconsistent(format!("{ctas} CTAs exceed CUDA's grid limit of 2^31 - 1")))
}
