//! What settling a record counts (docs/semantics.md, "Streaks"): its outcome streak, its
//! no-progress count and its novelty, read from the records before it in one pass, newest first.
//! `Run::settle` stores them on the record and keeps the run's count of stale calls with them.

use crate::run::call_record::{Fingerprint, RecordState};
use crate::run::state::Run;

/// What `Run::settle` needs to know of the records before the one it settles.
pub struct Streaks {
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
    /// Reads the records of `run` before `index` for a call of `tool` with `args` that got
    /// `outcome` (`None`: refused).
    pub fn before(
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
        // Records before `index` of the call, and of the call with this outcome, not met yet (at
        // least: `CallCounts`, less those from `index` on).
        let from_index = records.get(end..).unwrap_or_default();
        let counts = run.counts();
        let later = |completed: bool| {
            let found = from_index
                .iter()
                .filter(|r| r.same_call(tool, args) && (!completed || r.outcome().is_some()));
            u32::try_from(found.count()).unwrap_or(u32::MAX)
        };
        let mut call_left = counts.of_call(tool, args).saturating_sub(later(false));
        let mut done_left = counts
            .of_completed_call(tool, args)
            .saturating_sub(later(true));
        let answer_left = outcome.map_or(0, |outcome| {
            let later = from_index
                .iter()
                .filter(|r| r.same_call(tool, args) && r.outcome() == Some(outcome))
                .count();
            counts
                .of_answer(tool, args, outcome)
                .saturating_sub(u32::try_from(later).unwrap_or(u32::MAX))
        });
        // The records before `index` newest first: where they are linked, only those under the
        // call's key (`CallChain`), and what changed in between is asked of the run.
        let linked = run.chain().filter(|_| end < records.len());
        let step = move |i: usize| match linked {
            Some(chain) => chain.previous(i),
            None => i.checked_sub(1),
        };
        for i in std::iter::successors(step(end), |&i| step(i)) {
            let Some(earlier) = records.get(i) else {
                break;
            };
            // No older record of the call is left: nothing it found can change.
            let novelty_known = streaks.seen || outcome.is_none() || answer_left == 0;
            let streaks_known = (settled_found || call_left == 0)
                && (streaks.last_done.is_some() || done_left == 0);
            if novelty_known && streaks_known {
                break;
            }
            let same_call = earlier.same_call(tool, args);
            call_left = call_left.saturating_sub(u32::from(same_call));
            let done = same_call && earlier.outcome().is_some();
            done_left = done_left.saturating_sub(u32::from(done));
            if same_call && outcome.is_some() && earlier.outcome() == outcome {
                streaks.seen = true;
            }
            let counted = i >= first_counted;
            if counted && same_call && !earlier.is_pending() {
                if !settled_found {
                    settled_found = true;
                    if linked.is_some() {
                        changed_between = run.changed_between(i, end);
                    }
                    if !changed_between {
                        streaks.quiet_no_progress = earlier.no_progress();
                    }
                }
                if let (None, Some(done)) = (streaks.last_done, earlier.outcome()) {
                    streaks.last_done = Some((*done, earlier.same_outcome_run()));
                }
            } else if linked.is_none() && !settled_found && earlier.changed_state() {
                changed_between = true;
            }
            // A refusal has no outcome to find again: only the streaks matter.
            let novelty_known = streaks.seen || outcome.is_none() || answer_left == 0;
            if novelty_known && (streaks.last_done.is_some() || !counted) {
                break;
            }
        }
        streaks
    }

    /// The streak counters (same outcome run, no progress) of a record settled in `state`.
    pub fn counters(&self, state: &RecordState) -> (u32, u32) {
        match state {
            RecordState::Completed { outcome, .. } => match self.last_done {
                Some((prev_outcome, run)) if prev_outcome == *outcome => (
                    run.saturating_add(1),
                    self.quiet_no_progress.saturating_add(1),
                ),
                _ => (1, 1),
            },
            RecordState::Vetoed => (0, self.quiet_no_progress.saturating_add(1)),
            RecordState::Pending => (0, 0),
        }
    }

    /// Whether an earlier record in the window made the same call and got the same outcome.
    pub fn seen(&self) -> bool {
        self.seen
    }
}

#[cfg(test)]
mod tests {
    use crate::config::tools::ToolKind;
    use crate::run::call_record::{CallRecord, RecordState};
    use crate::run::record_meta::MAX_TOOLS;
    use crate::run::state::Run;

    /// The record at `index` of the window (a copy: the tests read its fields); where there is
    /// none, a pending record, which no assertion below accepts.
    fn record(run: &Run, index: usize) -> CallRecord {
        run.records().get(index).cloned().unwrap_or_else(|| {
            CallRecord::pending(MAX_TOOLS as u16 - 1, [0; 8], ToolKind::Read, 0.0, 0, None)
        })
    }

    /// Pushes and settles one call; returns its index.
    fn settle(run: &mut Run, tool: u16, args: u8, kind: ToolKind, state: RecordState) -> usize {
        let index = run.push(CallRecord::pending(tool, [args; 8], kind, 0.0, 0, None), 30);
        run.settle(index, state);
        index
    }

    /// Pushes and settles one call that completed without error; returns its index.
    fn complete(run: &mut Run, tool: u16, args: u8, outcome: u8, kind: ToolKind) -> usize {
        let state = RecordState::Completed {
            outcome: [outcome; 8],
            is_error: false,
            missing_tool: false,
            blank: false,
        };
        settle(run, tool, args, kind, state)
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
        let error = RecordState::Completed {
            outcome: [4; 8],
            is_error: true,
            missing_tool: false,
            blank: false,
        };
        let failed = settle(&mut run, 1, 3, ToolKind::Read, error);
        let poll = complete(&mut run, 2, 5, 6, ToolKind::Poll);
        assert!(record(&run, failed).is_novel() && !record(&run, failed).changed_state());
        assert!(record(&run, poll).is_novel() && !record(&run, poll).changed_state());
        let again = complete(&mut run, 0, 1, 7, ToolKind::Read);
        assert_eq!(record(&run, again).no_progress(), 2);
    }

    #[test]
    fn a_failed_mutation_changes_nothing_for_the_calls_after_it() {
        let mut run = Run::default();
        complete(&mut run, 0, 1, 7, ToolKind::Read);
        let refused_edit = RecordState::Completed {
            outcome: [4; 8],
            is_error: true,
            missing_tool: false,
            blank: false,
        };
        let edit = settle(&mut run, 1, 3, ToolKind::Mutate, refused_edit);
        assert!(record(&run, edit).is_novel());
        assert!(!record(&run, edit).changed_state() && !record(&run, edit).changed_world());
        let again = complete(&mut run, 0, 1, 7, ToolKind::Read);
        assert_eq!(
            record(&run, again).no_progress(),
            2,
            "the read's streak goes on"
        );
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
        let vetoed = settle(&mut run, 1, 2, ToolKind::Read, RecordState::Vetoed);
        assert_eq!(run.stale_calls, 2);
        assert_eq!(
            record(&run, vetoed).no_progress(),
            3,
            "the refusal continues its streak"
        );
        run.mark_progress();
        assert_eq!(run.stale_calls, 0);
    }
}
