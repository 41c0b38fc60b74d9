//! Reading a `Blob` (a fetched file or one the user dropped) as a synchronous
//! `std::io::Read` stream, a slice at a time, inside the worker.
//!
//! `FileReaderSync` exists only in workers; it lets the trace readers, which
//! are synchronous, stream a file of any size with memory bounded by one slice.

use std::io::{self, Read};

use js_sys::Uint8Array;
use web_sys::{Blob, FileReaderSync};

use crate::fetch::js_message;

/// Bytes read from the blob per call into JavaScript.
const SLICE_BYTES: f64 = 1024.0 * 1024.0;

/// A `Read` over a `Blob`.
pub struct BlobReader {
    blob: Blob,
    reader: FileReaderSync,
    offset: f64,
}

impl BlobReader {
    /// A reader of `blob` from its start.
    ///
    /// # Errors
    /// Outside a worker (`FileReaderSync` is unavailable).
    pub fn new(blob: Blob) -> Result<Self, String> {
        let reader = FileReaderSync::new().map_err(|e| format!("reading files needs a worker: {}", js_message(&e)))?;
        Ok(BlobReader { blob, reader, offset: 0.0 })
    }
}

impl Read for BlobReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let size = self.blob.size();
        if self.offset >= size || buf.is_empty() {
            return Ok(0);
        }
        let end = (self.offset + SLICE_BYTES.min(buf.len() as f64)).min(size);
        let slice = self.blob.slice_with_f64_and_f64(self.offset, end).map_err(to_io)?;
        let buffer = self.reader.read_as_array_buffer(&slice).map_err(to_io)?;
        let bytes = Uint8Array::new(&buffer);
        let n = bytes.length() as usize;
        bytes.copy_to(&mut buf[..n]);
        self.offset += n as f64;
        Ok(n)
    }
}

fn to_io(error: wasm_bindgen::JsValue) -> io::Error {
    io::Error::other(js_message(&error))
}
