//! Text scanning for the `openclaw` preset, written as small matchers (no regex engine in the
//! wasm): the shape of an `exec` failure with its
//! timestamps, clock times, attempt numbers, durations and process ids masked as `#`.

use crate::record::ascii::starts_with_ci;

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Length of the leading ASCII digits of `s`, at most `max`.
fn digits(s: &str, max: usize) -> usize {
    s.bytes().take(max).take_while(u8::is_ascii_digit).count()
}

/// Exactly `n` digits at the start of `s`.
fn exact_digits(s: &str, n: usize) -> bool {
    digits(s, n) == n
}

/// `.` and 1..=6 digits, if present: its length.
fn fraction(s: &str) -> usize {
    match s.strip_prefix('.') {
        Some(rest) => match digits(rest, 6) {
            0 => 0,
            n => n + 1,
        },
        None => 0,
    }
}

/// `YYYY-MM-DD[T ]hh:mm:ss[.ffffff][Z|±hh:mm]`.
fn iso_timestamp(s: &str, _before: Option<char>) -> Option<usize> {
    let b = s.as_bytes();
    let shape = exact_digits(s, 4)
        && b.get(4) == Some(&b'-')
        && exact_digits(s.get(5..)?, 2)
        && b.get(7) == Some(&b'-')
        && exact_digits(s.get(8..)?, 2)
        && matches!(b.get(10), Some(b'T' | b't' | b' '))
        && clock_exact(s.get(11..)?);
    if !shape {
        return None;
    }
    let mut len = 19 + fraction(s.get(19..)?);
    let rest = s.get(len..)?;
    if rest.starts_with(['z', 'Z']) {
        len += 1;
    } else if rest.starts_with(['+', '-'])
        && exact_digits(rest.get(1..)?, 2)
        && rest.as_bytes().get(3) == Some(&b':')
        && exact_digits(rest.get(4..)?, 2)
    {
        len += 6;
    }
    Some(len)
}

/// `hh:mm:ss` with two-digit hours.
fn clock_exact(s: &str) -> bool {
    let b = s.as_bytes();
    exact_digits(s, 2)
        && b.get(2) == Some(&b':')
        && s.get(3..).is_some_and(|r| exact_digits(r, 2))
        && b.get(5) == Some(&b':')
        && s.get(6..).is_some_and(|r| exact_digits(r, 2))
}

/// `h:mm:ss` or `hh:mm:ss`, with an optional fraction.
fn clock_time(s: &str, _before: Option<char>) -> Option<usize> {
    [2, 1].into_iter().find_map(|hours| {
        if digits(s, hours) != hours {
            return None;
        }
        let rest = s.get(hours..)?;
        let b = rest.as_bytes();
        let ok = b.first() == Some(&b':')
            && exact_digits(rest.get(1..)?, 2)
            && b.get(3) == Some(&b':')
            && exact_digits(rest.get(4..)?, 2);
        ok.then(|| hours + 6 + fraction(rest.get(6..).unwrap_or("")))
    })
}

fn boundary_before(before: Option<char>) -> bool {
    !before.is_some_and(is_word)
}

fn boundary_after(s: &str, len: usize) -> bool {
    !s.get(len..)
        .and_then(|r| r.chars().next())
        .is_some_and(is_word)
}

/// A word from `words` (case-insensitive, whole word), separators `[\s#:=]*`, then digits.
fn labelled_number(s: &str, before: Option<char>, words: &[&str]) -> Option<usize> {
    if !boundary_before(before) {
        return None;
    }
    let word = words
        .iter()
        .find(|w| starts_with_ci(s.as_bytes(), w.as_bytes()) && boundary_after(s, w.len()))?;
    let rest = s.get(word.len()..)?;
    let after =
        rest.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '#' | ':' | '='));
    let n = digits(after, usize::MAX);
    (n > 0).then(|| s.len() - after.len() + n)
}

fn attempt_number(s: &str, before: Option<char>) -> Option<usize> {
    labelled_number(s, before, &["attempt", "retry"])
}

fn process_id(s: &str, before: Option<char>) -> Option<usize> {
    labelled_number(s, before, &["pid", "ppid"])
}

/// A number with a time unit (`30ms`, `1.5 s`, `2 minutes`).
fn duration(s: &str, before: Option<char>) -> Option<usize> {
    const UNITS: &[&str] = &[
        "ns", "us", "ms", "seconds", "second", "minutes", "minute", "hours", "hour", "s",
    ];
    if !boundary_before(before) {
        return None;
    }
    let mut len = digits(s, usize::MAX);
    if len == 0 {
        return None;
    }
    if let Some(rest) = s.get(len..).and_then(|r| r.strip_prefix('.')) {
        let n = digits(rest, usize::MAX);
        if n > 0 {
            len += 1 + n;
        }
    }
    let rest = s.get(len..)?;
    let space = rest
        .chars()
        .next()
        .filter(|c| c.is_whitespace())
        .map_or(0, char::len_utf8);
    [space, 0].into_iter().find_map(|space| {
        let at = len + space;
        let rest = s.get(at..)?;
        UNITS
            .iter()
            .find(|u| {
                starts_with_ci(rest.as_bytes(), u.as_bytes()) && boundary_after(rest, u.len())
            })
            .map(|u| at + u.len())
    })
}

type Matcher = fn(&str, Option<char>) -> Option<usize>;

/// Replaces every leftmost, non-overlapping match of `matcher` with `#`.
fn mask(s: &str, matcher: Matcher) -> String {
    let mut out = String::with_capacity(s.len());
    let mut before = None;
    let mut i = 0;
    while let Some(rest) = s.get(i..) {
        let Some(c) = rest.chars().next() else { break };
        match matcher(rest, before).filter(|len| *len > 0) {
            Some(len) => {
                out.push('#');
                before = rest.get(..len).and_then(|m| m.chars().last());
                i += len;
            }
            None => {
                out.push(c);
                before = Some(c);
                i += c.len_utf8();
            }
        }
    }
    out
}

/// The failure output with its volatile parts masked, in OpenClaw's order.
pub fn exec_failure_shape(output: &str) -> String {
    let matchers: [Matcher; 5] = [
        iso_timestamp,
        clock_time,
        attempt_number,
        duration,
        process_id,
    ];
    matchers
        .iter()
        .fold(output.to_owned(), |text, matcher| mask(&text, *matcher))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_volatile_failure_parts() {
        assert_eq!(
            exec_failure_shape("2026-01-02T03:04:05.123Z retry 3 took 12.5 ms, pid=42 at 7:08:09"),
            "# # took #, # at #"
        );
        assert_eq!(exec_failure_shape("abc123ms 12s3"), "abc123ms 12s3");
        assert_eq!(exec_failure_shape("123:45:67"), "1#");
    }
}
