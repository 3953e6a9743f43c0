//! RFC 8785 (JCS) canonical JSON, streamed straight into a byte sink such as a SHA-256 hasher:
//! object keys sorted by UTF-16 code units, numbers in ECMAScript `Number#toString` form, strings
//! minimally escaped. Optionally drops volatile object keys on the way (used for outcomes).

use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

/// A SHA-256 digest.
pub type Digest = [u8; 32];

/// Anything canonical bytes can be written to.
pub trait ByteSink {
    fn put(&mut self, bytes: &[u8]);
}

impl ByteSink for Sha256 {
    fn put(&mut self, bytes: &[u8]) {
        self.update(bytes);
    }
}

/// Bytes gathered before they are handed to the hasher.
const HASH_SINK_BUFFER: usize = 256;

/// SHA-256 fed through a small buffer. Canonical writers put many tiny pieces (quotes, commas,
/// keys), and each `update` of the hasher costs far more than copying a few bytes. The buffer
/// held raw content, so `finish` zeroes it.
pub struct HashSink {
    hasher: Sha256,
    buffer: [u8; HASH_SINK_BUFFER],
    len: usize,
}

impl HashSink {
    pub fn new() -> Self {
        HashSink {
            hasher: Sha256::new(),
            buffer: [0; HASH_SINK_BUFFER],
            len: 0,
        }
    }

    fn flush(&mut self) {
        self.hasher
            .update(self.buffer.get(..self.len).unwrap_or_default());
        self.len = 0;
    }

    pub fn finish(mut self) -> Digest {
        self.flush();
        self.buffer.fill(0);
        std::hint::black_box(&mut self.buffer);
        self.hasher.finalize_reset().into()
    }
}

impl Default for HashSink {
    fn default() -> Self {
        Self::new()
    }
}

impl ByteSink for HashSink {
    fn put(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        if let Some(room) = self.buffer.get_mut(self.len..end) {
            room.copy_from_slice(bytes);
            self.len = end;
            return;
        }
        self.flush();
        if let Some(room) = self.buffer.get_mut(..bytes.len()) {
            room.copy_from_slice(bytes);
            self.len = bytes.len();
        } else {
            self.hasher.update(bytes);
        }
    }
}

impl ByteSink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// Decides which object keys are dropped while canonicalising.
pub trait KeyFilter {
    fn drops(&self, key: &str) -> bool;
}

/// Keeps every key (used for call arguments).
pub struct KeepAll;

impl KeyFilter for KeepAll {
    fn drops(&self, _key: &str) -> bool {
        false
    }
}

/// SHA-256 of raw bytes.
pub fn sha256(bytes: &[u8]) -> Digest {
    Sha256::digest(bytes).into()
}

