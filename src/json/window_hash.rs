//! What a run's window digests its canonical bytes with (arguments, outcomes): a keyed SipHash-1-3
//! with a key of the run's own, or SHA-256. The window only ever compares digests with digests of
//! the same run, so they need not be SHA-256; what leaves the guard to be compared elsewhere does
//! (`fingerprint()`, which runs with no run's key in scope, and the `textSha256` digests of long
//! texts, `digest::sha256`).
//!
//! A run's key is derived from a secret of the instance and the run's id, so that a key carried
//! out by a snapshot (which needs it: the run's digests go with it to another guard) tells nothing
//! of other runs' keys. The secret is the embedding's to set (`set_secret`: the wasm bindings get
//! random bytes from the JS runtime); native builds draw one from the OS on first use. Without a
//! secret, and for runs from snapshots of an earlier version, the window digests with SHA-256.
//!
//! SipHash is a PRF: without the key, nobody can choose an outcome whose 64-bit fingerprint meets
//! another's. It costs about a tenth of SHA-256 in wasm and needs no call into the host.

use crate::json::digest::{sha256, Digest};
use std::cell::Cell;

/// A run's 128-bit SipHash key.
pub type RunKey = [u64; 2];

/// How a run's window digests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WindowHash {
    /// SHA-256: no secret, or a run from a snapshot of an earlier version.
    #[default]
    Sha256,
    /// SipHash-1-3 under the run's key.
    Keyed(RunKey),
}

thread_local! {
    /// The instance's secret: unset (`None`) until set or, natively, drawn on first use;
    /// `Some(None)` when windows digest with SHA-256.
    static SECRET: Cell<Option<Option<RunKey>>> = const { Cell::new(None) };
    /// The hash of the run whose call is being judged (`in_scope`); SHA-256 outside any.
    static CURRENT: Cell<WindowHash> = const { Cell::new(WindowHash::Sha256) };
}

/// Sets the instance's secret (`None`: windows digest with SHA-256 from now on). Runs already in
/// a guard keep digesting as before only if the secret does not change under them: the bindings
/// set it once, before any guard exists, and again only when the instance is replaced.
pub fn set_secret(secret: Option<RunKey>) {
    SECRET.with(|cell| cell.set(Some(secret)));
}

/// The instance's secret: the one set, else the first one drawn (none in wasm, where only the
/// host has randomness to give).
fn secret() -> Option<RunKey> {
    SECRET.with(|cell| match cell.get() {
        Some(secret) => secret,
        None => {
            let drawn = first_secret();
            cell.set(Some(drawn));
            drawn
        }
    })
}

#[cfg(target_arch = "wasm32")]
fn first_secret() -> Option<RunKey> {
    None
}

#[cfg(not(target_arch = "wasm32"))]
fn first_secret() -> Option<RunKey> {
    Some(os_random_key())
}

/// A key from the standard library's per-process random hashing keys (the OS's randomness).
#[cfg(not(target_arch = "wasm32"))]
fn os_random_key() -> RunKey {
    use std::hash::{BuildHasher, Hasher};
    let state = std::collections::hash_map::RandomState::new();
    let draw = |salt: u64| {
        let mut hasher = state.build_hasher();
        hasher.write_u64(salt);
        hasher.finish()
    };
    [draw(0x6b65_7930), draw(0x6b65_7931)]
}

/// The hash a run of this id digests with when nothing else was imported for it: a key made of
/// two SipHashes of the id under the secret, each with its own tweak of the key (other tweaks for
/// the default run, which has no id), so nothing is allocated per call.
#[inline(never)]
pub fn derived(run_id: Option<&str>) -> WindowHash {
    let Some([s0, s1]) = secret() else {
        return WindowHash::Sha256;
    };
    let (tweak, id) = match run_id {
        Some(id) => (1, id.as_bytes()),
        None => (3, &b""[..]),
    };
    WindowHash::Keyed([
        siphash13([s0 ^ tweak, s1], id),
        siphash13([s0 ^ (tweak + 1), s1], id),
    ])
}

/// Runs `judge` with `hash` as the window's digest (restored afterwards, also on unwinding).
pub fn in_scope<T>(hash: WindowHash, judge: impl FnOnce() -> T) -> T {
    struct Restore(WindowHash);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|cell| cell.set(self.0));
        }
    }
    let _restore = Restore(CURRENT.with(|cell| cell.replace(hash)));
    judge()
}

