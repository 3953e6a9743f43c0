//! How the `openclaw` preset fingerprints an outcome, as OpenClaw 2026.9.6 does: errors by their
//! message (and the unavailable tool they name), `exec` by status, exit code and output, `process`
//! polls and logs by their progress fields, `write` with `changed: false` as no progress, sends by
//! their details without per-send ids, the loop detector's own veto as no outcome at all, and
//! everything else by `details` and the text parts.

use super::text::{exec_failure_shape, unknown_tool_name};
use crate::canonical::{format_number, write_value, ByteSink, Digest, HashSink, KeepAll};
use serde_json::{json, Map, Value};

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

/// Stands for a field the result does not have (distinct from `null`, as in OpenClaw's hashing).
const ABSENT: &str = "\u{0}absent";

/// `message` actions that deliver something and so answer with fresh per-send ids.
const SEND_ACTIONS: &[&str] = &[
    "send",
    "broadcast",
    "reply",
    "thread-reply",
    "sendWithEffect",
    "sendAttachment",
    "upload-file",
    "sticker",
    "poll",
];

/// Per-send ids and timestamps dropped from a send's details before hashing.
const VOLATILE_SEND_KEYS: &[&str] = &[
    "messageId",
    "message_id",
    "messageIds",
    "platformMessageId",
    "platformMessageIds",
    "fileId",
    "file_id",
    "fileKey",
    "pollId",
    "poll_id",
    "receipt",
    "runId",
    "idempotencyKey",
    "ts",
    "timestamp",
    "sentAt",
    "deliveredAt",
    "createdAt",
];

fn digest(value: &Value) -> Digest {
    let mut sink = HashSink::new();
    write_value(value, &KeepAll, &mut sink);
    sink.finish()
}

/// The fingerprints of what a call of `tool` (already normalised) with `args` returned or threw.
pub fn outcome_of(
    tool: &str,
    args: &Value,
    result: Option<&Value>,
    error: Option<&Value>,
) -> Outcome {
    if let Some(error) = error.filter(|e| !e.is_null()) {
        let text = error_text(error);
        let mut sink = HashSink::new();
        sink.put(b"error:");
        write_value(&Value::String(text.clone()), &KeepAll, &mut sink);
        return Outcome {
            no_progress: true,
            unknown_tool: unknown_tool_name(&text),
            ..Outcome::plain(sink.finish())
        };
    }
    let Some(result) = result else {
        return Outcome {
            hash: None,
            ..Outcome::plain([0; 32])
        };
    };
    let Value::Object(result) = result else {
        return Outcome::plain(digest(result));
    };
    let empty = Map::new();
    let details = match result.get("details") {
        Some(Value::Object(details)) => details,
        _ => &empty,
    };
    let text = text_content(result);
    if details.get("status").and_then(Value::as_str) == Some("blocked")
        && details.get("deniedReason").and_then(Value::as_str) == Some("tool-loop")
    {
        return Outcome::veto();
    }
    if tool == "exec" {
        if let Some(outcome) = exec_outcome(details, &text) {
            return outcome;
        }
    }
    if tool == "write" && details.get("changed") == Some(&Value::Bool(false)) {
        return Outcome {
            no_progress: true,
            ..Outcome::plain(digest(&json!({ "status": "unchanged" })))
        };
    }
    if tool == "process" {
        if let Some(hash) = process_outcome(args, details, &text) {
            return Outcome::plain(hash);
        }
    }
    if is_send(tool, args) {
        return Outcome::plain(digest(&without_send_ids(&Value::Object(details.clone()))));
    }
    Outcome::plain(digest(&json!({
        "details": Value::Object(details.clone()),
        "text": text,
    })))
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
                None => crate::canonical::to_canonical_string(error),
            }
        }
        other => crate::canonical::to_canonical_string(other),
    }
}

