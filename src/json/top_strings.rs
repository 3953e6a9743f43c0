//! The string values of chosen top-level members of a JSON document (and the document itself when
//! it is a string), read from its text in one pass without building a tree. The answers are those
//! of `reader::parse` followed by `Value::get(key).and_then(Value::as_str)`: the last of repeated
//! keys wins, a member whose value is not a string has none, and the text is checked as `parse`
//! checks it (same nesting limit, same numbers refused). Strings holding escapes are unescaped into
//! buffers that are zeroed when dropped (they are raw content).

use crate::json::reader::{JsonError, Reader};
use std::borrow::Cow;

/// At most this many keys are asked for.
pub const MAX_KEYS: usize = 20;

/// The strings found: the whole document's, or the asked-for members' of an object.
pub struct TopStrings<'a> {
    keys: &'static [&'static str],
    /// The document, when it is a string.
    whole: Option<Cow<'a, str>>,
    /// The value of `keys[i]`, when the document is an object whose last member of that key is a
    /// string.
    values: [Option<Cow<'a, str>>; MAX_KEYS],
    /// Whether any of `values` was ever set: most arguments hold none of the keys, and `get`
    /// then answers without looking the key up.
    any: bool,
}

impl<'a> TopStrings<'a> {
    /// Nothing found (the document is absent).
    pub fn none(keys: &'static [&'static str]) -> TopStrings<'a> {
        TopStrings {
            keys,
            whole: None,
            values: Default::default(),
            any: false,
        }
    }

    /// Reads `text` (nested at most `depth` levels) for the string members named in `keys` (at
    /// most `MAX_KEYS`; more are ignored).
    pub fn read(
        text: &'a str,
        keys: &'static [&'static str],
        depth: usize,
    ) -> Result<TopStrings<'a>, JsonError> {
        let mut found = TopStrings::none(keys);
        let mut reader = Reader::new(text);
        reader.skip_ws();
        if reader.eat(b'{') {
            let depth = depth.checked_sub(1).ok_or(JsonError::TooDeep)?;
            found.members(&mut reader, depth)?;
        } else if reader.at(b'"') {
            found.whole = Some(reader.string()?);
        } else {
            reader.check_value(depth)?;
        }
        reader.end()?;
        Ok(found)
    }

    /// The members of the object whose opening brace was just read, up to its closing one.
    fn members(&mut self, reader: &mut Reader<'a>, depth: usize) -> Result<(), JsonError> {
        if reader.eat(b'}') {
            return Ok(());
        }
        loop {
            reader.skip_ws();
            let key = reader.string()?;
            reader.expect(b':')?;
            let slot = self.keys.iter().take(MAX_KEYS).position(|k| *k == key);
            reader.skip_ws();
            match slot.and_then(|i| self.values.get_mut(i)) {
                Some(value) if reader.at(b'"') => {
                    *value = Some(reader.string()?);
                    self.any = true;
                }
                Some(value) => {
                    *value = None;
                    reader.check_value(depth)?;
                }
                None => reader.check_value(depth)?,
            }
            zero(key);
            if reader.eat(b'}') {
                return Ok(());
            }
            reader.expect(b',')?;
        }
    }

    /// The document, when it is a string.
    pub fn whole(&self) -> Option<&str> {
        self.whole.as_deref()
    }

    /// The string value of the member `key` (one of the keys asked for). Not inlined: it is
    /// called from many places, and its inlined copies cost the `.wasm` more than the calls.
    #[inline(never)]
    pub fn get(&self, key: &str) -> Option<&str> {
        if !self.any {
            return None;
        }
        let slot = self.keys.iter().take(MAX_KEYS).position(|k| *k == key)?;
        self.values.get(slot)?.as_deref()
    }
}

impl Drop for TopStrings<'_> {
    fn drop(&mut self) {
        self.values
            .iter_mut()
            .chain([&mut self.whole])
            .for_each(|value| {
                if let Some(value) = value.take() {
                    zero(value);
                }
            });
    }
}

/// Zeroes an unescaped copy of raw text as it is dropped (a borrowed string is left alone).
fn zero(text: Cow<'_, str>) {
    if let Cow::Owned(text) = text {
        let mut bytes = text.into_bytes();
        bytes.fill(0);
        std::hint::black_box(&mut bytes);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::json::reader::parse;
    use serde_json::Value;

    const KEYS: &[&str] = &["command", "path", "action"];

    /// What `parse` and `Value::get` say, for comparison.
    fn from_tree(text: &str) -> Result<(Option<String>, Vec<Option<String>>), JsonError> {
        let value = parse(text, 8)?;
        let whole = value.as_str().map(str::to_owned);
        let members = KEYS
            .iter()
            .map(|k| value.get(*k).and_then(Value::as_str).map(str::to_owned))
            .collect();
        Ok((whole, members))
    }

    fn streamed(text: &str) -> Result<(Option<String>, Vec<Option<String>>), JsonError> {
        let found = TopStrings::read(text, KEYS, 8)?;
        let whole = found.whole().map(str::to_owned);
        let members = KEYS
            .iter()
            .map(|k| found.get(k).map(str::to_owned))
            .collect();
        Ok((whole, members))
    }

    #[test]
    fn agrees_with_the_parsed_tree() {
        for text in [
            r#"{"command":"ls -la","path":"/a/b.py","other":[1,{"command":"no"}]}"#,
            r#" { "command" : "a\"b\u00e9\ud83d" , "command" : "last" } "#,
            r#"{"command":"first","command":5}"#,
            r#"{"path":null,"action":{"x":"y"},"command":["ls"]}"#,
            r#""echo hi\n""#,
            r#"[{"command":"ls"}]"#,
            r#"{"pa\u0074h":"escaped key"}"#,
            "{}",
            "12",
            r#"{"a":[[[[[[[[1]]]]]]]]}"#,
            r#"{"a":1e999}"#,
            r#"{"command":"x",}"#,
            r#"{"command":"x"} trailing"#,
            r#"{"command":"unterminated}"#,
        ] {
            assert_eq!(streamed(text), from_tree(text), "{text}");
        }
    }
}
