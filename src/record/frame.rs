//! The input frame: how a host hands one record to the core through a byte buffer, and the one
//! decoder of it. The layout is defined here and nowhere else; the codes are `#[wasm_bindgen]`
//! enums, so the generated glue and its `.d.ts` give the host the same names and values.
//!
//! A frame is a header of `SLOT_COUNT` little-endian `i32` words (indexed by `Slot`), then the
//! pieces of text whose UTF-8 byte lengths the header gives, one after another in slot order
//! (a negative length: the piece is absent and takes no bytes). A record comes in one of two
//! forms (`Form`):
//! - `Json`: the record as JSON text (`Slot::Json`), plus the side text of its `textSide` part
//!   (`Slot::Side`), which is only hashed and so need not be UTF-8;
//! - `Fields`: an ordinary record field by field: the strings `runId`, `tool`, `callId` as they
//!   are, `args` and `details` as JSON text, then the result's texts, `Slot::Texts` bytes of
//!   entries, each a `TextKind` byte, a little-endian `u32` length and the text. The codes of the
//!   result's shape, `isError`, `at` and withheld arguments take the remaining slots.
//!
//! Frames are untrusted: any bytes decode to a record or a typed error, never a panic.

use crate::codes::shared_codes;
use crate::error::GuardError;
use crate::record::input::CallFields;
use crate::record::outcome_fields::{ResultFields, TextField};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen::prelude::wasm_bindgen;

// The enums below share a shape (a documented variant = its code, line after line): they are
// declarations of distinct codes, not repeated logic.
shared_codes! {
    /// The words of the header, in the order of the pieces they measure.
    pub enum Slot {
        /// `Form::Json`: the record's JSON text.
        Json = 0,
        /// `Form::Json`: the side text (absent: the record has no `textSide` part).
        Side = 1,
        /// `Form::Fields`: the pieces.
        RunId = 2,
        Tool = 3,
        CallId = 4,
        Args = 5,
        Details = 6,
        /// All the text entries of the result, in bytes.
        Texts = 7,
        /// `Form::Fields`, outcomes: a `ResultShape`.
        Result = 8,
        /// `Form::Fields`, outcomes: a `Flag`, the result's `isError`.
        IsError = 9,
        /// `Form::Fields`: a `Flag`, `True` when the record's `at` is a number (the `now`
        /// passed with the frame, which the host takes from it), `Absent` otherwise.
        At = 10,
        /// `Form::Fields`, outcomes: a `Flag`, `True` when the outcome has arguments that the
        /// host did not pass, trusting its call id to find its checked call (`Slot::Args` is
        /// then absent).
        ArgsWithheld = 11,
        /// `Form::Fields`, outcomes: the UTF-16 length of a thrown error's message handed over
        /// as its SHA-256 (`ResultShape::ErrorText`, `ErrorObject`): what the JSON record would
        /// have held, so that its size is bounded as if the message had come.
        HashedChars = 12,
    }

    /// How the record in a frame is given.
    pub enum Form {
        Json = 0,
        Fields = 1,
    }

    /// The shape of an outcome's result in `Form::Fields` (see `ResultFields`).
    pub enum ResultShape {
        /// No result: no text entries (the wrapper sends a `null` result as JSON).
        Absent = 0,
        /// A string result: one text entry.
        Text = 1,
        /// `{content: [text parts], details, isError}`: an entry per part.
        Parts = 2,
        /// A thrown string (no result): one entry, the string (as its SHA-256 when long).
        ErrorText = 3,
        /// A thrown error that is only its `name` and `message` (no result): two entries, the
        /// message last (as its SHA-256 when long).
        ErrorObject = 4,
    }

    /// An optional boolean.
    pub enum Flag {
        Absent = 0,
        False = 1,
        True = 2,
    }

    /// The first byte of a text entry (see `TextField`).
    pub enum TextKind {
        /// The text as it is.
        Text = 0,
        /// The lowercase hex SHA-256 of a long text, computed by the host.
        Sha256Hex = 1,
    }

    /// What `check` and `record` return.
    pub enum Status {
        /// The plain `allow` verdict, built by the host from the record.
        Allow = 0,
        /// The guard's `answer()` holds the verdict as an answer frame (`verdict::answer_frame`).
        Verdict = 1,
        /// A `Form::Fields` frame the core cannot answer from (not an ordinary record, or too large
        /// to be sure): send the record as JSON.
        SendJson = 2,
        /// The guard's `takeError()` holds the error.
        Error = 3,
    }
}

/// Words in the header: one per `Slot`.
pub const SLOT_COUNT: usize = Slot::HashedChars as usize + 1;
/// Bytes of the header, where the pieces begin.
pub const HEADER_BYTES: usize = 4 * SLOT_COUNT;

