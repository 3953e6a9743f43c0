//! The detectors. Each is a pure function of (the run's window, the proposed call, the config)
//! returning at most one finding; `decide` picks the most severe, ties going to the order of
//! `ORDER`. Shared helpers (streak lookups, periodic tails) and warning
//! de-duplication live here, so every detector's warnings behave alike.

// The detectors judged at `record` only (the engine calls them with the outcome in hand).
pub(crate) mod post_compaction_loop;
pub(crate) mod shared_cause;

mod call_set;

use crate::config::tools::{Cap, ToolKind};
use crate::config::Config;
use crate::run::call_chain::CallChain;
use crate::run::call_record::{CallRecord, Fingerprint};
use crate::run::record_notes::Target;
use crate::run::state::Run;
use crate::verdict::{Basis, DetectorId, Finding, Level};
use call_set::CallSet;

/// The call being judged, with its per-tool settings resolved.
#[derive(Debug, Clone)]
pub struct Proposal<'a> {
    pub tool: &'a str,
    /// The tool's index in the run's table; `None` when the window has no call of this tool.
    pub tool_index: Option<u16>,
    pub args: Fingerprint,
    pub kind: ToolKind,
    /// When the call is made; `None` for the forecast of a `record`, which cannot know when the
    /// next call will come and so assumes it waits as long as caps and a poll's advice ask.
    pub at: Option<f64>,
    pub warning_threshold: u32,
    pub critical_threshold: u32,
    pub cap: Option<Cap>,
    /// The files the call names (`record::effects::named_files`; none where its arguments are
    /// not read): an edit of one of them makes the call a new question.
    pub names: &'a NamedFiles<'a>,
}

/// The files a proposed call names, read from its arguments only when a rule asks for them (few
/// calls are judged on them, and reading them costs a parse of the arguments).
pub struct NamedFiles<'a> {
    found: std::cell::OnceCell<Vec<u32>>,
    read: Option<&'a dyn Fn() -> Vec<u32>>,
}

impl<'a> NamedFiles<'a> {
    /// A call that names no files.
    pub fn none() -> NamedFiles<'a> {
        NamedFiles {
            found: std::cell::OnceCell::new(),
            read: None,
        }
    }

    /// The files `read` finds, read on the first `get`.
    pub fn read_by(read: &'a dyn Fn() -> Vec<u32>) -> NamedFiles<'a> {
        NamedFiles {
            found: std::cell::OnceCell::new(),
            read: Some(read),
        }
    }

    /// The files' keys (`record::effects::file_key`).
    pub fn get(&self) -> &[u32] {
        self.found
            .get_or_init(|| self.read.map_or_else(Vec::new, |read| read()))
    }
}

impl std::fmt::Debug for NamedFiles<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("NamedFiles")
            .field(&self.found.get())
            .finish()
    }
}

impl Proposal<'_> {
    /// Whether this is the forecast of a `record` (the identical next call), not a real call.
    pub fn is_forecast(&self) -> bool {
        self.at.is_none()
    }
}

/// Weak evidence needs this many times the thresholds: identical results for different arguments
/// (`stall`), one error across calls (`error_repeat`), and an identical call repeating while
/// other calls change things (`generic_repeat` on `Basis::DespiteChanges`), so do the stale
/// stretches of `ping_pong` and `cycle`.
pub(crate) const WEAK_EVIDENCE_FACTOR: u32 = 2;

/// How many distinct calls of a stale stretch are counted at most: the stale rule's detectors
/// ask for two (`ping_pong`) or three and more (`cycle`), so a third ends the count.
const STALE_DISTINCT_KNOWN: usize = 3;

type Detector = fn(&Window, &Proposal, &Config) -> Option<Finding>;

/// Declares the detectors judged at `check` (one module each, with its `detect`) and `ORDER`.
macro_rules! check_detectors {
    ($($module:ident),* $(,)?) => {
        $(pub(crate) mod $module;)*

        /// Evaluation order; on equal levels the earlier (more specific) detector wins.
        const ORDER: [Detector; [$(stringify!($module)),*].len()] = [$($module::detect),*];
    };
}

