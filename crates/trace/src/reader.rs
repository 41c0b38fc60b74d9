//! Streaming a kernel trace CTA by CTA: the header once, then one [`Cta`] at a
//! time into a buffer the caller reuses, so memory is bounded by one CTA.

use std::io::BufRead;

use crate::line::{Layout, LineSink, parse_instruction};
use crate::lines::{Lines, as_text, is_trimmed, trimmed};
use crate::opcode::{Isa, OpcodeTable};
use crate::static_fields::StaticFieldsByPc;
use crate::{Cta, Diagnostic, KernelHeader, ParseError, WarpTrace};

/// At most this many warps per CTA (a CTA has at most 1,024 threads, 32 warps;
/// the margin admits wider future warps of the format).
pub const MAX_WARPS_PER_CTA: usize = 64;
/// At most this many instructions in one CTA (about 256 MiB of instruction
/// form); a larger CTA is refused rather than exhausting a browser tab.
pub const MAX_CTA_INSTRUCTIONS: usize = 1 << 22;

/// Reads one kernel's `.traceg` text from `R`.
pub struct KernelReader<R> {
    file: String,
    lines: Lines<R>,
    header: KernelHeader,
    layout: Layout,
    opcodes: OpcodeTable,
    static_fields: StaticFieldsByPc,
    diagnostics: Vec<Diagnostic>,
    /// The header ended on `#BEGIN_TB`, so the first CTA has begun.
    first_cta_begun: bool,
}

impl<R: BufRead> KernelReader<R> {
    /// Reads the header of the trace `file` (a name for messages) from `reader`.
    ///
    /// # Errors
    /// A malformed header value, or a read error.
    pub fn new(file: &str, reader: R) -> Result<Self, ParseError> {
        let mut lines = Lines::new(reader);
        let mut header = KernelHeader::default();
        let mut first_cta_begun = false;
        while let Some((number, line)) = lines.next_line(file)? {
            let line = line.trim();
            if let Some(rest) = line.strip_prefix('-') {
                header.apply(file, number, rest)?;
            } else if line.starts_with('#') {
                // The header ends at the first `#` line (the format comment or the first CTA).
                first_cta_begun = line == "#BEGIN_TB";
                break;
            } else if !line.is_empty() {
                return Err(ParseError::new(
                    file,
                    number,
                    "header",
                    format!("expected `-key = value`, found `{line}`"),
                ));
            }
        }
        let (isa, note) = Isa::for_binary_version(header.binary_version);
        let diagnostics =
            note.map(|note| Diagnostic::NearestOpcodeTable { file: file.to_owned(), note }).into_iter().collect();
        let layout = Layout {
            tracer_version: header.tracer_version,
            line_info: header.line_info,
            shmem_base: header.shmem_base,
            local_base: header.local_base,
        };
        Ok(KernelReader {
            file: file.to_owned(),
            lines,
            header,
            layout,
            opcodes: OpcodeTable::new(isa),
            static_fields: StaticFieldsByPc::new(),
            diagnostics,
            first_cta_begun,
        })
    }

    /// The kernel's header.
    pub fn header(&self) -> &KernelHeader {
        &self.header
    }

    /// The opcodes interned so far (all of the kernel's once it is read).
    pub fn opcodes(&self) -> &OpcodeTable {
        &self.opcodes
    }

