//! Results handed over field by field (see `input::CallFields`): a string, or an MCP-style result
//! whose `content` holds only text parts, with optional `details` (as JSON text) and `isError`; or
//! a thrown error that is a string or only a `name` and a `message`.
//! Their digest is the one `outcome.rs` defines for the same result given as JSON: framed directly
//! for ordinary tools, or through the result's tree where a profile needs one (the caller decides).

use crate::error::GuardError;
use crate::json::canonical::KeyFilter;
use crate::json::digest::{ByteSink, HashSink};
use crate::json::reader::Reader;
use crate::record::input::MAX_DEPTH;
use crate::record::json_text::put_content_text;
use crate::record::outcome::{
    digest_from_hex, put_text, put_text_digest, Framing, Kind, OutcomeDigest, ResultFacts,
    ResultMasking, OUTCOME_TAG,
};
use serde_json::{Map, Value};

/// One text: as it is, or as the lowercase hex SHA-256 the host computed (texts longer than
/// `MAX_SCANNED_TEXT_BYTES` only, as for `textSha256`).
#[derive(Debug, Clone, Copy)]
pub enum TextField<'a> {
    /// The text itself.
    Text(&'a str),
    /// The lowercase hex SHA-256 of the text's UTF-8 bytes.
    Sha256Hex(&'a str),
}

/// A result handed over field by field.
#[derive(Debug, Clone)]
pub enum ResultFields<'a> {
    /// No result. The default and strict presets digest a `null` result the same way; the
    /// `openclaw` preset hashes `null` as a value (as OpenClaw does), so a `null` result is handed
    /// over as JSON.
    Absent,
    /// A string result.
    Text(TextField<'a>),
    /// `{"content": [{"type": "text", "text": …}, …], "details": …, "isError": …}`.
    Parts {
        /// The `text` of each part, in order.
        texts: Vec<TextField<'a>>,
        /// JSON text of `details`.
        details: Option<&'a str>,
        /// `isError`.
        is_error: Option<bool>,
    },
    /// A thrown error (no result): a string (`name` `None`), or an object of a string `name` and
    /// `message` and nothing else (an `Error` without extras, as the wrapper writes it).
    Error {
        /// The error's `name`; `None` for a thrown string.
        name: Option<&'a str>,
        /// The string, or the error's `message` (as its SHA-256 when the host hashed a long one).
        message: TextField<'a>,
        /// A hashed message's UTF-16 length (0 for one handed over as it is).
        hashed_chars: usize,
    },
}

impl ResultFields<'_> {
    /// UTF-8 bytes handed over, host-hashed result texts not counted (a hashed error message is).
    pub fn byte_len(&self) -> usize {
        let text_len = |text: &TextField| match text {
            TextField::Text(text) => text.len(),
            TextField::Sha256Hex(_) => 0,
        };
        match self {
            ResultFields::Absent => 0,
            ResultFields::Text(text) => text_len(text),
            ResultFields::Parts { texts, details, .. } => {
                texts.iter().map(text_len).sum::<usize>() + details.map_or(0, str::len)
            }
            // A hashed message counts as the UTF-8 it may be: the JSON record would hold it.
            ResultFields::Error {
                name,
                message,
                hashed_chars,
            } => name.map_or(0, str::len) + text_len(message) + hashed_chars.saturating_mul(3),
        }
    }

    /// Text parts handed over.
    pub fn part_count(&self) -> usize {
        match self {
            ResultFields::Absent => 0,
            ResultFields::Text(_) => 1,
            ResultFields::Parts { texts, .. } => texts.len(),
            ResultFields::Error { name, .. } => 1 + usize::from(name.is_some()),
        }
    }

    /// Whether the fields stand for less than the JSON record would hold: a thrown error whose
    /// message the host hashed. Where the whole message is needed (a profile's tree, OpenClaw's
    /// hashing) such an outcome is asked for as JSON.
    pub fn holds_hashed_error(&self) -> bool {
        matches!(
            self,
            ResultFields::Error {
                message: TextField::Sha256Hex(_),
                ..
            }
        )
    }

    /// The thrown error as the JSON record would have held it (`None` for a result, or for an
    /// error whose message the host hashed: `holds_hashed_error`).
    pub fn error_tree(&self) -> Option<Value> {
        let ResultFields::Error {
            name,
            message: TextField::Text(message),
            ..
        } = self
        else {
            return None;
        };
        let message = Value::String((*message).to_owned());
        Some(match name {
            None => message,
            Some(name) => Value::Object(Map::from_iter([
                ("name".to_owned(), Value::String((*name).to_owned())),
                ("message".to_owned(), message),
            ])),
        })
    }

    /// The result as the JSON record would have held it (host-hashed texts as `textSha256` parts;
    /// `None` for no result, or a thrown error: `error_tree`).
    pub fn tree(&self) -> Result<Option<Value>, GuardError> {
        let part = |text: &TextField| {
            let mut part = Map::new();
            part.insert("type".to_owned(), Value::String("text".to_owned()));
            let (key, value) = match text {
                TextField::Text(text) => ("text", text),
                TextField::Sha256Hex(hex) => ("textSha256", hex),
            };
            part.insert(key.to_owned(), Value::String((*value).to_owned()));
            Value::Object(part)
        };
        Ok(match self {
            ResultFields::Absent | ResultFields::Error { .. } => None,
            ResultFields::Text(TextField::Text(text)) => Some(Value::String((*text).to_owned())),
            ResultFields::Text(hashed) => Some(Value::Object(Map::from_iter([(
                "content".to_owned(),
                Value::Array(vec![part(hashed)]),
            )]))),
            ResultFields::Parts {
                texts,
                details,
                is_error,
            } => {
                let mut result = Map::new();
                result.insert(
                    "content".to_owned(),
                    Value::Array(texts.iter().map(part).collect()),
                );
                if let Some(details) = details {
                    let parsed =
                        crate::json::reader::parse(details, MAX_DEPTH - 1).map_err(|_| {
                            GuardError::record(Some("result"), "result.details is not valid JSON")
                        })?;
                    result.insert("details".to_owned(), parsed);
                }
                if let Some(is_error) = is_error {
                    result.insert("isError".to_owned(), Value::Bool(*is_error));
                }
                Some(Value::Object(result))
            }
        })
    }
}

