//! RFC 8785 (JCS) canonical JSON, the form fingerprints are taken of, streamed straight into a
//! byte sink such as a SHA-256 hasher: object keys sorted by UTF-16 code units, numbers in
//! ECMAScript `Number#toString` form, strings minimally escaped. Optionally drops the object keys
//! a `KeyFilter` names, at every depth (volatile keys, for outcomes).
//!
//! One writer decides every byte of that form. It reads a value from a `Source`: a parsed
//! `serde_json::Value` (`write_value`), or JSON text at a `Reader`'s cursor
//! (`Reader::write_canonical`), canonicalised as it is read, without building a tree.

use crate::json::digest::{ByteSink, Sink};
use crate::json::escape::write_string;
use crate::json::key_order::sort_members;
use crate::json::number_format::write_number;
use crate::json::reader::JsonError;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::cmp::Ordering;

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

/// A value as the canonical writer reads it from its source: a scalar, or a container to walk.
pub(crate) enum Node<'s> {
    Null,
    Bool(bool),
    /// An integer of at most 15 digits, as JSON text writes it (no fraction, no exponent).
    ShortInteger(&'s str),
    Number(f64),
    /// A string as JSON text writes it, quotes included, when it holds no escape.
    PlainString(&'s str),
    String(Cow<'s, str>),
    Array(Walk<'s>),
    Object(Walk<'s>),
}

/// Where a value is, as the source that listed it knows it.
#[derive(Clone, Copy)]
pub(crate) enum At<'s> {
    /// A position in JSON text.
    Text(usize),
    /// A value of a parsed tree.
    Parsed(&'s Value),
}

impl At<'_> {
    /// Of two members with the same key (only text can repeat one), which comes first.
    fn document_order(&self, other: &Self) -> Ordering {
        match (self, other) {
            (At::Text(a), At::Text(b)) => a.cmp(b),
            _ => Ordering::Equal,
        }
    }
}

/// An array or object being walked, as the source that opened it knows it.
pub(crate) enum Walk<'s> {
    /// In JSON text: whether an item or member has been read, and where an object ends once
    /// its members are listed.
    Text {
        started: bool,
        end: usize,
    },
    Items(std::slice::Iter<'s, Value>),
    Members(serde_json::map::Iter<'s>),
}

/// An object member: its key, and where its value is.
pub(crate) type Member<'s> = (Cow<'s, str>, At<'s>);

/// Where the canonical writer reads a value from: a parsed value (`Parsed`), or JSON text
/// (`Reader`). A source is only handed back the places and walks it produced itself. The writer
/// is generic over its source, so that reading text inlines into it (the hot path: arguments and
/// details arrive as text); places and walks are one type for both, so that an object's member
/// buffer and its sort are one piece of code.
pub(crate) trait Source<'s> {
    /// The value at `at`, nested at most `depth` levels (`[[1]]` is two).
    fn node(&mut self, at: At<'s>, depth: usize) -> Result<Node<'s>, JsonError>;

    /// Where the next element of an array is, or `None` after the last. Each element is read
    /// (`node`, and all it holds) before the next is asked for.
    fn next_item(&mut self, items: &mut Walk<'s>) -> Result<Option<At<'s>>, JsonError>;

    /// The next member of an object, or `None` after the last. All members are listed before
    /// any value is read.
    fn next_member(&mut self, members: &mut Walk<'s>) -> Result<Option<Member<'s>>, JsonError>;

    /// The object's values have been read, in canonical order rather than the source's.
    fn close(&mut self, members: Walk<'s>);

    /// A member's value that is left out (a dropped key, or a key repeated later): text is held
    /// to the same rules as a kept value.
    fn skip(&mut self, at: At<'s>, depth: usize) -> Result<(), JsonError>;
}

/// Members of an object held on the stack (larger objects use a vector).
const INLINE_MEMBERS: usize = 12;

/// An object's members as its source lists them: borrowed keys on the stack, else (more
/// members, or a key with escapes) a vector.
#[allow(
    clippy::large_enum_variant,
    reason = "the inline variant is the stack buffer that spares small objects an allocation"
)]
enum Members<'s> {
    /// The members so far and their count (later slots are unused).
    Inline([(&'s str, At<'s>); INLINE_MEMBERS], usize),
    Spilled(Vec<Member<'s>>),
}

impl<'s> Members<'s> {
    #[inline]
    fn push(&mut self, (key, at): Member<'s>) {
        match (&mut *self, key) {
            (Members::Inline(inline, count), Cow::Borrowed(key)) if *count < INLINE_MEMBERS => {
                if let Some(slot) = inline.get_mut(*count) {
                    *slot = (key, at);
                }
                *count += 1;
            }
            (Members::Spilled(spilled), key) => spilled.push((key, at)),
            (Members::Inline(inline, count), key) => {
                let inline = inline.get(..*count).unwrap_or_default();
                let mut spilled: Vec<Member<'s>> = inline
                    .iter()
                    .map(|&(key, at)| (Cow::Borrowed(key), at))
                    .collect();
                spilled.push((key, at));
                *self = Members::Spilled(spilled);
            }
        }
    }
}

/// The canonical writer: the keys it drops, and where the bytes go.
struct Writer<'w> {
    filter: &'w dyn KeyFilter,
    sink: Sink<'w>,
}

impl Writer<'_> {
    /// The value at `at`, nested at most `depth` levels.
    fn value<'s, Src: Source<'s>>(
        &mut self,
        src: &mut Src,
        at: At<'s>,
        depth: usize,
    ) -> Result<(), JsonError> {
        match src.node(at, depth)? {
            Node::Null => self.sink.put(b"null"),
            Node::Bool(true) => self.sink.put(b"true"),
            Node::Bool(false) => self.sink.put(b"false"),
            // Below 2^53, so exact: JSON's integer text is ECMAScript's, but for negative zero.
            Node::ShortInteger("-0") => self.sink.put(b"0"),
            Node::ShortInteger(text) => self.sink.put(text.as_bytes()),
            Node::Number(x) => write_number(x, &mut self.sink),
            // JCS escapes only what JSON must: a string without escapes is already canonical.
            Node::PlainString(quoted) => self.sink.put(quoted.as_bytes()),
            Node::String(text) => write_string(&text, &mut self.sink),
            Node::Array(mut items) => {
                self.sink.put(b"[");
                let mut first = true;
                while let Some(item) = src.next_item(&mut items)? {
                    if !first {
                        self.sink.put(b",");
                    }
                    first = false;
                    self.value(src, item, depth.saturating_sub(1))?;
                }
                self.sink.put(b"]");
            }
            Node::Object(object) => self.object(src, object, depth, &[])?,
        }
        Ok(())
    }

    /// An object (its `node`, nested at most `depth` levels) without the members named in
    /// `without`: `{…}` of its members sorted here, the last of repeated keys and the keys
    /// dropped left out.
    fn object<'s, Src: Source<'s>>(
        &mut self,
        src: &mut Src,
        mut object: Walk<'s>,
        depth: usize,
        without: &[&str],
    ) -> Result<(), JsonError> {
        let mut members = Members::Inline([("", At::Text(0)); INLINE_MEMBERS], 0);
        while let Some(member) = src.next_member(&mut object)? {
            members.push(member);
        }
        let depth = depth.saturating_sub(1);
        match &mut members {
            Members::Inline(inline, count) => {
                let inline = inline.get_mut(..*count).unwrap_or_default();
                self.members(src, inline, depth, without)?;
            }
            Members::Spilled(spilled) => self.members(src, spilled, depth, without)?,
        }
        src.close(object);
        Ok(())
    }

    /// `{…}` of an object's members (key, where the value is), sorted here.
    fn members<'s, Src: Source<'s>, K: AsRef<str>>(
        &mut self,
        src: &mut Src,
        members: &mut [(K, At<'s>)],
        depth: usize,
        without: &[&str],
    ) -> Result<(), JsonError> {
        sort_members(members, At::document_order);
        self.sink.put(b"{");
        let mut first = true;
        for (i, (key, at)) in members.iter().enumerate() {
            let key = key.as_ref();
            let repeated = members
                .get(i + 1)
                .is_some_and(|(next, _)| next.as_ref() == key);
            if repeated || without.contains(&key) || self.filter.drops(key) {
                src.skip(*at, depth)?;
                continue;
            }
            if !first {
                self.sink.put(b",");
            }
            first = false;
            write_string(key, &mut self.sink);
            self.sink.put(b":");
            self.value(src, *at, depth)?;
        }
        self.sink.put(b"}");
        Ok(())
    }
}

/// Writes the canonical form of the value at `at` of `src`, nested at most `depth` levels,
/// without the keys `filter` drops.
pub(crate) fn write<'s, Src: Source<'s>>(
    src: &mut Src,
    at: At<'s>,
    depth: usize,
    filter: &dyn KeyFilter,
    sink: &mut dyn ByteSink,
) -> Result<(), JsonError> {
    let sink = sink.sort();
    Writer { filter, sink }.value(src, at, depth)
}

/// A parsed value as a source: well-formed by construction, with unique keys, never refused.
struct Parsed;

impl<'v> Source<'v> for Parsed {
    fn node(&mut self, at: At<'v>, _depth: usize) -> Result<Node<'v>, JsonError> {
        Ok(match at {
            At::Parsed(Value::Null) | At::Text(_) => Node::Null,
            At::Parsed(Value::Bool(b)) => Node::Bool(*b),
            At::Parsed(Value::Number(n)) => Node::Number(n.as_f64().unwrap_or(0.0)),
            At::Parsed(Value::String(s)) => Node::String(Cow::Borrowed(s)),
            At::Parsed(Value::Array(items)) => Node::Array(Walk::Items(items.iter())),
            At::Parsed(Value::Object(map)) => Node::Object(Walk::Members(map.iter())),
        })
    }

    fn next_item(&mut self, items: &mut Walk<'v>) -> Result<Option<At<'v>>, JsonError> {
        Ok(match items {
            Walk::Items(items) => items.next().map(At::Parsed),
            _ => None,
        })
    }

    fn next_member(&mut self, members: &mut Walk<'v>) -> Result<Option<Member<'v>>, JsonError> {
        Ok(match members {
            Walk::Members(members) => members
                .next()
                .map(|(key, value)| (Cow::Borrowed(key.as_str()), At::Parsed(value))),
            _ => None,
        })
    }

    fn close(&mut self, _members: Walk<'v>) {}

    fn skip(&mut self, _at: At<'v>, _depth: usize) -> Result<(), JsonError> {
        Ok(())
    }
}

/// How deep a parsed value may be: as deep as it is (it was built within its own limits).
const ANY_DEPTH: usize = usize::MAX;

/// The canonical form of `value` as a string (tests and diagnostics).
pub fn to_canonical_string(value: &Value) -> String {
    let mut bytes = Vec::new();
    write_value(value, &KeepAll, &mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Writes the canonical form of `value` without the keys `filter` drops.
pub fn write_value(value: &Value, filter: &dyn KeyFilter, sink: &mut dyn ByteSink) {
    // A parsed value is never refused.
    let _ = write(&mut Parsed, At::Parsed(value), ANY_DEPTH, filter, sink);
}

/// An object without the top-level members named in `without` (and without the keys `filter`
/// drops, at every depth), as if those members had been removed first.
pub fn write_object_without(
    map: &Map<String, Value>,
    without: &[&str],
    filter: &dyn KeyFilter,
    sink: &mut dyn ByteSink,
) {
    let object = Walk::Members(map.iter());
    // A parsed value is never refused.
    let sink = sink.sort();
    let _ = Writer { filter, sink }.object(&mut Parsed, object, ANY_DEPTH, without);
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
