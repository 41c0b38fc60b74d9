//! Numbers as GPGPU-Sim reads them: C integer notation for options (`0x` hex,
//! a leading `0` octal), plain decimals inside compound strings.

/// Reads an integer the way a C++ stream with no base flag does: an optional
/// sign, then `0x`/`0X` hex, a leading `0` octal, or decimal. Unlike the
/// stream, text after the number is an error rather than silently ignored,
/// and a value that does not fit in 64 bits is an error rather than clamped.
///
/// # Errors
///
/// A description of what was expected, for the caller to wrap with a location.
pub fn parse_c_integer(text: &str) -> Result<i64, String> {
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits, name) = if let Some(hex) = unsigned.strip_prefix("0x").or_else(|| unsigned.strip_prefix("0X")) {
        (16, hex, "a hexadecimal integer")
    } else if unsigned.len() > 1 && unsigned.starts_with('0') {
        (8, &unsigned[1..], "an octal integer (a leading 0 means octal, as in C)")
    } else {
        (10, unsigned, "an integer")
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(name.to_owned());
    }
    let magnitude = u64::from_str_radix(digits, radix).map_err(|_| format!("{name} that fits in 64 bits"))?;
    let magnitude = i64::try_from(magnitude).map_err(|_| format!("{name} that fits in 64 bits"))?;
    Ok(if negative { -magnitude } else { magnitude })
}

/// Reads an unsigned decimal field of a compound string (cache strings, lists),
/// which GPGPU-Sim reads with `sscanf("%u")`.
///
/// # Errors
///
/// A description of what was expected.
pub fn parse_decimal(text: &str) -> Result<u64, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err("an unsigned decimal number".to_owned());
    }
    text.parse().map_err(|_| "a number that fits in 64 bits".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expect: Result<i64, &str>) {
        assert_eq!(parse_c_integer(text), expect.map_err(str::to_owned), "{text}");
    }

    #[test]
    fn c_notation() {
        check("42", Ok(42));
        check("0", Ok(0));
        check("010", Ok(8));
        check("0x1F", Ok(31));
        check("0X10", Ok(16));
        check("-1", Ok(-1));
        check("+7", Ok(7));
        check("-010", Ok(-8));
    }

    #[test]
    fn malformed_numbers() {
        check("08", Err("an octal integer (a leading 0 means octal, as in C)"));
        check("0x", Err("a hexadecimal integer"));
        check("12abc", Err("an integer"));
        check("", Err("an integer"));
        check("1.5", Err("an integer"));
        check("99999999999999999999", Err("an integer that fits in 64 bits"));
        check("0xFFFFFFFFFFFFFFFF", Err("a hexadecimal integer that fits in 64 bits"));
    }

    #[test]
    fn decimals() {
        assert_eq!(parse_decimal("128"), Ok(128));
        assert_eq!(parse_decimal("0128"), Ok(128));
        assert_eq!(parse_decimal("-1"), Err("an unsigned decimal number".to_owned()));
        assert_eq!(parse_decimal("184467440737095516160"), Err("a number that fits in 64 bits".to_owned()));
    }
}
