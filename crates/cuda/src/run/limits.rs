//! What a launch may ask of the GPU, checked as the CUDA runtime checks it
//! before a kernel runs, with its error names.

use super::RunOptions;
use crate::codegen::CompiledKernel;

/// CUDA's limits on a block's shape and a grid's.
const MAX_BLOCK: [u32; 3] = [1024, 1024, 64];
const MAX_BLOCK_THREADS: u64 = 1024;
const MAX_GRID: [u32; 3] = [i32::MAX as u32, 65_535, 65_535];

/// Checks a launch's shape and its shared-memory and register demand.
///
/// # Errors
/// What the runtime would refuse, in its words.
pub(crate) fn check_launch(
    kernel: &CompiledKernel,
    grid: [u32; 3],
    block: [u32; 3],
    shared_bytes: u32,
    options: &RunOptions,
) -> Result<(), String> {
    let name = &kernel.name;
    let threads: u64 = block.iter().map(|&d| u64::from(d)).product();
    if grid.contains(&0) || block.contains(&0) {
        return Err(format!("invalid configuration argument: launch of '{name}' with an empty grid or block"));
    }
    if threads > MAX_BLOCK_THREADS || block.iter().zip(MAX_BLOCK).any(|(&d, max)| d > max) {
        return Err(format!(
            "invalid configuration argument: a block of {}x{}x{} threads for '{name}' (at most 1024 threads, \
             1024x1024x64)",
            block[0], block[1], block[2]
        ));
    }
    if grid.iter().zip(MAX_GRID).any(|(&d, max)| d > max) {
        return Err(format!(
            "invalid configuration argument: a grid of {}x{}x{} blocks for '{name}' (at most 2147483647x65535x65535)",
            grid[0], grid[1], grid[2]
        ));
    }
    if shared_bytes > options.shared_bytes_per_block {
        return Err(format!(
            "too many resources requested for launch: '{name}' needs {shared_bytes} bytes of shared memory per \
             block, more than the GPU's {}",
            options.shared_bytes_per_block
        ));
    }
    let registers = u64::from(kernel.registers.next_multiple_of(4)) * threads.next_multiple_of(32);
    if registers > u64::from(options.registers_per_block) {
        return Err(format!(
            "too many resources requested for launch: '{name}' needs {registers} registers per block \
             ({} per thread), more than the GPU's {}",
            kernel.registers, options.registers_per_block
        ));
    }
    Ok(())
}
