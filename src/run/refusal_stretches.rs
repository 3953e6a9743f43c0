//! The stretches of consecutive refused records in a run's window. A stuck run is refused call
//! after call, and a walk of the window newest first that looks only at what calls returned (the
//! proposed tool's outcome streak, `detectors::gather`) jumps over a stretch at once instead of
//! reading each refusal. A refusal is always the newest record when it is made, so a stretch
//! grows at its newest end; stretches leave with their records.

use crate::run::call_record::CallRecord;
use std::collections::VecDeque;

/// (first, last) history positions of each stretch, oldest first.
#[derive(Debug, Clone, Default)]
pub struct RefusalStretches {
    stretches: VecDeque<(u64, u64)>,
}

impl RefusalStretches {
    /// The window's newest record, at history position `seq`, was refused.
    pub fn refused(&mut self, seq: u64) {
        match self.stretches.back_mut() {
            Some(newest) if newest.1 + 1 == seq => newest.1 = seq,
            _ => self.stretches.push_back((seq, seq)),
        }
    }

    /// Forgets the stretches that ended before history position `first_seq`.
    pub fn drop_before(&mut self, first_seq: u64) {
        while self.stretches.front().is_some_and(|s| s.1 < first_seq) {
            self.stretches.pop_front();
        }
    }

    /// The stretches of `records` (a window whose oldest record is at history position
    /// `first_seq`).
    pub fn of(records: &[CallRecord], first_seq: u64) -> RefusalStretches {
        let mut stretches = RefusalStretches::default();
        for (i, record) in records.iter().enumerate() {
            if record.is_vetoed() {
                stretches.refused(first_seq + i as u64);
            }
        }
        stretches
    }

    /// The first history position of the stretch that holds position `seq`, if one does.
    pub fn start_of(&self, seq: u64) -> Option<u64> {
        let at = self.stretches.partition_point(|s| s.1 < seq);
        let stretch = self.stretches.get(at).filter(|s| s.0 <= seq);
        stretch.map(|s| s.0)
    }

    /// Whether every record the stretches hold in `records` (a window from history position
    /// `first_seq`) was refused (a debug check that they were kept right).
    pub fn hold_only_refusals(&self, records: &[CallRecord], first_seq: u64) -> bool {
        self.stretches.iter().all(|&(first, last)| {
            (first.max(first_seq)..=last).all(|seq| {
                let index = usize::try_from(seq - first_seq).unwrap_or(usize::MAX);
                records.get(index).is_some_and(CallRecord::is_vetoed)
            })
        })
    }
}
