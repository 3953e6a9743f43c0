//! Where a call's previous record in the window is: each record linked to the one before it
//! under its call's 32-bit key (`call_counts::call_key`), and the newest record under each key,
//! kept as records enter and leave the window. A detector asking about a call's earlier records
//! follows the links, where it would otherwise walk the window back to them (the records of
//! every other call in between). Two calls that share a key share one chain, so whoever follows
//! it checks each record met (`CallRecord::same_call`). Kept with the counts, once a window holds
//! `COUNTED_FROM` records: 4 bytes a record, and a slot of 8 bytes per distinct call.

use crate::run::call_counts::call_key;
use crate::run::call_record::{CallRecord, Fingerprint};
use crate::run::key_table::KeyTable;
use std::collections::VecDeque;

#[derive(Debug, Clone, Default)]
pub struct CallChain {
    /// Per window record, oldest first: how many positions back the previous record under its
    /// key was when it entered (0: none). A link reaching past the window's oldest record leads
    /// out of it.
    links: VecDeque<u32>,
    /// Per key, the low 32 bits of the history position of its newest record (the window spans
    /// at most 10,000 positions, so the low bits tell positions in it apart).
    newest: KeyTable,
}

impl CallChain {
    /// Links `record`, entering the window at history position `seq` as its newest record.
    pub fn push(&mut self, record: &CallRecord, seq: u64) {
        let key = call_key(record.tool(), &record.args);
        let at = seq as u32;
        let link = self
            .newest
            .value(key)
            .map_or(0, |newest| at.wrapping_sub(newest));
        self.links.push_back(link);
        self.newest.set(key, at);
    }

    /// Unlinks the window's oldest record, `record` at history position `seq`, as it leaves.
    pub fn pop_oldest(&mut self, record: &CallRecord, seq: u64) {
        self.links.pop_front();
        let key = call_key(record.tool(), &record.args);
        if self.newest.value(key) == Some(seq as u32) {
            self.newest.take(key);
        }
    }

    /// The links of `records` (the window, oldest first, its first at history position
    /// `first_seq`).
    pub fn of(records: &[CallRecord], first_seq: u64) -> CallChain {
        let mut chain = CallChain::default();
        for (i, record) in records.iter().enumerate() {
            chain.push(record, first_seq + i as u64);
        }
        chain
    }

    /// The window index of the record before the one at `index` under its key, if the window
    /// still holds one.
    pub fn previous(&self, index: usize) -> Option<usize> {
        let link = *self.links.get(index)?;
        if link == 0 {
            return None;
        }
        index.checked_sub(link as usize)
    }

    /// The window index of the newest record under the key of the call `(tool, args)`, for a
    /// window of `len` records ending before history position `next_seq`.
    pub fn newest(
        &self,
        tool: u16,
        args: &Fingerprint,
        len: usize,
        next_seq: u64,
    ) -> Option<usize> {
        let newest = self.newest.value(call_key(tool, args))?;
        let back = (next_seq as u32).wrapping_sub(newest) as usize;
        len.checked_sub(back)
    }

    /// Whether the links are those of `records` (a debug check that they were kept right).
    pub fn is_that_of(&self, records: &[CallRecord], first_seq: u64) -> bool {
        let fresh = CallChain::of(records, first_seq);
        // A link that leads out of the window is as good as none.
        let linked_alike = (0..records.len()).all(|i| self.previous(i) == fresh.previous(i));
        self.links.len() == records.len()
            && linked_alike
            && fresh.newest.len() == self.newest.len()
            && fresh
                .newest
                .entries()
                .all(|(key, at)| self.newest.value(key) == Some(at))
    }
}
