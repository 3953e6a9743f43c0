//! Whether JSON text is already its own canonical (RFC 8785) form, keeping every key: no
//! whitespace, object keys without escapes in strictly increasing UTF-16 order, strings escaped
//! exactly as JCS escapes them, numbers only as short integers (at most 15 digits, not `-0`).
//! `JSON.stringify` of an object whose keys come in order writes such text, and its digest is then
//! the digest of the text itself: the canonical writer need not read it. Anything else, and any
//! text the writer would refuse (too deep, malformed), says false and goes to the writer.

use crate::json::escape::plain_prefix_len;
use crate::json::key_order::utf16_cmp;
use std::cmp::Ordering;

/// Containers nested deeper than this are left to the writer (the check recurses).
const MAX_CHECKED_DEPTH: usize = 32;

/// Whether `text` is one value, nested at most `depth` levels, written in its canonical form.
pub fn is_canonical(text: &str, depth: usize) -> bool {
    value(text, 0, depth.min(MAX_CHECKED_DEPTH)) == Some(text.len())
}

/// The end of the canonical value at `pos`, nested at most `depth` levels.
fn value(text: &str, pos: usize, depth: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    match bytes.get(pos)? {
        b'{' => object(text, pos + 1, depth.checked_sub(1)?),
        b'[' => array(text, pos + 1, depth.checked_sub(1)?),
        b'"' => string(bytes, pos),
        b't' => literal(bytes, pos, b"true"),
        b'f' => literal(bytes, pos, b"false"),
        b'n' => literal(bytes, pos, b"null"),
        b'-' | b'0'..=b'9' => short_integer(bytes, pos),
        _ => None,
    }
}

/// The members of an object from `pos` (after its brace) to the end of its closing brace.
fn object(text: &str, mut pos: usize, depth: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.get(pos) == Some(&b'}') {
        return Some(pos + 1);
    }
    let mut previous: Option<&str> = None;
    loop {
        let end = string(bytes, pos)?;
        let key = text.get(pos + 1..end - 1)?;
        if key.contains('\\') || previous.is_some_and(|p| utf16_cmp(p, key) != Ordering::Less) {
            return None;
        }
        previous = Some(key);
        if bytes.get(end) != Some(&b':') {
            return None;
        }
        pos = value(text, end + 1, depth)?;
        match bytes.get(pos)? {
            b',' => pos += 1,
            b'}' => return Some(pos + 1),
            _ => return None,
        }
    }
}

/// The items of an array from `pos` (after its bracket) to the end of its closing bracket.
fn array(text: &str, mut pos: usize, depth: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.get(pos) == Some(&b']') {
        return Some(pos + 1);
    }
    loop {
        pos = value(text, pos, depth)?;
        match bytes.get(pos)? {
            b',' => pos += 1,
            b']' => return Some(pos + 1),
            _ => return None,
        }
    }
}

/// The end of the string at `pos` when its escapes are the ones JCS writes: `\"`, `\\`, `\b`,
/// `\t`, `\n`, `\f`, `\r`, and `\u00xx` (lower-case) for the other control characters.
fn string(bytes: &[u8], pos: usize) -> Option<usize> {
    if bytes.get(pos) != Some(&b'"') {
        return None;
    }
    let mut i = pos + 1;
    loop {
        i += plain_prefix_len(bytes.get(i..)?);
        match bytes.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => match bytes.get(i + 1)? {
                b'"' | b'\\' | b'b' | b't' | b'n' | b'f' | b'r' => i += 2,
                b'u' => {
                    let code = match bytes.get(i + 2..i + 6)? {
                        [b'0', b'0', high @ (b'0' | b'1'), low] => {
                            (high - b'0') << 4 | lower_hex(*low)?
                        }
                        _ => return None,
                    };
                    if matches!(code, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) {
                        return None;
                    }
                    i += 6;
                }
                _ => return None,
            },
            // A raw control character: not JSON.
            _ => return None,
        }
    }
}

/// The value of a lower-case hex digit.
fn lower_hex(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        _ => None,
    }
}

/// The end of `word` at `pos`.
fn literal(bytes: &[u8], pos: usize, word: &[u8]) -> Option<usize> {
    (bytes.get(pos..pos + word.len())? == word).then_some(pos + word.len())
}

