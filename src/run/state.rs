//! One run's state: its bounded window of call records (fingerprints only, never raw arguments or
//! results, so memory per run is O(historySize)), the tool names they refer to, and the run's
//! counters, cap log and compaction watch. Records enter the window here and are settled here.

use crate::config::tools::ToolKind;
use crate::run::call_ids::CallIds;
use crate::run::call_record::{CallRecord, Fingerprint, RecordState};
use crate::run::last_arguments::LastArguments;
use crate::run::outages::Outages;
use crate::run::record_meta::MAX_TOOLS;
use crate::run::record_notes::RecordNotes;
use crate::run::streaks::Streaks;
use crate::run::tool_table::ToolTable;
use crate::verdict::DetectorId;
use std::collections::VecDeque;

/// Slots a run's record buffer has beyond `history_size`. The window slides through them and is
/// moved back to the front of the buffer only when they run out, so it stays one slice: once the
/// window is full, every other push moves its `history_size - 1` records (under 1 KB at the
/// default 30). Two, not more: 100,000 runs must fit in 128 MB, and each spare costs every run
/// 32 bytes.
const SPARE_SLOTS: usize = 2;

/// Post-compaction watch: armed by `compacted`, looks at the next `remaining` completions.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionWatch {
    /// Completions still to look at.
    pub remaining: u32,
    /// The first (tool, args, outcome) triple seen after compaction.
    pub first: Option<(String, Fingerprint, Fingerprint)>,
    /// How many completions so far were that same triple.
    pub identical: u32,
}

#[derive(Debug, Clone, Default)]
pub struct Run {
    /// Tool names referenced by records (by index).
    pub tools: ToolTable,
    /// The window is `records[start..]`, oldest first; the slots before `start` hold dropped
    /// records until a push moves the window back to the front (see `SPARE_SLOTS`), so the
    /// window is always one slice. Private: records enter and leave only through `push`,
    /// `restore`, `keep_newest` and `settle`, which keep `start` and `missing_reports` right.
    records: Vec<CallRecord>,
    start: usize,
    /// How many records in the window had an outcome that reported their tool missing: lets
    /// `unknown_tool_repeat` skip its scans in the usual run that has none.
    missing_reports: u32,
    /// The history position of the next record; the window holds the `records().len()` before
    /// it.
    pub next_seq: u64,
    /// Refusals in a row at the end of the run, whatever the fingerprint.
    pub trailing_vetoes: u32,
    /// Records before this sequence number do not count towards streaks (host-reported progress).
    pub progress_floor: u64,
    /// Boxed: armed rarely, so an idle run pays one pointer for it.
    pub compaction: Option<Box<CompactionWatch>>,
    /// Calls in a row (the newest included) that brought nothing new: refused, or completed with
    /// an outcome the same call already had in the window (polls excepted). A novel outcome or
    /// host-reported progress resets it. The stale rule of `ping_pong` and `cycle` reads it.
    pub stale_calls: u32,
    /// Calls checked in this run (for `maxTurns`).
    pub turns: u32,
    /// Times of the allowed calls of capped tools, at most `cap.calls` each.
    pub cap_log: Vec<(String, VecDeque<f64>)>,
    /// What the window's calls may have changed, and the shared causes of their failures.
    pub notes: RecordNotes,
    /// The argument members of each read tool's last checked call.
    pub last_arguments: LastArguments,
    /// Calls failing transiently, and how long they were asked to wait.
    pub outages: Outages,
    /// The shared causes (`SharedCause::code` bits) a warning already named since the last
    /// host-reported progress.
    pub warned_causes: u8,
    /// Completed records' call ids, under `sameAs: true`.
    pub call_ids: CallIds,
}

impl Run {
    /// The window, oldest first.
    pub fn records(&self) -> &[CallRecord] {
        self.records.get(self.start..).unwrap_or_default()
    }

    /// Whether any record in the window reported its tool missing.
    pub fn has_missing_reports(&self) -> bool {
        debug_assert_eq!(
            self.missing_reports as usize,
            self.records()
                .iter()
                .filter(|r| r.reported_missing())
                .count()
        );
        self.missing_reports != 0
    }

    pub fn tool_name(&self, index: u16) -> &str {
        self.tools.get(usize::from(index)).unwrap_or("")
    }

