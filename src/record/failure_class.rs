//! What kind of failure an outcome is, beyond being one: *transient* (an outage or a rate limit:
//! 429, 502, 503, 504, "overloaded", a reset connection, a network timeout), which waiting cures,
//! with the wait the service asked for when it said (`Retry-After`); or a *shared cause* that any
//! tool can hit (credentials, permissions, a full disk, a refused connection, an unknown host),
//! which no other tool will get around. Read from a failure's error message, its text parts (of
//! at most `MAX_SCANNED_TEXT_BYTES`, so every runtime reads alike) and its `details`.
//!
//! Only a failure's own words count (`own_words`): the first line of each text (a JSON text whole,
//! a Python traceback's last line too), and phrases as whole words. Code or file contents a
//! failure quotes below its first line (an editor's "this is how your edit would have looked",
//! `def _find_overloaded_signatures(…)`) say nothing of the failure.

use crate::json::float_parse::parse_decimal;
use crate::json::reader::parse;
use crate::record::ascii::{find_ci, starts_with_ci};
use crate::record::input::MAX_DEPTH;
use crate::record::outcome::MAX_SCANNED_TEXT_BYTES;
use crate::record::outcome_fields::{ResultFields, TextField};
use crate::verdict::SharedCause;
use serde_json::{Map, Value};

/// What a failure says of itself.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FailureClass {
    /// Waiting cures it; the wait the service asked for (ms), when it said.
    Transient { retry_after_ms: Option<f64> },
    /// Another tool would fail the same way.
    Shared(SharedCause),
}

/// What a phrase or a status in a failure marks.
#[derive(Debug, Clone, Copy)]
enum Mark {
    /// An outage or a rate limit, whatever the tool.
    Transient,
    /// A timeout: transient for a tool that reaches a service, not for a command runner (a
    /// command that timed out will time out again).
    Timeout,
    Cause(SharedCause),
}

/// Phrases (lower case ASCII, at least two bytes) of failures, and what each marks.
const PHRASES: &[(&str, Mark)] = &[
    ("rate limit", Mark::Transient),
    ("rate-limit", Mark::Transient),
    ("ratelimit", Mark::Transient),
    ("too many requests", Mark::Transient),
    ("overloaded", Mark::Transient),
    ("service unavailable", Mark::Transient),
    ("temporarily unavailable", Mark::Transient),
    ("bad gateway", Mark::Transient),
    ("gateway timeout", Mark::Transient),
    ("econnreset", Mark::Transient),
    ("connection reset", Mark::Transient),
    ("socket hang up", Mark::Transient),
    ("etimedout", Mark::Transient),
    ("eai_again", Mark::Transient),
    ("try again later", Mark::Transient),
    ("server is busy", Mark::Transient),
    ("timed out", Mark::Timeout),
    ("timeout", Mark::Timeout),
    ("unauthorized", Mark::Cause(SharedCause::Unauthorized)),
    ("unauthenticated", Mark::Cause(SharedCause::Unauthorized)),
    ("invalid api key", Mark::Cause(SharedCause::Unauthorized)),
    ("invalid_api_key", Mark::Cause(SharedCause::Unauthorized)),
    (
        "authentication failed",
        Mark::Cause(SharedCause::Unauthorized),
    ),
    ("invalid token", Mark::Cause(SharedCause::Unauthorized)),
    ("token expired", Mark::Cause(SharedCause::Unauthorized)),
    ("expired token", Mark::Cause(SharedCause::Unauthorized)),
    ("forbidden", Mark::Cause(SharedCause::Forbidden)),
    ("permission denied", Mark::Cause(SharedCause::Forbidden)),
    ("access denied", Mark::Cause(SharedCause::Forbidden)),
    ("eacces", Mark::Cause(SharedCause::Forbidden)),
    ("eperm", Mark::Cause(SharedCause::Forbidden)),
    (
        "operation not permitted",
        Mark::Cause(SharedCause::Forbidden),
    ),
    (
        "no space left on device",
        Mark::Cause(SharedCause::DiskFull),
    ),
    ("enospc", Mark::Cause(SharedCause::DiskFull)),
    ("disk full", Mark::Cause(SharedCause::DiskFull)),
    ("quota exceeded", Mark::Cause(SharedCause::DiskFull)),
    ("econnrefused", Mark::Cause(SharedCause::ConnectionRefused)),
    (
        "connection refused",
        Mark::Cause(SharedCause::ConnectionRefused),
    ),
    ("enotfound", Mark::Cause(SharedCause::UnknownHost)),
    (
        "could not resolve host",
        Mark::Cause(SharedCause::UnknownHost),
    ),
    (
        "name or service not known",
        Mark::Cause(SharedCause::UnknownHost),
    ),
    (
        "temporary failure in name resolution",
        Mark::Cause(SharedCause::UnknownHost),
    ),
];
/// HTTP statuses of failures, and what each marks.
const STATUSES: &[(u16, Mark)] = &[
    (429, Mark::Transient),
    (502, Mark::Transient),
    (503, Mark::Transient),
    (504, Mark::Transient),
    (401, Mark::Cause(SharedCause::Unauthorized)),
    (403, Mark::Cause(SharedCause::Forbidden)),
];