// `global_circuit_breaker` first: `decide_naming_breaker` judges the others without it.
check_detectors!(
    global_circuit_breaker,
    max_turns,
    tool_cap,
    transient_failure,
    unknown_tool_repeat,
    known_poll_no_progress,
    ping_pong,
    cycle,
    error_repeat,
    stall,
    generic_repeat,
);

/// The finding that decides the verdict for `proposal`: the most severe one (ties go to the earlier
/// detector in `ORDER`); among warnings, the first one that is due (see `should_emit_warning`).
/// `None` when nothing fires or no warning is due.
pub fn decide(run: &Run, proposal: &Proposal, config: &Config) -> Option<Finding> {
    let window = Window::new(run, proposal, config);
    let mut findings = ORDER.map(|detect| detect(&window, proposal, config));
    choose(&window, proposal, &findings).and_then(|i| findings.get_mut(i)?.take())
}

/// `decide`, and when its finding is `global_circuit_breaker`'s, the finding of every other
/// detector that `decide` would choose among them: the loop the breaker's stop cut short, if
/// another detector names it. The window is gathered and each detector judged once for both.
pub fn decide_naming_breaker(
    run: &Run,
    proposal: &Proposal,
    config: &Config,
) -> (Option<Finding>, Option<Finding>) {
    let window = Window::new(run, proposal, config);
    let mut findings = ORDER.map(|detect| detect(&window, proposal, config));
    let Some(chosen) = choose(&window, proposal, &findings) else {
        return (None, None);
    };
    // `global_circuit_breaker` is the first in `ORDER`.
    let behind = match chosen {
        0 => findings
            .get(1..)
            .and_then(|others| choose(&window, proposal, others))
            .and_then(|i| findings.get_mut(i + 1)?.take()),
        _ => None,
    };
    (findings.get_mut(chosen).and_then(Option::take), behind)
}

/// The index in `findings` (in `ORDER`'s order) of the one that decides: the most severe (ties go
/// to the earlier); among warnings, the first one that is due.
fn choose(window: &Window, proposal: &Proposal, findings: &[Option<Finding>]) -> Option<usize> {
    let mut top = Level::Ok;
    let mut chosen = None;
    for (i, finding) in findings.iter().enumerate() {
        let Some(finding) = finding else {
            continue;
        };
        if finding.level > top {
            top = finding.level;
            chosen = None;
        }
        if finding.level == top
            && chosen.is_none()
            && (top != Level::Warning || should_emit_warning(window, proposal, finding))
        {
            chosen = Some(i);
        }
    }
    chosen
}

/// A tool's newest completed records sharing one outcome (see `Window::same_tool_outcome_streak`).
#[derive(Clone, Copy)]
struct OutcomeStreak {
    len: usize,
    newest_is_error: bool,
    /// The shared outcome says nothing (`CallRecord::is_blank`).
    blank: bool,
    /// Every record of the streak has the newest one's arguments.
    one_args: bool,
    /// Records of the streak that are the proposed call (same arguments).
    proposed_calls: usize,
    /// A record of the streak is a mutation (a multi-command tool's edit among its reads).
    holds_mutations: bool,
}

impl OutcomeStreak {
    /// Whether `stall` weighs this streak: a read's, of an outcome that is neither blank nor an
    /// error, with no mutation among its records (whether its arguments differ it asks itself).
    fn weighed_by_stall(&self, proposal: &Proposal) -> bool {
        proposal.kind.judged_as_read()
            && !self.blank
            && !self.newest_is_error
            && !self.holds_mutations
    }

    /// Whether a detector weighs this streak (`error_repeat` an error's, `stall` as above): a
    /// streak neither weighs is not followed to its end (`gather`).
    fn weighed(&self, proposal: &Proposal) -> bool {
        self.newest_is_error || self.weighed_by_stall(proposal)
    }

    /// The proposed call repeats a question the streak already answered. For a forecast (the
    /// identical next call after a record), the recorded call must itself have been a repeat:
    /// a model going through new arguments is not told what repeating one would do.
    fn repeats_a_call(&self, proposal: &Proposal) -> bool {
        let asked_before = if proposal.is_forecast() { 2 } else { 1 };
        self.proposed_calls >= asked_before
    }

