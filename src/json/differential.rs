//! Differential tests of the hand-written JSON reader, float parser, number formatter and
//! canonical writer against independent references (dev-dependencies only: the shipped `.wasm`
//! keeps its own code): `str::parse::<f64>`, serde_json (with `float_roundtrip`), `ryu-js`
//! (ECMAScript `Number#toString`), `serde_jcs` (an RFC 8785 implementation) and the number
//! vectors of RFC 8785, Appendix B.
//!
//! Every `cargo test` runs a fixed sample (a fixed seed, 1-2 s in a debug build). For a
//! large run set `DIFFERENTIAL_CASES` (cases per check) and build optimised, e.g.
//! `DIFFERENTIAL_CASES=1000000 cargo test --release --lib differential -- --nocapture`; each check
//! prints its count.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::json::canonical::{write_value, KeepAll};
use crate::json::float_parse::parse_f64;
use crate::json::number_format::format_number;
use crate::json::reader::Reader;
use serde_json::Value;

/// Cases per check: `DIFFERENTIAL_CASES`, else the fixed sample size `default`.
fn cases(default: usize) -> usize {
    std::env::var("DIFFERENTIAL_CASES")
        .ok()
        .and_then(|n| n.replace('_', "").parse().ok())
        .unwrap_or(default)
}

fn report(check: &str, count: usize) {
    println!("differential {check}: {count} cases agree");
}

/// xorshift64*: deterministic, so a failure names a case that reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
    /// `min_len` to `min_len + spread - 1` random digits.
    fn digits(&mut self, min_len: usize, spread: usize) -> String {
        let len = min_len + self.below(spread);
        (0..len)
            .map(|_| char::from(b'0' + self.below(10) as u8))
            .collect()
    }
    /// A double spread over the whole range: random bits (finite), or a short decimal.
    fn double(&mut self) -> f64 {
        loop {
            let x = match self.below(4) {
                0 => (self.next() % 1_000_000) as f64 / 10f64.powi(self.below(8) as i32),
                1 => (self.next() >> self.below(64)) as f64,
                _ => f64::from_bits(self.next()),
            };
            if x.is_finite() {
                return x;
            }
        }
    }
}

/// JSON number text of many shapes: integers of any length, fractions, exponents (both cases,
/// signed or not), the shortest text of a double, and with `long` also the exact expansion of a
/// double or of the midpoint between two neighbours (hundreds of digits).
fn number_text(rng: &mut Rng, long: bool) -> String {
    let sign = if rng.chance(3) { "-" } else { "" };
    let int = |rng: &mut Rng, max: usize| {
        let len = 1 + rng.below(max);
        let first = char::from(b'1' + rng.below(9) as u8);
        if rng.chance(4) {
            "0".to_owned()
        } else {
            format!("{first}{}", rng.digits(len - 1, 1))
        }
    };
    match rng.below(if long { 6 } else { 4 }) {
        0 => format!("{sign}{}", int(rng, 25)),
        1 => {
            let int = int(rng, 20);
            format!("{sign}{int}.{}", rng.digits(1, 25))
        }
        2 => {
            let e = if rng.chance(2) { "e" } else { "E" };
            let exp_sign = ["", "+", "-"][rng.below(3)];
            let exp_max = if rng.chance(4) { 400 } else { 30 };
            let exp = rng.below(exp_max);
            let frac = if rng.chance(2) {
                format!(".{}", rng.digits(1, 20))
            } else {
                String::new()
            };
            format!("{sign}{}{frac}{e}{exp_sign}{exp}", int(rng, 20))
        }
        3 => format!(
            "{sign}{}",
            ryu_js::Buffer::new().format_finite(rng.double().abs())
        ),
        4 => format!("{sign}{}", exact_decimal(rng.double().abs())),
        _ => format!("{sign}{}", midpoint(rng.double().abs(), rng.below(3))),
    }
}

/// The exact value of a finite double >= 0 in positional notation (at most 1074 fraction digits).
fn exact_decimal(x: f64) -> String {
    let text = format!("{x:.1074}");
    let trimmed = text.trim_end_matches('0');
    if trimmed.ends_with('.') {
        format!("{trimmed}0")
    } else {
        trimmed.to_owned()
    }
}