/// Words one of which comes shortly before a status code ("HTTP 503", "status: 429",
/// "Error 401", "code=403"), so that a line number or a count is not read as one.
const STATUS_LEAD_WORDS: &[&str] = &["http", "status", "error", "code"];
/// How many bytes before a status code its lead word may start.
const STATUS_LEAD_BYTES: usize = 12;

/// Bits of `pair_slot` of the first two bytes of every phrase: a text position whose two bytes
/// (lower-cased) have no bit set starts no phrase, so most positions are passed over after one
/// table lookup and the text is read once, not once per phrase.
const PHRASE_STARTS: [u64; 16] = phrase_starts();

/// For each lower-case ASCII letter, the bits (indexes into `PHRASES`) of the phrases that start
/// with it: a position that passes `PHRASE_STARTS` is compared with those phrases only.
const PHRASES_BY_LETTER: [u64; 26] = phrases_by_letter();

/// A slot (0..1024) for two lower-case bytes.
const fn pair_slot(first: u8, second: u8) -> usize {
    (first as usize * 31 + second as usize) & 1023
}

// Evaluated at compile time: an index out of bounds fails the build, never a run.
#[allow(clippy::indexing_slicing)]
const fn phrase_starts() -> [u64; 16] {
    let mut bits = [0u64; 16];
    let mut i = 0;
    while i < PHRASES.len() {
        let phrase = PHRASES[i].0.as_bytes();
        let slot = pair_slot(phrase[0], phrase[1]);
        bits[slot / 64] |= 1 << (slot % 64);
        i += 1;
    }
    bits
}

// Evaluated at compile time: more than 64 phrases, or one that does not start with a lower-case
// letter, fails the build.
#[allow(clippy::indexing_slicing)]
const fn phrases_by_letter() -> [u64; 26] {
    assert!(PHRASES.len() <= 64);
    let mut bits = [0u64; 26];
    let mut i = 0;
    while i < PHRASES.len() {
        let first = PHRASES[i].0.as_bytes()[0];
        assert!(first.is_ascii_lowercase());
        bits[(first - b'a') as usize] |= 1 << i;
        i += 1;
    }
    bits
}

/// What a failure's texts and details mark, gathered in one pass over each text.
#[derive(Debug, Default)]
struct Marks {
    transient: bool,
    timeout: bool,
    /// Bit `code` set for each cause.
    causes: u8,
}

impl Marks {
    fn add(&mut self, mark: Mark) {
        match mark {
            Mark::Transient => self.transient = true,
            Mark::Timeout => self.timeout = true,
            Mark::Cause(cause) => self.causes |= 1 << cause.code(),
        }
    }

    fn add_status(&mut self, status: u16) {
        if let Some(mark) = status_mark(status) {
            self.add(mark);
        }
    }

    /// Reads one failure text's own words (`own_words`).
    fn scan_own_words(&mut self, text: &[u8]) {
        for words in own_words(text) {
            self.scan(words);
        }
    }

