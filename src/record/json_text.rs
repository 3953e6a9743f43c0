//! Text parts that hold JSON (`{"content": [{"type": "text", "text": "{…}"}]}`, the shape OpenClaw
//! tools and many MCP servers return): hashed as their canonical JSON without volatile keys, so a
//! fresh message id, receipt or timestamp inside the text is not mistaken for progress. Only texts
//! the core scans (at most `MAX_SCANNED_TEXT_BYTES`) are read this way; longer ones may reach the
//! core as their SHA-256 and are compared by it.

use crate::json::canonical::{write_value, KeyFilter};
use crate::json::digest::ByteSink;
use crate::json::reader::Reader;
use crate::record::input::MAX_DEPTH;
use crate::record::outcome::{put_text, Framing, MAX_SCANNED_TEXT_BYTES};
use crate::record::volatile_table::without_send_ids;

/// Whether a content text holds a JSON object or array (`reader::parse` would read it).
fn holds_json(text: &str) -> bool {
    let body = text.trim_start();
    if text.len() > MAX_SCANNED_TEXT_BYTES || !body.starts_with(['{', '[']) {
        return false;
    }
    let mut reader = Reader::new(text);
    reader
        .check_value(MAX_DEPTH)
        .and_then(|()| reader.end())
        .is_ok()
}

/// Frames a content text part: `J` and its canonical JSON without `keys` (and, for a delivering
/// call, without message objects' own ids) when it holds JSON, else as text. The JSON is checked,
/// then written from its text (no tree), except where a delivering call's ids need the tree.
pub fn put_content_text(
    text: &str,
    send: bool,
    keys: &dyn KeyFilter,
    framing: Framing,
    sink: &mut dyn ByteSink,
) {
    if !holds_json(text) {
        return put_text(text.as_bytes(), framing, sink);
    }
    sink.put(b"J");
    if !send {
        // Checked above: the canonical writer reads it whole.
        let _ = Reader::new(text).write_canonical(MAX_DEPTH, keys, sink);
        return;
    }
    if let Ok(parsed) = crate::json::reader::parse(text, MAX_DEPTH) {
        let value = without_send_ids(&parsed, false);
        write_value(&value, keys, sink);
        crate::json::scrub::scrub(value);
        crate::json::scrub::scrub(parsed);
    }
}