/// The exact midpoint between `x` (>= 0) and the next double up, exact (`nudge` 0), just below
/// (1; just above when the midpoint is a whole number) or just above (2): the hardest cases for
/// rounding to nearest, ties to even.
fn midpoint(x: f64, nudge: usize) -> String {
    let next = f64::from_bits(x.to_bits() + 1);
    if !next.is_finite() {
        return exact_decimal(x);
    }
    // Both values as digit strings with 1075 fraction digits, summed and halved digit by digit.
    let a = format!("{x:.1075}");
    let b = format!("{next:.1075}");
    let width = a.len().max(b.len());
    let pad = |s: &str| format!("{s:0>width$}").replace('.', "");
    let (a, b) = (pad(&a), pad(&b));
    let mut sum = vec![0u8; a.len() + 1];
    let mut carry = 0;
    for i in (0..a.len()).rev() {
        let d = (a.as_bytes()[i] - b'0') + (b.as_bytes()[i] - b'0') + carry;
        sum[i + 1] = d % 10;
        carry = d / 10;
    }
    sum[0] = carry;
    let mut half = Vec::with_capacity(sum.len());
    let mut rem = 0;
    for d in sum {
        let v = rem * 10 + d;
        half.push(b'0' + v / 2);
        rem = v % 2;
    }
    // sum has one more integer digit than a; a's last digit is the 1075th fraction digit.
    let frac_len = 1075;
    let (int, frac) = half.split_at(half.len() - frac_len);
    let int = String::from_utf8(int.to_vec()).unwrap();
    let int = match int.trim_start_matches('0') {
        "" => "0",
        digits => digits,
    };
    let mut frac = String::from_utf8(frac.to_vec()).unwrap();
    // The sum was odd when the halving left a remainder: the midpoint ends in a 5.
    if rem == 1 {
        frac.push('5');
    }
    match nudge {
        1 => {
            // Just below: replace the final 5 by 4 and append nines.
            let mut frac = frac.trim_end_matches('0').to_owned();
            if let Some(last) = frac.pop() {
                frac.push(char::from(last as u8 - 1));
            }
            format!("{int}.{frac}999")
            // (A whole-number midpoint leaves `frac` empty: "{int}.999", just above it.)
        }
        2 => format!("{int}.{}0001", frac.trim_end_matches('0')),
        _ => {
            let frac = frac.trim_end_matches('0');
            format!("{int}.{}", if frac.is_empty() { "0" } else { frac })
        }
    }
}

#[test]
fn float_parser_agrees_with_std() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let n = cases(10_000);
    for _ in 0..n {
        let text = number_text(&mut rng, true);
        let want: f64 = text.parse().unwrap();
        let got = parse_f64(&text);
        assert_eq!(got.to_bits(), want.to_bits(), "{text}");
    }
    report("float parser vs str::parse", n);
    // 763 digits, 1e-761 above the midpoint of two neighbours: the upper one (as Python's
    // correctly rounded float() also says). serde_json 1.0.154 with float_roundtrip reads the
    // lower one, which is why the reader's documents below keep to shorter numbers.
    let text = midpoint(2.277249907823355e-212, 2);
    assert_eq!(text.len(), 763);
    assert_eq!(parse_f64(&text), 2.2772499078233554e-212);
    assert_eq!(text.parse::<f64>().unwrap(), 2.2772499078233554e-212);
}

#[test]
fn number_formatter_agrees_with_ryu_js() {
    let mut rng = Rng(0x0bad_cafe_f00d_beef);
    let n = cases(20_000);
    let mut buffer = ryu_js::Buffer::new();
    for _ in 0..n {
        let x = rng.double();
        let x = if rng.chance(2) { -x } else { x };
        assert_eq!(format_number(x), buffer.format_finite(x), "{:e}", x);
    }
    report("number formatter vs ryu-js", n);
}

