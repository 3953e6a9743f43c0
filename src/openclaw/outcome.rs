//! How the `openclaw` preset fingerprints an outcome, as OpenClaw 2026.9.6 does: errors by their
//! message (and the unavailable tool they name), `exec` by status, exit code and output, `process`
//! polls and logs by their progress fields, `write` with `changed: false` as no progress, sends by
//! their details without per-send ids, the loop detector's own veto as no outcome at all, and
//! everything else by `details` and the text parts.

use super::markers::{canonical_markers, write_canonical_markers};
use super::text::exec_failure_shape;
use crate::error::GuardError;
use crate::json::digest::{ByteSink, Digest, HashSink};
use crate::json::escape::write_string;
use crate::json::number_format::format_number;
use crate::record::input::MAX_DEPTH;
use crate::record::missing_tool::openclaw_missing_tool;
use crate::record::outcome_fields::{ResultFields, TextField};
use crate::record::volatile_table::{is_send, without_send_ids};
use serde_json::{Map, Value};

/// What an outcome says about the no-progress streaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutcomeKind {
    /// An ordinary outcome.
    Plain,
    /// The guard refused the call (a veto record).
    LoopVeto,
    /// `exec` failed for good: a non-zero exit with output to show for it.
    TerminalExecFailure,
}

/// A recorded outcome's fingerprints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// `None` for a veto (and for a result that carries nothing).
    pub hash: Option<Digest>,
    pub kind: OutcomeKind,
    /// Terminal `exec` failures: the failure with timestamps, durations, attempts and pids masked.
    pub failure_identity: Option<Digest>,
    /// The outcome shows no progress whatever the arguments were (errors, unchanged writes).
    pub no_progress: bool,
    /// The unavailable tool an error names, lower-cased.
    pub unknown_tool: Option<String>,
}

impl Outcome {
    fn plain(hash: Digest) -> Outcome {
        Outcome {
            hash: Some(hash),
            kind: OutcomeKind::Plain,
            failure_identity: None,
            no_progress: false,
            unknown_tool: None,
        }
    }

    /// The record a refused call leaves in the window.
    pub fn veto() -> Outcome {
        Outcome {
            hash: None,
            kind: OutcomeKind::LoopVeto,
            failure_identity: None,
            no_progress: false,
            unknown_tool: None,
        }
    }

    /// Whether the record holds anything: an outcome with neither a hash nor a veto is not kept.
    pub fn is_empty(&self) -> bool {
        self.hash.is_none() && self.kind == OutcomeKind::Plain
    }
}

/// One field of a digested tuple.
#[derive(Clone, Copy)]
enum F<'a> {
    Str(&'a str),
    Val(&'a Value),
    Bool(bool),
    Null,
    /// A field the result does not have (distinct from `null`, as in OpenClaw's hashing).
    Absent,
    EmptyObject,
}

/// The digest of named fields, written as JSON in a fixed order (equal tuples, equal digests;
/// nothing is built or copied), untrusted-content marker ids read as zeros. One copy of this code
/// serves every tuple.
#[inline(never)]
fn digest_fields(fields: &[(&str, F)]) -> Digest {
    let mut sink = HashSink::new();
    for (key, field) in fields {
        write_string(key, &mut sink);
        match field {
            F::Str(s) => write_string(&canonical_markers(s), &mut sink),
            F::Val(v) => write_canonical_markers(v, &mut sink),
            F::Bool(true) => sink.put(b"true"),
            F::Bool(false) => sink.put(b"false"),
            F::Null => sink.put(b"null"),
            F::Absent => sink.put(b"~"),
            F::EmptyObject => sink.put(b"{}"),
        }
    }
    sink.finish()
}

/// A field of `details` as it is (absent when missing).
fn field<'a>(details: &'a Map<String, Value>, key: &str) -> F<'a> {
    details.get(key).map_or(F::Absent, F::Val)
}

/// A field of `details` as it is, `null` when missing.
fn field_or_null<'a>(details: &'a Map<String, Value>, key: &str) -> F<'a> {
    details.get(key).map_or(F::Null, F::Val)
}

/// A string field of `details`, else `fallback`.
fn string_or<'a>(details: &'a Map<String, Value>, key: &str, fallback: F<'a>) -> F<'a> {
    details
        .get(key)
        .and_then(Value::as_str)
        .map_or(fallback, F::Str)
}

