//! Reading allocates nothing per line: once the reader's line buffer and the
//! caller's CTA have grown, streaming further CTAs makes no allocation.
#![cfg(not(target_arch = "wasm32"))]
// Counting allocations needs a global allocator, which is unsafe to implement.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use warplab_trace::{Cta, KernelReader};

struct CountingAllocator;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator unchanged; only counts calls.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above, with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[test]
fn streaming_ctas_allocates_nothing_after_warm_up() {
    let text = include_bytes!("../test_data/vectorAdd-sm80-a100-v5/kernel-1.traceg");
    let mut reader = KernelReader::new("kernel-1.traceg", &text[..]).expect("header");
    let mut cta = Cta::default();
    // Warm up: the first CTAs grow the buffers and intern every opcode.
    for _ in 0..4 {
        assert!(reader.next_cta(&mut cta).expect("parses"));
    }
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let mut ctas = 0;
    while reader.next_cta(&mut cta).expect("parses") {
        ctas += 1;
    }
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    assert_eq!(ctas, 192);
    assert_eq!(allocations, 0, "{allocations} allocations while reading {ctas} CTAs");
}
