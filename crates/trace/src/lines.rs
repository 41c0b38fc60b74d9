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
        let Some((number, bytes)) = self.next_line_bytes(file)? else { return Ok(None) };
        Ok(Some((number, as_text(file, number, bytes)?)))
    }

    /// [`Lines::next_line`] before the check that it is UTF-8, for a reader
    /// that checks as it parses.
    pub(crate) fn next_line_bytes(&mut self, file: &str) -> Result<Option<(usize, &[u8])>, ParseError> {
        self.buf.clear();
        let taken = self.take_buffered_line().map_err(|e| self.read_failed(file, &e))?;
        if !taken {
            self.read_line(file)?;
        }
        if self.buf.is_empty() {
            return Ok(None);
        }
        self.number += 1;
        if self.buf.len() > MAX_LINE_BYTES {
            return Err(ParseError::new(file, self.number, "line", format!("longer than {MAX_LINE_BYTES} bytes")));
        }
        let mut end = self.buf.len();
        while end > 0 && matches!(self.buf[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        Ok(Some((self.number, &self.buf[..end])))
    }

    /// Copies the next line into the buffer if the reader holds all of it,
    /// as most lines are: a search of the bytes at hand, without the general
    /// read's loop and length limit. `false` leaves the line to
    /// [`Lines::read_line`]. A failed read is the error the general read
    /// would have returned; an interrupted one is left to it, as it retries.
    fn take_buffered_line(&mut self) -> std::io::Result<bool> {
        let available = match self.reader.fill_buf() {
            Ok(available) => available,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => return Ok(false),
            Err(e) => return Err(e),
        };
        let Some(newline) = memchr::memchr(b'\n', available) else { return Ok(false) };
        if newline >= MAX_LINE_BYTES {
            return Ok(false);
        }
        self.buf.extend_from_slice(&available[..=newline]);
        self.reader.consume(newline + 1);
        Ok(true)
    }

    /// Reads the next line into the buffer, at most one byte past the
    /// longest line accepted; an empty buffer at the end of input.
    fn read_line(&mut self, file: &str) -> Result<(), ParseError> {
        let limit = MAX_LINE_BYTES as u64 + 1;
        let read = (&mut self.reader).take(limit).read_until(b'\n', &mut self.buf);
        read.map_err(|e| self.read_failed(file, &e))?;
        Ok(())
    }

    /// The error of a read that failed before the next line was whole.
    fn read_failed(&self, file: &str, e: &std::io::Error) -> ParseError {
        ParseError::new(file, self.number + 1, "line", format!("read failed: {e}"))
    }
}

/// Line `number` of `file` as text, or the error that it is not UTF-8.
/// Line endings are ASCII, so checking a line without its ending is the same.
pub(crate) fn as_text<'a>(file: &str, number: usize, line: &'a [u8]) -> Result<&'a str, ParseError> {
    std::str::from_utf8(line).map_err(|_| ParseError::new(file, number, "line", "not valid UTF-8"))
}

/// `line.trim()`, without the search when the line starts and ends with
/// characters that are not whitespace (as a trace's lines do).
pub(crate) fn trimmed(line: &str) -> &str {
    if is_trimmed(line.as_bytes()) { line } else { line.trim() }
}

/// Whether `line` starts and ends with ASCII characters that are not
/// whitespace, so that trimming it as text would leave it as it is.
pub(crate) fn is_trimmed(line: &[u8]) -> bool {
    let kept = |byte: &u8| byte.is_ascii() && !char::from(*byte).is_whitespace();
    line.first().is_some_and(kept) && line.last().is_some_and(kept)
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Read};

    use super::*;

    /// Every line as the reader gives it: (number, text) or the error's message.
    fn read_all(reader: impl BufRead) -> Vec<Result<(usize, String), String>> {
        let mut lines = Lines::new(reader);
        let mut out = Vec::new();
        loop {
            match lines.next_line("f") {
                Ok(Some((number, line))) => out.push(Ok((number, line.to_owned()))),
                Ok(None) => return out,
                Err(e) => {
                    out.push(Err(e.to_string()));
                    return out;
                }
            }
        }
    }

    /// The lines as a plain split gives them, for text within the limits.
    fn split(text: &str) -> Vec<Result<(usize, String), String>> {
        let lines = text.split_inclusive('\n').map(|line| line.trim_end_matches(['\n', '\r']).to_owned());
        lines.enumerate().map(|(i, line)| Ok((i + 1, line))).collect()
    }

    #[test]
    fn lines_that_straddle_the_readers_buffer_read_as_whole_ones() {
        let text = "0000 ffffffff 1 R1 MOV 0 0 0\r\n\nwarp = 1\r\r\nlast line without an end";
        for capacity in [1, 2, 3, 7, 16, 64, 4096] {
            assert_eq!(read_all(BufReader::with_capacity(capacity, text.as_bytes())), split(text), "{capacity}");
        }
    }

    #[test]
    fn the_line_limit_holds_wherever_the_line_ends() {
        let at_limit = format!("{}\n", "a".repeat(MAX_LINE_BYTES - 1));
        let past_limit = format!("{}\n", "a".repeat(MAX_LINE_BYTES));
        for capacity in [100, MAX_LINE_BYTES, 2 * MAX_LINE_BYTES + 10] {
            let read = read_all(BufReader::with_capacity(capacity, at_limit.as_bytes()));
            assert_eq!(read, split(&at_limit), "a line of the longest length, {capacity}");
            let read = read_all(BufReader::with_capacity(capacity, past_limit.as_bytes()));
            assert_eq!(read, [Err(format!("f:1: line: longer than {MAX_LINE_BYTES} bytes"))], "{capacity}");
        }
    }

    /// A reader whose reads fail, each with a new message, after `good`
    /// bytes; the first read is interrupted if `interrupt`.
    struct Failing {
        good: &'static [u8],
        interrupt: bool,
        failures: usize,
    }

    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if std::mem::take(&mut self.interrupt) {
                return Err(std::io::ErrorKind::Interrupted.into());
            }
            if !self.good.is_empty() {
                return self.good.read(buf);
            }
            self.failures += 1;
            Err(std::io::Error::other(format!("failure {}", self.failures)))
        }
    }

    #[test]
    fn a_failed_read_is_reported_once_and_an_interrupted_one_retried() {
        // The failure comes where the next line starts, or inside it.
        for (good, interrupt) in [(&b"one\n"[..], false), (b"one\n", true), (b"one\ntw", false)] {
            let reader = BufReader::new(Failing { good, interrupt, failures: 0 });
            let expected = [Ok((1, "one".to_owned())), Err("f:2: line: read failed: failure 1".to_owned())];
            assert_eq!(read_all(reader), expected, "{good:?}, interrupted first: {interrupt}");
        }
    }
}
