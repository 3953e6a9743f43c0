//! Outcome digests: what a tool result or error *means*, as one SHA-256.
//!
//! An outcome is hashed as one SHA-256 stream: a version tag, a kind byte (result, error, unchanged
//! write), then its parts in order, each framed by a tag byte:
//! - a text of at most `MAX_SCANNED_TEXT_BYTES` UTF-8 bytes: `t`, its length (u32 LE), its bytes;
//! - a longer text: `h` and `SHA-256(utf8 text)`;
//! - any other part: `j` and `JCS(part without volatile keys)` (a JSON value delimits itself).
//!
//! Small parts thus cost no hash of their own, and because a large text enters only by its digest,
//! a host with a fast native SHA-256 can hash it and still produce identical bytes.

use crate::config::tools::ToolKind;
use crate::error::GuardError;
use crate::json::canonical::{write_object_without, write_value, KeyFilter};
use crate::json::digest::{sha256, ByteSink, Digest, HashSink};
use crate::record::clock_mask::put_clockless;
use crate::record::failure_text::{is_blank, is_cancelled_by_host, put_masked, reports_failure};
use crate::record::json_text::put_content_text;
use crate::record::missing_tool::names_missing_tool;
use crate::record::volatile_table::without_send_ids;
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Result = b'r' as isize,
    Error = b'e' as isize,
    Unchanged = b'u' as isize,
}

