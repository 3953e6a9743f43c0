//! Failures that say a tool does not exist ("unknown tool X", "tool X not found", …) and tool
//! names no host has (a model's chat-template tokens in the name): what `unknown_tool_repeat`
//! counts. Both engines read them from one set of phrases: the guard's own reading
//! (`missing_tool_name`) and OpenClaw's exact one for `preset: "openclaw"`
//! (`openclaw_missing_tool`), which knows only the first of them.

/// The phrase a missing tool's name follows.
const UNKNOWN_TOOL: &str = "unknown tool";
/// What follows `tool <name>` when the tool is missing; OpenClaw knows the first
/// `OPENCLAW_ENDINGS` of them.
const ENDINGS: &[&str] = &[
    "not found",
    "is not available",
    "was not found",
    "does not exist",
];
const OPENCLAW_ENDINGS: usize = 2;

use crate::record::ascii::{find_ci, starts_with_ci};

/// Returns the tool name when `message` says a tool does not exist.
pub fn missing_tool_name(message: &str) -> Option<String> {
    // Every phrasing holds "tool": a text without it (most failures) is read once, not once per
    // phrasing.
    find_ci(message.as_bytes(), b"tool")?;
    if let Some(pos) = find_ci(message.as_bytes(), UNKNOWN_TOOL.as_bytes()) {
        let rest = message.get(pos + UNKNOWN_TOOL.len()..)?;
        return first_token(rest.trim_start_matches([':', ' ']));
    }
    if let Some(pos) = find_ci(message.as_bytes(), b"tool not found") {
        let rest = message.get(pos + "tool not found".len()..)?;
        return first_token(rest.trim_start_matches([':', ' ']));
    }
    let mut from = 0;
    while let Some(found) = message
        .get(from..)
        .and_then(|s| find_ci(s.as_bytes(), b"tool "))
    {
        let name_start = from + found + "tool ".len();
        let rest = message.get(name_start..)?;
        let name_len = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let after = rest.get(name_len..).unwrap_or("");
        let ends = after.strip_prefix(' ').is_some_and(|after| {
            ENDINGS
                .iter()
                .any(|e| starts_with_ci(after.as_bytes(), e.as_bytes()))
        });
        if name_len > 0 && ends {
            return first_token(message.get(name_start..)?);
        }
        from = name_start;
    }
    None
}

/// OpenClaw's reading: the tool an error says is unavailable (`unknown tool: x`.as_bytes(), `tool x not found`, `tool "x" is not
/// available`.as_bytes()), lower-cased.
pub fn openclaw_missing_tool(message: &str) -> Option<String> {
    let text = message.trim();
    let name = starts(text)
        .find_map(|i| after_unknown_tool(text.get(i..)?))
        .or_else(|| starts(text).find_map(|i| before_not_found(text.get(i..)?)))?;
    Some(name.to_ascii_lowercase())
}

fn skip_quote(s: &str) -> &str {
    s.strip_prefix(['"', '\'']).unwrap_or(s)
}

fn take_name(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !is_name_char(c)).unwrap_or(s.len());
    s.split_at_checked(end).unwrap_or((s, ""))
}

/// `unknown tool` then separators (`:` or white space), an optional quote and the name.
fn after_unknown_tool(s: &str) -> Option<&str> {
    if !starts_with_ci(s.as_bytes(), UNKNOWN_TOOL.as_bytes()) {
        return None;
    }
    let rest = s.get(UNKNOWN_TOOL.len()..)?;
    let after_separators = rest.trim_start_matches(|c: char| c == ':' || c.is_whitespace());
    if after_separators.len() == rest.len() {
        return None;
    }
    let (name, _) = take_name(skip_quote(after_separators));
    (!name.is_empty()).then_some(name)
}

/// `tool`, white space, an optional quote, the name, an optional quote, white space, then `not
/// found` or `is not available`.
fn before_not_found(s: &str) -> Option<&str> {
    if !starts_with_ci(s.as_bytes(), b"tool") {
        return None;
    }
    let rest = s.get("tool".len()..)?;
    let after_space = rest.trim_start_matches(char::is_whitespace);
    if after_space.len() == rest.len() {
        return None;
    }
    let (name, rest) = take_name(skip_quote(after_space));
    let rest = skip_quote(rest);
    let tail = rest.trim_start_matches(char::is_whitespace);
    let ends = ENDINGS
        .get(..OPENCLAW_ENDINGS)
        .unwrap_or_default()
        .iter()
        .any(|ending| starts_with_ci(tail.as_bytes(), ending.as_bytes()));
    (!name.is_empty() && tail.len() < rest.len() && ends).then_some(name)
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

/// The char boundaries of `s` where a match may start.
fn starts(s: &str) -> impl Iterator<Item = usize> + '_ {
    s.char_indices().map(|(i, _)| i)
}

pub(crate) fn names_missing_tool(message: &str) -> bool {
    missing_tool_name(message).is_some()
}

/// Whether a tool name carries a model's chat-template formatting (`echo<|channel|>commentary`):
/// no host has such a tool, so a failed call of it reports a missing tool whatever its error says.
pub fn carries_model_formatting(tool: &str) -> bool {
    // Byte pairs, not `str::contains`: its substring searcher costs kilobytes of `.wasm`.
    tool.as_bytes()
        .windows(2)
        .any(|pair| pair == b"<|" || pair == b"|>")
}

fn first_token(text: &str) -> Option<String> {
    let token = text.split_whitespace().next()?;
    let name = token
        .trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | '.' | ',' | ':' | ';' | '(' | ')'));
    (!name.is_empty()).then(|| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_missing_tool() {
        let cases = [
            ("Tool exec not found", Some("exec")),
            ("Unknown tool: 'Web.Search'", Some("web.search")),
            ("tool \"browse\" is not available", Some("browse")),
            ("tool exec failed", None),
        ];
        for (message, name) in cases {
            assert_eq!(openclaw_missing_tool(message).as_deref(), name, "{message}");
        }
    }

    #[test]
    fn missing_tool_phrasings() {
        assert_eq!(
            missing_tool_name("Unknown tool: search_web").as_deref(),
            Some("search_web")
        );
        assert_eq!(
            missing_tool_name("Tool `fetch` not found").as_deref(),
            Some("fetch")
        );
        assert_eq!(
            missing_tool_name("error: tool \"browse\" is not available.").as_deref(),
            Some("browse")
        );
        assert_eq!(missing_tool_name("file not found"), None);
        assert_eq!(missing_tool_name("the tool ran fine"), None);
    }
}