    /// The index of `tool` if any record in the window uses it.
    pub fn find_tool(&self, tool: &str) -> Option<u16> {
        self.tools
            .position(tool)
            .and_then(|i| u16::try_from(i).ok())
    }

    /// The index of `tool`, adding it to the table. The table is rebuilt from the window when it
    /// grows past what the window can reference, so it stays bounded (below `MAX_TOOLS`: the
    /// window holds at most `historySize` <= 10,000 records).
    pub fn intern_tool(&mut self, tool: &str, history_size: usize) -> u16 {
        if let Some(i) = self.find_tool(tool) {
            return i;
        }
        if self.tools.len() > history_size || self.tools.len() >= MAX_TOOLS - 1 {
            self.compact_tools();
        }
        self.tools.push(tool);
        u16::try_from(self.tools.len() - 1).unwrap_or(u16::MAX)
    }

    fn compact_tools(&mut self) {
        let old = std::mem::take(&mut self.tools);
        let mut kept: Vec<&str> = Vec::new();
        for record in self.records.iter_mut().skip(self.start) {
            let name = old.get(usize::from(record.tool())).unwrap_or("");
            let index = match kept.iter().position(|t| *t == name) {
                Some(i) => i,
                None => {
                    kept.push(name);
                    kept.len() - 1
                }
            };
            record.set_tool(u16::try_from(index).unwrap_or(u16::MAX));
        }
        self.tools = ToolTable::from_names(kept.iter().copied());
    }

    /// The index of the first record that counts towards streaks (none before the last
    /// host-reported progress).
    pub fn first_counted(&self) -> usize {
        let len = self.records().len();
        let first_seq = self.next_seq.saturating_sub(len as u64);
        usize::try_from(self.progress_floor.saturating_sub(first_seq))
            .unwrap_or(usize::MAX)
            .min(len)
    }

    /// Appends a record, dropping the oldest beyond `history_size`; returns its index. The
    /// buffer is allocated once, at `history_size` plus its spare slots.
    pub fn push(&mut self, record: CallRecord, history_size: usize) -> usize {
        while self.records().len() >= history_size.max(1) {
            self.pop_oldest();
        }
        if self.records.len() == self.records.capacity() && self.start > 0 {
            self.records.drain(..self.start);
            self.start = 0;
        }
        let size = history_size + SPARE_SLOTS;
        if self.records.capacity() < size {
            self.records.reserve_exact(size - self.records.len());
        }
        self.next_seq += 1;
        self.records.push(record);
        self.records().len() - 1
    }

    /// Appends a record decoded from a snapshot (`next_seq` is restored with the run).
    pub fn restore(&mut self, record: CallRecord) {
        self.missing_reports += u32::from(record.reported_missing());
        self.records.push(record);
    }

    /// Drops the oldest records beyond `history_size` (an imported run meeting a smaller window)
    /// and fits the buffer to `history_size` plus its spare slots, whatever size the snapshot's
    /// guard used: an imported run costs what a live one does.
    pub fn keep_newest(&mut self, history_size: usize) {
        while self.records().len() > history_size {
            self.pop_oldest();
        }
        self.records.drain(..self.start);
        self.start = 0;
        self.records.shrink_to(history_size + SPARE_SLOTS);
    }

    /// Drops the oldest record (its slot is reclaimed when the window moves to the front) and
    /// what it may have changed.
    fn pop_oldest(&mut self) {
        if let Some(oldest) = self.records().first() {
            let missing = u32::from(oldest.reported_missing());
            self.missing_reports = self.missing_reports.saturating_sub(missing);
            self.start += 1;
            let first_seq = self.next_seq.saturating_sub(self.records().len() as u64);
            self.notes.drop_before(first_seq);
            self.call_ids.drop_before(first_seq);
        }
    }

    /// The history position of the record at `index` of the window.
    pub fn seq_of(&self, index: usize) -> u64 {
        let newer = self.records().len().saturating_sub(index) as u64;
        self.next_seq.saturating_sub(newer)
    }

    /// The newest pending record of `tool` whose argument text matches: its fingerprint can be
    /// reused for the outcome without hashing the arguments again.
    pub fn find_pending_by_text(&self, tool: u16, args_text_hash: u64) -> Option<usize> {
        self.records()
            .iter()
            .rposition(|r| r.tool() == tool && r.args_text_hash() == Some(args_text_hash))
    }