    /// The finding of a streak of one outcome across different arguments (weak evidence: each
    /// threshold times `WEAK_EVIDENCE_FACTOR`): refusal-level only for a call that repeats one the
    /// streak already answered, a warning otherwise (`stall`, `error_repeat`).
    pub(crate) fn weak_finding(
        &self,
        detector: DetectorId,
        proposal: &Proposal,
    ) -> Option<Finding> {
        let finding = match self.repeats_a_call(proposal) {
            true => threshold_finding,
            false => warning_finding,
        };
        finding(detector, self.len, proposal, WEAK_EVIDENCE_FACTOR)
    }
}

/// What the detectors ask of the window's records of the proposed fingerprint, gathered in one
/// pass (newest first).
#[derive(Default)]
struct SameCall<'r> {
    /// The newest one that is completed or refused.
    newest_settled: Option<&'r CallRecord>,
    /// `newest_settled`'s index in `Window::records`.
    newest_settled_index: Option<usize>,
    /// The newest completed one.
    newest_done: Option<&'r CallRecord>,
    /// A record that changed something (`CallRecord::changed_state`) is newer than
    /// `newest_settled` (or there is none): the proposed call's quiet streak starts afresh.
    changed_since_settled: bool,
}

/// The proposed call's newest completed records that returned one result (its
/// `same_outcome_run`), and the calls that changed the world (`CallRecord::changed_world`) while
/// they did: the evidence `generic_repeat` weighs when an identical call follows changes.
pub(crate) struct SameResults {
    /// Identical results in a row.
    pub results: u32,
    /// Calls that changed the world from the first of those results until now (for a read of
    /// named files, edits of other files do not count).
    pub changes: u32,
    /// Of them, the calls after the newest result (since the call last ran).
    pub changes_since: u32,
    /// A change since the call last ran may make its result new: it touched a file the call
    /// names, changed the working directory, or changed something that no change between its
    /// identical results had (a new hypothesis, not another try of the same one).
    pub untested_change: bool,
    /// A call made before showed something new in between with no change to explain it: the
    /// world changes by itself.
    pub changed_by_itself: bool,
    /// Every other call that ran from the first of those results until now is a known read or
    /// poll (edits of files a read does not name aside): only then may a text say nothing could
    /// change the result.
    pub only_reads: bool,
}

/// A repeating pattern at the end of the window that the proposed call continues.
struct Pattern {
    period: usize,
    /// Index (into `Window::records`) where the repeating tail starts.
    start: usize,
    /// Calls in the pattern, the proposed one included.
    count: u32,
}

/// A run's window as the detectors see one proposal: the records after the last host-reported
/// progress, and what several detectors share, computed once.
pub struct Window<'r> {
    pub run: &'r Run,
    /// Records after the last host-reported progress, oldest first.
    records: &'r [CallRecord],
    /// The index in the run's window of `records`' first record.
    first: usize,
    /// The proposed fingerprint's records among them, summarised once.
    same: SameCall<'r>,
    /// The proposed tool's outcome streak (`error_repeat` and `stall` both ask for it).
    tool_streak: Option<OutcomeStreak>,
    pattern: Option<Pattern>,
    /// `stale_stretch`, computed on first use (`ping_pong` and `cycle` both ask for it).
    stale: std::cell::OnceCell<Option<(u32, usize)>>,
}

impl<'r> Window<'r> {
    fn new(run: &'r Run, proposal: &Proposal, config: &Config) -> Window<'r> {
        let first = run.first_counted();
        let records = run.records().get(first..).unwrap_or_default();
        let max_period = if config.detectors.on(DetectorId::Cycle) {
            config.max_cycle_period as usize
        } else {
            2
        };
        let pattern = shortest_pattern(records, proposal, max_period);
        let (same, tool_streak) = gather(run, records, proposal);
        Window {
            run,
            records,
            first,
            same,
            tool_streak,
            pattern,
            stale: std::cell::OnceCell::new(),
        }
    }

    /// Records of the proposed fingerprint that count towards streaks, newest first.
    fn same_call<'a>(&'a self, proposal: &Proposal) -> impl Iterator<Item = &'r CallRecord> + 'a {
        let tool = proposal.tool_index;
        let args = proposal.args;
        // No record of it is older than the last one counted (`CallCounts`).
        let count = tool.map_or(0, |tool| self.run.counts().of_call(tool, &args));
        self.records
            .iter()
            .rev()
            .filter(move |r| Some(r.tool()) == tool && r.args == args)
            .take(count as usize)
    }

