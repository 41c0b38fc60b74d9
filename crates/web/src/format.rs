//! Number formats shared by the page's views, so one figure reads the same
//! wherever it appears.

/// What a figure that is not a number (NaN, infinite) shows instead.
const NOT_A_NUMBER: &str = "–";

/// A ratio (IPC, MPKI) with at least two decimals and at least three
/// significant digits: `492.11`, `1.23`, `0.500`, `0.0123`.
pub fn decimal(value: f64) -> String {
    if !value.is_finite() {
        return NOT_A_NUMBER.to_owned();
    }
    // Small values get more decimals so that three significant digits show,
    // up to six, beyond which the value reads as zero anyway.
    let magnitude = if value == 0.0 { 0 } else { value.abs().log10().floor() as i32 };
    let decimals = (2 - magnitude).clamp(2, 6) as usize;
    format!("{value:.decimals$}")
}

/// A count with thousands separators: `9,545,920`.
pub fn count(value: u64) -> String {
    let digits = value.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

/// A fraction (0 to 1) as a percentage with one decimal. Values that would
/// round to 0% or 100% without being so say it (`<0.1%`, `>99.9%`), so a
/// visible sliver never reads as nothing.
pub fn share(fraction: f64) -> String {
    let percent = fraction * 100.0;
    if !percent.is_finite() {
        NOT_A_NUMBER.to_owned()
    } else if percent <= 0.0 {
        "0%".to_owned()
    } else if percent >= 100.0 {
        "100%".to_owned()
    } else if percent < 0.05 {
        "<0.1%".to_owned()
    } else if percent >= 99.95 {
        ">99.9%".to_owned()
    } else {
        format!("{percent:.1}%")
    }
}

/// A signed percentage with one decimal, e.g. a model's error against the
/// simulation: `+12.3%`, `-4.0%`, `0.0%`.
pub fn signed_percent(percent: f64) -> String {
    if !percent.is_finite() {
        return NOT_A_NUMBER.to_owned();
    }
    // Rounded first, so -0.04 reads as 0.0% rather than -0.0%.
    let rounded = (percent * 10.0).round() / 10.0;
    if rounded == 0.0 { "0.0%".to_owned() } else { format!("{rounded:+.1}%") }
}

/// A time to wait, to the second under a minute and to the minute past an
/// hour: `5 s`, `3 min 20 s`, `1 h 05 min`.
pub fn duration(seconds: f64) -> String {
    if !seconds.is_finite() || seconds < 0.0 {
        return NOT_A_NUMBER.to_owned();
    }
    let whole = seconds.round() as u64;
    match (whole / 3_600, whole / 60 % 60, whole % 60) {
        (0, 0, s) => format!("{s} s"),
        (0, m, s) => format!("{m} min {s:02} s"),
        (h, m, _) => format!("{h} h {m:02} min"),
    }
}

/// A model's error in percent with its mark, so colour is never the only
/// sign of how close it is: `+4.0% ✓` within ±10%, `-31.2% ✗` beyond (the
/// IPC strip's key explains both).
pub fn marked_error(percent: f64) -> String {
    let mark = if error_class(percent) == "error-small" { "✓" } else { "✗" };
    format!("{} {mark}", signed_percent(percent))
}

/// The class of a model's error in percent: within ±10% the page shows it
/// as close (`error-small`), beyond as far (`error-large`).
pub fn error_class(percent: f64) -> &'static str {
    if percent.abs() <= 10.0 { "error-small" } else { "error-large" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_carries_its_mark_beside_its_colour() {
        assert_eq!(marked_error(4.04), "+4.0% ✓");
        assert_eq!(marked_error(-10.0), "-10.0% ✓");
        assert_eq!(marked_error(-31.2), "-31.2% ✗");
    }

    #[test]
    fn durations_read_to_the_second_then_the_minute() {
        assert_eq!(duration(4.6), "5 s");
        assert_eq!(duration(200.0), "3 min 20 s");
        assert_eq!(duration(3_900.0), "1 h 05 min");
        assert_eq!(duration(f64::NAN), "–");
    }

    #[test]
    fn decimals_keep_three_significant_digits() {
        for (value, expect) in [
            (492.107_673, "492.11"),
            (16.476_819, "16.48"),
            (1.234, "1.23"),
            (0.5, "0.500"),
            (0.012_345, "0.0123"),
            (0.0, "0.00"),
            (-2.5, "-2.50"),
            (1e-9, "0.000000"),
            (f64::NAN, "–"),
            (f64::INFINITY, "–"),
        ] {
            assert_eq!(decimal(value), expect, "{value}");
        }
    }

    #[test]
    fn counts_group_thousands() {
        for (value, expect) in [(0, "0"), (999, "999"), (1_000, "1,000"), (29_831, "29,831"), (9_545_920, "9,545,920")]
        {
            assert_eq!(count(value), expect);
        }
        assert_eq!(count(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn shares_never_round_a_sliver_away() {
        for (fraction, expect) in [
            (0.0, "0%"),
            (0.000_1, "<0.1%"),
            (0.000_5, "0.1%"),
            (0.051_49, "5.1%"),
            (0.818_545, "81.9%"),
            (0.999_9, ">99.9%"),
            (1.0, "100%"),
            (f64::NAN, "–"),
        ] {
            assert_eq!(share(fraction), expect, "{fraction}");
        }
    }

    #[test]
    fn errors_within_ten_percent_either_way_are_close() {
        assert_eq!([error_class(10.0), error_class(-10.0), error_class(0.0)], ["error-small"; 3]);
        assert_eq!([error_class(10.01), error_class(-10.01)], ["error-large"; 2]);
    }

    #[test]
    fn signed_percents_show_their_sign() {
        for (percent, expect) in
            [(12.34, "+12.3%"), (-4.0, "-4.0%"), (0.04, "0.0%"), (-0.04, "0.0%"), (-0.05, "-0.1%"), (f64::NAN, "–")]
        {
            assert_eq!(signed_percent(percent), expect, "{percent}");
        }
    }
}