/// The fingerprints of what a call of `tool` (already normalised) with `args` returned or threw.
pub fn outcome_of(
    tool: &str,
    args: &Value,
    result: Option<&Value>,
    error: Option<&Value>,
    side_text: Option<&[u8]>,
) -> Outcome {
    if let Some(error) = error.filter(|e| !e.is_null()) {
        let text = error_text(error);
        return Outcome {
            no_progress: true,
            unknown_tool: openclaw_missing_tool(&text),
            ..Outcome::plain(digest_fields(&[("error", F::Str(&text))]))
        };
    }
    let Some(result) = result else {
        return Outcome {
            hash: None,
            ..Outcome::plain([0; 32])
        };
    };
    let Value::Object(result) = result else {
        return Outcome::plain(digest_fields(&[("value", F::Val(result))]));
    };
    let details = result.get("details").filter(|d| d.is_object());
    let text = text_content(result, side_text);
    let outcome = object_outcome(tool, args, details, &text);
    zero(text);
    outcome
}

/// `outcome_of` a result handed over field by field: the same fingerprints as of the result the
/// fields stand for (`ResultFields::tree`), without building it. `Absent` is a missing result (a
/// `null` one, which OpenClaw hashes as a value, comes as JSON).
pub fn outcome_of_fields(
    tool: &str,
    args: &Value,
    result: &ResultFields,
) -> Result<Outcome, GuardError> {
    let (texts, details) = match result {
        ResultFields::Absent => return Ok(outcome_of(tool, args, None, None, None)),
        ResultFields::Error { .. } => {
            return Ok(outcome_of(
                tool,
                args,
                None,
                result.error_tree().as_ref(),
                None,
            ))
        }
        // A string is hashed as the value it is (a string's canonical JSON is its `F::Str`).
        ResultFields::Text(TextField::Text(text)) => {
            return Ok(Outcome::plain(digest_fields(&[("value", F::Str(text))])))
        }
        ResultFields::Text(hashed) => (std::slice::from_ref(hashed), None),
        ResultFields::Parts { texts, details, .. } => (texts.as_slice(), *details),
    };
    let details = details
        .map(|text| {
            crate::json::reader::parse(text, MAX_DEPTH - 1)
                .map_err(|_| GuardError::record(Some("result"), "result.details is not valid JSON"))
        })
        .transpose()?;
    let text = joined_texts(texts.iter().map(|text| match text {
        TextField::Text(text) => ("", *text),
        TextField::Sha256Hex(hex) => (HASHED_TEXT_MARKER, *hex),
    }));
    let outcome = object_outcome(
        tool,
        args,
        details.as_ref().filter(|d| d.is_object()),
        &text,
    );
    zero(text);
    details.into_iter().for_each(crate::json::scrub::scrub);
    Ok(outcome)
}

/// Zeroes a text that held raw content as it is dropped.
fn zero(text: String) {
    let mut bytes = text.into_bytes();
    bytes.fill(0);
    std::hint::black_box(&mut bytes);
}

/// The outcome of an object result, by its `details` (when an object) and its joined text.
fn object_outcome(tool: &str, args: &Value, details_value: Option<&Value>, text: &str) -> Outcome {
    let empty = Map::new();
    let details = details_value.and_then(Value::as_object).unwrap_or(&empty);
    if details.get("status").and_then(Value::as_str) == Some("blocked")
        && details.get("deniedReason").and_then(Value::as_str) == Some("tool-loop")
    {
        return Outcome::veto();
    }
    if tool == "exec" {
        if let Some(outcome) = exec_outcome(details, text) {
            return outcome;
        }
    }
    if tool == "write" && details.get("changed") == Some(&Value::Bool(false)) {
        return Outcome {
            no_progress: true,
            ..Outcome::plain(digest_fields(&[("status", F::Str("unchanged"))]))
        };
    }
    if tool == "process" {
        if let Some(hash) = process_outcome(args, details, text) {
            return Outcome::plain(hash);
        }
    }
    if is_send(tool, args) {
        let stripped = without_send_ids(details_value.unwrap_or(&Value::Null), true);
        let hash = digest_fields(&[("details", F::Val(&stripped))]);
        crate::json::scrub::scrub(stripped);
        return Outcome::plain(hash);
    }
    let details = details_value.map_or(F::EmptyObject, F::Val);
    Outcome::plain(digest_fields(&[
        ("details", details),
        ("text", F::Str(text)),
    ]))
}

/// An error's text: a string as is, an error object's `message` (or `name`), else its JSON.
fn error_text(error: &Value) -> String {
    match error {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), format_number),
        Value::Object(map) => {
            let field = |key: &str| {
                map.get(key)
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
            };
            match field("message").or_else(|| field("name")) {
                Some(s) => s.to_owned(),
                None => crate::json::canonical::to_canonical_string(error),
            }
        }
        other => crate::json::canonical::to_canonical_string(other),
    }
}