    /// The newest completed record of the proposed fingerprint.
    fn last_done(&self) -> Option<&'r CallRecord> {
        self.same.newest_done
    }

    /// The newest completed or refused record of the proposed fingerprint.
    fn last_settled(&self) -> Option<&'r CallRecord> {
        self.same.newest_settled
    }

    /// Calls of the proposed fingerprint in a row without progress (identical results or
    /// refusals) with nothing else changing since: the newest settled one's `no_progress`, or 0
    /// when something changed after it.
    fn quiet_no_progress(&self) -> u32 {
        if self.same.changed_since_settled {
            return 0;
        }
        self.last_settled().map_or(0, |r| r.no_progress())
    }

    /// Of the proposed call's quiet streak (its newest `quiet` settled records), how many ran.
    fn quiet_ran(&self, proposal: &Proposal, quiet: u32) -> u32 {
        let ran = self
            .same_call(proposal)
            .filter(|r| !r.is_pending())
            .take(quiet as usize)
            .filter(|r| r.outcome().is_some())
            .count();
        u32::try_from(ran).unwrap_or(u32::MAX)
    }

    /// Whether any of the records at `indices` made a call that a record older than it in
    /// `records` made too: where the window's records are linked, each call's links followed back
    /// (`asked_before`); otherwise one pass over the older records, each looked up in a `CallSet`
    /// of the calls asked about (a scan of the window for each would be quadratic in it).
    fn any_asked_before(&self, indices: &[usize]) -> bool {
        if let Some(chain) = self.run.chain() {
            return indices.iter().any(|&i| self.asked_before(chain, i));
        }
        let Some(&newest) = indices.iter().max() else {
            return false;
        };
        let mut asked = CallSet::new(self.records);
        for &i in indices {
            asked.add(i);
        }
        self.records
            .get(..newest)
            .unwrap_or_default()
            .iter()
            .enumerate()
            .any(|(j, earlier)| {
                asked
                    .newest(earlier.tool(), &earlier.args)
                    .is_some_and(|i| j < i)
            })
    }

    /// Whether a record older than `records[index]` made its call: its call's links followed
    /// back (`CallChain`), checking each record met, as calls that share a key share them.
    fn asked_before(&self, chain: &CallChain, index: usize) -> bool {
        let all = self.run.records();
        let Some(record) = self.records.get(index) else {
            return false;
        };
        let mut at = self.first + index;
        while let Some(earlier) = chain.previous(at).filter(|&i| i >= self.first) {
            if all
                .get(earlier)
                .is_some_and(|r| r.same_call(record.tool(), &record.args))
            {
                return true;
            }
            at = earlier;
        }
        false
    }

    /// Completed calls since the newest one that changed the world (`CallRecord::changed_world`)
    /// that returned only what the same call had returned before (polls excepted): how long the
    /// run has been going round the same answers, whatever new reads came in between.
    fn repeats_since_change(&self) -> u32 {
        let repeats = self
            .records
            .iter()
            .rev()
            .take_while(|r| !r.changed_world())
            .filter(|r| r.outcome().is_some() && !r.is_novel() && r.kind() != ToolKind::Poll)
            .count();
        u32::try_from(repeats).unwrap_or(u32::MAX)
    }

    /// The proposed call's identical results and what changed the world around them (see
    /// `SameResults`); `None` when the call has no completed record.
    #[inline(never)]
    fn same_results(&self, proposal: &Proposal) -> Option<SameResults> {
        let results = self.last_done()?.same_outcome_run();
        let mut same = SameResults {
            results,
            changes: 0,
            changes_since: 0,
            untested_change: false,
            changed_by_itself: false,
            only_reads: true,
        };
        let mut since: Vec<Target> = Vec::new();
        let mut before: Vec<Target> = Vec::new();
        // Reads that showed something new (whether they were asked before is judged after the walk).
        let mut new_reads: Vec<usize> = Vec::new();
        let mut completed = 0;
        // Only a change of the world asks which files the call names.
        let reads_only_named =
            || proposal.kind == ToolKind::Read && !proposal.names.get().is_empty();
        for (i, record) in self.records.iter().enumerate().rev() {
            let same_call = proposal
                .tool_index
                .is_some_and(|tool| record.same_call(tool, &proposal.args));
            if same_call {
                if record.outcome().is_some() {
                    completed += 1;
                    if completed >= results {
                        break;
                    }
                }
                continue;
            }
            // Looked up only where a rule reads them (most walked records are reads).
            let targets = || self.run.notes.targets(self.run.seq_of(self.first + i));
            // Edits of other files cannot change what a read of named files returns.
            let other_files = || {
                reads_only_named()
                    && targets()
                        .all(|t| matches!(t, Target::File(f) if !proposal.names.get().contains(&f)))
            };
            if !record.changed_world() {
                same.only_reads &= record.is_vetoed()
                    || matches!(record.kind(), ToolKind::Read | ToolKind::Poll)
                    || other_files();
                if record.changed_state() {
                    new_reads.push(i);
                }
                continue;
            }
            if other_files() {
                continue;
            }
            same.only_reads = false;
            if completed == 0 {
                same.changes_since += 1;
                for target in targets() {
                    same.untested_change |= match target {
                        Target::Everything => true,
                        Target::File(file) => proposal.names.get().contains(&file),
                        Target::Call(_) => false,
                    };
                    since.push(target);
                }
            } else {
                same.changes += 1;
                before.extend(targets());
            }
        }
        same.changes += same.changes_since;
        // A read made before that now shows something new, with nothing in between to explain
        // it: the world changes by itself (another process, the clock), so an identical result
        // is no proof the next one will be.
        same.changed_by_itself = self.any_asked_before(&new_reads);
        same.untested_change |= since.iter().any(|target| !before.contains(target));
        Some(same)
    }

    /// The run's stale stretch (`Run::stale_calls`) when the proposed call is one of its calls:
    /// (its length, how many distinct calls it went round, counted up to `STALE_DISTINCT_KNOWN`:
    /// the rules ask only whether there are two, or three or more).
    fn stale_stretch(&self) -> Option<(u32, usize)> {
        *self.stale.get_or_init(|| {
            let stale = self.run.stale_calls;
            let tail_len = (stale as usize).min(self.records.len());
            let first = self.records.len() - tail_len;
            // The proposed call's newest settled record is in the tail, or no record of it is.
            if tail_len == 0 || self.same.newest_settled_index.is_none_or(|i| i < first) {
                return None;
            }
            let mut calls: Vec<&CallRecord> = Vec::with_capacity(STALE_DISTINCT_KNOWN);
            for record in self.records.get(first..).unwrap_or_default().iter().rev() {
                if record.is_pending()
                    || calls
                        .iter()
                        .any(|c| c.same_call(record.tool(), &record.args))
                {
                    continue;
                }
                calls.push(record);
                if calls.len() == STALE_DISTINCT_KNOWN {
                    break;
                }
            }
            Some((stale, calls.len()))
        })
    }

    /// The newest completed records of the proposed tool (any args) that share the newest one's
    /// outcome; `None` when the tool has no completed record. Complete only where a detector
    /// weighs it (`OutcomeStreak::weighed`).
    fn same_tool_outcome_streak(&self) -> Option<OutcomeStreak> {
        self.tool_streak
    }

    /// The pattern's (period, tail, count) when its period is within `periods`.
    fn pattern_in(
        &self,
        periods: std::ops::RangeInclusive<usize>,
    ) -> Option<(usize, &'r [CallRecord], u32)> {
        let pattern = self
            .pattern
            .as_ref()
            .filter(|p| periods.contains(&p.period))?;
        Some((
            pattern.period,
            self.records.get(pattern.start..)?,
            pattern.count,
        ))
    }
}

