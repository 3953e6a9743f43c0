//! Where canonical bytes go: the `ByteSink` trait (a byte vector, or `HashSink`, a buffered
//! SHA-256 that leaves no copy of what it hashed behind) and `sha256` of bytes in one piece.

use sha2::{Digest as _, Sha256};

/// A SHA-256 digest.
pub type Digest = [u8; 32];

/// Anything canonical bytes can be written to.
pub trait ByteSink {
    fn put(&mut self, bytes: &[u8]);

    /// This sink, told apart when it is a `HashSink`.
    fn sort(&mut self) -> Sink<'_>;
}

/// A sink told apart: the hashing sink or another. Canonical output is many tiny pieces
/// (brackets, commas, quotes, short keys); the canonical writer copies them into a `HashSink`'s
/// buffer inline, where a call per piece through `dyn ByteSink` would cost more than the copy.
pub enum Sink<'a> {
    /// The buffered SHA-256.
    Hash(&'a mut HashSink),
    /// Any other sink.
    Other(&'a mut dyn ByteSink),
}

impl ByteSink for Sink<'_> {
    #[inline(always)]
    fn put(&mut self, bytes: &[u8]) {
        match self {
            Sink::Hash(hash) => hash.put(bytes),
            Sink::Other(sink) => sink.put(bytes),
        }
    }

    fn sort(&mut self) -> Sink<'_> {
        match self {
            Sink::Hash(hash) => Sink::Hash(hash),
            Sink::Other(sink) => Sink::Other(*sink),
        }
    }
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

    fn sort(&mut self) -> Sink<'_> {
        Sink::Hash(self)
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

    fn sort(&mut self) -> Sink<'_> {
        Sink::Other(self)
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
}
