//! Outcome digests straight from the record's JSON text, for ordinary results: a string, a value
//! that is not an object, or an object with `content` parts, `details` and other members. The
//! bytes hashed are exactly those of the tree path in `outcome.rs` (same framing, same canonical
//! JSON, same volatile keys), without parsing the result into a tree. Anything unusual (repeated
//! keys, a malformed `textSha256`, a `textSide` without side text) returns `None`, and the caller
//! takes the tree path, which also produces the errors.
//!
//! The record was checked when it was parsed (well-formed, nesting limit, numbers in range), so
//! reading it again here cannot fail on those grounds.

use crate::canonical::{ByteSink, HashSink, KeyFilter};
use crate::input::MAX_DEPTH;
use crate::json::{Member, Reader};
use crate::outcome::{
    digest_from_hex, names_missing_tool, put_text, put_text_digest, Kind, OutcomeDigest,
    MAX_SCANNED_TEXT_BYTES, OUTCOME_TAG, RESULT_SHAPE,
};
use std::borrow::Cow;

/// The digest of the `result` value starting at byte `result_at` of the record `text` (absent:
/// `null`); `side_text` is the text of a `textSide` part. `None`: use the tree path.
pub fn digest_result_text(
    text: &str,
    result_at: Option<usize>,
    side_text: Option<&[u8]>,
    keys: &dyn KeyFilter,
) -> Option<OutcomeDigest> {
    let mut sink = HashSink::new();
    sink.put(OUTCOME_TAG);
    let Some(at) = result_at else {
        sink.put(&[Kind::Result as u8]);
        sink.put(b"jnull");
        return Some(finish(sink, Kind::Result, false));
    };
    let mut reader = Reader::at(text, at);
    if reader.at_string() {
        let result = reader.string().ok()?;
        sink.put(&[Kind::Result as u8]);
        put_text(result.as_bytes(), &mut sink);
        scrub(result);
        return Some(finish(sink, Kind::Result, false));
    }
    if !reader.at_object() {
        sink.put(&[Kind::Result as u8]);
        sink.put(b"j");
        reader.write_canonical(MAX_DEPTH, keys, &mut sink).ok()?;
        return Some(finish(sink, Kind::Result, false));
    }
    let members = reader.members().ok()?;
    if has_repeated_keys(&members) {
        return None;
    }
    let member = |name: &str| members.iter().find(|m| m.key == name).map(|m| m.at);
    let content = member("content").filter(|&at| Reader::at(text, at).at_array());
    let Some(content) = content else {
        sink.put(&[Kind::Result as u8]);
        sink.put(b"j");
        Reader::at(text, at)
            .write_canonical(MAX_DEPTH, keys, &mut sink)
            .ok()?;
        return Some(finish(sink, Kind::Result, false));
    };
    let is_error = member("isError").is_some_and(|at| Reader::at(text, at).literal_true());
    let kind = if is_error { Kind::Error } else { Kind::Result };
    sink.put(&[kind as u8]);
    let mut missing_tool = false;
    let mut items = Reader::at(text, content);
    items.expect(b'[').ok()?;
    if !items.eat(b']') {
        loop {
            items.skip_ws();
            let item = items.pos();
            match text_part(text, item)? {
                Some(TextPart::Inline(part)) => {
                    missing_tool |= is_error
                        && part.len() <= MAX_SCANNED_TEXT_BYTES
                        && names_missing_tool(&part);
                    put_text(part.as_bytes(), &mut sink);
                    scrub(part);
                }
                Some(TextPart::Hashed(hex)) => {
                    put_text_digest(&digest_from_hex(Some(&hex)).ok()?, &mut sink)
                }
                Some(TextPart::Side) => put_text(side_text?, &mut sink),
                None => {
                    sink.put(b"j");
                    Reader::at(text, item)
                        .write_canonical(MAX_DEPTH, keys, &mut sink)
                        .ok()?;
                }
            }
            items.skim().ok()?;
            if items.eat(b']') {
                break;
            }
            items.expect(b',').ok()?;
        }
    }
    if let Some(details) = member("details") {
        sink.put(b"j");
        Reader::at(text, details)
            .write_canonical(MAX_DEPTH, keys, &mut sink)
            .ok()?;
    }
    if members.iter().any(|m| !RESULT_SHAPE.contains(&&*m.key)) {
        sink.put(b"j");
        Reader::at(text, at)
            .write_canonical_without(MAX_DEPTH, RESULT_SHAPE, keys, &mut sink)
            .ok()?;
    }
    Some(finish(sink, kind, missing_tool))
}

