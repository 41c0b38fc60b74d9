//! The functional memory image: the host's device arrays at the addresses
//! a `cudaMalloc` would give them, each a vector of 32-bit words.

use crate::types::Scalar;

/// Where the first array lands, as the CUDA driver places them on Linux
/// (the same base the generators use, so authored and generated workloads
/// map onto DRAM alike).
pub const HEAP_BASE: u64 = 0x0000_7f10_0000_0000;
/// Arrays are 4 KiB aligned, as the generators' are.
const ALIGN_BYTES: u64 = 4096;

/// One `device_array`.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceArray {
    /// The host variable it was first assigned to.
    pub name: String,
    /// Its element type.
    pub elem: Scalar,
    /// Element 0's address.
    pub base: u64,
    /// The elements' bits.
    pub words: Vec<u32>,
}

/// Why an access failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Miss {
    /// Outside every array: the nearest array and the element index the
    /// address would have in it.
    OutOfBounds {
        /// The nearest array.
        array: usize,
        /// The index relative to its first element (negative before it).
        index: i64,
    },
    /// Not a multiple of 4 bytes from an array's start.
    Misaligned,
}

/// Every array the host allocated, in allocation order (and so address order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeviceMemory {
    /// The arrays.
    pub arrays: Vec<DeviceArray>,
    next: u64,
}

impl DeviceMemory {
    /// Allocates an array of `words` and returns its index.
    pub fn allocate(&mut self, name: String, elem: Scalar, words: Vec<u32>) -> usize {
        if self.next == 0 {
            self.next = HEAP_BASE;
        }
        let bytes = (words.len() as u64 * 4).max(1);
        let base = self.next;
        self.next += bytes.div_ceil(ALIGN_BYTES) * ALIGN_BYTES;
        self.arrays.push(DeviceArray { name, elem, base, words });
        self.arrays.len() - 1
    }

    /// The array and word an address falls in.
    ///
    /// # Errors
    /// The address is in no array, or not on a word.
    pub fn locate(&self, address: u64) -> Result<(usize, usize), Miss> {
        let after = self.arrays.partition_point(|array| array.base <= address);
        if after > 0 {
            let array = &self.arrays[after - 1];
            let offset = address - array.base;
            if offset < array.words.len() as u64 * 4 {
                return if offset.is_multiple_of(4) {
                    Ok((after - 1, (offset / 4) as usize))
                } else {
                    Err(Miss::Misaligned)
                };
            }
        }
        Err(self.nearest(address))
    }

    /// The array an address outside every array most likely meant: the one
    /// whose end or start is closest.
    fn nearest(&self, address: u64) -> Miss {
        let distance = |array: &DeviceArray| {
            let end = array.base + array.words.len() as u64 * 4;
            if address >= end { address - end } else { array.base.saturating_sub(address) }
        };
        let array = (0..self.arrays.len()).min_by_key(|&i| distance(&self.arrays[i])).unwrap_or(0);
        let base = self.arrays.get(array).map_or(0, |a| a.base);
        let index = (i128::from(address) - i128::from(base)).div_euclid(4);
        Miss::OutOfBounds { array, index: index.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64 }
    }
}
