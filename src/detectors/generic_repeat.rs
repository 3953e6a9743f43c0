//! `generic_repeat` (tools that are not poll tools): the same call, the same result. Three
//! degrees of evidence (the first told apart for a mutation that made its change again), each
//! refusing only a call that would almost surely return what it
//! returned before:
//! - *nothing else changing*: `criticalThreshold` calls in a row returned the identical outcome
//!   (or were refused) and no call in between returned anything new (`CallRecord::changed_state`);
//!   warned from `warningThreshold` such calls on;
//! - *nothing since that could change it*: `criticalThreshold` identical results in a row, and
//!   since the last of them only reads ran (they may have shown the model new things, but they
//!   change no call's result: `CallRecord::changed_world`);
//! - *despite changes*: `criticalThreshold` identical results in a row although edits, writing
//!   commands or mutations came between them (ten edits that never change a test's output are
//!   not progress), unless a change since the last run could make it new: it touched a file the
//!   call names (the script it runs), changed directory, or changed something no earlier change in
//!   the streak had. A `record` warns of it from `warningThreshold` such results on, quoting the
//!   result. Mutating calls whose last run succeeded are exempt: re-applying a change after
//!   other changes is ordinary work. A mutation whose last run failed changed nothing, and is
//!   judged as any other call.
//! - *the same change made again*: a mutation that succeeded and returned one result (numbers
//!   masked, see `record::outcome::Framing`) every time it ran in a row, no other call returning
//!   anything new in between, made the same change again each time (an insertion inserted once
//!   more, one more copy of a record): warned from the `warningThreshold`-th such call and refused
//!   as the `criticalThreshold`-th (one call sooner than a plain repeat), with a text that says so.

use super::{Proposal, SameResults, Window};
use crate::config::tools::ToolKind;
use crate::config::Config;
use crate::verdict::{Basis, DetectorId, Finding, Level};

pub fn detect(window: &Window, proposal: &Proposal, config: &Config) -> Option<Finding> {
    if !config.detectors.on(DetectorId::GenericRepeat) || proposal.kind == ToolKind::Poll {
        return None;
    }
    let critical = proposal.critical_threshold;
    let quiet = window.quiet_no_progress();
    let failed = window.last_done().is_some_and(|r| r.is_error());
    if proposal.kind == ToolKind::Mutate && !failed && quiet > 0 {
        return same_change_finding(window, proposal, quiet);
    }
    if quiet >= critical {
        let found = Finding::new(DetectorId::GenericRepeat, Level::Critical, quiet, critical);
        return Some(found.ran(window.quiet_ran(proposal, quiet)));
    }
    // Fewer identical results than any rule of `same_results_finding` asks for: nothing to walk.
    let fewest = proposal.warning_threshold.min(critical);
    let enough = window
        .last_done()
        .is_some_and(|r| r.same_outcome_run() >= fewest);
    if enough && (proposal.kind != ToolKind::Mutate || failed) {
        if let Some(same) = window.same_results(proposal) {
            if let Some(found) = same_results_finding(window, proposal, &same) {
                return Some(found);
            }
        }
    }
    let occurrences = quiet.saturating_add(1);
    (occurrences >= proposal.warning_threshold).then(|| {
        Finding::new(
            DetectorId::GenericRepeat,
            Level::Warning,
            occurrences,
            proposal.warning_threshold,
        )
        .ran(window.quiet_ran(proposal, quiet))
    })
}

/// The finding for a mutation that succeeded the last time it ran, whose quiet streak (`quiet`
/// calls: the same result each time, numbers masked, or refused, with no other call returning
/// anything new) the proposed call would continue: each run made the same change again
/// (`Basis::SameChange`). Counted in calls, the proposed one included: refused as the
/// `criticalThreshold`-th such call in a row (the same change made once more is damage, not a
/// wait for something to come), warned from the `warningThreshold`-th on.
fn same_change_finding(window: &Window, proposal: &Proposal, quiet: u32) -> Option<Finding> {
    let made = quiet.saturating_add(1);
    let (level, threshold) = if made >= proposal.critical_threshold {
        (Level::Critical, proposal.critical_threshold)
    } else if made >= proposal.warning_threshold {
        (Level::Warning, proposal.warning_threshold)
    } else {
        return None;
    };
    let found = Finding::new(DetectorId::GenericRepeat, level, made, threshold);
    Some(found.on(Basis::SameChange).ran(window.quiet_ran(proposal, quiet)))
}

/// The finding for identical results across reads or changes (`Window::same_results`): a refusal
/// once the call returned one result `threshold` times in a row (`criticalThreshold` when nothing
/// since its last run could change it, `warningThreshold` once the run has been going round
/// answers it already had for 2 x `criticalThreshold` calls; one fewer than `criticalThreshold`
/// despite changes that are all retries of ones before, since each identical result after an
/// edit is evidence the edits do not reach it; never when a change since could make it new), and
/// for a record, a warning from `warningThreshold` identical results on.
fn same_results_finding(
    window: &Window,
    proposal: &Proposal,
    same: &SameResults,
) -> Option<Finding> {
    let (warning, critical) = (proposal.warning_threshold, proposal.critical_threshold);
    let basis = match (same.changes, same.only_reads) {
        (0, true) => Basis::NothingChangedSince,
        (0, false) => Basis::NothingNewSince,
        _ => Basis::DespiteChanges,
    };
    let threshold = if same.changed_by_itself {
        None
    } else if same.changes_since == 0 {
        let wandering = window.repeats_since_change() >= critical.saturating_mul(2);
        Some(if wandering { warning } else { critical })
    } else if same.untested_change {
        None
    } else {
        Some(critical.saturating_sub(1).max(warning.saturating_add(1)))
    };
    let (level, threshold) = match threshold {
        Some(threshold) if same.results >= threshold => (Level::Critical, threshold),
        // A record's warning: the identical result came back again although other calls ran in
        // between that showed or changed something (with nothing in between, `check` warns).
        _ if proposal.is_forecast()
            && !same.changed_by_itself
            && same.results >= warning
            && window.quiet_no_progress().saturating_add(1) < warning =>
        {
            (Level::Warning, warning)
        }
        _ => return None,
    };
    let mut found = Finding::new(DetectorId::GenericRepeat, level, same.results, threshold)
        .on(basis)
        .ran(same.results);
    found.changes = same.changes;
    Some(found)
}