    /// Diagnostics so far.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The trace file's name, as given.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Reads the next CTA into `cta` (cleared first). Returns `false` at the end
    /// of the trace.
    ///
    /// # Errors
    /// The first malformed line, located by file, line and field. The reader is
    /// not usable after an error.
    pub fn next_cta(&mut self, cta: &mut Cta) -> Result<bool, ParseError> {
        cta.clear();
        if !std::mem::take(&mut self.first_cta_begun) && !self.find_begin()? {
            return Ok(false);
        }
        let mut pending: u64 = 0;
        loop {
            let file = self.file.as_str();
            let Some((number, bytes)) = self.lines.next_line_bytes(file)? else {
                let field = if pending > 0 { "insts" } else { "#END_TB" };
                return Err(ParseError::new(file, self.lines.number, field, "the file ends inside a CTA"));
            };
            // Instruction lines are parsed as bytes, their UTF-8 checked as they
            // are read (see `line`); any other line is text first.
            let line = if is_trimmed(bytes) { bytes } else { trimmed(as_text(file, number, bytes)?).as_bytes() };
            if line.is_empty() {
                continue;
            }
            if pending > 0 && !line[0].is_ascii_hexdigit() {
                let warp = cta.warps.last().map_or(0, |w| w.warp_id);
                let line = as_text(file, number, line)?;
                let message = format!("warp {warp} ends {pending} lines before its `insts =` count, at `{line}`");
                return Err(ParseError::new(file, number, "insts", message));
            }
            if pending > 0 {
                let mut sink = LineSink {
                    opcodes: &mut self.opcodes,
                    diagnostics: &mut self.diagnostics,
                    pool: &mut cta.addresses,
                    static_fields: &mut self.static_fields,
                };
                // A line that is not UTF-8 never parses; that is its error, as for any other line.
                let instruction = parse_instruction(line, self.layout, &mut sink).map_err(|(field, message)| {
                    as_text(file, number, line).err().unwrap_or_else(|| ParseError::new(file, number, field, message))
                })?;
                cta.instructions.push(instruction);
                pending -= 1;
                continue;
            }
            let line = as_text(file, number, line)?;
            if line == "#END_TB" {
                return Ok(true);
            }
            body_line(file, number, line, cta, &mut pending)?;
        }
    }

    /// Skips blank and comment lines up to `#BEGIN_TB`; `false` at the end.
    fn find_begin(&mut self) -> Result<bool, ParseError> {
        let file = self.file.as_str();
        while let Some((number, line)) = self.lines.next_line(file)? {
            match line.trim() {
                "#BEGIN_TB" => return Ok(true),
                "#END_TB" => return Err(ParseError::new(file, number, "#END_TB", "no CTA is open")),
                "" => {}
                other if other.starts_with('#') => {}
                other => {
                    let message = format!("expected `#BEGIN_TB`, found `{other}`");
                    return Err(ParseError::new(file, number, "#BEGIN_TB", message));
                }
            }
        }
        Ok(false)
    }
}

/// A non-instruction line inside a CTA: `thread block =`, `warp =`, `insts =`,
/// or the cluster lines of newer tracers.
fn body_line(file: &str, number: usize, line: &str, cta: &mut Cta, pending: &mut u64) -> Result<(), ParseError> {
    let (key, value) = line.split_once('=').map_or((line, ""), |(k, v)| (k.trim(), v.trim()));
    let error = |field: &'static str, message: String| ParseError::new(file, number, field, message);
    match key {
        "thread block" => {
            cta.id = crate::header::parse_triple(value)
                .ok_or_else(|| error("thread block", format!("expected `x,y,z`, found `{value}`")))?;
        }
        "warp" => {
            let warp_id: u32 =
                value.parse().map_err(|_| error("warp", format!("expected a number, found `{value}`")))?;
            if cta.warps.len() >= MAX_WARPS_PER_CTA {
                return Err(error("warp", format!("more than {MAX_WARPS_PER_CTA} warps in one CTA")));
            }
            let first = cta.instructions.len() as u32;
            cta.warps.push(WarpTrace { warp_id, first, len: 0 });
        }
        "insts" => {
            let count: u64 =
                value.parse().map_err(|_| error("insts", format!("expected a number, found `{value}`")))?;
            let Some(warp) = cta.warps.last_mut() else {
                return Err(error("insts", "`insts =` before any `warp =`".to_owned()));
            };
            if warp.len > 0 || warp.first as usize != cta.instructions.len() {
                return Err(error("insts", format!("a second `insts =` for warp {}", warp.warp_id)));
            }
            if cta.instructions.len() as u64 + count > MAX_CTA_INSTRUCTIONS as u64 {
                return Err(error("insts", format!("more than {MAX_CTA_INSTRUCTIONS} instructions in one CTA")));
            }
            warp.len = count as u32;
            *pending = count;
        }
        "cluster id" | "cluster cta" | "cluster rank" => {}
        "#BEGIN_TB" => return Err(error("#BEGIN_TB", "a CTA began before the previous one ended".to_owned())),
        _ if line.starts_with('#') => {}
        _ => {
            let message = format!("expected `warp =`, `insts =` or `#END_TB`, found `{line}`");
            return Err(error("line", message));
        }
    }
    Ok(())
}
