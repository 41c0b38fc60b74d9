//! The one error type of the trace readers: where the input was malformed and how.

use std::fmt;

/// A malformed line in a trace file, located by file name, line and field.
///
/// The message reads `file:line: field: what was expected`, so a user can open
/// the file at the offending line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseError {
    /// The file name as the caller gave it (a path or a bare file name).
    pub file: String,
    /// 1-based line number; 0 when the error concerns the file as a whole.
    pub line: usize,
    /// The field that was malformed, e.g. `mask` or `insts`.
    pub field: &'static str,
    /// What was expected, and what was found.
    pub message: String,
}

impl ParseError {
    /// An error at `line` of `file` in `field`.
    pub fn new(file: &str, line: usize, field: &'static str, message: impl Into<String>) -> Self {
        ParseError { file: file.to_owned(), line, field, message: message.into() }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}: {}", self.file, self.line, self.field, self.message)
    }
}

impl std::error::Error for ParseError {}
