//! RFC 8785 (JCS) canonical JSON, the form fingerprints are taken of, streamed straight into a
//! byte sink such as a SHA-256 hasher: object keys sorted by UTF-16 code units, numbers in
//! ECMAScript `Number#toString` form, strings minimally escaped. Optionally drops the object keys
//! a `KeyFilter` names, at every depth (volatile keys, for outcomes).
//!
//! One writer decides every byte of that form. It reads a value from a `Source`: a parsed
//! `serde_json::Value` (`write_value`), or JSON text at a `Reader`'s cursor
//! (`Reader::write_canonical`), canonicalised as it is read, without building a tree.

use crate::json::digest::ByteSink;
use crate::json::escape::write_string;
use crate::json::key_order::sort_members;
use crate::json::number_format::write_number;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::convert::Infallible;

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
pub(crate) enum Node<'s, Items, Members> {
    Null,
    Bool(bool),
    /// An integer of at most 15 digits, as JSON text writes it (no fraction, no exponent).
    ShortInteger(&'s str),
    Number(f64),
    /// A string as JSON text writes it, quotes included, when it holds no escape.
    PlainString(&'s str),
    String(Cow<'s, str>),
    Array(Items),
    Object(Members),
}

/// An object member: its key, and where its value is.
pub(crate) type Member<'s, At> = (Cow<'s, str>, At);

/// Where the canonical writer reads a value from: a parsed value, or JSON text (`Reader`).
pub(crate) trait Source<'s> {
    /// Why text cannot be read (a parsed value always can).
    type Error;
    /// Where a value is: its position in the text, or a reference to it.
    type At: Copy;
    /// An array being walked.
    type Items;
    /// An object being walked.
    type Members;

    /// The value at `at`, nested at most `depth` levels (`[[1]]` is two).
    fn node(
        &mut self,
        at: Self::At,
        depth: usize,
    ) -> Result<Node<'s, Self::Items, Self::Members>, Self::Error>;

    /// Where the next element of an array is, or `None` after the last. Each element is read
    /// (`node`, and all it holds) before the next is asked for.
    fn next_item(&mut self, items: &mut Self::Items) -> Result<Option<Self::At>, Self::Error>;

    /// The next member of an object (its key, where its value is), or `None` after the last.
    /// All members are listed before any value is read.
    fn next_member(
        &mut self,
        members: &mut Self::Members,
    ) -> Result<Option<Member<'s, Self::At>>, Self::Error>;

    /// The object's values have been read, in canonical order rather than the source's.
    fn close(&mut self, members: Self::Members);

    /// A member's value that is left out (a dropped key, or a key repeated later): text is held
    /// to the same rules as a kept value.
    fn skip(&mut self, at: Self::At, depth: usize) -> Result<(), Self::Error>;

    /// Of two members with the same key (only text can repeat one), which comes first.
    fn document_order(a: &Self::At, b: &Self::At) -> Ordering;
}

/// Members of an object held on the stack (larger objects, or keys with escapes, use a vector).
const INLINE_MEMBERS: usize = 12;