/// The canonical form of `value` as a string (tests and diagnostics).
pub fn to_canonical_string(value: &Value) -> String {
    let mut bytes = Vec::new();
    write_value(value, &KeepAll, &mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

pub fn write_value(value: &Value, filter: &dyn KeyFilter, sink: &mut dyn ByteSink) {
    match value {
        Value::Null => sink.put(b"null"),
        Value::Bool(true) => sink.put(b"true"),
        Value::Bool(false) => sink.put(b"false"),
        Value::Number(n) => write_number(n.as_f64().unwrap_or(0.0), sink),
        Value::String(s) => write_string(s, sink),
        Value::Array(items) => {
            sink.put(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    sink.put(b",");
                }
                write_value(item, filter, sink);
            }
            sink.put(b"]");
        }
        Value::Object(map) => write_object(map, filter, sink),
    }
}

fn write_object(map: &Map<String, Value>, filter: &dyn KeyFilter, sink: &mut dyn ByteSink) {
    write_members(map, &|key| filter.drops(key), filter, sink);
}

/// An object without the top-level members named in `without` (and without the keys `filter`
/// drops, at every depth), as if those members had been removed first.
pub fn write_object_without(
    map: &Map<String, Value>,
    without: &[&str],
    filter: &dyn KeyFilter,
    sink: &mut dyn ByteSink,
) {
    write_members(
        map,
        &|key| without.contains(&key) || filter.drops(key),
        filter,
        sink,
    );
}

fn write_members(
    map: &Map<String, Value>,
    drops: &dyn Fn(&str) -> bool,
    filter: &dyn KeyFilter,
    sink: &mut dyn ByteSink,
) {
    sink.put(b"{");
    let mut first = true;
    let mut member = |key: &str, value: &Value, sink: &mut dyn ByteSink| {
        if !first {
            sink.put(b",");
        }
        first = false;
        write_string(key, sink);
        sink.put(b":");
        write_value(value, filter, sink);
    };
    let kept = map.iter().filter(|(k, _)| !drops(k));
    // serde_json's map iterates keys in UTF-8 byte order, which equals UTF-16 order unless a key
    // holds a character at or above U+E000 (UTF-8 lead byte 0xEE or more): only then re-sort.
    if map.keys().any(|k| k.bytes().any(|b| b >= 0xEE)) {
        let mut members: Vec<(&String, &Value)> = kept.collect();
        heap_sort(&mut members, |a, b| {
            a.0.encode_utf16().lt(b.0.encode_utf16())
        });
        for (key, value) in members {
            member(key, value, sink);
        }
    } else {
        for (key, value) in kept {
            member(key, value, sink);
        }
    }
    sink.put(b"}");
}

/// In-place heapsort: O(n log n) on hostile input, and a few hundred bytes of code where the
/// standard library's sorts cost ~10 KB of `.wasm` for this one rare path.
pub(crate) fn heap_sort<T>(items: &mut [T], less: impl Fn(&T, &T) -> bool) {
    let less_at = |items: &[T], a: usize, b: usize| match (items.get(a), items.get(b)) {
        (Some(x), Some(y)) => less(x, y),
        _ => false,
    };
    let sift_down = |items: &mut [T], mut root: usize, end: usize| loop {
        let mut child = 2 * root + 1;
        if child >= end {
            break;
        }
        if child + 1 < end && less_at(items, child, child + 1) {
            child += 1;
        }
        if !less_at(items, root, child) {
            break;
        }
        items.swap(root, child);
        root = child;
    };
    let n = items.len();
    for root in (0..n / 2).rev() {
        sift_down(items, root, n);
    }
    for end in (1..n).rev() {
        items.swap(0, end);
        sift_down(items, 0, end);
    }
}

/// The length of the prefix of `bytes` without a quote, a backslash or a control character: the
/// part of a JSON string that needs no escaping. Eight bytes at a time.
pub fn plain_prefix_len(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut pos = 0;
    while let Some(chunk) = bytes.get(pos..pos + 8) {
        let Ok(chunk) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let v = u64::from_le_bytes(chunk);
        let quote = v ^ (ONES * u64::from(b'"'));
        let backslash = v ^ (ONES * u64::from(b'\\'));
        // Per byte: equal to '"', equal to '\\', or below 0x20. Borrows can flag bytes above the
        // first hit, never below it, so the lowest flag is exact.
        let hits = ((quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (v.wrapping_sub(ONES * 0x20) & !v))
            & HIGHS;
        if hits != 0 {
            return pos + (hits.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    while let Some(&b) = bytes.get(pos) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        pos += 1;
    }
    pos
}

/// Writes a JSON string with JCS's minimal escaping; clean runs go to the sink in one piece.
pub fn write_string(s: &str, sink: &mut dyn ByteSink) {
    sink.put(b"\"");
    let bytes = s.as_bytes();
    let plain = plain_prefix_len(bytes);
    if plain == bytes.len() {
        sink.put(bytes);
        sink.put(b"\"");
        return;
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            0x08 => Some(b"\\b"),
            0x09 => Some(b"\\t"),
            0x0a => Some(b"\\n"),
            0x0c => Some(b"\\f"),
            0x0d => Some(b"\\r"),
            0x00..=0x1f => None,
            _ => continue,
        };
        sink.put(bytes.get(start..i).unwrap_or_default());
        match escape {
            Some(e) => sink.put(e),
            None => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let hi = HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0');
                let lo = HEX.get(usize::from(b & 0xf)).copied().unwrap_or(b'0');
                sink.put(&[b'\\', b'u', b'0', b'0', hi, lo]);
            }
        }
        start = i + 1;
    }
    sink.put(bytes.get(start..).unwrap_or_default());
    sink.put(b"\"");
}

/// Below 2^53 an integral double's exact digits are also its shortest round-trip digits.
const EXACT_INTEGER_LIMIT: f64 = 9_007_199_254_740_992.0;

/// Writes a finite double the way ECMAScript's `Number.prototype.toString` does. Integers below
/// 2^53 (the common case) are written without allocating.
pub fn write_number(x: f64, sink: &mut dyn ByteSink) {
    if x.fract() == 0.0 && x.abs() < EXACT_INTEGER_LIMIT {
        let mut buf = [0u8; 24];
        let mut pos = buf.len();
        let mut n = x.abs() as u64;
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
        if x < 0.0 {
            pos -= 1;
            if let Some(slot) = buf.get_mut(pos) {
                *slot = b'-';
            }
        }
        sink.put(buf.get(pos..).unwrap_or_default());
        return;
    }
    sink.put(format_number(x).as_bytes());
}

pub fn format_number(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        // JSON text cannot carry NaN or infinities; -0 prints as 0 in ECMAScript.
        return "0".to_owned();
    }
    let sign = if x < 0.0 { "-" } else { "" };
    // Rust's `{:e}` prints the shortest digits that round-trip, e.g. "1.2345e-7".
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    let k = digits.len() as i32;
    let n = exp + 1;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        format!("{int}.{frac}")
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let (first, rest) = digits.split_at(1);
        let e_sign = if n > 0 { "+" } else { "-" };
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        format!("{first}{frac}e{e_sign}{}", (n - 1).abs())
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn canon(text: &str) -> String {
        to_canonical_string(&serde_json::from_str(text).unwrap())
    }

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
        ];
        for (x, want) in cases {
            assert_eq!(format_number(x), want, "{x}");
        }
    }

    #[test]
    fn keys_sort_by_utf16_and_strings_escape_minimally() {
        assert_eq!(
            canon(r#"{"b":1,"a":[1.0,true,null]}"#),
            r#"{"a":[1,true,null],"b":1}"#
        );
        // U+E000 sorts after U+1F600 in UTF-8 but before it in UTF-16 (surrogates are D8xx).
        assert_eq!(
            canon("{\"\u{e000}\":1,\"\u{1f600}\":2}"),
            "{\"\u{1f600}\":2,\"\u{e000}\":1}"
        );
        assert_eq!(canon(r#""a\u0001\n\"\\/é""#), "\"a\\u0001\\n\\\"\\\\/é\"");
    }

    #[test]
    fn plain_prefix_stops_at_the_first_special_byte() {
        for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            for at in 0..20 {
                let mut bytes: Vec<u8> = (0..20)
                    .map(|i| match i {
                        i if i == at => special,
                        3 => 0xc3,
                        _ => b'a',
                    })
                    .collect();
                bytes.extend_from_slice(&[0x7f, 0x80, 0xff, b' ']);
                assert_eq!(plain_prefix_len(&bytes), at, "{special} at {at}");
            }
        }
        assert_eq!(plain_prefix_len("héllo wörld, ok ".as_bytes()), 18);
    }

    #[test]
    fn heap_sort_sorts() {
        let mut state = 12345u32;
        for n in 0..40 {
            let mut items: Vec<u32> = (0..n)
                .map(|_| {
                    state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    state % 17
                })
                .collect();
            let mut want = items.clone();
            want.sort();
            heap_sort(&mut items, |a, b| a < b);
            assert_eq!(items, want);
        }
    }

    #[test]
    fn rfc8785_sample_numbers() {
        assert_eq!(
            canon(r#"[333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001]"#),
            "[333333333.3333333,1e+30,4.5,0.002,1e-27]"
        );
    }
}
