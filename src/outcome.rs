//! Outcome digests: what a tool result or error *means*, as one SHA-256.
//!
//! An outcome is hashed as a frame: a version tag, a kind byte (result, error, unchanged write) and
//! a list of part digests. A text part's digest is `SHA-256(utf8 text)`; any other part's digest is
//! `SHA-256(JCS(part without volatile keys))`. Because text parts are hashed on their own, a host
//! with a fast native SHA-256 can hash a large text and still produce identical bytes.

use crate::canonical::{digest_json, sha256, Digest, KeyFilter};
use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

/// Keys dropped (at any depth) from results and errors before hashing: they change on every call
/// without meaning progress.
pub const DEFAULT_VOLATILE_KEYS: &[&str] = &[
    "durationMs",
    "duration",
    "elapsedMs",
    "tookMs",
    "pid",
    "startedAt",
    "endedAt",
    "createdAt",
    "updatedAt",
    "sentAt",
    "deliveredAt",
    "timestamp",
    "ts",
    "requestId",
    "traceId",
    "spanId",
    "messageId",
    "message_id",
    "receipt",
    "idempotencyKey",
    "runId",
    "sessionId",
    "cwd",
];

#[derive(Debug, Clone, Default)]
pub struct VolatileKeys {
    extra: Vec<String>,
}

impl VolatileKeys {
    pub fn with_extra(extra: Vec<String>) -> Self {
        VolatileKeys { extra }
    }
}

impl KeyFilter for VolatileKeys {
    fn drops(&self, key: &str) -> bool {
        DEFAULT_VOLATILE_KEYS.contains(&key) || self.extra.iter().any(|k| k == key)
    }
}

/// The volatile keys for one tool's outcomes: the global list plus the tool's own `ignore` keys.
pub struct ToolVolatileKeys<'a> {
    pub global: &'a VolatileKeys,
    pub tool: &'a [String],
}

impl KeyFilter for ToolVolatileKeys<'_> {
    fn drops(&self, key: &str) -> bool {
        self.global.drops(key) || self.tool.iter().any(|k| k == key)
    }
}

/// A copy of `value` without the members at `pointers` (RFC 6901; missing paths are ignored).
pub fn without_pointers(value: &Value, pointers: &[String]) -> Value {
    let mut copy = value.clone();
    for pointer in pointers {
        let Some((parent, last)) = pointer.rsplit_once('/') else {
            continue;
        };
        let key = last.replace("~1", "/").replace("~0", "~");
        match copy.pointer_mut(parent) {
            Some(Value::Object(map)) => {
                map.remove(&key);
            }
            Some(Value::Array(items)) => {
                if let Ok(index) = key.parse::<usize>() {
                    if index < items.len() {
                        items.remove(index);
                    }
                }
            }
            _ => {}
        }
    }
    copy
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Result = b'r' as isize,
    Error = b'e' as isize,
    Unchanged = b'u' as isize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Text(Digest),
    Json(Digest),
}

/// The digest of one outcome plus what the detectors need to know about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutcomeDigest {
    pub digest: Digest,
    pub is_error: bool,
    /// The outcome says a tool does not exist ("unknown tool X", "tool X not found", …).
    pub missing_tool: bool,
}

/// Digests the outcome of `tool(args)`: `error` when the tool threw, else `result`.
pub fn digest_outcome(
    tool: &str,
    args: &Value,
    result: Option<&Value>,
    error: Option<&Value>,
    keys: &dyn KeyFilter,
) -> OutcomeDigest {
    let mut parts = Vec::new();
    match error.filter(|e| !e.is_null()) {
        Some(error) => {
            let message = error_parts(error, keys, &mut parts);
            finish(
                Kind::Error,
                &parts,
                message.as_deref().is_some_and(names_missing_tool),
            )
        }
        None => {
            let result = result.unwrap_or(&Value::Null);
            let (kind, missing) = result_parts(tool, args, result, keys, &mut parts);
            finish(kind, &parts, missing)
        }
    }
}

fn finish(kind: Kind, parts: &[Part], missing_tool: bool) -> OutcomeDigest {
    let mut hasher = Sha256::new();
    hasher.update(b"tool-loop-guard/outcome/v1");
    hasher.update([kind as u8]);
    for part in parts {
        match part {
            Part::Text(d) => {
                hasher.update(b"t");
                hasher.update(d);
            }
            Part::Json(d) => {
                hasher.update(b"j");
                hasher.update(d);
            }
        }
    }
    OutcomeDigest {
        digest: hasher.finalize().into(),
        is_error: kind == Kind::Error,
        missing_tool,
    }
}

