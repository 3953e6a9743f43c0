//! One run's bounded window of call records. Records hold fingerprints only (tool index, args
//! digest, outcome digest), never raw arguments or results, so memory per run is O(historySize).

use crate::config::tools::ToolKind;
use crate::json::digest::Digest;
use crate::run::tool_table::ToolTable;
use crate::verdict::DetectorId;
use std::collections::VecDeque;

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

/// A run's tool table holds at most this many names (records keep a 14-bit index). The table is
/// compacted to the names its window uses, and `historySize` is at most 10,000, so it never
/// comes close.
pub const MAX_TOOLS: usize = 1 << TOOL_BITS;

/// Streak counters (`same_outcome_run`, `no_progress`) saturate here: 19 bits, above the largest
/// threshold the config accepts (`config::MAX_COUNT`), so no threshold comparison sees the cap.
pub const COUNTER_MAX: u32 = (1 << COUNTER_BITS) - 1;

// `CallRecord::meta`, from the low bits up: tool index (14), tool kind (2), warned detector (4),
// state (6), then 38 bits that hold the call-id key while pending and the two 19-bit streak
// counters once settled.
const TOOL_BITS: u32 = 14;
const KIND_SHIFT: u32 = 14;
const WARNED_SHIFT: u32 = 16;
const STATE_SHIFT: u32 = 20;
const STATE_BITS: u32 = 6;
const TAIL_SHIFT: u32 = 26;
const COUNTER_BITS: u32 = 19;
/// The call-id key keeps the low 38 bits of the id's FNV-1a hash (0: no call id).
pub const CALL_ID_MASK: u64 = (1 << 38) - 1;

const PENDING: u64 = 0;
const VETOED: u64 = 1;
const COMPLETED: u64 = 2;
const IS_ERROR: u64 = 4;
const MISSING_TOOL: u64 = 8;
const BLANK: u64 = 16;
/// No earlier record in the window made this call and got this outcome (set by `Run::settle`).
const NOVEL: u64 = 32;

// Every detector id (plus "none") fits the 4-bit warned field.
const _: () = assert!(DetectorId::ALL.len() < 16);

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
    /// Tool index, kind, warned detector, state, and the call-id key or the streak counters,
    /// packed (layout above).
    meta: u64,
}

/// The key a call id's FNV-1a hash is matched by: its low 38 bits, 0 kept as 1 so that 0 can
/// mean "none".
fn call_id_key(hash: u64) -> u64 {
    (hash & CALL_ID_MASK).max(1)
}

fn field(meta: u64, shift: u32, bits: u32) -> u64 {
    (meta >> shift) & ((1 << bits) - 1)
}

/// The code of a tool kind (also its snapshot byte).
pub fn kind_code(kind: ToolKind) -> u8 {
    match kind {
        ToolKind::Poll => 0,
        ToolKind::Read => 1,
        ToolKind::Mutate => 2,
        ToolKind::Command => 3,
    }
}

pub fn kind_from_code(code: u8) -> Option<ToolKind> {
    match code {
        0 => Some(ToolKind::Poll),
        1 => Some(ToolKind::Read),
        2 => Some(ToolKind::Mutate),
        3 => Some(ToolKind::Command),
        _ => None,
    }
}

/// The code of a detector (also its snapshot byte): 1 + its place in `DetectorId::ALL`; 0 for
/// none.
pub fn detector_code(id: Option<DetectorId>) -> u8 {
    id.and_then(|id| DetectorId::ALL.iter().position(|d| *d == id))
        .map_or(0, |i| u8::try_from(i + 1).unwrap_or(0))
}

/// The detector of a code; `None` for 0 and for a code that names none.
pub fn detector_from_code(code: u8) -> Option<DetectorId> {
    DetectorId::ALL
        .get(usize::from(code).checked_sub(1)?)
        .copied()
}

impl CallRecord {
    /// A pending record; `call_id` and `args_text_hash` are lookup keys (`keys.rs`) for matching
    /// its outcome.
    /// `tool` must be below `MAX_TOOLS`.
    pub fn pending(
        tool: u16,
        args: Fingerprint,
        kind: ToolKind,
        at: f64,
        args_text_hash: u64,
        call_id: Option<u64>,
    ) -> CallRecord {
        let meta = (u64::from(tool) & (MAX_TOOLS as u64 - 1))
            | (u64::from(kind_code(kind)) << KIND_SHIFT)
            | (PENDING << STATE_SHIFT)
            | (call_id.map_or(0, call_id_key) << TAIL_SHIFT);
        CallRecord {
            at,
            args,
            slot: args_text_hash.to_le_bytes(),
            meta,
        }
    }

