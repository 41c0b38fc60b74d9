//! `.xz` traces: decoding and encoding with a pure-Rust codec, so compressed
//! traces open in the browser too.

use std::io::{BufRead, BufReader, Read, Write};

use lzma_rust2::{XzOptions, XzReader, XzWriter};

/// The magic bytes that open every xz stream.
const XZ_MAGIC: [u8; 6] = [0xFD, b'7', b'z', b'X', b'Z', 0x00];

/// Whether `file` names an xz-compressed trace, by its extension.
pub fn is_xz_name(file: &str) -> bool {
    file.ends_with(".xz")
}

/// Whether `bytes` start like an xz stream.
pub fn is_xz_data(bytes: &[u8]) -> bool {
    bytes.starts_with(&XZ_MAGIC)
}

/// A buffered reader of the trace text in `reader`, decompressing when the
/// data is xz (by its magic bytes, so a misnamed file still opens). Several
/// concatenated xz streams are accepted, as `xz -dc` accepts them.
///
/// # Errors
/// Reading the first bytes failed.
pub fn open_trace<'a>(reader: impl Read + 'a) -> std::io::Result<Box<dyn BufRead + 'a>> {
    let mut buffered = BufReader::with_capacity(64 * 1024, reader);
    let xz = is_xz_data(buffered.fill_buf()?);
    Ok(if xz {
        Box::new(BufReader::with_capacity(64 * 1024, XzReader::new(buffered, true)))
    } else {
        Box::new(buffered)
    })
}

/// Compresses everything written to it as one xz stream (CRC64), like the
/// tracer's `xz -1`. Call [`XzTraceWriter::finish`] to write the stream's end.
pub struct XzTraceWriter<W: Write> {
    inner: XzWriter<W>,
}

impl<W: Write> XzTraceWriter<W> {
    /// An xz writer at preset `level` (0–9; the tracer uses 1).
    ///
    /// # Errors
    /// The codec refused the options.
    pub fn new(out: W, level: u32) -> std::io::Result<Self> {
        Ok(XzTraceWriter { inner: XzWriter::new(out, XzOptions::with_preset(level.min(9)))? })
    }

    /// Ends the stream and returns the underlying writer.
    ///
    /// # Errors
    /// Writing the stream's end failed.
    pub fn finish(self) -> std::io::Result<W> {
        self.inner.finish()
    }
}

impl<W: Write> Write for XzTraceWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.inner.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}
