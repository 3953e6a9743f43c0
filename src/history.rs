//! One run's bounded window of call records. Records hold fingerprints only (tool index, args
//! digest, outcome digest), never raw arguments or results, so memory per run is O(historySize).

use crate::canonical::Digest;
use crate::tool_table::ToolTable;
use crate::tools::ToolKind;
use crate::verdict::DetectorId;
use std::collections::VecDeque;

/// What the window keeps of a SHA-256 digest (arguments, outcomes): its first 128 bits. Collisions
/// stay out of reach (~2^64 work even when chosen), at half the memory per record.
pub type Fingerprint = [u8; 16];

/// The window fingerprint of a full digest.
pub fn fingerprint(digest: &Digest) -> Fingerprint {
    digest.first_chunk::<16>().copied().unwrap_or_default()
}

/// Where a record is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordState {
    /// Checked and allowed; the outcome has not arrived yet.
    Pending,
    /// The outcome is attached.
    Completed {
        outcome: Fingerprint,
        is_error: bool,
        missing_tool: bool,
    },
    /// The guard refused the call; it never ran.
    Vetoed,
}

const PENDING: u8 = 0;
const VETOED: u8 = 1;
const COMPLETED: u8 = 2;
const IS_ERROR: u8 = 4;
const MISSING_TOOL: u8 = 8;

/// One call in the window: 56 bytes. Its position in the run's history (`seq`) is not stored: the
/// window is contiguous, so `Run` derives it from the index.
#[derive(Debug, Clone, PartialEq)]
pub struct CallRecord {
    pub at: f64,
    pub args: Fingerprint,
    /// Pending: FNV-1a of the argument text as checked (lets `record` reuse `args` without parsing
    /// and hashing the same text again) and of the call id (0: none), little-endian. Completed:
    /// the outcome fingerprint. Nothing once vetoed.
    slot: [u8; 16],
    /// Same call, same outcome, this many times in a row (0 until completed).
    pub same_outcome_run: u32,
    /// Calls of this fingerprint without progress, this one included (0 while pending).
    pub no_progress: u32,
    /// Index into the run's tool-name table.
    pub tool: u16,
    pub kind: ToolKind,
    /// The detector that warned when this call was checked, if any.
    pub warned: Option<DetectorId>,
    /// PENDING, VETOED, or COMPLETED with IS_ERROR and MISSING_TOOL.
    state: u8,
}

impl CallRecord {
    /// A pending record; `call_id` and `args_text_hash` are FNV-1a keys for matching its outcome.
    pub fn pending(
        tool: u16,
        args: Fingerprint,
        kind: ToolKind,
        at: f64,
        args_text_hash: u64,
        call_id: Option<u64>,
    ) -> CallRecord {
        let mut slot = [0u8; 16];
        let (text, id) = slot.split_at_mut(8);
        text.copy_from_slice(&args_text_hash.to_le_bytes());
        // A call id whose hash is 0 is stored as 1, so that 0 can mean "none".
        id.copy_from_slice(&call_id.map_or(0, |h| h.max(1)).to_le_bytes());
        CallRecord {
            at,
            args,
            slot,
            same_outcome_run: 0,
            no_progress: 0,
            tool,
            kind,
            warned: None,
            state: PENDING,
        }
    }

    pub fn state(&self) -> RecordState {
        match self.state & 3 {
            PENDING => RecordState::Pending,
            COMPLETED => RecordState::Completed {
                outcome: self.slot,
                is_error: self.state & IS_ERROR != 0,
                missing_tool: self.state & MISSING_TOOL != 0,
            },
            _ => RecordState::Vetoed,
        }
    }

    pub fn set_state(&mut self, state: RecordState) {
        match state {
            RecordState::Pending => self.state = PENDING,
            RecordState::Vetoed => {
                self.state = VETOED;
                self.slot = [0; 16];
            }
            RecordState::Completed {
                outcome,
                is_error,
                missing_tool,
            } => {
                self.slot = outcome;
                self.state = COMPLETED
                    | if is_error { IS_ERROR } else { 0 }
                    | if missing_tool { MISSING_TOOL } else { 0 };
            }
        }
    }