/// One framed part of an outcome.
enum Part<'a> {
    /// Text (UTF-8 bytes), framed inline when small, else by its SHA-256.
    Text(&'a [u8]),
    /// A text part of `content`: as `Text`, or as JSON when it holds JSON (`json_text`).
    ContentText(&'a str),
    /// The SHA-256 of a text longer than `MAX_SCANNED_TEXT_BYTES`, computed by the host.
    Hashed(Digest),
    Json(&'a Value),
    Owned(Value),
    /// An object without some of its top-level members.
    Without(&'a Map<String, Value>, &'static [&'static str]),
}

/// The digest of one outcome plus what the detectors need to know about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutcomeDigest {
    pub digest: Digest,
    /// The tool threw, flagged its result as an error, or answered with a failure text
    /// (`failure_text.rs`).
    pub is_error: bool,
    /// The outcome says a tool does not exist ("unknown tool X", "tool X not found", …).
    pub missing_tool: bool,
    /// The result says nothing: null, or only empty or whitespace texts.
    pub blank: bool,
}

/// What a result's texts say beyond its digest.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ResultFacts {
    pub missing_tool: bool,
    /// A text reports a failure, or the result has a non-null `error` member.
    pub failed: bool,
    pub blank: bool,
    /// The only text is a host's note that it cancelled the call (`is_cancelled_by_host`): the
    /// outcome is then blank, and no failure of the call's own.
    pub cancelled: bool,
}

impl ResultFacts {
    /// The facts of a result made of these texts (at most `MAX_SCANNED_TEXT_BYTES` each are
    /// scanned; longer ones say nothing) and nothing else; `flagged_error`: the result set
    /// `isError`.
    pub(crate) fn of_texts<'t, I>(texts: I, flagged_error: bool) -> ResultFacts
    where
        I: IntoIterator<Item = Option<&'t str>> + Clone,
    {
        let mut facts = ResultFacts {
            blank: true,
            ..ResultFacts::default()
        };
        let mut texts_seen = 0;
        let scanned = |texts: I| {
            texts
                .into_iter()
                .map(|text| text.filter(|t| t.len() <= MAX_SCANNED_TEXT_BYTES))
        };
        for text in scanned(texts.clone()) {
            let Some(text) = text else {
                facts.blank = false;
                continue;
            };
            facts.blank &= is_blank(text);
            facts.failed |= reports_failure(text);
            texts_seen += 1;
            facts.cancelled = texts_seen == 1 && is_cancelled_by_host(text);
        }
        // The missing-tool scan is the costly one: only failures are scanned.
        facts.missing_tool =
            (flagged_error || facts.failed) && scanned(texts).flatten().any(names_missing_tool);
        facts
    }

    fn nothing() -> ResultFacts {
        ResultFacts::default()
    }

    /// What a thrown error's message (none when the error is not a string or has no string
    /// `message`) says beyond its digest; a message longer than `MAX_SCANNED_TEXT_BYTES` is not
    /// read (a host may hand it over as its SHA-256, as a long result text).
    pub(crate) fn of_error_message(message: Option<&str>) -> ResultFacts {
        let message = message.filter(|m| m.len() <= MAX_SCANNED_TEXT_BYTES);
        ResultFacts {
            missing_tool: message.is_some_and(names_missing_tool),
            cancelled: message.is_some_and(is_cancelled_by_host),
            ..ResultFacts::nothing()
        }
    }

    /// The outcome digest of `digest`, an outcome of `kind` with these facts.
    pub(crate) fn digest(&self, digest: Digest, kind: Kind) -> OutcomeDigest {
        OutcomeDigest {
            digest,
            is_error: (kind == Kind::Error || self.failed) && !self.cancelled,
            missing_tool: self.missing_tool,
            blank: (self.blank && kind == Kind::Result) || self.cancelled,
        }
    }
}

/// Texts longer than this (in UTF-8 bytes) are framed by their SHA-256 and not scanned for
/// missing-tool messages, so a host may hand the core the SHA-256 of any longer text part instead
/// of the text, with identical verdicts. (A `textSha256` always stands for such a longer text.)
pub const MAX_SCANNED_TEXT_BYTES: usize = 4096;

/// Where a text part's content comes from.
#[derive(Debug, Clone, Copy)]
enum TextSource<'a> {
    /// `{"type": "text", "text": "..."}`
    Inline(&'a str),
    /// `{"type": "text", "textSha256": "<64 hex>"}`: the host hashed the text itself.
    Hashed(Digest),
    /// `{"type": "text", "textSide": true}`: the text was passed beside the record.
    Side,
}

/// What an outcome is made of, as far as hashing goes.
#[derive(Clone, Copy)]
pub struct OutcomeParts<'a> {
    /// The record's tool (it chooses the profile and the tool's volatile keys).
    pub tool: &'a str,
    /// Apply the `exec`/`process` profile.
    pub exec_like: bool,
    /// The record's `result`.
    pub result: Option<&'a Value>,
    /// The record's `error`; when present it is the outcome and `result` is not read.
    pub error: Option<&'a Value>,
    /// The text (UTF-8) of a `textSide` part, passed outside the JSON record. Only hashed, never
    /// scanned, so its bytes are taken as they come.
    pub side_text: Option<&'a [u8]>,
    /// A delivering call (`volatile_table::is_send`): message objects' own ids in JSON texts are
    /// per send.
    pub send: bool,
    /// What a successful result's texts are framed with masked (`ResultMasking`).
    pub masking: ResultMasking,
}

/// Digests an outcome: its `error` when the tool threw, else its `result`.
pub fn digest_outcome(
    outcome: &OutcomeParts,
    keys: &dyn KeyFilter,
) -> Result<OutcomeDigest, GuardError> {
    let mut parts = Vec::new();
    match outcome.error.filter(|e| !e.is_null()) {
        Some(error) => {
            let message = error_parts(error, &mut parts);
            let facts = ResultFacts::of_error_message(message);
            Ok(finished(Kind::Error, parts, keys, facts, outcome))
        }
        None => {
            let result = outcome.result.unwrap_or(&Value::Null);
            let (kind, facts) = result_parts(outcome, result, &mut parts)?;
            Ok(finished(kind, parts, keys, facts, outcome))
        }
    }
}

/// What a successful result's texts are framed with masked, by the kind of call they answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultMasking {
    /// Nothing: a read's or a command's numbers are what it says (a count that climbs is news).
    Nothing,
    /// A mutation's numbers, as a failure's are (`failure_text`).
    Numbers,
    /// A poll's clock values (`clock_mask`): a poll whose only change is the time is no news.
    Clock,
}

