//! The bodies of the fuzz targets in `crates/trace/fuzz/`, here so that the
//! fuzzers and the ordinary tests that replay their corpora run the same code.
//! Each takes arbitrary bytes and must return without panicking.

use crate::{Cta, KernelReader, open_trace};

/// Reads `bytes` as a whole `.traceg` file (plain or xz), to the end or the first error.
pub fn kernel(bytes: &[u8]) {
    let Ok(reader) = open_trace(bytes) else { return };
    let Ok(mut kernel) = KernelReader::new("fuzz.traceg", reader) else { return };
    let mut cta = Cta::default();
    while let Ok(true) = kernel.next_cta(&mut cta) {
        // Touch every address, as a model would.
        for inst in &cta.instructions {
            cta.lane_addresses(inst).for_each(drop);
        }
    }
}

/// Parses `bytes` as one instruction line, in each line layout.
pub fn line(bytes: &[u8]) {
    let Ok(line) = std::str::from_utf8(bytes) else { return };
    if line.contains('\n') {
        return;
    }
    for header in
        ["-accelsim tracer version = 5", "-accelsim tracer version = 4\n-enable lineinfo = 1", "-kernel name = old"]
    {
        let trace = format!("{header}\n#BEGIN_TB\nwarp = 0\ninsts = 1\n{line}\n#END_TB\n");
        kernel(trace.as_bytes());
    }
}

/// Feeds `bytes` to the xz decoder (behind the xz magic, so the decoder, not
/// the plain-text path, sees them).
pub fn xz(bytes: &[u8]) {
    let mut stream = vec![0xFD, b'7', b'z', b'X', b'Z', 0x00];
    stream.extend_from_slice(bytes);
    kernel(&stream);
}
