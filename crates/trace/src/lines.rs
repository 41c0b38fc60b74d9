//! Reading a text stream line by line into one reused buffer, with a bound on
//! line length and a running line number for error messages.

use std::io::{BufRead, Read};

use crate::ParseError;

/// The longest line the readers accept, in bytes. A mode-0 memory instruction
/// of a full warp with 64-bit addresses takes about 700 bytes, so this leaves a
/// wide margin while keeping a corrupt file from growing one line without end.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// A line source that never allocates once its buffer has grown to the longest line.
pub(crate) struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    /// 1-based number of the line last returned; 0 before the first.
    pub(crate) number: usize,
}

impl<R: BufRead> Lines<R> {
    pub(crate) fn new(reader: R) -> Self {
        Lines { reader, buf: Vec::with_capacity(256), number: 0 }
    }

    /// The next line without its line ending, with its 1-based number, or
    /// `None` at the end of input.
    pub(crate) fn next_line(&mut self, file: &str) -> Result<Option<(usize, &str)>, ParseError> {
        self.buf.clear();
        let limit = MAX_LINE_BYTES as u64 + 1;
        let read = (&mut self.reader).take(limit).read_until(b'\n', &mut self.buf);
        let n = read.map_err(|e| ParseError::new(file, self.number + 1, "line", format!("read failed: {e}")))?;
        if n == 0 {
            return Ok(None);
        }
        self.number += 1;
        if self.buf.len() > MAX_LINE_BYTES {
            return Err(ParseError::new(file, self.number, "line", format!("longer than {MAX_LINE_BYTES} bytes")));
        }
        let line = std::str::from_utf8(&self.buf)
            .map_err(|_| ParseError::new(file, self.number, "line", "not valid UTF-8"))?;
        Ok(Some((self.number, line.trim_end_matches(['\n', '\r']))))
    }
}