impl ResultMasking {
    /// The masking of the outcomes of a call of `kind`.
    pub fn of_kind(kind: ToolKind) -> ResultMasking {
        match kind {
            ToolKind::Mutate => ResultMasking::Numbers,
            ToolKind::Poll => ResultMasking::Clock,
            _ => ResultMasking::Nothing,
        }
    }
}

/// Outcome framing version; changes whenever the framing does.
pub(crate) const OUTCOME_TAG: &[u8] = b"tlg/o2";

/// The members of a result object that are not hashed with the rest of it.
pub(crate) const RESULT_SHAPE: &[&str] = &["content", "details", "isError", "_meta"];

/// `finish`, then the parts built from raw content are zeroed.
fn finished(
    kind: Kind,
    parts: Vec<Part>,
    keys: &dyn KeyFilter,
    facts: ResultFacts,
    outcome: &OutcomeParts,
) -> OutcomeDigest {
    let digest = finish(kind, &parts, keys, facts, outcome);
    for part in parts {
        if let Part::Owned(value) = part {
            crate::json::scrub::scrub(value);
        }
    }
    digest
}

fn finish(
    kind: Kind,
    parts: &[Part],
    keys: &dyn KeyFilter,
    facts: ResultFacts,
    outcome: &OutcomeParts,
) -> OutcomeDigest {
    let send = outcome.send;
    let framing = Framing::of(kind, &facts, outcome.masking);
    let mut hasher = HashSink::new();
    hasher.put(OUTCOME_TAG);
    hasher.put(&[kind as u8]);
    for part in parts {
        match part {
            Part::Text(text) => put_text(text, framing, &mut hasher),
            Part::ContentText(text) => put_content_text(text, send, keys, framing, &mut hasher),
            Part::Hashed(digest) => put_text_digest(digest, &mut hasher),
            Part::Json(value) => {
                hasher.put(b"j");
                write_value(value, keys, &mut hasher);
            }
            Part::Owned(value) => {
                hasher.put(b"j");
                write_value(value, keys, &mut hasher);
            }
            Part::Without(map, without) => {
                hasher.put(b"j");
                write_object_without(map, without, keys, &mut hasher);
            }
        }
    }
    facts.digest(hasher.finish(), kind)
}

/// How a text part is framed: as it is, in a failure or a mutation's outcome (see
/// `failure_text`) with its numbers masked, in a poll's result (see `clock_mask`) with its clock
/// values masked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    Exact,
    Failure,
    Clockless,
}

impl Framing {
    /// The framing of an outcome's texts: `Failure` for an error (thrown, `isError`, or a
    /// failure text) and for a mutation's outcome: the same change made again that answers with
    /// one more line or a new id did the same thing again; `Clockless` for a poll's.
    pub(crate) fn of(kind: Kind, facts: &ResultFacts, masking: ResultMasking) -> Framing {
        if kind == Kind::Error || facts.failed || masking == ResultMasking::Numbers {
            Framing::Failure
        } else if masking == ResultMasking::Clock {
            Framing::Clockless
        } else {
            Framing::Exact
        }
    }
}

/// Frames a text part: inline up to `MAX_SCANNED_TEXT_BYTES` (masked in a failure or a poll's
/// result), else by its SHA-256.
pub(crate) fn put_text(text: &[u8], framing: Framing, sink: &mut dyn ByteSink) {
    match u32::try_from(text.len()) {
        Ok(_) if text.len() <= MAX_SCANNED_TEXT_BYTES && framing == Framing::Failure => {
            put_masked(text, sink);
        }
        Ok(_) if text.len() <= MAX_SCANNED_TEXT_BYTES && framing == Framing::Clockless => {
            put_clockless(text, sink);
        }
        Ok(len) if text.len() <= MAX_SCANNED_TEXT_BYTES => {
            sink.put(b"t");
            sink.put(&len.to_le_bytes());
            sink.put(text);
        }
        _ => put_text_digest(&sha256(text), sink),
    }
}