/// One pass over the proposed tool's records, newest first: the proposed fingerprint's
/// (`SameCall`) and the tool's outcome streak (its newest completed records sharing the newest
/// one's outcome). In a window whose records are linked (`Run::chain`) the fingerprint's records
/// are found by their links, and the pass, only the streak's, jumps over stretches of refusals.
fn gather<'r>(
    run: &'r Run,
    records: &'r [CallRecord],
    proposal: &Proposal,
) -> (SameCall<'r>, Option<OutcomeStreak>) {
    let mut same = SameCall::default();
    let Some(tool) = proposal.tool_index else {
        return (same, None);
    };
    // The streak with its newest record; it ends at the first completed record that differs.
    let mut streak: Option<(&CallRecord, OutcomeStreak)> = None;
    let mut streak_ended = false;
    let mut changed = false;
    // Where the window's records are linked, the proposed call's are found by its links and the
    // walk is only the streak's.
    let chain = run.chain();
    let linked = chain.is_some();
    if let Some(chain) = chain {
        same = linked_same_call(run, chain, records.len(), tool, &proposal.args);
    }
    // The tool's completed records, and the proposed call's records and completed ones, not met
    // yet (at least: `CallCounts`).
    let counts = run.counts();
    let mut tool_done_left = counts.of_completed_tool(tool);
    let call_count = |count: u32| if linked { 0 } else { count };
    let mut call_left = call_count(counts.of_call(tool, &proposal.args));
    let mut call_done_left = call_count(counts.of_completed_call(tool, &proposal.args));
    let first = run.records().len().saturating_sub(records.len());
    let mut next = records.len();
    while let Some(i) = next.checked_sub(1) {
        next = i;
        let Some(record) = records.get(i) else {
            break;
        };
        // Once the call's records are known, only outcomes matter: a stretch of refusals is
        // passed at once.
        if linked && record.is_vetoed() {
            next = run.refusals_from(first + i).saturating_sub(first);
            continue;
        }
        // Everything asked for is known, or no older record of the tool or call is left to
        // change it.
        let streak_known = streak_ended || tool_done_left == 0;
        let settled_known = same.newest_settled.is_some() || call_left == 0;
        let done_known = same.newest_done.is_some() || call_done_left == 0;
        if streak_known && settled_known && done_known {
            break;
        }
        let same_call = record.same_call(tool, &proposal.args);
        let done = record.outcome().is_some();
        call_left = call_left.saturating_sub(u32::from(same_call));
        call_done_left = call_done_left.saturating_sub(u32::from(same_call && done));
        tool_done_left = tool_done_left.saturating_sub(u32::from(record.tool() == tool && done));
        if same_call && !record.is_pending() && same.newest_settled.is_none() {
            same.newest_settled = Some(record);
            same.newest_settled_index = Some(i);
            same.changed_since_settled = changed;
        }
        changed |= same.newest_settled.is_none() && record.changed_state();
        if record.tool() != tool {
            continue;
        }
        if same_call && record.outcome().is_some() {
            same.newest_done.get_or_insert(record);
        }
        if streak_ended || record.outcome().is_none() {
            continue;
        }
        match &mut streak {
            None => {
                let first = OutcomeStreak {
                    len: 1,
                    newest_is_error: record.is_error(),
                    blank: record.is_blank(),
                    one_args: true,
                    proposed_calls: usize::from(same_call),
                    holds_mutations: record.kind() == ToolKind::Mutate,
                };
                streak = Some((record, first));
            }
            Some((newest, streak)) if newest.outcome() == record.outcome() => {
                streak.len += 1;
                streak.one_args &= record.args == newest.args;
                streak.proposed_calls += usize::from(same_call);
                streak.holds_mutations |= record.kind() == ToolKind::Mutate;
            }
            Some(_) => streak_ended = true,
        }
        // No detector reads the rest of it (its length counts only the records met).
        streak_ended |= streak.as_ref().is_some_and(|(_, s)| !s.weighed(proposal));
    }
    (same, streak.map(|(_, streak)| streak))
}

