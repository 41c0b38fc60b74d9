//! Recoverable oddities found while reading a trace: reported as values beside
//! the result, never fatal (STYLE: "Recoverable oddities ... come back as a value
//! plus a list of diagnostics").

use std::fmt;

use serde::{Deserialize, Serialize};

/// Something unusual about a trace that did not stop reading it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Diagnostic {
    /// The kernel's binary version has no opcode table; the nearest older one is used.
    NearestOpcodeTable {
        /// The trace file.
        file: String,
        /// What was used instead.
        note: String,
    },
    /// A mnemonic is missing from the opcode table; it runs as an INT (ALU) instruction.
    UnknownOpcode {
        /// The opcode as traced.
        opcode: String,
        /// The table it was looked up in.
        table: &'static str,
    },
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Diagnostic::NearestOpcodeTable { file, note } => write!(f, "{file}: {note}"),
            Diagnostic::UnknownOpcode { opcode, table } => {
                write!(f, "opcode `{opcode}` is not in {table}; it runs as an INT (ALU) instruction")
            }
        }
    }
}
