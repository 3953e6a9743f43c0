//! What a long window keeps beside its records so that a check or a settle finds what it asks
//! without walking the window: each record linked to the previous record of its call
//! (`call_chain`), the stretches of consecutive refusals (`refusal_stretches`) and the newest
//! record that changed something. Made with the window's counts, once it holds `COUNTED_FROM`
//! records, and boxed: a short run pays one pointer for it.

use crate::run::call_chain::CallChain;
use crate::run::call_record::CallRecord;
use crate::run::refusal_stretches::RefusalStretches;

#[derive(Debug, Clone)]
pub struct WindowIndex {
    /// Each record linked to the previous record of its call.
    pub chain: CallChain,
    /// The stretches of consecutive refusals.
    pub refusals: RefusalStretches,
    /// The history position of the newest record that changed something
    /// (`CallRecord::changed_state`); one before the window's start is as good as none.
    newest_change: Option<u64>,
}

impl WindowIndex {
    /// The index of `records` (a window whose oldest record is at history position `first_seq`).
    pub fn of(records: &[CallRecord], first_seq: u64) -> WindowIndex {
        WindowIndex {
            chain: CallChain::of(records, first_seq),
            refusals: RefusalStretches::of(records, first_seq),
            newest_change: newest_change_of(records, first_seq),
        }
    }

    /// `record` entered the window at history position `seq`, as its newest record.
    pub fn push(&mut self, record: &CallRecord, seq: u64) {
        self.chain.push(record, seq);
    }

    /// The window's oldest record, `record` at history position `seq`, left it.
    pub fn pop_oldest(&mut self, record: &CallRecord, seq: u64) {
        self.chain.pop_oldest(record, seq);
        self.refusals.drop_before(seq + 1);
    }

    /// The record at history position `seq` (the window's newest when `newest`) was settled as
    /// `record` now is.
    pub fn settled(&mut self, record: &CallRecord, seq: u64, newest: bool) {
        if record.changed_state() {
            self.newest_change = self.newest_change.max(Some(seq));
        }
        if record.is_vetoed() && newest {
            self.refusals.refused(seq);
        }
    }

    /// The history position of the newest record that changed something, in a window whose
    /// oldest record is at `first_seq`.
    pub fn newest_change(&self, first_seq: u64) -> Option<u64> {
        self.newest_change.filter(|&seq| seq >= first_seq)
    }

    /// Whether this is the index of `records` (from history position `first_seq`): a debug
    /// check that it was kept right.
    pub fn is_that_of(&self, records: &[CallRecord], first_seq: u64) -> bool {
        self.chain.is_that_of(records, first_seq)
            && self.refusals.hold_only_refusals(records, first_seq)
            && self.newest_change(first_seq) == newest_change_of(records, first_seq)
    }
}

/// The history position of the newest of `records` (from position `first_seq`) that changed
/// something.
fn newest_change_of(records: &[CallRecord], first_seq: u64) -> Option<u64> {
    let newest = records.iter().rposition(CallRecord::changed_state);
    newest.map(|i| first_seq + i as u64)
}
