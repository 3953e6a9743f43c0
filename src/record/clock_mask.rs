//! Clock values in a poll's result. A poll of a running process answers the same thing with a new
//! time each time: Claude Code's `BashOutput` ends every answer with a `<timestamp>` of its own,
//! Codex reports `Wall time: 3.0021 seconds`, logs stamp each line. Only the clock moved, so a
//! poll's texts are hashed with these values masked (`put_clockless`); the rest of the result
//! (status, exit code, output) is compared as it is, so a finished process or new output is new.
//! Only polls pay for this scan (`outcome::Framing::Clockless`); other tools' texts keep their
//! times (a file listing whose times changed did change).
//!
//! What is a clock value (ASCII, case-insensitive words):
//! - the content of a `<timestamp>…</timestamp>` element;
//! - a date-time: `2025-12-01T04:48:27.908Z`, `2025-12-01 04:48:27,123`, `2025/12/01 04:48`, with
//!   an optional zone (`Z`, `+02:00`, `-0500`); a date alone is not one;
//! - a time of day with seconds: `04:48:27`, `4:48:27.5` (not `12:03`: a ratio or a line:column);
//! - an elapsed time: a number after one of `DURATION_WORDS` (`elapsed`, `duration`, `runtime`,
//!   `uptime`, `wall time`, `took`, `running for`, …, also as the start of a key such as
//!   `durationMs`/`elapsed_s`) and its separator, when a time unit follows the number (`12.5s`,
//!   `3 seconds`, `1m 30s`) or the separator is `:`/`=`; or such a number with its unit right
//!   before the word (`12s elapsed`);
//! - an epoch time: 10 or 13 digits (starting with `1`: 2001–2033) after a key naming a time
//!   (`ts`, or ending in `time`, `timestamp`, `_ts`, `date`, `_at`/`At`, `created`, `updated`) and
//!   `:`/`=`.

use crate::json::digest::ByteSink;

/// Words after which (or right before which) a number with a time unit is an elapsed time.
const DURATION_WORDS: &[&str] = &[
    "elapsed",
    "duration",
    "runtime",
    "uptime",
    "wall time",
    "walltime",
    "wall_time",
    "took",
    "running for",
    "ran for",
    "waited",
];

/// Time units after an elapsed time's number (longest first where one starts another).
const TIME_UNITS: &[&str] = &[
    "milliseconds",
    "millisecond",
    "ms",
    "seconds",
    "second",
    "secs",
    "sec",
    "s",
    "minutes",
    "minute",
    "mins",
    "min",
    "m",
    "hours",
    "hour",
    "hrs",
    "hr",
    "h",
];

/// Endings (lower case) of keys whose 10- or 13-digit value is an epoch time.
const TIME_KEY_ENDINGS: &[&str] = &[
    "time",
    "timestamp",
    "_ts",
    "date",
    "_at",
    "created",
    "updated",
];

/// Stands for a masked clock value.
const CLOCK_MARK: u8 = 0xFA;
/// Ends a text framed with its clock values masked.
const END_MARK: u8 = 0xFF;

/// Frames a poll's text (at most `MAX_SCANNED_TEXT_BYTES`): as `outcome::put_text` frames it
/// exactly (`t`, its length, its bytes) when it holds no clock value, else `k`, the text with each
/// clock value replaced by `CLOCK_MARK`, and `END_MARK` (neither byte occurs in UTF-8). Not
/// inlined: only polls pay for it, in time and in the callers' code.
#[inline(never)]
pub fn put_clockless(text: &[u8], sink: &mut dyn ByteSink) {
    let spans = clock_spans(text);
    if spans.is_empty() {
        let len = u32::try_from(text.len()).unwrap_or(u32::MAX);
        sink.put(b"t");
        sink.put(&len.to_le_bytes());
        sink.put(text);
        return;
    }
    sink.put(b"k");
    let mut copied = 0;
    for (start, end) in spans {
        sink.put(text.get(copied..start).unwrap_or_default());
        sink.put(&[CLOCK_MARK]);
        copied = end;
    }
    sink.put(text.get(copied..).unwrap_or_default());
    sink.put(&[END_MARK]);
}

