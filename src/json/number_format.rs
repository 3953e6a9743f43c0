//! Doubles as ECMAScript's `Number#toString` writes them (what RFC 8785 prescribes for numbers):
//! the shortest digits that read back as the same double, positional or with an exponent as the
//! standard says. Integers below 2^53 take a direct path; short fractions a floating-point one;
//! the rest Burger and Dybvig's exact digit generation over `bignum::Big`.

use crate::json::bignum::Big;
use crate::json::digest::ByteSink;

/// Below 2^53 an integral double's exact digits are also its shortest round-trip digits.
const EXACT_INTEGER_LIMIT: f64 = 9_007_199_254_740_992.0;

/// Writes a finite double the way ECMAScript's `Number.prototype.toString` does. Integers below
/// 2^53 (the common case) are written without allocating.
pub fn write_number(x: f64, sink: &mut dyn ByteSink) {
    if x.fract() == 0.0 && x.abs() < EXACT_INTEGER_LIMIT {
        if x < 0.0 {
            sink.put(b"-");
        }
        write_uint(x.abs() as u64, sink);
        return;
    }
    write_number_text(x, sink);
}

/// Writes `n` in decimal.
pub fn write_uint(mut n: u64, sink: &mut dyn ByteSink) {
    let mut buf = [0u8; 20];
    let mut pos = buf.len();
    loop {
        pos -= 1;
        if let Some(slot) = buf.get_mut(pos) {
            *slot = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 {
            break;
        }
    }
    sink.put(buf.get(pos..).unwrap_or_default());
}

/// A finite number as ECMAScript's `Number#toString` writes it (RFC 8785's number form).
pub fn format_number(x: f64) -> String {
    let mut out = Vec::new();
    write_number_text(x, &mut out);
    // Only ASCII was written.
    String::from_utf8(out).unwrap_or_default()
}

/// `Number#toString` of `x` (ECMAScript 2024, 6.1.6.1.20): the shortest digits that read back as
/// `x` (the closer, then the even, of two candidates), positional for exponents -7 < n <= 21 and
/// `d.ddde±n` outside.
fn write_number_text(x: f64, sink: &mut dyn ByteSink) {
    if x == 0.0 || !x.is_finite() {
        // JSON text cannot carry NaN or infinities; -0 prints as 0 in ECMAScript.
        sink.put(b"0");
        return;
    }
    if x < 0.0 {
        sink.put(b"-");
    }
    let decimal = Decimal::shortest(x.abs(), true);
    let digits = decimal.digits();
    let n = decimal.point;
    if (-6 < n && n <= 0) || (0 < n && n <= 21) {
        decimal.write_positional(sink);
        return;
    }
    let (first, rest) = digits.split_at(1.min(digits.len()));
    sink.put(first);
    if !rest.is_empty() {
        sink.put(b".");
        sink.put(rest);
    }
    sink.put(if n > 0 { b"e+" } else { b"e-" });
    write_uint(u64::from((n - 1).unsigned_abs()), sink);
}

/// A positive decimal `0.d1d2…dk × 10^point` with at most 17 digits, no leading or trailing zero.
pub(crate) struct Decimal {
    digits: [u8; 17],
    len: usize,
    pub point: i32,
}

impl Decimal {
    /// The digits, as ASCII.
    pub fn digits(&self) -> &[u8] {
        self.digits.get(..self.len).unwrap_or_default()
    }

    /// Writes the number without an exponent: `123.45`, `0.00012`, `1200`.
    pub fn write_positional(&self, sink: &mut dyn ByteSink) {
        let digits = self.digits();
        let zeros = |n: i32, sink: &mut dyn ByteSink| {
            for _ in 0..n {
                sink.put(b"0");
            }
        };
        if self.point <= 0 {
            sink.put(b"0.");
            zeros(-self.point, sink);
            sink.put(digits);
        } else if self.point as usize >= digits.len() {
            sink.put(digits);
            zeros(self.point - digits.len() as i32, sink);
        } else {
            let (int, frac) = digits.split_at(self.point as usize);
            sink.put(int);
            sink.put(b".");
            sink.put(frac);
        }
    }

    fn push(&mut self, digit: u8) {
        if let Some(slot) = self.digits.get_mut(self.len) {
            *slot = b'0' + digit;
            self.len += 1;
        }
    }

    /// The shortest decimal that reads back as `x` (finite, > 0); of two equally short ones the
    /// closer to `x`, and on an exact tie the even one (`ties_to_even`, ECMAScript) or the larger
    /// (Rust's `Display`).
    pub fn shortest(x: f64, ties_to_even: bool) -> Decimal {
        let mut decimal = Decimal {
            digits: [0; 17],
            len: 0,
            point: 0,
        };
        if let Some((n, frac_digits)) = short_fraction(x) {
            let mut text = Vec::new();
            write_uint(n, &mut text);
            while text.last() == Some(&b'0') {
                text.pop();
            }
            decimal.len = text.len().min(17);
            for (slot, digit) in decimal.digits.iter_mut().zip(text) {
                *slot = digit;
            }
            decimal.point = decimal_len(n) - frac_digits;
            return decimal;
        }
        decimal.generate(x, ties_to_even);
        decimal
    }

    /// Burger and Dybvig's free-format algorithm (PLDI 1996) in exact arithmetic: `x = r / s`,
    /// and the values that read back as `x` are those within `m_minus / s` below and `m_plus / s`
    /// above it (bounds included when the mantissa is even, as round-half-even parsing maps them
    /// to `x`).
    #[inline(never)]
    fn generate(&mut self, x: f64, ties_to_even: bool) {
        let bits = x.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let fraction = bits & ((1 << 52) - 1);
        let (mant, exp) = if biased == 0 {
            (fraction, -1074)
        } else {
            (fraction | (1 << 52), biased - 1075)
        };
        let inclusive = mant % 2 == 0;
        // At a power of two (above the smallest normal) the gap below is half the gap above.
        let narrow_below = fraction == 0 && biased > 1;
        let factor = if narrow_below { 4 } else { 2 };
        let mut r = Big::from_u64(mant * factor);
        let mut s = Big::from_u64(factor);
        let mut m_plus = Big::from_u64(factor / 2);
        let mut m_minus = Big::from_u64(1);
        if exp >= 0 {
            r.shl(exp as u32);
            m_plus.shl(exp as u32);
            m_minus.shl(exp as u32);
        } else {
            s.shl(exp.unsigned_abs());
        }
        // 10^(k-1) <= x < 10^(k+1) for this estimate of log10(x); the check below settles it.
        let bit_len = 64 - mant.leading_zeros() as i32;
        let mut k = (f64::from(bit_len + exp - 1) * std::f64::consts::LOG10_2).ceil() as i32;
        if k >= 0 {
            s.mul_pow(10, k as u32);
        } else {
            r.mul_pow(10, k.unsigned_abs());
            m_plus.mul_pow(10, k.unsigned_abs());
            m_minus.mul_pow(10, k.unsigned_abs());
        }
        // `below(a, b)`: a < b, or a <= b when the bounds are included.
        let below = |a: &Big, b: &Big| match a.cmp(b) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Equal => inclusive,
            std::cmp::Ordering::Greater => false,
        };
        if below(&s, &r.plus(&m_plus)) {
            k += 1;
        } else {
            r.mul_add(10, 0);
            m_plus.mul_add(10, 0);
            m_minus.mul_add(10, 0);
        }
        self.point = k;
        loop {
            let mut digit = 0;
            while r.cmp(&s).is_ge() {
                r.sub(&s);
                digit += 1;
            }
            let low = below(&r, &m_minus);
            let high = below(&s, &r.plus(&m_plus));
            if low || high || self.len == self.digits.len() {
                let round_up = high && {
                    let twice = r.plus(&r);
                    match twice.cmp(&s) {
                        std::cmp::Ordering::Less => !low,
                        std::cmp::Ordering::Equal => !low || !ties_to_even || digit % 2 == 1,
                        std::cmp::Ordering::Greater => true,
                    }
                };
                self.push(digit);
                if round_up {
                    self.increment();
                }
                return;
            }
            self.push(digit);
            r.mul_add(10, 0);
            m_plus.mul_add(10, 0);
            m_minus.mul_add(10, 0);
        }
    }

    /// Adds one unit in the last digit, dropping the trailing zeros a carry leaves.
    fn increment(&mut self) {
        while let Some(last) = self.len.checked_sub(1) {
            match self.digits.get_mut(last) {
                Some(digit) if *digit < b'9' => {
                    *digit += 1;
                    return;
                }
                _ => self.len = last,
            }
        }
        // All nines: 0.99…9 × 10^point rounds up to 0.1 × 10^(point + 1).
        self.push(1);
        self.point += 1;
    }
}

