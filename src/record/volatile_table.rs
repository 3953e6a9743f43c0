//! The shared per-tool table of volatile result keys: what a delivering call (a message send, a
//! session send) answers with that changes on every call without meaning anything new. Both the
//! default detectors and `preset: "openclaw"` read it (docs/semantics.md, docs/openclaw.md).

use crate::config::volatile_keys::VolatileKeys;
use crate::json::canonical::KeyFilter;
use serde_json::{Map, Value};

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

/// Per-send ids and timestamps of a delivering call's result, dropped at any depth.
pub const SEND_VOLATILE_KEYS: &[&str] = &[
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

/// A delivering call: a session send, or `message` with a delivering `action`.
pub fn is_send(tool: &str, args: &Value) -> bool {
    match tool {
        "sessions_send" | "conversations_send" | "conversations_turn" => true,
        "message" => args
            .get("action")
            .and_then(Value::as_str)
            .is_some_and(|action| SEND_ACTIONS.contains(&action)),
        _ => false,
    }
}

/// A message object, whose own `id` is per send: string `id` and `text`, and a direction,
/// sender, account or conversation. (An `id` elsewhere, a route's or a conversation's, is kept.)
fn is_message_object(map: &Map<String, Value>) -> bool {
    let is_str = |key: &str| map.get(key).is_some_and(Value::is_string);
    is_str("id")
        && is_str("text")
        && (is_str("direction")
            || is_str("senderId")
            || is_str("accountId")
            || map.get("conversation").is_some_and(Value::is_object))
}

/// `value` without message objects' own ids and, with `drop_keys`, without `SEND_VOLATILE_KEYS`.
pub fn without_send_ids(value: &Value, drop_keys: bool) -> Value {
    match value {
        Value::Array(items) => {
            let mut kept = Vec::with_capacity(items.len());
            for item in items {
                kept.push(without_send_ids(item, drop_keys));
            }
            Value::Array(kept)
        }
        Value::Object(map) => {
            let drop_id = is_message_object(map);
            // Inserted one by one: collecting would sort again what the map keeps sorted.
            let mut kept = Map::new();
            for (key, nested) in map {
                let volatile = drop_keys && SEND_VOLATILE_KEYS.contains(&key.as_str());
                if !(volatile || drop_id && key == "id") {
                    kept.insert(key.clone(), without_send_ids(nested, drop_keys));
                }
            }
            Value::Object(kept)
        }
        other => other.clone(),
    }
}

/// The volatile keys for one tool's outcomes: the global list plus the tool's own `ignore` keys.
pub struct ToolVolatileKeys<'a> {
    pub global: &'a VolatileKeys,
    pub tool: &'a [String],
    /// The shared per-tool table's keys for this call (`volatile_table`).
    pub table: &'static [&'static str],
}

impl KeyFilter for ToolVolatileKeys<'_> {
    fn drops(&self, key: &str) -> bool {
        self.global.drops(key) || self.tool.iter().any(|k| k == key) || self.table.contains(&key)
    }
}
