//! Parsing of call and outcome records from JSON text, with field-named, typed errors. Records are
//! untrusted: nothing here panics, and deep nesting or oversize text is refused before it costs much.

use crate::config::describe;
use crate::error::{ErrorCode, GuardError};
use crate::json::canonical::KeepAll;
use crate::json::canonical_text::is_canonical;
use crate::json::digest::{ByteSink, Digest, Discard, HashSink};
use crate::json::members::{MemberHashes, MemberSink};
use crate::json::reader::{JsonError, Reader};
use crate::json::scrub::RawContent;
use crate::json::top_strings::TopStrings;
use crate::json::window_hash::window_digest;
use crate::record::outcome_fields::ResultFields;
use serde_json::Value;
use std::borrow::Cow;

/// The deepest nesting accepted in one field's value.
pub const MAX_DEPTH: usize = 127;
/// Tool names longer than this are refused.
const MAX_TOOL_NAME_BYTES: usize = 1024;

/// A call as the host proposes it. The arguments stay raw JSON text until they are needed, so an
/// outcome whose call was already fingerprinted by `check` is not parsed and hashed again.
#[derive(Debug, Clone)]
pub struct CallInput<'a> {
    /// Strings are borrowed from the record text unless they hold escapes.
    pub run_id: Option<Cow<'a, str>>,
    pub tool: Cow<'a, str>,
    args_raw: Option<&'a str>,
    /// The lookup key of the arguments' JSON text as sent (`keys::text_key`; not a fingerprint).
    pub args_text_hash: u64,
    pub call_id: Option<Cow<'a, str>>,
    /// The lookup key of `call_id` (`keys::fnv1a`), computed once for the record's searches.
    pub call_id_key: Option<u64>,
    pub at: Option<f64>,
}

impl CallInput<'_> {
    /// The window digest (`window_hash`) of the arguments' canonical (JCS) form, streamed from their text without parsing
    /// them into a tree (or the text itself when it is already canonical); absent arguments are
    /// `{}`.
    pub fn args_digest(&self) -> Result<Digest, GuardError> {
        let mut hasher = HashSink::new();
        match self.args_raw {
            None => hasher.put(b"{}"),
            // Text already canonical (as `JSON.stringify` writes sorted keys) is its own form.
            Some(raw) if is_canonical(raw, MAX_DEPTH) => return Ok(window_digest(raw.as_bytes())),
            Some(raw) => {
                let mut reader = Reader::new(raw);
                reader
                    .write_canonical(MAX_DEPTH, &KeepAll, &mut hasher)
                    .and_then(|()| reader.end())
                    .map_err(|e| field_error(e, "args"))?
            }
        }
        Ok(hasher.finish())
    }

    /// The hashes of the arguments' top-level members (`json::members`; none when they are absent
    /// or not an object), read from their canonical form as it streams past, which is not hashed:
    /// `args_digest` already fingerprinted it.
    pub fn arg_members(&self) -> Result<Vec<MemberHashes>, GuardError> {
        let Some(raw) = self.args_raw else {
            return Ok(Vec::new());
        };
        let mut discard = Discard;
        let mut sink = MemberSink::new(&mut discard);
        let mut reader = Reader::new(raw);
        reader
            .write_canonical(MAX_DEPTH, &KeepAll, &mut sink)
            .and_then(|()| reader.end())
            .map_err(|e| field_error(e, "args"))?;
        Ok(sink.members())
    }

    /// The string values of the top-level arguments named in `keys` (`json::top_strings`), the
    /// arguments checked as `args` checks them; absent arguments have none.
    pub fn arg_strings(&self, keys: &'static [&'static str]) -> Result<TopStrings<'_>, GuardError> {
        match self.args_raw {
            None => Ok(TopStrings::none(keys)),
            Some(raw) => TopStrings::read(raw, keys, MAX_DEPTH).map_err(|e| field_error(e, "args")),
        }
    }

    /// The parsed arguments; absent or `null` arguments are `{}`.
    pub fn args(&self) -> Result<Value, GuardError> {
        match self.args_raw.map(|r| json_field(r, "args")).transpose()? {
            None | Some(Value::Null) => Ok(Value::Object(Default::default())),
            Some(v) => Ok(v),
        }
    }
}

