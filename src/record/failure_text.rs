//! Failures that come back as text. Many tools do not throw or set `isError` when they fail: a
//! shell prints `bash: foo: command not found`, an editor answers "Your proposed edit has
//! introduced new syntax error(s)", an API wrapper returns "Error: order not found". The guard
//! counts such a result as an error (it feeds `error_repeat` and never counts as a change).
//!
//! A failure's text is hashed with its numbers masked (`put_masked`): a shell's line counter
//! (`bash: line 11301: cd: x: No such file or directory`), a traceback's line numbers after an
//! edit moved the code, a pid or a request id do not make the same failure a new one. Successful
//! results keep their numbers (a percentage that climbs is progress).

use crate::json::digest::ByteSink;
use crate::record::outcome::MAX_SCANNED_TEXT_BYTES;

/// How the first non-blank line of a failure text starts.
const FAILURE_PREFIXES: &[&str] = &[
    "Error:",
    "ERROR:",
    "error:",
    "Exception:",
    "fatal:",
    "Traceback (most recent call last)",
    "Your proposed edit has introduced new syntax error",
    // An editor's refused edits (`str_replace_editor` and its kin): nothing was changed.
    "No replacement was performed",
    "File already exists at:",
    "{\"error\":",
];

/// How the first non-blank line of a shell's failure text ends.
const FAILURE_ENDINGS: &[&str] = &[": command not found", ": No such file or directory"];

/// Whether `text` (at most `MAX_SCANNED_TEXT_BYTES`; longer texts are not scanned) reports a
/// failure: its first non-blank line starts or ends like one.
pub fn reports_failure(text: &str) -> bool {
    if text.len() > MAX_SCANNED_TEXT_BYTES {
        return false;
    }
    let first_line = text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("");
    FAILURE_PREFIXES
        .iter()
        .any(|prefix| first_line.starts_with(prefix))
        || FAILURE_ENDINGS
            .iter()
            .any(|ending| first_line.ends_with(ending))
}

/// Frames a failure's text (at most `MAX_SCANNED_TEXT_BYTES`) with its numbers masked: `m`, the
/// text with every run of 8 or more hex digits that holds a decimal digit (ids, hashes,
/// addresses) replaced by the byte `HEX_MARK` and every other run of decimal digits by
/// `NUMBER_MARK`, then `END_MARK` (none of the three bytes occurs in UTF-8).
pub fn put_masked(text: &[u8], sink: &mut dyn ByteSink) {
    sink.put(b"m");
    let mut copied = 0;
    // Each run that holds a decimal digit is found from its first digit: the bytes between runs
    // are only compared with the ten digits.
    while let Some(digit) = text
        .get(copied..)
        .and_then(|rest| rest.iter().position(u8::is_ascii_digit))
        .map(|at| copied + at)
    {
        let hex = |b: &&u8| b.is_ascii_hexdigit();
        let before = text.get(copied..digit).unwrap_or_default();
        let start = digit - before.iter().rev().take_while(hex).count();
        let end = digit
            + text
                .get(digit..)
                .unwrap_or_default()
                .iter()
                .take_while(hex)
                .count();
        sink.put(text.get(copied..start).unwrap_or_default());
        let run = text.get(start..end).unwrap_or_default();
        if run.len() >= 8 {
            sink.put(&[HEX_MARK]);
        } else {
            put_numbers_masked(run, sink);
        }
        copied = end;
    }
    sink.put(text.get(copied..).unwrap_or_default());
    sink.put(&[END_MARK]);
}

/// Stands for a long hex run in a masked failure text.
const HEX_MARK: u8 = 0xF8;
/// Stands for a run of decimal digits in a masked failure text.
const NUMBER_MARK: u8 = 0xF9;
/// Ends a masked failure text.
const END_MARK: u8 = 0xFF;

/// `hex` (a short run of hex digits) with each run of decimal digits replaced by `NUMBER_MARK`.
fn put_numbers_masked(hex: &[u8], sink: &mut dyn ByteSink) {
    let mut in_number = false;
    for byte in hex {
        if byte.is_ascii_digit() {
            if !in_number {
                sink.put(&[NUMBER_MARK]);
            }
            in_number = true;
        } else {
            sink.put(std::slice::from_ref(byte));
            in_number = false;
        }
    }
}

/// Whether a text says nothing: empty or whitespace only.
pub fn is_blank(text: &str) -> bool {
    text.trim().is_empty()
}

/// What a host answers in place of a call it cancelled before it ran because another call of the
/// same turn failed (Claude Code's parallel tool calls). Such an answer says nothing of the call.
const CANCELLED_BY_HOST: &[&str] = &[
    "<tool_use_error>Sibling tool call errored</tool_use_error>",
    "Sibling tool call errored",
];

