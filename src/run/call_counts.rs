//! How many of a run's window records make each call (tool and argument fingerprint), completed
//! it, completed it with each outcome, and use each tool (completed or not): kept as records enter, settle and leave the window, so a
//! walk of the window newest first (a detector's, or settling's) can stop once it has met every
//! record that could still change its answer, where it would otherwise go on to the window's
//! start. Calls and outcomes are counted under 32-bit keys mixed from their fingerprints: two
//! that share a key add up, so a count is never below the records it stands for, which is all a
//! walk needs to stop early without changing what it finds. A window is counted only once it
//! holds `COUNTED_FROM` records (until then every count is `u32::MAX`, unknown): from then on
//! the counts cost at most 8 bytes a slot for up to three keys a record (a distinct call, its
//! completions, each of its distinct outcomes), the table at most three quarters full.

use crate::run::call_record::{CallRecord, Fingerprint};
use crate::run::key_table::KeyTable;

/// Records a window holds before its records are counted: walks of fewer cost less than the
/// counts would (a short run pays nothing for them).
pub const COUNTED_FROM: usize = 64;

#[derive(Debug, Clone, Default)]
pub struct CallCounts {
    /// Whether records are counted (from `COUNTED_FROM` records on; see `Run::count_records`).
    /// Until then every count is unknown: `u32::MAX`, which no walk runs out of.
    active: bool,
    /// Records per call key, completed ones per completed-call key and per (call, outcome) key;
    /// none kept at zero.
    keys: KeyTable,
    /// Records per tool index.
    tools: Vec<ToolCount>,
}

#[derive(Debug, Clone, Copy, Default)]
struct ToolCount {
    records: u32,
    completed: u32,
}

/// A 64-bit mix folded to a key (multiplied, so every bit of the mix reaches the key's).
fn fold(mix: u64) -> u32 {
    (mix.wrapping_mul(0xD6E8_FEB8_6659_FD93) >> 32) as u32
}

