//! A trace line's fields, read as bytes in the order the line holds them.

use crate::Reg;
use crate::line::LineError;
use crate::numbers::{MAX_PLAIN_DECIMAL_DIGITS, decimal, hex_digit, plain_hex};

/// A line's fields in order, each read with its name for the error it may give.
///
/// The line is read as bytes, and each field a byte at a time as it is
/// scanned: the common form of each (plain digits, `0x` and hex digits, `R`
/// and digits) is taken in that one pass, and any other token is cut out and
/// left to the token readers of [`crate::numbers`], so a field reads and fails
/// exactly as it does when the line is split first. Checking a whole line's
/// UTF-8 before parsing it cost about 200 host instructions a line, more than
/// the fields a line's [`crate::static_fields::StaticFields`] leave to read.
///
/// Every byte of a line read without error is a separator, part of a field
/// taken in the single pass (ASCII), or part of a token checked as UTF-8, so a
/// line that is not UTF-8 always fails: [`crate::line::parse_instruction`]'s caller then
/// reports that instead of the field.
pub(crate) struct Fields<'a> {
    pub(crate) line: &'a [u8],
    /// The byte where the next field's search begins.
    pub(crate) at: usize,
}

/// A byte's class in [`CLASSES`] when it separates fields (ASCII whitespace).
const SEPARATOR: u8 = 16;
/// A byte's class in [`CLASSES`] when it is neither a hex digit nor a separator.
const OTHER: u8 = 17;

/// Each byte's class: its value as a hex digit (0 to 15), [`SEPARATOR`] or
/// [`OTHER`]. One lookup tells a scan whether a byte is a digit of either
/// radix (its class is below the radix) or ends the field. The separators are
/// `split_ascii_whitespace`'s, as the token readers' callers split.
const CLASSES: [u8; 256] = {
    let mut classes = [OTHER; 256];
    let mut byte = 0;
    while byte < 256 {
        classes[byte] = match hex_digit(byte as u8) {
            Some(digit) => digit,
            None if (byte as u8).is_ascii_whitespace() => SEPARATOR,
            None => OTHER,
        };
        byte += 1;
    }
    classes
};

fn class(byte: u8) -> u8 {
    CLASSES[usize::from(byte)]
}

impl<'a> Fields<'a> {
    pub(crate) fn new(line: &'a [u8]) -> Self {
        Fields { line, at: 0 }
    }

    /// The bytes from the next field on, separators skipped; empty at the end of the line.
    pub(crate) fn rest(&mut self) -> &'a [u8] {
        let rest = &self.line[self.at..];
        let skipped = rest.iter().position(|&byte| class(byte) != SEPARATOR).unwrap_or(rest.len());
        self.at += skipped;
        &rest[skipped..]
    }

    pub(crate) fn has_more(&mut self) -> bool {
        !self.rest().is_empty()
    }

    /// The next field as bytes, or `None` at the end of the line.
    fn next_bytes(&mut self) -> Option<&'a [u8]> {
        let rest = self.rest();
        if rest.is_empty() {
            return None;
        }
        let len = rest.iter().position(|&byte| class(byte) == SEPARATOR).unwrap_or(rest.len());
        self.at += len;
        Some(&rest[..len])
    }

    /// The next field as text, or `None` at the end of the line; a field that
    /// is not UTF-8 is an error, replaced by the caller's.
    pub(crate) fn next_token(&mut self) -> Option<Result<&'a str, LineError>> {
        let bytes = self.next_bytes()?;
        Some(std::str::from_utf8(bytes).map_err(|_| ("line", "not valid UTF-8".to_owned())))
    }

    pub(crate) fn next(&mut self, field: &'static str) -> Result<&'a str, LineError> {
        self.next_token().unwrap_or_else(|| Err(missing(field)))
    }

    /// Reads the next field in one pass when it is `skip` bytes of prefix (the
    /// caller has checked them) and 1 to `max_digits` digits of `radix` (10 or
    /// 16); `None` leaves the field unread, for the token readers.
    fn plain(&mut self, skip: usize, radix: u8, max_digits: usize) -> Option<u64> {
        let digits = self.line.get(self.at + skip..)?;
        let mut value = 0u64;
        for (count, &byte) in digits.iter().enumerate() {
            let class = class(byte);
            if class >= radix {
                let ends_field = class == SEPARATOR && (1..=max_digits).contains(&count);
                self.at += if ends_field { skip + count } else { 0 };
                return ends_field.then_some(value);
            }
            // Wrapping: a field of too many digits is left to the token readers anyway.
            value = value.wrapping_mul(u64::from(radix)).wrapping_add(u64::from(class));
        }
        let whole = (1..=max_digits).contains(&digits.len());
        self.at += if whole { skip + digits.len() } else { 0 };
        whole.then_some(value)
    }

    pub(crate) fn decimal<T: std::str::FromStr + TryFrom<u64>>(&mut self, field: &'static str) -> Result<T, LineError> {
        self.decimal_or(field, IN_RANGE)
    }

    /// A decimal field; the error for any other token says it `expected` that.
    pub(crate) fn decimal_or<T: std::str::FromStr + TryFrom<u64>>(
        &mut self,
        field: &'static str,
        expected: &str,
    ) -> Result<T, LineError> {
        self.rest();
        let start = self.at;
        if let Some(value) = self.plain(0, 10, MAX_PLAIN_DECIMAL_DIGITS)
            && let Ok(value) = T::try_from(value)
        {
            return Ok(value);
        }
        self.at = start;
        self.token(field, expected, decimal)
    }

    /// A signed decimal field: a minus sign and digits is the one more form
    /// taken in the single pass.
    pub(crate) fn signed(&mut self, field: &'static str, expected: &str) -> Result<i64, LineError> {
        // At most 18 digits: the magnitude fits an `i64`.
        if self.rest().first() == Some(&b'-')
            && let Some(magnitude) = self.plain(1, 10, MAX_PLAIN_DECIMAL_DIGITS - 1)
        {
            return Ok(-(magnitude as i64));
        }
        self.decimal_or(field, expected)
    }

    pub(crate) fn hex(&mut self, field: &'static str) -> Result<u64, LineError> {
        let rest = self.rest();
        let prefix = if rest.starts_with(b"0x") || rest.starts_with(b"0X") { 2 } else { 0 };
        match self.plain(prefix, 16, 16) {
            Some(value) => Ok(value),
            None => self.token(field, "a hex number", crate::header::parse_hex),
        }
    }

    /// The active mask: up to 8 hex digits, no prefix or sign.
    pub(crate) fn mask(&mut self) -> Result<u32, LineError> {
        self.rest();
        match self.plain(0, 16, 8) {
            Some(mask) => Ok(mask as u32),
            None => self.token("mask", "up to 8 hex digits", |token| {
                let mask = if token.len() <= 8 { plain_hex(token) } else { None };
                mask.and_then(|mask| u32::try_from(mask).ok())
            }),
        }
    }

    /// A register name: `R<n>` or `UR<n>`, n below 256.
    pub(crate) fn register(&mut self, field: &'static str) -> Result<Reg, LineError> {
        let rest = self.rest();
        let (prefix, first) = match rest {
            [b'R', ..] => (1, 0),
            [b'U', b'R', ..] => (2, Reg::UR0),
            _ => (0, 0),
        };
        let start = self.at;
        if prefix > 0 {
            match self.plain(prefix, 10, MAX_PLAIN_DECIMAL_DIGITS) {
                Some(n) if n < 256 => return Ok(Reg(first + n as u16)),
                _ => self.at = start,
            }
        }
        self.token(field, "`R<n>` or `UR<n>`", parse_register)
    }

    /// The next field read as a whole token by `read`; the error says what
    /// was `expected` and what was found.
    fn token<T>(
        &mut self,
        field: &'static str,
        expected: &str,
        read: impl Fn(&str) -> Option<T>,
    ) -> Result<T, LineError> {
        let token = self.next(field)?;
        read(token).ok_or_else(|| (field, format!("expected {expected}, found `{token}`")))
    }
}

