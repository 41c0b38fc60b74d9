//! Device memory as a generator sees it: `cudaMalloc`-style allocations at
//! realistic 64-bit addresses, and the host-to-device copies that fill them.

/// Where the first allocation lands: the range the CUDA driver hands out on
/// Linux (the anchors' arrays are at `0x7f..`).
const HEAP_BASE: u64 = 0x0000_7f10_0000_0000;
/// `cudaMalloc` aligns every allocation to 256 bytes; we align to 4 KiB pages
/// so that two arrays never share a DRAM row or cache set by accident of
/// placement, and the layout is easy to read in a trace.
const ALLOCATION_ALIGN: u64 = 4096;

/// The shared-memory window base written into generated headers.
pub const SHMEM_BASE: u64 = 0x0000_7f00_0000_0000;
/// The local-memory window base written into generated headers.
pub const LOCAL_BASE: u64 = 0x0000_7f00_0100_0000;

/// A typed array in device memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Array {
    /// Address of element 0.
    pub base: u64,
    /// Bytes per element.
    pub elem_bytes: u64,
    /// Number of elements.
    pub len: u64,
}

impl Array {
    /// The address of element `index`.
    pub fn at(&self, index: u64) -> u64 {
        self.base + index * self.elem_bytes
    }

    /// Size in bytes.
    pub fn bytes(&self) -> u64 {
        self.len * self.elem_bytes
    }
}

/// A bump allocator over the device heap, remembering which arrays the host
/// initializes (they become `MemcpyHtoD` commands).
#[derive(Debug, Clone)]
pub struct DeviceMemory {
    next: u64,
    copies: Vec<(u64, u64)>,
}

impl Default for DeviceMemory {
    fn default() -> Self {
        DeviceMemory { next: HEAP_BASE, copies: Vec::new() }
    }
}

impl DeviceMemory {
    /// Allocates `len` elements of `elem_bytes` bytes, uninitialized (output
    /// or scratch arrays).
    pub fn alloc(&mut self, len: u64, elem_bytes: u64) -> Array {
        let array = Array { base: self.next, elem_bytes, len };
        let bytes = array.bytes().max(1);
        self.next += bytes.div_ceil(ALLOCATION_ALIGN) * ALLOCATION_ALIGN;
        array
    }

    /// Allocates an array the host fills before the first kernel.
    pub fn input(&mut self, len: u64, elem_bytes: u64) -> Array {
        let array = self.alloc(len, elem_bytes);
        self.copies.push((array.base, array.bytes()));
        array
    }

    /// The host-to-device copies, as `(address, bytes)`, in allocation order.
    pub fn copies(&self) -> &[(u64, u64)] {
        &self.copies
    }
}
