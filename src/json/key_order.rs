//! The order of an object's members in canonical form: keys compared by their UTF-16 code units
//! (RFC 8785, 3.2.3), sorted by a small in-place heapsort unless they already come in that order.

use std::cmp::Ordering;

/// Puts `members` (key, where the value is) in canonical order: by key, and members with equal keys
/// (only text can repeat a key) in document order, so that the last of them, the one that counts,
/// comes last. Members already in order (nearly always, for a `serde_json` map) are left as they are.
pub(crate) fn sort_members<K: AsRef<str>, At>(
    members: &mut [(K, At)],
    document_order: impl Fn(&At, &At) -> Ordering,
) {
    let mut keys = members.iter().map(|(key, _)| key.as_ref());
    let in_order = match keys.next() {
        None => true,
        Some(first) => keys
            .try_fold(first, |prev, key| {
                utf16_cmp(prev, key).is_lt().then_some(key)
            })
            .is_some(),
    };
    if !in_order {
        heap_sort(members, |a, b| {
            utf16_cmp(a.0.as_ref(), b.0.as_ref())
                .then_with(|| document_order(&a.1, &b.1))
                .is_lt()
        });
    }
}

/// Compares two strings by their UTF-16 code units, as JCS sorts keys, without transcoding. UTF-8
/// byte order is code point order, which differs from UTF-16 order only between a character of
/// U+E000..U+FFFF (lead byte 0xEE or 0xEF) and one above U+FFFF (lead byte 0xF0 to 0xF4, a
/// surrogate pair in UTF-16): at the first differing byte that is the only case to turn round.
pub(crate) fn utf16_cmp(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let differ = a.iter().zip(b).position(|(x, y)| x != y);
    match differ.and_then(|i| Some((*a.get(i)?, *b.get(i)?))) {
        None => a.len().cmp(&b.len()),
        Some((x, y)) => {
            let bmp_high = |byte: u8| (0xEE..=0xEF).contains(&byte);
            if (bmp_high(x) && y >= 0xF0) || (x >= 0xF0 && bmp_high(y)) {
                y.cmp(&x)
            } else {
                x.cmp(&y)
            }
        }
    }
}

/// In-place heapsort: O(n log n) on hostile input, and a few hundred bytes of code where the
/// standard library's sorts cost ~10 KB of `.wasm` for this one rare path.
fn heap_sort<T>(items: &mut [T], less: impl Fn(&T, &T) -> bool) {
    let less_at = |items: &[T], a: usize, b: usize| match (items.get(a), items.get(b)) {
        (Some(x), Some(y)) => less(x, y),
        _ => false,
    };
    let sift_down = |items: &mut [T], mut root: usize, end: usize| loop {
        let mut child = 2 * root + 1;
        if child >= end {
            break;
        }
        if child + 1 < end && less_at(items, child, child + 1) {
            child += 1;
        }
        if !less_at(items, root, child) {
            break;
        }
        items.swap(root, child);
        root = child;
    };
    let n = items.len();
    for root in (0..n / 2).rev() {
        sift_down(items, root, n);
    }
    for end in (1..n).rev() {
        items.swap(0, end);
        sift_down(items, 0, end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_sort_sorts() {
        let mut state = 12345u32;
        for n in 0..40 {
            let mut items: Vec<u32> = (0..n)
                .map(|_| {
                    state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    state % 17
                })
                .collect();
            let mut want = items.clone();
            want.sort();
            heap_sort(&mut items, |a, b| a < b);
            assert_eq!(items, want);
        }
    }
}
