//! RFC 8785 (JCS) canonical JSON, streamed straight into a byte sink such as a SHA-256 hasher:
//! object keys sorted by UTF-16 code units, numbers in ECMAScript `Number#toString` form, strings
//! minimally escaped. Optionally drops volatile object keys on the way (used for outcomes).

use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

/// A SHA-256 digest.
pub type Digest = [u8; 32];

/// Anything canonical bytes can be written to.
pub trait ByteSink {
    fn put(&mut self, bytes: &[u8]);
}

/// Bytes gathered before they are handed to the hasher.
const HASH_SINK_BUFFER: usize = 256;

/// SHA-256 fed through a small buffer. Canonical writers put many tiny pieces (quotes, commas,
/// keys), and each `update` of the hasher costs far more than copying a few bytes. The buffer
/// held raw content, so `finish` zeroes the part of it that was ever written.
pub struct HashSink {
    hasher: Sha256,
    buffer: [u8; HASH_SINK_BUFFER],
    len: usize,
    /// The most bytes the buffer held before a flush (those beyond `len` still hold old content).
    high_water: usize,
}

impl HashSink {
    pub fn new() -> Self {
        HashSink {
            hasher: Sha256::new(),
            buffer: [0; HASH_SINK_BUFFER],
            len: 0,
            high_water: 0,
        }
    }

    fn flush(&mut self) {
        self.high_water = self.high_water.max(self.len);
        self.hasher
            .update(self.buffer.get(..self.len).unwrap_or_default());
        self.len = 0;
    }

    /// The digest; the sink's buffer and the hasher's own block buffer are zeroed in place (by
    /// reference, so no moved copy of them is left behind on the stack).
    pub fn finish(&mut self) -> Digest {
        self.flush_and_clear();
        finish_and_wipe(&mut self.hasher)
    }

    /// Hashes what is buffered, then zeroes every buffer byte that was ever written.
    fn flush_and_clear(&mut self) {
        self.flush();
        if let Some(written) = self.buffer.get_mut(..self.high_water) {
            written.fill(0);
        }
        std::hint::black_box(&mut self.buffer);
    }
}

impl Default for HashSink {
    fn default() -> Self {
        Self::new()
    }
}

impl ByteSink for HashSink {
    /// Copies `bytes` into the buffer; small enough to be inlined into the canonical writers,
    /// which put many tiny pieces.
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        match self.buffer.get_mut(self.len..end) {
            Some(room) => {
                room.copy_from_slice(bytes);
                self.len = end;
            }
            None => self.put_after_flush(bytes),
        }
    }
}

impl HashSink {
    /// `put` of bytes that do not fit what is left of the buffer: hashes the buffer first, then
    /// buffers `bytes` or, if they are larger than the buffer, hashes them directly.
    #[inline(never)]
    fn put_after_flush(&mut self, bytes: &[u8]) {
        self.flush();
        if let Some(room) = self.buffer.get_mut(..bytes.len()) {
            room.copy_from_slice(bytes);
            self.len = bytes.len();
        } else {
            self.hasher.update(bytes);
        }
    }
}

impl ByteSink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// Decides which object keys are dropped while canonicalising.
pub trait KeyFilter {
    fn drops(&self, key: &str) -> bool;
}

/// Keeps every key (used for call arguments).
pub struct KeepAll;

impl KeyFilter for KeepAll {
    fn drops(&self, _key: &str) -> bool {
        false
    }
}

/// SHA-256 of raw bytes.
pub fn sha256(bytes: &[u8]) -> Digest {
    let mut hasher = Sha256::new();
    hasher.update(bytes);
    finish_and_wipe(&mut hasher)
}

/// The hasher's digest, then its block buffer overwritten: finalising only rewinds the buffer, and
/// the last partial block (up to 63 bytes of the hashed text) would otherwise stay in memory.
fn finish_and_wipe(hasher: &mut Sha256) -> Digest {
    let digest = hasher.finalize_reset().into();
    // After the reset the buffer is empty; 63 bytes fill it without completing a block.
    hasher.update([0u8; 63]);
    std::hint::black_box(hasher);
    digest
}

