//! ASCII case-insensitive matching for the phrases the core looks for in texts (failures, missing
//! tools, waits). Plain scans, not the standard library's substring searcher, which costs
//! kilobytes of `.wasm`; the texts scanned are at most a few KB.

/// Whether `text` starts with `prefix`, ignoring ASCII case.
pub fn starts_with_ci(text: &[u8], prefix: &[u8]) -> bool {
    text.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

/// Where `needle` first occurs in `text`, ignoring ASCII case (`None` for an empty needle).
/// Positions whose first byte differs are passed over without comparing the rest.
#[inline(never)]
pub fn find_ci(text: &[u8], needle: &[u8]) -> Option<usize> {
    let (first, rest) = needle.split_first()?;
    let first = first.to_ascii_lowercase();
    let starts = text.get(..=text.len().checked_sub(needle.len())?)?;
    starts.iter().enumerate().find_map(|(i, byte)| {
        let candidate = byte.to_ascii_lowercase() == first
            && text
                .get(i + 1..i + needle.len())
                .is_some_and(|tail| tail.eq_ignore_ascii_case(rest));
        candidate.then_some(i)
    })
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
        assert_eq!(find_ci(b"xxABC", b"abc"), Some(2));
        assert_eq!(find_ci(b"abc", b"C"), Some(2));
        assert_eq!(find_ci(b"abc", b""), None);
        assert_eq!(find_ci(b"", b"a"), None);
    }
}
