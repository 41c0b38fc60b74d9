//! Source spans and compile errors: where in the file something is, and the
//! `FILE:LINE:COL: error: message` report with the source line and a caret,
//! in clang's format, that the CLI prints and the editor marks.

use std::fmt;

/// A range of bytes in the source, `start..end`. Sources are at most
/// [`crate::MAX_SOURCE_BYTES`] long, so `u32` offsets always fit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// The first byte.
    pub start: u32,
    /// One past the last byte; equal to `start` for a point (a missing `;`).
    pub end: u32,
}

impl Span {
    /// The span from `start` to `end`.
    pub fn new(start: u32, end: u32) -> Span {
        Span { start, end }
    }

    /// An empty span at `offset`.
    pub fn point(offset: u32) -> Span {
        Span { start: offset, end: offset }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }
}

/// What kind of mistake an error reports, for callers that treat them
/// differently (the editor colours them; tests group them).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A malformed token or a grammar error.
    Syntax,
    /// A name that is not declared where it is used.
    UnknownName,
    /// Types that do not fit together, or a value used where it cannot be.
    Type,
    /// Valid CUDA C that this subset does not support, named as such.
    Unsupported,
    /// A source, nesting or shared-memory limit exceeded, or a run's
    /// instruction budget.
    Limit,
    /// A fault in the functional run: an out-of-bounds access or an integer
    /// division by zero.
    Fault,
}

/// One compile error, located as clang locates it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file name the caller gave.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, counted in bytes from the start of the line, as clang
    /// counts them (a tab is one column).
    pub column: u32,
    /// What went wrong, without a full stop.
    pub message: String,
    /// The kind of error.
    pub kind: ErrorKind,
    /// Where in the source, as byte offsets (the editor's marks).
    pub span: Span,
    /// The text of the line the error is on, without its line break.
    pub source_line: String,
}

impl Diagnostic {
    /// Locates `error` in `source`.
    pub(crate) fn new(file: &str, source: &str, error: Error) -> Diagnostic {
        let offset = (error.span.start as usize).min(source.len());
        // Offsets always fall on character boundaries (the lexer makes them),
        // but a caller-made span might not: step back to one.
        let offset = (0..=offset).rev().find(|&i| source.is_char_boundary(i)).unwrap_or(0);
        let line_start = source[..offset].rfind('\n').map_or(0, |i| i + 1);
        let line_end = source[offset..].find('\n').map_or(source.len(), |i| offset + i);
        let line = source[..offset].bytes().filter(|&b| b == b'\n').count() + 1;
        let source_line = source[line_start..line_end].trim_end_matches('\r').to_owned();
        Diagnostic {
            file: file.to_owned(),
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(offset - line_start + 1).unwrap_or(u32::MAX),
            message: error.message,
            kind: error.kind,
            span: error.span,
            source_line,
        }
    }

    /// The first line alone: `FILE:LINE:COL: error: message`.
    pub fn headline(&self) -> String {
        format!("{}:{}:{}: error: {}", self.file, self.line, self.column, self.message)
    }

    /// The caret line under [`Diagnostic::source_line`], with tabs expanded
    /// as the source line is printed (to 8-column stops, as clang prints).
    pub fn caret_line(&self) -> String {
        let mut caret = String::new();
        let before = self.source_line.len().min((self.column as usize).saturating_sub(1));
        let mut width = 0;
        for c in self.source_line.get(..before).unwrap_or(&self.source_line).chars() {
            width = if c == '\t' { (width / 8 + 1) * 8 } else { width + 1 };
        }
        caret.extend(std::iter::repeat_n(' ', width));
        caret.push('^');
        caret
    }

    fn printed_source_line(&self) -> String {
        let mut line = String::new();
        for c in self.source_line.chars() {
            if c == '\t' {
                let stop = (line.chars().count() / 8 + 1) * 8;
                while line.chars().count() < stop {
                    line.push(' ');
                }
            } else {
                line.push(c);
            }
        }
        line
    }
}

/// `FILE:LINE:COL: error: message`, then the source line and a caret line,
/// as clang prints it.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}\n{}\n{}", self.headline(), self.printed_source_line(), self.caret_line())
    }
}

impl std::error::Error for Diagnostic {}

/// An error before it is located: the lexer, parser and checker make these,
/// and [`Diagnostic::new`] turns one into lines and columns at the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Error {
    pub span: Span,
    pub kind: ErrorKind,
    pub message: String,
}

impl Error {
    pub fn syntax(span: Span, message: impl Into<String>) -> Error {
        Error { span, kind: ErrorKind::Syntax, message: message.into() }
    }

    pub fn unknown(span: Span, message: impl Into<String>) -> Error {
        Error { span, kind: ErrorKind::UnknownName, message: message.into() }
    }

    pub fn types(span: Span, message: impl Into<String>) -> Error {
        Error { span, kind: ErrorKind::Type, message: message.into() }
    }

    pub fn unsupported(span: Span, message: impl Into<String>) -> Error {
        Error { span, kind: ErrorKind::Unsupported, message: message.into() }
    }

    pub fn limit(span: Span, message: impl Into<String>) -> Error {
        Error { span, kind: ErrorKind::Limit, message: message.into() }
    }
}

/// The result type of every stage.
pub(crate) type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    fn check(source: &str, offset: u32, expect: &str) {
        let error = Error::syntax(Span::point(offset), "oops");
        assert_eq!(Diagnostic::new("k.cu", source, error).to_string(), expect);
    }

    #[test]
    fn locates_lines_and_columns_from_one() {
        check("int a;\nint b\n", 12, "k.cu:2:6: error: oops\nint b\n     ^");
        check("x", 0, "k.cu:1:1: error: oops\nx\n^");
    }

    #[test]
    fn a_tab_is_one_column_but_prints_to_the_next_stop() {
        check("\tx", 1, "k.cu:1:2: error: oops\n        x\n        ^");
    }

    #[test]
    fn the_end_of_a_file_is_after_its_last_line() {
        check("int a\n", 6, "k.cu:2:1: error: oops\n\n^");
    }
}
