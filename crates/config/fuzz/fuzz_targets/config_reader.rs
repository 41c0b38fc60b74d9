//! Fuzz target: `warplab_config::fuzzing::config_reader` on arbitrary bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warplab_config::fuzzing::config_reader(data);
});