/// An object's members as listed by its source.
enum Members<'s, At> {
    None,
    /// Borrowed keys; slots from `count` on repeat the first member.
    Inline([(&'s str, At); INLINE_MEMBERS], usize),
    Spilled(Vec<Member<'s, At>>),
}

impl<'s, At: Copy> Members<'s, At> {
    fn push(&mut self, key: Cow<'s, str>, at: At) {
        match (&mut *self, key) {
            (Members::None, Cow::Borrowed(key)) => {
                *self = Members::Inline([(key, at); INLINE_MEMBERS], 1);
            }
            (Members::Inline(inline, count), Cow::Borrowed(key)) if *count < INLINE_MEMBERS => {
                if let Some(slot) = inline.get_mut(*count) {
                    *slot = (key, at);
                }
                *count += 1;
            }
            (Members::Spilled(spilled), key) => spilled.push((key, at)),
            (held, key) => {
                let mut spilled = Vec::new();
                if let Members::Inline(inline, count) = held {
                    let inline = inline.get(..*count).unwrap_or_default();
                    spilled.extend(inline.iter().map(|&(key, at)| (Cow::Borrowed(key), at)));
                }
                spilled.push((key, at));
                *self = Members::Spilled(spilled);
            }
        }
    }
}

/// The canonical writer: the keys it drops, and where the bytes go.
struct Writer<'w, S: ?Sized> {
    filter: &'w dyn KeyFilter,
    sink: &'w mut S,
}

impl<S: ByteSink> Writer<'_, S> {
    /// The value at `at`, nested at most `depth` levels.
    fn value<'s, Src: Source<'s>>(
        &mut self,
        src: &mut Src,
        at: Src::At,
        depth: usize,
    ) -> Result<(), Src::Error> {
        match src.node(at, depth)? {
            Node::Null => self.sink.put(b"null"),
            Node::Bool(true) => self.sink.put(b"true"),
            Node::Bool(false) => self.sink.put(b"false"),
            // Below 2^53, so exact: JSON's integer text is ECMAScript's, but for negative zero.
            Node::ShortInteger("-0") => self.sink.put(b"0"),
            Node::ShortInteger(text) => self.sink.put(text.as_bytes()),
            Node::Number(x) => write_number(x, self.sink),
            // JCS escapes only what JSON must: a string without escapes is already canonical.
            Node::PlainString(quoted) => self.sink.put(quoted.as_bytes()),
            Node::String(text) => write_string(&text, self.sink),
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
    /// `without`.
    fn object<'s, Src: Source<'s>>(
        &mut self,
        src: &mut Src,
        mut object: Src::Members,
        depth: usize,
        without: &[&str],
    ) -> Result<(), Src::Error> {
        let mut members = Members::None;
        while let Some((key, at)) = src.next_member(&mut object)? {
            members.push(key, at);
        }
        let depth = depth.saturating_sub(1);
        match members {
            Members::None => self.sink.put(b"{}"),
            Members::Inline(mut inline, count) => {
                let inline = inline.get_mut(..count).unwrap_or_default();
                self.members(src, inline, depth, without)?;
            }
            Members::Spilled(mut spilled) => self.members(src, &mut spilled, depth, without)?,
        }
        src.close(object);
        Ok(())
    }

    /// `{…}` of an object's members (key, where the value is), sorted here; the last of repeated
    /// keys and the keys dropped are left out.
    fn members<'s, Src: Source<'s>, K: AsRef<str>>(
        &mut self,
        src: &mut Src,
        members: &mut [(K, Src::At)],
        depth: usize,
        without: &[&str],
    ) -> Result<(), Src::Error> {
        sort_members(members, Src::document_order);
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
            write_string(key, self.sink);
            self.sink.put(b":");
            self.value(src, *at, depth)?;
        }
        self.sink.put(b"}");
        Ok(())
    }
}

/// Writes the canonical form of the value at `at` of `src`, nested at most `depth` levels,
/// without the keys `filter` drops.
pub(crate) fn write<'s, Src: Source<'s>, S: ByteSink>(
    src: &mut Src,
    at: Src::At,
    depth: usize,
    filter: &dyn KeyFilter,
    sink: &mut S,
) -> Result<(), Src::Error> {
    Writer { filter, sink }.value(src, at, depth)
}

/// A parsed value as a source: well-formed by construction, with unique keys.
struct Parsed;

impl<'v> Source<'v> for Parsed {
    type Error = Infallible;
    type At = &'v Value;
    type Items = std::slice::Iter<'v, Value>;
    type Members = serde_json::map::Iter<'v>;

    fn node(
        &mut self,
        at: &'v Value,
        _depth: usize,
    ) -> Result<Node<'v, Self::Items, Self::Members>, Infallible> {
        Ok(match at {
            Value::Null => Node::Null,
            Value::Bool(b) => Node::Bool(*b),
            Value::Number(n) => Node::Number(n.as_f64().unwrap_or(0.0)),
            Value::String(s) => Node::String(Cow::Borrowed(s)),
            Value::Array(items) => Node::Array(items.iter()),
            Value::Object(map) => Node::Object(map.iter()),
        })
    }

    fn next_item(&mut self, items: &mut Self::Items) -> Result<Option<&'v Value>, Infallible> {
        Ok(items.next())
    }

    fn next_member(
        &mut self,
        members: &mut Self::Members,
    ) -> Result<Option<Member<'v, &'v Value>>, Infallible> {
        Ok(members
            .next()
            .map(|(key, value)| (Cow::Borrowed(key.as_str()), value)))
    }

    fn close(&mut self, _members: Self::Members) {}

    fn skip(&mut self, _at: &'v Value, _depth: usize) -> Result<(), Infallible> {
        Ok(())
    }

    fn document_order(_a: &&'v Value, _b: &&'v Value) -> Ordering {
        Ordering::Equal
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
    let written = write(&mut Parsed, value, ANY_DEPTH, filter, &mut { sink });
    written.unwrap_or_else(|never| match never {});
}

/// An object without the top-level members named in `without` (and without the keys `filter`
/// drops, at every depth), as if those members had been removed first.
pub fn write_object_without(
    map: &Map<String, Value>,
    without: &[&str],
    filter: &dyn KeyFilter,
    sink: &mut dyn ByteSink,
) {
    let sink = &mut { sink };
    let written = Writer { filter, sink }.object(&mut Parsed, map.iter(), ANY_DEPTH, without);
    written.unwrap_or_else(|never| match never {});
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
