//! The numbers of a trace line, read a byte at a time.
//!
//! A trace of a few million warp instructions holds tens of millions of
//! numbers. The standard library's general routines (`FromStr` with its signs
//! and overflow checks, `from_str_radix`) cost several times what a loop over
//! a short token's bytes does, and reading the trace was a sixth of a traced
//! run's host instructions. Each reader here takes the common form (plain
//! digits) in such a loop and leaves every other token to the standard
//! routine, so a token reads as it did and a malformed one fails as it did.

use std::str::FromStr;

/// Decimal digits at most: any more might not fit in a `u64`.
pub(crate) const MAX_PLAIN_DECIMAL_DIGITS: usize = 19;

/// The value of a decimal token, as `token.parse::<T>()` gives it: plain
/// digits that fit are read here, anything else (a sign, an overflow, a stray
/// character) by `parse`.
pub(crate) fn decimal<T: FromStr + TryFrom<u64>>(token: &str) -> Option<T> {
    match plain_decimal(token) {
        // Plain digits that do not fit `T` overflow `parse` too.
        Some(value) => T::try_from(value).ok(),
        None => token.parse().ok(),
    }
}

/// The value of a token of 1 to [`MAX_PLAIN_DECIMAL_DIGITS`] decimal digits
/// and nothing else.
fn plain_decimal(token: &str) -> Option<u64> {
    if token.is_empty() || token.len() > MAX_PLAIN_DECIMAL_DIGITS {
        return None;
    }
    token.bytes().try_fold(0u64, |value, byte| {
        let digit = byte.wrapping_sub(b'0');
        (digit < 10).then(|| value * 10 + u64::from(digit))
    })
}

/// The value of 1 to 16 hex digits and nothing else, as
/// `u64::from_str_radix(digits, 16)` reads them; `None` for anything else.
pub(crate) fn plain_hex(digits: &str) -> Option<u64> {
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    digits.bytes().try_fold(0u64, |value, byte| Some(value << 4 | u64::from(hex_digit(byte)?)))
}

/// The value of a hex digit (either case).
pub(crate) const fn hex_digit(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_edges_of_the_plain_forms() {
        assert_eq!(decimal::<u64>("18446744073709551615"), Some(u64::MAX), "20 digits go to parse");
        assert_eq!(decimal::<u64>("9999999999999999999"), Some(9_999_999_999_999_999_999));
        assert_eq!(decimal::<i64>("9223372036854775808"), None, "past i64::MAX");
        assert_eq!(decimal::<u32>("+7"), Some(7), "a plus sign, as parse allows");
        assert_eq!(decimal::<u32>("-0"), None, "no sign on an unsigned number");
        assert_eq!(decimal::<i64>("-0"), Some(0));
        assert_eq!(plain_hex("ffffffffffffffff"), Some(u64::MAX));
        assert_eq!(plain_hex("1ffffffffffffffff"), None);
        assert_eq!(plain_hex("+f"), None, "from_str_radix would allow the sign; parse_hex falls back to it");
    }
}

/// Property tests (native only, as proptest is).
#[cfg(all(test, not(target_arch = "wasm32")))]
pub(crate) mod properties {
    use proptest::prelude::*;

    use super::*;

    /// Text made of what trace lines hold and what breaks them: digits, hex
    /// letters, signs, prefixes, every ASCII whitespace byte (and the
    /// vertical tab, which is not one), a non-ASCII space and letter.
    pub(crate) fn line_text() -> impl Strategy<Value = String> {
        prop_oneof![
            proptest::string::string_regex("[0-9a-fA-FxXR+\\- \t\n\r\x0B\x0C\u{a0}é]{0,40}").expect("a valid pattern"),
            proptest::string::string_regex("( {1,2}(0[xX])?[0-9a-fA-F]{1,20}){0,6} ?").expect("a valid pattern"),
        ]
    }

    fn number_text() -> impl Strategy<Value = String> {
        prop_oneof![
            proptest::string::string_regex("[0-9]{1,22}").expect("a valid pattern"),
            proptest::string::string_regex("[+\\-]?[0-9a-fA-F]{0,18}").expect("a valid pattern"),
            line_text(),
        ]
    }

    proptest! {
        #[test]
        fn decimals_read_as_parse_reads_them(token in number_text()) {
            prop_assert_eq!(decimal::<u8>(&token), token.parse::<u8>().ok());
            prop_assert_eq!(decimal::<u16>(&token), token.parse::<u16>().ok());
            prop_assert_eq!(decimal::<u32>(&token), token.parse::<u32>().ok());
            prop_assert_eq!(decimal::<usize>(&token), token.parse::<usize>().ok());
            prop_assert_eq!(decimal::<u64>(&token), token.parse::<u64>().ok());
            prop_assert_eq!(decimal::<i64>(&token), token.parse::<i64>().ok());
        }

        #[test]
        fn plain_hex_reads_what_from_str_radix_reads_without_a_sign(digits in number_text()) {
            let plain = !digits.starts_with('+') && digits.len() <= 16;
            let expected = u64::from_str_radix(&digits, 16).ok().filter(|_| plain);
            prop_assert_eq!(plain_hex(&digits), expected);
        }
    }
}
