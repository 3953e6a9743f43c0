//! ASCII case-insensitive matching for the phrases the core looks for in texts (failures, missing
//! tools, waits). Plain scans, not the standard library's substring searcher, which costs
//! kilobytes of `.wasm`; the texts scanned are at most a few KB.

/// Whether `text` starts with `prefix`, ignoring ASCII case.
pub fn starts_with_ci(text: &[u8], prefix: &[u8]) -> bool {
    text.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

/// Where `needle` first occurs in `text`, ignoring ASCII case.
#[inline(never)]
pub fn find_ci(text: &[u8], needle: &[u8]) -> Option<usize> {
    text.windows(needle.len().max(1))
        .position(|window| window.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_ignoring_ascii_case() {
        assert!(starts_with_ci(b"Unknown Tool: x", b"unknown tool"));
        assert!(!starts_with_ci(b"tool", b"tools"));
        assert_eq!(find_ci(b"a Rate Limit", b"rate limit"), Some(2));
        assert_eq!(find_ci(b"abc", b"abcd"), None);
    }
}