/// A call handed over field by field: the host separated the record's fields (the strings as
/// they are, `args` as JSON text), so nothing is parsed but the arguments. The same call as the
/// JSON record `{"runId", "tool", "args", "callId", "at"}` with these values.
#[derive(Debug, Clone, Copy)]
pub struct CallFields<'a> {
    /// `runId`; `None` for the default run.
    pub run_id: Option<&'a str>,
    /// `tool`.
    pub tool: &'a str,
    /// `callId`.
    pub call_id: Option<&'a str>,
    /// JSON text of the arguments; `None` when the record has none.
    pub args: Option<&'a str>,
    /// Non-finite times count as absent, as JSON (where they are `null`) has it.
    pub at: Option<f64>,
}

impl<'a> CallFields<'a> {
    /// The call, with the checks `parse_call` makes on the same fields.
    pub fn call(&self) -> Result<CallInput<'a>, GuardError> {
        check_tool_name(self.tool)?;
        let args_raw = self.args.filter(|r| *r != "null");
        Ok(CallInput {
            run_id: self.run_id.map(Cow::Borrowed),
            tool: Cow::Borrowed(self.tool),
            args_raw,
            args_text_hash: args_text_hash(args_raw),
            call_id: self.call_id.map(Cow::Borrowed),
            call_id_key: self.call_id.map(call_id_key),
            at: self.at.filter(|x| x.is_finite()),
        })
    }

    /// UTF-8 bytes handed over.
    pub fn byte_len(&self) -> usize {
        [self.run_id, Some(self.tool), self.call_id, self.args]
            .iter()
            .flatten()
            .map(|s| s.len())
            .sum()
    }
}

/// A call plus what came back.
#[derive(Debug, Clone)]
pub struct OutcomeInput<'a> {
    pub call: CallInput<'a>,
    pub result: Option<Value>,
    pub error: Option<Value>,
}

/// What came back from a call, as the engines receive it.
pub enum Returned<'a> {
    /// From a JSON record: its result and error, parsed (raw content, zeroed when dropped), and
    /// the text of its `textSide` part passed beside the JSON.
    Parsed {
        result: RawContent,
        error: RawContent,
        side_text: Option<&'a [u8]>,
    },
    /// Handed over field by field (a result without an error); `args_withheld`: the host left the
    /// arguments out, trusting the call id to find its checked call.
    Fields {
        result: &'a ResultFields<'a>,
        args_withheld: bool,
    },
}

/// An outcome record as the engines receive it: its call, what came back, and the time to use
/// when the record has no `at`.
pub struct ReceivedOutcome<'a> {
    pub call: CallInput<'a>,
    pub returned: Returned<'a>,
    pub now_ms: f64,
}

/// The raw JSON text of each field of a record (one well-formed pass over the whole record).
#[derive(Default)]
struct RawRecord<'a> {
    run_id: Option<&'a str>,
    tool: Option<&'a str>,
    args: Option<&'a str>,
    call_id: Option<&'a str>,
    at: Option<&'a str>,
    /// `result` and `error`, parsed in the same pass (or the field-named error of their value).
    result: Option<Result<Value, GuardError>>,
    error: Option<Result<Value, GuardError>>,
}

pub fn parse_call(text: &str, max_bytes: u32) -> Result<CallInput<'_>, GuardError> {
    check_size(text, max_bytes)?;
    let raw = parse_raw(text)?;
    if raw.result.is_some() || raw.error.is_some() {
        let field = if raw.result.is_some() {
            "result"
        } else {
            "error"
        };
        return Err(GuardError::record(
            Some(field),
            format!("{field} belongs in record(), not in check()"),
        ));
    }
    call_fields(&raw)
}

pub fn parse_outcome(text: &str, max_bytes: u32) -> Result<OutcomeInput<'_>, GuardError> {
    check_size(text, max_bytes)?;
    let raw = parse_raw(text)?;
    let call = call_fields(&raw)?;
    Ok(OutcomeInput {
        call,
        result: raw.result.transpose()?,
        error: raw.error.transpose()?,
    })
}

/// Size and shape checks before any parsing: only a JSON object is a record.
fn check_size(text: &str, max_bytes: u32) -> Result<(), GuardError> {
    if !text.trim_start().starts_with('{') {
        return Err(GuardError::record(None, "a record must be a JSON object"));
    }
    if text.len() > max_bytes as usize {
        return Err(GuardError::new(
            ErrorCode::TooLarge,
            None,
            format!(
                "record is {} bytes, larger than maxRecordBytes ({max_bytes})",
                text.len()
            ),
        ));
    }
    Ok(())
}

