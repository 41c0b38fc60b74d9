//! Fuzz target: `warplab_trace::fuzzing::xz` on arbitrary bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| warplab_trace::fuzzing::xz(data));