/// How a text the host handed over as its SHA-256 (`textSha256`) stands in the joined text: this
/// marker, then the digest's hex.
const HASHED_TEXT_MARKER: &str = "\u{0}sha256:";

/// The text parts (`{type, text}` with string fields), joined by newlines and trimmed. A long
/// text the host handed over as its SHA-256 (`textSha256`) stands in by that digest; one passed
/// beside the record (`textSide`) is `side_text`.
fn text_content(result: &Map<String, Value>, side_text: Option<&[u8]>) -> String {
    let Some(Value::Array(parts)) = result.get("content") else {
        return String::new();
    };
    let side = side_text.map(String::from_utf8_lossy);
    let texts = parts
        .iter()
        .filter_map(Value::as_object)
        .filter_map(|part| {
            if !part.get("type").is_some_and(Value::is_string) {
                return None;
            }
            match (part.get("text"), part.get("textSha256")) {
                (Some(Value::String(text)), _) => Some(("", text.as_str())),
                (None, Some(Value::String(hex))) => Some((HASHED_TEXT_MARKER, hex.as_str())),
                _ => match (&side, part.get("textSide")) {
                    (Some(side), Some(Value::Bool(true))) => Some(("", side.as_ref())),
                    _ => None,
                },
            }
        });
    joined_texts(texts)
}

/// Texts (each after its marker) joined by newlines, then trimmed as `String#trim` trims.
fn joined_texts<'t>(texts: impl Iterator<Item = (&'static str, &'t str)>) -> String {
    let mut joined = String::new();
    for (i, (marker, text)) in texts.enumerate() {
        if i > 0 {
            joined.push('\n');
        }
        joined.push_str(marker);
        joined.push_str(text);
    }
    let trimmed = js_trim(&joined);
    if trimmed.len() != joined.len() {
        let owned = trimmed.to_owned();
        zero(std::mem::replace(&mut joined, owned));
    }
    joined
}

/// `String#trim`: Unicode white space and the byte-order mark.
fn js_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
}

/// A string field trimmed, `None` when absent, not a string or blank.
fn non_blank<'a>(details: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    details
        .get(key)
        .and_then(Value::as_str)
        .map(js_trim)
        .filter(|s| !s.is_empty())
}

/// `exec` results with a known status; `None` leaves them to the generic hashing.
fn exec_outcome(details: &Map<String, Value>, text: &str) -> Option<Outcome> {
    let status = details.get("status")?.as_str()?;
    let timed_out = F::Bool(details.get("timedOut") == Some(&Value::Bool(true)));
    match status {
        "running" => Some(Outcome::plain(digest_fields(&[
            ("status", F::Str(status)),
            ("tail", string_or(details, "tail", F::Str(""))),
        ]))),
        "completed" | "failed" => {
            let exit_code = details.get("exitCode").filter(|c| c.is_number());
            let exit = exit_code.map_or(F::Null, F::Val);
            let output = non_blank(details, "aggregated").unwrap_or(text);
            let identity = |output: &str| {
                digest_fields(&[
                    ("status", F::Str(status)),
                    ("exitCode", exit),
                    ("timedOut", timed_out),
                    ("output", F::Str(output)),
                ])
            };
            let hash = identity(output);
            let code = exit_code.and_then(Value::as_f64).filter(|c| *c != 0.0);
            let terminal = code.is_some_and(|code| {
                matches!(timed_out, F::Bool(false))
                    && !output.is_empty()
                    && !is_bare_exit_line(output, code)
            });
            Some(match terminal {
                true => Outcome {
                    kind: OutcomeKind::TerminalExecFailure,
                    failure_identity: Some(identity(&exec_failure_shape(output))),
                    ..Outcome::plain(hash)
                },
                false => Outcome::plain(hash),
            })
        }
        "approval-pending" | "approval-unavailable" => Some(Outcome::plain(digest_fields(&[
            ("status", F::Str(status)),
            ("reason", string_or(details, "reason", F::Null)),
            ("host", string_or(details, "host", F::Null)),
            ("command", string_or(details, "command", F::Str(""))),
            ("warningText", string_or(details, "warningText", F::Str(""))),
        ]))),
        _ => None,
    }
}

/// `(Command exited with code N)`: what a non-zero exit prints when the command printed nothing.
/// (Exit codes are integers; any other number never matches.)
fn is_bare_exit_line(output: &str, code: f64) -> bool {
    let digits = output
        .strip_prefix("(Command exited with code ")
        .and_then(|rest| rest.strip_suffix(')'));
    let integral = code.fract() == 0.0 && code.abs() < 1e15;
    digits.is_some_and(|n| {
        integral && n.parse::<i64>().ok() == Some(code as i64) && !n.starts_with('+')
    })
}