/// RFC 8785, Appendix B: IEEE 754 bit patterns and their ECMAScript text.
#[test]
fn number_formatter_meets_the_rfc_8785_vectors() {
    let vectors: [(u64, &str); 24] = [
        (0x0000_0000_0000_0000, "0"),
        (0x8000_0000_0000_0000, "0"),
        (0x0000_0000_0000_0001, "5e-324"),
        (0x8000_0000_0000_0001, "-5e-324"),
        (0x7fef_ffff_ffff_ffff, "1.7976931348623157e+308"),
        (0xffef_ffff_ffff_ffff, "-1.7976931348623157e+308"),
        (0x4340_0000_0000_0000, "9007199254740992"),
        (0xc340_0000_0000_0000, "-9007199254740992"),
        (0x4430_0000_0000_0000, "295147905179352830000"),
        (0x44b5_2d02_c7e1_4af5, "9.999999999999997e+22"),
        (0x44b5_2d02_c7e1_4af6, "1e+23"),
        (0x44b5_2d02_c7e1_4af7, "1.0000000000000001e+23"),
        (0x444b_1ae4_d6e2_ef4e, "999999999999999700000"),
        (0x444b_1ae4_d6e2_ef4f, "999999999999999900000"),
        (0x444b_1ae4_d6e2_ef50, "1e+21"),
        (0x3eb0_c6f7_a0b5_ed8c, "9.999999999999997e-7"),
        (0x3eb0_c6f7_a0b5_ed8d, "0.000001"),
        (0x41b3_de43_5555_5553, "333333333.3333332"),
        (0x41b3_de43_5555_5554, "333333333.33333325"),
        (0x41b3_de43_5555_5555, "333333333.3333333"),
        (0x41b3_de43_5555_5556, "333333333.3333334"),
        (0x41b3_de43_5555_5557, "333333333.33333343"),
        (0xbecb_f647_612f_3696, "-0.0000033333333333333333"),
        (0x4314_3ff3_c1cb_0959, "1424953923781206.2"),
    ];
    for (bits, want) in vectors {
        let x = f64::from_bits(bits);
        assert_eq!(format_number(x), want, "{bits:#018x}");
        // The text reads back as the same double (but -0, which JCS writes as 0).
        if x != 0.0 {
            assert_eq!(parse_f64(want).to_bits(), bits, "{want}");
        }
    }
}

/// A random JSON document: nested values, strings with every kind of escape (no lone
/// surrogates: serde_json refuses them, the core reads them by its own rule), numbers of every
/// shape, keys that repeat, whitespace between tokens.
fn document(rng: &mut Rng, depth: usize, out: &mut String) {
    let ws = |rng: &mut Rng, out: &mut String| {
        if rng.chance(4) {
            out.push_str([" ", "\n", "\t", "\r\n  "][rng.below(4)]);
        }
    };
    ws(rng, out);
    match rng.below(if depth == 0 { 5 } else { 8 }) {
        0 => out.push_str(["null", "true", "false"][rng.below(3)]),
        // Numbers of hundreds of digits are left to the float parser's own check (above).
        1 | 2 => out.push_str(&number_text(rng, false)),
        3 | 4 => string(rng, 12, out),
        5 => {
            out.push('[');
            for i in 0..rng.below(5) {
                if i > 0 {
                    out.push(',');
                }
                document(rng, depth - 1, out);
            }
            ws(rng, out);
            out.push(']');
        }
        _ => {
            out.push('{');
            for i in 0..rng.below(6) {
                if i > 0 {
                    out.push(',');
                }
                ws(rng, out);
                string(rng, 3, out);
                ws(rng, out);
                out.push(':');
                document(rng, depth - 1, out);
            }
            ws(rng, out);
            out.push('}');
        }
    }
    ws(rng, out);
}

/// A JSON string of up to `max_len` characters; short ones make keys repeat.
fn string(rng: &mut Rng, max_len: usize, out: &mut String) {
    out.push('"');
    for _ in 0..rng.below(max_len + 1) {
        match rng.below(14) {
            0 => out
                .push_str(["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"][rng.below(8)]),
            1 => out.push_str(&format!("\\u{:04x}", rng.below(0x20))),
            2 => out.push_str(&format!("\\u{:04X}", 0x20 + rng.below(0xD800 - 0x20))),
            3 => out.push_str(&format!("\\u{:04x}", 0xE000 + rng.below(0x2000))),
            4 => {
                let c = 0x10000 + rng.below(0x10_0000) as u32;
                let (high, low) = (
                    0xD800 + ((c - 0x10000) >> 10),
                    0xDC00 + ((c - 0x10000) & 0x3FF),
                );
                out.push_str(&format!("\\u{high:04x}\\u{low:04X}"));
            }
            5 => out.push(
                [
                    'é',
                    '€',
                    '\u{E000}',
                    '\u{FFFD}',
                    '😀',
                    '\u{10FFFF}',
                    '\u{7F}',
                ][rng.below(7)],
            ),
            _ => out.push(char::from(b'a' + rng.below(4) as u8)),
        }
    }
    out.push('"');
}

