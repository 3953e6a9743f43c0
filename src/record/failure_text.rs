//! Failures that come back as text. Many tools do not throw or set `isError` when they fail: a
//! shell prints `bash: foo: command not found`, an editor answers "Your proposed edit has
//! introduced new syntax error(s)", an API wrapper returns "Error: order not found". The guard
//! counts such a result as an error (it feeds `error_repeat` and never counts as a change) while
//! hashing its text exactly as any other result.

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

/// Whether a text says nothing: empty or whitespace only.
pub fn is_blank(text: &str) -> bool {
    text.trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::reports_failure;

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