    fn pending_key(&self, half: usize) -> Option<u64> {
        if !self.is_pending() {
            return None;
        }
        let bytes = self.slot.get(half * 8..half * 8 + 8)?;
        bytes.try_into().ok().map(u64::from_le_bytes)
    }

    /// FNV-1a of the argument text as checked, while pending.
    pub fn args_text_hash(&self) -> Option<u64> {
        self.pending_key(0)
    }

    /// FNV-1a of the host's call id, while pending (and when it had one).
    pub fn call_id(&self) -> Option<u64> {
        self.pending_key(1).filter(|id| *id != 0)
    }

    pub fn same_call(&self, tool: u16, args: &Fingerprint) -> bool {
        self.tool == tool && &self.args == args
    }

    pub fn outcome(&self) -> Option<&Fingerprint> {
        (self.state & 3 == COMPLETED).then_some(&self.slot)
    }

    pub fn is_pending(&self) -> bool {
        self.state == PENDING
    }

    pub fn is_vetoed(&self) -> bool {
        self.state == VETOED
    }

    pub fn is_error(&self) -> bool {
        self.outcome().is_some() && self.state & IS_ERROR != 0
    }

    pub fn reported_missing(&self) -> bool {
        self.outcome().is_some() && self.state & MISSING_TOOL != 0
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
    pub records: VecDeque<CallRecord>,
    /// The history position of the next record; the window holds the `records.len()` before it.
    pub next_seq: u64,
    /// Refusals in a row at the end of the run, whatever the fingerprint.
    pub trailing_vetoes: u32,
    /// Records before this sequence number do not count towards streaks (host-reported progress).
    pub progress_floor: u64,
    /// Boxed: armed rarely, so an idle run pays one pointer for it.
    pub compaction: Option<Box<CompactionWatch>>,
    /// Calls checked in this run (for `maxTurns`).
    pub turns: u32,
    /// Times of the allowed calls of capped tools, at most `cap.calls` each.
    pub cap_log: Vec<(String, VecDeque<f64>)>,
}

impl Run {
    pub fn records(&self) -> &VecDeque<CallRecord> {
        &self.records
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
    /// grows past what the window can reference, so it stays bounded.
    pub fn intern_tool(&mut self, tool: &str, history_size: usize) -> u16 {
        if let Some(i) = self.find_tool(tool) {
            return i;
        }
        if self.tools.len() > history_size || self.tools.len() >= usize::from(u16::MAX) {
            self.compact_tools();
        }
        self.tools.push(tool);
        u16::try_from(self.tools.len() - 1).unwrap_or(u16::MAX)
    }

    fn compact_tools(&mut self) {
        let old = std::mem::take(&mut self.tools);
        let mut kept: Vec<&str> = Vec::new();
        for record in self.records.iter_mut() {
            let name = old.get(usize::from(record.tool)).unwrap_or("");
            let index = match kept.iter().position(|t| *t == name) {
                Some(i) => i,
                None => {
                    kept.push(name);
                    kept.len() - 1
                }
            };
            record.tool = u16::try_from(index).unwrap_or(u16::MAX);
        }
        self.tools = ToolTable::from_names(kept.iter().copied());
    }

    /// The index of the first record that counts towards streaks (none before the last
    /// host-reported progress).
    pub fn first_counted(&self) -> usize {
        let len = self.records.len();
        let first_seq = self.next_seq.saturating_sub(len as u64);
        usize::try_from(self.progress_floor.saturating_sub(first_seq))
            .unwrap_or(usize::MAX)
            .min(len)
    }

    /// Appends a record, dropping the oldest beyond `history_size`; returns its index. The ring
    /// is allocated once at exactly `history_size` records.
    pub fn push(&mut self, record: CallRecord, history_size: usize) -> usize {
        while self.records.len() >= history_size.max(1) {
            self.records.pop_front();
        }
        if self.records.capacity() < history_size {
            self.records
                .reserve_exact(history_size - self.records.len());
        }
        self.next_seq += 1;
        self.records.push_back(record);
        self.records.len() - 1
    }

    /// The newest pending record of `tool` whose call id (when given) and argument text match: its
    /// fingerprint can be reused for the outcome without hashing the arguments again.
    pub fn find_pending_by_text(
        &self,
        call_id: Option<u64>,
        tool: u16,
        args_text_hash: u64,
    ) -> Option<usize> {
        let call_id = call_id.map(|h| h.max(1));
        self.records.iter().rposition(|r| {
            r.tool == tool
                && r.args_text_hash() == Some(args_text_hash)
                && call_id.is_none_or(|id| r.call_id() == Some(id))
        })
    }

    /// The index of the pending record an outcome belongs to: by call id when given, else (or when
    /// no call id matches) the newest pending record of the same fingerprint.
    pub fn find_pending(
        &self,
        call_id: Option<u64>,
        tool: u16,
        args: &Fingerprint,
    ) -> Option<usize> {
        let by_id = call_id
            .map(|h| h.max(1))
            .and_then(|id| self.records.iter().rposition(|r| r.call_id() == Some(id)));
        by_id.or_else(|| {
            self.records
                .iter()
                .rposition(|r| r.is_pending() && r.same_call(tool, args))
        })
    }

    /// Records of the fingerprint before `index`, newest first, that count towards streaks.
    pub fn earlier_same_call(
        &self,
        index: usize,
        tool: u16,
        args: &Fingerprint,
    ) -> impl Iterator<Item = &CallRecord> {
        let end = index.min(self.records.len());
        let args = *args;
        self.records
            .range(self.first_counted().min(end)..end)
            .rev()
            .filter(move |r| r.same_call(tool, &args))
    }

    /// Sets a record's state and computes its streak counters from the records before it.
    pub fn settle(&mut self, index: usize, state: RecordState) {
        let Some(record) = self.records.get(index) else {
            return;
        };
        let (tool, args) = (record.tool, record.args);
        let prev = self
            .earlier_same_call(index, tool, &args)
            .find(|r| !r.is_pending());
        let prev_no_progress = prev.map_or(0, |r| r.no_progress);
        let last_done = self
            .earlier_same_call(index, tool, &args)
            .find(|r| r.outcome().is_some())
            .map(|r| (r.outcome().copied(), r.same_outcome_run));
        let (same_outcome_run, no_progress) = match &state {
            RecordState::Completed { outcome, .. } => match last_done {
                Some((Some(prev_outcome), run)) if prev_outcome == *outcome => {
                    (run + 1, prev_no_progress + 1)
                }
                _ => (1, 1),
            },
            RecordState::Vetoed => (0, prev_no_progress + 1),
            RecordState::Pending => (0, 0),
        };
        if let Some(record) = self.records.get_mut(index) {
            record.set_state(state);
            record.same_outcome_run = same_outcome_run;
            record.no_progress = no_progress;
        }
        match state {
            RecordState::Vetoed => self.trailing_vetoes = self.trailing_vetoes.saturating_add(1),
            RecordState::Completed { .. } => self.trailing_vetoes = 0,
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_56_bytes_and_keeps_its_keys_until_settled() {
        assert_eq!(std::mem::size_of::<CallRecord>(), 56);
        let mut record = CallRecord::pending(3, [7; 16], ToolKind::Read, 1.5, 42, Some(0));
        assert_eq!(record.args_text_hash(), Some(42));
        assert_eq!(
            record.call_id(),
            Some(1),
            "a call id hashing to 0 is kept as 1"
        );
        let done = RecordState::Completed {
            outcome: [9; 16],
            is_error: true,
            missing_tool: false,
        };
        record.set_state(done);
        assert_eq!(record.state(), done);
        assert_eq!((record.args_text_hash(), record.call_id()), (None, None));
        assert!(record.is_error() && !record.reported_missing());
    }
}