/// The digest of an ordinary tool's result (no exec-like profile, no unchanged-write check, no
/// ignored pointers), framed as `outcome.rs` frames the same result given as JSON (`masking`:
/// a mutation's numbers or a poll's clock values masked).
pub fn digest_result_fields(
    result: &ResultFields,
    keys: &dyn KeyFilter,
    masking: ResultMasking,
) -> Result<OutcomeDigest, GuardError> {
    let mut sink = HashSink::new();
    sink.put(OUTCOME_TAG);
    let (kind, facts) = match result {
        ResultFields::Error { name, message, .. } => {
            // As `outcome.rs` frames a thrown error: its name (empty for a string) and message.
            sink.put(&[Kind::Error as u8]);
            let facts = ResultFacts::of_error_message(inline(message));
            let framing = Framing::of(Kind::Error, &facts, masking);
            put_text(name.unwrap_or("").as_bytes(), framing, &mut sink);
            put_text_field(message, None, framing, &mut sink)?;
            (Kind::Error, facts)
        }
        ResultFields::Absent => {
            sink.put(&[Kind::Result as u8]);
            sink.put(b"jnull");
            (Kind::Result, ResultFacts::of_texts([], false))
        }
        ResultFields::Text(text) => {
            sink.put(&[Kind::Result as u8]);
            let facts = ResultFacts::of_texts([inline(text)], false);
            put_text_field(
                text,
                None,
                Framing::of(Kind::Result, &facts, masking),
                &mut sink,
            )?;
            (Kind::Result, facts)
        }
        ResultFields::Parts {
            texts,
            details,
            is_error,
        } => {
            let is_error = *is_error == Some(true);
            let kind = if is_error { Kind::Error } else { Kind::Result };
            sink.put(&[kind as u8]);
            let mut facts = ResultFacts::of_texts(texts.iter().map(inline), is_error);
            let framing = Framing::of(kind, &facts, masking);
            for text in texts {
                put_text_field(text, Some(keys), framing, &mut sink)?;
            }
            if let Some(details) = details {
                sink.put(b"j");
                let mut reader = Reader::new(details);
                reader
                    .write_canonical(MAX_DEPTH - 1, keys, &mut sink)
                    .and_then(|()| reader.end())
                    .map_err(|_| {
                        GuardError::record(Some("result"), "result.details is not valid JSON")
                    })?;
                facts.blank = false;
            }
            (kind, facts)
        }
    };
    Ok(facts.digest(sink.finish(), kind))
}

/// A text handed over as it is (host-hashed ones are long and never scanned).
fn inline<'a>(text: &TextField<'a>) -> Option<&'a str> {
    match text {
        TextField::Text(text) => Some(text),
        TextField::Sha256Hex(_) => None,
    }
}

/// A text: a string result (`content_keys` `None`) as it is, a content text part as
/// `json_text` frames it with those keys; `framing` as the outcome's.
fn put_text_field(
    text: &TextField,
    content_keys: Option<&dyn KeyFilter>,
    framing: Framing,
    sink: &mut dyn ByteSink,
) -> Result<(), GuardError> {
    match text {
        TextField::Text(text) => match content_keys {
            Some(keys) => put_content_text(text, false, keys, framing, sink),
            None => put_text(text.as_bytes(), framing, sink),
        },
        TextField::Sha256Hex(hex) => put_text_digest(&digest_from_hex(Some(hex))?, sink),
    }
    Ok(())
}
