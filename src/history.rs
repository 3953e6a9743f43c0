//! One run's bounded window of call records. Records hold fingerprints only (tool index, args
//! digest, outcome digest), never raw arguments or results, so memory per run is O(historySize).

use crate::canonical::Digest;
use crate::tools::ToolKind;
use crate::verdict::DetectorId;
use std::collections::VecDeque;

/// Where a record is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordState {
    /// Checked and allowed; the outcome has not arrived yet.
    Pending,
    /// The outcome is attached.
    Completed {
        outcome: Digest,
        is_error: bool,
        missing_tool: bool,
    },
    /// The guard refused the call; it never ran.
    Vetoed,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CallRecord {
    /// Position in the run's history; increases by one per record.
    pub seq: u64,
    /// Index into the run's tool-name table.
    pub tool: u16,
    pub args: Digest,
    /// FNV-1a of the arguments' JSON text as checked: lets `record` reuse `args` without
    /// parsing and hashing the same text again.
    pub args_text_hash: u64,
    pub kind: ToolKind,
    /// FNV-1a hash of the host's call id, used only to match an outcome to its call.
    pub call_id: Option<u64>,
    pub at: f64,
    pub state: RecordState,
    /// The detector that warned when this call was checked, if any.
    pub warned: Option<DetectorId>,
    /// Same call, same outcome, this many times in a row (0 until completed).
    pub same_outcome_run: u32,
    /// Calls of this fingerprint without progress, this one included (0 while pending).
    pub no_progress: u32,
}

impl CallRecord {
    pub fn same_call(&self, tool: u16, args: &Digest) -> bool {
        self.tool == tool && &self.args == args
    }

    pub fn outcome(&self) -> Option<&Digest> {
        match &self.state {
            RecordState::Completed { outcome, .. } => Some(outcome),
            _ => None,
        }
    }

    pub fn is_pending(&self) -> bool {
        self.state == RecordState::Pending
    }

    pub fn is_vetoed(&self) -> bool {
        self.state == RecordState::Vetoed
    }

    pub fn is_error(&self) -> bool {
        matches!(self.state, RecordState::Completed { is_error: true, .. })
    }

    pub fn reported_missing(&self) -> bool {
        matches!(
            self.state,
            RecordState::Completed {
                missing_tool: true,
                ..
            }
        )
    }
}

/// Post-compaction watch: armed by `compacted`, looks at the next `remaining` completions.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionWatch {
    /// Completions still to look at.
    pub remaining: u32,
    /// The first (tool, args, outcome) triple seen after compaction.
    pub first: Option<(String, Digest, Digest)>,
    /// How many completions so far were that same triple.
    pub identical: u32,
}

#[derive(Debug, Clone, Default)]
pub struct Run {
    /// Tool names referenced by records (by index).
    pub tools: Vec<String>,
    pub records: VecDeque<CallRecord>,
    pub next_seq: u64,
    /// Refusals in a row at the end of the run, whatever the fingerprint.
    pub trailing_vetoes: u32,
    /// Records before this sequence number do not count towards streaks (host-reported progress).
    pub progress_floor: u64,
    pub compaction: Option<CompactionWatch>,
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
        self.tools
            .get(usize::from(index))
            .map_or("", String::as_str)
    }

    /// The index of `tool` if any record in the window uses it.
    pub fn find_tool(&self, tool: &str) -> Option<u16> {
        self.tools
            .iter()
            .position(|t| t == tool)
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
        self.tools.push(tool.to_owned());
        u16::try_from(self.tools.len() - 1).unwrap_or(u16::MAX)
    }

    fn compact_tools(&mut self) {
        let mut kept: Vec<String> = Vec::new();
        for record in self.records.iter_mut() {
            let name = self
                .tools
                .get(usize::from(record.tool))
                .cloned()
                .unwrap_or_default();
            let index = match kept.iter().position(|t| *t == name) {
                Some(i) => i,
                None => {
                    kept.push(name);
                    kept.len() - 1
                }
            };
            record.tool = u16::try_from(index).unwrap_or(u16::MAX);
        }
        self.tools = kept;
    }

    /// Appends a record, dropping the oldest beyond `history_size`; returns its index.
    pub fn push(&mut self, mut record: CallRecord, history_size: usize) -> usize {
        record.seq = self.next_seq;
        self.next_seq += 1;
        self.records.push_back(record);
        while self.records.len() > history_size {
            self.records.pop_front();
        }
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
        self.records.iter().rposition(|r| {
            r.is_pending()
                && r.tool == tool
                && r.args_text_hash == args_text_hash
                && call_id.is_none_or(|id| r.call_id == Some(id))
        })
    }

    /// The index of the pending record an outcome belongs to: by call id when given, else (or when
    /// no call id matches) the newest pending record of the same fingerprint.
    pub fn find_pending(&self, call_id: Option<u64>, tool: u16, args: &Digest) -> Option<usize> {
        let by_id = call_id.and_then(|id| {
            self.records
                .iter()
                .rposition(|r| r.is_pending() && r.call_id == Some(id))
        });
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
        args: &Digest,
    ) -> impl Iterator<Item = &CallRecord> {
        let floor = self.progress_floor;
        let args = *args;
        self.records
            .range(..index.min(self.records.len()))
            .rev()
            .filter(move |r| r.seq >= floor && r.same_call(tool, &args))
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
            record.state = state;
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
