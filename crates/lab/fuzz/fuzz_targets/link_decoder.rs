//! Fuzz target: `warplab_lab::fuzzing::link_decoder` on arbitrary bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warplab_lab::fuzzing::link_decoder(data);
});