/// What `gather` asks of the records of the call `(tool, args)` in the last `counted` records of
/// the window, found by following the call's links back from its newest record (`CallChain`),
/// and whether a record newer than its newest settled one changed something
/// (`Run::newest_change`).
fn linked_same_call<'r>(
    run: &'r Run,
    chain: &CallChain,
    counted: usize,
    tool: u16,
    args: &Fingerprint,
) -> SameCall<'r> {
    let mut same = SameCall::default();
    let all = run.records();
    let first = all.len().saturating_sub(counted);
    let mut at = chain.newest(tool, args, all.len(), run.next_seq);
    while let Some(i) = at.filter(|&i| i >= first) {
        let Some(record) = all.get(i) else {
            break;
        };
        if record.same_call(tool, args) {
            if !record.is_pending() && same.newest_settled.is_none() {
                same.newest_settled = Some(record);
                same.newest_settled_index = Some(i - first);
                same.changed_since_settled = run.changed_between(i, all.len());
            }
            if record.outcome().is_some() {
                same.newest_done = Some(record);
                break;
            }
        }
        at = chain.previous(i);
    }
    same
}

/// Where the tail that repeats with period `period` and is continued by the proposed call starts.
fn periodic_tail_start(
    records: &[CallRecord],
    proposal: &Proposal,
    period: usize,
) -> Option<usize> {
    let n = records.len();
    let lap_start = records.get(n.checked_sub(period)?)?;
    if Some(lap_start.tool()) != proposal.tool_index || lap_start.args != proposal.args {
        return None;
    }
    let mut start = n - period;
    while start > 0 {
        let (Some(earlier), Some(later)) =
            (records.get(start - 1), records.get(start - 1 + period))
        else {
            break;
        };
        if !earlier.same_call(later.tool(), &later.args) {
            break;
        }
        start -= 1;
    }
    Some(start)
}