/// Locates the fields: unknown and repeated fields are refused (in document order), every value
/// is checked to be well-formed JSON (at any depth: nesting limits are per field, later).
fn parse_raw(text: &str) -> Result<RawRecord<'_>, GuardError> {
    let syntax = |e: JsonError| {
        let what = match e {
            JsonError::Syntax(what) => what,
            JsonError::TooDeep => "nested too deep".to_owned(),
        };
        GuardError::record(None, format!("record is not valid JSON: {what}"))
    };
    let mut raw = RawRecord::default();
    let mut reader = Reader::new(text);
    reader.expect(b'{').map_err(syntax)?;
    if !reader.eat(b'}') {
        loop {
            reader.skip_ws();
            let key = reader.string().map_err(syntax)?;
            if let Some((field, slot)) = match &*key {
                "result" => Some(("result", &mut raw.result)),
                "error" => Some(("error", &mut raw.error)),
                _ => None,
            } {
                if slot.is_some() {
                    return Err(GuardError::record(
                        Some(field),
                        format!("field \"{field}\" appears twice"),
                    ));
                }
                reader.expect(b':').map_err(syntax)?;
                *slot = Some(parsed_field(&mut reader, field).map_err(syntax)?);
                if reader.eat(b'}') {
                    break;
                }
                reader.expect(b',').map_err(syntax)?;
                continue;
            }
            let slot = match &*key {
                "runId" => &mut raw.run_id,
                "tool" => &mut raw.tool,
                "args" => &mut raw.args,
                "callId" => &mut raw.call_id,
                "at" => &mut raw.at,
                _ => {
                    return Err(GuardError::record(
                        Some(&key),
                        format!("unknown field \"{key}\"; a record has runId, tool, args, callId, at and (in record()) result or error"),
                    ))
                }
            };
            if slot.is_some() {
                return Err(GuardError::record(
                    Some(&key),
                    format!("field \"{key}\" appears twice"),
                ));
            }
            reader.expect(b':').map_err(syntax)?;
            reader.skip_ws();
            let start = reader.pos();
            reader.skim().map_err(syntax)?;
            *slot = Some(reader.since(start));
            if reader.eat(b'}') {
                break;
            }
            reader.expect(b',').map_err(syntax)?;
        }
    }
    reader.end().map_err(syntax)?;
    Ok(raw)
}

/// Parses a field's value where it stands. A value that is too deep (or holds a number out of
/// range) is still skimmed to its end, so a syntax error later in the record is what is reported
/// (as when every value is checked before any is parsed); its own error is kept for later.
fn parsed_field(reader: &mut Reader, field: &str) -> Result<Result<Value, GuardError>, JsonError> {
    reader.skip_ws();
    let start = reader.pos();
    match reader.value(MAX_DEPTH) {
        Ok(value) => Ok(Ok(value)),
        Err(e) => {
            reader.rewind(start);
            reader.skim()?;
            Ok(Err(field_error(e, field)))
        }
    }
}

fn call_fields<'a>(raw: &RawRecord<'a>) -> Result<CallInput<'a>, GuardError> {
    let Some(tool_raw) = raw.tool else {
        return Err(GuardError::record(Some("tool"), "tool is required"));
    };
    let tool = match text_field(tool_raw, "tool")? {
        Some(name) => {
            check_tool_name(&name)?;
            name
        }
        None => {
            let other = json_field(tool_raw, "tool")?;
            return Err(GuardError::record(
                Some("tool"),
                format!("tool must be a non-empty string, got {}", describe(&other)),
            ));
        }
    };
    let args_raw = raw.args.filter(|r| *r != "null");
    let args_text_hash = args_text_hash(args_raw);
    let at = match raw.at.map(|r| json_field(r, "at")).transpose()? {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => n.as_f64().filter(|x| x.is_finite()),
        Some(other) => {
            return Err(GuardError::record(
                Some("at"),
                format!(
                    "at must be a number of milliseconds, got {}",
                    describe(&other)
                ),
            ))
        }
    };
    let call_id = optional_string(raw.call_id, "callId")?;
    Ok(CallInput {
        run_id: optional_string(raw.run_id, "runId")?,
        tool,
        args_raw,
        args_text_hash,
        call_id_key: call_id.as_deref().map(call_id_key),
        call_id,
        at,
    })
}

/// A tool name is a non-empty string of at most `MAX_TOOL_NAME_BYTES`.
fn check_tool_name(name: &str) -> Result<(), GuardError> {
    if name.is_empty() {
        return Err(GuardError::record(
            Some("tool"),
            "tool must be a non-empty string",
        ));
    }
    if name.len() > MAX_TOOL_NAME_BYTES {
        return Err(GuardError::record(
            Some("tool"),
            format!(
                "tool name is {} bytes, longer than {MAX_TOOL_NAME_BYTES}",
                name.len()
            ),
        ));
    }
    Ok(())
}

