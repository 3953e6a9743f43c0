//! JSON string escaping as RFC 8785 has it: only the quote, the backslash and control characters
//! are escaped (`\b \t \n \f \r` by name, the others as `\u00xx`), every other character is
//! written as it is. `plain_prefix_len` finds the runs that need nothing, eight bytes at a time;
//! the reader uses it too, to skip over the plain runs of string bodies.

use crate::json::digest::{ByteSink, Sink};

/// The length of the prefix of `bytes` without a quote, a backslash or a control character: the
/// part of a JSON string that needs no escaping. Eight bytes at a time.
pub fn plain_prefix_len(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut pos = 0;
    while let Some(chunk) = bytes.get(pos..pos + 8) {
        let Ok(chunk) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let v = u64::from_le_bytes(chunk);
        let quote = v ^ (ONES * u64::from(b'"'));
        let backslash = v ^ (ONES * u64::from(b'\\'));
        // Per byte: equal to '"', equal to '\\', or below 0x20. Borrows can flag bytes above the
        // first hit, never below it, so the lowest flag is exact.
        let hits = ((quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (v.wrapping_sub(ONES * 0x20) & !v))
            & HIGHS;
        if hits != 0 {
            return pos + (hits.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    while let Some(&b) = bytes.get(pos) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        pos += 1;
    }
    pos
}

/// Writes a JSON string with JCS's minimal escaping; clean runs go to the sink in one piece.
pub fn write_string<S: ByteSink>(s: &str, sink: &mut S) {
    let bytes = s.as_bytes();
    let plain = plain_prefix_len(bytes);
    if plain == bytes.len() {
        sink.put(b"\"");
        sink.put(bytes);
        sink.put(b"\"");
    } else {
        // The hashing sink gets its own copy, with its inline `put`: a text can hold an escape
        // every few bytes (JSON or code inside a result), a call through `dyn` each.
        match sink.sort() {
            Sink::Hash(hash) => write_escaped(bytes, plain, hash),
            Sink::Other(other) => write_escaped(bytes, plain, other),
        }
    }
}

/// `write_string` of a string whose first byte to escape is at `first`: one copy of this code
/// for the hashing sink and one for every other. The plain runs between escapes are found eight
/// bytes at a time and put in one piece.
#[inline(never)]
fn write_escaped<S: ByteSink + ?Sized>(bytes: &[u8], first: usize, sink: &mut S) {
    sink.put(b"\"");
    let mut start = 0;
    let mut i = first;
    while let Some(&b) = bytes.get(i) {
        sink.put(bytes.get(start..i).unwrap_or_default());
        match b {
            b'"' => sink.put(b"\\\""),
            b'\\' => sink.put(b"\\\\"),
            0x08 => sink.put(b"\\b"),
            0x09 => sink.put(b"\\t"),
            0x0a => sink.put(b"\\n"),
            0x0c => sink.put(b"\\f"),
            0x0d => sink.put(b"\\r"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let hi = HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0');
                let lo = HEX.get(usize::from(b & 0xf)).copied().unwrap_or(b'0');
                sink.put(&[b'\\', b'u', b'0', b'0', hi, lo]);
            }
        }
        start = i + 1;
        i = start + plain_prefix_len(bytes.get(start..).unwrap_or_default());
    }
    sink.put(bytes.get(start..).unwrap_or_default());
    sink.put(b"\"");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_prefix_stops_at_the_first_special_byte() {
        for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            for at in 0..20 {
                let mut bytes: Vec<u8> = (0..20)
                    .map(|i| match i {
                        i if i == at => special,
                        3 => 0xc3,
                        _ => b'a',
                    })
                    .collect();
                bytes.extend_from_slice(&[0x7f, 0x80, 0xff, b' ']);
                assert_eq!(plain_prefix_len(&bytes), at, "{special} at {at}");
            }
        }
        assert_eq!(plain_prefix_len("héllo wörld, ok ".as_bytes()), 18);
    }

    #[test]
    fn escapes_as_json_stringify_does() {
        let text = "a\"b\\c\u{8}\t\n\u{c}\r\u{1}\u{1f}é \u{7f} long plain run after the escapes\n";
        let mut out = Vec::new();
        write_string(text, &mut out);
        let expected = "\"a\\\"b\\\\c\\b\\t\\n\\f\\r\\u0001\\u001fé \u{7f} long plain run after the escapes\\n\"";
        assert_eq!(out, expected.as_bytes());
    }
}
