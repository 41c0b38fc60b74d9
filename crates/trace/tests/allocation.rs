//! Reading allocates nothing per line: once the reader's line buffer and the
//! caller's CTA have grown, streaming further CTAs makes no allocation; nor
//! does reading a CTA into a buffer given room for one like it.
#![cfg(not(target_arch = "wasm32"))]
// Counting allocations needs a global allocator, which is unsafe to implement.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use warplab_trace::{Cta, KernelReader};

struct CountingAllocator;

thread_local! {
    /// This thread's allocations: the test harness allocates on its own
    /// threads while a test runs.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count_one() {
    // Not during a thread's teardown, when its counter may be gone.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

// SAFETY: forwards to the system allocator unchanged; only counts calls.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above, with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
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
    let before = allocations();
    let mut ctas = 0;
    while reader.next_cta(&mut cta).expect("parses") {
        ctas += 1;
    }
    let allocations = allocations() - before;
    assert_eq!(ctas, 192);
    assert_eq!(allocations, 0, "{allocations} allocations while reading {ctas} CTAs");
}

#[test]
fn a_buffer_given_room_for_a_cta_reads_a_like_one_without_growing() {
    let text = include_bytes!("../test_data/vectorAdd-sm80-a100-v5/kernel-1.traceg");
    let mut reader = KernelReader::new("kernel-1.traceg", &text[..]).expect("header");
    let mut first = Cta::default();
    assert!(reader.next_cta(&mut first).expect("parses"));
    // The reader's own buffers grow on the first CTA; the second is like it.
    let mut warm = Cta::default();
    assert!(reader.next_cta(&mut warm).expect("parses"));
    let mut cta = Cta::default();
    cta.reserve_for(first.sizes());
    let before = allocations();
    assert!(reader.next_cta(&mut cta).expect("parses"));
    let allocations = allocations() - before;
    assert_eq!(cta.sizes(), first.sizes(), "the test needs CTAs of one size");
    assert_eq!(allocations, 0, "{allocations} allocations reading into a buffer with room");
    // Room is never taken away: a buffer that holds more keeps what it has.
    let held = cta.instructions.capacity();
    cta.reserve_for(Default::default());
    assert_eq!(cta.instructions.capacity(), held);
}
