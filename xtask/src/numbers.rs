//! How the tables the chores write into the docs spell numbers.

/// `n` with a comma between thousands, as the handouts and docs write counts.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_group_by_thousands() {
        assert_eq!([grouped(0), grouped(999), grouped(1000)], ["0", "999", "1,000"]);
        assert_eq!([grouped(1_234_567), grouped(10_813_440)], ["1,234,567", "10,813,440"]);
    }
}
