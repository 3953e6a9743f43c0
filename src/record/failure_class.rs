//! What kind of failure an outcome is, beyond being one: *transient* (an outage or a rate limit:
//! 429, 502, 503, 504, "overloaded", a reset connection, a network timeout), which waiting cures,
//! with the wait the service asked for when it said (`Retry-After`); or a *shared cause* that any
//! tool can hit (credentials, permissions, a full disk, a refused connection, an unknown host),
//! which no other tool will get around. Read from a failure's error message, its text parts (of
//! at most `MAX_SCANNED_TEXT_BYTES`, so every runtime reads alike) and its `details`.

use crate::json::float_parse::parse_decimal;
use crate::json::reader::parse;
use crate::record::input::MAX_DEPTH;
use crate::record::outcome::MAX_SCANNED_TEXT_BYTES;
use crate::record::outcome_fields::{ResultFields, TextField};
use crate::verdict::SharedCause;
use serde_json::{Map, Value};

/// Phrases (lower case) and status codes that name a shared cause.
fn marks(cause: SharedCause) -> (&'static [&'static str], &'static [u16]) {
    match cause {
        SharedCause::Unauthorized => (
            &[
                "unauthorized",
                "unauthenticated",
                "invalid api key",
                "invalid_api_key",
                "authentication failed",
                "invalid token",
                "token expired",
                "expired token",
            ],
            &[401],
        ),
        SharedCause::Forbidden => (
            &[
                "forbidden",
                "permission denied",
                "access denied",
                "eacces",
                "eperm",
                "operation not permitted",
            ],
            &[403],
        ),
        SharedCause::DiskFull => (
            &[
                "no space left on device",
                "enospc",
                "disk full",
                "quota exceeded",
            ],
            &[],
        ),
        SharedCause::ConnectionRefused => (&["econnrefused", "connection refused"], &[]),
        SharedCause::UnknownHost => (
            &[
                "enotfound",
                "could not resolve host",
                "name or service not known",
                "temporary failure in name resolution",
            ],
            &[],
        ),
    }
}

/// What a failure says of itself.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FailureClass {
    /// Waiting cures it; the wait the service asked for (ms), when it said.
    Transient { retry_after_ms: Option<f64> },
    /// Another tool would fail the same way.
    Shared(SharedCause),
}

/// Phrases (lower case) of transient failures, whatever the tool.
const TRANSIENT_PHRASES: &[&str] = &[
    "rate limit",
    "rate-limit",
    "ratelimit",
    "too many requests",
    "overloaded",
    "service unavailable",
    "temporarily unavailable",
    "bad gateway",
    "gateway timeout",
    "econnreset",
    "connection reset",
    "socket hang up",
    "etimedout",
    "eai_again",
    "try again later",
    "server is busy",
];
/// Phrases of a timeout: transient for a tool that reaches a service, not for a command runner
/// (a command that timed out will time out again).
const TIMEOUT_PHRASES: &[&str] = &["timed out", "timeout"];
/// Status codes of transient failures.
const TRANSIENT_STATUS: &[u16] = &[429, 502, 503, 504];
/// Members of `details` that carry an HTTP status.
const STATUS_KEYS: &[&str] = &["status", "statusCode", "status_code", "httpStatus", "code"];
/// Phrases after which a text gives the wait (`Retry-After: 30`, "try again in 1.5s").
const WAIT_PHRASES: &[&str] = &["retry-after", "retry after", "try again in", "retry in"];

