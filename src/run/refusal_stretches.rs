//! The stretches of consecutive refused records in a run's window. A stuck run is refused call
//! after call, and a walk of the window newest first that looks only at what calls returned (the
//! proposed tool's outcome streak, `detectors::gather`) jumps over a stretch at once instead of
//! reading each refusal. A refusal is always the newest record when it is made, so a stretch
//! grows at its newest end; stretches leave with their records.

use crate::run::call_record::CallRecord;
use std::collections::VecDeque;

/// (first, last) history positions of each stretch, oldest first. Boxed: a run that was never
/// refused pays one pointer for them.
#[derive(Debug, Clone, Default)]
pub struct RefusalStretches {
    // A thin pointer (8 bytes), not a `VecDeque` (32): 100,000 idle runs must fit in 128 MB.
    #[allow(clippy::box_collection)]
    stretches: Option<Box<VecDeque<(u64, u64)>>>,
}

impl RefusalStretches {
    /// The window's newest record, at history position `seq`, was refused.
    pub fn refused(&mut self, seq: u64) {
        let stretches = self.stretches.get_or_insert_with(Box::default);
        match stretches.back_mut() {
            Some(newest) if newest.1 + 1 == seq => newest.1 = seq,
            _ => stretches.push_back((seq, seq)),
        }
    }

    /// Forgets the stretches that ended before history position `first_seq`.
    pub fn drop_before(&mut self, first_seq: u64) {
        let Some(stretches) = &mut self.stretches else {
            return;
        };
        while stretches.front().is_some_and(|s| s.1 < first_seq) {
            stretches.pop_front();
        }
        if stretches.is_empty() {
            self.stretches = None;
        }
    }

    /// Moves the stretches after history position `seq` (a withdrawn record, never refused) one
    /// position back, as the window does.
    pub fn withdraw(&mut self, seq: u64) {
        let stretches = self.stretches.iter_mut().flat_map(|s| s.iter_mut());
        for stretch in stretches.filter(|s| s.0 > seq) {
            *stretch = (stretch.0 - 1, stretch.1 - 1);
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
        let stretches = self.stretches.as_deref()?;
        let at = stretches.partition_point(|s| s.1 < seq);
        stretches.get(at).filter(|s| s.0 <= seq).map(|s| s.0)
    }

    /// Whether every record the stretches hold in `records` (a window from history position
    /// `first_seq`) was refused (a debug check that they were kept right).
    pub fn hold_only_refusals(&self, records: &[CallRecord], first_seq: u64) -> bool {
        let mut stretches = self.stretches.iter().flat_map(|s| s.iter());
        stretches.all(|&(first, last)| {
            (first.max(first_seq)..=last).all(|seq| {
                let index = usize::try_from(seq - first_seq).unwrap_or(usize::MAX);
                records.get(index).is_some_and(CallRecord::is_vetoed)
            })
        })
    }
}
