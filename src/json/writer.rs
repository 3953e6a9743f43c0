//! JSON text for what the core hands back to the host (verdicts, stats): one small writer, so that
//! escaping and number forms are decided in one place and no serialisation framework (nor its
//! float formatter) is linked into the `.wasm`.
//!
//! Strings are escaped as RFC 8785 does (`escape::write_string`: quote, backslash and control
//! characters only), numbers are written as ECMAScript's `Number#toString` writes them, and
//! non-finite numbers, which JSON cannot carry, are written as `null`.

use crate::json::escape::write_string;
use crate::json::number_format::{write_number, write_uint};

/// A JSON object under construction; members appear in the order they are added. Keys are the
/// core's own ASCII field names and are written as they are.
/// What `JsonObject::new` starts with room for.
const SMALL_BYTES: usize = 256;

pub struct JsonObject {
    out: Vec<u8>,
}

impl JsonObject {
    pub fn new() -> JsonObject {
        Self::with_room(SMALL_BYTES)
    }

    /// An object with room for `bytes` of text: a verdict (about 1 KB with its texts) grown by
    /// doubling from a few bytes took eight reallocations, each a copy and, in the wasm build, a
    /// zeroed free.
    pub fn with_room(bytes: usize) -> JsonObject {
        let mut out = Vec::with_capacity(bytes);
        out.push(b'{');
        JsonObject { out }
    }

    #[inline(never)]
    fn key(&mut self, key: &str) {
        // Every member but an object's first follows a finished value, which never ends in `{`.
        if self.out.last() != Some(&b'{') {
            self.out.push(b',');
        }
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\":");
    }

    #[inline(never)]
    pub fn string(&mut self, key: &str, value: &str) {
        self.key(key);
        write_string(value, &mut self.out);
    }

    /// An integer, written exactly.
    #[inline(never)]
    pub fn uint(&mut self, key: &str, value: u64) {
        self.key(key);
        write_uint(value, &mut self.out);
    }

    #[inline(never)]
    pub fn number(&mut self, key: &str, value: f64) {
        self.key(key);
        write_f64(value, &mut self.out);
    }

    #[inline(never)]
    pub fn null(&mut self, key: &str) {
        self.key(key);
        self.out.extend_from_slice(b"null");
    }

    /// Opens a nested object as the value of `key`; its members follow until `end`.
    #[inline(never)]
    pub fn begin(&mut self, key: &str) {
        self.key(key);
        self.out.push(b'{');
    }

    /// Closes the object the last unmatched `begin` opened.
    pub fn end(&mut self) {
        self.out.push(b'}');
    }

    #[inline(never)]
    pub fn object(&mut self, key: &str, value: JsonObject) {
        self.key(key);
        self.out.extend_from_slice(&value.close());
    }

    fn close(mut self) -> Vec<u8> {
        self.out.push(b'}');
        self.out
    }

    /// The finished object's text.
    pub fn finish(self) -> String {
        // Only UTF-8 went in (keys and values are `&str`, escapes are ASCII).
        String::from_utf8(self.close()).unwrap_or_default()
    }
}

fn write_f64(value: f64, out: &mut Vec<u8>) {
    if value.is_finite() {
        write_number(value, out);
    } else {
        out.extend_from_slice(b"null");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_keep_member_order_and_escape_strings() {
        let mut inner = JsonObject::new();
        inner.uint("n", u64::MAX);
        let mut o = JsonObject::new();
        o.string("s", "a\"b\\c\n\u{1}é");
        o.null("none");
        o.uint("t", 0);
        o.begin("nested");
        o.uint("a", 1);
        o.begin("deeper");
        o.end();
        o.null("b");
        o.end();
        o.number("x", 0.5);
        o.number("y", 60000.0);
        o.number("nan", f64::NAN);
        o.number("inf", f64::NEG_INFINITY);
        o.object("o", inner);
        o.object("empty", JsonObject::new());
        assert_eq!(
            o.finish(),
            "{\"s\":\"a\\\"b\\\\c\\n\\u0001é\",\"none\":null,\"t\":0,\"nested\":{\"a\":1,\"deeper\":{},\"b\":null},\"x\":0.5,\
             \"y\":60000,\"nan\":null,\"inf\":null,\"o\":{\"n\":18446744073709551615},\"empty\":{}}"
        );
    }
}
