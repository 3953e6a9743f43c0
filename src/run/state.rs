//! One run's state: its bounded window of call records (fingerprints only, never raw arguments or
//! results, so memory per run is O(historySize)), the tool names they refer to, and the run's
//! counters, cap log and compaction watch. Records enter the window here and are settled here.

use crate::config::tools::{Cap, ToolKind};
use crate::run::call_chain::CallChain;
use crate::run::call_counts::{CallCounts, COUNTED_FROM};
use crate::run::call_ids::CallIds;
use crate::run::call_record::{CallRecord, Fingerprint, RecordState};
use crate::run::last_arguments::LastArguments;
use crate::run::outages::Outages;
use crate::run::record_meta::MAX_TOOLS;
use crate::run::record_notes::RecordNotes;
use crate::run::streaks::Streaks;
use crate::run::tool_table::ToolTable;
use crate::run::window_index::WindowIndex;
use crate::verdict::DetectorId;
use std::collections::VecDeque;

/// Slots a run's record buffer may have beyond `history_size`. The window slides through them
/// and is moved back to the front of the buffer only when they run out, so it stays one slice:
/// moving `history_size` records once every `history_size / 8` pushes is at most 8 records a
/// push, whatever the window's size. At least 2, so a small window does not move every push.
fn spare_slots(history_size: usize) -> usize {
    (history_size / 8).max(2)
}

/// The fewest slots a run's buffer is given at its first push: a run of one call costs 128
/// bytes of records, not a window's worth.
const FIRST_SLOTS: usize = 4;

/// The times of one capped tool's allowed calls, oldest first, at most `cap.calls` of them.
/// While they arrive in order (the host's clock does not go back), a check finds the calls within
/// the cap's window by a binary search and times that left it are dropped as calls are logged, so
/// neither the cost of a check nor the log grows with `cap.calls`.
#[derive(Debug, Clone, PartialEq)]
pub struct CapLog {
    pub tool: String,
    pub times: VecDeque<f64>,
    /// Whether `times` is in ascending order.
    in_order: bool,
}

impl CapLog {
    /// A log of `times` as a snapshot held them.
    pub fn restored(tool: String, times: VecDeque<f64>) -> CapLog {
        let in_order = times.iter().zip(times.iter().skip(1)).all(|(a, b)| a <= b);
        CapLog {
            tool,
            times,
            in_order,
        }
    }

    fn push(&mut self, at: f64, cap: Cap) {
        self.in_order &= self.times.back().is_none_or(|&newest| newest <= at);
        self.times.push_back(at);
        while self.times.len() > cap.calls as usize {
            self.times.pop_front();
        }
        if self.in_order {
            let gone = self.outside(at, cap.window_ms);
            self.times.drain(..gone);
        }
    }

    /// How many of the oldest times are `window_ms` or more before `at` (in order only).
    fn outside(&self, at: f64, window_ms: f64) -> usize {
        self.times.partition_point(|&t| at - t >= window_ms)
    }