/// The end of an integer of at most 15 digits at `pos`, without a leading zero (but `0`),
/// fraction or exponent, and not `-0`: the numbers whose text is already canonical.
fn short_integer(bytes: &[u8], pos: usize) -> Option<usize> {
    let start = pos + usize::from(bytes.get(pos) == Some(&b'-'));
    let digits = bytes
        .get(start..)?
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let end = start + digits;
    let leading_zero = digits > 1 && bytes.get(start) == Some(&b'0');
    let negative_zero = start > pos && digits == 1 && bytes.get(start) == Some(&b'0');
    let more = matches!(bytes.get(end), Some(b'.' | b'e' | b'E'));
    (digits > 0 && digits <= 15 && !leading_zero && !negative_zero && !more).then_some(end)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::json::canonical::KeepAll;
    use crate::json::reader::Reader;
    use crate::json::test_rng::Rng;

    /// What the canonical writer makes of `text`, when it accepts it.
    fn written(text: &str, depth: usize) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let mut reader = Reader::new(text);
        reader.write_canonical(depth, &KeepAll, &mut out).ok()?;
        reader.end().ok()?;
        Some(out)
    }

    #[test]
    fn canonical_text_is_recognised() {
        for text in [
            r#"{"a":1,"b":[true,false,null,"x\n\u001f\"\\"],"c":{}}"#,
            r#"{"command":"ls -la /testbed && cat \"a b\""}"#,
            "[]",
            "-12",
            r#""é\u007f""#,
            r#"{"é":1,"ê":[]}"#,
        ] {
            let canonical = written(text, 8).is_some_and(|w| w == text.as_bytes());
            assert_eq!(is_canonical(text, 8), canonical, "{text}");
        }
        for text in [
            r#"{"b":1,"a":2}"#,
            r#"{"a":1,"a":1}"#,
            r#"{"a": 1}"#,
            r#"{"a":1.5}"#,
            "-0",
            "01",
            "1e3",
            "1234567890123456",
            r#""\u0041""#,
            r#""\/""#,
            r#""\u000a""#,
            r#""\u001F""#,
            r#""\ud83d\ude00""#,
            r#"{"a\"":1}"#,
            "[[[1]]]",
            r#"{"a":1} "#,
            r#"{"a":1,}"#,
        ] {
            assert!(!is_canonical(text, 2), "{text}");
        }
        assert!(is_canonical("[[1]]", 2));
    }

    /// Random JSON text (with whitespace, repeated and unsorted keys, escapes and numbers).
    fn random_text(rng: &mut Rng, depth: usize, out: &mut String) {
        const STRINGS: &[&str] = &[
            r#""a""#,
            r#""b""#,
            r#""\n""#,
            r#""\u0001""#,
            r#""\u0041""#,
            r#""\"""#,
            r#""é""#,
            r#""\/""#,
            r#""\ud83d""#,
            r#""""#,
            r#""\t\\""#,
        ];
        const SCALARS: &[&str] = &["0", "-0", "12", "1.0", "1e2", "true", "null", "-7"];
        match rng.below(if depth == 0 { 2 } else { 4 }) {
            0 => out.push_str(STRINGS[rng.below(STRINGS.len())]),
            1 => out.push_str(SCALARS[rng.below(SCALARS.len())]),
            2 => {
                out.push('[');
                for i in 0..rng.below(3) {
                    if i > 0 {
                        out.push(',');
                    }
                    random_text(rng, depth - 1, out);
                }
                out.push(']');
            }
            _ => {
                out.push('{');
                for i in 0..rng.below(4) {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(STRINGS[rng.below(STRINGS.len())]);
                    out.push_str(if rng.below(4) == 0 { " : " } else { ":" });
                    random_text(rng, depth - 1, out);
                }
                out.push('}');
            }
        }
    }

    #[test]
    fn recognised_text_is_what_the_writer_writes() {
        let mut rng = Rng(7);
        let mut recognised = 0;
        for _ in 0..50_000 {
            let mut text = String::new();
            random_text(&mut rng, 3, &mut text);
            let writes = written(&text, 3);
            if is_canonical(&text, 3) {
                recognised += 1;
                assert_eq!(writes.as_deref(), Some(text.as_bytes()), "{text}");
            }
            // The writer's own output of a text it accepts is recognised unless it holds a
            // number other than a short integer or a key with an escape.
            if let Some(canonical) = writes.and_then(|w| String::from_utf8(w).ok()) {
                let left_out = ['.', 'e', '\\'].iter().any(|c| canonical.contains(*c));
                assert!(left_out || is_canonical(&canonical, 3), "{canonical}");
            }
        }
        assert!(recognised > 5_000, "{recognised}");
    }
}