/// Frames a text part by its SHA-256.
pub(crate) fn put_text_digest(digest: &Digest, sink: &mut dyn ByteSink) {
    sink.put(b"h");
    sink.put(digest);
}

/// An error hashes as its name and message (never its stack); returns the message for the
/// missing-tool check.
fn error_parts<'a>(error: &'a Value, parts: &mut Vec<Part<'a>>) -> Option<&'a str> {
    match error {
        Value::String(message) => {
            parts.push(Part::Text(b""));
            parts.push(Part::Text(message.as_bytes()));
            Some(message)
        }
        Value::Object(map) => match map.get("message") {
            Some(Value::String(message)) => {
                let name = map.get("name").and_then(Value::as_str).unwrap_or("");
                parts.push(Part::Text(name.as_bytes()));
                parts.push(Part::Text(message.as_bytes()));
                Some(message)
            }
            _ => {
                parts.push(Part::Without(map, &["stack"]));
                None
            }
        },
        other => {
            parts.push(Part::Json(other));
            None
        }
    }
}

fn result_parts<'a>(
    outcome: &OutcomeParts<'a>,
    result: &'a Value,
    parts: &mut Vec<Part<'a>>,
) -> Result<(Kind, ResultFacts), GuardError> {
    let Value::Object(map) = result else {
        let facts = match result {
            Value::String(text) => {
                parts.push(Part::Text(text.as_bytes()));
                ResultFacts::of_texts([Some(text.as_str())], false)
            }
            Value::Null => {
                parts.push(Part::Json(result));
                ResultFacts::of_texts([], false)
            }
            other => {
                parts.push(Part::Json(other));
                ResultFacts::nothing()
            }
        };
        return Ok((Kind::Result, facts));
    };
    let details = map.get("details").and_then(Value::as_object);
    let is_error = map.get("isError") == Some(&Value::Bool(true));
    let kind = if is_error { Kind::Error } else { Kind::Result };

    if outcome.tool == "write"
        && details.and_then(|d| d.get("changed")) == Some(&Value::Bool(false))
    {
        return Ok((Kind::Unchanged, ResultFacts::nothing()));
    }
    let content = map.get("content").and_then(Value::as_array);
    let texts: Vec<TextSource> = match content {
        Some(items) => items
            .iter()
            .filter_map(|item| text_of_part(item).transpose())
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    let inline = |t: &TextSource<'a>| match t {
        TextSource::Inline(text) => Some(*text),
        TextSource::Hashed(_) | TextSource::Side => None,
    };
    let mut facts = ResultFacts::of_texts(texts.iter().map(inline), is_error);
    if outcome.exec_like {
        if let Some(details) = details {
            exec_like_parts(details, &texts, outcome.side_text, parts)?;
            facts.blank = false;
            return Ok((kind, facts));
        }
    }
    let error_member = map
        .get("error")
        .filter(|e| !matches!(e, Value::Null | Value::Bool(false)));
    let Some(content) = content else {
        parts.push(Part::Json(result));
        let failed = error_member.is_some();
        let missing = error_member
            .and_then(Value::as_str)
            .is_some_and(names_missing_tool);
        let facts = ResultFacts {
            failed,
            missing_tool: missing,
            ..ResultFacts::nothing()
        };
        return Ok((Kind::Result, facts));
    };
    facts.blank &= texts.len() == content.len()
        && map.get("details").is_none()
        && error_member.is_none()
        && map.keys().all(|k| RESULT_SHAPE.contains(&k.as_str()));
    facts.failed |= error_member.is_some();
    for item in content {
        match text_of_part(item)? {
            Some(TextSource::Inline(text)) => parts.push(Part::ContentText(text)),
            Some(text) => parts.push(text_part(text, outcome.side_text)?),
            None => parts.push(Part::Json(item)),
        }
    }
    match map.get("details") {
        // A delivering call's message objects carry their own per-send id.
        Some(details) if outcome.send => parts.push(Part::Owned(without_send_ids(details, false))),
        Some(details) => parts.push(Part::Json(details)),
        None => {}
    }
    if map.keys().any(|k| !RESULT_SHAPE.contains(&k.as_str())) {
        parts.push(Part::Without(map, RESULT_SHAPE));
    }
    Ok((kind, facts))
}