/// The lookup key of the arguments' text (absent arguments are `{}`).
fn args_text_hash(args_raw: Option<&str>) -> u64 {
    crate::record::keys::text_key(args_raw.unwrap_or("{}").as_bytes())
}

/// The lookup key of a call id.
fn call_id_key(call_id: &str) -> u64 {
    crate::record::keys::fnv1a(call_id.as_bytes())
}

/// The string a field's raw JSON text holds, if it is one (borrowed when it has no escapes). An
/// identifier (tool, runId, callId) is echoed in verdicts, so unlike tool output it may not hold a
/// lone surrogate, which the core could not give back as it came.
fn text_field<'a>(raw: &'a str, field: &str) -> Result<Option<Cow<'a, str>>, GuardError> {
    let mut reader = Reader::new(raw);
    let Ok(text) = reader.string() else {
        return Ok(None);
    };
    if reader.end().is_err() {
        return Ok(None);
    }
    if reader.lone_surrogates() > 0 {
        return Err(GuardError::record(
            Some(field),
            format!(
                "{field} holds a lone UTF-16 surrogate; only tool output (args, result, error) may"
            ),
        ));
    }
    Ok(Some(text))
}

fn optional_string<'a>(
    raw: Option<&'a str>,
    field: &str,
) -> Result<Option<Cow<'a, str>>, GuardError> {
    let Some(raw) = raw else {
        return Ok(None);
    };
    if let Some(text) = text_field(raw, field)? {
        return Ok(Some(text));
    }
    match json_field(raw, field)? {
        Value::Null => Ok(None),
        other => Err(GuardError::record(
            Some(field),
            format!("{field} must be a string, got {}", describe(&other)),
        )),
    }
}

/// Parses one field's (well-formed) value, enforcing the nesting limit, so the error names the field.
fn json_field(raw: &str, field: &str) -> Result<Value, GuardError> {
    crate::json::reader::parse(raw, MAX_DEPTH).map_err(|e| field_error(e, field))
}

fn field_error(error: JsonError, field: &str) -> GuardError {
    match error {
        JsonError::TooDeep => GuardError::new(
            ErrorCode::TooDeep,
            Some(field),
            format!("{field} is nested deeper than {MAX_DEPTH} levels"),
        ),
        JsonError::Syntax(what) => {
            GuardError::record(Some(field), format!("{field} is not valid JSON: {what}"))
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn names_the_field_that_is_too_deep() {
        let nest = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
        let deep = format!("{{\"tool\":\"t\",\"args\":{}}}", nest(100_000));
        let err = parse_call(&deep, u32::MAX).unwrap().args().unwrap_err();
        assert_eq!(err.code, ErrorCode::TooDeep);
        assert_eq!(err.field.as_deref(), Some("args"));
        let ok = format!("{{\"tool\":\"t\",\"args\":{}}}", nest(MAX_DEPTH));
        assert!(parse_call(&ok, u32::MAX).unwrap().args().is_ok());
        let deep_result = format!("{{\"tool\":\"t\",\"result\":{}}}", nest(MAX_DEPTH + 1));
        let err = parse_outcome(&deep_result, u32::MAX).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("result"));
    }

    #[test]
    fn rejects_wrong_shapes_with_field_names() {
        let cases = [
            (r#"{"tool":5}"#, "tool"),
            (r#"{"tool":""}"#, "tool"),
            (r#"{"args":{}}"#, "tool"),
            (r#"{"tool":"t","runId":3}"#, "runId"),
            (r#"{"tool":"t","at":"now"}"#, "at"),
            (r#"{"tool":"t","arguments":{}}"#, "arguments"),
            (r#"{"tool":"t","result":1}"#, "result"),
        ];
        for (text, field) in cases {
            let err = parse_call(text, u32::MAX).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidRecord, "{text}");
            assert_eq!(err.field.as_deref(), Some(field), "{text}");
        }
        assert!(parse_call(r#"["r1","update_task",{}]"#, u32::MAX).is_err());
        assert_eq!(
            parse_call("[1]", u32::MAX).unwrap_err().code,
            ErrorCode::InvalidRecord
        );
        assert_eq!(
            parse_call("{", u32::MAX).unwrap_err().code,
            ErrorCode::InvalidRecord
        );
        assert_eq!(
            parse_call(r#"{"tool":"t"}"#, 5).unwrap_err().code,
            ErrorCode::TooLarge
        );
    }
}