/// The pieces of each form, in the order they follow the header.
const JSON_PIECES: [Slot; 2] = [Slot::Json, Slot::Side];
const FIELD_PIECES: [Slot; 6] = [
    Slot::RunId,
    Slot::Tool,
    Slot::CallId,
    Slot::Args,
    Slot::Details,
    Slot::Texts,
];

/// A `Form::Json` frame.
#[derive(Debug)]
pub struct Json<'a> {
    /// The record's JSON text.
    pub text: &'a str,
    /// The side text, if any.
    pub side: Option<&'a [u8]>,
}

/// A `Form::Fields` frame: the call, and the outcome's pieces still to be read (`outcome`).
#[derive(Debug)]
pub struct Fields<'a> {
    pub call: CallFields<'a>,
    header: Header,
    pieces: Pieces<'a>,
}

/// The outcome part of a `Form::Fields` frame.
#[derive(Debug)]
pub struct OutcomeFields<'a> {
    pub result: ResultFields<'a>,
    pub args_withheld: bool,
}

/// Decodes the `Form::Json` frame at the start of `input`.
pub fn read_json(input: &[u8]) -> Result<Json<'_>, GuardError> {
    let (header, mut pieces) = start(input)?;
    let text = pieces
        .text(header.len(Slot::Json))?
        .ok_or_else(|| bad("the frame has no record text"))?;
    let side = pieces.bytes(header.len(Slot::Side))?;
    Ok(Json { text, side })
}

/// Decodes the call of the `Form::Fields` frame at the start of `input` (`Fields::outcome` reads
/// the rest). `now_ms` is the record's `at` where `Slot::At` says so.
pub fn read_fields(input: &[u8], now_ms: f64) -> Result<Fields<'_>, GuardError> {
    let (header, mut pieces) = start(input)?;
    let run_id = pieces.text(header.len(Slot::RunId))?;
    let tool = pieces
        .text(header.len(Slot::Tool))?
        .ok_or_else(|| GuardError::record(Some("tool"), "tool is required"))?;
    let call = CallFields {
        run_id,
        tool,
        call_id: pieces.text(header.len(Slot::CallId))?,
        args: pieces.text(header.len(Slot::Args))?,
        at: (header.flag(Slot::At)? == Some(true)).then_some(now_ms),
    };
    Ok(Fields {
        call,
        header,
        pieces,
    })
}

/// The header, and a reader of the pieces after it.
fn start(input: &[u8]) -> Result<(Header, Pieces<'_>), GuardError> {
    let pieces = Pieces {
        input,
        pos: HEADER_BYTES,
    };
    Ok((Header::of(input)?, pieces))
}

impl<'a> Fields<'a> {
    /// The outcome's result and whether its arguments were withheld.
    pub fn outcome(mut self) -> Result<OutcomeFields<'a>, GuardError> {
        let header = &self.header;
        let details = self.pieces.text(header.len(Slot::Details))?;
        let texts = self
            .pieces
            .bytes(header.len(Slot::Texts))?
            .map_or(Ok(Vec::new()), text_entries)?;
        let result = match (header.word(Slot::Result), texts.as_slice()) {
            (w, []) if w == ResultShape::Absent as i32 => ResultFields::Absent,
            (w, [text]) if w == ResultShape::Text as i32 => ResultFields::Text(*text),
            (w, _) if w == ResultShape::Parts as i32 => ResultFields::Parts {
                texts,
                details,
                is_error: header.flag(Slot::IsError)?,
            },
            (w, [message]) if w == ResultShape::ErrorText as i32 => ResultFields::Error {
                name: None,
                message: *message,
                hashed_chars: header.len(Slot::HashedChars).unwrap_or(0),
            },
            (w, [TextField::Text(name), message]) if w == ResultShape::ErrorObject as i32 => {
                ResultFields::Error {
                    name: Some(name),
                    message: *message,
                    hashed_chars: header.len(Slot::HashedChars).unwrap_or(0),
                }
            }
            _ => return Err(GuardError::record(Some("result"), "bad result fields")),
        };
        Ok(OutcomeFields {
            result,
            args_withheld: header.flag(Slot::ArgsWithheld)? == Some(true),
        })
    }
}

/// The bytes a frame of `form` at the start of `input` occupies (header and pieces, as its header
/// declares them, within `input`): what the host wrote, to be zeroed after the call.
pub fn used_len(input: &[u8], form: Form) -> usize {
    let Ok(header) = Header::of(input) else {
        return input.len().min(HEADER_BYTES);
    };
    let pieces: &[Slot] = match form {
        Form::Json => &JSON_PIECES,
        Form::Fields => &FIELD_PIECES,
    };
    pieces
        .iter()
        .filter_map(|slot| header.len(*slot))
        .fold(HEADER_BYTES, usize::saturating_add)
        .min(input.len())
}

