//! JSON number text to the nearest double (ties to even), the result of `str::parse::<f64>`
//! without core's float parser and its 10 KB table of powers: Clinger's exact floating-point
//! fast path, exact 64-bit long division for up to 19 digits over a power of ten up to 10^22,
//! else exact big-integer division (`bignum::Big`, shared with the formatter).

use crate::json::bignum::Big;

/// Significant digits kept exactly. Every double and every midpoint between two adjacent doubles
/// has at most 768 significant digits, so none lies strictly between the kept digits and the full
/// number: beyond them only "something non-zero follows" matters.
const KEPT_DIGITS: usize = 800;

/// A plain decimal, digits with an optional point and digits (`30`, `1.5`), to the nearest
/// double; `None` for any other text. (Not inlined: the parser it calls is large.)
#[inline(never)]
pub(crate) fn parse_decimal(text: &str) -> Option<f64> {
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    let plain = match text.split_once('.') {
        Some((whole, fraction)) => digits(whole) && digits(fraction),
        None => digits(text),
    };
    plain.then(|| parse_f64(text))
}

/// The double nearest to `text`, a JSON number whose grammar is already checked: infinite beyond
/// the double range, zero (or a subnormal) below it, `-0` for "-0".
pub(crate) fn parse_f64(text: &str) -> f64 {
    let bytes = text.as_bytes();
    let mut negative = false;
    // The significant digits (from the first non-zero one) are bytes[start..end] without the
    // point; the first 19 of them read into `head`.
    let (mut start, mut end) = (0, bytes.len());
    let (mut seen, mut count, mut frac_len, mut in_frac) = (0usize, 0usize, 0i64, false);
    let mut head = 0u64;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'-' => negative = true,
            b'.' => in_frac = true,
            b'0'..=b'9' => {
                frac_len += i64::from(in_frac);
                if b == b'0' && seen == 0 {
                    continue;
                }
                if seen == 0 {
                    start = i;
                }
                seen += 1;
                if b != b'0' {
                    count = seen;
                }
                if seen <= 19 {
                    head = head * 10 + u64::from(b - b'0');
                }
            }
            _ => {
                end = i;
                break;
            }
        }
    }
    let (mut exp, mut exp_negative) = (0i64, false);
    for &b in bytes.get(end + 1..).unwrap_or_default() {
        match b {
            b'-' => exp_negative = true,
            // Saturated far beyond any exponent that matters.
            b'0'..=b'9' => exp = (exp * 10 + i64::from(b - b'0')).min(1 << 40),
            _ => {}
        }
    }
    let exp = if exp_negative { -exp } else { exp };
    let digits = bytes
        .get(start..end)
        .unwrap_or_default()
        .iter()
        .filter(|&&b| b != b'.')
        .map(|&b| b.wrapping_sub(b'0'));
    // Without trailing zeros: value = (the first `count` significant digits) * 10^e10.
    let e10 = exp - frac_len + (seen - count) as i64;
    let magnitude =
        small(head, seen, exp - frac_len).unwrap_or_else(|| magnitude(count, e10, digits));
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

/// `n * 10^e10` (`n` of `len` digits) to the nearest double in exact 64-bit arithmetic with one
/// rounding, when `n` has at most 19 digits and 10^e10 is between 10^-22 and 10^22 (or 1).
fn small(n: u64, len: usize, e10: i64) -> Option<f64> {
    if len > 19 || !(-22..=22).contains(&e10) {
        return None;
    }
    if n <= 1 << 53 || e10 == 0 {
        // Clinger: both operands exact (up to 2^53, powers of ten up to 10^22), one rounding; or
        // an integer below 2^64, rounded once.
        let mut scale = 1.0;
        for _ in 0..e10.unsigned_abs() {
            scale *= 10.0;
        }
        let n = n as f64;
        return Some(if e10 < 0 { n / scale } else { n * scale });
    }
    if e10 > 0 {
        return None;
    }
    // n / 10^f = n / 5^f * 2^-f: long division by 5^f (below 2^52), a few bits at a time, until
    // the quotient q has 56 bits; `k` keeps q and the shifted remainder below 2^64.
    let f = e10.unsigned_abs() as u32;
    let p = 5u64.pow(f);
    let (mut q, mut r, mut scale) = (n / p, n % p, f);
    while q < 1 << 55 {
        let k = (q.leading_zeros() - 8).min(p.leading_zeros());
        q = (q << k) | ((r << k) / p);
        r = (r << k) % p;
        scale += k;
    }
    // A sticky low bit stands for the remainder: q has 56 bits or more, so it rounds as the exact
    // quotient would. Above 2^53 / 10^22 the result is normal: scaling by 2^-scale is exact.
    let q = q | u64::from(r != 0);
    Some(q as f64 * f64::from_bits(u64::from(1023 - scale) << 52))
}

