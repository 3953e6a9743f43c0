//! Text parts that hold JSON (`{"content": [{"type": "text", "text": "{…}"}]}`, the shape OpenClaw
//! tools and many MCP servers return): hashed as their canonical JSON without volatile keys, so a
//! fresh message id, receipt or timestamp inside the text is not mistaken for progress. Only texts
//! the core scans (at most `MAX_SCANNED_TEXT_BYTES`) are read this way; longer ones may reach the
//! core as their SHA-256 and are compared by it.

use crate::json::canonical::{write_value, KeyFilter};
use crate::json::digest::ByteSink;
use crate::record::input::MAX_DEPTH;
use crate::record::outcome::{put_text, Framing, MAX_SCANNED_TEXT_BYTES};
use crate::record::volatile_table::without_send_ids;
use serde_json::Value;

/// The JSON object or array a content text holds, if it holds one.
fn json_of(text: &str) -> Option<Value> {
    let body = text.trim_start();
    if text.len() > MAX_SCANNED_TEXT_BYTES || !body.starts_with(['{', '[']) {
        return None;
    }
    crate::json::reader::parse(text, MAX_DEPTH).ok()
}

/// Frames a content text part: `J` and its canonical JSON without `keys` (and, for a delivering
/// call, without message objects' own ids) when it holds JSON, else as text.
pub fn put_content_text(
    text: &str,
    send: bool,
    keys: &dyn KeyFilter,
    framing: Framing,
    sink: &mut dyn ByteSink,
) {
    match json_of(text) {
        Some(value) => {
            sink.put(b"J");
            let value = if send {
                without_send_ids(&value, false)
            } else {
                value
            };
            write_value(&value, keys, sink);
            crate::json::scrub::scrub(value);
        }
        None => put_text(text.as_bytes(), framing, sink),
    }
}
