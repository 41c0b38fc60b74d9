//! Fuzz target: `warplab_cuda::fuzzing::parse_check` on arbitrary bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warplab_cuda::fuzzing::parse_check(data);
});
