//! Output files kept in memory: what a test or the browser gets instead of a
//! directory.

use std::cell::RefCell;
use std::io::{self, Write};
use std::rc::Rc;

/// A file's name and contents.
pub type NamedFile = (String, Vec<u8>);

/// Files written by name, in creation order.
#[derive(Debug, Clone, Default)]
pub struct MemoryFiles {
    files: Rc<RefCell<Vec<NamedFile>>>,
}

impl MemoryFiles {
    /// A new, empty file named `name`, to write into.
    pub fn create(&self, name: &str) -> Box<dyn Write> {
        let mut files = self.files.borrow_mut();
        files.push((name.to_owned(), Vec::new()));
        Box::new(MemoryFile { files: Rc::clone(&self.files), index: files.len() - 1 })
    }

    /// The files and their contents.
    pub fn into_files(self) -> Vec<NamedFile> {
        self.files.take()
    }
}

struct MemoryFile {
    files: Rc<RefCell<Vec<NamedFile>>>,
    index: usize,
}

impl Write for MemoryFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.files.borrow_mut()[self.index].1.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
