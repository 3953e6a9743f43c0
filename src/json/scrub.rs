//! Parsed content is zeroed as it is dropped: the core keeps fingerprints only, so the text of an
//! argument, a result or an error must not linger in freed memory. `scrub` zeroes the strings and
//! keys of a value it consumes; `RawContent` does so when it goes out of scope, however the call
//! that parsed it ends.

use serde_json::Value;

/// Zeroes the text a parsed value holds (strings and keys) as it is dropped.
pub fn scrub(value: Value) {
    fn zero(text: String) {
        let mut bytes = text.into_bytes();
        bytes.fill(0);
        std::hint::black_box(&mut bytes);
    }
    match value {
        Value::String(text) => zero(text),
        Value::Array(items) => items.into_iter().for_each(scrub),
        Value::Object(map) => {
            for (key, item) in map {
                zero(key);
                scrub(item);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// A parsed value that held raw content (arguments, a result, an error, or a copy of one):
/// zeroed when dropped.
pub struct RawContent(pub Option<Value>);

impl Drop for RawContent {
    fn drop(&mut self) {
        if let Some(value) = self.0.take() {
            scrub(value);
        }
    }
}
