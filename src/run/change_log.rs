//! What the calls in a run's window may have changed (`record::effects`): one entry per file an
//! edit named, per API mutation, or per change of directory, keyed by the record's position in the
//! run's history. Only the calls that may write have entries, and entries leave with their
//! records, so a run of reads keeps none. Whether a change happened is the record's: it
//! completed with a new outcome that is not an error (`CallRecord::changed_world`).

use crate::record::effects::Writes;

/// What one call may have changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A file (`effects::file_key` of its name).
    File(u32),
    /// Something only the call itself names (an API mutation, a program that may write): the
    /// first 32 bits of its argument fingerprint, so the same mutation again is the same target.
    Call(u32),
    /// The working directory.
    Everything,
}

impl Target {
    /// The snapshot byte of the target's variant.
    pub fn code(self) -> u8 {
        match self {
            Target::File(_) => 0,
            Target::Call(_) => 1,
            Target::Everything => 2,
        }
    }

    /// The target of snapshot variant `code` with `key`; `None` for an unknown code.
    pub fn from_code(code: u8, key: u32) -> Option<Target> {
        match code {
            0 => Some(Target::File(key)),
            1 => Some(Target::Call(key)),
            2 => Some(Target::Everything),
            _ => None,
        }
    }

    /// The key the snapshot stores (0 for `Everything`).
    pub fn key(self) -> u32 {
        match self {
            Target::File(key) | Target::Call(key) => key,
            Target::Everything => 0,
        }
    }
}

/// The targets of the window's calls that may write, oldest first. Boxed: a run that writes
/// nothing (most runs) pays one pointer for it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChangeLog {
    // A thin pointer (8 bytes), not a `Vec` (24): 100,000 idle runs must fit in 128 MB.
    #[allow(clippy::box_collection)]
    entries: Option<Box<Vec<(u64, Target)>>>,
}

impl ChangeLog {
    /// Notes what the call at history position `seq` may write; `call_key` identifies the call
    /// (its argument fingerprint's first 32 bits) where the writes are not files.
    pub fn note(&mut self, seq: u64, writes: &Writes, call_key: u32) {
        match writes {
            Writes::Nothing => {}
            Writes::Files(files) => {
                for file in files {
                    self.restore(seq, Target::File(*file));
                }
            }
            Writes::Unknown => self.restore(seq, Target::Call(call_key)),
            Writes::Everything => self.restore(seq, Target::Everything),
        }
    }

    /// Adds one entry (entries arrive oldest first; a snapshot's are restored this way).
    pub fn restore(&mut self, seq: u64, target: Target) {
        self.entries
            .get_or_insert_with(Box::default)
            .push((seq, target));
    }

    /// Forgets the entries of records before history position `first_seq`.
    pub fn drop_before(&mut self, first_seq: u64) {
        let Some(entries) = &mut self.entries else {
            return;
        };
        if entries.first().is_some_and(|(seq, _)| *seq < first_seq) {
            entries.retain(|(seq, _)| *seq >= first_seq);
        }
        if entries.is_empty() {
            self.entries = None;
        }
    }

    /// The targets of the call at history position `seq`.
    pub fn targets(&self, seq: u64) -> impl Iterator<Item = Target> + Clone + '_ {
        self.entries()
            .iter()
            .filter(move |(at, _)| *at == seq)
            .map(|(_, target)| *target)
    }

    /// Every entry, oldest first (for snapshots).
    pub fn entries(&self) -> &[(u64, Target)] {
        self.entries.as_deref().map_or(&[], Vec::as_slice)
    }
}