/// `process` polls and log reads, by the fields that show progress.
fn process_outcome(args: &Value, details: &Map<String, Value>, text: &str) -> Option<Digest> {
    let action = args.get("action")?.as_str()?;
    let status = field(details, "status");
    // Each list is the object OpenClaw hashes for that action, key for key as OpenClaw writes it:
    // kept whole so each reads against OpenClaw's source (this digest depends on the order).
    match action {
        "poll" => Some(digest_fields(&[
            ("action", F::Str(action)),
            ("status", status),
            ("exitCode", field_or_null(details, "exitCode")),
            ("exitSignal", field_or_null(details, "exitSignal")),
            ("aggregated", field_or_null(details, "aggregated")),
            ("text", F::Str(text)),
        ])),
        "log" => Some(digest_fields(&[
            ("action", F::Str(action)),
            ("status", status),
            ("totalLines", field_or_null(details, "totalLines")),
            ("totalChars", field_or_null(details, "totalChars")),
            ("truncated", field_or_null(details, "truncated")),
            ("exitCode", field_or_null(details, "exitCode")),
            ("exitSignal", field_or_null(details, "exitSignal")),
            ("text", F::Str(text)),
        ])),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(tool: &str, args: &Value, result: Option<&Value>, error: Option<&Value>) -> Outcome {
        outcome_of(tool, args, result, error, None)
    }

    fn send(i: u32) -> Value {
        let payload = json!({"ok": true, "runId": format!("run_{i}"), "messageId": format!("m_{i}"),
            "receipt": {"platformMessageId": format!("p_{i}")}, "route": {"id": "conv-A"}});
        json!({"content": [{"type": "text", "text": payload.to_string()}], "details": payload})
    }

    #[test]
    fn sends_drop_per_send_ids_but_keep_route_ids() {
        let args = json!({"action": "send", "text": "hi"});
        let a = of("message", &args, Some(&send(1)), None);
        let b = of("message", &args, Some(&send(2)), None);
        assert_eq!(a, b);
        let read = json!({"action": "read"});
        assert_ne!(
            of("message", &read, Some(&send(1)), None),
            of("message", &read, Some(&send(2)), None)
        );
    }

    #[test]
    fn terminal_exec_failures_share_an_identity_across_volatile_output() {
        let fail = |s: &str| {
            json!({"content": [{"type": "text", "text": s}],
                   "details": {"status": "failed", "exitCode": 1, "aggregated": s}})
        };
        let a = of(
            "exec",
            &json!({}),
            Some(&fail("pid 12 failed after 30ms")),
            None,
        );
        let b = of(
            "exec",
            &json!({}),
            Some(&fail("pid 99 failed after 41ms")),
            None,
        );
        assert_eq!(a.kind, OutcomeKind::TerminalExecFailure);
        assert_ne!(a.hash, b.hash);
        assert_eq!(a.failure_identity, b.failure_identity);
        let bare = fail("(Command exited with code 1)");
        assert_eq!(
            of("exec", &json!({}), Some(&bare), None).kind,
            OutcomeKind::Plain
        );
    }

    #[test]
    fn key_order_never_matters() {
        let marker = "<<<EXTERNAL_UNTRUSTED_CONTENT id=\"0123456789abcdef\">>>x<<<END_EXTERNAL_UNTRUSTED_CONTENT id=\"0123456789abcdef\">>>";
        let a = json!({"content": [], "details": {"a": 1, "b": marker}});
        let b = json!({"content": [], "details": {"b": marker, "a": 1}});
        assert_eq!(
            of("t", &json!({}), Some(&a), None),
            of("t", &json!({}), Some(&b), None)
        );
        let a = json!({"content": [], "details": {"a": 1, "b": 2}});
        let b = json!({"content": [], "details": {"b": 2, "a": 1}});
        assert_eq!(
            of("t", &json!({}), Some(&a), None),
            of("t", &json!({}), Some(&b), None)
        );
    }

    #[test]
    fn veto_and_errors() {
        let veto = json!({"details": {"status": "blocked", "deniedReason": "tool-loop"}});
        assert_eq!(of("x", &json!({}), Some(&veto), None), Outcome::veto());
        let e = of(
            "exec",
            &json!({}),
            None,
            Some(&json!({"message": "Tool Exec not found"})),
        );
        assert!(e.no_progress);
        assert_eq!(e.unknown_tool.as_deref(), Some("exec"));
        assert!(of("x", &json!({}), None, None).is_empty());
    }
}
