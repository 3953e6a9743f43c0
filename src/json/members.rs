//! The members of a canonical JSON object, read from the canonical writer's output as it streams
//! past: a `ByteSink` that passes every byte on and keeps, for each top-level member, the 32-bit
//! FNV-1a hashes of its key (as written, quotes included) and of its value. Two calls whose
//! arguments differ then say which members differed, without either call's arguments being kept.

use crate::json::digest::{ByteSink, Sink};

/// At most this many members are kept (the rest are passed on, not hashed).
pub const MAX_MEMBERS: usize = 16;

/// A top-level member: the hashes of its canonical key and value.
pub type MemberHashes = (u32, u32);

/// The 32-bit FNV-1a hash of `bytes`, continued from `hash`.
pub fn fnv1a(hash: u32, bytes: &[u8]) -> u32 {
    bytes.iter().fold(hash, |hash, byte| {
        (hash ^ u32::from(*byte)).wrapping_mul(0x0100_0193)
    })
}

/// The FNV-1a offset basis.
pub const FNV_START: u32 = 0x811c_9dc5;

/// Where the splitter is in the canonical text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Before the top-level value, or after it.
    Outside,
    /// In the top-level object, in a member's key.
    Key,
    /// In the top-level object, in a member's value.
    Value,
}

/// Passes bytes to `inner` and splits the canonical text into the top-level object's members.
pub struct MemberSink<'s> {
    inner: &'s mut dyn ByteSink,
    place: Place,
    depth: u32,
    in_string: bool,
    escaped: bool,
    key: u32,
    value: u32,
    members: Vec<MemberHashes>,
}

impl<'s> MemberSink<'s> {
    pub fn new(inner: &'s mut dyn ByteSink) -> MemberSink<'s> {
        MemberSink {
            inner,
            place: Place::Outside,
            depth: 0,
            in_string: false,
            escaped: false,
            key: FNV_START,
            value: FNV_START,
            members: Vec::new(),
        }
    }

    /// The members seen, in canonical (sorted) order; empty when the value was not an object.
    pub fn members(self) -> Vec<MemberHashes> {
        self.members
    }

    fn end_member(&mut self) {
        if self.members.len() < MAX_MEMBERS {
            self.members.push((self.key, self.value));
        }
        self.key = FNV_START;
        self.value = FNV_START;
    }

    fn step(&mut self, byte: u8) {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if byte == b'\\' {
                self.escaped = true;
            } else if byte == b'"' {
                self.in_string = false;
            }
        } else {
            match byte {
                b'"' => self.in_string = true,
                b'{' | b'[' => {
                    self.depth += 1;
                    if self.depth == 1 {
                        // The top-level value opens: an object's members follow.
                        self.place = if byte == b'{' {
                            Place::Key
                        } else {
                            Place::Outside
                        };
                        return;
                    }
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        if self.place == Place::Value {
                            self.end_member();
                        }
                        self.place = Place::Outside;
                        return;
                    }
                }
                b':' if self.depth == 1 && self.place == Place::Key => {
                    self.place = Place::Value;
                    return;
                }
                b',' if self.depth == 1 && self.place == Place::Value => {
                    self.end_member();
                    self.place = Place::Key;
                    return;
                }
                _ => {}
            }
        }
        match self.place {
            Place::Key => self.key = fnv1a(self.key, &[byte]),
            Place::Value => self.value = fnv1a(self.value, &[byte]),
            Place::Outside => {}
        }
    }
}

impl ByteSink for MemberSink<'_> {
    fn put(&mut self, bytes: &[u8]) {
        self.inner.put(bytes);
        for &byte in bytes {
            self.step(byte);
        }
    }

    fn sort(&mut self) -> Sink<'_> {
        Sink::Other(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(text: &str) -> Vec<MemberHashes> {
        let mut out = Vec::new();
        let mut sink = MemberSink::new(&mut out);
        for piece in text.as_bytes().chunks(3) {
            sink.put(piece);
        }
        let members = sink.members();
        assert_eq!(out, text.as_bytes(), "every byte is passed on");
        members
    }

    #[test]
    fn members_are_split_at_the_top_level_only() {
        let hash = |s: &str| fnv1a(FNV_START, s.as_bytes());
        assert_eq!(
            members(r#"{"a":1,"b":{"c":[2,","],"d":"}"},"e":"x\"y"}"#),
            vec![
                (hash(r#""a""#), hash("1")),
                (hash(r#""b""#), hash(r#"{"c":[2,","],"d":"}"}"#)),
                (hash(r#""e""#), hash(r#""x\"y""#)),
            ]
        );
        assert!(members("{}").is_empty());
        assert!(members(r#"[{"a":1}]"#).is_empty());
        assert!(members(r#""text""#).is_empty());
    }

    #[test]
    fn one_changed_value_changes_one_member() {
        let a = members(r#"{"date":"2024-05-11","from":"JFK","to":"SEA"}"#);
        let b = members(r#"{"date":"2024-05-12","from":"JFK","to":"SEA"}"#);
        let differing: Vec<usize> = (0..3).filter(|i| a.get(*i) != b.get(*i)).collect();
        assert_eq!(differing, vec![0]);
    }
}