    /// Index into the run's tool-name table.
    pub fn tool(&self) -> u16 {
        field(self.meta, 0, TOOL_BITS) as u16
    }

    fn set_tool(&mut self, tool: u16) {
        self.meta =
            (self.meta & !(MAX_TOOLS as u64 - 1)) | (u64::from(tool) & (MAX_TOOLS as u64 - 1));
    }

    pub fn kind(&self) -> ToolKind {
        kind_from_code(field(self.meta, KIND_SHIFT, 2) as u8).unwrap_or(ToolKind::Read)
    }

    /// The detector that warned when this call was checked, if any.
    pub fn warned(&self) -> Option<DetectorId> {
        detector_from_code(field(self.meta, WARNED_SHIFT, 4) as u8)
    }

    pub fn set_warned(&mut self, warned: Option<DetectorId>) {
        self.meta = (self.meta & !(0xf << WARNED_SHIFT))
            | (u64::from(detector_code(warned) & 0xf) << WARNED_SHIFT);
    }

    fn state_bits(&self) -> u64 {
        field(self.meta, STATE_SHIFT, STATE_BITS)
    }

    /// Same call, same outcome, this many times in a row (0 until completed; at most
    /// `COUNTER_MAX`).
    pub fn same_outcome_run(&self) -> u32 {
        if self.is_pending() {
            0
        } else {
            field(self.meta, TAIL_SHIFT, COUNTER_BITS) as u32
        }
    }

    /// Calls of this fingerprint without progress, this one included (0 while pending; at most
    /// `COUNTER_MAX`).
    pub fn no_progress(&self) -> u32 {
        if self.is_pending() {
            0
        } else {
            field(self.meta, TAIL_SHIFT + COUNTER_BITS, COUNTER_BITS) as u32
        }
    }

    /// Sets the streak counters of a settled record, saturating at `COUNTER_MAX`; a pending
    /// record has none (its bits hold the call-id key).
    pub fn set_counters(&mut self, same_outcome_run: u32, no_progress: u32) {
        if self.is_pending() {
            return;
        }
        let run = u64::from(same_outcome_run.min(COUNTER_MAX));
        let no_progress = u64::from(no_progress.min(COUNTER_MAX));
        self.meta = (self.meta & ((1 << TAIL_SHIFT) - 1))
            | (run << TAIL_SHIFT)
            | (no_progress << (TAIL_SHIFT + COUNTER_BITS));
    }

    pub fn state(&self) -> RecordState {
        let state = self.state_bits();
        match state & 3 {
            PENDING => RecordState::Pending,
            COMPLETED => RecordState::Completed {
                outcome: self.slot,
                is_error: state & IS_ERROR != 0,
                missing_tool: state & MISSING_TOOL != 0,
                blank: state & BLANK != 0,
            },
            _ => RecordState::Vetoed,
        }
    }

    /// Sets the state. Leaving `Pending` drops the matching keys; the counters start at 0 and the
    /// record is not novel until `mark_novel`.
    pub fn set_state(&mut self, state: RecordState) {
        let bits = match state {
            RecordState::Pending => PENDING,
            RecordState::Vetoed => {
                self.slot = [0; 8];
                VETOED
            }
            RecordState::Completed {
                outcome,
                is_error,
                missing_tool,
                blank,
            } => {
                self.slot = outcome;
                COMPLETED
                    | if is_error { IS_ERROR } else { 0 }
                    | if missing_tool { MISSING_TOOL } else { 0 }
                    | if blank { BLANK } else { 0 }
            }
        };
        let keep = match state {
            RecordState::Pending => !(((1 << STATE_BITS) - 1) << STATE_SHIFT),
            _ => (1 << STATE_SHIFT) - 1,
        };
        self.meta = (self.meta & keep) | (bits << STATE_SHIFT);
    }

    /// The key of the argument text as checked, while pending.
    pub fn args_text_hash(&self) -> Option<u64> {
        self.is_pending().then(|| u64::from_le_bytes(self.slot))
    }

    /// The key (`call_id_key`) of the host's call id, while pending (and when it had one).
    pub fn call_id(&self) -> Option<u64> {
        let key = self.meta >> TAIL_SHIFT;
        (self.is_pending() && key != 0).then_some(key)
    }

    /// Whether a pending record's call id is the one hashing to `hash`.
    pub fn has_call_id(&self, hash: u64) -> bool {
        self.call_id() == Some(call_id_key(hash))
    }