/// An error hashes as its name and message (never its stack); returns the message for the
/// missing-tool check.
fn error_parts(error: &Value, keys: &dyn KeyFilter, parts: &mut Vec<Part>) -> Option<String> {
    match error {
        Value::String(message) => {
            parts.push(Part::Text(sha256(b"")));
            parts.push(Part::Text(sha256(message.as_bytes())));
            Some(message.clone())
        }
        Value::Object(map) => match map.get("message") {
            Some(Value::String(message)) => {
                let name = map.get("name").and_then(Value::as_str).unwrap_or("");
                parts.push(Part::Text(sha256(name.as_bytes())));
                parts.push(Part::Text(sha256(message.as_bytes())));
                Some(message.clone())
            }
            _ => {
                let mut without_stack = map.clone();
                without_stack.remove("stack");
                parts.push(Part::Json(digest_json(&Value::Object(without_stack), keys)));
                None
            }
        },
        other => {
            parts.push(Part::Json(digest_json(other, keys)));
            None
        }
    }
}

fn result_parts(
    tool: &str,
    args: &Value,
    result: &Value,
    keys: &dyn KeyFilter,
    parts: &mut Vec<Part>,
) -> (Kind, bool) {
    let Value::Object(map) = result else {
        match result {
            Value::String(text) => parts.push(Part::Text(sha256(text.as_bytes()))),
            other => parts.push(Part::Json(digest_json(other, keys))),
        }
        return (Kind::Result, false);
    };
    let details = map.get("details").and_then(Value::as_object);
    let is_error = map.get("isError") == Some(&Value::Bool(true));
    let kind = if is_error { Kind::Error } else { Kind::Result };

    if tool == "write" && details.and_then(|d| d.get("changed")) == Some(&Value::Bool(false)) {
        return (Kind::Unchanged, false);
    }
    let texts = content_texts(map);
    if tool == "exec" || (tool == "process" && is_poll_action(args)) {
        if let Some(details) = details {
            exec_like_parts(details, &texts, keys, parts);
            return (kind, false);
        }
    }
    let Some(content) = map.get("content").and_then(Value::as_array) else {
        parts.push(Part::Json(digest_json(result, keys)));
        return (Kind::Result, false);
    };
    for item in content {
        match text_of_part(item) {
            Some(text) => parts.push(Part::Text(sha256(text.as_bytes()))),
            None => parts.push(Part::Json(digest_json(item, keys))),
        }
    }
    if let Some(details) = map.get("details") {
        parts.push(Part::Json(digest_json(details, keys)));
    }
    let rest: Map<String, Value> = map
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "content" | "details" | "isError" | "_meta"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if !rest.is_empty() {
        parts.push(Part::Json(digest_json(&Value::Object(rest), keys)));
    }
    let missing = is_error && texts.iter().any(|t| names_missing_tool(t));
    (kind, missing)
}

/// `exec` and `process` poll/log results: status, exit code, signal, timed-out flag and output
/// text (the content's text parts, else `details.aggregated`). A running process with a
/// `details.tail` is identified by its status and that tail.
fn exec_like_parts(
    details: &Map<String, Value>,
    texts: &[&str],
    keys: &dyn KeyFilter,
    parts: &mut Vec<Part>,
) {
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
    parts.push(Part::Json(digest_json(&Value::Object(state), keys)));
    let running = details.get("status").and_then(Value::as_str) == Some("running");
    let running_tail = details
        .get("tail")
        .and_then(Value::as_str)
        .filter(|_| running);
    if let Some(tail) = running_tail {
        parts.push(Part::Text(sha256(tail.as_bytes())));
    } else if texts.is_empty() {
        if let Some(text) = details.get("aggregated").and_then(Value::as_str) {
            parts.push(Part::Text(sha256(text.as_bytes())));
        }
    } else {
        for text in texts {
            parts.push(Part::Text(sha256(text.as_bytes())));
        }
    }
}

fn content_texts(map: &Map<String, Value>) -> Vec<&str> {
    map.get("content")
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(text_of_part).collect())
        .unwrap_or_default()
}

fn text_of_part(item: &Value) -> Option<&str> {
    let part = item.as_object()?;
    if part.get("type").and_then(Value::as_str) != Some("text") {
        return None;
    }
    part.get("text").and_then(Value::as_str)
}

/// `process` calls with `action: "poll"` or `"log"` are polls of a running process.
pub fn is_poll_action(args: &Value) -> bool {
    matches!(
        args.get("action").and_then(Value::as_str),
        Some("poll" | "log")
    )
}

