//! `generic_repeat` (tools that are not poll tools): the same call, the same result, nothing else
//! changing. Warns when the proposed call would be the `warningThreshold`-th such call in a row;
//! refuses once `criticalThreshold` calls in a row returned the identical outcome (or were
//! refused) with no call in between changing anything (`CallRecord::changed_state`). A call that
//! keeps returning the identical result although other calls change things is refused later, at
//! `WEAK_EVIDENCE_FACTOR` × `criticalThreshold` identical results, unless it is itself a mutation
//! (re-applying a change after other changes is ordinary work).

use super::{Proposal, Window, WEAK_EVIDENCE_FACTOR};
use crate::config::tools::ToolKind;
use crate::config::Config;
use crate::verdict::{Basis, DetectorId, Finding, Level};

pub fn detect(window: &Window, proposal: &Proposal, config: &Config) -> Option<Finding> {
    if !config.detectors.generic_repeat || proposal.kind == ToolKind::Poll {
        return None;
    }
    let quiet = window.quiet_no_progress();
    if quiet >= proposal.critical_threshold {
        let found = Finding::new(
            DetectorId::GenericRepeat,
            Level::Critical,
            quiet,
            proposal.critical_threshold,
        );
        return Some(found.ran(window.quiet_ran(proposal, quiet)));
    }
    let same_results = window.last_done().map_or(0, |r| r.same_outcome_run());
    let despite_changes = proposal
        .critical_threshold
        .saturating_mul(WEAK_EVIDENCE_FACTOR);
    if proposal.kind != ToolKind::Mutate && same_results >= despite_changes {
        let mut found = Finding::new(
            DetectorId::GenericRepeat,
            Level::Critical,
            same_results,
            despite_changes,
        )
        .on(Basis::DespiteChanges)
        .ran(same_results);
        found.changes = window.changes_since(proposal, same_results);
        return Some(found);
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