/// The window digest of canonical bytes under the hash in scope: the SipHash's 64 bits (all the
/// window keeps, `call_record::fingerprint`) then zeros, or the SHA-256.
pub fn window_digest(bytes: &[u8]) -> Digest {
    match CURRENT.with(Cell::get) {
        WindowHash::Sha256 => sha256(bytes),
        WindowHash::Keyed(key) => {
            let mut digest = [0u8; 32];
            if let Some(head) = digest.first_chunk_mut::<8>() {
                *head = siphash13(key, bytes).to_le_bytes();
            }
            digest
        }
    }
}

/// SipHash-1-3 (one compression round per word, three finalisation rounds) of `bytes`.
#[inline(never)]
pub fn siphash13(key: RunKey, bytes: &[u8]) -> u64 {
    siphash::<1, 3>(key, bytes)
}

/// SipHash-c-d as Aumasson and Bernstein define it, 64-bit output.
fn siphash<const C: usize, const D: usize>(key: RunKey, bytes: &[u8]) -> u64 {
    let [k0, k1] = key;
    let mut v = [
        k0 ^ 0x736f_6d65_7073_6575,
        k1 ^ 0x646f_7261_6e64_6f6d,
        k0 ^ 0x6c79_6765_6e65_7261,
        k1 ^ 0x7465_6462_7974_6573,
    ];
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let m = u64::from_le_bytes(word.try_into().unwrap_or_default());
        compress::<C>(&mut v, m);
    }
    let mut last = (bytes.len() as u64 & 0xff) << 56;
    for (i, byte) in words.remainder().iter().enumerate() {
        last |= u64::from(*byte) << (8 * i);
    }
    compress::<C>(&mut v, last);
    v[2] ^= 0xff;
    for _ in 0..D {
        round(&mut v);
    }
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

/// Absorbs one message word with `C` rounds.
#[inline(always)]
fn compress<const C: usize>(v: &mut [u64; 4], m: u64) {
    v[3] ^= m;
    for _ in 0..C {
        round(v);
    }
    v[0] ^= m;
}

/// One SipRound.
#[inline(always)]
fn round(v: &mut [u64; 4]) {
    let [mut v0, mut v1, mut v2, mut v3] = *v;
    v0 = v0.wrapping_add(v1);
    v1 = v1.rotate_left(13) ^ v0;
    v0 = v0.rotate_left(32);
    v2 = v2.wrapping_add(v3);
    v3 = v3.rotate_left(16) ^ v2;
    v0 = v0.wrapping_add(v3);
    v3 = v3.rotate_left(21) ^ v0;
    v2 = v2.wrapping_add(v1);
    v1 = v1.rotate_left(17) ^ v2;
    v2 = v2.rotate_left(32);
    *v = [v0, v1, v2, v3];
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key 00 01 .. 0f of the SipHash paper's test vectors.
    const PAPER_KEY: RunKey = [0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908];

    #[test]
    fn sip_rounds_match_the_papers_siphash_2_4_vector() {
        // Appendix A: the 15 bytes 00 .. 0e under the key above.
        let message: Vec<u8> = (0..15).collect();
        assert_eq!(siphash::<2, 4>(PAPER_KEY, &message), 0xa129_ca61_49be_45e5);
        // The reference implementation's first vector: the empty message.
        assert_eq!(siphash::<2, 4>(PAPER_KEY, b""), 0x726f_db47_dd0e_0e31);
    }

    #[test]
    fn the_window_digest_follows_the_hash_in_scope_and_is_restored() {
        let bytes = b"{\"path\":\"a.rs\"}";
        assert_eq!(window_digest(bytes), sha256(bytes), "no run in scope");
        let keyed = in_scope(WindowHash::Keyed(PAPER_KEY), || window_digest(bytes));
        assert_eq!(keyed[..8], siphash13(PAPER_KEY, bytes).to_le_bytes());
        assert!(keyed[8..].iter().all(|b| *b == 0));
        let other = in_scope(WindowHash::Keyed([1, 2]), || window_digest(bytes));
        assert_ne!(keyed, other, "another key, another digest");
        assert_eq!(window_digest(bytes), sha256(bytes), "restored");
    }

    #[test]
    fn runs_get_keys_of_their_own_from_one_secret() {
        set_secret(Some([3, 4]));
        let a = derived(Some("a"));
        assert_eq!(a, derived(Some("a")));
        assert_ne!(a, derived(Some("b")));
        assert_ne!(derived(None), derived(Some("")));
        set_secret(Some([5, 6]));
        assert_ne!(a, derived(Some("a")), "another instance, another key");
        set_secret(None);
    }
}