/// The header's words.
#[derive(Debug)]
struct Header([i32; SLOT_COUNT]);

impl Header {
    fn of(input: &[u8]) -> Result<Header, GuardError> {
        let bytes = input
            .get(..HEADER_BYTES)
            .ok_or_else(|| bad("the frame is shorter than its header"))?;
        let mut words = [0; SLOT_COUNT];
        for (word, le) in words.iter_mut().zip(bytes.chunks_exact(4)) {
            *word = i32::from_le_bytes(le.try_into().unwrap_or_default());
        }
        Ok(Header(words))
    }

    fn word(&self, slot: Slot) -> i32 {
        self.0.get(slot as usize).copied().unwrap_or(-1)
    }

    /// A piece's length; `None` when absent (negative).
    fn len(&self, slot: Slot) -> Option<usize> {
        usize::try_from(self.word(slot)).ok()
    }

    fn flag(&self, slot: Slot) -> Result<Option<bool>, GuardError> {
        match self.word(slot) {
            w if w == Flag::Absent as i32 => Ok(None),
            w if w == Flag::False as i32 => Ok(Some(false)),
            w if w == Flag::True as i32 => Ok(Some(true)),
            _ => Err(bad("a flag of the frame is out of range")),
        }
    }
}

/// Reads the pieces one after another.
#[derive(Debug)]
struct Pieces<'a> {
    input: &'a [u8],
    pos: usize,
}

impl<'a> Pieces<'a> {
    /// The next piece of `len` bytes; `None` when absent.
    fn bytes(&mut self, len: Option<usize>) -> Result<Option<&'a [u8]>, GuardError> {
        let Some(len) = len else { return Ok(None) };
        let bytes = slice(self.input, self.pos, len)?;
        self.pos += len;
        Ok(Some(bytes))
    }

    /// The next piece, checked to be UTF-8.
    fn text(&mut self, len: Option<usize>) -> Result<Option<&'a str>, GuardError> {
        self.bytes(len)?.map(utf8).transpose()
    }
}

/// The text entries of a result.
fn text_entries(mut entries: &[u8]) -> Result<Vec<TextField<'_>>, GuardError> {
    let mut texts = Vec::new();
    while let [kind, a, b, c, d, rest @ ..] = entries {
        let len = u32::from_le_bytes([*a, *b, *c, *d]) as usize;
        let text = utf8(slice(rest, 0, len)?)?;
        texts.push(match *kind {
            k if k == TextKind::Text as u8 => TextField::Text(text),
            k if k == TextKind::Sha256Hex as u8 => TextField::Sha256Hex(text),
            _ => return Err(bad("bad text entry")),
        });
        entries = rest.get(len..).unwrap_or_default();
    }
    match entries {
        [] => Ok(texts),
        _ => Err(bad("bad text entry")),
    }
}

/// `len` bytes at `start`.
fn slice(input: &[u8], start: usize, len: usize) -> Result<&[u8], GuardError> {
    start
        .checked_add(len)
        .and_then(|end| input.get(start..end))
        .ok_or_else(|| bad("a piece of the frame is outside the input buffer"))
}

fn utf8(bytes: &[u8]) -> Result<&str, GuardError> {
    std::str::from_utf8(bytes).map_err(|_| bad("the input text is not UTF-8"))
}