/// `exec` and `process` poll/log results: status, exit code, signal, timed-out flag and output
/// text (the content's text parts, else `details.aggregated`). A running process with a
/// `details.tail` is identified by its status and that tail.
fn exec_like_parts<'a>(
    details: &'a Map<String, Value>,
    texts: &[TextSource<'a>],
    side_text: Option<&'a [u8]>,
    parts: &mut Vec<Part<'a>>,
) -> Result<(), GuardError> {
    let mut state = Map::new();
    for (key, aliases) in [
        ("status", &["status"][..]),
        ("exitCode", &["exitCode", "code"][..]),
        ("signal", &["exitSignal", "signal"][..]),
        ("timedOut", &["timedOut"][..]),
    ] {
        if let Some(v) = aliases.iter().find_map(|a| details.get(*a)) {
            state.insert(key.to_owned(), v.clone());
        }
    }
    parts.push(Part::Owned(Value::Object(state)));
    let running = details.get("status").and_then(Value::as_str) == Some("running");
    let running_tail = details
        .get("tail")
        .and_then(Value::as_str)
        .filter(|_| running);
    if let Some(tail) = running_tail {
        parts.push(Part::Text(tail.as_bytes()));
    } else if texts.is_empty() {
        if let Some(text) = details.get("aggregated").and_then(Value::as_str) {
            parts.push(Part::Text(text.as_bytes()));
        }
    } else {
        for text in texts {
            parts.push(text_part(*text, side_text)?);
        }
    }
    Ok(())
}

fn text_part<'a>(
    text: TextSource<'a>,
    side_text: Option<&'a [u8]>,
) -> Result<Part<'a>, GuardError> {
    match text {
        TextSource::Inline(text) => Ok(Part::Text(text.as_bytes())),
        TextSource::Hashed(digest) => Ok(Part::Hashed(digest)),
        TextSource::Side => side_text.map(Part::Text).ok_or_else(|| {
            GuardError::record(
                Some("result"),
                "a text part says textSide but no side text was passed",
            )
        }),
    }
}

/// The text of a content part, if it is a text part.
fn text_of_part(item: &Value) -> Result<Option<TextSource<'_>>, GuardError> {
    let Some(part) = item.as_object() else {
        return Ok(None);
    };
    if part.get("type").and_then(Value::as_str) != Some("text") {
        return Ok(None);
    }
    if let Some(text) = part.get("text").and_then(Value::as_str) {
        return Ok(Some(TextSource::Inline(text)));
    }
    if let Some(hex) = part.get("textSha256") {
        return digest_from_hex(hex.as_str()).map(|d| Some(TextSource::Hashed(d)));
    }
    if part.get("textSide") == Some(&Value::Bool(true)) {
        return Ok(Some(TextSource::Side));
    }
    Ok(None)
}

