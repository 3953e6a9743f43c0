//! A set of the calls (tool and argument fingerprint) made by records of one window slice, built
//! for one check: open addressing over the fingerprint's own bits (already a hash), each slot the
//! index of a record of the slice. A detector that asks about many records of the window does so
//! in one pass this way, where a scan of the window for each record would be quadratic in it.

use crate::run::call_record::{CallRecord, Fingerprint};

const EMPTY: u32 = u32::MAX;

pub struct CallSet<'r> {
    records: &'r [CallRecord],
    /// Per slot, the index in `records` of the newest record added for its call, or `EMPTY`.
    slots: Vec<u32>,
    /// How many distinct calls were added.
    len: usize,
}

impl<'r> CallSet<'r> {
    /// An empty set over `records`. It grows with the calls added (kept at most half full), so
    /// a tail going round a few calls costs a few slots, however long it is.
    pub fn new(records: &'r [CallRecord]) -> CallSet<'r> {
        CallSet {
            records,
            slots: vec![EMPTY; 8],
            len: 0,
        }
    }

    /// The slot holding `(tool, args)`'s call, or the empty slot where it would go.
    fn slot(&self, tool: u16, args: &Fingerprint) -> usize {
        let mask = self.slots.len() - 1;
        let mut slot = (u64::from_le_bytes(*args) as usize) & mask;
        loop {
            match self.slots.get(slot) {
                Some(&index) if index != EMPTY => {
                    let kept = self.records.get(index as usize);
                    if kept.is_none_or(|record| record.same_call(tool, args)) {
                        return slot;
                    }
                }
                _ => return slot,
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Adds the call of `records[index]`, keeping the newest index for it; true when its call was
    /// not in the set.
    pub fn add(&mut self, index: usize) -> bool {
        let Some(record) = self.records.get(index) else {
            return false;
        };
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let slot = self.slot(record.tool(), &record.args);
        let Some(kept) = self.slots.get_mut(slot) else {
            return false;
        };
        let new = *kept == EMPTY;
        if new || (*kept as usize) < index {
            *kept = u32::try_from(index).unwrap_or(EMPTY);
        }
        self.len += usize::from(new);
        new
    }

    /// Doubles the table, placing every kept index again.
    fn grow(&mut self) {
        let size = 2 * self.slots.len();
        let kept = std::mem::replace(&mut self.slots, vec![EMPTY; size]);
        for index in kept.into_iter().filter(|&index| index != EMPTY) {
            if let Some(record) = self.records.get(index as usize) {
                let slot = self.slot(record.tool(), &record.args);
                if let Some(free) = self.slots.get_mut(slot) {
                    *free = index;
                }
            }
        }
    }

    /// The newest index added for the call `(tool, args)`.
    pub fn newest(&self, tool: u16, args: &Fingerprint) -> Option<usize> {
        let index = *self.slots.get(self.slot(tool, args))?;
        (index != EMPTY).then_some(index as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::tools::ToolKind;

    fn record(tool: u16, args: u8) -> CallRecord {
        // Fingerprints that share their low bits collide in the table.
        CallRecord::pending(
            tool,
            [0, args, 0, 0, 0, 0, 0, 0],
            ToolKind::Read,
            0.0,
            0,
            None,
        )
    }

    #[test]
    fn distinct_calls_are_counted_and_their_newest_index_kept() {
        let records: Vec<CallRecord> = [(0, 1), (0, 2), (1, 1), (0, 1), (0, 2), (0, 1)]
            .into_iter()
            .map(|(tool, args)| record(tool, args))
            .collect();
        let mut set = CallSet::new(&records);
        let added: Vec<bool> = (0..records.len()).map(|i| set.add(i)).collect();
        assert_eq!(added, [true, true, true, false, false, false]);
        let args = |n: u8| [0, n, 0, 0, 0, 0, 0, 0];
        assert_eq!(set.newest(0, &args(1)), Some(5));
        assert_eq!(set.newest(0, &args(2)), Some(4));
        assert_eq!(set.newest(1, &args(1)), Some(2));
        assert_eq!(set.newest(2, &args(1)), None);
    }

    #[test]
    fn the_set_grows_past_its_first_slots() {
        let records: Vec<CallRecord> = (0..100u8).map(|n| record(u16::from(n % 3), n)).collect();
        let mut set = CallSet::new(&records);
        assert!((0..records.len()).all(|i| set.add(i)));
        assert!((0..100u8).all(
            |n| set.newest(u16::from(n % 3), &[0, n, 0, 0, 0, 0, 0, 0]) == Some(usize::from(n))
        ));
    }
}