/// The text parts (`{type, text}` with string fields), joined by newlines and trimmed. A long
/// text the host handed over as its SHA-256 (`textSha256`) stands in by that digest.
fn text_content(result: &Map<String, Value>) -> String {
    let Some(Value::Array(parts)) = result.get("content") else {
        return String::new();
    };
    let texts: Vec<String> = parts
        .iter()
        .filter_map(|part| {
            let part = part.as_object()?;
            part.get("type")?.as_str()?;
            match (part.get("text"), part.get("textSha256")) {
                (Some(Value::String(text)), _) => Some(text.clone()),
                (None, Some(Value::String(hex))) => Some(format!("\u{0}sha256:{hex}")),
                _ => None,
            }
        })
        .collect();
    js_trim(&texts.join("\n")).to_owned()
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

fn string_or(details: &Map<String, Value>, key: &str, fallback: Value) -> Value {
    details
        .get(key)
        .and_then(Value::as_str)
        .map_or(fallback, |s| Value::String(s.to_owned()))
}

/// `exec` results with a known status; `None` leaves them to the generic hashing.
fn exec_outcome(details: &Map<String, Value>, text: &str) -> Option<Outcome> {
    let status = details.get("status")?.as_str()?;
    let timed_out = details.get("timedOut") == Some(&Value::Bool(true));
    match status {
        "running" => Some(Outcome::plain(digest(&json!({
            "status": status,
            "tail": string_or(details, "tail", json!("")),
        })))),
        "completed" | "failed" => {
            let exit_code = details.get("exitCode").filter(|c| c.is_number());
            let output = non_blank(details, "aggregated").unwrap_or(text);
            let hash = digest(&json!({
                "status": status,
                "exitCode": exit_code.cloned().unwrap_or(Value::Null),
                "timedOut": timed_out,
                "output": output,
            }));
            let code = exit_code.and_then(Value::as_f64).filter(|c| *c != 0.0);
            let terminal = code.filter(|code| {
                !timed_out
                    && !output.is_empty()
                    && output != format!("(Command exited with code {})", format_number(*code))
            });
            Some(match terminal {
                Some(_) => Outcome {
                    kind: OutcomeKind::TerminalExecFailure,
                    failure_identity: Some(digest(&json!({
                        "status": status,
                        "exitCode": exit_code.cloned().unwrap_or(Value::Null),
                        "timedOut": timed_out,
                        "output": exec_failure_shape(output),
                    }))),
                    ..Outcome::plain(hash)
                },
                None => Outcome::plain(hash),
            })
        }
        "approval-pending" | "approval-unavailable" => Some(Outcome::plain(digest(&json!({
            "status": status,
            "reason": string_or(details, "reason", Value::Null),
            "host": string_or(details, "host", Value::Null),
            "command": string_or(details, "command", json!("")),
            "warningText": string_or(details, "warningText", json!("")),
        })))),
        _ => None,
    }
}

/// `process` polls and log reads, by the fields that show progress.
fn process_outcome(args: &Value, details: &Map<String, Value>, text: &str) -> Option<Digest> {
    let action = args.get("action")?.as_str()?;
    let field = |key: &str| details.get(key).cloned().unwrap_or(Value::Null);
    let status = details
        .get("status")
        .cloned()
        .unwrap_or_else(|| json!(ABSENT));
    match action {
        "poll" => Some(digest(&json!({
            "action": action,
            "status": status,
            "exitCode": field("exitCode"),
            "exitSignal": field("exitSignal"),
            "aggregated": field("aggregated"),
            "text": text,
        }))),
        "log" => Some(digest(&json!({
            "action": action,
            "status": status,
            "totalLines": field("totalLines"),
            "totalChars": field("totalChars"),
            "truncated": field("truncated"),
            "exitCode": field("exitCode"),
            "exitSignal": field("exitSignal"),
            "text": text,
        }))),
        _ => None,
    }
}

/// Calls whose results carry fresh per-send ids: session sends and `message` deliveries.
fn is_send(tool: &str, args: &Value) -> bool {
    match tool {
        "sessions_send" | "conversations_send" | "conversations_turn" => true,
        "message" => args
            .get("action")
            .and_then(Value::as_str)
            .is_some_and(|action| SEND_ACTIONS.contains(&action)),
        _ => false,
    }
}

/// A message object (its own `id` is per send): string `id` and `text`, and a direction, sender,
/// account or conversation.
fn is_message_object(map: &Map<String, Value>) -> bool {
    let is_str = |key: &str| map.get(key).is_some_and(Value::is_string);
    is_str("id")
        && is_str("text")
        && (is_str("direction")
            || is_str("senderId")
            || is_str("accountId")
            || map.get("conversation").is_some_and(Value::is_object))
}

fn without_send_ids(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(without_send_ids).collect()),
        Value::Object(map) => {
            let drop_id = is_message_object(map);
            Value::Object(
                map.iter()
                    .filter(|(key, _)| {
                        let volatile = VOLATILE_SEND_KEYS.contains(&key.as_str());
                        !(volatile || drop_id && *key == "id")
                    })
                    .map(|(key, nested)| (key.clone(), without_send_ids(nested)))
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send(i: u32) -> Value {
        let payload = json!({"ok": true, "runId": format!("run_{i}"), "messageId": format!("m_{i}"),
            "receipt": {"platformMessageId": format!("p_{i}")}, "route": {"id": "conv-A"}});
        json!({"content": [{"type": "text", "text": payload.to_string()}], "details": payload})
    }

    #[test]
    fn sends_drop_per_send_ids_but_keep_route_ids() {
        let args = json!({"action": "send", "text": "hi"});
        let a = outcome_of("message", &args, Some(&send(1)), None);
        let b = outcome_of("message", &args, Some(&send(2)), None);
        assert_eq!(a, b);
        let read = json!({"action": "read"});
        assert_ne!(
            outcome_of("message", &read, Some(&send(1)), None),
            outcome_of("message", &read, Some(&send(2)), None)
        );
    }

    #[test]
    fn terminal_exec_failures_share_an_identity_across_volatile_output() {
        let fail = |s: &str| {
            json!({"content": [{"type": "text", "text": s}],
                   "details": {"status": "failed", "exitCode": 1, "aggregated": s}})
        };
        let a = outcome_of(
            "exec",
            &json!({}),
            Some(&fail("pid 12 failed after 30ms")),
            None,
        );
        let b = outcome_of(
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
            outcome_of("exec", &json!({}), Some(&bare), None).kind,
            OutcomeKind::Plain
        );
    }

    #[test]
    fn veto_and_errors() {
        let veto = json!({"details": {"status": "blocked", "deniedReason": "tool-loop"}});
        assert_eq!(
            outcome_of("x", &json!({}), Some(&veto), None),
            Outcome::veto()
        );
        let e = outcome_of(
            "exec",
            &json!({}),
            None,
            Some(&json!({"message": "Tool Exec not found"})),
        );
        assert!(e.no_progress);
        assert_eq!(e.unknown_tool.as_deref(), Some("exec"));
        assert!(outcome_of("x", &json!({}), None, None).is_empty());
    }
}
