//! A small JSON reader for records and the config: RFC 8259 text into `serde_json::Value`, with
//! the same results as serde_json's own parser (numbers correctly rounded, integers kept exact,
//! duplicate keys: the last wins) but without serde's generic deserialiser machinery, which cost
//! ~40 KB of `.wasm` and two passes per record. Unlike serde_json it accepts the escape of a lone
//! UTF-16 surrogate (`\ud83d`, as `JSON.stringify` writes a string cut mid-emoji): a Rust string
//! cannot hold one, so it becomes the two characters of `lone_surrogate` (docs/semantics.md,
//! "Lone surrogates").
//!
//! `skim` checks that a value is well-formed without building it and without recursion (any
//! nesting depth), so a record's fields can be located first and parsed one by one, each with its
//! own nesting limit and field-named errors.

use crate::json::canonical::{self, At, KeyFilter, Member, Node, Source, Walk};
use crate::json::digest::ByteSink;
use crate::json::escape::plain_prefix_len;
use crate::json::float_parse::parse_f64;
use serde_json::{Map, Number, Value};
use std::borrow::Cow;

/// Why text was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonError {
    /// Not well-formed JSON (or a number out of the double range): what was wrong, and where.
    Syntax(String),
    /// Nested deeper than the limit.
    TooDeep,
}

/// The open containers of `skim` (true for an object): 64 levels in a word, deeper ones spilled.
#[derive(Default)]
struct OpenStack {
    bits: u64,
    len: usize,
    spilled: Vec<bool>,
}

impl OpenStack {
    fn push(&mut self, object: bool) {
        if self.len < 64 {
            self.bits = (self.bits & !(1 << self.len)) | (u64::from(object) << self.len);
        } else {
            self.spilled.push(object);
        }
        self.len += 1;
    }

    fn last(&self) -> Option<bool> {
        match self.len {
            0 => None,
            1..=64 => Some(self.bits >> (self.len - 1) & 1 == 1),
            _ => self.spilled.last().copied(),
        }
    }

    fn pop(&mut self) {
        if self.len > 64 {
            self.spilled.pop();
        }
        self.len = self.len.saturating_sub(1);
    }
}

/// The first of the two characters a lone surrogate becomes: U+FFFD, as a lossy decoder writes it.
pub const LONE_SURROGATE_MARK: char = '\u{FFFD}';
/// The second character, `LONE_SURROGATE_BASE + (unit - 0xD800)`: the last 2048 code points of
/// plane 16 (private use), so each of the 2048 surrogates keeps its own.
const LONE_SURROGATE_BASE: u32 = 0x10_F800;

/// What a lone surrogate code unit (U+D800 to U+DFFF) stands for in a Rust string: U+FFFD and
/// then U+10F800 + (unit - 0xD800). Distinct units stay distinct, and apart from U+FFFD itself
/// the pair occurs only in text that already holds U+FFFD right before such a private-use
/// character.
pub fn lone_surrogate(unit: u32) -> [char; 2] {
    let offset = unit.saturating_sub(0xD800) & 0x7FF;
    let tag = char::from_u32(LONE_SURROGATE_BASE + offset).unwrap_or(LONE_SURROGATE_MARK);
    [LONE_SURROGATE_MARK, tag]
}

/// What an escape stands for.
enum Escaped {
    Char(char),
    /// A surrogate escape without its partner.
    LoneSurrogate(u32),
}

/// A cursor over JSON text.
pub struct Reader<'a> {
    text: &'a str,
    pos: usize,
    /// Lone surrogate escapes met in strings so far.
    lone_surrogates: usize,
}

impl<'a> Reader<'a> {
    pub fn new(text: &'a str) -> Self {
        Reader {
            text,
            pos: 0,
            lone_surrogates: 0,
        }
    }

