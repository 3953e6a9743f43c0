//! Cheap, non-cryptographic lookup keys: never fingerprints, never shown, only used to find
//! something again (a run by its id, a pending call by its id or by its argument text). A wrong
//! match is impossible where it would matter: a key only narrows a search that the fingerprints or
//! the exact id then decide, or it picks a pending call whose own fingerprint is then used.

/// FNV-1a, 64 bits, byte by byte: the key of a call id (kept stable: snapshots store it).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The key of a tool name in a run's per-tool state (`outages`, `last_arguments`): 32-bit
/// FNV-1a of its bytes (`json::members::fnv1a`).
pub fn tool_key(tool: &str) -> u32 {
    crate::json::members::fnv1a(crate::json::members::FNV_START, tool.as_bytes())
}

/// Word-at-a-time multiply-and-rotate mixing (as FxHash mixes): much cheaper than a byte-wise hash
/// on long texts.
#[derive(Default, Clone, Copy)]
pub struct WordMix(u64);

const MIX_SEED: u64 = 0x517c_c1b7_2722_0a95;

impl WordMix {
    pub fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(MIX_SEED);
    }

    /// Mixes `bytes` eight at a time; the tail is padded and tagged with its length.
    pub fn add_bytes(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        let mut tail = [0u8; 8];
        if let Some(slot) = tail.get_mut(..rest.len()) {
            slot.copy_from_slice(rest);
        }
        self.add(u64::from_le_bytes(tail) ^ (rest.len() as u64) << 56);
    }

    pub fn finish(self) -> u64 {
        self.0
    }
}

/// The key of an argument text (JSON as sent).
pub fn text_key(text: &[u8]) -> u64 {
    let mut mix = WordMix::default();
    mix.add_bytes(text);
    mix.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_tell_texts_apart() {
        let texts: [&[u8]; 6] = [
            b"",
            b"{}",
            b"{\"a\":1}",
            b"{\"a\":2}",
            b"12345678",
            b"123456789",
        ];
        for (i, a) in texts.iter().enumerate() {
            for b in texts.iter().skip(i + 1) {
                assert_ne!(text_key(a), text_key(b));
                assert_ne!(fnv1a(a), fnv1a(b));
            }
        }
        // Zero padding of the tail does not make a shorter text equal to a longer one.
        assert_ne!(text_key(b"ab"), text_key(b"ab\0"));
    }
}
