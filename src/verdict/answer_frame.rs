//! The answer frame: a verdict as bytes the wasm host turns into its verdict object without JSON.
//! A refusal's JSON is ~1.2 KB, mostly texts that the core would escape and the host unescape
//! again in `JSON.parse`; here the texts travel as they are, once each, and the host decodes them
//! all with one `TextDecoder` call. The members and their order come from `Verdict::write_members`
//! (one walk for this form and the JSON), their names from `Key` (listed in `js/names.ts`), the
//! entry tags from `AnswerTag` (a glue enum): the host's decoder knows no verdict field.
//!
//! Layout, little-endian: a `u32` of entry bytes, a `u32` of text bytes, the entries, the text.
//! An entry is an `AnswerTag` byte, then, except for `End`, the member's `Key` code and its value:
//! `String` two `u32` (where the string starts in the decoded text and its length, both in UTF-16
//! units), `Uint` a `u32`, `Number` an `f64`, `Null` and `Begin` nothing (`Begin` opens a nested
//! object, `End` closes it). A string written before in the same frame is not written again: its
//! entry points at the first copy (a refusal repeats its message).
//!
//! The frame holds texts of the verdict: the host zeroes it once read, and the core zeroes it
//! again before writing the next one.

use crate::codes::shared_codes;
use crate::verdict::members::{Key, MemberSink};
use crate::verdict::Verdict;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen::prelude::wasm_bindgen;

// A declaration of codes, alike in shape to the input frame's (`record::frame`), not repeated logic.
shared_codes! {
    /// The first byte of an answer frame's entry.
    pub enum AnswerTag {
        /// Closes the object the last `Begin` opened.
        End = 0,
        String = 1,
        Uint = 2,
        Number = 3,
        Null = 4,
        /// Opens a nested object.
        Begin = 5,
    }
}

/// Strings shorter than this are written again rather than looked up among earlier ones.
const SHARED_STRING_BYTES: usize = 32;

/// A string already in the frame's text: where its bytes and its UTF-16 units start.
struct Written {
    byte_start: usize,
    byte_len: usize,
    unit_start: u32,
}

/// The writer of answer frames, kept by a guard so that its buffers are reused.
#[derive(Default)]
pub struct AnswerFrame {
    /// The finished frame.
    out: Vec<u8>,
    /// The entries while writing.
    entries: Vec<u8>,
    /// The text while writing.
    text: Vec<u8>,
    /// UTF-16 units in `text`.
    units: u32,
    /// Strings of `SHARED_STRING_BYTES` or more in `text`.
    written: Vec<Written>,
}

impl AnswerFrame {
    /// Writes `verdict` as the frame, in place of the last one.
    pub fn write(&mut self, verdict: &Verdict) {
        verdict.write_members(self);
        self.out.fill(0);
        self.out.clear();
        self.out
            .extend_from_slice(&u32_len(self.entries.len()).to_le_bytes());
        self.out
            .extend_from_slice(&u32_len(self.text.len()).to_le_bytes());
        self.out.extend_from_slice(&self.entries);
        self.out.extend_from_slice(&self.text);
        self.entries.clear();
        self.text.fill(0);
        self.text.clear();
        self.units = 0;
        self.written.clear();
    }

    /// The frame's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.out
    }

    fn entry(&mut self, tag: AnswerTag, key: Key) {
        self.entries.push(tag as u8);
        self.entries.push(key as u8);
    }

    fn word(&mut self, value: u32) {
        self.entries.extend_from_slice(&value.to_le_bytes());
    }

    /// Where `value` starts in the text, in UTF-16 units: appended unless already there.
    fn place(&mut self, value: &str, units: u32) -> u32 {
        let bytes = value.as_bytes();
        if bytes.len() >= SHARED_STRING_BYTES {
            let text = &self.text;
            let earlier = self.written.iter().find(|w| {
                w.byte_len == bytes.len()
                    && text.get(w.byte_start..w.byte_start + w.byte_len) == Some(bytes)
            });
            if let Some(earlier) = earlier {
                return earlier.unit_start;
            }
            self.written.push(Written {
                byte_start: self.text.len(),
                byte_len: bytes.len(),
                unit_start: self.units,
            });
        }
        let start = self.units;
        self.text.extend_from_slice(bytes);
        self.units = self.units.saturating_add(units);
        start
    }
}

