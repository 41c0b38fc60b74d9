//! The body of the `parse_check` fuzz target in `crates/cuda/fuzz/`, here so
//! that the fuzzer and the test that replays its corpus run the same code.
//! It runs the whole compiler: parser, checker, code generator, register
//! allocator and reconvergence analysis.

use crate::{CheckOptions, compile};

/// Parses, checks and compiles `bytes` as a `.cu` file. It must give a program or one
/// located error, never a panic. Returns whether the program was accepted.
///
/// # Panics
/// When an error's location falls outside the source: that is the fuzzer's
/// finding.
pub fn parse_check(bytes: &[u8]) -> bool {
    let source = String::from_utf8_lossy(bytes);
    let options = CheckOptions { shared_bytes_per_block: 48 * 1024 };
    match compile("fuzz.cu", &source, &options) {
        Ok(_) => true,
        Err(error) => {
            let lines = source.split('\n').count();
            assert!(error.line >= 1 && error.line as usize <= lines, "line {} of {lines}: {error}", error.line);
            assert!(!error.message.contains('\n'), "one-line messages: {error}");
            assert!(error.span.end as usize <= source.len(), "span past the end: {error:?}");
            let _ = error.to_string();
            false
        }
    }
}