/// The smallest period (1..=max) whose pattern the proposed call continues with at least two laps
/// (the proposed call included).
fn shortest_pattern(
    records: &[CallRecord],
    proposal: &Proposal,
    max_period: usize,
) -> Option<Pattern> {
    (1..=max_period).find_map(|period| {
        let start = periodic_tail_start(records, proposal, period)?;
        let count = u32::try_from(records.len() - start + 1).unwrap_or(u32::MAX);
        (count as usize >= 2 * period).then_some(Pattern {
            period,
            start,
            count,
        })
    })
}

/// Every position of a periodic tail returned one outcome in its newest `laps` completed records
/// (and each position has one): a cycle whose every (call, result) came back for `laps` rounds is
/// stuck whatever its calls are, and rounds before that which returned something else (the first
/// run of a script before its file existed) do not make it progress, while a last round that
/// returned something new does.
fn laps_are_stable(tail: &[CallRecord], period: usize, laps: usize) -> bool {
    (0..period).all(|position| {
        let mut outcomes = tail
            .iter()
            .skip(position)
            .step_by(period)
            .rev()
            .filter_map(|r| r.outcome())
            .take(laps);
        match outcomes.next() {
            Some(first) => outcomes.all(|o| o == first),
            None => false,
        }
    })
}

/// A warning is emitted when it first crosses its threshold and again once `threshold` further
/// calls of the same pattern were made since the last call it warned about.
fn should_emit_warning(window: &Window, proposal: &Proposal, finding: &Finding) -> bool {
    let detector = finding.detector;
    let newest_first = window.records.iter().rev();
    let scope: Box<dyn Iterator<Item = &CallRecord>> = match detector {
        DetectorId::PingPong | DetectorId::Cycle => {
            Box::new(newest_first.take(finding.count.saturating_sub(1) as usize))
        }
        DetectorId::Stall | DetectorId::ErrorRepeat => {
            let tool = proposal.tool_index;
            let count = tool.map_or(0, |tool| window.run.counts().of_tool(tool));
            Box::new(
                newest_first
                    .filter(move |r| Some(r.tool()) == tool)
                    .take(count as usize),
            )
        }
        _ => Box::new(window.same_call(proposal)),
    };
    for (since, record) in scope.enumerate() {
        if record.warned() == Some(detector) {
            return since + 1 >= finding.threshold as usize;
        }
    }
    true
}

