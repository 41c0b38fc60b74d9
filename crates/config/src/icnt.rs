//! BookSim `.icnt` interconnect files (`key = value;`, `//` comments): the
//! flit size warplab models, every other key kept verbatim.

use serde::{Deserialize, Serialize};

use crate::error::{ConfigError, Location, shorten};
use crate::gpu::KeptOption;
use crate::numbers::parse_decimal;

/// A `.icnt` file as read: `key = value` statements in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawIcnt {
    /// The file name as given.
    pub file: String,
    /// `(key, value, line)` in file order.
    pub statements: Vec<(String, String, u32)>,
}

/// The BookSim interconnect file of a config, typed where warplab models it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IcntConfig {
    /// The file name (the writer writes the file back under it).
    pub file_name: String,
    /// `flit_size`: bytes per flit in BookSim mode (`-network_mode 1`).
    pub flit_size_bytes: Option<u32>,
    /// Every other key, in order of first appearance, last value winning.
    pub unmodelled: Vec<KeptOption>,
}

/// The largest flit, in bytes (a documented limit).
pub const MAX_FLIT_BYTES: u32 = 4096;

/// Reads a BookSim config: `//` to the end of a line is a comment, statements
/// end with `;` and are `key = value`.
///
/// # Errors
///
/// A statement without `=` or with an empty key.
pub fn read_icnt(file: &str, text: &str) -> Result<RawIcnt, ConfigError> {
    let mut statements = Vec::new();
    let mut pending = String::new();
    let mut start_line = 0;
    for (index, line) in text.lines().enumerate() {
        let line_number = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let code = line.split("//").next().unwrap_or("");
        for (piece_index, piece) in code.split(';').enumerate() {
            if piece_index > 0 {
                finish_statement(file, &pending, start_line, &mut statements)?;
                pending.clear();
            }
            if pending.trim().is_empty() && !piece.trim().is_empty() {
                start_line = line_number;
            }
            pending.push_str(piece);
            pending.push(' ');
        }
    }
    if !pending.trim().is_empty() {
        let at = Location::new(file, start_line);
        return Err(ConfigError::BadIcnt {
            at,
            value: shorten(pending.trim()),
            expected: "`;` after the statement".into(),
        });
    }
    Ok(RawIcnt { file: file.to_owned(), statements })
}

fn finish_statement(
    file: &str,
    statement: &str,
    line: u32,
    statements: &mut Vec<(String, String, u32)>,
) -> Result<(), ConfigError> {
    let statement = statement.trim();
    if statement.is_empty() {
        return Ok(());
    }
    let bad = |expected: &str| ConfigError::BadIcnt {
        at: Location::new(file, line),
        value: shorten(statement),
        expected: expected.to_owned(),
    };
    let (key, value) = statement.split_once('=').ok_or_else(|| bad("`key = value;`"))?;
    let key = key.trim();
    if key.is_empty() || key.contains(char::is_whitespace) {
        return Err(bad("a single key before `=`"));
    }
    let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
    statements.push((key.to_owned(), value, line));
    Ok(())
}

impl IcntConfig {
    /// Types a read `.icnt` file: `flit_size` is checked, the rest kept.
    ///
    /// # Errors
    ///
    /// A `flit_size` that is not a number from 1 to [`MAX_FLIT_BYTES`].
    pub fn from_raw(raw: &RawIcnt) -> Result<Self, ConfigError> {
        let mut flit_size_bytes = None;
        let mut unmodelled: Vec<KeptOption> = Vec::new();
        for (key, value, line) in &raw.statements {
            if key == "flit_size" {
                flit_size_bytes = Some(parse_flit_size(&raw.file, *line, value)?);
            } else if let Some(kept) = unmodelled.iter_mut().find(|kept| &kept.name == key) {
                kept.value = Some(value.clone());
            } else {
                unmodelled.push(KeptOption { name: key.clone(), value: Some(value.clone()) });
            }
        }
        // The base name: the writer writes the file beside gpgpusim.config.
        Ok(Self { file_name: crate::files::base_name(&raw.file).to_owned(), flit_size_bytes, unmodelled })
    }

    /// The file's text as warplab writes it: `flit_size` first, then the
    /// other keys in their order.
    pub fn to_text(&self) -> String {
        let mut text = String::from("// BookSim interconnect config written by warplab\n");
        if let Some(flit) = self.flit_size_bytes {
            text.push_str(&format!("flit_size = {flit};\n"));
        }
        for kept in &self.unmodelled {
            text.push_str(&format!("{} = {};\n", kept.name, kept.value.as_deref().unwrap_or("")));
        }
        text
    }

    /// The value of an unmodelled key, e.g. `k` (BookSim's node count).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.unmodelled.iter().find(|kept| kept.name == key).and_then(|kept| kept.value.as_deref())
    }
}

fn parse_flit_size(file: &str, line: u32, value: &str) -> Result<u32, ConfigError> {
    let bad =
        |expected: String| ConfigError::BadIcnt { at: Location::new(file, line), value: shorten(value), expected };
    let flit = parse_decimal(value).map_err(|expected| bad(format!("flit_size = {expected}")))?;
    match u32::try_from(flit) {
        Ok(flit) if (1..=MAX_FLIT_BYTES).contains(&flit) => Ok(flit),
        _ => Err(bad(format!("flit_size from 1 to {MAX_FLIT_BYTES} bytes"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flit size and the kept `(key, value)` pairs of a file.
    type Icnt<'a> = (Option<u32>, &'a [(&'a str, &'a str)]);

    fn check(text: &str, expect: Result<Icnt<'_>, &str>) {
        let got = read_icnt("x.icnt", text).and_then(|raw| IcntConfig::from_raw(&raw));
        let got = got.map(|icnt| {
            let kept: Vec<(String, String)> =
                icnt.unmodelled.iter().map(|k| (k.name.clone(), k.value.clone().unwrap_or_default())).collect();
            (icnt.flit_size_bytes, kept)
        });
        let expect = expect.map(|(flit, kept)| {
            (flit, kept.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect::<Vec<_>>())
        });
        assert_eq!(got.map_err(|e| e.to_string()), expect.map_err(str::to_owned));
    }

    #[test]
    fn statements_and_comments() {
        check(
            "//21*1 fly\nuse_map = 0;\nflit_size = 40; \n\ntopology = fly; // comment\nk = 144;\nk = 78;\n",
            Ok((Some(40), &[("use_map", "0"), ("topology", "fly"), ("k", "78")])),
        );
        check(
            "packet_size ={{1,2,3,4},{10,20}};\ninternal_speedup  = 2.0;",
            Ok((None, &[("packet_size", "{{1,2,3,4},{10,20}}"), ("internal_speedup", "2.0")])),
        );
        check("a = 1; b = 2;", Ok((None, &[("a", "1"), ("b", "2")])));
    }

    #[test]
    fn malformed_statements() {
        check("flit_size = forty;", Err("x.icnt:1: expected flit_size = an unsigned decimal number, found `forty`"));
        check("flit_size = 0;", Err("x.icnt:1: expected flit_size from 1 to 4096 bytes, found `0`"));
        check("\ntopology fly;", Err("x.icnt:2: expected `key = value;`, found `topology fly`"));
        check("k = 4", Err("x.icnt:1: expected `;` after the statement, found `k = 4`"));
    }
}
