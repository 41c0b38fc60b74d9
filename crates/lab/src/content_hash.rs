//! [`ContentHasher`]: the [`ContentHash`] of a set of files, fed in chunks,
//! so that the CLI (reading a directory) and the web worker (reading blobs in
//! 1-MiB slices) name the same files with the same hash.
//!
//! Definition (version 1 of the link format relies on it; never change it):
//! 64-bit FNV-1a (offset basis `0xcbf29ce484222325`, prime
//! `0x100000001b3`, one byte at a time) over one byte stream made of each
//! file in turn, files in ascending byte order of their names, each as
//!
//! ```text
//! name length (u64, little-endian) · name (UTF-8) · content length (u64, little-endian) · content
//! ```
//!
//! A name is the file's own name, without a directory (`kernelslist.g`,
//! `kernel-1.traceg.xz`). Which files count: for a trace, `kernelslist.g`
//! and every kernel file it names ([`trace_hash_files`]); for a config, the
//! files the config reader read ([`config_hash_files`]). Files the lab does
//! not read (a README, `.DS_Store`) are left out, so the hash does not
//! depend on what else sits in the folder.

use warplab_config::{ConfigFileKind, file_kind};

use crate::experiment::ContentHash;
use crate::workload::{LabError, kernel_files};

const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// Hashes files one after the other, each in as many chunks as convenient.
///
/// ```
/// use warplab_lab::{ContentHash, ContentHasher};
///
/// // A file fed in chunks hashes like the whole bytes, and a set of whole
/// // files hashes the same whatever order it came in.
/// let mut hasher = ContentHasher::new();
/// hasher.start_file("a.config", 5)?;
/// hasher.update(b"-x ")?;
/// hasher.update(b"1\n")?;
/// hasher.add_file("b.config", b"-y 2\n")?;
/// let files = [("b.config".to_owned(), b"-y 2\n".to_vec()), ("a.config".to_owned(), b"-x 1\n".to_vec())];
/// assert_eq!(hasher.finish()?, ContentHash::of_files(&files));
/// # Ok::<(), warplab_lab::LabError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ContentHasher {
    state: u64,
    /// The name of the file being hashed; `None` before the first.
    current: Option<String>,
    /// Bytes of the current file still to come.
    // Invariant: 0 whenever `current` is `None`.
    remaining: u64,
}

impl Default for ContentHasher {
    fn default() -> Self {
        Self::new()
    }
}

impl ContentHasher {
    /// A hasher that has seen no file.
    pub fn new() -> Self {
        ContentHasher { state: FNV_OFFSET_BASIS, current: None, remaining: 0 }
    }

    /// Starts the file `name` of `len` bytes; its bytes follow through
    /// [`ContentHasher::update`].
    ///
    /// # Errors
    /// The previous file is not complete, or `name` does not sort after it
    /// (files go in ascending byte order of their names, each once).
    pub fn start_file(&mut self, name: &str, len: u64) -> Result<(), LabError> {
        self.check_complete()?;
        if let Some(previous) = &self.current
            && previous.as_str() >= name
        {
            return Err(LabError::Hash(format!(
                "files must be hashed in name order, each once: `{name}` came after `{previous}`"
            )));
        }
        self.feed(&(name.len() as u64).to_le_bytes());
        self.feed(name.as_bytes());
        self.feed(&len.to_le_bytes());
        self.current = Some(name.to_owned());
        self.remaining = len;
        Ok(())
    }

    /// The next chunk of the current file.
    ///
    /// # Errors
    /// More bytes than the length the file was started with.
    pub fn update(&mut self, bytes: &[u8]) -> Result<(), LabError> {
        if bytes.len() as u64 > self.remaining {
            let name = self.current.as_deref().unwrap_or("(no file started)");
            return Err(LabError::Hash(format!("{name}: more bytes than the length it was started with")));
        }
        self.remaining -= bytes.len() as u64;
        self.feed(bytes);
        Ok(())
    }

    /// A whole file at once: [`ContentHasher::start_file`] then
    /// [`ContentHasher::update`].
    ///
    /// # Errors
    /// As [`ContentHasher::start_file`].
    pub fn add_file(&mut self, name: &str, bytes: &[u8]) -> Result<(), LabError> {
        self.start_file(name, bytes.len() as u64)?;
        self.update(bytes)
    }

    /// A file of `len` bytes streamed from `reader` in 1-MiB chunks (how the
    /// CLI hashes files on disk and the worker hashes blobs).
    ///
    /// # Errors
    /// As [`ContentHasher::start_file`] and [`ContentHasher::update`], and a
    /// read that fails (named with the file).
    pub fn add_reader(&mut self, name: &str, len: u64, reader: &mut dyn std::io::Read) -> Result<(), LabError> {
        self.start_file(name, len)?;
        let mut buffer = vec![0; 1 << 20];
        loop {
            let read = reader.read(&mut buffer).map_err(|e| LabError::Hash(format!("{name}: {e}")))?;
            if read == 0 {
                return Ok(());
            }
            self.update(&buffer[..read])?;
        }
    }