/// `digits` (`count` of them, no leading or trailing zero) times 10^e10, to the nearest double.
fn magnitude(count: usize, e10: i64, digits: impl Iterator<Item = u8>) -> f64 {
    // value < 10^point and value >= 10^(point - 1).
    let point = count as i64 + e10;
    if count == 0 || point < -323 {
        // Below 10^-324, under half the smallest subnormal.
        return 0.0;
    }
    if point > 310 {
        return f64::INFINITY;
    }
    let kept = count.min(KEPT_DIGITS);
    let mut r = Big::from_u64(0);
    for d in digits.take(kept) {
        r.mul_add(10, u32::from(d));
    }
    // The dropped digits end in a non-zero one.
    let tail = count > kept;
    // |e| <= 1123 here, since -323 <= point <= 310 and at most 800 digits are kept.
    let e = (e10 + (count - kept) as i64) as i32;
    nearest(r, e, tail)
}

/// The double nearest to `r * 10^e` (plus a non-zero amount below one unit of `r` when `tail`).
#[inline(never)]
fn nearest(mut r: Big, e: i32, tail: bool) -> f64 {
    // r * 10^e = (r * 5^e) * 2^e = r / s * 2^k, with r / s in [1, 2) once scaled.
    let mut s = Big::from_u64(1);
    if e < 0 {
        s.mul_pow(5, e.unsigned_abs());
    } else {
        r.mul_pow(5, e.unsigned_abs());
    }
    let shift = r.bit_len() as i32 - s.bit_len() as i32;
    if shift > 0 {
        s.shl(shift.unsigned_abs());
    } else {
        r.shl(shift.unsigned_abs());
    }
    let mut k = e + shift;
    if r.cmp(&s).is_lt() {
        r.shl(1);
        k -= 1;
    }
    if k > 1023 {
        return f64::INFINITY;
    }
    // The lowest bit the double keeps: 2^-52 of the leading one, or 2^-1074 (subnormals).
    let low = (k - 52).max(-1074);
    if k < low - 1 {
        // Below half of 2^low, the smallest subnormal.
        return 0.0;
    }
    // Binary long division: the next bit of r / s.
    let mut next_bit = || {
        let bit = r.cmp(&s).is_ge();
        if bit {
            r.sub(&s);
        }
        r.mul_add(2, 0);
        bit
    };
    let mut m = 0u64;
    for _ in low..=k {
        m = 2 * m + u64::from(next_bit());
    }
    let half = next_bit();
    if half && (tail || !r.is_zero() || m % 2 == 1) {
        m += 1;
    }
    // Biased exponent field plus the significand with its leading one: a carry out of the
    // significand (or into the exponent field) lands where it belongs, up to infinity.
    f64::from_bits((((low + 1074) as u64) << 52) + m)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::json::test_rng::Rng;

    fn check(text: &str) {
        let want: f64 = text.parse().unwrap();
        let got = parse_f64(text);
        assert_eq!(got.to_bits(), want.to_bits(), "{text}: {got:e} vs {want:e}");
    }

    fn digits(rng: &mut Rng, len: usize) -> String {
        (0..len)
            .map(|_| char::from(b'0' + rng.below(10) as u8))
            .collect()
    }

    #[test]
    fn edge_cases() {
        for text in [
            "0",
            "-0",
            "0.0",
            "-0.0e-5",
            "0e999999999999999999999",
            "1",
            "-1",
            "9007199254740993",
            "9007199254740992.5",
            "9007199254740993.0000000000000000000000000000000000000000001",
            "2.2250738585072011e-308",
            "2.2250738585072012e-308",
            "2.2250738585072014e-308",
            "2.225073858507201136057409796709131975934819546351645648e-308",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623158079e308",
            "1.7976931348623159e308",
            "1.797693134862315807937289714053034150799341327710e308",
            "1e308",
            "1e309",
            "-1e309",
            "1e400",
            "1E+999999999999999999999999",
            "5e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "2.47032822920623272088e-324",
            "4.9406564584124654e-324",
            "7.4109846876186982e-324",
            "1e-323",
            "1e-324",
            "1e-400",
            "1e-99999999999999999999999",
            "0.1",
            "0.30000000000000004",
            "123456789012345678901234567890",
            "1e22",
            "1e23",
            "8.5e22",
            "9007199254740993e-22",
            "100000000000000000000000000000000000000000000000000e-50",
            "0.000000000000000000000000000000000000000000000000001e50",
            "4.35679e-10",
            "1.5e-9",
            "0.8444218515250481",
            "18446744073709551616",
            "1448997445238699",
            "5.0e-324",
            "3.4028234663852886e38",
        ] {
            check(text);
        }
        assert!(parse_f64("-0").is_sign_negative());
        assert_eq!(parse_f64("1e309"), f64::INFINITY);
    }

    #[test]
    fn random_digit_strings_across_the_exponent_range() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for i in 0..200_000 {
            let len = 1 + rng.below(25);
            let mut digits = digits(&mut rng, len);
            if i % 2 == 0 {
                // Mostly a leading non-zero digit; sometimes leading zeros.
                digits.replace_range(..1, &(1 + rng.below(9)).to_string());
            }
            let exp = rng.below(680) as i64 - 345 - len as i64;
            let sign = if rng.below(2) == 0 { "" } else { "-" };
            let text = match rng.below(3) {
                // d.ddd e±x
                0 => {
                    let digits = digits.trim_start_matches('0');
                    let digits = if digits.is_empty() { "0" } else { digits };
                    let (first, rest) = digits.split_at(1);
                    let point = if rest.is_empty() { "" } else { "." };
                    format!("{sign}{first}{point}{rest}e{}", exp + rest.len() as i64)
                }
                // ddd e±x
                1 => format!(
                    "{sign}{}E{exp:+}",
                    match digits.trim_start_matches('0') {
                        "" => "0",
                        d => d,
                    }
                ),
                // 0.000ddd or ddd.ddd without an exponent, when short enough to write out.
                _ if exp.abs() > 40 => format!("{sign}0.{digits}e{}", exp + len as i64),
                _ => {
                    let d = digits.trim_start_matches('0');
                    let d = if d.is_empty() { "0" } else { d };
                    let point = d.len() as i64 + exp;
                    if exp >= 0 {
                        format!("{sign}{d}{}", "0".repeat(exp as usize))
                    } else if point > 0 {
                        let (int, frac) = d.split_at(point as usize);
                        format!("{sign}{int}.{frac}")
                    } else {
                        format!("{sign}0.{}{d}", "0".repeat(point.unsigned_abs() as usize))
                    }
                }
            };
            check(&text);
        }
    }

    #[test]
    fn random_short_fractions_and_integers() {
        // The exact small paths: up to 19 digits, 10^-22 to 10^3.
        let mut rng = Rng(0x6a09_e667_f3bc_c909);
        for _ in 0..100_000 {
            let len = 1 + rng.below(19);
            let digits = format!("{}{}", 1 + rng.below(9), digits(&mut rng, len - 1));
            let exp = rng.below(26) as i64 - 22;
            check(&format!("{digits}e{exp}"));
        }
    }

    #[test]
    fn random_doubles_and_their_neighbours_in_decimal() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let x = f64::from_bits(rng.next() >> rng.below(12));
            if !x.is_finite() {
                continue;
            }
            check(&format!("{x:e}"));
            check(&format!("{x:?}"));
            check(&format!("{x:.16e}"));
            check(&format!("{x:.20e}"));
            // Long mantissas: 40+ digits, the exact expansion cut short.
            check(&format!("{:.45e}", x));
            check(&format!("{:.60e}", x));
        }
    }

    /// The exact decimal digits of `odd * 2^exp2` (the value is `digits * 10^returned`).
    fn exact_decimal(odd: u64, exp2: i32) -> (Vec<u8>, i32) {
        // Little-endian digits; odd * 2^-n = odd * 5^n / 10^n.
        let mut digits: Vec<u64> = odd
            .to_string()
            .bytes()
            .rev()
            .map(|b| u64::from(b - b'0'))
            .collect();
        let (base, mut power) = if exp2 < 0 { (5u64, -exp2) } else { (2, exp2) };
        while power > 0 {
            let step = power.min(13);
            power -= step;
            let factor = base.pow(step as u32);
            let mut carry = 0;
            for d in digits.iter_mut() {
                let v = *d * factor + carry;
                *d = v % 10;
                carry = v / 10;
            }
            while carry > 0 {
                digits.push(carry % 10);
                carry /= 10;
            }
        }
        (digits.iter().rev().map(|&d| d as u8).collect(), exp2.min(0))
    }

    #[test]
    fn midpoints_between_doubles_and_their_neighbours() {
        let mut rng = Rng(0x5851_f42d_4c95_7f2d);
        let mut doubles = vec![0.0, f64::MIN_POSITIVE, f64::MAX, 1.0, 9007199254740992.0];
        doubles.push(f64::from_bits(f64::MIN_POSITIVE.to_bits() - 1));
        for _ in 0..150 {
            doubles.push(f64::from_bits(rng.next() >> 1));
            doubles.push(f64::from_bits(rng.below(1 << 53) as u64));
        }
        for x in doubles.into_iter().filter(|x| x.is_finite()) {
            // The midpoint above x: (2 * significand + 1) * 2^(exponent - 1).
            let bits = x.to_bits();
            let biased = (bits >> 52) as i32;
            let fraction = bits & ((1 << 52) - 1);
            let (significand, exp2) = if biased == 0 {
                (fraction, -1074)
            } else {
                (fraction | (1 << 52), biased - 1075)
            };
            let (digits, exp10) = exact_decimal(2 * significand + 1, exp2 - 1);
            let text: String = digits.iter().map(|&d| char::from(b'0' + d)).collect();
            assert!(text.len() <= 768, "{}", text.len());
            check(&format!("{text}e{exp10}"));
            // Just above: a non-zero digit far beyond the kept ones.
            check(&format!("{text}{}1e{}", "0".repeat(900), exp10 - 901));
            check(&format!("{text}1e{}", exp10 - 1));
            // Just below: one less in the last digit (not a zero below 1, where it is a 5).
            let last = text.as_bytes()[text.len() - 1];
            if last == b'0' {
                continue;
            }
            let below = format!("{}{}", &text[..text.len() - 1], char::from(last - 1));
            check(&format!("{below}e{exp10}"));
            check(&format!("{below}{}e{}", "9".repeat(900), exp10 - 900));
        }
    }

    #[test]
    fn long_mantissas_and_extreme_exponents() {
        let mut rng = Rng(0x1405_7b7e_f767_814f);
        for _ in 0..1_000 {
            let len = 26 + rng.below(1200);
            let digits = format!("{}{}", 1 + rng.below(9), digits(&mut rng, len));
            let exp = rng.below(2000) as i64 - 1000 - len as i64 / 2;
            check(&format!("{digits}e{exp}"));
            check(&format!("0.{digits}e{}", exp + 300));
        }
        for exp in -1200..=400 {
            check(&format!("1e{exp}"));
            check(&format!("9.999999999999999999999e{exp}"));
            check(&format!("{}e{exp}", "9".repeat(800)));
            check(&format!("{}e{exp}", "1".repeat(820)));
        }
    }
}