/// A text content part, by where its text comes from.
enum TextPart<'a> {
    /// `{"type": "text", "text": "..."}`
    Inline(Cow<'a, str>),
    /// `{"type": "text", "textSha256": "..."}` (not yet checked to be a digest)
    Hashed(Cow<'a, str>),
    /// `{"type": "text", "textSide": true}`
    Side,
}

/// The content item at `at` as a text part; `Some(None)` when it is not one, `None` when only
/// the tree path can say (repeated keys).
fn text_part(text: &str, at: usize) -> Option<Option<TextPart<'_>>> {
    let mut reader = Reader::at(text, at);
    if !reader.at_object() {
        return Some(None);
    }
    let members = reader.members().ok()?;
    if has_repeated_keys(&members) {
        return None;
    }
    let member = |name: &str| members.iter().find(|m| m.key == name).map(|m| m.at);
    let string = |at: usize| {
        let mut reader = Reader::at(text, at);
        reader.at_string().then(|| reader.string().ok()).flatten()
    };
    if member("type").and_then(string).as_deref() != Some("text") {
        return Some(None);
    }
    if let Some(part) = member("text").and_then(string) {
        return Some(Some(TextPart::Inline(part)));
    }
    if let Some(at) = member("textSha256") {
        // Anything but a string is refused by the tree path: leave it the error.
        return string(at).map(|hex| Some(TextPart::Hashed(hex)));
    }
    if member("textSide").is_some_and(|at| Reader::at(text, at).literal_true()) {
        return Some(Some(TextPart::Side));
    }
    Some(None)
}

/// Members beyond which an object is left to the tree path (the repeated-key check is quadratic).
const MAX_MEMBERS: usize = 32;

/// Repeated keys (the last one wins, as the tree path decides), or too many keys to check cheaply.
fn has_repeated_keys(members: &[Member]) -> bool {
    members.len() > MAX_MEMBERS
        || members
            .iter()
            .enumerate()
            .any(|(i, m)| members.iter().skip(i + 1).any(|other| other.key == m.key))
}

fn finish(sink: HashSink, kind: Kind, missing_tool: bool) -> OutcomeDigest {
    OutcomeDigest {
        digest: sink.finish(),
        is_error: kind == Kind::Error,
        missing_tool,
    }
}