    /// The hash of every file fed.
    ///
    /// # Errors
    /// The last file is not complete.
    pub fn finish(self) -> Result<ContentHash, LabError> {
        self.check_complete()?;
        Ok(ContentHash(self.state))
    }

    fn check_complete(&self) -> Result<(), LabError> {
        match &self.current {
            Some(name) if self.remaining > 0 => {
                Err(LabError::Hash(format!("{name}: {} bytes short of the length it was started with", self.remaining)))
            }
            _ => Ok(()),
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.state = (self.state ^ u64::from(byte)).wrapping_mul(FNV_PRIME);
        }
    }
}

impl ContentHash {
    /// The hash of whole files given in any order (sorted here). Two files
    /// of the same name hash as the first.
    pub fn of_files(files: &[(String, Vec<u8>)]) -> ContentHash {
        let mut sorted: Vec<&(String, Vec<u8>)> = files.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        sorted.dedup_by(|a, b| a.0 == b.0);
        let mut hasher = ContentHasher::new();
        for (name, bytes) in sorted {
            // Sorted, unique and whole: neither call can fail.
            let _ = hasher.add_file(name, bytes);
        }
        ContentHash(hasher.state)
    }
}

/// The files a trace's hash covers, in hashing order: `kernelslist.g` and
/// every kernel file it names (each once).
///
/// # Errors
/// A malformed `kernelslist.g`.
pub fn trace_hash_files(list_text: &str) -> Result<Vec<String>, LabError> {
    let mut names = kernel_files(list_text)?;
    names.push("kernelslist.g".to_owned());
    names.sort();
    names.dedup();
    Ok(names)
}

/// The files a config's hash covers, in hashing order: of `names`, those the
/// config reader reads (option files and `.icnt` files), each once.
pub fn config_hash_files<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut names: Vec<&str> = names.into_iter().filter(|name| file_kind(name) != ConfigFileKind::Other).collect();
    names.sort_unstable();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streamed_file_hashes_like_the_whole_bytes() -> Result<(), LabError> {
        let bytes: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        let mut streamed = ContentHasher::new();
        streamed.add_reader("kernel-1.traceg", bytes.len() as u64, &mut bytes.as_slice())?;
        let mut whole = ContentHasher::new();
        whole.add_file("kernel-1.traceg", &bytes)?;
        assert_eq!(streamed.finish()?, whole.finish()?);
        let mut short = ContentHasher::new();
        short.add_reader("a", 10, &mut &b"12345"[..])?;
        assert!(short.finish().is_err(), "a reader that ends early leaves the file incomplete");
        Ok(())
    }

    #[test]
    fn empty_set_is_the_offset_basis_and_fnv_matches_its_reference() {
        assert_eq!(ContentHasher::new().finish().unwrap(), ContentHash(FNV_OFFSET_BASIS));
        // The FNV-1a 64 reference value of "a".
        let mut hasher = ContentHasher::new();
        hasher.feed(b"a");
        assert_eq!(hasher.state, 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn a_pinned_set_keeps_its_hash() {
        // Links carry this hash (checked against an independent Python
        // implementation of the definition): a change here breaks every shared link that
        // names a user's files.
        let files =
            [("kernelslist.g".to_owned(), b"kernel-1.traceg\n".to_vec()), ("kernel-1.traceg".to_owned(), vec![])];
        assert_eq!(String::from(ContentHash::of_files(&files)), "bb8f335d94361382");
    }

    #[test]
    fn misuse_is_an_error() {
        let mut hasher = ContentHasher::new();
        hasher.start_file("b", 2).unwrap();
        assert!(hasher.update(b"xyz").unwrap_err().to_string().contains("more bytes"));
        assert!(hasher.start_file("c", 0).unwrap_err().to_string().contains("2 bytes short"));
        hasher.update(b"xy").unwrap();
        assert!(hasher.start_file("a", 0).unwrap_err().to_string().contains("name order"));
        assert!(hasher.clone().start_file("b", 0).is_err());
        hasher.start_file("c", 1).unwrap();
        assert!(hasher.finish().is_err());
        assert!(ContentHasher::new().update(b"x").is_err());
    }

    #[test]
    fn which_files_count() {
        assert_eq!(
            trace_hash_files("MemcpyHtoD,0x1,4\nkernel-2.traceg\nkernel-1.traceg.xz\n").unwrap(),
            ["kernel-1.traceg.xz", "kernel-2.traceg", "kernelslist.g"]
        );
        assert_eq!(
            config_hash_files(["README.md", "gpgpusim.config", "trace.config", "config_volta_islip.icnt"]),
            ["config_volta_islip.icnt", "gpgpusim.config", "trace.config"]
        );
    }
}