    pub fn same_call(&self, tool: u16, args: &Fingerprint) -> bool {
        self.tool() == tool && &self.args == args
    }

    pub fn outcome(&self) -> Option<&Fingerprint> {
        (self.state_bits() & 3 == COMPLETED).then_some(&self.slot)
    }

    pub fn is_pending(&self) -> bool {
        self.state_bits() == PENDING
    }

    pub fn is_vetoed(&self) -> bool {
        self.state_bits() == VETOED
    }

    pub fn is_error(&self) -> bool {
        self.outcome().is_some() && self.state_bits() & IS_ERROR != 0
    }

    pub fn reported_missing(&self) -> bool {
        self.outcome().is_some() && self.state_bits() & MISSING_TOOL != 0
    }

    /// The outcome said nothing (see `RecordState::Completed::blank`).
    pub fn is_blank(&self) -> bool {
        self.outcome().is_some() && self.state_bits() & BLANK != 0
    }

    /// Completed, and no earlier record in the window made this call and got this outcome.
    pub fn is_novel(&self) -> bool {
        self.outcome().is_some() && self.state_bits() & NOVEL != 0
    }

    /// Marks a completed record novel (snapshots restore the flag this way too).
    pub fn mark_novel(&mut self) {
        if self.outcome().is_some() {
            self.meta |= NOVEL << STATE_SHIFT;
        }
    }