/// Zeroes an unescaped copy of raw content (borrowed text lives in the input buffer, which the
/// bindings clear).
fn scrub(text: Cow<str>) {
    if let Cow::Owned(text) = text {
        let mut bytes = text.into_bytes();
        bytes.fill(0);
        std::hint::black_box(&mut bytes);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::outcome::{digest_outcome, OutcomeParts, VolatileKeys};

    /// The tree path's digest of `result` (record text `{"result": <result>}`).
    fn tree(result: &str, side: Option<&[u8]>, keys: &VolatileKeys) -> Option<OutcomeDigest> {
        let value = crate::json::parse(result, MAX_DEPTH).ok()?;
        let parts = OutcomeParts {
            tool: "t",
            exec_like: false,
            result: Some(&value),
            error: None,
            side_text: side,
        };
        digest_outcome(&parts, keys).ok()
    }

    fn text_path(result: &str, side: Option<&[u8]>, keys: &VolatileKeys) -> Option<OutcomeDigest> {
        let record = format!("{{\"result\": {result}}}");
        digest_result_text(&record, Some(11), side, keys)
    }

    /// Wherever the text path answers, it agrees with the tree path; where it does not, the tree
    /// path decides.
    fn agree(result: &str) -> bool {
        let keys = VolatileKeys::with_extra(vec!["volatile".to_owned()]);
        let side = Some(&b"side text"[..]);
        match text_path(result, side, &keys) {
            Some(fast) => {
                assert_eq!(Some(fast), tree(result, side, &keys), "{result}");
                true
            }
            None => false,
        }
    }

    #[test]
    fn agrees_with_the_tree_path_on_ordinary_results() {
        let hex = "ab".repeat(32);
        let cases = [
            r#""plain text""#.to_owned(),
            r#""esc\naped \"text\" \u00e9\ud83d\ude00""#.to_owned(),
            "42".to_owned(),
            "[1, 2.50, -0, 1e2, {\"b\": 1, \"a\": [true, null]}]".to_owned(),
            "null".to_owned(),
            "{}".to_owned(),
            r#"{"ok": true, "durationMs": 5, "meta": {"requestId": "x", "n": 1.0}}"#.to_owned(),
            r#"{"content": [{"type": "text", "text": "hello"}]}"#.to_owned(),
            r#"{"content": [{"type": "text", "text": "a\nb"}, {"type": "image", "data": "xyz"}, 7, "s"], "details": {"durationMs": 3, "bytes": 10}}"#.to_owned(),
            r#"{"details": {"z": 1, "a": {"volatile": 2}}, "content": [{"text": "t", "type": "text", "annotations": {"k": 1}}], "extra": {"y": 1, "x": 2}, "_meta": {"q": 1}}"#.to_owned(),
            r#"{"isError": true, "content": [{"type": "text", "text": "Unknown tool: search_web"}]}"#.to_owned(),
            r#"{"isError": true, "content": [{"type": "text", "text": "file not found"}]}"#.to_owned(),
            r#"{"isError": false, "content": {"not": "an array"}, "details": 1}"#.to_owned(),
            r#"{"isError": true, "content": "text"}"#.to_owned(),
            r#"{"content": [{"type": "text", "text": 5}, {"type": "text"}, {"type": "txt", "text": "x"}]}"#.to_owned(),
            format!(r#"{{"content": [{{"type": "text", "textSha256": "{hex}"}}]}}"#),
            r#"{"content": [{"type": "text", "textSide": true}], "details": {"n": 1}}"#.to_owned(),
            r#"{"content": [{"type": "text", "textSide": false}]}"#.to_owned(),
            r#"{"content": [], "\u00e9": 1, "\ue000": 2, "\ud83d\ude00": 3}"#.to_owned(),
            format!(r#"{{"content": [{{"type": "text", "text": "{}"}}]}}"#, "x".repeat(MAX_SCANNED_TEXT_BYTES + 1)),
        ];
        for case in &cases {
            assert!(agree(case), "the text path declined {case}");
        }
    }

    #[test]
    fn leaves_unusual_results_to_the_tree_path() {
        for case in [
            r#"{"content": [], "content": [{"type": "text", "text": "x"}]}"#,
            r#"{"content": [{"type": "text", "text": "a", "text": "b"}]}"#,
            r#"{"content": [{"type": "text", "textSha256": "ABC"}]}"#,
            r#"{"content": [{"type": "text", "textSha256": 5}]}"#,
        ] {
            assert!(!agree(case), "{case}");
        }
        let record = r#"{"result": {"content": [{"type": "text", "textSide": true}]}}"#;
        assert!(digest_result_text(record, Some(10), None, &VolatileKeys::default()).is_none());
    }

    /// Deterministic random results built from the keys and shapes the digest cares about.
    #[test]
    fn agrees_on_random_results() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        const KEYS: [&str; 12] = [
            "content",
            "details",
            "isError",
            "_meta",
            "type",
            "text",
            "durationMs",
            "volatile",
            "a",
            "b",
            "\u{e9}",
            "textSide",
        ];
        const SCALARS: [&str; 10] = [
            "true",
            "false",
            "null",
            "0",
            "-1.5",
            "1e21",
            "\"text\"",
            "\"a\\nb\"",
            "12345678901234567890",
            "\"Unknown tool: x\"",
        ];
        fn value(next: &mut dyn FnMut(usize) -> usize, depth: usize) -> String {
            match if depth == 0 { 0 } else { next(4) } {
                0 => SCALARS[next(SCALARS.len())].to_owned(),
                1 => {
                    let items: Vec<String> = (0..next(4)).map(|_| value(next, depth - 1)).collect();
                    format!("[{}]", items.join(","))
                }
                2 => {
                    let text = SCALARS[next(SCALARS.len())];
                    format!("{{\"type\":\"text\",\"text\":{text}}}")
                }
                _ => {
                    let members: Vec<String> = (0..next(5))
                        .map(|_| {
                            format!("\"{}\":{}", KEYS[next(KEYS.len())], value(next, depth - 1))
                        })
                        .collect();
                    format!("{{{}}}", members.join(","))
                }
            }
        }
        let mut answered = 0;
        for _ in 0..5000 {
            if agree(&value(&mut next, 4)) {
                answered += 1;
            }
        }
        assert!(
            answered > 4000,
            "the text path answered only {answered} of 5000"
        );
    }
}