    /// The number of lone surrogate escapes read so far (in `string`, `value` and the canonical
    /// writer; `skim` does not count).
    pub fn lone_surrogates(&self) -> usize {
        self.lone_surrogates
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves the cursor back to `pos` (an earlier position).
    pub fn rewind(&mut self, pos: usize) {
        self.pos = pos.min(self.pos);
    }

    /// The text from `start` to the cursor.
    pub fn since(&self, start: usize) -> &'a str {
        self.text.get(start..self.pos).unwrap_or("")
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn error<T>(&self, what: &str) -> Result<T, JsonError> {
        Err(JsonError::Syntax(format!("{what} at byte {}", self.pos)))
    }

    pub fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// Consumes `byte` (after whitespace) or fails.
    pub fn expect(&mut self, byte: u8) -> Result<(), JsonError> {
        self.skip_ws();
        if self.peek() == Some(byte) {
            self.pos += 1;
            return Ok(());
        }
        self.error(&format!("expected `{}`", char::from(byte)))
    }

    /// Consumes `byte` (after whitespace) if it is next.
    pub fn eat(&mut self, byte: u8) -> bool {
        self.skip_ws();
        let found = self.peek() == Some(byte);
        if found {
            self.pos += 1;
        }
        found
    }

    /// Whether `byte` is next (whitespace not skipped).
    pub fn at(&self, byte: u8) -> bool {
        self.peek() == Some(byte)
    }

    /// Fails unless only whitespace is left.
    pub fn end(&mut self) -> Result<(), JsonError> {
        self.skip_ws();
        match self.peek() {
            None => Ok(()),
            Some(_) => self.error("trailing characters"),
        }
    }

    /// One value, nested at most `depth` levels (`[[1]]` is two).
    pub fn value(&mut self, depth: usize) -> Result<Value, JsonError> {
        self.skip_ws();
        match self.peek() {
            Some(b'{') => {
                let depth = self.enter(depth)?;
                let mut map = Map::new();
                self.list(b'}', |reader| {
                    reader.skip_ws();
                    let key = reader.string()?;
                    reader.expect(b':')?;
                    map.insert(key.into_owned(), reader.value(depth)?);
                    Ok(())
                })?;
                Ok(Value::Object(map))
            }
            Some(b'[') => {
                let depth = self.enter(depth)?;
                let mut items = Vec::new();
                self.list(b']', |reader| {
                    items.push(reader.value(depth)?);
                    Ok(())
                })?;
                Ok(Value::Array(items))
            }
            Some(b'"') => self.string().map(|s| Value::String(s.into_owned())),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => self.literal(),
        }
    }

    /// The members of an object or the items of an array (the cursor after its opening
    /// bracket), each read by `item`, up to the `close` bracket.
    fn list(
        &mut self,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Result<(), JsonError>,
    ) -> Result<(), JsonError> {
        if self.eat(close) {
            return Ok(());
        }
        loop {
            item(self)?;
            if self.eat(close) {
                return Ok(());
            }
            self.expect(b',')?;
        }
    }

    fn enter(&mut self, depth: usize) -> Result<usize, JsonError> {
        self.pos += 1;
        depth.checked_sub(1).ok_or(JsonError::TooDeep)
    }

    fn literal(&mut self) -> Result<Value, JsonError> {
        let rest = self.text.get(self.pos..).unwrap_or("");
        for (word, value) in [
            ("null", Value::Null),
            ("true", Value::Bool(true)),
            ("false", Value::Bool(false)),
        ] {
            if rest.starts_with(word) {
                self.pos += word.len();
                return Ok(value);
            }
        }
        self.error("expected a value")
    }

    /// Skips one well-formed value of any depth (an explicit stack, no recursion).
    pub fn skim(&mut self) -> Result<(), JsonError> {
        self.walk(None)
    }

    /// Skips one value that `value(depth)` would accept, with the same error where it would
    /// refuse it (too deep, a number out of range), without building it.
    pub fn check_value(&mut self, depth: usize) -> Result<(), JsonError> {
        self.walk(Some(depth))
    }

    /// `skim` (no limit) or `check_value` (at most `limit` levels, numbers in range).
    fn walk(&mut self, limit: Option<usize>) -> Result<(), JsonError> {
        // Open containers: true for an object.
        let mut open = OpenStack::default();
        loop {
            self.skip_ws();
            let byte = self.peek();
            if let (Some(b'{' | b'['), Some(limit)) = (byte, limit) {
                if open.len >= limit {
                    return Err(JsonError::TooDeep);
                }
            }
            match byte {
                Some(b'{') => {
                    self.pos += 1;
                    if !self.eat(b'}') {
                        open.push(true);
                        self.skip_ws();
                        self.skip_string()?;
                        self.expect(b':')?;
                        continue;
                    }
                }
                Some(b'[') => {
                    self.pos += 1;
                    if !self.eat(b']') {
                        open.push(false);
                        continue;
                    }
                }
                Some(b'"') => self.skip_string()?,
                Some(b'-' | b'0'..=b'9') => {
                    let (text, float) = self.number_text()?;
                    if limit.is_some() && !in_range(text, float) {
                        return self.error("number out of range");
                    }
                }
                _ => {
                    self.literal()?;
                }
            }
            // A value ended: close containers or move to the next member.
            loop {
                let Some(object) = open.last() else {
                    return Ok(());
                };
                if self.eat(b',') {
                    if object {
                        self.skip_ws();
                        self.skip_string()?;
                        self.expect(b':')?;
                    }
                    break;
                }
                self.expect(if object { b'}' } else { b']' })?;
                open.pop();
            }
        }
    }

    /// The bytes of a string's body up to the next quote, backslash or control character.
    fn plain_run(&mut self) -> &'a str {
        let start = self.pos;
        let rest = self.text.as_bytes().get(start..).unwrap_or_default();
        // It stops only at an ASCII byte or the end: always a character boundary.
        self.pos += plain_prefix_len(rest);
        self.text.get(start..self.pos).unwrap_or("")
    }

