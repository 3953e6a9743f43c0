//! One call in a run's window: 32 bytes of fingerprints, keys and packed metadata, never raw
//! arguments or results. What the detectors read of a record, and how it moves from pending to
//! vetoed or completed.

use crate::config::tools::ToolKind;
use crate::json::digest::Digest;
use crate::run::record_meta::{OutcomeFlags, RecordMeta};
use crate::verdict::DetectorId;

/// What the window keeps of a SHA-256 digest (arguments, outcomes): its first 64 bits. Two
/// different calls or outcomes meeting by accident within one window (at most 10,000 records) is
/// a chance of about 2^-38 even then; a chosen collision takes ~2^32 hashing work and can only make
/// different calls look alike (a warning or refusal too early), never hide a loop.
pub type Fingerprint = [u8; 8];

/// The window fingerprint of a full digest.
pub fn fingerprint(digest: &Digest) -> Fingerprint {
    digest.first_chunk::<8>().copied().unwrap_or_default()
}

/// Where a record is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordState {
    /// Checked and allowed; the outcome has not arrived yet.
    Pending,
    /// The outcome is attached.
    Completed {
        outcome: Fingerprint,
        /// The tool threw, flagged its result as an error, or answered with a failure text.
        is_error: bool,
        missing_tool: bool,
        /// The result said nothing: null, an empty or whitespace-only text.
        blank: bool,
    },
    /// The guard refused the call; it never ran.
    Vetoed,
}

impl RecordState {
    /// A completed state with the error, missing-tool and blank flags of `flags` (a snapshot's
    /// flags byte); novelty is the record's, not its state's (`CallRecord::mark_novel`).
    pub fn completed(outcome: Fingerprint, flags: OutcomeFlags) -> RecordState {
        RecordState::Completed {
            outcome,
            is_error: flags.contains(OutcomeFlags::ERROR),
            missing_tool: flags.contains(OutcomeFlags::MISSING_TOOL),
            blank: flags.contains(OutcomeFlags::BLANK),
        }
    }
}

/// One call in the window: 32 bytes. Its position in the run's history (`seq`) is not stored: the
/// window is contiguous, so `Run` derives it from the index.
#[derive(Debug, Clone, PartialEq)]
pub struct CallRecord {
    pub at: f64,
    pub args: Fingerprint,
    /// Pending: the key of the argument text as checked (lets `record` reuse `args` without parsing
    /// and hashing the same text again), little-endian. Completed: the outcome fingerprint.
    /// Nothing once vetoed.
    slot: [u8; 8],
    /// Tool, kind, warned detector, stage, outcome flags, and the call-id key or the streak
    /// counters.
    meta: RecordMeta,
}

impl CallRecord {
    /// A pending record; `call_id` (the FNV-1a hash of the host's call id) and `args_text_hash`
    /// are lookup keys (`keys.rs`) for matching its outcome. `tool` must be below `MAX_TOOLS`.
    pub fn pending(
        tool: u16,
        args: Fingerprint,
        kind: ToolKind,
        at: f64,
        args_text_hash: u64,
        call_id: Option<u64>,
    ) -> CallRecord {
        CallRecord {
            at,
            args,
            slot: args_text_hash.to_le_bytes(),
            meta: RecordMeta::pending(tool, kind, call_id),
        }
    }

    /// Index into the run's tool-name table.
    pub fn tool(&self) -> u16 {
        self.meta.tool()
    }

    /// Points the record at another index of the tool table (when the table is compacted).
    pub fn set_tool(&mut self, tool: u16) {
        self.meta.set_tool(tool);
    }

    pub fn kind(&self) -> ToolKind {
        self.meta.kind()
    }

    /// The detector that warned when this call was checked, if any.
    pub fn warned(&self) -> Option<DetectorId> {
        self.meta.warned()
    }

    pub fn set_warned(&mut self, warned: Option<DetectorId>) {
        self.meta.set_warned(warned);
    }

    /// Same call, same outcome, this many times in a row (0 until completed; at most
    /// `COUNTER_MAX`).
    pub fn same_outcome_run(&self) -> u32 {
        self.meta.same_outcome_run()
    }

    /// Calls of this fingerprint without progress, this one included (0 while pending; at most
    /// `COUNTER_MAX`).
    pub fn no_progress(&self) -> u32 {
        self.meta.no_progress()
    }

    /// Sets the streak counters of a settled record, saturating at `COUNTER_MAX`; a pending
    /// record has none (its bits hold the call-id key).
    pub fn set_counters(&mut self, same_outcome_run: u32, no_progress: u32) {
        self.meta.set_counters(same_outcome_run, no_progress);
    }

    pub fn state(&self) -> RecordState {
        match self.outcome() {
            Some(outcome) => RecordState::completed(*outcome, self.meta.flags()),
            None if self.meta.is_vetoed() => RecordState::Vetoed,
            None => RecordState::Pending,
        }
    }

    /// Settles the record. Leaving `Pending` drops the matching keys; the counters start at 0 and
    /// the record is not novel until `mark_novel`. A settled record never becomes pending again:
    /// `Pending` leaves it as it is.
    pub fn set_state(&mut self, state: RecordState) {
        match state {
            RecordState::Pending => {}
            RecordState::Vetoed => {
                self.slot = [0; 8];
                self.meta.veto();
            }
            RecordState::Completed {
                outcome,
                is_error,
                missing_tool,
                blank,
            } => {
                self.slot = outcome;
                self.meta.complete(
                    OutcomeFlags::default()
                        .with(OutcomeFlags::ERROR, is_error)
                        .with(OutcomeFlags::MISSING_TOOL, missing_tool)
                        .with(OutcomeFlags::BLANK, blank),
                );
            }
        }
    }

