//! RFC 8785 (JCS) canonical JSON, streamed straight into a byte sink such as a SHA-256 hasher:
//! object keys sorted by UTF-16 code units, numbers in ECMAScript `Number#toString` form, strings
//! minimally escaped. Optionally drops volatile object keys on the way (used for outcomes).

use crate::json::digest::ByteSink;
use crate::json::escape::write_string;
use crate::json::key_order::{heap_sort, utf16_cmp};
use crate::json::number_format::write_number;
use serde_json::{Map, Value};

/// Decides which object keys are dropped while canonicalising.
pub trait KeyFilter {
    fn drops(&self, key: &str) -> bool;
}

/// Keeps every key (used for call arguments).
pub struct KeepAll;

impl KeyFilter for KeepAll {
    fn drops(&self, _key: &str) -> bool {
        false
    }
}

/// The canonical form of `value` as a string (tests and diagnostics).
pub fn to_canonical_string(value: &Value) -> String {
    let mut bytes = Vec::new();
    write_value(value, &KeepAll, &mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

pub fn write_value(value: &Value, filter: &dyn KeyFilter, sink: &mut dyn ByteSink) {
    match value {
        Value::Null => sink.put(b"null"),
        Value::Bool(true) => sink.put(b"true"),
        Value::Bool(false) => sink.put(b"false"),
        Value::Number(n) => write_number(n.as_f64().unwrap_or(0.0), sink),
        Value::String(s) => write_string(s, sink),
        Value::Array(items) => {
            sink.put(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    sink.put(b",");
                }
                write_value(item, filter, sink);
            }
            sink.put(b"]");
        }
        Value::Object(map) => write_object(map, filter, sink),
    }
}

fn write_object(map: &Map<String, Value>, filter: &dyn KeyFilter, sink: &mut dyn ByteSink) {
    write_members(map, &|key| filter.drops(key), filter, sink);
}

/// An object without the top-level members named in `without` (and without the keys `filter`
/// drops, at every depth), as if those members had been removed first.
pub fn write_object_without(
    map: &Map<String, Value>,
    without: &[&str],
    filter: &dyn KeyFilter,
    sink: &mut dyn ByteSink,
) {
    write_members(
        map,
        &|key| without.contains(&key) || filter.drops(key),
        filter,
        sink,
    );
}

fn write_members(
    map: &Map<String, Value>,
    drops: &dyn Fn(&str) -> bool,
    filter: &dyn KeyFilter,
    sink: &mut dyn ByteSink,
) {
    sink.put(b"{");
    let mut first = true;
    let mut member = |key: &str, value: &Value, sink: &mut dyn ByteSink| {
        if !first {
            sink.put(b",");
        }
        first = false;
        write_string(key, sink);
        sink.put(b":");
        write_value(value, filter, sink);
    };
    let kept = map.iter().filter(|(k, _)| !drops(k));
    // The order is set here, not by the map: serde_json's map iterates in UTF-8 byte order, or in
    // insertion order when any crate in the build enables its `preserve_order` feature. Members
    // already in UTF-16 order (nearly always, with the default map) are written as they come.
    let mut keys = map.keys();
    let in_order = match keys.next() {
        None => true,
        Some(first) => keys
            .try_fold(first, |prev, key| {
                utf16_cmp(prev, key).is_lt().then_some(key)
            })
            .is_some(),
    };
    if in_order {
        for (key, value) in kept {
            member(key, value, sink);
        }
    } else {
        let mut members: Vec<(&String, &Value)> = kept.collect();
        heap_sort(&mut members, |a, b| utf16_cmp(a.0, b.0).is_lt());
        for (key, value) in members {
            member(key, value, sink);
        }
    }
    sink.put(b"}");
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn canon(text: &str) -> String {
        to_canonical_string(&serde_json::from_str(text).unwrap())
    }

    #[test]
    fn keys_sort_by_utf16_and_strings_escape_minimally() {
        assert_eq!(
            canon(r#"{"b":1,"a":[1.0,true,null]}"#),
            r#"{"a":[1,true,null],"b":1}"#
        );
        // U+E000 sorts after U+1F600 in UTF-8 but before it in UTF-16 (surrogates are D8xx).
        assert_eq!(
            canon("{\"\u{e000}\":1,\"\u{1f600}\":2}"),
            "{\"\u{1f600}\":2,\"\u{e000}\":1}"
        );
        assert_eq!(canon(r#""a\u0001\n\"\\/é""#), "\"a\\u0001\\n\\\"\\\\/é\"");
    }

    #[test]
    fn rfc8785_sample_numbers() {
        assert_eq!(
            canon(r#"[333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001]"#),
            "[333333333.3333333,1e+30,4.5,0.002,1e-27]"
        );
    }
}