/// The clock values of `text`, as ordered, disjoint byte ranges `(start, end)`.
pub fn clock_spans(text: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let found = match text.get(i) {
            Some(b'<') => timestamp_element(text, i),
            Some(b) if b.is_ascii_digit() && starts_number(text, i) => {
                date_time(text, i).or_else(|| time_of_day(text, i))
            }
            Some(b) if b.is_ascii_alphabetic() && !after_word_byte(text, i) => keyed_value(text, i),
            _ => None,
        };
        match found {
            Some((start, end)) if end > i => {
                // A number before a duration word (`12s elapsed`) starts before the word.
                match spans.last_mut() {
                    Some((_, last_end)) if start < *last_end => *last_end = end,
                    _ => spans.push((start, end)),
                }
                i = end;
            }
            Some((start, end)) => {
                if spans.last().is_none_or(|&(_, last_end)| start >= last_end) {
                    spans.push((start, end));
                }
                i += 1;
            }
            None => i += 1,
        }
    }
    spans
}

/// Whether the byte before `i` is a letter, a digit or `_` (`i` is inside a word).
fn after_word_byte(text: &[u8], i: usize) -> bool {
    i.checked_sub(1)
        .and_then(|j| text.get(j))
        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

/// Whether a number may start at `i`: not inside a word, nor after `:` or `.` (the rest of
/// `1:23:45:67` or of a version `10.2.3`).
fn starts_number(text: &[u8], i: usize) -> bool {
    !after_word_byte(text, i)
        && !i
            .checked_sub(1)
            .and_then(|j| text.get(j))
            .is_some_and(|b| matches!(b, b':' | b'.'))
}

/// The number of ASCII digits at `i` (at most `max + 1`, so a longer run is seen as such).
fn digits_at(text: &[u8], i: usize, max: usize) -> usize {
    text.get(i..)
        .unwrap_or_default()
        .iter()
        .take(max + 1)
        .take_while(|b| b.is_ascii_digit())
        .count()
}

fn byte_is(text: &[u8], i: usize, wanted: &[u8]) -> bool {
    text.get(i).is_some_and(|b| wanted.contains(b))
}

/// The first of `words` that `text` holds at `i` (ignoring ASCII case) and that `ends` accepts
/// (given where the word ends). Not inlined: each word list would otherwise get its own unrolled
/// copy.
#[inline(never)]
fn word_at(
    text: &[u8],
    i: usize,
    words: &[&'static str],
    ends: fn(&[u8], usize) -> bool,
) -> Option<&'static str> {
    words
        .iter()
        .copied()
        .find(|word| starts_with_ci(text, i, word.as_bytes()) && ends(text, i + word.len()))
}

/// Any end (`word_at`).
fn anywhere(_: &[u8], _: usize) -> bool {
    true
}

/// An end not followed by a letter (`word_at`).
fn before_non_letter(text: &[u8], end: usize) -> bool {
    !text.get(end).is_some_and(u8::is_ascii_alphabetic)
}

/// Whether `word` is one of `words`, ignoring ASCII case (not inlined, as `word_at`).
#[inline(never)]
fn is_one_of(word: &[u8], words: &[&str]) -> bool {
    words
        .iter()
        .any(|w| w.len() == word.len() && starts_with_ci(word, 0, w.as_bytes()))
}

/// Whether `key` ends with one of `endings`, ignoring ASCII case (not inlined, as `word_at`).
#[inline(never)]
fn ends_with_any(key: &[u8], endings: &[&str]) -> bool {
    endings.iter().any(|ending| {
        key.len()
            .checked_sub(ending.len())
            .is_some_and(|at| starts_with_ci(key, at, ending.as_bytes()))
    })
}

/// Whether `text` holds `word` at `i`, ignoring ASCII case (a plain loop: small code).
#[inline(never)]
fn starts_with_ci(text: &[u8], i: usize, word: &[u8]) -> bool {
    text.get(i..i + word.len()).is_some_and(|here| {
        here.iter()
            .zip(word)
            .all(|(a, b)| a.eq_ignore_ascii_case(b))
    })
}

/// `<timestamp>…</timestamp>` at `i`: the element's content (at most 64 bytes).
fn timestamp_element(text: &[u8], i: usize) -> Option<(usize, usize)> {
    const OPEN: &[u8] = b"<timestamp>";
    const CLOSE: &[u8] = b"</timestamp>";
    if !starts_with_ci(text, i, OPEN) {
        return None;
    }
    let start = i + OPEN.len();
    let content = (0..=64).find(|&n| starts_with_ci(text, start + n, CLOSE))?;
    Some((start, start + content))
}

/// A date-time at `i`: `YYYY-MM-DD` (or `/`), `T` or a space, a time of day with at least hours
/// and minutes, an optional zone.
fn date_time(text: &[u8], i: usize) -> Option<(usize, usize)> {
    let sep = *text.get(i + 4)?;
    let date = digits_at(text, i, 4) == 4
        && matches!(sep, b'-' | b'/')
        && digits_at(text, i + 5, 2) == 2
        && text.get(i + 7) == Some(&sep)
        && digits_at(text, i + 8, 2) == 2;
    if !date || !byte_is(text, i + 10, b"Tt ") {
        return None;
    }
    let time_end = clock(text, i + 11, false)?;
    Some((i, zone(text, time_end)))
}

/// A time of day with seconds at `i`: `H:MM:SS` or `HH:MM:SS`, optional fraction.
fn time_of_day(text: &[u8], i: usize) -> Option<(usize, usize)> {
    let end = clock(text, i, true)?;
    // `1:23:45:67` is not a time of day.
    (!byte_is(text, end, b":")).then_some((i, end))
}

/// `H:MM[:SS[.fff]]` at `i` (seconds required when `seconds`): its end.
fn clock(text: &[u8], i: usize, seconds: bool) -> Option<usize> {
    let hours = digits_at(text, i, 2);
    if !(1..=2).contains(&hours) || !byte_is(text, i + hours, b":") {
        return None;
    }
    let minutes = i + hours + 1;
    if digits_at(text, minutes, 2) != 2 {
        return None;
    }
    let mut end = minutes + 2;
    if byte_is(text, end, b":") && digits_at(text, end + 1, 2) == 2 {
        end += 3;
        if byte_is(text, end, b".,") && digits_at(text, end + 1, 9) > 0 {
            end += 1 + digits_at(text, end + 1, 9);
        }
    } else if seconds {
        return None;
    }
    (!byte_is(text, end, b"0123456789")).then_some(end)
}

/// A zone after a date-time's time at `i` (`Z`, `+02:00`, ` -0500`): where the date-time ends.
fn zone(text: &[u8], i: usize) -> usize {
    if byte_is(text, i, b"Zz") && !text.get(i + 1).is_some_and(u8::is_ascii_alphanumeric) {
        return i + 1;
    }
    let at = i + usize::from(byte_is(text, i, b" "));
    if !byte_is(text, at, b"+-") {
        return i;
    }
    match digits_at(text, at + 1, 4) {
        4 => at + 5,
        2 if byte_is(text, at + 3, b":") && digits_at(text, at + 4, 2) == 2 => at + 6,
        _ => i,
    }
}

/// A clock value led by a word at `i` (the start of a word): an elapsed time after a duration
/// word, a number with a unit right before one, or an epoch time after a time key.
fn keyed_value(text: &[u8], i: usize) -> Option<(usize, usize)> {
    let key_end = i + text
        .get(i..)
        .unwrap_or_default()
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    let key = text.get(i..key_end)?;
    if let Some(word) = word_at(text, i, DURATION_WORDS, anywhere) {
        let word_end = i + word.len();
        // The rest of a key (`durationMs`, `elapsed_s`) belongs to it.
        let after_key = if word_end < key_end {
            key_end
        } else {
            word_end
        };
        if let Some(span) = value_after(text, after_key, true) {
            return Some(span);
        }
        return duration_before(text, i);
    }
    let camel_at = key.len() >= 3
        && key.ends_with(b"At")
        && key.get(key.len() - 3).is_some_and(u8::is_ascii_lowercase);
    let time_key = key.eq_ignore_ascii_case(b"ts") || ends_with_any(key, TIME_KEY_ENDINGS);
    if camel_at || time_key {
        let (start, end) = value_after(text, key_end, false)?;
        let number = text.get(start..end)?;
        let whole = number.iter().take_while(|b| b.is_ascii_digit()).count();
        let epoch = matches!(whole, 10 | 13) && number.first() == Some(&b'1');
        return epoch.then_some((start, end));
    }
    None
}

/// The number (with its time unit and any further number-unit pairs: `1m 30s`) after a key ending
/// at `i` and its separator (spaces, quotes, `:`, `=`, `(`, at most 4 bytes). Without a unit it
/// counts only after `:` or `=` (`elapsed: 12`), never in prose (`took 3 attempts`); for
/// `epoch` keys (`units` false) the number alone, after `:` or `=`.
fn value_after(text: &[u8], i: usize, units: bool) -> Option<(usize, usize)> {
    let sep_len = text
        .get(i..)
        .unwrap_or_default()
        .iter()
        .take(5)
        .take_while(|b| matches!(b, b' ' | b'"' | b'\'' | b':' | b'=' | b'('))
        .count();
    if sep_len > 4 {
        return None;
    }
    let separator = text.get(i..i + sep_len)?;
    let assigned = separator.iter().any(|b| matches!(b, b':' | b'='));
    let start = i + sep_len;
    let (mut end, unit) = number_with_unit(text, start)?;
    if !units {
        return (assigned && unit.is_none()).then_some((start, end));
    }
    if unit.is_none() && !assigned {
        return None;
    }
    // Further pairs: `1h 2m 3.5s`, `1m30s`.
    while unit.is_some() {
        let gap = usize::from(byte_is(text, end, b" "));
        match number_with_unit(text, end + gap) {
            Some((next, Some(_))) => end = next,
            _ => break,
        }
    }
    Some((start, end))
}

/// A number at `i` (digits, an optional fraction) and a time unit after it (a space allowed
/// between), as a whole word: (its end, the unit if one follows).
fn number_with_unit(text: &[u8], i: usize) -> Option<(usize, Option<&'static str>)> {
    let whole = digits_at(text, i, 20);
    if whole == 0 {
        return None;
    }
    let mut end = i + whole;
    if byte_is(text, end, b".") && digits_at(text, end + 1, 20) > 0 {
        end += 1 + digits_at(text, end + 1, 20);
    }
    let gap = usize::from(byte_is(text, end, b" "));
    let unit = word_at(text, end + gap, TIME_UNITS, before_non_letter);
    match unit {
        Some(unit) => Some((end + gap + unit.len(), Some(unit))),
        None => Some((end, None)),
    }
}

/// A number with a time unit right before a duration word at `i` (`12s elapsed`,
/// `(5.2 s elapsed)`).
fn duration_before(text: &[u8], i: usize) -> Option<(usize, usize)> {
    let before = text.get(..i)?;
    let word_end = before.len() - before.iter().rev().take_while(|b| **b == b' ').count();
    let unit_len = before
        .get(..word_end)?
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    let unit = before.get(word_end - unit_len..word_end)?;
    if unit_len == 0 || !is_one_of(unit, TIME_UNITS) {
        return None;
    }
    let mut start = word_end - unit_len;
    start -= before
        .get(..start)?
        .iter()
        .rev()
        .take(1)
        .take_while(|b| **b == b' ')
        .count();
    let number_len = before
        .get(..start)?
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_digit() || **b == b'.')
        .count();
    (number_len > 0).then_some((start - number_len, word_end))
}