    /// Reads one text: its phrases (whole words), and its statuses (a number of three digits of
    /// its own, at the start of the text or shortly after a lead word).
    fn scan(&mut self, text: &[u8]) {
        for (i, &byte) in text.iter().enumerate() {
            let first = byte.to_ascii_lowercase();
            if first.is_ascii_digit() {
                self.scan_status(text, i);
                continue;
            }
            let Some(second) = text.get(i + 1).map(u8::to_ascii_lowercase) else {
                break;
            };
            let slot = pair_slot(first, second);
            let maybe = PHRASE_STARTS
                .get(slot / 64)
                .is_some_and(|bits| bits & (1 << (slot % 64)) != 0);
            if !maybe {
                continue;
            }
            let letter = usize::from(first.wrapping_sub(b'a'));
            let mut candidates = PHRASES_BY_LETTER.get(letter).copied().unwrap_or(0);
            while candidates != 0 {
                let index = candidates.trailing_zeros() as usize;
                candidates &= candidates - 1;
                let Some((phrase, mark)) = PHRASES.get(index) else {
                    break;
                };
                let phrase = phrase.as_bytes();
                if phrase.get(1) == Some(&second)
                    && text
                        .get(i..i + phrase.len())
                        .is_some_and(|here| here.eq_ignore_ascii_case(phrase))
                    && is_whole_word(text, i, i + phrase.len())
                {
                    self.add(*mark);
                }
            }
        }
    }

    /// A status starting at `i`, if one does.
    fn scan_status(&mut self, text: &[u8], i: usize) {
        let digit = |at: usize| text.get(at).filter(|b| b.is_ascii_digit());
        let after_digit = i.checked_sub(1).and_then(digit).is_some();
        let (Some(a), Some(b), Some(c)) = (digit(i), digit(i + 1), digit(i + 2)) else {
            return;
        };
        if after_digit || digit(i + 3).is_some() {
            return;
        }
        let value = |d: &u8| u16::from(d - b'0');
        // Most numbers (line numbers, counts) are no status of a failure: their lead is not read.
        let Some(mark) = status_mark(value(a) * 100 + value(b) * 10 + value(c)) else {
            return;
        };
        let led = i == 0
            || text
                .get(i.saturating_sub(STATUS_LEAD_BYTES)..i)
                .is_some_and(|lead| any_phrase(lead, STATUS_LEAD_WORDS));
        if led {
            self.add(mark);
        }
    }
}

/// The parts of a failure text that are its own words: its first non-blank line; and, for a Python
/// traceback (whose own words come last, after the quoted code of each frame), its last non-blank
/// line. A text that is JSON (it starts with `{` or `[`) is a service's error object: all of it.
fn own_words(text: &[u8]) -> [&[u8]; 2] {
    let mut lines = text
        .split(|b| *b == b'\n')
        .map(trim_ascii_space)
        .filter(|line| !line.is_empty());
    let first = lines.next().unwrap_or_default();
    if first.starts_with(b"{") || first.starts_with(b"[") {
        return [text, &[]];
    }
    let last = match starts_with_ci(first, b"Traceback (most recent call last)") {
        true => lines.next_back().unwrap_or_default(),
        false => &[],
    };
    [first, last]
}

/// Endings a phrase may take and stay the same word (`rate limited`, `timeouts`).
const INFLECTIONS: &[&str] = &["s", "d", "ed", "ing"];

/// Whether `text[start..end]` is a whole word (or words), possibly inflected (`INFLECTIONS`): no
/// letter, digit or `_` right before or after it, except at a change from lower to upper case
/// (`RateLimitError`, `fetchTimeout`). Not inlined: it is asked only where a phrase matched.
#[inline(never)]
fn is_whole_word(text: &[u8], start: usize, end: usize) -> bool {
    let inflected = |ending: &&str| {
        starts_with_ci(text.get(end..).unwrap_or_default(), ending.as_bytes())
            && ends_word(text, end + ending.len())
    };
    starts_word(text, start) && (ends_word(text, end) || INFLECTIONS.iter().any(inflected))
}

/// Whether a word starts at `start` (see `is_whole_word`).
fn starts_word(text: &[u8], start: usize) -> bool {
    let before = start.checked_sub(1).and_then(|i| text.get(i));
    !before.is_some_and(is_word_byte) || camel_step(before, text.get(start))
}

/// Whether a word ends before `end` (see `is_whole_word`).
fn ends_word(text: &[u8], end: usize) -> bool {
    let after = text.get(end);
    !after.is_some_and(is_word_byte)
        || camel_step(end.checked_sub(1).and_then(|i| text.get(i)), after)
}

fn is_word_byte(byte: &u8) -> bool {
    byte.is_ascii_alphanumeric() || *byte == b'_'
}