/// The canonical form of `value` as a string (tests and diagnostics).
pub fn to_canonical_string(value: &Value) -> String {
    let mut bytes = Vec::new();
    write_value(value, &KeepAll, &mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

pub fn write_value(value: &Value, filter: &dyn KeyFilter, sink: &mut dyn ByteSink) {
    match value {
        Value::Null => sink.put(b"null"),
        Value::Bool(true) => sink.put(b"true"),
        Value::Bool(false) => sink.put(b"false"),
        Value::Number(n) => write_number(n.as_f64().unwrap_or(0.0), sink),
        Value::String(s) => write_string(s, sink),
        Value::Array(items) => {
            sink.put(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    sink.put(b",");
                }
                write_value(item, filter, sink);
            }
            sink.put(b"]");
        }
        Value::Object(map) => write_object(map, filter, sink),
    }
}

fn write_object(map: &Map<String, Value>, filter: &dyn KeyFilter, sink: &mut dyn ByteSink) {
    write_members(map, &|key| filter.drops(key), filter, sink);
}

/// An object without the top-level members named in `without` (and without the keys `filter`
/// drops, at every depth), as if those members had been removed first.
pub fn write_object_without(
    map: &Map<String, Value>,
    without: &[&str],
    filter: &dyn KeyFilter,
    sink: &mut dyn ByteSink,
) {
    write_members(
        map,
        &|key| without.contains(&key) || filter.drops(key),
        filter,
        sink,
    );
}

fn write_members(
    map: &Map<String, Value>,
    drops: &dyn Fn(&str) -> bool,
    filter: &dyn KeyFilter,
    sink: &mut dyn ByteSink,
) {
    sink.put(b"{");
    let mut first = true;
    let mut member = |key: &str, value: &Value, sink: &mut dyn ByteSink| {
        if !first {
            sink.put(b",");
        }
        first = false;
        write_string(key, sink);
        sink.put(b":");
        write_value(value, filter, sink);
    };
    let kept = map.iter().filter(|(k, _)| !drops(k));
    // The order is set here, not by the map: serde_json's map iterates in UTF-8 byte order, or in
    // insertion order when any crate in the build enables its `preserve_order` feature. Members
    // already in UTF-16 order (nearly always, with the default map) are written as they come.
    let mut keys = map.keys();
    let in_order = match keys.next() {
        None => true,
        Some(first) => keys
            .try_fold(first, |prev, key| {
                utf16_cmp(prev, key).is_lt().then_some(key)
            })
            .is_some(),
    };
    if in_order {
        for (key, value) in kept {
            member(key, value, sink);
        }
    } else {
        let mut members: Vec<(&String, &Value)> = kept.collect();
        heap_sort(&mut members, |a, b| utf16_cmp(a.0, b.0).is_lt());
        for (key, value) in members {
            member(key, value, sink);
        }
    }
    sink.put(b"}");
}

/// Compares two strings by their UTF-16 code units, as JCS sorts keys, without transcoding. UTF-8
/// byte order is code point order, which differs from UTF-16 order only between a character of
/// U+E000..U+FFFF (lead byte 0xEE or 0xEF) and one above U+FFFF (lead byte 0xF0 to 0xF4, a
/// surrogate pair in UTF-16): at the first differing byte that is the only case to turn round.
pub(crate) fn utf16_cmp(a: &str, b: &str) -> std::cmp::Ordering {
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
pub(crate) fn heap_sort<T>(items: &mut [T], less: impl Fn(&T, &T) -> bool) {
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

/// The length of the prefix of `bytes` without a quote, a backslash or a control character: the
/// part of a JSON string that needs no escaping. Eight bytes at a time.
pub fn plain_prefix_len(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut pos = 0;
    while let Some(chunk) = bytes.get(pos..pos + 8) {
        let Ok(chunk) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let v = u64::from_le_bytes(chunk);
        let quote = v ^ (ONES * u64::from(b'"'));
        let backslash = v ^ (ONES * u64::from(b'\\'));
        // Per byte: equal to '"', equal to '\\', or below 0x20. Borrows can flag bytes above the
        // first hit, never below it, so the lowest flag is exact.
        let hits = ((quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (v.wrapping_sub(ONES * 0x20) & !v))
            & HIGHS;
        if hits != 0 {
            return pos + (hits.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    while let Some(&b) = bytes.get(pos) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        pos += 1;
    }
    pos
}

/// Writes a JSON string with JCS's minimal escaping; clean runs go to the sink in one piece.
pub fn write_string<S: ByteSink + ?Sized>(s: &str, sink: &mut S) {
    sink.put(b"\"");
    let bytes = s.as_bytes();
    let plain = plain_prefix_len(bytes);
    if plain == bytes.len() {
        sink.put(bytes);
        sink.put(b"\"");
        return;
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            0x08 => Some(b"\\b"),
            0x09 => Some(b"\\t"),
            0x0a => Some(b"\\n"),
            0x0c => Some(b"\\f"),
            0x0d => Some(b"\\r"),
            0x00..=0x1f => None,
            _ => continue,
        };
        sink.put(bytes.get(start..i).unwrap_or_default());
        match escape {
            Some(e) => sink.put(e),
            None => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let hi = HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0');
                let lo = HEX.get(usize::from(b & 0xf)).copied().unwrap_or(b'0');
                sink.put(&[b'\\', b'u', b'0', b'0', hi, lo]);
            }
        }
        start = i + 1;
    }
    sink.put(bytes.get(start..).unwrap_or_default());
    sink.put(b"\"");
}

/// Below 2^53 an integral double's exact digits are also its shortest round-trip digits.
const EXACT_INTEGER_LIMIT: f64 = 9_007_199_254_740_992.0;

/// Writes a finite double the way ECMAScript's `Number.prototype.toString` does. Integers below
/// 2^53 (the common case) are written without allocating.
pub fn write_number(x: f64, sink: &mut dyn ByteSink) {
    if x.fract() == 0.0 && x.abs() < EXACT_INTEGER_LIMIT {
        if x < 0.0 {
            sink.put(b"-");
        }
        write_uint(x.abs() as u64, sink);
        return;
    }
    write_number_text(x, sink);
}

/// Writes `n` in decimal.
pub fn write_uint(mut n: u64, sink: &mut dyn ByteSink) {
    let mut buf = [0u8; 20];
    let mut pos = buf.len();
    loop {
        pos -= 1;
        if let Some(slot) = buf.get_mut(pos) {
            *slot = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 {
            break;
        }
    }
    sink.put(buf.get(pos..).unwrap_or_default());
}

/// A finite number as ECMAScript's `Number#toString` writes it (RFC 8785's number form).
pub fn format_number(x: f64) -> String {
    let mut out = Vec::new();
    write_number_text(x, &mut out);
    // Only ASCII was written.
    String::from_utf8(out).unwrap_or_default()
}

/// `Number#toString` of `x` (ECMAScript 2024, 6.1.6.1.20): the shortest digits that read back as
/// `x` (the closer, then the even, of two candidates), positional for exponents -7 < n <= 21 and
/// `d.ddde±n` outside.
fn write_number_text(x: f64, sink: &mut dyn ByteSink) {
    if x == 0.0 || !x.is_finite() {
        // JSON text cannot carry NaN or infinities; -0 prints as 0 in ECMAScript.
        sink.put(b"0");
        return;
    }
    if x < 0.0 {
        sink.put(b"-");
    }
    let decimal = Decimal::shortest(x.abs(), true);
    let digits = decimal.digits();
    let n = decimal.point;
    if (-6 < n && n <= 0) || (0 < n && n <= 21) {
        decimal.write_positional(sink);
        return;
    }
    let (first, rest) = digits.split_at(1.min(digits.len()));
    sink.put(first);
    if !rest.is_empty() {
        sink.put(b".");
        sink.put(rest);
    }
    sink.put(if n > 0 { b"e+" } else { b"e-" });
    write_uint(u64::from((n - 1).unsigned_abs()), sink);
}

/// A positive decimal `0.d1d2…dk × 10^point` with at most 17 digits, no leading or trailing zero.
pub(crate) struct Decimal {
    digits: [u8; 17],
    len: usize,
    pub point: i32,
}

impl Decimal {
    /// The digits, as ASCII.
    pub fn digits(&self) -> &[u8] {
        self.digits.get(..self.len).unwrap_or_default()
    }

    /// Writes the number without an exponent: `123.45`, `0.00012`, `1200`.
    pub fn write_positional(&self, sink: &mut dyn ByteSink) {
        let digits = self.digits();
        let zeros = |n: i32, sink: &mut dyn ByteSink| {
            for _ in 0..n {
                sink.put(b"0");
            }
        };
        if self.point <= 0 {
            sink.put(b"0.");
            zeros(-self.point, sink);
            sink.put(digits);
        } else if self.point as usize >= digits.len() {
            sink.put(digits);
            zeros(self.point - digits.len() as i32, sink);
        } else {
            let (int, frac) = digits.split_at(self.point as usize);
            sink.put(int);
            sink.put(b".");
            sink.put(frac);
        }
    }

    fn push(&mut self, digit: u8) {
        if let Some(slot) = self.digits.get_mut(self.len) {
            *slot = b'0' + digit;
            self.len += 1;
        }
    }

    /// The shortest decimal that reads back as `x` (finite, > 0); of two equally short ones the
    /// closer to `x`, and on an exact tie the even one (`ties_to_even`, ECMAScript) or the larger
    /// (Rust's `Display`).
    pub fn shortest(x: f64, ties_to_even: bool) -> Decimal {
        let mut decimal = Decimal {
            digits: [0; 17],
            len: 0,
            point: 0,
        };
        if let Some((n, frac_digits)) = short_fraction(x) {
            let mut text = Vec::new();
            write_uint(n, &mut text);
            while text.last() == Some(&b'0') {
                text.pop();
            }
            decimal.len = text.len().min(17);
            for (slot, digit) in decimal.digits.iter_mut().zip(text) {
                *slot = digit;
            }
            decimal.point = decimal_len(n) - frac_digits;
            return decimal;
        }
        decimal.generate(x, ties_to_even);
        decimal
    }

    /// Burger and Dybvig's free-format algorithm (PLDI 1996) in exact arithmetic: `x = r / s`,
    /// and the values that read back as `x` are those within `m_minus / s` below and `m_plus / s`
    /// above it (bounds included when the mantissa is even, as round-half-even parsing maps them
    /// to `x`).
    #[inline(never)]
    fn generate(&mut self, x: f64, ties_to_even: bool) {
        let bits = x.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let fraction = bits & ((1 << 52) - 1);
        let (mant, exp) = if biased == 0 {
            (fraction, -1074)
        } else {
            (fraction | (1 << 52), biased - 1075)
        };
        let inclusive = mant % 2 == 0;
        // At a power of two (above the smallest normal) the gap below is half the gap above.
        let narrow_below = fraction == 0 && biased > 1;
        let factor = if narrow_below { 4 } else { 2 };
        let mut r = Big::from_u64(mant * factor);
        let mut s = Big::from_u64(factor);
        let mut m_plus = Big::from_u64(factor / 2);
        let mut m_minus = Big::from_u64(1);
        if exp >= 0 {
            r.shl(exp as u32);
            m_plus.shl(exp as u32);
            m_minus.shl(exp as u32);
        } else {
            s.shl(exp.unsigned_abs());
        }
        // 10^(k-1) <= x < 10^(k+1) for this estimate of log10(x); the check below settles it.
        let bit_len = 64 - mant.leading_zeros() as i32;
        let mut k = (f64::from(bit_len + exp - 1) * std::f64::consts::LOG10_2).ceil() as i32;
        if k >= 0 {
            s.mul_pow(10, k as u32);
        } else {
            r.mul_pow(10, k.unsigned_abs());
            m_plus.mul_pow(10, k.unsigned_abs());
            m_minus.mul_pow(10, k.unsigned_abs());
        }
        // `below(a, b)`: a < b, or a <= b when the bounds are included.
        let below = |a: &Big, b: &Big| match a.cmp(b) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Equal => inclusive,
            std::cmp::Ordering::Greater => false,
        };
        if below(&s, &r.plus(&m_plus)) {
            k += 1;
        } else {
            r.mul_add(10, 0);
            m_plus.mul_add(10, 0);
            m_minus.mul_add(10, 0);
        }
        self.point = k;
        loop {
            let mut digit = 0;
            while r.cmp(&s).is_ge() {
                r.sub(&s);
                digit += 1;
            }
            let low = below(&r, &m_minus);
            let high = below(&s, &r.plus(&m_plus));
            if low || high || self.len == self.digits.len() {
                let round_up = high && {
                    let twice = r.plus(&r);
                    match twice.cmp(&s) {
                        std::cmp::Ordering::Less => !low,
                        std::cmp::Ordering::Equal => !low || !ties_to_even || digit % 2 == 1,
                        std::cmp::Ordering::Greater => true,
                    }
                };
                self.push(digit);
                if round_up {
                    self.increment();
                }
                return;
            }
            self.push(digit);
            r.mul_add(10, 0);
            m_plus.mul_add(10, 0);
            m_minus.mul_add(10, 0);
        }
    }

    /// Adds one unit in the last digit, dropping the trailing zeros a carry leaves.
    fn increment(&mut self) {
        while let Some(last) = self.len.checked_sub(1) {
            match self.digits.get_mut(last) {
                Some(digit) if *digit < b'9' => {
                    *digit += 1;
                    return;
                }
                _ => self.len = last,
            }
        }
        // All nines: 0.99…9 × 10^point rounds up to 0.1 × 10^(point + 1).
        self.push(1);
        self.point += 1;
    }
}

/// `(n, f)` with `n / 10^f == x` and `n` below 10^15, for the smallest such `f` in 1..=22. Fewer
/// than 16 digits leave round-trip candidates no more than 0.12 from `x * 10^f`, so the rounded
/// floating-point product is the only candidate, and the division (exact operands, one rounding)
/// reads it back exactly as parsing would. Covers most non-integers met in practice without
/// big-number arithmetic.
fn short_fraction(x: f64) -> Option<(u64, i32)> {
    let mut scale = 1.0;
    for frac_digits in 1..=22 {
        // Powers of ten up to 10^22 are exact doubles.
        scale *= 10.0;
        let scaled = x * scale;
        if scaled >= 1e15 {
            return None;
        }
        let n = scaled.round();
        if n / scale == x {
            return Some((n as u64, frac_digits));
        }
    }
    None
}

/// The number of decimal digits of `n`.
fn decimal_len(mut n: u64) -> i32 {
    let mut len = 1;
    while n >= 10 {
        n /= 10;
        len += 1;
    }
    len
}

/// Limbs in a `Big`: room for 2700 bits, above every intermediate of `Decimal::generate` (below
/// 2^1160) and of `crate::json::float_parse` (below 2^2660, for 800 kept digits).
const BIG_LIMBS: usize = 85;

/// An unsigned integer of up to `BIG_LIMBS` 32-bit limbs (little-endian). Limbs from `len` on
/// are zero.
#[derive(Clone)]
pub(crate) struct Big {
    limbs: [u32; BIG_LIMBS],
    len: usize,
}

impl Big {
    pub fn from_u64(n: u64) -> Big {
        let mut big = Big {
            limbs: [0; BIG_LIMBS],
            len: 2,
        };
        for (limb, part) in big.limbs.iter_mut().zip([n as u32, (n >> 32) as u32]) {
            *limb = part;
        }
        big.trim();
        big
    }

    fn trim(&mut self) {
        while self.len > 0 && self.limbs.get(self.len - 1) == Some(&0) {
            self.len -= 1;
        }
    }

    fn used(&self) -> &[u32] {
        self.limbs.get(..self.len).unwrap_or_default()
    }

    pub fn is_zero(&self) -> bool {
        self.len == 0
    }

    /// The number of significant bits.
    pub fn bit_len(&self) -> u32 {
        let top = self.used().last().map_or(0, |limb| limb.leading_zeros());
        self.len as u32 * 32 - top
    }

    /// `self * factor + addend`.
    #[inline(never)]
    pub fn mul_add(&mut self, factor: u32, addend: u32) {
        let mut carry = u64::from(addend);
        for limb in self.limbs.iter_mut().take(self.len) {
            let v = u64::from(*limb) * u64::from(factor) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            if let Some(limb) = self.limbs.get_mut(self.len) {
                *limb = carry as u32;
                self.len += 1;
            }
        }
    }

    /// Multiplies by `base^n`, a limb-sized power at a time.
    #[inline(never)]
    pub fn mul_pow(&mut self, base: u32, mut n: u32) {
        let (mut chunk, mut step) = (base, 1);
        while let Some(next) = chunk.checked_mul(base) {
            chunk = next;
            step += 1;
        }
        while n >= step {
            self.mul_add(chunk, 0);
            n -= step;
        }
        self.mul_add(base.pow(n), 0);
    }

    /// Multiplies by 2^bits.
    #[inline(never)]
    pub fn shl(&mut self, bits: u32) {
        let words = (bits / 32) as usize;
        let bits = bits % 32;
        let old = self.limbs;
        let mut carry = 0u32;
        let mut len = 0;
        for (i, limb) in self.limbs.iter_mut().enumerate().take(self.len + words + 1) {
            let src = i
                .checked_sub(words)
                .and_then(|j| old.get(j))
                .copied()
                .unwrap_or(0);
            *limb = if bits == 0 {
                src
            } else {
                (src << bits) | carry
            };
            carry = if bits == 0 { 0 } else { src >> (32 - bits) };
            if *limb != 0 {
                len = i + 1;
            }
        }
        self.len = len;
    }

    #[inline(never)]
    fn plus(&self, other: &Big) -> Big {
        let mut sum = self.clone();
        let mut carry = 0u64;
        let len = self.len.max(other.len);
        for (i, limb) in sum.limbs.iter_mut().enumerate().take(len + 1) {
            let v = u64::from(*limb) + u64::from(other.limbs.get(i).copied().unwrap_or(0)) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        sum.len = (len + 1).min(sum.limbs.len());
        sum.trim();
        sum
    }

    /// Subtracts `other`, which is not larger.
    #[inline(never)]
    pub fn sub(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for (i, limb) in self.limbs.iter_mut().enumerate().take(self.len) {
            let v = i64::from(*limb) - i64::from(other.limbs.get(i).copied().unwrap_or(0)) - borrow;
            *limb = v as u32;
            borrow = i64::from(v < 0);
        }
        self.trim();
    }

    #[inline(never)]
    pub fn cmp(&self, other: &Big) -> std::cmp::Ordering {
        self.len
            .cmp(&other.len)
            .then_with(|| self.used().iter().rev().cmp(other.used().iter().rev()))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_hash_sink_hashes_everything_and_leaves_its_buffer_cleared() {
        let long: Vec<u8> = (0..300u32).map(|i| (i % 251) as u8 + 1).collect();
        let pieces: [&[u8]; 4] = [b"short", long.get(..200).unwrap(), &long, b"tail"];
        let mut sink = HashSink::new();
        for piece in pieces {
            sink.put(piece);
        }
        let mut copy = HashSink::new();
        for piece in pieces {
            copy.put(piece);
        }
        copy.flush_and_clear();
        assert!(copy.buffer.iter().all(|b| *b == 0));
        assert_eq!(sink.finish(), sha256(&pieces.concat()));
    }

    fn canon(text: &str) -> String {
        to_canonical_string(&serde_json::from_str(text).unwrap())
    }

    #[test]
    fn integer_fast_path_matches_the_general_formatter() {
        for x in [
            0.0,
            -0.0,
            7.0,
            -42.0,
            1e20,
            999_999_999_999_999_900_000.0,
            9007199254740993.0,
        ] {
            let mut fast = Vec::new();
            write_number(x, &mut fast);
            assert_eq!(String::from_utf8(fast).unwrap(), format_number(x), "{x}");
        }
    }

    #[test]
    fn numbers_follow_ecmascript() {
        let cases = [
            (1.0, "1"),
            (-0.0, "0"),
            (0.5, "0.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123456789.125, "123456789.125"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (-1.5e-9, "-1.5e-9"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (4.5, "4.5"),
            (0.1 + 0.2, "0.30000000000000004"),
            (9007199254740993.0, "9007199254740992"),
            (2.2250738585072014e-308, "2.2250738585072014e-308"),
            (123e-20, "1.23e-18"),
            (19.99, "19.99"),
            // Exact ties between two shortest candidates go to the even one (as in V8; Rust's
            // `{:e}` rounds these up, to ...624.3 and ...248.5).
            (2f64.powi(50) + 0.25, "1125899906842624.2"),
            (2f64.powi(50) + 0.75, "1125899906842624.8"),
            (2f64.powi(52) - 0.5, "4503599627370495.5"),
        ];
        for (x, want) in cases {
            assert_eq!(format_number(x), want, "{x}");
        }
    }

    #[test]
    fn numbers_are_shortest_and_read_back() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..50_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            for x in [
                f64::from_bits(state),
                (state % 100_000_000) as f64 / 10_000.0,
            ] {
                if !x.is_finite() || x == 0.0 {
                    continue;
                }
                let text = format_number(x);
                assert_eq!(text.parse::<f64>().unwrap(), x, "{text}");
                // Rust's `{:e}` gives the shortest digits too (ties aside, of the same length).
                let sci = format!("{:e}", x.abs());
                let want = sci.split('e').next().unwrap().replace('.', "").len();
                let mantissa = text.trim_start_matches('-').split('e').next().unwrap();
                let got = mantissa.trim_start_matches(['0', '.']).replace('.', "");
                assert_eq!(got.trim_end_matches('0').len(), want, "{text} vs {sci}");
            }
        }
    }

    #[test]
    fn keys_sort_by_utf16_and_strings_escape_minimally() {
        assert_eq!(
            canon(r#"{"b":1,"a":[1.0,true,null]}"#),
            r#"{"a":[1,true,null],"b":1}"#
        );
        // U+E000 sorts after U+1F600 in UTF-8 but before it in UTF-16 (surrogates are D8xx).
        assert_eq!(
            canon("{\"\u{e000}\":1,\"\u{1f600}\":2}"),
            "{\"\u{1f600}\":2,\"\u{e000}\":1}"
        );
        assert_eq!(canon(r#""a\u0001\n\"\\/é""#), "\"a\\u0001\\n\\\"\\\\/é\"");
    }

    #[test]
    fn plain_prefix_stops_at_the_first_special_byte() {
        for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            for at in 0..20 {
                let mut bytes: Vec<u8> = (0..20)
                    .map(|i| match i {
                        i if i == at => special,
                        3 => 0xc3,
                        _ => b'a',
                    })
                    .collect();
                bytes.extend_from_slice(&[0x7f, 0x80, 0xff, b' ']);
                assert_eq!(plain_prefix_len(&bytes), at, "{special} at {at}");
            }
        }
        assert_eq!(plain_prefix_len("héllo wörld, ok ".as_bytes()), 18);
    }

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

    #[test]
    fn rfc8785_sample_numbers() {
        assert_eq!(
            canon(r#"[333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001]"#),
            "[333333333.3333333,1e+30,4.5,0.002,1e-27]"
        );
    }
}