/// `(n, f)` with `n / 10^f == x` and `n` below 10^15, for the smallest such `f` in 1..=22. Fewer
/// than 16 digits leave round-trip candidates no more than 0.12 from `x * 10^f`, so the rounded
/// floating-point product is the only candidate, and the division (exact operands, one rounding)
/// reads it back exactly as parsing would. Covers most non-integers met in practice without
/// big-number arithmetic.
fn short_fraction(x: f64) -> Option<(u64, i32)> {
    let mut scale = 1.0;
    for frac_digits in 1..=22 {
        // Powers of ten up to 10^22 are exact doubles.
        scale *= 10.0;
        let scaled = x * scale;
        if scaled >= 1e15 {
            return None;
        }
        let n = scaled.round();
        if n / scale == x {
            return Some((n as u64, frac_digits));
        }
    }
    None
}

/// The number of decimal digits of `n`.
fn decimal_len(mut n: u64) -> i32 {
    let mut len = 1;
    while n >= 10 {
        n /= 10;
        len += 1;
    }
    len
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn integer_fast_path_matches_the_general_formatter() {
        for x in [
            0.0,
            -0.0,
            7.0,
            -42.0,
            1e20,
            999_999_999_999_999_900_000.0,
            9007199254740993.0,
        ] {
            let mut fast = Vec::new();
            write_number(x, &mut fast);
            assert_eq!(String::from_utf8(fast).unwrap(), format_number(x), "{x}");
        }
    }

    #[test]
    fn numbers_follow_ecmascript() {
        let cases = [
            (1.0, "1"),
            (-0.0, "0"),
            (0.5, "0.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123456789.125, "123456789.125"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (-1.5e-9, "-1.5e-9"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (4.5, "4.5"),
            (0.1 + 0.2, "0.30000000000000004"),
            (9007199254740993.0, "9007199254740992"),
            (2.2250738585072014e-308, "2.2250738585072014e-308"),
            (123e-20, "1.23e-18"),
            (19.99, "19.99"),
            // Exact ties between two shortest candidates go to the even one (as in V8; Rust's
            // `{:e}` rounds these up, to ...624.3 and ...248.5).
            (2f64.powi(50) + 0.25, "1125899906842624.2"),
            (2f64.powi(50) + 0.75, "1125899906842624.8"),
            (2f64.powi(52) - 0.5, "4503599627370495.5"),
        ];
        for (x, want) in cases {
            assert_eq!(format_number(x), want, "{x}");
        }
    }

    #[test]
    fn numbers_are_shortest_and_read_back() {
        let mut rng = crate::json::test_rng::Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..50_000 {
            let state = rng.next();
            for x in [
                f64::from_bits(state),
                (state % 100_000_000) as f64 / 10_000.0,
            ] {
                if !x.is_finite() || x == 0.0 {
                    continue;
                }
                let text = format_number(x);
                assert_eq!(text.parse::<f64>().unwrap(), x, "{text}");
                // Rust's `{:e}` gives the shortest digits too (ties aside, of the same length).
                let sci = format!("{:e}", x.abs());
                let want = sci.split('e').next().unwrap().replace('.', "").len();
                let mantissa = text.trim_start_matches('-').split('e').next().unwrap();
                let got = mantissa.trim_start_matches(['0', '.']).replace('.', "");
                assert_eq!(got.trim_end_matches('0').len(), want, "{text} vs {sci}");
            }
        }
    }
}