/// A `textSha256` value: exactly 64 lowercase hex digits.
pub(crate) fn digest_from_hex(hex: Option<&str>) -> Result<Digest, GuardError> {
    let bad = || GuardError::record(Some("result"), "textSha256 must be 64 lowercase hex digits");
    let hex = hex.filter(|h| h.len() == 64).ok_or_else(bad)?;
    let mut digest = [0u8; 32];
    for (byte, pair) in digest.iter_mut().zip(hex.as_bytes().chunks(2)) {
        let text = std::str::from_utf8(pair).map_err(|_| bad())?;
        if text.bytes().any(|b| b.is_ascii_uppercase()) {
            return Err(bad());
        }
        *byte = u8::from_str_radix(text, 16).map_err(|_| bad())?;
    }
    Ok(digest)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::config::volatile_keys::VolatileKeys;
    use serde_json::json;

    fn outcome<'a>(
        tool: &'a str,
        result: Option<&'a Value>,
        error: Option<&'a Value>,
    ) -> OutcomeParts<'a> {
        OutcomeParts {
            tool,
            exec_like: tool == "exec",
            result,
            error,
            side_text: None,
            send: false,
            masking: ResultMasking::Nothing,
        }
    }

    fn digest(tool: &str, result: Value) -> Digest {
        digest_outcome(
            &outcome(tool, Some(&result), None),
            &VolatileKeys::default(),
        )
        .unwrap()
        .digest
    }

    #[test]
    fn volatile_keys_are_ignored_at_any_depth() {
        let a = digest(
            "x",
            json!({"ok": true, "meta": {"durationMs": 5, "requestId": "a"}}),
        );
        let b = digest(
            "x",
            json!({"meta": {"requestId": "b", "durationMs": 9}, "ok": true}),
        );
        assert_eq!(a, b);
        assert_ne!(a, digest("x", json!({"ok": false, "meta": {}})));
    }

    #[test]
    fn plain_string_equals_single_text_part_content() {
        let plain = digest("x", json!("hello"));
        let mcp = digest("x", json!({"content": [{"type": "text", "text": "hello"}]}));
        assert_eq!(plain, mcp);
    }

    #[test]
    fn host_supplied_and_side_texts_give_identical_digests() {
        let text = "x".repeat(MAX_SCANNED_TEXT_BYTES + 1);
        let inline = digest(
            "read",
            json!({"content": [{"type": "text", "text": text}], "details": {"n": 1}}),
        );
        let hex: String = sha256(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let hashed = digest(
            "read",
            json!({"content": [{"type": "text", "textSha256": hex}], "details": {"n": 1}}),
        );
        assert_eq!(inline, hashed);
        let side_result =
            json!({"content": [{"type": "text", "textSide": true}], "details": {"n": 1}});
        let side = OutcomeParts {
            side_text: Some(text.as_bytes()),
            ..outcome("read", Some(&side_result), None)
        };
        assert_eq!(
            digest_outcome(&side, &VolatileKeys::default())
                .unwrap()
                .digest,
            inline
        );
        let no_side = outcome("read", Some(&side_result), None);
        assert!(digest_outcome(&no_side, &VolatileKeys::default()).is_err());
        let bad = json!({"content": [{"type": "text", "textSha256": "ABC"}]});
        assert!(
            digest_outcome(&outcome("read", Some(&bad), None), &VolatileKeys::default()).is_err()
        );
    }

    #[test]
    fn running_exec_is_identified_by_status_and_tail() {
        let run = |tail: &str, pid: u32| {
            digest(
                "exec",
                json!({"content": [{"type": "text", "text": format!("pid {pid}")}], "details": {"status": "running", "pid": pid, "durationMs": pid, "tail": tail}}),
            )
        };
        assert_eq!(run("building", 1), run("building", 2));
        assert_ne!(run("building", 1), run("building.", 1));
    }

    #[test]
    fn unchanged_write_has_one_digest() {
        let a = digest("write", json!({"details": {"changed": false, "path": "a"}}));
        let b = digest("write", json!({"details": {"changed": false, "path": "b"}}));
        assert_eq!(a, b);
    }

    #[test]
    fn errors_hash_name_and_message_not_stack() {
        let keys = VolatileKeys::default();
        let e1 = json!({"name": "Error", "message": "boom", "stack": "at a"});
        let e2 = json!({"name": "Error", "message": "boom", "stack": "at b"});
        let d1 = digest_outcome(&outcome("x", None, Some(&e1)), &keys).unwrap();
        let d2 = digest_outcome(&outcome("x", None, Some(&e2)), &keys).unwrap();
        assert_eq!(d1, d2);
        assert!(d1.is_error);
        let message = json!("Unknown tool: y");
        let missing = digest_outcome(&outcome("y", None, Some(&message)), &keys).unwrap();
        assert!(missing.missing_tool);
    }
}
