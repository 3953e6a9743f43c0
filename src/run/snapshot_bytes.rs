//! The byte layer both snapshot formats share (the default presets' `TLGS` in `snapshot`, the
//! `openclaw` preset's `TLGO`): a little-endian writer that seals its bytes with their SHA-256,
//! and a bounds-checked reader whose failures are `invalid_snapshot` errors in its format's words.

use crate::error::GuardError;
use crate::json::digest::{sha256, Digest};
use crate::json::window_hash::WindowHash;

/// Upper bound on a stored count or length, so corrupt or hostile bytes never allocate without
/// limit.
const MAX_ITEMS: u32 = 1_000_000;

pub struct Writer(Vec<u8>);

impl Writer {
    pub fn with_capacity(capacity: usize) -> Self {
        Self(Vec::with_capacity(capacity))
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }
    pub fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    pub fn u16(&mut self, v: u16) {
        self.bytes(&v.to_le_bytes());
    }
    pub fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
    pub fn f64(&mut self, v: f64) {
        self.bytes(&v.to_le_bytes());
    }
    pub fn digest(&mut self, d: &Digest) {
        self.bytes(d);
    }
    /// What the run's window digests with: 0 for SHA-256, or 1 and the run's 128-bit key.
    pub fn window_hash(&mut self, hash: WindowHash) {
        match hash {
            WindowHash::Sha256 => self.u8(0),
            WindowHash::Keyed([k0, k1]) => {
                self.u8(1);
                self.bytes(&(u128::from(k0) | u128::from(k1) << 64).to_le_bytes());
            }
        }
    }
    /// A count or length as a `u32` (saturating; the reader refuses it past `MAX_ITEMS`).
    pub fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }
    pub fn str(&mut self, s: &str) {
        self.len(s.len());
        self.bytes(s.as_bytes());
    }
    /// A presence byte (0 or 1), then the value when there is one.
    pub fn opt<T>(&mut self, v: Option<T>, put: impl FnOnce(&mut Self, T)) {
        match v {
            None => self.u8(0),
            Some(v) => {
                self.u8(1);
                put(self, v);
            }
        }
    }
    /// The bytes written, followed by their SHA-256.
    pub fn sealed(mut self) -> Vec<u8> {
        let checksum = sha256(&self.0);
        self.bytes(&checksum);
        self.0
    }
}

pub struct Reader<'a> {
    rest: &'a [u8],
    /// The format's `invalid_snapshot` error for a reason.
    corrupt: fn(&str) -> GuardError,
}

// `str` and the cold `corrupt` stay out of line: inlined into every field read of both decoders
// they made the .wasm 1.3 KB (gzip) bigger than the two readers this one replaces.
impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8], corrupt: fn(&str) -> GuardError) -> Self {
        Self {
            rest: bytes,
            corrupt,
        }
    }
    #[cold]
    #[inline(never)]
    fn corrupt(&self, why: &str) -> GuardError {
        (self.corrupt)(why)
    }
    pub fn at_end(&self) -> bool {
        self.rest.is_empty()
    }
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], GuardError> {
        let (head, tail) = self
            .rest
            .split_at_checked(n)
            .ok_or_else(|| self.corrupt("it is truncated"))?;
        self.rest = tail;
        Ok(head)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], GuardError> {
        self.take(N)?
            .try_into()
            .map_err(|_| self.corrupt("it is truncated"))
    }
    pub fn u8(&mut self) -> Result<u8, GuardError> {
        let [byte] = self.array::<1>()?;
        Ok(byte)
    }
    pub fn u16(&mut self) -> Result<u16, GuardError> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    pub fn u32(&mut self) -> Result<u32, GuardError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    pub fn u64(&mut self) -> Result<u64, GuardError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    /// A time or a duration: a finite number (a host's `at` and `Date.now()` always are).
    pub fn f64(&mut self) -> Result<f64, GuardError> {
        let value = f64::from_le_bytes(self.array()?);
        match value.is_finite() {
            true => Ok(value),
            false => Err(self.corrupt("a time is not a finite number")),
        }
    }
    pub fn digest(&mut self) -> Result<Digest, GuardError> {
        self.array()
    }
    /// What the run's window digests with, as `Writer::window_hash` wrote it.
    #[inline(never)]
    pub fn window_hash(&mut self) -> Result<WindowHash, GuardError> {
        match self.u8()? {
            0 => Ok(WindowHash::Sha256),
            1 => {
                let key = u128::from_le_bytes(self.array()?);
                Ok(WindowHash::Keyed([key as u64, (key >> 64) as u64]))
            }
            _ => Err(self.corrupt("its window hash marker is invalid")),
        }
    }
    /// A count or length written by `Writer::len`, at most `MAX_ITEMS`.
    pub fn len(&mut self) -> Result<u32, GuardError> {
        let n = self.u32()?;
        if n > MAX_ITEMS {
            return Err(self.corrupt("a length is implausibly large"));
        }
        Ok(n)
    }
    #[inline(never)]
    pub fn str(&mut self) -> Result<String, GuardError> {
        let n = self.len()? as usize;
        let bytes = self.take(n)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| self.corrupt("a name is not valid UTF-8"))
    }
    pub fn flag(&mut self) -> Result<bool, GuardError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(self.corrupt("a flag byte is invalid")),
        }
    }
    /// A value written by `Writer::opt`.
    pub fn opt<T>(
        &mut self,
        get: impl FnOnce(&mut Self) -> Result<T, GuardError>,
    ) -> Result<Option<T>, GuardError> {
        if self.flag()? {
            get(self).map(Some)
        } else {
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::error::ErrorCode;

    fn corrupt(why: &str) -> GuardError {
        GuardError::new(ErrorCode::InvalidSnapshot, None, format!("test: {why}"))
    }

    #[test]
    fn reads_back_what_was_written_then_the_checksum() {
        let mut w = Writer::with_capacity(0);
        w.u16(7);
        w.f64(1.5);
        w.opt(Some("run"), Writer::str);
        w.opt(None::<u64>, Writer::u64);
        let bytes = w.sealed();
        let mut r = Reader::new(&bytes, corrupt);
        assert_eq!(r.u16().unwrap(), 7);
        assert_eq!(r.f64().unwrap(), 1.5);
        assert_eq!(r.opt(Reader::str).unwrap().as_deref(), Some("run"));
        assert_eq!(r.opt(Reader::u64).unwrap(), None);
        let body = bytes.len() - 32;
        assert_eq!(r.digest().unwrap(), sha256(bytes.get(..body).unwrap()));
        assert!(r.at_end());
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut w = Writer::with_capacity(0);
            w.f64(bad);
            let bytes = w.sealed();
            assert!(Reader::new(&bytes, corrupt).f64().is_err());
        }
    }

    #[test]
    fn refuses_short_bytes_huge_lengths_and_bad_flags_in_the_formats_words() {
        let err = Reader::new(&[1, 2], corrupt).u32().unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidSnapshot);
        assert_eq!(err.message, "test: it is truncated");
        let huge = (MAX_ITEMS + 1).to_le_bytes();
        let err = Reader::new(&huge, corrupt).str().unwrap_err();
        assert_eq!(err.message, "test: a length is implausibly large");
        assert_eq!(
            Reader::new(&[2], corrupt).flag().unwrap_err().message,
            "test: a flag byte is invalid"
        );
    }
}
