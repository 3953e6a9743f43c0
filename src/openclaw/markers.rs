//! OpenClaw wraps untrusted content in `<<<EXTERNAL_UNTRUSTED_CONTENT id="…">>>` …
//! `<<<END_EXTERNAL_UNTRUSTED_CONTENT id="…">>>` with a fresh 16-hex-digit id each time. Its outcome
//! hashing reads both ids of a well-formed pair as zeros, so re-fetching the same content is one
//! outcome. Well-formed: the same id at both ends, no other marker in between, and the quotes as
//! escaped as JSON encoding applied n times escapes them (2^n - 1 backslashes before a marker's
//! quotes, a multiple of 2^n backslashes plus one before each quote of the content).

use crate::json::canonical::{write_value, KeepAll};
use crate::json::digest::ByteSink;
use serde_json::{Map, Value};
use std::borrow::Cow;

const START: &str = "<<<EXTERNAL_UNTRUSTED_CONTENT id=";
const END: &str = "<<<END_EXTERNAL_UNTRUSTED_CONTENT id=";
const CLOSE: &str = "\">>>";
const ZERO_ID: &str = "0000000000000000";

/// A marker pair found at some position: where its two ids start, where it ends, and whether it
/// is well-formed enough for its ids to be read as zeros.
struct Pair {
    first_id: usize,
    second_id: usize,
    end: usize,
    canonical: bool,
}

/// Where `needle` next occurs in `s` at or after `from`: the candidates are found by their first
/// byte, eight bytes at a time (the standard library's substring search costs far more `.wasm`
/// than these texts need, and comparing the whole needle at every byte costs far more time).
fn find_from(s: &str, needle: &str, from: usize) -> Option<usize> {
    let bytes = s.as_bytes();
    let (&first, rest) = needle.as_bytes().split_first()?;
    let mut at = from;
    loop {
        at += find_byte(bytes.get(at..)?, first)?;
        if bytes.get(at + 1..at + needle.len()) == Some(rest) {
            return Some(at);
        }
        at += 1;
    }
}

/// Where the first `byte` is in `bytes`, eight bytes at a time.
fn find_byte(bytes: &[u8], byte: u8) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let pattern = ONES * u64::from(byte);
    let mut pos = 0;
    while let Some(chunk) = bytes.get(pos..pos + 8) {
        let Ok(chunk) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        // Bytes equal to `byte` become zero; the lowest flagged zero is exact.
        let x = u64::from_le_bytes(chunk) ^ pattern;
        let hits = x.wrapping_sub(ONES) & !x & HIGHS;
        if hits != 0 {
            return Some(pos + (hits.trailing_zeros() / 8) as usize);
        }
        pos += 8;
    }
    let tail = bytes.get(pos..)?;
    tail.iter().position(|b| *b == byte).map(|i| pos + i)
}

fn backslashes(bytes: &[u8], from: usize) -> usize {
    bytes
        .get(from..)
        .unwrap_or_default()
        .iter()
        .take_while(|b| **b == b'\\')
        .count()
}

fn is_id(bytes: &[u8], from: usize) -> bool {
    bytes.get(from..from + 16).is_some_and(|id| {
        id.iter()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
    })
}

/// `escapes` backslashes then `"">>>` at `at`: the position after it.
fn close_at(s: &str, at: usize, escapes: usize) -> Option<usize> {
    let after = at + escapes;
    (backslashes(s.as_bytes(), at) >= escapes && s.get(after..)?.starts_with(CLOSE))
        .then_some(after + CLOSE.len())
}

/// The pair whose start marker begins at `at`.
fn pair_at(s: &str, at: usize) -> Option<Pair> {
    let bytes = s.as_bytes();
    let mut i = at + START.len();
    let escapes = backslashes(bytes, i);
    i += escapes;
    if bytes.get(i) != Some(&b'"') || !is_id(bytes, i + 1) {
        return None;
    }
    let first_id = i + 1;
    let content = close_at(s, first_id + 16, escapes)?;
    // The content runs to the next marker of either kind, which must be the end marker.
    let mut next = content;
    loop {
        next = find_from(s, "<<<", next)?;
        let tail = s.get(next..).unwrap_or_default();
        if tail.starts_with("<<<EXTERNAL_UNTRUSTED_CONTENT")
            || tail.starts_with("<<<END_EXTERNAL_UNTRUSTED_CONTENT")
        {
            break;
        }
        next += 1;
    }
    if !s.get(next..)?.starts_with(END) {
        return None;
    }
    let mut j = next + END.len();
    if backslashes(bytes, j) < escapes {
        return None;
    }
    j += escapes;
    if bytes.get(j) != Some(&b'"') {
        return None;
    }
    let second_id = j + 1;
    if bytes.get(second_id..second_id + 16) != bytes.get(first_id..first_id + 16) {
        return None;
    }
    let end = close_at(s, second_id + 16, escapes)?;
    let middle = bytes.get(content..next).unwrap_or_default();
    let canonical = escapes & (escapes + 1) == 0 && quotes_escaped(middle, escapes);
    Some(Pair {
        first_id,
        second_id,
        end,
        canonical,
    })
}

