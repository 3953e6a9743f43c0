//! `generic_repeat` (tools that are not poll tools): warns when the same call appears
//! `warningThreshold` times in the window; blocks when it has produced the identical outcome
//! `criticalThreshold` times in a row (other calls in between do not break the streak).

use super::{Proposal, Window};
use crate::config::Config;
use crate::tools::ToolKind;
use crate::verdict::{DetectorId, Finding, Level};

pub fn detect(window: &Window, proposal: &Proposal, config: &Config) -> Option<Finding> {
    if !config.detectors.generic_repeat || proposal.kind == ToolKind::Poll {
        return None;
    }
    let run_length = window.last_done().map_or(0, |r| r.same_outcome_run());
    if run_length >= proposal.critical_threshold {
        return Some(Finding::new(
            DetectorId::GenericRepeat,
            Level::Critical,
            run_length,
            proposal.critical_threshold,
        ));
    }
    let occurrences = u32::try_from(window.same_call_count())
        .unwrap_or(u32::MAX)
        .saturating_add(1);
    (occurrences >= proposal.warning_threshold).then(|| {
        Finding::new(
            DetectorId::GenericRepeat,
            Level::Warning,
            occurrences,
            proposal.warning_threshold,
        )
    })
}