/// The class of a failure made of these texts (longer than `MAX_SCANNED_TEXT_BYTES`: not read)
/// and `details`; `command`: the tool runs arbitrary commands (a timeout is then not transient).
pub fn classify(
    texts: &[&str],
    details: Option<&Map<String, Value>>,
    command: bool,
) -> Option<FailureClass> {
    let scanned = || {
        texts
            .iter()
            .copied()
            .filter(|t| t.len() <= MAX_SCANNED_TEXT_BYTES)
    };
    let status = details.and_then(status_of);
    let transient = status.is_some_and(|s| TRANSIENT_STATUS.contains(&s))
        || scanned().any(|text| {
            let text = text.as_bytes();
            any_phrase(text, TRANSIENT_PHRASES)
                || (!command && any_phrase(text, TIMEOUT_PHRASES))
                || TRANSIENT_STATUS.iter().any(|code| has_status(text, *code))
        });
    if transient {
        let retry_after_ms = details
            .and_then(retry_after_of_details)
            .or_else(|| scanned().find_map(|text| retry_after_of_text(text.as_bytes())));
        return Some(FailureClass::Transient { retry_after_ms });
    }
    SharedCause::ALL
        .into_iter()
        .find(|cause| {
            let (phrases, codes) = marks(*cause);
            status.is_some_and(|s| codes.contains(&s))
                || scanned().any(|text| {
                    let text = text.as_bytes();
                    any_phrase(text, phrases) || codes.iter().any(|code| has_status(text, *code))
                })
        })
        .map(FailureClass::Shared)
}

/// The class of a failed outcome given as JSON (`result` or, when it threw, `error`).
pub fn of_value(
    result: Option<&Value>,
    error: Option<&Value>,
    command: bool,
) -> Option<FailureClass> {
    let mut texts: Vec<&str> = Vec::new();
    let details = match (error.filter(|e| !e.is_null()), result) {
        (Some(Value::String(message)), _) => {
            texts.push(message);
            None
        }
        (Some(Value::Object(map)), _) => {
            // A thrown error's `code` names a system failure its message may not (`fetch failed`
            // with code `ECONNRESET`).
            texts.extend(
                ["message", "code"]
                    .into_iter()
                    .filter_map(|k| map.get(k)?.as_str()),
            );
            Some(map)
        }
        (Some(_), _) => return None,
        (None, Some(Value::String(text))) => {
            texts.push(text);
            None
        }
        (None, Some(Value::Object(map))) => {
            let parts = map.get("content").and_then(Value::as_array);
            texts.extend(
                parts
                    .into_iter()
                    .flatten()
                    .filter_map(|part| part.get("text").and_then(Value::as_str)),
            );
            texts.extend(
                ["error", "message"]
                    .into_iter()
                    .filter_map(|k| map.get(k)?.as_str()),
            );
            match map.get("details") {
                Some(Value::Object(details)) => Some(details),
                _ if parts.is_none() => Some(map),
                _ => None,
            }
        }
        (None, _) => return None,
    };
    classify(&texts, details, command)
}

/// The class of a failed result handed over field by field (its `details` as JSON text).
pub fn of_fields(result: &ResultFields, command: bool) -> Option<FailureClass> {
    let (texts, details): (Vec<&str>, Option<&str>) = match result {
        ResultFields::Absent => return None,
        ResultFields::Text(text) => (inline(text).into_iter().collect(), None),
        ResultFields::Parts { texts, details, .. } => {
            (texts.iter().filter_map(inline).collect(), *details)
        }
    };
    let parsed = details.and_then(|d| parse(d, MAX_DEPTH).ok());
    let details = match &parsed {
        Some(Value::Object(map)) => Some(map),
        _ => None,
    };
    classify(&texts, details, command)
}

/// A text handed over as it is (host-hashed ones are long and never read).
fn inline<'a>(text: &TextField<'a>) -> Option<&'a str> {
    match text {
        TextField::Text(text) => Some(text),
        TextField::Sha256Hex(_) => None,
    }
}

/// An HTTP status in `details` (a number, or digits in a string).
fn status_of(details: &Map<String, Value>) -> Option<u16> {
    STATUS_KEYS.iter().find_map(|key| match details.get(*key)? {
        Value::Number(n) => n.as_u64().and_then(|n| u16::try_from(n).ok()),
        Value::String(s) => digits_value(s.as_bytes()).and_then(|n| u16::try_from(n).ok()),
        _ => None,
    })
}

