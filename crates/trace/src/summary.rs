//! A one-pass summary of a kernel trace: its name, shape and instruction counts.

use std::io::{BufRead, Read};

use serde::{Deserialize, Serialize};

use crate::ParseError;

/// The longest line the reader accepts, in bytes. A mode-0 memory instruction
/// of a full warp with 64-bit addresses takes about 700 bytes, so this leaves a
/// wide margin while keeping a corrupt file from growing one line without end.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Grid or block dimensions, `(x, y, z)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Dim3 {
    /// Extent in x.
    pub x: u32,
    /// Extent in y.
    pub y: u32,
    /// Extent in z.
    pub z: u32,
}

/// What one pass over a `.traceg` file tells about the kernel.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct KernelSummary {
    /// The (mangled) kernel name from `-kernel name`.
    pub name: String,
    /// Grid dimensions in CTAs.
    pub grid: Dim3,
    /// CTA dimensions in threads.
    pub block: Dim3,
    /// The `-accelsim tracer version`; 0 when the header has none (pre-v3 traces).
    pub tracer_version: u32,
    /// CTAs (thread blocks) in the trace.
    pub ctas: u64,
    /// Warps in the trace.
    pub warps: u64,
    /// Warp instructions: instruction lines.
    pub warp_instructions: u64,
    /// Thread instructions: the sum of the active-mask popcounts.
    pub thread_instructions: u64,
}

impl KernelSummary {
    /// Reads the trace `file` from `reader` in one streaming pass.
    ///
    /// # Errors
    /// The first malformed line: a header value that does not parse, an
    /// instruction line outside a warp, a mask that is not 8 hex digits, a warp
    /// with fewer or more lines than its `insts =` count, a CTA left open at the
    /// end of the file, a line over [`MAX_LINE_BYTES`] or not UTF-8.
    pub fn read(file: &str, reader: impl BufRead) -> Result<KernelSummary, ParseError> {
        let mut scan =
            Scan { file, summary: KernelSummary::default(), layout: Layout::default(), in_cta: false, pending: 0 };
        let mut lines = Lines { reader, buf: Vec::new(), number: 0 };
        while let Some((number, line)) = lines.next_line(file)? {
            scan.line(number, line.trim())?;
        }
        scan.finish(lines.number)
    }
}

/// Reads lines into one reused buffer, bounded by [`MAX_LINE_BYTES`].
struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    number: usize,
}

impl<R: BufRead> Lines<R> {
    fn next_line(&mut self, file: &str) -> Result<Option<(usize, &str)>, ParseError> {
        self.buf.clear();
        self.number += 1;
        let limit = MAX_LINE_BYTES as u64 + 1;
        let read = (&mut self.reader).take(limit).read_until(b'\n', &mut self.buf);
        let n = read.map_err(|e| ParseError::new(file, self.number, "line", format!("read failed: {e}")))?;
        if n == 0 {
            self.number -= 1;
            return Ok(None);
        }
        if self.buf.len() > MAX_LINE_BYTES {
            return Err(ParseError::new(file, self.number, "line", format!("longer than {MAX_LINE_BYTES} bytes")));
        }
        std::str::from_utf8(&self.buf)
            .map(|line| Some((self.number, line)))
            .map_err(|_| ParseError::new(file, self.number, "line", "not valid UTF-8"))
    }
}

/// Where the active mask sits in an instruction line, which depends on the
/// tracer version and on `-enable lineinfo`.
#[derive(Debug, Clone, Copy, Default)]
struct Layout {
    tracer_version: u32,
    line_info: bool,
}

impl Layout {
    fn mask_field(self) -> usize {
        if self.tracer_version < 3 {
            // Pre-v3 lines start with `tb_x tb_y tb_z warp_id PC mask`.
            5
        } else if self.line_info {
            // `line PC mask`.
            2
        } else {
            // `PC mask`.
            1
        }
    }
}