#[cfg(test)]
mod tests {
    use super::{clock_spans, put_clockless};

    fn masked(text: &str) -> Vec<u8> {
        let mut out = Vec::new();
        put_clockless(text.as_bytes(), &mut out);
        out
    }

    fn values(text: &str) -> Vec<&str> {
        clock_spans(text.as_bytes())
            .into_iter()
            .filter_map(|(start, end)| text.get(start..end))
            .collect()
    }

    #[test]
    fn bash_output_polls_differ_only_in_their_timestamp() {
        let poll = |at: &str| format!("<status>running</status>\n\n<timestamp>{at}</timestamp>");
        assert_eq!(
            masked(&poll("2025-12-01T04:48:27.908Z")),
            masked(&poll("2025-12-01T04:48:31.112Z"))
        );
        let done = "<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<stdout>\nok\n</stdout>\n\n<timestamp>2025-12-01T04:48:34.001Z</timestamp>";
        assert_ne!(masked(&poll("2025-12-01T04:48:27.908Z")), masked(done));
        let output = |line: &str| {
            format!("<status>running</status>\n\n<stdout>\n{line}\n</stdout>\n\n<timestamp>2025-12-01T04:48:27.908Z</timestamp>")
        };
        assert_ne!(masked(&output("epoch 1")), masked(&output("epoch 2")));
    }