    /// The newest pending record of `tool` checked with the call id whose hash is `call_id`.
    pub fn find_pending_by_call_id(&self, call_id: u64, tool: u16) -> Option<usize> {
        self.records()
            .iter()
            .rposition(|r| r.tool() == tool && r.is_pending() && r.has_call_id(call_id))
    }

    /// The pending record an outcome settles: the newest with its call id (whatever its tool),
    /// else the newest pending one of its fingerprint. Records before `from` are not searched: a
    /// caller that already holds a match (`check`'s pending record) passes its index, which
    /// bounds the search without changing the answer.
    pub fn find_pending(
        &self,
        call_id: Option<u64>,
        tool: u16,
        args: &Fingerprint,
        from: usize,
    ) -> Option<usize> {
        let newer = self.records().get(from..).unwrap_or_default();
        let by_id = call_id.and_then(|id| newer.iter().rposition(|r| r.has_call_id(id)));
        by_id
            .or_else(|| {
                newer
                    .iter()
                    .rposition(|r| r.is_pending() && r.same_call(tool, args))
            })
            .map(|i| i + from)
    }

    /// The history position of the oldest earlier completed record of the same call as the record
    /// at `index` that returned the same outcome and is `named` (has a call id), if the window
    /// still holds one: a host that replaced later repeats with a reference keeps that one whole.
    pub fn same_as(&self, index: usize, named: impl Fn(u64) -> bool) -> Option<u64> {
        let record = self.records().get(index)?;
        let outcome = record.outcome()?;
        let earlier = self
            .records()
            .get(..index)?
            .iter()
            .enumerate()
            .position(|(i, r)| {
                r.same_call(record.tool(), &record.args)
                    && r.outcome() == Some(outcome)
                    && named(self.seq_of(i))
            })?;
        Some(self.seq_of(earlier))
    }

    /// Sets a record's state, computes its streak counters and novelty from the records before
    /// it, and updates the run's count of calls that brought nothing new.
    pub fn settle(&mut self, index: usize, state: RecordState) {
        let Some(record) = self.records().get(index) else {
            return;
        };
        let (tool, args, kind) = (record.tool(), record.args, record.kind());
        let outcome = match &state {
            RecordState::Completed { outcome, .. } => Some(*outcome),
            _ => None,
        };
        let before = Streaks::before(self, index, tool, &args, outcome.as_ref());
        let (same_outcome_run, no_progress) = before.counters(&state);
        if let Some(record) = self.records.get_mut(self.start + index) {
            let was_missing = u32::from(record.reported_missing());
            record.set_state(state);
            record.set_counters(same_outcome_run, no_progress);
            if outcome.is_some() && !before.seen() {
                record.mark_novel();
            }
            self.missing_reports = self.missing_reports.saturating_sub(was_missing)
                + u32::from(record.reported_missing());
        }
        match state {
            RecordState::Vetoed => {
                self.trailing_vetoes = self.trailing_vetoes.saturating_add(1);
                self.stale_calls = self.stale_calls.saturating_add(1);
            }
            RecordState::Completed { blank, .. } => {
                self.trailing_vetoes = 0;
                if !before.seen() {
                    // A new question answered with nothing (an empty `grep`) neither adds to a
                    // stale stretch nor ends it.
                    if !blank {
                        self.stale_calls = 0;
                    }
                } else if kind != ToolKind::Poll {
                    self.stale_calls = self.stale_calls.saturating_add(1);
                }
            }
            RecordState::Pending => {}
        }
    }

    /// Notes on the record at `index` that `detector` warned about it.
    pub fn mark_warned(&mut self, index: usize, detector: DetectorId) {
        if let Some(record) = self.records.get_mut(self.start + index) {
            record.set_warned(Some(detector));
        }
    }

    /// Times of the recent allowed calls of a capped tool.
    pub fn cap_times(&self, tool: &str) -> Option<&VecDeque<f64>> {
        self.cap_log
            .iter()
            .find(|(t, _)| t == tool)
            .map(|(_, times)| times)
    }

    /// Notes an allowed call of a capped tool, keeping the newest `keep` times.
    pub fn log_capped_call(&mut self, tool: &str, at: f64, keep: u32) {
        let index = match self.cap_log.iter().position(|(t, _)| t == tool) {
            Some(i) => i,
            None => {
                self.cap_log.push((tool.to_owned(), VecDeque::new()));
                self.cap_log.len() - 1
            }
        };
        if let Some((_, times)) = self.cap_log.get_mut(index) {
            times.push_back(at);
            while times.len() > keep as usize {
                times.pop_front();
            }
        }
    }

