//! A small deterministic generator for randomised tests (xorshift64), so that a failure names a
//! case that reproduces. The crate's unit tests use it as `crate::json::test_rng`;
//! `tests/hostile_input.rs` includes this file with `#[path]`, as integration tests cannot reach
//! `cfg(test)` items of the library.

/// xorshift64 (Marsaglia, 2003) from a non-zero seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (not zero).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}