fn call_mix(tool: u16, args: &Fingerprint) -> u64 {
    u64::from_le_bytes(*args) ^ u64::from(tool).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The key of a call.
pub fn call_key(tool: u16, args: &Fingerprint) -> u32 {
    fold(call_mix(tool, args))
}

/// The key of a call's completed records (distinct from `call_key` but for a collision).
fn completed_key(tool: u16, args: &Fingerprint) -> u32 {
    fold(call_mix(tool, args) ^ 0x2545_F491_4F6C_DD1D)
}

/// The key of a call with an outcome (distinct from the others but for a collision).
fn answer_key(tool: u16, args: &Fingerprint, outcome: &Fingerprint) -> u32 {
    let outcome = u64::from_le_bytes(*outcome).rotate_left(29);
    fold(call_mix(tool, args) ^ outcome ^ 0x5851_F42D_4C95_7F2D)
}

impl CallCounts {
    /// Counts `record` (as it is now: pending, refused or completed).
    pub fn add(&mut self, record: &CallRecord) {
        if !self.active {
            return;
        }
        let tool = record.tool();
        for key in Self::keys_of(record) {
            self.keys.add(key);
        }
        let index = usize::from(tool);
        if self.tools.len() <= index {
            self.tools.resize(index + 1, ToolCount::default());
        }
        if let Some(count) = self.tools.get_mut(index) {
            count.records += 1;
            count.completed += u32::from(record.outcome().is_some());
        }
    }

    /// Stops counting `record` (as it was counted: call `remove` before changing it).
    pub fn remove(&mut self, record: &CallRecord) {
        if !self.active {
            return;
        }
        for key in Self::keys_of(record) {
            self.keys.remove(key);
        }
        if let Some(count) = self.tools.get_mut(usize::from(record.tool())) {
            count.records = count.records.saturating_sub(1);
            let completed = u32::from(record.outcome().is_some());
            count.completed = count.completed.saturating_sub(completed);
        }
    }

    /// Whether records are counted.
    pub fn active(&self) -> bool {
        self.active
    }

    /// Counts the records of `records` only, from scratch, and from now on.
    pub fn rebuild<'a>(&mut self, records: impl IntoIterator<Item = &'a CallRecord>) {
        self.active = true;
        self.keys.clear();
        self.tools.clear();
        records.into_iter().for_each(|record| self.add(record));
    }

    fn keys_of(record: &CallRecord) -> impl Iterator<Item = u32> {
        let (tool, args) = (record.tool(), &record.args);
        let completed = record
            .outcome()
            .map(|outcome| [completed_key(tool, args), answer_key(tool, args, outcome)]);
        std::iter::once(call_key(tool, args)).chain(completed.into_iter().flatten())
    }

    /// At least the window's records of the call `(tool, args)`.
    pub fn of_call(&self, tool: u16, args: &Fingerprint) -> u32 {
        self.known(|| self.keys.get(call_key(tool, args)))
    }

    /// At least the window's completed records of the call `(tool, args)`.
    pub fn of_completed_call(&self, tool: u16, args: &Fingerprint) -> u32 {
        self.known(|| self.keys.get(completed_key(tool, args)))
    }

    /// At least the window's completed records of the call `(tool, args)` with `outcome`.
    pub fn of_answer(&self, tool: u16, args: &Fingerprint, outcome: &Fingerprint) -> u32 {
        self.known(|| self.keys.get(answer_key(tool, args, outcome)))
    }

    /// The window's records of `tool`.
    pub fn of_tool(&self, tool: u16) -> u32 {
        self.known(|| self.tools.get(usize::from(tool)).map_or(0, |c| c.records))
    }

    /// `count()` once records are counted, else `u32::MAX`.
    fn known(&self, count: impl FnOnce() -> u32) -> u32 {
        if self.active {
            count()
        } else {
            u32::MAX
        }
    }

    /// Whether these counts are those of `records` (a debug check that they were kept right).
    pub fn are_those_of(&self, records: &[CallRecord]) -> bool {
        if !self.active {
            return true;
        }
        let mut fresh = CallCounts::default();
        fresh.rebuild(records);
        let tools = self.tools.len().max(fresh.tools.len());
        fresh.keys.len() == self.keys.len()
            && fresh
                .keys
                .entries()
                .all(|(key, count)| self.keys.get(key) == count)
            && (0..tools).all(|tool| {
                let tool = u16::try_from(tool).unwrap_or(u16::MAX);
                (self.of_tool(tool), self.of_completed_tool(tool))
                    == (fresh.of_tool(tool), fresh.of_completed_tool(tool))
            })
    }

    /// The window's completed records of `tool`.
    pub fn of_completed_tool(&self, tool: u16) -> u32 {
        self.known(|| self.tools.get(usize::from(tool)).map_or(0, |c| c.completed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::tools::ToolKind;
    use crate::run::call_record::RecordState;

    fn record(tool: u16, args: u8) -> CallRecord {
        CallRecord::pending(tool, [args; 8], ToolKind::Read, 0.0, 0, None)
    }

    fn completed(outcome: u8) -> RecordState {
        RecordState::Completed {
            outcome: [outcome; 8],
            is_error: false,
            missing_tool: false,
            blank: false,
        }
    }

    #[test]
    fn records_are_counted_while_they_are_held_and_as_they_are() {
        let mut counts = CallCounts::default();
        assert_eq!(counts.of_call(0, &[1; 8]), u32::MAX, "not counted yet");
        counts.rebuild([]);
        let mut first = record(0, 1);
        counts.add(&first);
        counts.add(&record(0, 2));
        counts.add(&record(1, 1));
        assert_eq!(counts.of_call(0, &[1; 8]), 1);
        assert_eq!(counts.of_call(1, &[1; 8]), 1);
        assert_eq!(counts.of_tool(0), 2);
        assert_eq!(counts.of_answer(0, &[1; 8], &[7; 8]), 0);
        assert_eq!(counts.of_completed_call(0, &[1; 8]), 0);
        counts.remove(&first);
        first.set_state(completed(7));
        counts.add(&first);
        assert_eq!(counts.of_call(0, &[1; 8]), 1);
        assert_eq!(counts.of_completed_call(0, &[1; 8]), 1);
        assert_eq!((counts.of_tool(0), counts.of_completed_tool(0)), (2, 1));
        assert_eq!(counts.of_answer(0, &[1; 8], &[7; 8]), 1);
        assert_eq!(counts.of_answer(0, &[1; 8], &[8; 8]), 0);
        counts.remove(&first);
        assert_eq!(counts.of_call(0, &[1; 8]), 0);
        assert_eq!(counts.of_answer(0, &[1; 8], &[7; 8]), 0);
        assert_eq!((counts.of_tool(0), counts.of_completed_tool(0)), (1, 0));
        assert_eq!(counts.keys.len(), 2, "no key is kept at zero");
    }
}