    /// The key of the argument text as checked, while pending.
    pub fn args_text_hash(&self) -> Option<u64> {
        self.is_pending().then(|| u64::from_le_bytes(self.slot))
    }

    /// The key of the host's call id, while pending (and when it had one).
    pub fn call_id(&self) -> Option<u64> {
        self.meta.call_id()
    }

    /// Whether a pending record's call id is the one hashing to `hash`.
    pub fn has_call_id(&self, hash: u64) -> bool {
        self.meta.has_call_id(hash)
    }

    pub fn same_call(&self, tool: u16, args: &Fingerprint) -> bool {
        self.tool() == tool && &self.args == args
    }

    pub fn outcome(&self) -> Option<&Fingerprint> {
        self.meta.is_completed().then_some(&self.slot)
    }

    /// The flags of a completed record's outcome, novelty included (none otherwise).
    pub fn outcome_flags(&self) -> OutcomeFlags {
        self.meta.flags()
    }

    pub fn is_pending(&self) -> bool {
        self.meta.is_pending()
    }

    pub fn is_vetoed(&self) -> bool {
        self.meta.is_vetoed()
    }

    pub fn is_error(&self) -> bool {
        self.meta.flags().contains(OutcomeFlags::ERROR)
    }

    pub fn reported_missing(&self) -> bool {
        self.meta.flags().contains(OutcomeFlags::MISSING_TOOL)
    }

    /// The outcome said nothing (see `RecordState::Completed::blank`).
    pub fn is_blank(&self) -> bool {
        self.meta.flags().contains(OutcomeFlags::BLANK)
    }

    /// Completed, and no earlier record in the window made this call and got this outcome.
    pub fn is_novel(&self) -> bool {
        self.meta.flags().contains(OutcomeFlags::NOVEL)
    }

    /// Marks a completed record novel (snapshots restore the flag this way too).
    pub fn mark_novel(&mut self) {
        self.meta.mark_novel();
    }

    /// Whether this record is evidence that the world, or what the agent knows of it, changed: a
    /// call that returned something it never returned before, without failing. Poll results are
    /// the exception: a poll only watches. Any other kind counts, whatever it is named: a
    /// re-read after an edit made through a shell, an editor or an API all show up here.
    pub fn changed_state(&self) -> bool {
        self.is_novel() && !self.is_error() && self.kind() != ToolKind::Poll
    }

    /// Whether this call changed the world, not only what the model knows: it changed something
    /// (`changed_state`) and may write (a mutation, an edit, a command that writes; its kind as
    /// `record::effects` refined it). A read that shows something new changes no other call's
    /// result.
    pub fn changed_world(&self) -> bool {
        self.changed_state() && matches!(self.kind(), ToolKind::Mutate | ToolKind::Command)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_32_bytes_and_keeps_its_keys_until_settled() {
        assert_eq!(std::mem::size_of::<CallRecord>(), 32);
        assert_eq!(std::mem::align_of::<CallRecord>(), 8);
        let mut record = CallRecord::pending(3, [7; 8], ToolKind::Read, 1.5, 42, Some(1 << 38));
        assert_eq!(record.args_text_hash(), Some(42));
        assert_eq!(record.call_id(), Some(1));
        let done = RecordState::Completed {
            outcome: [9; 8],
            is_error: true,
            missing_tool: false,
            blank: false,
        };
        record.set_state(done);
        assert_eq!(record.state(), done);
        assert_eq!((record.args_text_hash(), record.call_id()), (None, None));
        assert!(record.is_error() && !record.reported_missing() && !record.is_novel());
        record.set_state(RecordState::Pending);
        assert_eq!(record.state(), done, "a settled record stays settled");
    }

    #[test]
    fn each_state_reads_back_as_it_was_set() {
        let pending = CallRecord::pending(1, [1; 8], ToolKind::Mutate, 0.0, u64::MAX, None);
        assert_eq!(pending.state(), RecordState::Pending);
        assert_eq!(pending.outcome(), None);
        for bits in 0..16 {
            let flags = OutcomeFlags::from_bits(bits).unwrap_or_default();
            let state = RecordState::completed([0xff; 8], flags);
            let mut record = pending.clone();
            record.set_state(state);
            record.mark_novel();
            assert_eq!(record.state(), state);
            assert_eq!(record.outcome(), Some(&[0xff; 8]));
            assert_eq!(
                record.outcome_flags(),
                flags.with(OutcomeFlags::NOVEL, true)
            );
            assert_eq!(
                (
                    record.is_error(),
                    record.reported_missing(),
                    record.is_blank()
                ),
                (
                    flags.contains(OutcomeFlags::ERROR),
                    flags.contains(OutcomeFlags::MISSING_TOOL),
                    flags.contains(OutcomeFlags::BLANK)
                )
            );
        }
        let mut vetoed = pending;
        vetoed.set_state(RecordState::Vetoed);
        vetoed.mark_novel();
        assert_eq!(vetoed.state(), RecordState::Vetoed);
        assert!(vetoed.is_vetoed() && vetoed.outcome().is_none() && !vetoed.is_novel());
        assert_eq!(vetoed.args_text_hash(), None);
        assert_eq!((vetoed.tool(), vetoed.kind()), (1, ToolKind::Mutate));
    }
}