/// A lower-case letter or a digit followed by an upper-case letter.
fn camel_step(before: Option<&u8>, after: Option<&u8>) -> bool {
    before.is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && after.is_some_and(u8::is_ascii_uppercase)
}

fn trim_ascii_space(line: &[u8]) -> &[u8] {
    let start = line
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(line.len());
    let end = line
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |i| i + 1);
    line.get(start..end).unwrap_or_default()
}

/// What an HTTP status marks, if it is one of `STATUSES`.
fn status_mark(status: u16) -> Option<Mark> {
    STATUSES
        .iter()
        .find(|(code, _)| *code == status)
        .map(|(_, mark)| *mark)
}

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
    let mut marks = Marks::default();
    for text in scanned() {
        marks.scan_own_words(text.as_bytes());
    }
    if let Some(status) = details.and_then(status_of) {
        marks.add_status(status);
    }
    if marks.transient || (marks.timeout && !command) {
        let retry_after_ms = details
            .and_then(retry_after_of_details)
            .or_else(|| scanned().find_map(|text| retry_after_of_text(text.as_bytes())));
        return Some(FailureClass::Transient { retry_after_ms });
    }
    SharedCause::ALL
        .into_iter()
        .find(|cause| marks.causes & (1 << cause.code()) != 0)
        .map(FailureClass::Shared)
}

/// The class of a failed outcome given as JSON (`result` or, when it threw, `error`).
#[inline(never)]
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
#[inline(never)]
pub fn of_fields(result: &ResultFields, command: bool) -> Option<FailureClass> {
    let (texts, details): (Vec<&str>, Option<&str>) = match result {
        ResultFields::Absent => return None,
        ResultFields::Text(text) => (inline(text).into_iter().collect(), None),
        ResultFields::Parts { texts, details, .. } => {
            (texts.iter().filter_map(inline).collect(), *details)
        }
        // As `of_value` reads a thrown string or `{name, message}`: the message.
        ResultFields::Error { message, .. } => (inline(message).into_iter().collect(), None),
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

// Not inlined: each call site would otherwise get its own unrolled copy per phrase list.
#[inline(never)]
fn any_phrase(text: &[u8], phrases: &[&str]) -> bool {
    phrases
        .iter()
        .any(|phrase| find_ci(text, phrase.as_bytes()).is_some())
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
    fn only_a_failures_own_words_count() {
        let transient = Some(FailureClass::Transient {
            retry_after_ms: None,
        });
        // An editor's failure quoting the file: the identifier is not the failure's word.
        let edit = "Your proposed edit has introduced new syntax error(s). Please read this error \
                    message carefully and then retry editing the file.\nERRORS:\n- E999 \
                    IndentationError: unexpected indent\n\nThis is how your edit would have \
                    looked if applied\n-------------------------------------------------\n\
                    [File: /repo/mypy/checker.py (7010 lines total)]\n\
                    (1250 more lines above)\n1251:    def _find_overloaded_signatures(self):\n";
        assert_eq!(text(edit), None);
        // Whole words only, on the first line too.
        assert_eq!(text("Error: _find_overloaded_signatures failed"), None);
        assert_eq!(text("Error: no such method set_timeout_ms"), None);
        // Below the first line, even whole words are quoted content.
        assert_eq!(
            text("Error: syntax error\n  12: if rate limit exceeded: wait()"),
            None
        );
        assert_eq!(
            text("cat: f.py: No such file or directory\ntimeout = 30"),
            None
        );
        // Real outages still classify: by their first line, a JSON error object, a camel-cased
        // exception name, a traceback's last line.
        assert_eq!(
            text("Error: 503 Service Unavailable\n<html>…</html>"),
            transient
        );
        assert_eq!(text("Overloaded"), transient);
        assert_eq!(
            text("{\n  \"type\": \"error\",\n  \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}\n}"),
            transient
        );
        assert_eq!(text("openai.RateLimitError: Error code: 429"), transient);
        assert_eq!(text("ReadTimeoutError: read timed out"), transient);
        assert_eq!(
            text(
                "Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\n    \
                  x = client.overloaded_call()\nrequests.exceptions.HTTPError: 503 Server Error"
            ),
            transient
        );
        assert_eq!(
            text(
                "Traceback (most recent call last):\n  File \"a.py\", line 3\n    \
                  raise Timeout()\nValueError: bad input"
            ),
            None
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