/// The wait `details` asks for: `retryAfterMs`/`retry_after_ms` in ms, `retryAfter`/
/// `retry_after`/`retryAfterSeconds` or a `retry-after` header in seconds.
fn retry_after_of_details(details: &Map<String, Value>) -> Option<f64> {
    let number = |value: &Value| match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => parse_decimal(s.trim()),
        _ => None,
    };
    let positive = |ms: f64| (ms.is_finite() && ms >= 0.0).then_some(ms);
    for key in ["retryAfterMs", "retry_after_ms"] {
        if let Some(ms) = details.get(key).and_then(number) {
            return positive(ms);
        }
    }
    for key in ["retryAfter", "retry_after", "retryAfterSeconds"] {
        if let Some(s) = details.get(key).and_then(number) {
            return positive(s * 1000.0);
        }
    }
    let headers = details.get("headers")?.as_object()?;
    let header = headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("retry-after"))?;
    number(header.1).and_then(|s| positive(s * 1000.0))
}

/// The wait a text asks for: a number after one of `WAIT_PHRASES` (and `:`, `=` or spaces), in
/// seconds unless followed by `ms` or `min`/`minute`.
fn retry_after_of_text(text: &[u8]) -> Option<f64> {
    WAIT_PHRASES.iter().find_map(|phrase| {
        let at = find_ci(text, phrase.as_bytes())? + phrase.len();
        let rest = text.get(at..)?;
        let start = rest
            .iter()
            .position(|b| !matches!(b, b' ' | b':' | b'=' | b'"' | b'\''))?;
        let number_bytes = rest.get(start..)?;
        let len = number_bytes
            .iter()
            .position(|b| !(b.is_ascii_digit() || *b == b'.'))
            .unwrap_or(number_bytes.len());
        let value = parse_decimal(std::str::from_utf8(number_bytes.get(..len)?).ok()?)?;
        let unit = trim_spaces(number_bytes.get(len..).unwrap_or_default());
        let factor = if starts_with_ci(unit, b"ms") || starts_with_ci(unit, b"millisecond") {
            1.0
        } else if starts_with_ci(unit, b"min") {
            60_000.0
        } else {
            1000.0
        };
        let ms = value * factor;
        (ms.is_finite() && ms >= 0.0).then_some(ms)
    })
}

/// Words one of which comes shortly before a status code ("HTTP 503", "status: 429",
/// "Error 401", "code=403"), so that a line number or a count is not read as one.
const STATUS_LEAD_WORDS: &[&str] = &["http", "status", "error", "code"];
/// How many bytes before a status code its lead word may start.
const STATUS_LEAD_BYTES: usize = 12;

/// Whether `text` holds `code` as a status: a number of its own (not inside a longer run of
/// digits) at the start of the text or shortly after a lead word.
#[inline(never)]
fn has_status(text: &[u8], code: u16) -> bool {
    let digits = [
        b'0' + (code / 100 % 10) as u8,
        b'0' + (code / 10 % 10) as u8,
        b'0' + (code % 10) as u8,
    ];
    text.windows(3).enumerate().any(|(i, window)| {
        window == digits
            && !i
                .checked_sub(1)
                .and_then(|j| text.get(j))
                .is_some_and(u8::is_ascii_digit)
            && !text.get(i + 3).is_some_and(u8::is_ascii_digit)
            && (i == 0
                || text
                    .get(i.saturating_sub(STATUS_LEAD_BYTES)..i)
                    .is_some_and(|lead| any_phrase(lead, STATUS_LEAD_WORDS)))
    })
}

// Not inlined: each call site would otherwise get its own unrolled copy per phrase list.
#[inline(never)]
fn any_phrase(text: &[u8], phrases: &[&str]) -> bool {
    phrases
        .iter()
        .any(|phrase| find_ci(text, phrase.as_bytes()).is_some())
}

/// Where `needle` (lower case ASCII) first occurs in `text`, ignoring ASCII case.
#[inline(never)]
fn find_ci(text: &[u8], needle: &[u8]) -> Option<usize> {
    text.windows(needle.len().max(1))
        .position(|window| window.eq_ignore_ascii_case(needle))
}

fn starts_with_ci(text: &[u8], prefix: &[u8]) -> bool {
    text.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

fn trim_spaces(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|b| *b != b' ').unwrap_or(bytes.len());
    bytes.get(start..).unwrap_or_default()
}

