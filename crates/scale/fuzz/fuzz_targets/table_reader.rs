//! Fuzz target: `warplab_scale::fuzzing::table_reader` on arbitrary bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warplab_scale::fuzzing::table_reader(data);
});