fn bad(message: &str) -> GuardError {
    GuardError::record(None, message)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;

    /// A frame with these words (unset: 0) and pieces.
    fn frame(words: &[(Slot, i32)], pieces: &[&[u8]]) -> Vec<u8> {
        let mut header = [0i32; SLOT_COUNT];
        for (slot, word) in words {
            header[*slot as usize] = *word;
        }
        let mut bytes: Vec<u8> = header.iter().flat_map(|w| w.to_le_bytes()).collect();
        pieces.iter().for_each(|p| bytes.extend_from_slice(p));
        bytes
    }

    fn entry(kind: TextKind, text: &str) -> Vec<u8> {
        let mut bytes = vec![kind as u8];
        bytes.extend_from_slice(&(text.len() as u32).to_le_bytes());
        bytes.extend_from_slice(text.as_bytes());
        bytes
    }

    /// Decodes a whole frame of `form`, the outcome of a fields frame included.
    fn decodes(input: &[u8], form: Form) -> Result<(), GuardError> {
        match form {
            Form::Json => read_json(input).map(|_| ()),
            Form::Fields => read_fields(input, 0.0)
                .and_then(Fields::outcome)
                .map(|_| ()),
        }
    }

    #[test]
    fn reads_a_json_record_and_its_side_text() {
        let input = frame(
            &[(Slot::Json, 12), (Slot::Side, 3)],
            &[b"{\"tool\":\"t\"}", b"abc"],
        );
        let json = read_json(&input).unwrap();
        assert_eq!(json.text, "{\"tool\":\"t\"}");
        assert_eq!(json.side, Some(&b"abc"[..]));
        assert_eq!(used_len(&input, Form::Json), input.len());
    }

    #[test]
    fn reads_an_outcome_field_by_field() {
        let mut texts = entry(TextKind::Text, "é");
        texts.extend(entry(TextKind::Sha256Hex, "ab"));
        let words = [
            (Slot::RunId, -1),
            (Slot::Tool, 1),
            (Slot::CallId, 2),
            (Slot::Args, -1),
            (Slot::Details, 2),
            (Slot::Texts, texts.len() as i32),
            (Slot::Result, ResultShape::Parts as i32),
            (Slot::IsError, Flag::True as i32),
            (Slot::At, Flag::True as i32),
            (Slot::ArgsWithheld, Flag::True as i32),
        ];
        let input = frame(&words, &[b"t", b"c1", b"{}", &texts, b"not read"]);
        let fields = read_fields(&input, 7.0).unwrap();
        let call = fields.call;
        assert_eq!(
            (call.run_id, call.tool, call.call_id, call.args, call.at),
            (None, "t", Some("c1"), None, Some(7.0))
        );
        let outcome = fields.outcome().unwrap();
        assert!(outcome.args_withheld);
        match outcome.result {
            ResultFields::Parts {
                texts,
                details,
                is_error,
            } => {
                assert!(matches!(
                    texts.as_slice(),
                    [TextField::Text("é"), TextField::Sha256Hex("ab")]
                ));
                assert_eq!((details, is_error), (Some("{}"), Some(true)));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            used_len(&input, Form::Fields),
            input.len() - b"not read".len()
        );
    }

    #[test]
    fn refuses_bad_frames_without_panicking() {
        let tool = [(Slot::Tool, 1)];
        let cases: [(Vec<u8>, Form); 7] = [
            (vec![1, 2, 3], Form::Json),
            (frame(&[(Slot::Json, 5)], &[b"{}"]), Form::Json),
            (frame(&[(Slot::Json, 2)], &[&[0xff, 0xfe]]), Form::Json),
            (frame(&[(Slot::Tool, -1)], &[]), Form::Fields),
            (
                frame(&[(Slot::Tool, 1), (Slot::At, 3)], &[b"t"]),
                Form::Fields,
            ),
            (
                frame(
                    &[(Slot::Tool, 1), (Slot::Texts, 6), (Slot::Result, 2)],
                    &[b"t", &[0, 9, 0, 0, 0, b'x']],
                ),
                Form::Fields,
            ),
            (
                frame(
                    &[(Slot::Tool, 1), (Slot::Texts, 2), (Slot::Result, 2)],
                    &[b"t", &[0, 0]],
                ),
                Form::Fields,
            ),
        ];
        for (input, form) in cases {
            assert!(decodes(&input, form).is_err(), "{input:?}");
            assert!(used_len(&input, form) <= input.len());
        }
        let shapes = [
            (ResultShape::Text, vec![]),
            (ResultShape::Absent, entry(TextKind::Text, "x")),
        ];
        for (shape, texts) in shapes {
            let words = [
                tool[0],
                (Slot::Texts, texts.len() as i32),
                (Slot::Result, shape as i32),
            ];
            let input = frame(&words, &[b"t", &texts]);
            let fields = read_fields(&input, 0.0).unwrap();
            assert_eq!(
                fields.outcome().unwrap_err().field.as_deref(),
                Some("result")
            );
        }
    }

    #[test]
    fn any_bytes_decode_or_fail_within_the_buffer() {
        // Frames of random lengths and bytes, headers made mostly of small words.
        let mut rng = crate::json::test_rng::Rng(0x9e37_79b9_7f4a_7c15);
        let mut next = || rng.next();
        for _ in 0..20_000 {
            let len = (next() % 120) as usize;
            let mut input: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            for word in input.chunks_exact_mut(4).take(SLOT_COUNT) {
                let small = (next() % 12) as i32 - 2;
                word.copy_from_slice(&small.to_le_bytes());
            }
            for form in [Form::Json, Form::Fields] {
                let _ = decodes(&input, form);
                assert!(used_len(&input, form) <= input.len());
            }
        }
    }
}