    /// Checks and skips a string (the cursor on its opening quote) without unescaping it: the
    /// same errors as `string`, no allocation.
    fn skip_string(&mut self) -> Result<(), JsonError> {
        if self.peek() != Some(b'"') {
            return self.error("expected a string");
        }
        self.pos += 1;
        loop {
            self.plain_run();
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape()?;
                }
                Some(_) => return self.error("control character in a string"),
                None => return self.error("unterminated string"),
            }
        }
    }

    /// A string (the cursor on its opening quote), unescaped; borrowed when it has no escapes.
    pub fn string(&mut self) -> Result<Cow<'a, str>, JsonError> {
        if self.peek() != Some(b'"') {
            return self.error("expected a string");
        }
        self.pos += 1;
        let plain = self.plain_run();
        if self.peek() == Some(b'"') {
            self.pos += 1;
            return Ok(Cow::Borrowed(plain));
        }
        let mut out = String::from(plain);
        loop {
            out.push_str(self.plain_run());
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    match self.escape()? {
                        Escaped::Char(c) => out.push(c),
                        Escaped::LoneSurrogate(unit) => {
                            self.lone_surrogates += 1;
                            out.extend(lone_surrogate(unit));
                        }
                    }
                }
                Some(_) => return self.error("control character in a string"),
                None => return self.error("unterminated string"),
            }
        }
    }

    /// One escape (the cursor after its backslash). A high surrogate followed by the escape of a
    /// low one is their pair; any other surrogate escape is a lone surrogate.
    fn escape(&mut self) -> Result<Escaped, JsonError> {
        let Some(b) = self.peek() else {
            return self.error("unterminated escape");
        };
        self.pos += 1;
        Ok(Escaped::Char(match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = self.hex4()?;
                match unit {
                    0xD800..=0xDBFF => match self.low_surrogate_escape() {
                        Some(low) => {
                            let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                            char::from_u32(code).unwrap_or(LONE_SURROGATE_MARK)
                        }
                        None => return Ok(Escaped::LoneSurrogate(unit)),
                    },
                    0xDC00..=0xDFFF => return Ok(Escaped::LoneSurrogate(unit)),
                    other => char::from_u32(other).unwrap_or(LONE_SURROGATE_MARK),
                }
            }
            _ => return self.error("invalid escape"),
        }))
    }

    /// Consumes `\uXXXX` if it is next and names a low surrogate (U+DC00 to U+DFFF).
    fn low_surrogate_escape(&mut self) -> Option<u32> {
        let rest = self.text.get(self.pos..)?;
        let digits = rest.strip_prefix("\\u")?.get(..4)?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let low = u32::from_str_radix(digits, 16).ok()?;
        if !(0xDC00..=0xDFFF).contains(&low) {
            return None;
        }
        self.pos += 6;
        Some(low)
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let digits = self.text.get(self.pos..self.pos + 4);
        match digits.filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit())) {
            Some(d) => {
                self.pos += 4;
                u32::from_str_radix(d, 16).or_else(|_| self.error("invalid hex escape"))
            }
            None => self.error("invalid hex escape"),
        }
    }

    /// The text of a number (grammar checked); true when it has a fraction or an exponent.
    fn number_text(&mut self) -> Result<(&'a str, bool), JsonError> {
        let start = self.pos;
        let bytes = self.text.as_bytes();
        let digits = |pos: &mut usize| {
            let from = *pos;
            while bytes.get(*pos).is_some_and(u8::is_ascii_digit) {
                *pos += 1;
            }
            *pos - from
        };
        let mut pos = self.pos;
        if bytes.get(pos) == Some(&b'-') {
            pos += 1;
        }
        let int_start = pos;
        let int_digits = digits(&mut pos);
        if int_digits == 0 || (int_digits > 1 && bytes.get(int_start) == Some(&b'0')) {
            self.pos = pos;
            return self.error("invalid number");
        }
        let mut float = false;
        if bytes.get(pos) == Some(&b'.') {
            pos += 1;
            float = true;
            if digits(&mut pos) == 0 {
                self.pos = pos;
                return self.error("invalid number");
            }
        }
        if let Some(b'e' | b'E') = bytes.get(pos) {
            pos += 1;
            float = true;
            if let Some(b'+' | b'-') = bytes.get(pos) {
                pos += 1;
            }
            if digits(&mut pos) == 0 {
                self.pos = pos;
                return self.error("invalid number");
            }
        }
        self.pos = pos;
        Ok((self.text.get(start..pos).unwrap_or("0"), float))
    }

    /// A number: integers that fit stay exact (as serde_json keeps them), others become the
    /// correctly rounded double; out of the double range is an error.
    fn number(&mut self) -> Result<Value, JsonError> {
        let (text, float) = self.number_text()?;
        if !float {
            if let Ok(n) = text.parse::<u64>() {
                return Ok(Value::Number(n.into()));
            }
            match text.parse::<i64>() {
                // "-0" is the double -0, as in serde_json.
                Ok(0) | Err(_) => {}
                Ok(n) => return Ok(Value::Number(n.into())),
            }
        }
        match Number::from_f64(parse_f64(text)) {
            Some(n) => Ok(Value::Number(n)),
            None => self.error("number out of range"),
        }
    }
}