/// Returns the tool name when `message` says a tool does not exist.
pub fn missing_tool_name(message: &str) -> Option<String> {
    let lower = message.to_ascii_lowercase();
    if let Some(pos) = lower.find("unknown tool") {
        let rest = message.get(pos + "unknown tool".len()..)?;
        return first_token(rest.trim_start_matches([':', ' ']));
    }
    if let Some(pos) = lower.find("tool not found") {
        let rest = message.get(pos + "tool not found".len()..)?;
        return first_token(rest.trim_start_matches([':', ' ']));
    }
    const ENDINGS: &[&str] = &[
        " not found",
        " was not found",
        " is not available",
        " does not exist",
    ];
    let mut from = 0;
    while let Some(found) = lower.get(from..).and_then(|s| s.find("tool ")) {
        let name_start = from + found + "tool ".len();
        let rest = lower.get(name_start..)?;
        let name_len = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let after = rest.get(name_len..).unwrap_or("");
        if name_len > 0 && ENDINGS.iter().any(|e| after.starts_with(e)) {
            return first_token(message.get(name_start..)?);
        }
        from = name_start;
    }
    None
}

fn names_missing_tool(message: &str) -> bool {
    missing_tool_name(message).is_some()
}

fn first_token(text: &str) -> Option<String> {
    let token = text.split_whitespace().next()?;
    let name = token
        .trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | '.' | ',' | ':' | ';' | '(' | ')'));
    (!name.is_empty()).then(|| name.to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn digest(tool: &str, args: Value, result: Value) -> Digest {
        digest_outcome(tool, &args, Some(&result), None, &VolatileKeys::default()).digest
    }

    #[test]
    fn missing_tool_phrasings() {
        assert_eq!(
            missing_tool_name("Unknown tool: search_web").as_deref(),
            Some("search_web")
        );
        assert_eq!(
            missing_tool_name("Tool `fetch` not found").as_deref(),
            Some("fetch")
        );
        assert_eq!(
            missing_tool_name("error: tool \"browse\" is not available.").as_deref(),
            Some("browse")
        );
        assert_eq!(missing_tool_name("file not found"), None);
        assert_eq!(missing_tool_name("the tool ran fine"), None);
    }

    #[test]
    fn volatile_keys_are_ignored_at_any_depth() {
        let a = digest(
            "x",
            json!({}),
            json!({"ok": true, "meta": {"durationMs": 5, "requestId": "a"}}),
        );
        let b = digest(
            "x",
            json!({}),
            json!({"meta": {"requestId": "b", "durationMs": 9}, "ok": true}),
        );
        assert_eq!(a, b);
        assert_ne!(a, digest("x", json!({}), json!({"ok": false, "meta": {}})));
    }

    #[test]
    fn plain_string_equals_single_text_part_content() {
        let plain = digest("x", json!({}), json!("hello"));
        let mcp = digest(
            "x",
            json!({}),
            json!({"content": [{"type": "text", "text": "hello"}]}),
        );
        assert_eq!(plain, mcp);
    }

    #[test]
    fn running_exec_is_identified_by_status_and_tail() {
        let run = |text: &str, pid: u32| {
            digest(
                "exec",
                json!({"command": "make"}),
                json!({"content": [{"type": "text", "text": text}], "details": {"status": "running", "pid": pid, "durationMs": pid}}),
            )
        };
        assert_eq!(run("building", 1), run("building", 2));
        assert_ne!(run("building", 1), run("building.", 1));
    }

    #[test]
    fn unchanged_write_has_one_digest() {
        let a = digest(
            "write",
            json!({"path": "a"}),
            json!({"details": {"changed": false, "path": "a"}}),
        );
        let b = digest(
            "write",
            json!({"path": "b"}),
            json!({"details": {"changed": false, "path": "b"}}),
        );
        assert_eq!(a, b);
    }

    #[test]
    fn errors_hash_name_and_message_not_stack() {
        let keys = VolatileKeys::default();
        let e1 = json!({"name": "Error", "message": "boom", "stack": "at a"});
        let e2 = json!({"name": "Error", "message": "boom", "stack": "at b"});
        let d1 = digest_outcome("x", &json!({}), None, Some(&e1), &keys);
        let d2 = digest_outcome("x", &json!({}), None, Some(&e2), &keys);
        assert_eq!(d1, d2);
        assert!(d1.is_error);
        let missing = digest_outcome(
            "y",
            &json!({}),
            None,
            Some(&json!("Unknown tool: y")),
            &keys,
        );
        assert!(missing.missing_tool);
    }
}