/// What a decimal field that is not one says it expected.
pub(crate) const IN_RANGE: &str = "a decimal number in range";

pub(crate) fn missing(field: &'static str) -> LineError {
    (field, "missing: the line ends early".to_owned())
}

pub(crate) fn parse_register(token: &str) -> Option<Reg> {
    if let Some(n) = token.strip_prefix("UR") {
        let n: u16 = decimal(n)?;
        return (n < 256).then_some(Reg(Reg::UR0 + n));
    }
    let n: u16 = decimal(token.strip_prefix('R')?)?;
    (n < 256).then_some(Reg(n))
}

/// Property tests (native only, as proptest is).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod properties {
    use proptest::prelude::*;

    use super::*;

    /// Text of trace-like fields: numbers in every form, registers, signs and
    /// the bytes that break them.
    fn fields_text() -> impl Strategy<Value = String> {
        prop_oneof![
            crate::numbers::properties::line_text(),
            proptest::string::string_regex("( {1,2}(U?R|-|\\+|0x)?[0-9a-fA-F]{1,20}[Ux]?){0,8} ?")
                .expect("a valid pattern"),
        ]
    }

    /// Reads one field of `kind` (0 to 5) from `fields`, rendered for comparison.
    fn read(fields: &mut Fields<'_>, kind: u8) -> Result<String, LineError> {
        Ok(match kind {
            0 => fields.decimal::<u8>("f")?.to_string(),
            1 => fields.decimal::<u64>("f")?.to_string(),
            2 => fields.signed("f", "a number")?.to_string(),
            3 => fields.hex("f")?.to_string(),
            4 => fields.mask()?.to_string(),
            _ => fields.register("f")?.0.to_string(),
        })
    }

    /// What reading the whole `token` as a field of `kind` gives, by the token readers.
    fn read_token(token: Option<&str>, kind: u8) -> Result<String, LineError> {
        let field = if kind == 4 { "mask" } else { "f" };
        let token = token.ok_or_else(|| missing(field))?;
        let (value, expected) = match kind {
            0 => (decimal::<u8>(token).map(|v| v.to_string()), IN_RANGE),
            1 => (decimal::<u64>(token).map(|v| v.to_string()), IN_RANGE),
            2 => (decimal::<i64>(token).map(|v| v.to_string()), "a number"),
            3 => (crate::header::parse_hex(token).map(|v| v.to_string()), "a hex number"),
            4 => {
                let mask = plain_hex(token).filter(|_| token.len() <= 8).and_then(|m| u32::try_from(m).ok());
                (mask.map(|v| v.to_string()), "up to 8 hex digits")
            }
            _ => (parse_register(token).map(|r| r.0.to_string()), "`R<n>` or `UR<n>`"),
        };
        value.ok_or_else(|| (field, format!("expected {expected}, found `{token}`")))
    }

    proptest! {
        #[test]
        fn fields_read_as_the_split_tokens_read(line in fields_text(), kinds in proptest::collection::vec(0u8..6, 0..10)) {
            let mut fields = Fields::new(line.as_bytes());
            let mut tokens = line.split_ascii_whitespace();
            for kind in kinds {
                let expected = read_token(tokens.next(), kind);
                prop_assert_eq!(read(&mut fields, kind), expected.clone());
                if expected.is_err() {
                    break;
                }
            }
            prop_assert_eq!(fields.next_token(), tokens.next().map(Ok));
        }
    }
}