/// Bytes a mutation may insert: every structural character and a few that break numbers.
const MUTATIONS: &[u8] = b"{}[],:\"\\0-.eEx u";

#[test]
fn reader_and_canonical_writer_agree_with_serde_json_and_serde_jcs() {
    let mut rng = Rng(0x5eed_0fd1_ff00);
    let n = cases(5_000);
    let (mut valid, mut invalid) = (0, 0);
    for i in 0..n {
        let mut text = String::new();
        document(&mut rng, 4, &mut text);
        if i % 3 == 2 {
            // A mutated document: both parsers must accept it or both refuse it.
            let mut bytes = text.into_bytes();
            let at = rng.below(bytes.len() + 1);
            if rng.chance(2) && at < bytes.len() {
                bytes.remove(at);
            } else {
                bytes.insert(at, MUTATIONS[rng.below(MUTATIONS.len())]);
            }
            let Ok(mutated) = String::from_utf8(bytes) else {
                continue;
            };
            text = mutated;
        }
        let theirs = serde_json::from_str::<Value>(&text);
        let mut reader = Reader::new(&text);
        let ours = reader.value(127).and_then(|v| reader.end().map(|()| v));
        if reader.lone_surrogates() > 0 {
            // A mutation cut a surrogate pair: a lone surrogate, which only the core reads.
            continue;
        }
        match (&ours, &theirs) {
            (Ok(ours), Ok(theirs)) => assert_eq!(ours, theirs, "{text}"),
            (Err(_), Err(_)) => {
                invalid += 1;
                continue;
            }
            _ => panic!("{text}: ours {ours:?}, serde_json {theirs:?}"),
        }
        let value = theirs.unwrap();
        valid += 1;
        // Canonical form: streamed from the text, written from the tree, and serde_jcs's of the
        // same value (its numbers as doubles, as JCS reads every number).
        let mut streamed = Vec::new();
        let mut reader = Reader::new(&text);
        reader
            .write_canonical(127, &KeepAll, &mut streamed)
            .unwrap();
        let mut written = Vec::new();
        write_value(&value, &KeepAll, &mut written);
        let reference = serde_jcs::to_string(&as_doubles(&value)).unwrap();
        let streamed = String::from_utf8(streamed).unwrap();
        assert_eq!(streamed, reference, "{text}");
        assert_eq!(String::from_utf8(written).unwrap(), reference, "{text}");
    }
    assert!(
        valid > n / 2 && invalid > n / 20,
        "{valid} valid, {invalid} invalid"
    );
    report(
        "JSON reader vs serde_json, canonical writer vs serde_jcs",
        valid + invalid,
    );
}

/// The value with every number as the nearest double.
fn as_doubles(value: &Value) -> Value {
    match value {
        Value::Number(n) => serde_json::Number::from_f64(n.as_f64().unwrap())
            .map(Value::Number)
            .unwrap(),
        Value::Array(items) => Value::Array(items.iter().map(as_doubles).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), as_doubles(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// RFC 8785, section 3.2.3 (key order) and the sample of section 3.2.4, with keys given in an
/// order that is not the canonical one.
#[test]
fn canonical_writer_meets_the_rfc_8785_samples() {
    let canon = |text: &str| {
        let mut out = Vec::new();
        Reader::new(text)
            .write_canonical(127, &KeepAll, &mut out)
            .unwrap();
        String::from_utf8(out).unwrap()
    };
    assert_eq!(
        canon(r#"{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}"#),
        "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u{80}\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\u{FB33}\":\"Hebrew Letter Dalet With Dagesh\"}"
    );
    assert_eq!(
        canon(
            r#"{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/","literals":[null,true,false]}"#
        ),
        r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#
    );
}