/// Every quote of the content is preceded by a backslash run one short of a multiple of
/// `escapes + 1`.
fn quotes_escaped(middle: &[u8], escapes: usize) -> bool {
    let mut run = 0usize;
    for byte in middle {
        match byte {
            b'\\' => run += 1,
            b'"' => {
                if (run + 1) % (escapes + 1) != 0 {
                    return false;
                }
                run = 0;
            }
            _ => run = 0,
        }
    }
    true
}

/// `s` with the ids of its well-formed marker pairs read as zeros.
pub fn canonical_markers(s: &str) -> Cow<'_, str> {
    if find_from(s, START, 0).is_none() {
        return Cow::Borrowed(s);
    }
    let mut out = String::new();
    let mut copied = 0;
    let mut from = 0;
    while let Some(at) = find_from(s, START, from) {
        match pair_at(s, at) {
            Some(pair) => {
                if pair.canonical {
                    out.push_str(s.get(copied..pair.first_id).unwrap_or_default());
                    out.push_str(ZERO_ID);
                    out.push_str(
                        s.get(pair.first_id + 16..pair.second_id)
                            .unwrap_or_default(),
                    );
                    out.push_str(ZERO_ID);
                    copied = pair.second_id + 16;
                }
                from = pair.end;
            }
            None => from = at + 1,
        }
    }
    if copied == 0 {
        return Cow::Borrowed(s);
    }
    out.push_str(s.get(copied..).unwrap_or_default());
    Cow::Owned(out)
}

/// Whether any string (or key) of `value` holds a start marker.
fn has_marker(value: &Value) -> bool {
    match value {
        Value::String(s) => find_from(s, START, 0).is_some(),
        Value::Array(items) => items.iter().any(has_marker),
        Value::Object(map) => map
            .iter()
            .any(|(key, item)| find_from(key, START, 0).is_some() || has_marker(item)),
        _ => false,
    }
}

/// A copy of `value` with every string's (and key's) marker ids read as zeros.
fn with_canonical_markers(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(canonical_markers(s).into_owned()),
        Value::Array(items) => Value::Array(items.iter().map(with_canonical_markers).collect()),
        Value::Object(map) => {
            let mut copy = Map::new();
            for (key, item) in map {
                copy.insert(
                    canonical_markers(key).into_owned(),
                    with_canonical_markers(item),
                );
            }
            Value::Object(copy)
        }
        other => other.clone(),
    }
}

/// `value` as canonical JSON with every string's (and key's) marker ids read as zeros (the copy
/// that takes, holding raw content, is zeroed when dropped).
pub fn write_canonical_markers(value: &Value, sink: &mut dyn ByteSink) {
    if !has_marker(value) {
        return write_value(value, &KeepAll, sink);
    }
    let copy = with_canonical_markers(value);
    write_value(&copy, &KeepAll, sink);
    crate::json::scrub::scrub(copy);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrap(id: &str, body: &str) -> String {
        format!("{START}\"{id}\">>>{body}{END}\"{id}\">>>")
    }

    #[test]
    fn finds_needles_as_a_plain_scan_does() {
        let text = "<<x <<<E <<<EXTERNAL <<<EXTERNAL_UNTRUSTED_CONTENT id=\"é<<<END_EXTERNAL_UNTRUSTED_CONTENT id=";
        for needle in [START, END, "<<<", "x", "é", "id="] {
            for from in 0..text.len() {
                let plain = text
                    .as_bytes()
                    .get(from..)
                    .and_then(|b| b.windows(needle.len()).position(|w| w == needle.as_bytes()))
                    .map(|i| from + i);
                assert_eq!(find_from(text, needle, from), plain, "{needle} from {from}");
            }
        }
        assert_eq!(find_byte(&[1; 20], 0), None);
        assert_eq!(find_byte(&[0x80, 0x81, 1, 0, 1, 1, 1, 1, 1], 0), Some(3));
    }

    #[test]
    fn well_formed_pairs_read_as_zero_ids() {
        let a = format!("page: {}", wrap("0123456789abcdef", "hello"));
        let b = format!("page: {}", wrap("fedcba9876543210", "hello"));
        assert_eq!(canonical_markers(&a), canonical_markers(&b));
        assert_ne!(canonical_markers(&a), a.as_str());
    }

    #[test]
    fn malformed_pairs_stay_as_they_are() {
        let mismatched = format!("{START}\"0123456789abcdef\">>>x{END}\"fedcba9876543210\">>>");
        assert_eq!(canonical_markers(&mismatched), mismatched.as_str());
        let upper = wrap("0123456789ABCDEF", "x");
        assert_eq!(canonical_markers(&upper), upper.as_str());
        let nested = wrap(
            "0123456789abcdef",
            &format!("{START}\"1111111111111111\">>>"),
        );
        assert_eq!(canonical_markers(&nested), nested.as_str());
        let loose_quote = wrap("0123456789abcdef", "say \"hi\"");
        assert!(canonical_markers(&loose_quote).contains(ZERO_ID));
        let escaped =
            format!("{START}\\\"0123456789abcdef\\\">>>a \"b{END}\\\"0123456789abcdef\\\">>>");
        assert_eq!(canonical_markers(&escaped), escaped.as_str());
    }
}
