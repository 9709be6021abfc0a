//! Number tokens of the text formats, read without `str::parse`'s general machinery when the
//! token is a plain decimal, with the same value.
//!
//! Mesh files are mostly `-0.792057`-style numbers and small face indices; for them std's parser
//! (UTF-8 check, then the full decimal algorithm) was a third of reading sveta's OBJ. The short
//! path here returns only values std's parser returns too, bit for bit, and hands every other
//! token (exponents, `inf`, long digit strings, junk) to std, so errors are unchanged.

/// Every integer up to 2⁵³ is exactly an `f64`.
const EXACT_INTEGER: u64 = 1 << 53;

/// The powers of ten that are exactly an `f64` (10²² < 2⁵³·2²², 5²² < 2⁵³).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `token` as an `f64`: exactly `str::parse::<f64>`'s result (`None` where it fails).
pub(crate) fn f64_of(token: &[u8]) -> Option<f64> {
    plain_decimal(token).or_else(|| std::str::from_utf8(token).ok()?.parse().ok())
}

/// `token` as an `i64`: exactly `str::parse::<i64>`'s result (`None` where it fails).
pub(crate) fn i64_of(token: &[u8]) -> Option<i64> {
    plain_integer(token).or_else(|| std::str::from_utf8(token).ok()?.parse().ok())
}

/// A sign and its magnitude's bytes.
fn split_sign(token: &[u8]) -> (bool, &[u8]) {
    match token.first() {
        Some(b'-') => (true, &token[1..]),
        Some(b'+') => (false, &token[1..]),
        _ => (false, token),
    }
}

/// `[+-]digits[.digits]` (either side may be empty, not both) whose digits, read as one integer
/// m, satisfy m ≤ 2⁵³ with k ≤ 22 digits after the point: then m and 10ᵏ are exact doubles and
/// m / 10ᵏ is one correctly rounded division, the correctly rounded value of the decimal, which
/// is what std's parser returns (Clinger's fast path). Anything else: `None`.
fn plain_decimal(token: &[u8]) -> Option<f64> {
    let (negative, body) = split_sign(token);
    let (mut m, mut digits, mut after) = (0u64, 0usize, None::<usize>);
    for &b in body {
        match b {
            b'0'..=b'9' if digits < 19 => {
                m = m * 10 + u64::from(b - b'0');
                digits += 1;
                if let Some(k) = after.as_mut() {
                    *k += 1;
                }
            }
            b'.' if after.is_none() => after = Some(0),
            _ => return None,
        }
    }
    let k = after.unwrap_or(0);
    if digits == 0 || m > EXACT_INTEGER || k >= POW10.len() {
        return None;
    }
    let magnitude = m as f64 / POW10[k];
    Some(if negative { -magnitude } else { magnitude })
}

/// `[+-]digits` with at most 18 digits (so no overflow is possible); anything else `None`.
fn plain_integer(token: &[u8]) -> Option<i64> {
    let (negative, body) = split_sign(token);
    if body.is_empty() || body.len() > 18 {
        return None;
    }
    let mut m = 0i64;
    for &b in body {
        if !b.is_ascii_digit() {
            return None;
        }
        m = m * 10 + i64::from(b - b'0');
    }
    Some(if negative { -m } else { m })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn std_f64(t: &str) -> Option<u64> {
        t.parse::<f64>().ok().map(f64::to_bits)
    }

    #[test]
    fn plain_forms_take_the_short_path_and_agree() {
        for t in [
            "0",
            "-0",
            "-0.000000",
            "0.085587",
            "-0.792057",
            "1.",
            ".5",
            "+2.25",
            "123456789",
            "9007199254740992",
            "0.1234567890123456789",
            "1e5",
        ] {
            assert_eq!(f64_of(t.as_bytes()).map(f64::to_bits), std_f64(t), "{t}");
        }
        assert!(plain_decimal(b"-0.792057").is_some());
        assert!(plain_decimal(b"1e5").is_none(), "exponents go to std");
        assert!(
            plain_decimal(b"9007199254740993").is_none(),
            "beyond 2^53 goes to std"
        );
        assert_eq!(f64_of(b"-0").map(f64::is_sign_negative), Some(true));
        for t in [
            "", "-", ".", "-.", "+", "1.2.3", "1-2", "nan", "x", "1,5", "\u{e9}",
        ] {
            assert_eq!(f64_of(t.as_bytes()).map(f64::to_bits), std_f64(t), "{t:?}");
        }
        assert_eq!(f64_of(b"\xff1"), None);
    }

    #[test]
    fn integers_agree_with_std_at_the_edges() {
        for t in [
            "0",
            "-0",
            "+7",
            "42",
            "-12",
            "999999999999999999",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "",
            "-",
            "+",
            "1.0",
            "1/2",
            "٣",
        ] {
            assert_eq!(i64_of(t.as_bytes()), t.parse::<i64>().ok(), "{t:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// Decimal-looking tokens (signs, points, exponents, long digit runs, stray bytes):
        /// the same value as std, bit for bit, or the same failure.
        #[test]
        fn decimals_agree_with_std(t in "[+-]?[0-9]{0,22}(\\.[0-9]{0,24})?([eE][+-]?[0-9]{1,3})?[a.x/]?") {
            prop_assert_eq!(f64_of(t.as_bytes()).map(f64::to_bits), std_f64(&t));
        }

        /// Any short run of number-ish bytes.
        #[test]
        fn arbitrary_tokens_agree_with_std(t in "[-+.0-9eEinfa/ ]{0,12}") {
            prop_assert_eq!(f64_of(t.as_bytes()).map(f64::to_bits), std_f64(&t));
            prop_assert_eq!(i64_of(t.as_bytes()), t.parse::<i64>().ok());
        }

        /// Random doubles printed the ways exporters print them.
        #[test]
        fn printed_doubles_read_back_as_std_reads_them(x in proptest::num::f64::NORMAL, p in 0usize..18) {
            for t in [format!("{x:.p$}"), format!("{x}"), format!("{:.6}", x / 1e300)] {
                prop_assert_eq!(f64_of(t.as_bytes()).map(f64::to_bits), std_f64(&t));
            }
        }

        #[test]
        fn integers_of_any_size_agree_with_std(i in any::<i64>(), plus in any::<bool>()) {
            let t = if plus && i >= 0 { format!("+{i}") } else { i.to_string() };
            prop_assert_eq!(i64_of(t.as_bytes()), Some(i));
        }
    }
}
