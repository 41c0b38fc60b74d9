//! Config errors: where a bad setting is (file and line), which option, what
//! value, and what was expected, as one line without a trailing full stop.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Where a setting was read: a file and a 1-based line, or GPGPU-Sim's
/// built-in default when the config did not set the option (line 0).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Location {
    /// The file name as the caller gave it.
    pub file: String,
    /// The 1-based line of the setting; 0 for a built-in default.
    pub line: u32,
}

/// Everything that makes a config unusable. Unknown options are not errors:
/// they are kept and reported (see [`crate::GpuConfig::unknown_options`]).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigError {
    /// A value the option cannot take (not a number, not 0 or 1, unknown policy).
    BadValue {
        /// Where the setting is.
        at: Location,
        /// The option, with its leading `-`.
        option: String,
        /// The offending value as written.
        value: String,
        /// What the option takes.
        expected: String,
    },
    /// One field of a compound value (cache string, DRAM timing, list) is wrong.
    BadField {
        /// Where the setting is.
        at: Location,
        /// The option, with its leading `-`.
        option: String,
        /// The whole value as written.
        value: String,
        /// The field within the value, e.g. `MSHR entries` or `tRCD`.
        field: String,
        /// What is wrong with it.
        expected: String,
    },
    /// A number outside the limits warplab documents (crate docs, "Limits").
    OutOfRange {
        /// Where the setting is.
        at: Location,
        /// The option, with its leading `-`.
        option: String,
        /// The offending value as written (or as computed, e.g. the SM count).
        value: String,
        /// The limit, e.g. `at most 1024 SMs`.
        limit: String,
    },
    /// Settings that are each valid but do not fit together.
    Inconsistent {
        /// Where the (last) setting involved is.
        at: Location,
        /// The option the rule is about.
        option: String,
        /// The offending value.
        value: String,
        /// The rule that is broken.
        rule: String,
    },
    /// A required value no file sets and that has no usable default.
    Missing {
        /// The files that were read, comma-separated.
        files: String,
        /// The option (or `.icnt` key) that is missing.
        option: String,
        /// What it is for.
        what: String,
    },
    /// A `"` that opens a value no later token closes.
    UnterminatedQuote {
        /// Where the quote opens.
        at: Location,
        /// The text from the quote to the end of the file (shortened).
        value: String,
    },
    /// A token where an option name (`-name`) was expected.
    ExpectedOption {
        /// Where the token is.
        at: Location,
        /// The token.
        value: String,
    },
    /// An option that takes a value ends the file.
    MissingValue {
        /// Where the option is.
        at: Location,
        /// The option, with its leading `-`.
        option: String,
    },
    /// A BookSim `.icnt` statement that is not `key = value;`.
    BadIcnt {
        /// Where the statement starts.
        at: Location,
        /// The statement or value as written.
        value: String,
        /// What was expected.
        expected: String,
    },
    /// No gpgpusim.config-format file was given.
    NoConfigFile {
        /// The file names that were given, comma-separated.
        files: String,
    },
    /// A scale factor that does not divide (or, scaling up, overflows) a shared count.
    ScaleFactor {
        /// The factor asked for.
        factor: u32,
        /// The option holding the count.
        option: String,
        /// The count before scaling.
        count: u32,
        /// Why the factor does not apply.
        reason: String,
    },
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 { write!(f, "{} (default)", self.file) } else { write!(f, "{}:{}", self.file, self.line) }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadValue { at, option, value, expected } => {
                write!(f, "{at}: {option}: expected {expected}, found `{value}`")
            }
            Self::BadField { at, option, value, field, expected } => {
                write!(f, "{at}: {option}: {field}: {expected} (in `{value}`)")
            }
            Self::OutOfRange { at, option, value, limit } => {
                write!(f, "{at}: {option}: {value} is out of range: {limit}")
            }
            Self::Inconsistent { at, option, value, rule } => write!(f, "{at}: {option}: `{value}`: {rule}"),
            Self::Missing { files, option, what } => write!(f, "{files}: {option}: missing: {what}"),
            Self::UnterminatedQuote { at, value } => write!(f, "{at}: unterminated quote in `{value}`"),
            Self::ExpectedOption { at, value } => {
                write!(f, "{at}: expected an option name starting with `-`, found `{value}`")
            }
            Self::MissingValue { at, option } => write!(f, "{at}: {option}: missing value at the end of the file"),
            Self::BadIcnt { at, value, expected } => write!(f, "{at}: expected {expected}, found `{value}`"),
            Self::NoConfigFile { files } => {
                write!(f, "no gpgpusim.config-format file among [{files}]: give gpgpusim.config or a *.config file")
            }
            Self::ScaleFactor { factor, option, count, reason } => {
                write!(f, "scale factor {factor}: {option} {count}: {reason}")
            }
        }
    }
}

impl std::error::Error for ConfigError {}

impl Location {
    /// A location inside a file.
    pub fn new(file: &str, line: u32) -> Self {
        Self { file: file.to_owned(), line }
    }

    /// The location of a GPGPU-Sim built-in default.
    pub(crate) fn default_value() -> Self {
        Self { file: "GPGPU-Sim".to_owned(), line: 0 }
    }
}

/// Shortens a value for an error message so that a message stays one line.
pub(crate) fn shorten(text: &str) -> String {
    const MAX_CHARS: usize = 80;
    let one_line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if one_line.chars().count() <= MAX_CHARS {
        one_line
    } else {
        let head: String = one_line.chars().take(MAX_CHARS).collect();
        format!("{head}…")
    }
}
