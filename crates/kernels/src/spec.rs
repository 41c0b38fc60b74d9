//! Naming a generator run: `KERNEL[:k=v,...]`, with `size=N` among the pairs.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Which generator to run, at which size, with which knobs. This is what a
/// workload choice, the `--gen` flag and a share link carry.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
// A share link is untrusted input: a field this warplab does not know is an
// error, not silently dropped.
#[serde(deny_unknown_fields)]
pub struct GenSpec {
    /// The generator's name (`vecadd`, `strided`, `pchase-l2`, ...).
    pub kernel: String,
    /// `--size N`; `None` is the generator's default.
    pub size: Option<u64>,
    /// `--set name=value` pairs, in the order given; later ones win.
    pub knobs: Vec<(String, u64)>,
}

/// The longest spec text accepted (a share link carries one).
pub const MAX_SPEC_BYTES: usize = 512;

/// A spec that does not parse, or names what no generator has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GenError {
    /// The text is not `KERNEL[:k=v,...]`.
    Syntax(String),
    /// No generator has this name.
    UnknownKernel {
        /// The name given.
        name: String,
    },
    /// The generator has no knob of this name.
    UnknownKnob {
        /// The generator.
        kernel: &'static str,
        /// The knob given.
        knob: String,
        /// The knobs it has.
        known: Vec<&'static str>,
    },
    /// A value outside the knob's range.
    OutOfRange {
        /// The knob (or `size`).
        knob: &'static str,
        /// The value given.
        value: u64,
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// Knob values that do not work together (a tile that does not divide the
    /// matrix, ...).
    Inconsistent(String),
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::Syntax(message) => write!(f, "generator spec: {message}"),
            GenError::UnknownKernel { name } => {
                let known: Vec<_> = crate::GENERATORS.iter().map(|g| g.name).collect();
                write!(f, "no generator named `{name}`; known: {}", known.join(", "))
            }
            GenError::UnknownKnob { kernel, knob, known } => {
                write!(f, "`{kernel}` has no knob `{knob}`; its knobs: {}", known.join(", "))
            }
            GenError::OutOfRange { knob, value, min, max } => {
                write!(f, "`{knob}` = {value} is outside {min}..={max}")
            }
            GenError::Inconsistent(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for GenError {}

impl GenSpec {
    /// The default run of `kernel`.
    pub fn new(kernel: &str) -> GenSpec {
        GenSpec { kernel: kernel.to_owned(), size: None, knobs: Vec::new() }
    }

    /// Sets a knob, replacing an earlier value (`size` sets the size).
    pub fn set(&mut self, name: &str, value: u64) {
        if name == "size" {
            self.size = Some(value);
            return;
        }
        self.knobs.retain(|(knob, _)| knob != name);
        self.knobs.push((name.to_owned(), value));
    }

    /// The value given for `name` (`size` or a knob; the last one given wins).
    pub fn value(&self, name: &str) -> Option<u64> {
        if name == "size" {
            return self.size;
        }
        self.knobs.iter().rev().find(|(knob, _)| knob == name).map(|(_, value)| *value)
    }

    /// Parses one `name=value` pair (the CLI's `--set`).
    ///
    /// # Errors
    /// Not `name=value` with a whole-number value.
    pub fn parse_pair(pair: &str) -> Result<(String, u64), GenError> {
        let (name, value) =
            pair.split_once('=').ok_or_else(|| GenError::Syntax(format!("expected `name=value`, found `{pair}`")))?;
        let (name, value) = (name.trim(), value.trim());
        if name.is_empty() {
            return Err(GenError::Syntax(format!("`{pair}` names no knob")));
        }
        let value = parse_number(value)
            .ok_or_else(|| GenError::Syntax(format!("`{name}` = `{value}`: expected a whole number")))?;
        Ok((name.to_owned(), value))
    }
}

/// A whole number, decimal or `0x` hex, with `_` separators and an optional
/// `k`/`m` suffix (×1024, ×1024²) because sizes are often powers of two.
fn parse_number(text: &str) -> Option<u64> {
    let text = text.replace('_', "");
    let (digits, scale) = match text.strip_suffix(['k', 'K']) {
        Some(digits) => (digits, 1 << 10),
        None => match text.strip_suffix(['m', 'M']) {
            Some(digits) => (digits, 1 << 20),
            None => (text.as_str(), 1),
        },
    };
    let value = match digits.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok()?,
        None => digits.parse().ok()?,
    };
    value.checked_mul(scale)
}

impl FromStr for GenSpec {
    type Err = GenError;

    fn from_str(text: &str) -> Result<GenSpec, GenError> {
        if text.len() > MAX_SPEC_BYTES {
            return Err(GenError::Syntax(format!("longer than {MAX_SPEC_BYTES} bytes")));
        }
        let (kernel, pairs) = text.split_once(':').unwrap_or((text, ""));
        let kernel = kernel.trim();
        if kernel.is_empty() {
            return Err(GenError::Syntax("expected `KERNEL[:name=value,...]`".to_owned()));
        }
        let mut spec = GenSpec::new(kernel);
        for pair in pairs.split(',').filter(|pair| !pair.trim().is_empty()) {
            let (name, value) = GenSpec::parse_pair(pair)?;
            spec.set(&name, value);
        }
        Ok(spec)
    }
}

/// The canonical text: `kernel`, then `:` and the pairs, `size` first.
impl fmt::Display for GenSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.kernel)?;
        let size = self.size.map(|size| ("size", size));
        let pairs = size.into_iter().chain(self.knobs.iter().map(|(name, value)| (name.as_str(), *value)));
        for (index, (name, value)) in pairs.enumerate() {
            let separator = if index == 0 { ':' } else { ',' };
            write!(f, "{separator}{name}={value}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print_canonically() {
        let spec: GenSpec = "strided:gs=32, n=4,size=2k,gs=8".parse().unwrap();
        assert_eq!(spec.kernel, "strided");
        assert_eq!(spec.size, Some(2048));
        assert_eq!(spec.knobs, [("n".to_owned(), 4), ("gs".to_owned(), 8)]);
        assert_eq!(spec.to_string(), "strided:size=2048,n=4,gs=8");
        assert_eq!("vecadd".parse::<GenSpec>().unwrap().to_string(), "vecadd");
        assert_eq!(spec.to_string().parse::<GenSpec>().unwrap(), spec);
    }

    #[test]
    fn malformed_specs_say_what_is_wrong() {
        let error = |text: &str| text.parse::<GenSpec>().unwrap_err().to_string();
        assert_eq!(error(":gs=1"), "generator spec: expected `KERNEL[:name=value,...]`");
        assert_eq!(error("strided:gs"), "generator spec: expected `name=value`, found `gs`");
        assert_eq!(error("strided:gs=lots"), "generator spec: `gs` = `lots`: expected a whole number");
        assert_eq!(error("strided:=3"), "generator spec: `=3` names no knob");
        assert_eq!(
            error("strided:gs=99999999999999999999"),
            "generator spec: `gs` = `99999999999999999999`: expected a whole number"
        );
        assert!(error(&"x".repeat(600)).contains("longer than 512 bytes"));
    }
}
