//! What a run knows of the calls in its window beyond their 32-byte records, keyed by a record's
//! position in the run's history: what a call may have changed (`record::effects`: one note per
//! file an edit named, per API mutation, per change of directory) and the shared cause a failure
//! named (`record::failure_class`: credentials, permissions, a full disk, …). Only calls that may
//! write or that failed so have notes, and notes leave with their records, so a run of reads
//! keeps none. Whether a change happened is the record's: it completed with a new outcome that is
//! not an error (`CallRecord::changed_world`).

use crate::record::effects::Writes;
use crate::verdict::SharedCause;

/// What one call may have changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A file (`effects::file_key` of its name).
    File(u32),
    /// Something only the call itself names (an API mutation, a program that may write, a call
    /// the guard cannot tell is a read): the hash of its tool and argument fingerprint
    /// (`engine::call_facts::call_key`), so the same call again is the same target.
    Call(u32),
    /// The working directory.
    Everything,
}

/// One note about a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Note {
    /// The call may have changed this.
    Wrote(Target),
    /// The call failed for a cause other tools can share.
    Failed(SharedCause),
}

impl Note {
    /// The note's snapshot byte.
    pub fn code(self) -> u8 {
        match self {
            Note::Wrote(Target::File(_)) => 0,
            Note::Wrote(Target::Call(_)) => 1,
            Note::Wrote(Target::Everything) => 2,
            Note::Failed(_) => 3,
        }
    }

    /// The number the snapshot stores with the code (a hash, or the cause's code).
    pub fn key(self) -> u32 {
        match self {
            Note::Wrote(Target::File(key) | Target::Call(key)) => key,
            Note::Wrote(Target::Everything) => 0,
            Note::Failed(cause) => u32::from(cause.code()),
        }
    }

    /// The note of snapshot `code` and `key`; `None` when either names nothing.
    pub fn from_code(code: u8, key: u32) -> Option<Note> {
        match code {
            0 => Some(Note::Wrote(Target::File(key))),
            1 => Some(Note::Wrote(Target::Call(key))),
            2 => Some(Note::Wrote(Target::Everything)),
            3 => u8::try_from(key)
                .ok()
                .and_then(SharedCause::from_code)
                .map(Note::Failed),
            _ => None,
        }
    }
}

/// The notes of the window's records, ordered by position (every change keeps the order). Boxed: a run with none (most runs) pays one
/// pointer for them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordNotes {
    // A thin pointer (8 bytes), not a `Vec` (24): 100,000 idle runs must fit in 128 MB.
    #[allow(clippy::box_collection)]
    entries: Option<Box<Vec<(u64, Note)>>>,
}

impl RecordNotes {
    /// Notes what the call at history position `seq` may write; `call_key` identifies the call
    /// (`call_key`: its tool and argument fingerprint) where the writes are not files.
    pub fn note_writes(&mut self, seq: u64, writes: &Writes, call_key: u32) {
        match writes {
            Writes::Nothing => {}
            Writes::Files(files) => {
                for file in files {
                    self.restore(seq, Note::Wrote(Target::File(*file)));
                }
            }
            Writes::Unknown => self.restore(seq, Note::Wrote(Target::Call(call_key))),
            Writes::Everything => self.restore(seq, Note::Wrote(Target::Everything)),
        }
    }

    /// Adds one note (a snapshot's are restored this way, oldest first).
    pub fn restore(&mut self, seq: u64, note: Note) {
        let entries = self.entries.get_or_insert_with(Box::default);
        // Notes of one record are added together, and records in history order, except a
        // failure's cause, which comes with its outcome: keep the list ordered by position.
        let at = entries.partition_point(|(s, _)| *s <= seq);
        entries.insert(at, (seq, note));
    }

    /// Forgets the notes of records before history position `first_seq`.
    pub fn drop_before(&mut self, first_seq: u64) {
        let Some(entries) = &mut self.entries else {
            return;
        };
        let gone = entries.partition_point(|(seq, _)| *seq < first_seq);
        if gone > 0 {
            entries.drain(..gone);
            if entries.is_empty() {
                self.entries = None;
            }
        }
    }

    /// Forgets the notes of the record at `seq`, withdrawn from the window, and moves those of
    /// the records after it one position back, as the window does.
    pub fn withdraw(&mut self, seq: u64) {
        self.retain_and_shift(|at| match at.cmp(&seq) {
            std::cmp::Ordering::Less => Some(at),
            std::cmp::Ordering::Equal => None,
            std::cmp::Ordering::Greater => Some(at - 1),
        });
    }

    fn retain_and_shift(&mut self, keep: impl Fn(u64) -> Option<u64>) {
        let Some(entries) = &mut self.entries else {
            return;
        };
        entries.retain_mut(|(seq, _)| match keep(*seq) {
            Some(moved) => {
                *seq = moved;
                true
            }
            None => false,
        });
        if entries.is_empty() {
            self.entries = None;
        }
    }

    /// What the call at history position `seq` may have written.
    pub fn targets(&self, seq: u64) -> impl Iterator<Item = Target> + Clone + '_ {
        self.at(seq).filter_map(|note| match note {
            Note::Wrote(target) => Some(target),
            Note::Failed(_) => None,
        })
    }

    /// The shared cause the call at history position `seq` failed with, if it named one.
    pub fn cause(&self, seq: u64) -> Option<SharedCause> {
        self.at(seq).find_map(|note| match note {
            Note::Failed(cause) => Some(cause),
            Note::Wrote(_) => None,
        })
    }

    /// The notes of the record at `seq`: found by a binary search (the entries are ordered by
    /// position), as the detectors ask for every record they walk.
    fn at(&self, seq: u64) -> impl Iterator<Item = Note> + Clone + '_ {
        let entries = self.entries();
        let first = entries.partition_point(|(at, _)| *at < seq);
        entries
            .get(first..)
            .unwrap_or_default()
            .iter()
            .take_while(move |(at, _)| *at == seq)
            .map(|(_, note)| *note)
    }

    /// Every note, oldest first (for snapshots).
    pub fn entries(&self) -> &[(u64, Note)] {
        self.entries.as_deref().map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_withdrawn_record_takes_its_notes_and_later_ones_move_back() {
        let mut notes = RecordNotes::default();
        notes.restore(3, Note::Wrote(Target::File(1)));
        notes.restore(5, Note::Wrote(Target::Everything));
        notes.restore(4, Note::Failed(SharedCause::Unauthorized));
        assert_eq!(
            notes.entries().iter().map(|(s, _)| *s).collect::<Vec<_>>(),
            [3, 4, 5]
        );
        notes.withdraw(4);
        assert_eq!(
            notes.entries(),
            &[
                (3, Note::Wrote(Target::File(1))),
                (4, Note::Wrote(Target::Everything))
            ]
        );
        notes.drop_before(4);
        assert_eq!(notes.targets(4).collect::<Vec<_>>(), [Target::Everything]);
        notes.drop_before(5);
        assert_eq!(notes.entries(), &[]);
    }

    #[test]
    fn snapshot_codes_round_trip() {
        for note in [
            Note::Wrote(Target::File(7)),
            Note::Wrote(Target::Call(9)),
            Note::Wrote(Target::Everything),
            Note::Failed(SharedCause::DiskFull),
        ] {
            assert_eq!(Note::from_code(note.code(), note.key()), Some(note));
        }
        assert_eq!(Note::from_code(3, 99), None);
        assert_eq!(Note::from_code(4, 0), None);
    }
}