/// Whether `text` is only a host's note that it cancelled the call (`CANCELLED_BY_HOST`): the
/// call did not run, so its outcome is neither a failure of its own nor news.
pub fn is_cancelled_by_host(text: &str) -> bool {
    CANCELLED_BY_HOST.contains(&text.trim())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing)]
    use super::{is_cancelled_by_host, put_masked, reports_failure};

    #[test]
    fn a_call_the_host_cancelled_is_told_by_the_whole_text() {
        assert!(is_cancelled_by_host(
            "<tool_use_error>Sibling tool call errored</tool_use_error>"
        ));
        assert!(is_cancelled_by_host(" Sibling tool call errored\n"));
        assert!(!is_cancelled_by_host(
            "Error: Sibling tool call errored while reading config.py"
        ));
    }

    fn masked(text: &str) -> Vec<u8> {
        let mut out = Vec::new();
        put_masked(text.as_bytes(), &mut out);
        out
    }

    /// The masking rule read literally: every maximal run of hex digits, one by one.
    fn masked_by_runs(text: &[u8]) -> Vec<u8> {
        let mut out = vec![b'm'];
        let mut run = Vec::new();
        let flush = |run: &mut Vec<u8>, out: &mut Vec<u8>| {
            if !run.iter().any(u8::is_ascii_digit) {
                out.append(run);
            } else if run.len() >= 8 {
                out.push(0xF8);
            } else {
                super::put_numbers_masked(run, out);
            }
            run.clear();
        };
        for &byte in text {
            if byte.is_ascii_hexdigit() {
                run.push(byte);
            } else {
                flush(&mut run, &mut out);
                out.push(byte);
            }
        }
        flush(&mut run, &mut out);
        out.push(0xFF);
        out
    }

    #[test]
    fn masking_follows_the_rule_on_any_text() {
        let alphabet = b"0159afAFgz :-_\n";
        let mut state = 0x2545_f491_u32;
        for len in 0..400 {
            let text: Vec<u8> = (0..len % 40)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    alphabet[state as usize % alphabet.len()]
                })
                .collect();
            let mut out = Vec::new();
            put_masked(&text, &mut out);
            assert_eq!(
                out,
                masked_by_runs(&text),
                "{:?}",
                String::from_utf8_lossy(&text)
            );
        }
    }

    #[test]
    fn masking_keeps_words_and_drops_numbers_and_ids() {
        let counter =
            |n: u32| format!("/bin/bash: line {n}: cd: fastjson/: No such file or directory");
        assert_eq!(masked(&counter(11301)), masked(&counter(11302)));
        assert_eq!(masked(&counter(7)), masked(&counter(123456)));
        assert_ne!(
            masked(&counter(7)),
            masked("/bin/bash: line 7: cd: other/: No such file or directory")
        );
        // Ids: a long hex run is one mark whatever its length; short runs keep their letters.
        assert_eq!(
            masked("Error: request 9f86d081884c7d65 failed"),
            masked("Error: request 3c2a6b1f00 failed")
        );
        assert_ne!(
            masked("Error: req_1b2c failed"),
            masked("Error: req_1a2c failed")
        );
        assert_eq!(
            masked("Error: req_1b2c failed"),
            masked("Error: req_77b0c failed")
        );
        // Letters-only hex words are text.
        assert_ne!(masked("Error: deadbeef"), masked("Error: cafebabe"));
        // Framing: the marks cannot be confused with text, and the end is marked.
        assert_eq!(masked("a1"), [b'm', b'a', 0xF9, 0xFF]);
        assert_eq!(
            masked("x 0123456789abcdef y"),
            [b'm', b'x', b' ', 0xF8, b' ', b'y', 0xFF]
        );
    }

    #[test]
    fn failure_texts() {
        for text in [
            "Error: gift card not found",
            "\n  Traceback (most recent call last):\n  File \"x.py\"",
            "bash: pytest: command not found",
            "cat: missing.txt: No such file or directory",
            "Your proposed edit has introduced new syntax error(s). Please read",
            "{\"error\": \"unknown order\"}",
            "fatal: not a git repository",
            "No replacement was performed. Multiple occurrences of old_str `x` in lines [3, 9].",
            "File already exists at: /testbed/x.py. Cannot overwrite files using command `create`.",
        ] {
            assert!(reports_failure(text), "{text}");
        }
        for text in [
            "",
            "3 passed, 1 error in 0.2s",
            "No results found.",
            "def error(): pass",
            "The error was fixed: see line 3",
        ] {
            assert!(!reports_failure(text), "{text}");
        }
        assert!(!reports_failure(&format!("Error: {}", "x".repeat(5000))));
    }
}
