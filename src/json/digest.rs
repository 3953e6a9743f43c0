//! Where canonical bytes go: the `ByteSink` trait (a byte vector, `Discard`, or `HashSink`, a
//! digest, `window_hash`'s, that leaves no copy of what it hashed behind) and `sha256` of bytes in one piece. An embedding with a
//! faster SHA-256 than the compiled one (the host's native one, for a wasm build) offers it with
//! `set_host_sha256`; digests are the same either way.

use crate::json::window_hash::window_digest;
use sha2::{Digest as _, Sha256};
use std::cell::Cell;

/// A SHA-256 digest.
pub type Digest = [u8; 32];

/// A SHA-256 the embedding offers (see `set_host_sha256`); `None` when it failed.
pub type HostSha256 = fn(&[u8]) -> Option<Digest>;

/// Inputs at least this long go to the host's SHA-256 when there is one: below, the call into the
/// host costs more than hashing in place. Measured through the package: compiled, ~0.5 µs plus
/// ~0.25 µs a 64-byte block; node:crypto's one-shot through `setHostSha256`, ~0.8 µs plus ~0.75 ns
/// a byte at best. From 128 bytes (three blocks with the padding) the host is ahead inside real
/// checks and records on Node 22, 24 and 26 (bench rows (a), (b) and the real records); at 64 it
/// is not. Node 20, where 128 was slower, is below the package's engines.
const HOST_SHA256_MIN_BYTES: usize = 128;

thread_local! {
    static HOST_SHA256: Cell<Option<HostSha256>> = const { Cell::new(None) };
    /// The zeroed buffer of the last finished `HashSink`, for the next one.
    static SPARE: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// Offers the embedding's SHA-256 for long inputs (`None` withdraws it); the wasm bindings do.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub fn set_host_sha256(hasher: Option<HostSha256>) {
    HOST_SHA256.with(|host| host.set(hasher));
}

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
    /// The SHA-256 sink.
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

/// Bytes gathered before they are moved to the stream (see `HashSink`).
const STAGE_BYTES: usize = 256;
/// A stream buffer that grew past this is not kept for the next sink.
const SPARE_MAX_BYTES: usize = 64 * 1024;

/// SHA-256 of everything put, taken in one piece at `finish`, so that a long stream can go to the
/// host's SHA-256. Canonical writers put many tiny pieces (quotes, commas, keys): they are copied
/// into a small stage inline, which is moved to the stream when full. Both hold raw content, so
/// every byte written to them is zeroed at `finish` (or drop); the stream's buffer is then kept,
/// zeroed, for the next sink.
pub struct HashSink {
    stage: [u8; STAGE_BYTES],
    len: usize,
    /// The most bytes the stage held before a move (those beyond `len` still hold old content).
    high_water: usize,
    stream: Vec<u8>,
}

impl HashSink {
    pub fn new() -> Self {
        HashSink {
            stage: [0; STAGE_BYTES],
            len: 0,
            high_water: 0,
            stream: SPARE.with(Cell::take),
        }
    }

    /// Moves what is staged to the stream.
    fn unstage(&mut self) {
        self.high_water = self.high_water.max(self.len);
        extend_zeroing(
            &mut self.stream,
            self.stage.get(..self.len).unwrap_or_default(),
        );
        self.len = 0;
    }

    /// The digest (`window_hash::window_digest`: the run's keyed hash while a run's call is
    /// judged, else SHA-256); every buffer is zeroed, the stream's kept for the next sink.
    pub fn finish(&mut self) -> Digest {
        let digest = if self.stream.is_empty() {
            window_digest(self.stage.get(..self.len).unwrap_or_default())
        } else {
            self.unstage();
            window_digest(&self.stream)
        };
        self.clear();
        digest
    }

    /// Zeroes every byte written and hands the stream's buffer over as the spare.
    fn clear(&mut self) {
        let written = self.high_water.max(self.len);
        if let Some(stage) = self.stage.get_mut(..written) {
            stage.fill(0);
        }
        std::hint::black_box(&mut self.stage);
        (self.len, self.high_water) = (0, 0);
        if self.stream.capacity() == 0 {
            return;
        }
        self.stream.fill(0);
        self.stream.clear();
        std::hint::black_box(&mut self.stream);
        if self.stream.capacity() <= SPARE_MAX_BYTES {
            SPARE.with(|spare| spare.set(std::mem::take(&mut self.stream)));
        }
    }

    /// `put` of bytes that do not fit what is left of the stage: the stage moved to the stream,
    /// then the bytes staged or, if larger than the stage, added to the stream directly.
    #[inline(never)]
    fn put_after_unstaging(&mut self, bytes: &[u8]) {
        self.unstage();
        if let Some(room) = self.stage.get_mut(..bytes.len()) {
            room.copy_from_slice(bytes);
            self.len = bytes.len();
        } else {
            extend_zeroing(&mut self.stream, bytes);
        }
    }
}

