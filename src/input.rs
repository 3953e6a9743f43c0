//! Parsing of call and outcome records from JSON text, with field-named, typed errors. Records are
//! untrusted: nothing here panics, and deep nesting or oversize text is refused before it costs much.

use crate::config::describe;
use crate::error::{ErrorCode, GuardError};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// The deepest nesting accepted in one field's value (serde_json's recursion limit).
pub const MAX_DEPTH: usize = 127;
/// Tool names longer than this are refused.
const MAX_TOOL_NAME_BYTES: usize = 1024;

/// A call as the host proposes it. The arguments stay raw JSON text until they are needed, so an
/// outcome whose call was already fingerprinted by `check` is not parsed and hashed again.
#[derive(Debug, Clone)]
pub struct CallInput<'a> {
    pub run_id: Option<String>,
    pub tool: String,
    args_raw: Option<&'a RawValue>,
    /// FNV-1a of the arguments' JSON text as sent (a lookup key, not a fingerprint).
    pub args_text_hash: u64,
    pub call_id: Option<String>,
    pub at: Option<f64>,
}

impl CallInput<'_> {
    /// The parsed arguments; absent or `null` arguments are `{}`.
    pub fn args(&self) -> Result<Value, GuardError> {
        match self.args_raw.map(|r| json_field(r, "args")).transpose()? {
            None | Some(Value::Null) => Ok(Value::Object(Default::default())),
            Some(v) => Ok(v),
        }
    }
}

/// A call plus what came back.
#[derive(Debug, Clone)]
pub struct OutcomeInput<'a> {
    pub call: CallInput<'a>,
    pub result: Option<Value>,
    pub error: Option<Value>,
}

/// FNV-1a, 64 bits: cheap keys for matching (call ids, argument texts), never shown or trusted
/// as fingerprints.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawRecord<'a> {
    #[serde(borrow, default)]
    run_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tool: Option<&'a RawValue>,
    #[serde(borrow, default)]
    args: Option<&'a RawValue>,
    #[serde(borrow, default)]
    call_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    at: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

/// The common case in one pass: a well-formed record with typed fields. Anything it rejects is
/// parsed again by the field-by-field path, which names the offending field.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WellFormed<'a> {
    #[serde(default)]
    run_id: Option<String>,
    tool: String,
    #[serde(borrow, default)]
    args: Option<&'a RawValue>,
    #[serde(default)]
    call_id: Option<String>,
    #[serde(default)]
    at: Option<f64>,
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
}

/// The outcome when `text` is a well-formed record, else `None`.
fn parse_well_formed(text: &str) -> Option<OutcomeInput<'_>> {
    let record: WellFormed = serde_json::from_str(text).ok()?;
    if record.tool.is_empty() || record.tool.len() > MAX_TOOL_NAME_BYTES {
        return None;
    }
    let args_raw = record.args.filter(|r| r.get() != "null");
    Some(OutcomeInput {
        call: CallInput {
            run_id: record.run_id,
            tool: record.tool,
            args_raw,
            args_text_hash: fnv1a(args_raw.map_or("{}", |r| r.get()).as_bytes()),
            call_id: record.call_id,
            at: record.at,
        },
        result: record.result,
        error: record.error,
    })
}

pub fn parse_call(text: &str, max_bytes: u32) -> Result<CallInput<'_>, GuardError> {
    check_size(text, max_bytes)?;
    if let Some(outcome) =
        parse_well_formed(text).filter(|o| o.result.is_none() && o.error.is_none())
    {
        return Ok(outcome.call);
    }
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
    if let Some(outcome) = parse_well_formed(text) {
        return Ok(outcome);
    }
    let raw = parse_raw(text)?;
    let call = call_fields(&raw)?;
    Ok(OutcomeInput {
        call,
        result: raw.result.map(|r| json_field(r, "result")).transpose()?,
        error: raw.error.map(|r| json_field(r, "error")).transpose()?,
    })
}

/// Size and shape checks before any parsing: serde would also read a JSON array as a record
/// (field by position), so anything but an object is refused here.
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

/// The field-by-field path: skims the record, then parses each field with its own error.
fn parse_raw(text: &str) -> Result<RawRecord<'_>, GuardError> {
    serde_json::from_str::<RawRecord>(text).map_err(|e| translate(&e))
}

fn translate(error: &serde_json::Error) -> GuardError {
    let message = error.to_string();
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let name = rest.split('`').next().unwrap_or("");
        return GuardError::record(
            Some(name),
            format!("unknown field {name:?}; a record has runId, tool, args, callId, at and (in record()) result or error"),
        );
    }
    if let Some(rest) = message.strip_prefix("duplicate field `") {
        let name = rest.split('`').next().unwrap_or("");
        return GuardError::record(Some(name), format!("field {name:?} appears twice"));
    }
    if message.starts_with("invalid type") {
        return GuardError::record(None, "a record must be a JSON object");
    }
    GuardError::record(None, format!("record is not valid JSON: {message}"))
}

fn call_fields<'a>(raw: &RawRecord<'a>) -> Result<CallInput<'a>, GuardError> {
    let tool = match raw.tool.map(|r| json_field(r, "tool")).transpose()? {
        Some(Value::String(s)) if !s.is_empty() && s.len() <= MAX_TOOL_NAME_BYTES => s,
        Some(Value::String(s)) if s.is_empty() => {
            return Err(GuardError::record(
                Some("tool"),
                "tool must be a non-empty string",
            ))
        }
        Some(Value::String(s)) => {
            return Err(GuardError::record(
                Some("tool"),
                format!(
                    "tool name is {} bytes, longer than {MAX_TOOL_NAME_BYTES}",
                    s.len()
                ),
            ))
        }
        Some(other) => {
            return Err(GuardError::record(
                Some("tool"),
                format!("tool must be a non-empty string, got {}", describe(&other)),
            ))
        }
        None => return Err(GuardError::record(Some("tool"), "tool is required")),
    };
    let args_raw = raw.args.filter(|r| r.get() != "null");
    let args_text_hash = fnv1a(args_raw.map_or("{}", |r| r.get()).as_bytes());
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
    Ok(CallInput {
        run_id: optional_string(raw.run_id, "runId")?,
        tool,
        args_raw,
        args_text_hash,
        call_id: optional_string(raw.call_id, "callId")?,
        at,
    })
}

fn optional_string(raw: Option<&RawValue>, field: &str) -> Result<Option<String>, GuardError> {
    match raw.map(|r| json_field(r, field)).transpose()? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(GuardError::record(
            Some(field),
            format!("{field} must be a string, got {}", describe(&other)),
        )),
    }
}

/// Parses one field. The record-level parse only skims nested values (without recursion), so the
/// nesting limit is enforced here, per field, which lets the error name the field.
fn json_field(raw: &RawValue, field: &str) -> Result<Value, GuardError> {
    serde_json::from_str(raw.get()).map_err(|e| {
        if e.to_string().starts_with("recursion limit exceeded") {
            GuardError::new(
                ErrorCode::TooDeep,
                Some(field),
                format!("{field} is nested deeper than {MAX_DEPTH} levels"),
            )
        } else {
            GuardError::record(Some(field), format!("{field} is not valid JSON: {e}"))
        }
    })
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