struct Scan<'f> {
    file: &'f str,
    summary: KernelSummary,
    layout: Layout,
    in_cta: bool,
    /// Instruction lines still owed to the current warp.
    pending: u64,
}

impl Scan<'_> {
    fn line(&mut self, number: usize, line: &str) -> Result<(), ParseError> {
        if line.is_empty() {
            return Ok(());
        }
        if self.pending > 0 {
            return self.instruction(number, line);
        }
        match line {
            "#BEGIN_TB" if self.in_cta => {
                Err(self.error(number, "#BEGIN_TB", "a CTA began before the previous one ended"))
            }
            "#BEGIN_TB" => {
                self.in_cta = true;
                self.summary.ctas += 1;
                Ok(())
            }
            "#END_TB" if !self.in_cta => Err(self.error(number, "#END_TB", "no CTA is open")),
            "#END_TB" => {
                self.in_cta = false;
                Ok(())
            }
            _ if line.starts_with('#') => Ok(()),
            _ if line.starts_with('-') => self.header(number, line),
            _ => self.body(number, line),
        }
    }

    fn header(&mut self, number: usize, line: &str) -> Result<(), ParseError> {
        let (key, value) = split_assignment(&line[1..]);
        match key {
            "kernel name" => self.summary.name = value.to_owned(),
            "grid dim" => self.summary.grid = self.dim3(number, "grid dim", value)?,
            "block dim" => self.summary.block = self.dim3(number, "block dim", value)?,
            "accelsim tracer version" => {
                let version = self.number(number, "accelsim tracer version", value)?;
                self.layout.tracer_version = u32::try_from(version)
                    .map_err(|_| self.error(number, "accelsim tracer version", format!("`{value}` is too large")))?;
                self.summary.tracer_version = self.layout.tracer_version;
            }
            "enable lineinfo" => self.layout.line_info = self.number(number, "enable lineinfo", value)? != 0,
            // Other header keys are read by the full trace reader.
            _ => {}
        }
        Ok(())
    }

    fn body(&mut self, number: usize, line: &str) -> Result<(), ParseError> {
        let (key, value) = split_assignment(line);
        if !self.in_cta {
            return Err(self.error(number, "line", format!("expected `#BEGIN_TB` or a header line, found `{line}`")));
        }
        match key {
            "thread block" => Ok(()),
            "warp" => {
                self.number(number, "warp", value)?;
                self.summary.warps += 1;
                Ok(())
            }
            "insts" => {
                self.pending = self.number(number, "insts", value)?;
                Ok(())
            }
            _ => Err(self.error(number, "line", format!("expected `warp =`, `insts =` or `#END_TB`, found `{line}`"))),
        }
    }

    fn instruction(&mut self, number: usize, line: &str) -> Result<(), ParseError> {
        let field = self.layout.mask_field();
        let mask = line.split_ascii_whitespace().nth(field).unwrap_or("");
        if mask.len() != 8 {
            return Err(self.error(
                number,
                "mask",
                format!("expected 8 hex digits, found `{mask}` (too few instruction lines for `insts`?)"),
            ));
        }
        let mask = u32::from_str_radix(mask, 16)
            .map_err(|_| self.error(number, "mask", format!("expected 8 hex digits, found `{mask}`")))?;
        self.summary.warp_instructions += 1;
        self.summary.thread_instructions += u64::from(mask.count_ones());
        self.pending -= 1;
        Ok(())
    }

    fn finish(self, last_line: usize) -> Result<KernelSummary, ParseError> {
        if self.pending > 0 {
            return Err(self.error(last_line, "insts", format!("file ended {} instruction lines early", self.pending)));
        }
        if self.in_cta {
            return Err(self.error(last_line, "#END_TB", "file ended inside a CTA"));
        }
        Ok(self.summary)
    }

    fn number(&self, number: usize, field: &'static str, value: &str) -> Result<u64, ParseError> {
        value.parse().map_err(|_| self.error(number, field, format!("expected a number, found `{value}`")))
    }

    fn dim3(&self, number: usize, field: &'static str, value: &str) -> Result<Dim3, ParseError> {
        let inner = value.trim().strip_prefix('(').and_then(|v| v.strip_suffix(')'));
        let mut parts = inner.unwrap_or("").split(',').map(|p| p.trim().parse::<u32>());
        match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(Ok(x)), Some(Ok(y)), Some(Ok(z)), None) => Ok(Dim3 { x, y, z }),
            _ => Err(self.error(number, field, format!("expected `(x,y,z)`, found `{value}`"))),
        }
    }

    fn error(&self, number: usize, field: &'static str, message: impl Into<String>) -> ParseError {
        ParseError::new(self.file, number, field, message)
    }
}