    /// Host-observed progress: streaks restart from the next record, outages and shared causes
    /// are forgotten.
    pub fn mark_progress(&mut self) {
        self.progress_floor = self.next_seq;
        self.trailing_vetoes = 0;
        self.stale_calls = 0;
        self.outages.clear();
        self.warned_causes = 0;
    }

    /// Takes the pending record at `index` out of the window, as if it had never been made: its
    /// call failed transiently (an outage, not a loop). Later records, their notes and the
    /// progress floor move one position back.
    pub fn withdraw(&mut self, index: usize) {
        let seq = self.seq_of(index);
        if self.start + index >= self.records.len() {
            return;
        }
        self.records.remove(self.start + index);
        self.next_seq = self.next_seq.saturating_sub(1);
        self.notes.withdraw(seq);
        self.call_ids.withdraw(seq);
        if self.progress_floor > seq {
            self.progress_floor -= 1;
        }
        self.trailing_vetoes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_buffer_is_allocated_once_and_the_window_slides_through_it() {
        let mut run = Run::default();
        for i in 0..100u32 {
            let tool = run.intern_tool(if i % 2 == 0 { "a" } else { "b" }, 30);
            let index = run.push(
                CallRecord::pending(tool, [1; 8], ToolKind::Read, f64::from(i), 0, None),
                30,
            );
            assert_eq!(index, run.records().len() - 1);
            let times: Vec<f64> = run.records().iter().map(|r| r.at).collect();
            let oldest = (i + 1).saturating_sub(30);
            assert_eq!(times, (oldest..=i).map(f64::from).collect::<Vec<_>>());
        }
        assert_eq!(run.records.capacity(), 30 + SPARE_SLOTS);
    }

    #[test]
    fn missing_tool_reports_are_counted_while_in_the_window() {
        let mut run = Run::default();
        let missing = RecordState::Completed {
            outcome: [2; 8],
            is_error: true,
            missing_tool: true,
            blank: false,
        };
        let index = run.push(
            CallRecord::pending(0, [1; 8], ToolKind::Read, 0.0, 0, None),
            2,
        );
        run.settle(index, missing);
        assert!(run.has_missing_reports());
        let copy = run.records().to_vec();
        run.keep_newest(0);
        assert!(!run.has_missing_reports());
        copy.into_iter().for_each(|record| run.restore(record));
        assert!(run.has_missing_reports());
        for _ in 0..2 {
            run.push(
                CallRecord::pending(0, [1; 8], ToolKind::Read, 0.0, 0, None),
                2,
            );
        }
        assert!(!run.has_missing_reports(), "the report left the window");
    }

    #[test]
    fn an_imported_run_is_cut_and_fitted_to_this_guards_window() {
        let mut run = Run::default();
        for i in 0..100 {
            run.restore(CallRecord::pending(
                0,
                [1; 8],
                ToolKind::Read,
                f64::from(i),
                0,
                None,
            ));
        }
        run.keep_newest(30);
        let times: Vec<f64> = run.records().iter().map(|r| r.at).collect();
        assert_eq!(times, (70..100).map(f64::from).collect::<Vec<_>>());
        assert_eq!(run.records.capacity(), 30 + SPARE_SLOTS);
        run.push(
            CallRecord::pending(0, [1; 8], ToolKind::Read, 100.0, 0, None),
            30,
        );
        assert_eq!(run.records().first().map(|r| r.at), Some(71.0));
        assert_eq!(run.records.capacity(), 30 + SPARE_SLOTS);
    }

    #[test]
    fn the_tool_table_is_compacted_to_the_names_the_window_uses() {
        let mut run = Run::default();
        for i in 0..10 {
            let tool = run.intern_tool(&format!("t{i}"), 3);
            run.push(
                CallRecord::pending(tool, [1; 8], ToolKind::Read, 0.0, 0, None),
                3,
            );
        }
        assert!(run.tools.len() <= 4, "{} names kept", run.tools.len());
        let names: Vec<&str> = run
            .records()
            .iter()
            .map(|r| run.tool_name(r.tool()))
            .collect();
        assert_eq!(names, ["t7", "t8", "t9"]);
    }
}