/// The value of a string that is only digits (at most 9).
fn digits_value(text: &[u8]) -> Option<u64> {
    if text.is_empty() || text.len() > 9 || !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(text.iter().fold(0u64, |n, b| n * 10 + u64::from(b - b'0')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(t: &str) -> Option<FailureClass> {
        classify(&[t], None, false)
    }

    #[test]
    fn transient_failures_and_their_waits() {
        let transient = |ms: Option<f64>| Some(FailureClass::Transient { retry_after_ms: ms });
        assert_eq!(text("Error: 503 Service Unavailable"), transient(None));
        assert_eq!(
            text("429 Too Many Requests. Retry-After: 30"),
            transient(Some(30_000.0))
        );
        assert_eq!(
            text("Rate limit reached. Please try again in 1.5s."),
            transient(Some(1500.0))
        );
        assert_eq!(
            text("rate-limited: retry after 250ms"),
            transient(Some(250.0))
        );
        assert_eq!(text("Error: read ECONNRESET"), transient(None));
        assert_eq!(text("The model is overloaded"), transient(None));
        assert_eq!(text("request timed out"), transient(None));
        assert_eq!(
            classify(&["Command timed out after 120 s"], None, true),
            None,
            "a command's timeout"
        );
        let details = json!({"statusCode": 429, "headers": {"Retry-After": "12"}});
        assert_eq!(
            classify(&["failed"], details.as_object(), false),
            transient(Some(12_000.0))
        );
        let details = json!({"status": "503", "retryAfterMs": 800});
        assert_eq!(
            classify(&["failed"], details.as_object(), false),
            transient(Some(800.0))
        );
        assert_eq!(
            text("Error: line 5030: bad input"),
            None,
            "a number that only contains 503"
        );
        assert_eq!(
            text("Traceback: File \"utils.py\", line 503, in execute"),
            None,
            "a line number is not a status"
        );
        assert_eq!(text("503"), transient(None));
        assert_eq!(text("upstream status=502"), transient(None));
    }

    #[test]
    fn thrown_errors_with_a_code_or_a_status() {
        let transient = Some(FailureClass::Transient {
            retry_after_ms: None,
        });
        let fetch_failed =
            json!({"name": "TypeError", "message": "fetch failed", "code": "ECONNRESET"});
        assert_eq!(of_value(None, Some(&fetch_failed), false), transient);
        let sdk = json!({"name": "RateLimitError", "message": "Rate limited", "status": 429, "headers": {"retry-after": "7"}});
        assert_eq!(
            of_value(None, Some(&sdk), false),
            Some(FailureClass::Transient {
                retry_after_ms: Some(7000.0)
            })
        );
        let refused = json!({"name": "Error", "message": "connect failed", "code": "ECONNREFUSED"});
        assert_eq!(
            of_value(None, Some(&refused), false),
            Some(FailureClass::Shared(SharedCause::ConnectionRefused))
        );
    }

    #[test]
    fn shared_causes() {
        let shared = |c| Some(FailureClass::Shared(c));
        assert_eq!(
            text("Error: 401 Unauthorized"),
            shared(SharedCause::Unauthorized)
        );
        assert_eq!(text("HTTP 403"), shared(SharedCause::Forbidden));
        assert_eq!(
            text("open /x: permission denied"),
            shared(SharedCause::Forbidden)
        );
        assert_eq!(
            text("write failed: No space left on device"),
            shared(SharedCause::DiskFull)
        );
        assert_eq!(
            text("connect ECONNREFUSED 127.0.0.1:5432"),
            shared(SharedCause::ConnectionRefused)
        );
        assert_eq!(
            text("getaddrinfo ENOTFOUND db.internal"),
            shared(SharedCause::UnknownHost)
        );
        assert_eq!(text("Error: order not found"), None);
        let long = format!("503 {}", "x".repeat(MAX_SCANNED_TEXT_BYTES));
        assert_eq!(text(&long), None, "long texts are not read");
    }
}