    /// The calls within `window_ms` before `at` (later ones too): their count and the oldest
    /// time among them.
    pub fn within(&self, at: f64, window_ms: f64) -> (usize, f64) {
        if self.in_order {
            let first = self.outside(at, window_ms);
            let oldest = self.times.get(first).copied().unwrap_or(f64::INFINITY);
            return (self.times.len() - first, oldest);
        }
        self.times
            .iter()
            .filter(|&&t| at - t < window_ms)
            .fold((0, f64::INFINITY), |(n, oldest), &t| (n + 1, oldest.min(t)))
    }
}

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
    /// records until a push moves the window back to the front (see `spare_slots`), so the
    /// window is always one slice. Private: records enter and leave only through `push`,
    /// `restore`, `keep_newest` and `settle`, which keep `start` and `missing_reports` right.
    records: Vec<CallRecord>,
    start: usize,
    /// Pending records in the window: a search for the one an outcome settles stops once it has
    /// met them all (at the oldest), not at the window's start.
    pending: u32,
    /// How many records in the window had an outcome that reported their tool missing: lets
    /// `unknown_tool_repeat` skip its scans in the usual run that has none.
    missing_reports: u32,
    /// The window's records by call, outcome and tool, kept with the records.
    counts: CallCounts,
    /// Links, refusal stretches and the newest change, kept with the counts (`WindowIndex`).
    index: Option<Box<WindowIndex>>,
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
    pub cap_log: Vec<CapLog>,
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

    /// The window's records counted by call, outcome and tool.
    pub fn counts(&self) -> &CallCounts {
        debug_assert!(self.counts.are_those_of(self.records()));
        &self.counts
    }

    /// The window's records linked to the previous record of their call, once they are counted.
    pub fn chain(&self) -> Option<&CallChain> {
        self.index.as_deref().map(|index| &index.chain)
    }

    /// In a debug build, checks the counts and links against the window (after every change,
    /// so the tests that make long windows check them all).
    fn debug_check(&self) {
        debug_assert!(self.counts.are_those_of(self.records()));
        debug_assert_eq!(
            self.pending as usize,
            self.records().iter().filter(|r| r.is_pending()).count()
        );
        debug_assert!(self
            .index
            .as_ref()
            .is_none_or(|index| index.is_that_of(self.records(), self.first_seq())));
    }

    /// Whether a record of the window after index `after` and before index `before` changed
    /// something (`CallRecord::changed_state`): told by the newest that did, unless it is
    /// newer than `before` (outcomes settled out of order), when the records between are read.
    pub fn changed_between(&self, after: usize, before: usize) -> bool {
        let newest = self
            .index
            .as_ref()
            .map(|i| i.newest_change(self.first_seq()));
        match newest {
            Some(None) => false,
            Some(Some(change)) if change < self.seq_of(before) => change > self.seq_of(after),
            _ => self
                .records()
                .get(after + 1..before)
                .unwrap_or_default()
                .iter()
                .any(CallRecord::changed_state),
        }
    }

    /// The window index of the first record of the stretch of refusals holding the record at
    /// `index` (`index` itself when none does).
    pub fn refusals_from(&self, index: usize) -> usize {
        let seq = self.seq_of(index);
        let stretch = self.index.as_ref().and_then(|i| i.refusals.start_of(seq));
        let first = stretch.unwrap_or(seq).max(self.first_seq());
        index.saturating_sub((seq - first) as usize)
    }

    /// The history position of the window's oldest record.
    fn first_seq(&self) -> u64 {
        self.next_seq.saturating_sub(self.records().len() as u64)
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
        if self.counts.active() {
            self.relink();
        }
    }

    /// Counts and links the window's records from scratch, and from now on.
    fn relink(&mut self) {
        let first_seq = self.first_seq();
        let records = self.records.get(self.start..).unwrap_or_default();
        self.counts.rebuild(records);
        self.index = Some(Box::new(WindowIndex::of(records, first_seq)));
    }

    /// Starts counting the window's records (`CallCounts`) once it holds `COUNTED_FROM`.
    fn count_records(&mut self) {
        if !self.counts.active() && self.records().len() >= COUNTED_FROM {
            self.relink();
        }
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
    /// buffer grows with the records the run holds (doubling, from `FIRST_SLOTS`) up to
    /// `history_size` plus its spare slots, and no further.
    pub fn push(&mut self, record: CallRecord, history_size: usize) -> usize {
        while self.records().len() >= history_size.max(1) {
            self.pop_oldest();
        }
        if self.records.len() == self.records.capacity() {
            let size = history_size.max(1) + spare_slots(history_size);
            if self.start > 0 && self.records.capacity() >= size.min(2 * self.records().len()) {
                self.records.drain(..self.start);
                self.start = 0;
            } else {
                let grown = (2 * self.records.capacity()).clamp(FIRST_SLOTS, size.max(FIRST_SLOTS));
                self.records
                    .reserve_exact(grown.saturating_sub(self.records.len()).max(1));
            }
        }
        self.counts.add(&record);
        self.pending += u32::from(record.is_pending());
        if let Some(index) = &mut self.index {
            index.push(&record, self.next_seq);
        }
        self.next_seq += 1;
        self.records.push(record);
        self.count_records();
        self.debug_check();
        self.records().len() - 1
    }

    /// Appends a record decoded from a snapshot (`next_seq` is restored with the run).
    pub fn restore(&mut self, record: CallRecord) {
        self.missing_reports += u32::from(record.reported_missing());
        self.pending += u32::from(record.is_pending());
        self.counts.add(&record);
        self.records.push(record);
    }

    /// Drops the oldest records beyond `history_size` (an imported run meeting a smaller window)
    /// and fits the buffer to the records it keeps, whatever size the snapshot's guard used: an
    /// imported run costs what a live one holding those records does.
    pub fn keep_newest(&mut self, history_size: usize) {
        while self.records().len() > history_size {
            self.pop_oldest();
        }
        self.records.drain(..self.start);
        self.start = 0;
        self.records.shrink_to_fit();
        if self.counts.active() {
            self.relink();
        } else {
            self.count_records();
        }
        self.debug_check();
    }

    /// Drops the oldest record (its slot is reclaimed when the window moves to the front) and
    /// what it may have changed.
    fn pop_oldest(&mut self) {
        let oldest_seq = self.first_seq();
        if let Some(oldest) = self.records.get(self.start) {
            let missing = u32::from(oldest.reported_missing());
            self.missing_reports = self.missing_reports.saturating_sub(missing);
            self.counts.remove(oldest);
            self.pending = self.pending.saturating_sub(u32::from(oldest.is_pending()));
            if let Some(index) = &mut self.index {
                index.pop_oldest(oldest, oldest_seq);
            }
            self.start += 1;
            let first_seq = self.first_seq();
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
        self.pending_newest_first()
            .find(|(_, r)| r.tool() == tool && r.args_text_hash() == Some(args_text_hash))
            .map(|(i, _)| i)
    }

    /// The window's pending records, newest first, with their indices.
    fn pending_newest_first(&self) -> impl Iterator<Item = (usize, &CallRecord)> + Clone {
        let pending = self.records().iter().enumerate().rev();
        pending
            .filter(|(_, r)| r.is_pending())
            .take(self.pending as usize)
    }

    /// The newest pending record of `tool` checked with the call id whose hash is `call_id`.
    pub fn find_pending_by_call_id(&self, call_id: u64, tool: u16) -> Option<usize> {
        self.pending_newest_first()
            .find(|(_, r)| r.tool() == tool && r.has_call_id(call_id))
            .map(|(i, _)| i)
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
        // Only a pending record has a call id.
        let mut newer = self.pending_newest_first().take_while(|&(i, _)| i >= from);
        let by_id = call_id.and_then(|id| newer.clone().find(|(_, r)| r.has_call_id(id)));
        by_id
            .or_else(|| newer.find(|(_, r)| r.same_call(tool, args)))
            .map(|(i, _)| i)
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
        let seq = self.seq_of(index);
        let newest = index + 1 == self.records().len();
        let (same_outcome_run, no_progress) = before.counters(&state);
        if let Some(record) = self.records.get_mut(self.start + index) {
            let was_missing = u32::from(record.reported_missing());
            let was_pending = record.is_pending();
            self.counts.remove(record);
            record.set_state(state);
            self.pending = self
                .pending
                .saturating_sub(u32::from(was_pending && !record.is_pending()));
            record.set_counters(same_outcome_run, no_progress);
            if outcome.is_some() && !before.seen() {
                record.mark_novel();
            }
            if let Some(window_index) = &mut self.index {
                window_index.settled(record, seq, newest);
            }
            self.missing_reports = self.missing_reports.saturating_sub(was_missing)
                + u32::from(record.reported_missing());
            self.counts.add(record);
        }
        self.debug_check();
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
    pub fn cap_times(&self, tool: &str) -> Option<&CapLog> {
        self.cap_log.iter().find(|log| log.tool == tool)
    }

    /// Notes an allowed call of a capped tool, keeping the newest `cap.calls` times and none
    /// older than `cap.window_ms` before the newest.
    pub fn log_capped_call(&mut self, tool: &str, at: f64, cap: Cap) {
        let index = match self.cap_log.iter().position(|log| log.tool == tool) {
            Some(i) => i,
            None => {
                self.cap_log
                    .push(CapLog::restored(tool.to_owned(), VecDeque::new()));
                self.cap_log.len() - 1
            }
        };
        if let Some(log) = self.cap_log.get_mut(index) {
            log.push(at, cap);
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
        let withdrawn = self.records.remove(self.start + index);
        self.counts.remove(&withdrawn);
        self.pending = self
            .pending
            .saturating_sub(u32::from(withdrawn.is_pending()));
        self.next_seq = self.next_seq.saturating_sub(1);
        if self.index.is_some() {
            // Later records moved back one position: their index is made again.
            let records = self.records.get(self.start..).unwrap_or_default();
            self.index = Some(Box::new(WindowIndex::of(records, self.first_seq())));
        }
        self.notes.withdraw(seq);
        self.call_ids.withdraw(seq);
        if self.progress_floor > seq {
            self.progress_floor -= 1;
        }
        self.debug_check();
        self.trailing_vetoes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_buffer_grows_with_the_run_and_the_window_slides_through_it() {
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
            assert!(run.records.capacity() <= (2 * (i as usize + 1)).max(FIRST_SLOTS));
        }
        assert_eq!(run.records.capacity(), 30 + spare_slots(30));
    }

    #[test]
    fn a_short_run_holds_only_its_records_at_any_window_size() {
        for history_size in [1, 30, 1000, 10_000] {
            let mut run = Run::default();
            run.push(
                CallRecord::pending(0, [1; 8], ToolKind::Read, 0.0, 0, None),
                history_size,
            );
            assert_eq!(run.records.capacity(), FIRST_SLOTS);
        }
    }

    #[test]
    fn a_full_window_moves_at_most_eight_records_a_push() {
        let mut run = Run::default();
        let mut moves = 0;
        for i in 0..10_000u32 {
            let before = run.start;
            run.push(
                CallRecord::pending(0, [1; 8], ToolKind::Read, f64::from(i), 0, None),
                1000,
            );
            if run.start < before {
                moves += before - run.start + run.records().len() - 1;
            }
        }
        assert!(moves <= 8 * 10_000, "{moves} records moved");
        assert_eq!(run.records.capacity(), 1000 + spare_slots(1000));
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
        assert_eq!(run.records.capacity(), 30);
        run.push(
            CallRecord::pending(0, [1; 8], ToolKind::Read, 100.0, 0, None),
            30,
        );
        assert_eq!(run.records().first().map(|r| r.at), Some(71.0));
        assert_eq!(run.records.capacity(), 30 + spare_slots(30));
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

    /// The calls a cap log counts within a window are those a scan of every time counts, in
    /// order or not; in order, times that left the window are dropped.
    #[test]
    fn a_cap_log_counts_as_a_scan_of_every_time_does() {
        let cap = Cap {
            calls: 5,
            window_ms: 100.0,
        };
        for times in [
            vec![0.0, 10.0, 50.0, 120.0, 130.0, 300.0, 301.0, 301.0, 399.5],
            vec![0.0, 200.0, 50.0, 120.0, 10.0, 300.0, 250.0, 301.0],
        ] {
            let mut log = CapLog::restored("t".to_owned(), VecDeque::new());
            let mut kept: VecDeque<f64> = VecDeque::new();
            for &at in &times {
                for probe in [at - 150.0, at, at + 50.0, at + 99.0, at + 100.0] {
                    let recent: Vec<f64> = kept
                        .iter()
                        .copied()
                        .filter(|t| probe - t < cap.window_ms)
                        .collect();
                    let oldest = recent.iter().copied().fold(f64::INFINITY, f64::min);
                    let (count, found_oldest) = log.within(probe, cap.window_ms);
                    if probe >= log.times.back().copied().unwrap_or(f64::NEG_INFINITY) {
                        assert_eq!(
                            (count, found_oldest),
                            (recent.len(), oldest),
                            "{times:?} at {probe}"
                        );
                    }
                }
                log.push(at, cap);
                kept.push_back(at);
                while kept.len() > cap.calls as usize {
                    kept.pop_front();
                }
            }
            assert!(log.times.len() <= cap.calls as usize);
        }
    }
}