impl Reader<'_> {
    /// Writes the RFC 8785 (JCS) form of the well-formed value at the cursor, nested at most
    /// `depth` levels, to `sink` without building it, leaving out the keys `filter` drops at every
    /// depth: the same bytes as `canonical::write_value` of the parsed value (of repeated keys the
    /// last wins, as when the value is parsed).
    pub fn write_canonical(
        &mut self,
        depth: usize,
        filter: &dyn KeyFilter,
        sink: &mut dyn ByteSink,
    ) -> Result<(), JsonError> {
        let at = At::Text(self.pos);
        canonical::write(self, at, depth, filter, sink)
    }

    /// The position a place of the text stands for (a text source is handed only those).
    fn seek(&mut self, at: At) -> Result<(), JsonError> {
        match at {
            At::Text(pos) => {
                self.pos = pos;
                Ok(())
            }
            At::Parsed(_) => self.error("not a place in the text"),
        }
    }
}

/// The canonical writer reads text as it goes: escape-free strings and integers below 2^53 are
/// taken from the text, an object's values are skimmed while its members are listed and read
/// once they are sorted.
impl<'a> Source<'a> for Reader<'a> {
    #[inline]
    fn node(&mut self, at: At<'a>, depth: usize) -> Result<Node<'a>, JsonError> {
        self.seek(at)?;
        self.skip_ws();
        let start = self.pos;
        let walk = || Walk::Text {
            started: false,
            end: 0,
        };
        Ok(match self.peek() {
            Some(b'{') => {
                self.enter(depth)?;
                Node::Object(walk())
            }
            Some(b'[') => {
                self.enter(depth)?;
                Node::Array(walk())
            }
            Some(b'"') => match self.string()? {
                Cow::Borrowed(_) => Node::PlainString(self.since(start)),
                owned => Node::String(owned),
            },
            Some(b'-' | b'0'..=b'9') => {
                let (text, float) = self.number_text()?;
                if short_integer(text, float) {
                    return Ok(Node::ShortInteger(text));
                }
                let x = parse_f64(text);
                if !x.is_finite() {
                    return self.error("number out of range");
                }
                Node::Number(x)
            }
            _ => match self.literal()? {
                Value::Bool(b) => Node::Bool(b),
                _ => Node::Null,
            },
        })
    }

    #[inline]
    fn next_item(&mut self, items: &mut Walk<'a>) -> Result<Option<At<'a>>, JsonError> {
        let Walk::Text { started, .. } = items else {
            return Ok(None);
        };
        if self.eat(b']') {
            return Ok(None);
        }
        if *started {
            self.expect(b',')?;
        }
        *started = true;
        Ok(Some(At::Text(self.pos)))
    }

    #[inline]
    fn next_member(&mut self, members: &mut Walk<'a>) -> Result<Option<Member<'a>>, JsonError> {
        let Walk::Text { started, end } = members else {
            return Ok(None);
        };
        if *started {
            // The previous member's value, checked while it is passed over.
            self.skim()?;
        }
        if self.eat(b'}') {
            *end = self.pos;
            return Ok(None);
        }
        if *started {
            self.expect(b',')?;
        }
        *started = true;
        self.skip_ws();
        let key = self.string()?;
        self.expect(b':')?;
        self.skip_ws();
        Ok(Some((key, At::Text(self.pos))))
    }

    fn close(&mut self, members: Walk<'a>) {
        if let Walk::Text { end, .. } = members {
            self.pos = end;
        }
    }

    fn skip(&mut self, at: At<'a>, depth: usize) -> Result<(), JsonError> {
        self.seek(at)?;
        self.check_value(depth)
    }
}

/// False for a number (`number_text`) that `Reader::value` refuses: beyond the double range.
fn in_range(text: &str, float: bool) -> bool {
    short_integer(text, float) || parse_f64(text).is_finite()
}

/// True for an integer of at most 15 digits (a number from `number_text`): below 2^53, so
/// exact as a double and in range without parsing.
fn short_integer(text: &str, float: bool) -> bool {
    !float && text.len() - usize::from(text.starts_with('-')) <= 15
}

/// Parses a whole document (nested at most `depth` levels).
pub fn parse(text: &str, depth: usize) -> Result<Value, JsonError> {
    let mut reader = Reader::new(text);
    let value = reader.value(depth)?;
    reader.end()?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn agrees_with_serde_json() {
        for text in [
            r#"{"a":[1,-2,3.5,1e400,"x\u00e9\ud83d\ude00\n",true,false,null],"a":{}}"#,
            r#"[18446744073709551615, 18446744073709551616, -9223372036854775808, 0.1, -0, 1E+2]"#,
            r#" { "k" : [ ] , "j" : { } } "#,
            r#""\ud83d\ude00 \uD83D\uDE00""#,
            "[01]",
            "[1.]",
            "{\"a\" 1}",
            "[1,]",
            "\"a\u{1}\"",
            "tru",
            "[1] x",
            r#""\ud83d\u00zz""#,
            r#""\ud83d\""#,
        ] {
            let ours = parse(text, 127).ok();
            let theirs: Option<Value> = serde_json::from_str(text).ok();
            assert_eq!(ours, theirs, "{text}");
            let mut reader = Reader::new(text);
            let skimmed = reader.skim().and_then(|()| reader.end()).is_ok();
            let number_range_only = text.contains("1e400");
            assert_eq!(skimmed, theirs.is_some() || number_range_only, "{text}");
        }
    }

    #[test]
    fn canonical_from_text_equals_canonical_of_the_parsed_value() {
        for text in [
            r#"{"b":1,"a":[1.0,-0,1e2,123456789012345678,0.1,true,null,"x\u00e9\/"],"a":2}"#,
            r#"{"\u00e9":{"z":[],"y":{}},"e":"\ud83d\ude00","\ue000":1,"\ud83d\ude00":2}"#,
            r#"[ 1 , { "k" : "v" } , [ ] ]"#,
            r#""tab\tquote\"\u0001""#,
            r#"{"k0":0,"k7":1,"k14":2,"k1":3,"k8":4,"k15":5,"k2":6,"k9":7,"k16":8,"k3":9,"k10":10,"k17":11,"k4":12,"k11":13,"k18":14,"k5":15,"k12":16,"k19":17,"k6":18,"k13":19,"k3":"last","\u00e9":1}"#,
            "-12.5e-3",
            r#"{"\ud83d":1,"\ude00":2,"\ud83d\ude00":3,"\ufffd":4,"a\udbff":["x\udc00",{"\ud800":0,"\udfff":1}]}"#,
        ] {
            let mut raw = Vec::new();
            Reader::new(text)
                .write_canonical(127, &crate::json::canonical::KeepAll, &mut raw)
                .unwrap();
            let parsed = parse(text, 127).unwrap();
            let mut want = Vec::new();
            crate::json::canonical::write_value(
                &parsed,
                &crate::json::canonical::KeepAll,
                &mut want,
            );
            assert_eq!(
                String::from_utf8(raw).unwrap(),
                String::from_utf8(want).unwrap(),
                "{text}"
            );
        }
        let nest = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
        let mut sink = Vec::new();
        assert!(Reader::new(&nest(127))
            .write_canonical(127, &crate::json::canonical::KeepAll, &mut sink)
            .is_ok());
        assert_eq!(
            Reader::new(&nest(128)).write_canonical(
                127,
                &crate::json::canonical::KeepAll,
                &mut sink
            ),
            Err(JsonError::TooDeep)
        );
    }

    #[test]
    fn lone_surrogates_become_the_documented_pair() {
        let pair = |unit: u32| lone_surrogate(unit).iter().collect::<String>();
        assert_eq!(pair(0xD800), "\u{FFFD}\u{10F800}");
        assert_eq!(pair(0xDFFF), "\u{FFFD}\u{10FFFF}");
        let cases = [
            (r#""ab\ud83d""#, format!("ab{}", pair(0xD83D)), 1),
            (r#""\ude00cd""#, format!("{}cd", pair(0xDE00)), 1),
            (r#""\ud83d\u0041""#, format!("{}A", pair(0xD83D)), 1),
            (
                r#""\ude00\ud83d""#,
                format!("{}{}", pair(0xDE00), pair(0xD83D)),
                2,
            ),
            (
                r#""\ud83d\ud83d\ude00""#,
                format!("{}\u{1F600}", pair(0xD83D)),
                1,
            ),
            (
                r#""\ud83d\ude00\ude00""#,
                format!("\u{1F600}{}", pair(0xDE00)),
                1,
            ),
            (r#""\uDBFF\n""#, format!("{}\n", pair(0xDBFF)), 1),
        ];
        for (text, want, count) in cases {
            let mut reader = Reader::new(text);
            assert_eq!(reader.string().unwrap(), want, "{text}");
            assert_eq!(reader.lone_surrogates(), count, "{text}");
            let mut reader = Reader::new(text);
            assert!(reader.skim().and_then(|()| reader.end()).is_ok(), "{text}");
        }
        // Every unit keeps its own pair, apart from U+FFFD and from the escape's own text.
        let mut seen = std::collections::HashSet::new();
        for unit in 0xD800..=0xDFFF {
            assert!(seen.insert(pair(unit)));
        }
        for other in ["\u{FFFD}", "\\ud800", "\u{10F800}"] {
            assert!(!seen.contains(other));
        }
    }

    #[test]
    fn skipped_members_obey_the_rules_of_kept_ones() {
        struct DropVolatile;
        impl KeyFilter for DropVolatile {
            fn drops(&self, key: &str) -> bool {
                key == "durationMs"
            }
        }
        let canonical = |text: &str| {
            let mut reader = Reader::new(text);
            let mut sink = Vec::new();
            reader
                .write_canonical(4, &DropVolatile, &mut sink)
                .and_then(|()| reader.end())
        };
        let kinds = |e: Result<(), JsonError>| match e {
            Ok(()) => "ok",
            Err(JsonError::TooDeep) => "too deep",
            Err(JsonError::Syntax(what)) if what.starts_with("number out of range") => "range",
            Err(JsonError::Syntax(_)) => "syntax",
        };
        let big_int = "9".repeat(400);
        for (bad, want) in [
            ("1e400", "range"),
            ("-2e308", "range"),
            (big_int.as_str(), "range"),
            ("[[[[1]]]]", "too deep"),
        ] {
            let kept = format!(r#"{{"a":{bad}}}"#);
            let duplicate = format!(r#"{{"a":{bad},"a":1}}"#);
            let volatile = format!(r#"{{"durationMs":{bad},"a":1}}"#);
            let nested = format!(r#"[{{"b":[{{"durationMs":{bad}}}]}}]"#);
            for text in [&kept, &duplicate, &volatile, &nested] {
                assert_eq!(kinds(canonical(text)), want, "{text}");
                assert_eq!(kinds(parse(text, 4).map(|_| ())), want, "{text}");
            }
        }
        // Within the limits a skipped member is simply left out.
        assert_eq!(
            kinds(canonical(r#"{"a":[[[1]]],"a":1e300,"durationMs":[[[2]]]}"#)),
            "ok"
        );
        let mut sink = Vec::new();
        Reader::new(r#"{"a":[[[1]]],"a":1e300,"durationMs":1e308}"#)
            .write_canonical(4, &DropVolatile, &mut sink)
            .unwrap();
        assert_eq!(sink, b"{\"a\":1e+300}");
    }

    #[test]
    fn check_value_agrees_with_value() {
        for (text, depth) in [
            ("[]", 0),
            ("[]", 1),
            ("{}", 0),
            ("[[]]", 1),
            ("[[],{}]", 2),
            (r#"{"a":{"b":[1]}}"#, 2),
            (r#"{"a":{"b":[1]}}"#, 3),
            ("123456789012345678901234567890", 0),
            ("1e-400", 0),
            ("1.7976931348623157e308", 0),
            ("1.7976931348623159e308", 0),
            (r#"[1e999,[[[]]]]"#, 2),
            (r#"[[[]],1e999]"#, 2),
        ] {
            let mut reader = Reader::new(text);
            let checked = reader.check_value(depth).map(|()| reader.pos());
            let mut reader = Reader::new(text);
            let parsed = reader.value(depth).map(|_| reader.pos());
            assert_eq!(checked, parsed, "{text} at depth {depth}");
        }
    }

    #[test]
    fn depth_limit_and_deep_skim() {
        let nest = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
        assert!(parse(&nest(127), 127).is_ok());
        assert_eq!(parse(&nest(128), 127), Err(JsonError::TooDeep));
        let deep = nest(100_000);
        let mut reader = Reader::new(&deep);
        assert!(reader.skim().is_ok());
        assert_eq!(reader.pos(), deep.len());
    }
}