    #[test]
    fn clock_values() {
        assert_eq!(
            values("Chunk ID: 6e6db0\nWall time: 30.0024 seconds\nProcess running with session ID 52328"),
            ["30.0024 seconds"]
        );
        assert_eq!(
            values("[2025-12-01 04:48:27,123] INFO waiting"),
            ["2025-12-01 04:48:27,123"]
        );
        assert_eq!(
            values("at 2025/12/01 04:48 +0100 ok"),
            ["2025/12/01 04:48 +0100"]
        );
        assert_eq!(
            values("since 2025-12-01T04:48:27+02:00."),
            ["2025-12-01T04:48:27+02:00"]
        );
        assert_eq!(values("12:03:59 building"), ["12:03:59"]);
        assert_eq!(values("elapsed 1m 30s, 3 of 9 done"), ["1m 30s"]);
        assert_eq!(values("(12.5s elapsed)"), ["12.5s"]);
        assert_eq!(values("3 items elapsed"), Vec::<&str>::new());
        assert_eq!(values("Duration: 812ms"), ["812ms"]);
        assert_eq!(values("{\"durationMs\": 1234, \"ok\": true}"), ["1234"]);
        assert_eq!(values("elapsed_s=17 state=running"), ["17"]);
        assert_eq!(values("runtime: 4 h"), ["4 h"]);
        assert_eq!(values("updated_at=1733028507908 rows=4"), ["1733028507908"]);
        assert_eq!(
            values("\"startTime\": 1733028507, \"n\": 1733028507"),
            ["1733028507"]
        );
        assert_eq!(values("\"createdAt\":1733028507908"), ["1733028507908"]);
    }

    #[test]
    fn what_is_not_a_clock_value() {
        for text in [
            "status: running",
            "2025-12-01 release notes",
            "line 12:03 error",
            "took 3 attempts",
            "1:23:45:67",
            "version 10.2.3",
            "progress 45%, 120 of 300 files",
            "id=1733028507908",
            "retries: 3",
            "mtime 2",
            "elapsedness",
        ] {
            assert_eq!(values(text), Vec::<&str>::new(), "{text}");
        }
        // A text without a clock value is framed exactly, as any other text.
        assert_eq!(masked("ok"), [b't', 2, 0, 0, 0, b'o', b'k']);
    }
}