/// A length as the frame's `u32` (a verdict is a few KB; saturates rather than wraps).
fn u32_len(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

/// `value`'s length in UTF-16 units, as the host's strings count them.
fn utf16_len(value: &str) -> u32 {
    if value.is_ascii() {
        u32_len(value.len())
    } else {
        u32_len(value.encode_utf16().count())
    }
}

impl MemberSink for AnswerFrame {
    fn string(&mut self, key: Key, value: &str) {
        let units = utf16_len(value);
        let start = self.place(value, units);
        self.entry(AnswerTag::String, key);
        self.word(start);
        self.word(units);
    }

    fn uint(&mut self, key: Key, value: u32) {
        self.entry(AnswerTag::Uint, key);
        self.word(value);
    }

    fn number(&mut self, key: Key, value: f64) {
        if !value.is_finite() {
            return self.null(key);
        }
        self.entry(AnswerTag::Number, key);
        self.entries.extend_from_slice(&value.to_le_bytes());
    }

    fn null(&mut self, key: Key) {
        self.entry(AnswerTag::Null, key);
    }

    fn begin(&mut self, key: Key) {
        self.entry(AnswerTag::Begin, key);
    }

    fn end(&mut self) {
        self.entries.push(AnswerTag::End as u8);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::verdict::{DetectorId, Finding, Level};

    /// Bytes before the entries: their length and the text's.
    const HEADER_BYTES: usize = 8;

    /// The frame decoded the way the host does, as JSON text for comparison with `to_json`.
    fn decoded(frame: &[u8]) -> serde_json::Value {
        let word = |at: usize| u32::from_le_bytes(frame[at..at + 4].try_into().unwrap());
        let entries_end = HEADER_BYTES + word(0) as usize;
        let text =
            std::str::from_utf8(&frame[entries_end..entries_end + word(4) as usize]).unwrap();
        let units: Vec<u16> = text.encode_utf16().collect();
        let mut stack = vec![serde_json::Map::new()];
        let mut keys = Vec::new();
        let mut at = HEADER_BYTES;
        while at < entries_end {
            let tag = frame[at];
            if tag == AnswerTag::End as u8 {
                let object = stack.pop().unwrap();
                let key: &str = keys.pop().unwrap();
                stack
                    .last_mut()
                    .unwrap()
                    .insert(key.to_owned(), object.into());
                at += 1;
                continue;
            }
            let key = Key::ALL[frame[at + 1] as usize].as_str();
            at += 2;
            let value = match tag {
                t if t == AnswerTag::String as u8 => {
                    let (start, len) = (word(at) as usize, word(at + 4) as usize);
                    at += 8;
                    String::from_utf16(&units[start..start + len])
                        .unwrap()
                        .into()
                }
                t if t == AnswerTag::Uint as u8 => {
                    at += 4;
                    word(at - 4).into()
                }
                t if t == AnswerTag::Number as u8 => {
                    at += 8;
                    f64::from_le_bytes(frame[at - 8..at].try_into().unwrap()).into()
                }
                t if t == AnswerTag::Null as u8 => serde_json::Value::Null,
                _ => {
                    stack.push(serde_json::Map::new());
                    keys.push(key);
                    continue;
                }
            };
            stack.last_mut().unwrap().insert(key.to_owned(), value);
        }
        stack.pop().unwrap().into()
    }

    fn json(verdict: &Verdict) -> serde_json::Value {
        serde_json::from_str(&verdict.to_json()).unwrap()
    }

    #[test]
    fn a_frame_decodes_to_the_verdicts_json() {
        let mut frame = AnswerFrame::default();
        let mut capped = Finding::new(DetectorId::ToolCap, Level::Critical, 3, 3);
        capped.retry_after_ms = Some(1500.5);
        capped.window_ms = Some(f64::INFINITY);
        let stopped = Finding::new(DetectorId::GenericRepeat, Level::CircuitBreak, 12, 10);
        let warned = Finding::new(DetectorId::PingPong, Level::Warning, 4, 4);
        let verdicts = [
            Verdict::from_finding(&capped, "se\"arch ✓ 😀", Some("run-é")),
            Verdict::from_finding(&stopped, "update_task", None),
            Verdict::from_finding(&warned, "poll", Some("r")),
            Verdict::allow("t", None),
        ];
        for verdict in &verdicts {
            frame.write(verdict);
            assert_eq!(decoded(frame.bytes()), json(verdict), "{verdict:?}");
        }
    }

    #[test]
    fn a_repeated_text_is_written_once() {
        let mut frame = AnswerFrame::default();
        let finding = Finding::new(DetectorId::GenericRepeat, Level::Critical, 5, 5);
        let refused = Verdict::from_finding(&finding, "update_task", Some("r1"));
        let message = refused.message.clone().unwrap();
        frame.write(&refused);
        let text_bytes = u32::from_le_bytes(frame.bytes()[4..8].try_into().unwrap()) as usize;
        assert!(text_bytes < 2 * message.len(), "{text_bytes} bytes of text");
        assert_eq!(decoded(frame.bytes()), json(&refused));
    }
}
