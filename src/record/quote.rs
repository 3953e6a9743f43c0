//! The start of the result in hand, quoted in a record's hint so the model sees what kept coming
//! back ("It returned: …"). Built only when a hint is written and never stored: the verdict
//! carries it out and the run keeps only digests.

use crate::json::canonical::{write_value, KeepAll};
use crate::record::outcome::MAX_SCANNED_TEXT_BYTES;
use crate::record::outcome_fields::{ResultFields, TextField};
use serde_json::Value;

/// A quote holds at most this many characters of the result (whitespace runs count as one).
pub const QUOTE_CHARS: usize = 120;

/// The first `QUOTE_CHARS` characters of `text` with whitespace runs collapsed to one space, and
/// "…" where it was cut; `None` for a text that says nothing.
pub fn quote_text(text: &str) -> Option<String> {
    let mut quote = String::new();
    let mut chars = 0;
    for word in text.split_whitespace() {
        for c in (!quote.is_empty())
            .then_some(' ')
            .into_iter()
            .chain(word.chars())
        {
            if chars == QUOTE_CHARS {
                quote.push('…');
                return Some(quote);
            }
            quote.push(c);
            chars += 1;
        }
    }
    (!quote.is_empty()).then_some(quote)
}

/// The quote of an outcome given as JSON: an error's message, a string result, a result's first
/// text part (if the core scans it), else the value's canonical JSON.
pub fn quote_value(result: Option<&Value>, error: Option<&Value>) -> Option<String> {
    if let Some(error) = error.filter(|e| !e.is_null()) {
        let message = match error {
            Value::Object(map) => map.get("message").unwrap_or(error),
            other => other,
        };
        // A long message may reach the core as its digest alone: never quoted (`scanned`).
        return match message {
            Value::String(text) => scanned(text),
            other => quote_json(other),
        };
    }
    let result = result?;
    if let Value::String(text) = result {
        return scanned(text);
    }
    let Some(parts) = result.get("content").and_then(Value::as_array) else {
        return quote_json(result);
    };
    // The first text part, however it arrived (`text`, `textSha256`, `textSide`).
    let first = parts
        .iter()
        .find(|part| part.get("type").and_then(Value::as_str) == Some("text"))?;
    scanned(first.get("text").and_then(Value::as_str)?)
}

/// The quote of a result handed over field by field: its (first) text, if the core scans it.
pub fn quote_fields(result: &ResultFields) -> Option<String> {
    if let ResultFields::Error { message, .. } = result {
        // As `quote_value` quotes a thrown error: its message, if the core scans it.
        return match message {
            TextField::Text(message) => scanned(message),
            TextField::Sha256Hex(_) => None,
        };
    }
    let text = match result {
        ResultFields::Absent => None,
        ResultFields::Text(text) => Some(text),
        ResultFields::Parts { texts, .. } => texts.first(),
        ResultFields::Error { .. } => None,
    };
    match text? {
        TextField::Text(text) => scanned(text),
        TextField::Sha256Hex(_) => None,
    }
}

/// The quote of a text the core scans (at most `MAX_SCANNED_TEXT_BYTES`). A longer text may reach
/// the core as its digest alone (`textSha256`, in runtimes with a native hasher) and is never
/// quoted, so every runtime writes the same verdict.
fn scanned(text: &str) -> Option<String> {
    if text.len() > MAX_SCANNED_TEXT_BYTES {
        return None;
    }
    quote_text(text)
}

/// A string as its text, any other value as its canonical JSON.
fn quote_json(value: &Value) -> Option<String> {
    if let Value::String(text) = value {
        return quote_text(text);
    }
    let mut json = Vec::new();
    write_value(value, &KeepAll, &mut json);
    // The canonical writer writes UTF-8.
    let quote = std::str::from_utf8(&json).ok().and_then(quote_text);
    json.fill(0);
    quote
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn quotes_collapse_whitespace_and_cut_at_the_limit() {
        assert_eq!(quote_text("  a\n\n b\tc ").as_deref(), Some("a b c"));
        assert_eq!(quote_text(" \n "), None);
        let long = "x".repeat(QUOTE_CHARS + 5);
        let quoted = quote_text(&long).unwrap_or_default();
        assert_eq!(quoted.chars().count(), QUOTE_CHARS + 1);
        assert!(quoted.ends_with('…'));
        assert_eq!(
            quote_text(&"é".repeat(QUOTE_CHARS)).map(|q| q.chars().count()),
            Some(QUOTE_CHARS)
        );
    }

    #[test]
    fn quotes_pick_the_text_a_model_saw() {
        let error = json!({"name": "Error", "message": "order not found"});
        assert_eq!(
            quote_value(None, Some(&error)).as_deref(),
            Some("order not found")
        );
        let parts = json!({"content": [{"type": "text", "text": "[]"}], "details": {"x": 1}});
        assert_eq!(quote_value(Some(&parts), None).as_deref(), Some("[]"));
        let object = json!({"b": 2, "a": [1, "x"]});
        assert_eq!(
            quote_value(Some(&object), None).as_deref(),
            Some("{\"a\":[1,\"x\"],\"b\":2}")
        );
        assert_eq!(
            quote_fields(&ResultFields::Text(TextField::Text("done\n"))).as_deref(),
            Some("done")
        );
        assert_eq!(
            quote_fields(&ResultFields::Text(TextField::Sha256Hex("ab"))),
            None
        );
    }
}