    /// Whether this record is evidence that the world, or what the agent knows of it, changed: a
    /// call that returned something it never returned before, without failing. Poll results are
    /// the exception: a poll only watches. Any other kind counts, whatever it is named: a
    /// re-read after an edit made through a shell, an editor or an API all show up here.
    pub fn changed_state(&self) -> bool {
        self.is_novel() && !self.is_error() && self.kind() != ToolKind::Poll
    }
}

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

    /// Drops the oldest record (its slot is reclaimed when the window moves to the front).
    fn pop_oldest(&mut self) {
        if let Some(oldest) = self.records().first() {
            let missing = u32::from(oldest.reported_missing());
            self.missing_reports = self.missing_reports.saturating_sub(missing);
            self.start += 1;
        }
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
        let (same_outcome_run, no_progress) = match outcome {
            Some(outcome) => match before.last_done {
                Some((prev_outcome, run)) if prev_outcome == outcome => (
                    run.saturating_add(1),
                    before.quiet_no_progress.saturating_add(1),
                ),
                _ => (1, 1),
            },
            None if state == RecordState::Vetoed => (0, before.quiet_no_progress.saturating_add(1)),
            None => (0, 0),
        };
        if let Some(record) = self.records.get_mut(self.start + index) {
            let was_missing = u32::from(record.reported_missing());
            record.set_state(state);
            record.set_counters(same_outcome_run, no_progress);
            if outcome.is_some() && !before.seen {
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
            RecordState::Completed { .. } => {
                self.trailing_vetoes = 0;
                if !before.seen {
                    self.stale_calls = 0;
                } else if kind != ToolKind::Poll {
                    self.stale_calls = self.stale_calls.saturating_add(1);
                }
            }
            RecordState::Pending => {}
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

    /// Host-observed progress: streaks restart from the next record.
    pub fn mark_progress(&mut self) {
        self.progress_floor = self.next_seq;
        self.trailing_vetoes = 0;
        self.stale_calls = 0;
    }
}

/// What `Run::settle` needs to know of the records before the one it settles, gathered in one
/// pass, newest first.
struct Streaks {
    /// The newest earlier completed record of the same call that counts towards streaks: its
    /// outcome and outcome streak.
    last_done: Option<(Fingerprint, u32)>,
    /// The no-progress count this record continues: the newest earlier settled record's, or 0
    /// when a record that changed something (`CallRecord::changed_state`) lies between them.
    quiet_no_progress: u32,
    /// An earlier record in the window made the same call and got this outcome.
    seen: bool,
}

impl Streaks {
    fn before(
        run: &Run,
        index: usize,
        tool: u16,
        args: &Fingerprint,
        outcome: Option<&Fingerprint>,
    ) -> Streaks {
        let records = run.records();
        let end = index.min(records.len());
        let first_counted = run.first_counted().min(end);
        let mut streaks = Streaks {
            last_done: None,
            quiet_no_progress: 0,
            seen: false,
        };
        let mut settled_found = false;
        let mut changed_between = false;
        for (i, earlier) in records
            .get(..end)
            .unwrap_or_default()
            .iter()
            .enumerate()
            .rev()
        {
            let same_call = earlier.same_call(tool, args);
            if same_call && outcome.is_some() && earlier.outcome() == outcome {
                streaks.seen = true;
            }
            let counted = i >= first_counted;
            if counted && same_call && !earlier.is_pending() {
                if !settled_found {
                    settled_found = true;
                    if !changed_between {
                        streaks.quiet_no_progress = earlier.no_progress();
                    }
                }
                if let (None, Some(done)) = (streaks.last_done, earlier.outcome()) {
                    streaks.last_done = Some((*done, earlier.same_outcome_run()));
                }
            } else if !settled_found && earlier.changed_state() {
                changed_between = true;
            }
            // A refusal has no outcome to find again: only the streaks matter.
            let novelty_known = streaks.seen || outcome.is_none();
            if novelty_known && (streaks.last_done.is_some() || !counted) {
                break;
            }
        }
        streaks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use serde_json::json;

    #[test]
    fn a_record_is_32_bytes_and_keeps_its_keys_until_settled() {
        assert_eq!(std::mem::size_of::<CallRecord>(), 32);
        assert_eq!(std::mem::align_of::<CallRecord>(), 8);
        let mut record = CallRecord::pending(3, [7; 8], ToolKind::Read, 1.5, 42, Some(1 << 38));
        assert_eq!(record.args_text_hash(), Some(42));
        assert_eq!(
            record.call_id(),
            Some(1),
            "a call id whose low 38 bits are 0 is kept as 1"
        );
        assert!(record.has_call_id(1 << 38) && record.has_call_id(1));
        assert_eq!((record.same_outcome_run(), record.no_progress()), (0, 0));
        let done = RecordState::Completed {
            outcome: [9; 8],
            is_error: true,
            missing_tool: false,
            blank: false,
        };
        record.set_state(done);
        assert_eq!(record.state(), done);
        assert_eq!((record.args_text_hash(), record.call_id()), (None, None));
        assert!(record.is_error() && !record.reported_missing());
    }

    #[test]
    fn packed_fields_do_not_bleed_into_each_other() {
        let last_detector = DetectorId::ALL.last().copied();
        let mut record = CallRecord::pending(
            (MAX_TOOLS - 1) as u16,
            [0xff; 8],
            ToolKind::Mutate,
            -0.0,
            u64::MAX,
            Some(u64::MAX),
        );
        record.set_warned(last_detector);
        assert_eq!(record.tool(), (MAX_TOOLS - 1) as u16);
        assert_eq!(record.kind(), ToolKind::Mutate);
        assert_eq!(record.warned(), last_detector);
        assert_eq!(record.args_text_hash(), Some(u64::MAX));
        assert_eq!(record.call_id(), Some(CALL_ID_MASK));
        record.set_state(RecordState::Completed {
            outcome: [0xff; 8],
            is_error: false,
            missing_tool: true,
            blank: true,
        });
        record.set_counters(COUNTER_MAX + 5, u32::MAX);
        assert_eq!(
            (record.same_outcome_run(), record.no_progress()),
            (COUNTER_MAX, COUNTER_MAX)
        );
        record.set_counters(1, COUNTER_MAX - 1);
        assert_eq!(
            (record.same_outcome_run(), record.no_progress()),
            (1, COUNTER_MAX - 1)
        );
        assert_eq!(
            (record.tool(), record.kind(), record.warned()),
            ((MAX_TOOLS - 1) as u16, ToolKind::Mutate, last_detector)
        );
        assert!(record.reported_missing() && !record.is_error());
        record.set_tool(5);
        record.set_warned(None);
        assert_eq!((record.tool(), record.warned()), (5, None));
        assert_eq!(record.outcome(), Some(&[0xff; 8]));
        record.set_state(RecordState::Vetoed);
        assert!(record.is_vetoed() && record.outcome().is_none());
        assert_eq!((record.same_outcome_run(), record.no_progress()), (0, 0));
        assert_eq!((record.tool(), record.kind()), (5, ToolKind::Mutate));
    }

    #[test]
    fn no_threshold_a_streak_counter_is_compared_with_can_reach_its_cap() {
        let too_big = COUNTER_MAX + 1;
        let configs = [
            json!({"warningThreshold": too_big}),
            json!({"criticalThreshold": too_big}),
            json!({"globalCircuitBreakerThreshold": too_big}),
            json!({"tools": {"t": {"criticalThreshold": too_big}}}),
            json!({"tools": {"t": {"warningThreshold": too_big}}}),
        ];
        for config in configs {
            let error = Config::from_json(&config).err();
            assert!(
                error.is_some_and(|e| e.message.contains("no larger than")),
                "{config} was not refused for its size"
            );
        }
        let largest = json!({"warningThreshold": 499_998, "criticalThreshold": 499_999,
            "globalCircuitBreakerThreshold": 500_000});
        assert!(Config::from_json(&largest).is_ok());
    }

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

    /// The record at `index` of the window (a copy: the tests read its fields); where there is
    /// none, a pending record, which no assertion below accepts.
    fn record(run: &Run, index: usize) -> CallRecord {
        run.records().get(index).cloned().unwrap_or_else(|| {
            CallRecord::pending(MAX_TOOLS as u16 - 1, [0; 8], ToolKind::Read, 0.0, 0, None)
        })
    }

    /// Pushes and settles one completed call; returns its index.
    fn complete(run: &mut Run, tool: u16, args: u8, outcome: u8, kind: ToolKind) -> usize {
        let index = run.push(CallRecord::pending(tool, [args; 8], kind, 0.0, 0, None), 30);
        run.settle(
            index,
            RecordState::Completed {
                outcome: [outcome; 8],
                is_error: false,
                missing_tool: false,
                blank: false,
            },
        );
        index
    }

    #[test]
    fn a_new_result_of_another_call_restarts_the_quiet_streak() {
        let mut run = Run::default();
        let read = |run: &mut Run| complete(run, 0, 1, 7, ToolKind::Read);
        let first = read(&mut run);
        let second = read(&mut run);
        let quiet = |run: &Run, i: usize| {
            let r = record(run, i);
            (r.same_outcome_run(), r.no_progress(), r.is_novel())
        };
        assert_eq!(quiet(&run, first), (1, 1, true));
        assert_eq!(quiet(&run, second), (2, 2, false));
        // An edit whose answer is new: a change. The identical read after it starts afresh,
        // though its outcome streak goes on.
        let edit = complete(&mut run, 1, 2, 9, ToolKind::Mutate);
        assert!(record(&run, edit).changed_state());
        let third = read(&mut run);
        assert_eq!(quiet(&run, third), (3, 1, false));
        // The same edit again with the same answer is not new: no change, the streak grows.
        complete(&mut run, 1, 2, 9, ToolKind::Mutate);
        let fourth = read(&mut run);
        assert_eq!(quiet(&run, fourth), (4, 2, false));
    }

    #[test]
    fn errors_and_polls_change_nothing() {
        let mut run = Run::default();
        complete(&mut run, 0, 1, 7, ToolKind::Read);
        let failed = run.push(
            CallRecord::pending(1, [3; 8], ToolKind::Read, 0.0, 0, None),
            30,
        );
        run.settle(
            failed,
            RecordState::Completed {
                outcome: [4; 8],
                is_error: true,
                missing_tool: false,
                blank: false,
            },
        );
        let poll = complete(&mut run, 2, 5, 6, ToolKind::Poll);
        assert!(record(&run, failed).is_novel() && !record(&run, failed).changed_state());
        assert!(record(&run, poll).is_novel() && !record(&run, poll).changed_state());
        let again = complete(&mut run, 0, 1, 7, ToolKind::Read);
        assert_eq!(record(&run, again).no_progress(), 2);
    }

    #[test]
    fn stale_calls_count_what_brought_nothing_new() {
        let mut run = Run::default();
        complete(&mut run, 0, 1, 7, ToolKind::Read);
        complete(&mut run, 1, 2, 8, ToolKind::Read);
        assert_eq!(run.stale_calls, 0, "both were new");
        complete(&mut run, 0, 1, 7, ToolKind::Read);
        complete(&mut run, 1, 2, 8, ToolKind::Read);
        complete(&mut run, 2, 3, 9, ToolKind::Poll);
        assert_eq!(run.stale_calls, 0, "a new poll result resets it too");
        complete(&mut run, 0, 1, 7, ToolKind::Read);
        complete(&mut run, 2, 3, 9, ToolKind::Poll);
        assert_eq!(
            run.stale_calls, 1,
            "an unchanged poll neither counts nor resets"
        );
        let vetoed = run.push(
            CallRecord::pending(1, [2; 8], ToolKind::Read, 0.0, 0, None),
            30,
        );
        run.settle(vetoed, RecordState::Vetoed);
        assert_eq!(run.stale_calls, 2);
        assert_eq!(
            record(&run, vetoed).no_progress(),
            3,
            "the refusal continues its streak"
        );
        run.mark_progress();
        assert_eq!(run.stale_calls, 0);
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