/// Appends `bytes` to `stream`; when that needs a larger buffer, the old one is zeroed as it goes.
fn extend_zeroing(stream: &mut Vec<u8>, bytes: &[u8]) {
    let needed = stream.len() + bytes.len();
    if needed > stream.capacity() {
        let mut larger = Vec::with_capacity(needed.max(2 * stream.capacity()).max(4096));
        larger.extend_from_slice(stream);
        stream.fill(0);
        std::hint::black_box(&mut *stream);
        *stream = larger;
    }
    stream.extend_from_slice(bytes);
}

impl Default for HashSink {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for HashSink {
    /// A sink dropped without `finish` (an error midway) leaves nothing behind either.
    fn drop(&mut self) {
        self.clear();
    }
}

impl ByteSink for HashSink {
    /// Copies `bytes` into the stage; small enough to be inlined into the canonical writers,
    /// which put many tiny pieces.
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        match self.stage.get_mut(self.len..end) {
            Some(room) => {
                room.copy_from_slice(bytes);
                self.len = end;
            }
            None => self.put_after_unstaging(bytes),
        }
    }

    fn sort(&mut self) -> Sink<'_> {
        Sink::Hash(self)
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

/// A sink that keeps nothing: for a writer read only for what it passes by (`json::members`).
pub struct Discard;

impl ByteSink for Discard {
    fn put(&mut self, _bytes: &[u8]) {}

    fn sort(&mut self) -> Sink<'_> {
        Sink::Other(self)
    }
}

/// SHA-256 of raw bytes: the host's for long inputs when it offers one, else the compiled one.
pub fn sha256(bytes: &[u8]) -> Digest {
    let host = HOST_SHA256
        .with(Cell::get)
        .filter(|_| bytes.len() >= HOST_SHA256_MIN_BYTES);
    if let Some(digest) = host.and_then(|hash| hash(bytes)) {
        return digest;
    }
    let mut hasher = Sha256::new();
    hasher.update(bytes);
    let digest = hasher.finalize_reset().into();
    // Finalising only rewinds the block buffer: the last partial block (up to 63 bytes of the
    // input) stays in it unless overwritten. 63 bytes fill it without completing a block.
    hasher.update([0u8; 63]);
    std::hint::black_box(hasher);
    digest
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn compiled_sha256(bytes: &[u8]) -> Digest {
        Sha256::digest(bytes).into()
    }

    #[test]
    fn the_hash_sink_hashes_everything_and_leaves_its_buffers_zeroed() {
        let long: Vec<u8> = (0..3000u32).map(|i| (i % 251) as u8 + 1).collect();
        let pieces: [&[u8]; 5] = [b"short", long.get(..200).unwrap(), &long, &long, b"tail"];
        let mut sink = HashSink::new();
        for piece in pieces {
            sink.put(piece);
        }
        assert_eq!(sink.finish(), compiled_sha256(&pieces.concat()));
        assert!(sink.stage.iter().all(|b| *b == 0));
        let spare = SPARE.with(Cell::take);
        assert!(spare.is_empty() && spare.capacity() >= 6000);
        let mut unfinished = HashSink::new();
        unfinished.put(&long);
        unfinished.put(b"x");
        drop(unfinished);
        assert!(SPARE.with(Cell::take).capacity() > 0);
    }

    thread_local! {
        static HOST_CALLS: Cell<usize> = const { Cell::new(0) };
    }

    fn counting_host(bytes: &[u8]) -> Option<Digest> {
        HOST_CALLS.with(|calls| calls.set(calls.get() + 1));
        Some(compiled_sha256(bytes))
    }

    #[test]
    fn long_inputs_go_to_the_host_with_the_same_digest() {
        set_host_sha256(Some(counting_host));
        let short = vec![7u8; HOST_SHA256_MIN_BYTES - 1];
        let long = vec![7u8; HOST_SHA256_MIN_BYTES];
        assert_eq!(sha256(&short), compiled_sha256(&short));
        assert_eq!(HOST_CALLS.with(Cell::get), 0);
        let mut sink = HashSink::new();
        sink.put(&long);
        assert_eq!(sink.finish(), compiled_sha256(&long));
        assert_eq!(HOST_CALLS.with(Cell::get), 1);
        set_host_sha256(Some(|_| None));
        assert_eq!(
            sha256(&long),
            compiled_sha256(&long),
            "a failing host falls back"
        );
        set_host_sha256(None);
    }
}
