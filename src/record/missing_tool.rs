//! Failures that say a tool does not exist ("unknown tool X", "tool X not found", …) and tool
//! names no host has (a model's chat-template tokens in the name): what `unknown_tool_repeat`
//! counts.

/// Returns the tool name when `message` says a tool does not exist.
pub fn missing_tool_name(message: &str) -> Option<String> {
    let lower = message.to_ascii_lowercase();
    if let Some(pos) = find(&lower, "unknown tool") {
        let rest = message.get(pos + "unknown tool".len()..)?;
        return first_token(rest.trim_start_matches([':', ' ']));
    }
    if let Some(pos) = find(&lower, "tool not found") {
        let rest = message.get(pos + "tool not found".len()..)?;
        return first_token(rest.trim_start_matches([':', ' ']));
    }
    const ENDINGS: &[&str] = &[
        " not found",
        " was not found",
        " is not available",
        " does not exist",
    ];
    let mut from = 0;
    while let Some(found) = lower.get(from..).and_then(|s| find(s, "tool ")) {
        let name_start = from + found + "tool ".len();
        let rest = lower.get(name_start..)?;
        let name_len = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let after = rest.get(name_len..).unwrap_or("");
        if name_len > 0 && ENDINGS.iter().any(|e| after.starts_with(e)) {
            return first_token(message.get(name_start..)?);
        }
        from = name_start;
    }
    None
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

/// Where `needle` first occurs in `haystack` (a plain scan: these texts are at most a few KB, and
/// the standard library's substring search costs more `.wasm` than this whole module).
fn find(haystack: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    haystack
        .as_bytes()
        .windows(needle.len())
        .position(|window| window == needle.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_substrings() {
        assert_eq!(find("unknown tool x", "tool"), Some(8));
        assert_eq!(find("abc", "abcd"), None);
        assert_eq!(find("abc", ""), Some(0));
        assert_eq!(find("aab", "ab"), Some(1));
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