/// Warning at `factor` × `warningThreshold`, critical at `factor` × `criticalThreshold` (the
/// proposed tool's); `factor` is 1, or `WEAK_EVIDENCE_FACTOR` for weak evidence.
fn threshold_finding(
    detector: DetectorId,
    count: usize,
    proposal: &Proposal,
    factor: u32,
) -> Option<Finding> {
    let count = u32::try_from(count).unwrap_or(u32::MAX);
    let critical = proposal.critical_threshold.saturating_mul(factor);
    let warning = proposal.warning_threshold.saturating_mul(factor);
    if count >= critical {
        Some(Finding::new(detector, Level::Critical, count, critical))
    } else if count >= warning {
        Some(Finding::new(detector, Level::Warning, count, warning))
    } else {
        None
    }
}

/// `threshold_finding` held at its warning: the evidence never justifies a refusal.
fn warning_finding(
    detector: DetectorId,
    count: usize,
    proposal: &Proposal,
    factor: u32,
) -> Option<Finding> {
    let held = Proposal {
        critical_threshold: u32::MAX,
        ..proposal.clone()
    };
    threshold_finding(detector, count, &held, factor)
}

/// Without a clean period (`periodic_finding`), the stale rule: once `WEAK_EVIDENCE_FACTOR` × `criticalThreshold`
/// calls in a row returned nothing new (`Run::stale_calls`), going round `distinct` calls that
/// include the proposed one, it is refused (`Basis::NothingNew`). `distinct_calls` says which
/// counts of distinct calls this detector owns (at most `STALE_DISTINCT_KNOWN` are counted, so
/// a range either ends below it or runs to `usize::MAX`).
fn stale_finding(
    detector: DetectorId,
    window: &Window,
    proposal: &Proposal,
    distinct_calls: std::ops::RangeInclusive<usize>,
) -> Option<Finding> {
    let threshold = proposal
        .critical_threshold
        .saturating_mul(WEAK_EVIDENCE_FACTOR);
    if window.run.stale_calls < threshold {
        return None;
    }
    let (stale, distinct) = window.stale_stretch()?;
    distinct_calls
        .contains(&distinct)
        .then(|| Finding::new(detector, Level::Critical, stale, threshold).on(Basis::NothingNew))
}

/// A periodic finding, else the stale rule's (see `stale_finding`).
fn periodic_or_stale(
    periodic: Option<Finding>,
    stale: impl FnOnce() -> Option<Finding>,
) -> Option<Finding> {
    match periodic {
        Some(found) if found.level >= Level::Critical => Some(found),
        warning => stale().or(warning),
    }
}

/// The finding for a periodic pattern (`ping_pong`, `cycle`) of `count` calls: warning from two
/// laps and `warningThreshold` on; critical from `criticalThreshold` calls (or `criticalLaps`
/// laps) when every position's outcome is stable over those laps (its newest completed ones),
/// whatever the kinds of its calls.
fn periodic_finding(
    detector: DetectorId,
    tail: &[CallRecord],
    period: usize,
    count: u32,
    proposal: &Proposal,
    config: &Config,
    partner_tool: Option<String>,
) -> Option<Finding> {
    let period = u32::try_from(period).unwrap_or(u32::MAX);
    let critical = config
        .critical_laps
        .map_or(proposal.critical_threshold, |laps| {
            laps.saturating_mul(period).saturating_add(1)
        });
    let warning = proposal.warning_threshold.max(period.saturating_mul(2));
    // The laps the critical count spans (`criticalLaps`, else enough for `criticalThreshold`
    // calls), at least two.
    let laps = critical.saturating_sub(1).div_ceil(period.max(1)).max(2) as usize;
    let mut finding = if count >= critical && laps_are_stable(tail, period as usize, laps) {
        Finding::new(detector, Level::Critical, count, critical)
    } else if count >= warning {
        Finding::new(detector, Level::Warning, count, warning)
    } else {
        return None;
    };
    finding.partner_tool = partner_tool;
    Some(finding)
}