/// Splits `key = value` into trimmed halves; a line without `=` is all key.
fn split_assignment(line: &str) -> (&str, &str) {
    match line.split_once('=') {
        Some((key, value)) => (key.trim(), value.trim()),
        None => (line.trim(), ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expect: Result<(u64, u64, u64), &str>) {
        let got = KernelSummary::read("k.traceg", text.as_bytes())
            .map(|s| (s.warps, s.warp_instructions, s.thread_instructions))
            .map_err(|e| e.to_string());
        assert_eq!(got, expect.map_err(str::to_owned));
    }

    const HEADER: &str = "-kernel name = k\n-grid dim = (2,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 4\n";

    #[test]
    fn counts_warps_lines_and_active_threads() {
        let body = "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0008 0000000f 0 NOP 0 0\n\nwarp = 1\ninsts = 0\n#END_TB\n";
        check(&format!("{HEADER}{body}{body}"), Ok((4, 2, 8)));
    }

    #[test]
    fn line_info_and_pre_v3_layouts() {
        let line_info = "-accelsim tracer version = 4\n-enable lineinfo = 1\n#BEGIN_TB\nwarp = 0\ninsts = 1\n12 0008 000000ff 0 NOP 0 0\n#END_TB\n";
        check(line_info, Ok((1, 1, 8)));
        let pre_v3 = "-kernel name = k\n#BEGIN_TB\nwarp = 0\ninsts = 1\n0 0 0 0 0008 ffffffff 0 NOP 0 0\n#END_TB\n";
        check(pre_v3, Ok((1, 1, 32)));
    }

    #[test]
    fn malformed_lines_are_located() {
        check(
            &format!("{HEADER}#BEGIN_TB\nwarp = 0\ninsts = 1\n0008 zzzzzzzz 0 NOP 0 0\n"),
            Err("k.traceg:8: mask: expected 8 hex digits, found `zzzzzzzz`"),
        );
        check(
            &format!("{HEADER}#BEGIN_TB\nwarp = 0\ninsts = 2\n0008 ffffffff 0 NOP 0 0\n"),
            Err("k.traceg:8: insts: file ended 1 instruction lines early"),
        );
        check(
            &format!("{HEADER}#BEGIN_TB\nwarp = 0\ninsts = 0\n"),
            Err("k.traceg:7: #END_TB: file ended inside a CTA"),
        );
        check("-grid dim = (1,x,1)\n", Err("k.traceg:1: grid dim: expected `(x,y,z)`, found `(1,x,1)`"));
        check(
            "0008 ffffffff 0 NOP 0 0\n",
            Err("k.traceg:1: line: expected `#BEGIN_TB` or a header line, found `0008 ffffffff 0 NOP 0 0`"),
        );
        check("#END_TB\n", Err("k.traceg:1: #END_TB: no CTA is open"));
    }

    #[test]
    fn overlong_and_non_utf8_lines_are_errors() {
        let long = "x".repeat(MAX_LINE_BYTES + 10);
        check(&long, Err(&format!("k.traceg:1: line: longer than {MAX_LINE_BYTES} bytes")));
        let got = KernelSummary::read("k.traceg", &b"-kernel name = \xff\n"[..]).map_err(|e| e.to_string());
        assert_eq!(got, Err("k.traceg:1: line: not valid UTF-8".to_owned()));
    }
}
