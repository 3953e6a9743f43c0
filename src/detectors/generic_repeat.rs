//! `generic_repeat` (tools that are not poll tools): warns when the same call appears
//! `warningThreshold` times in the window; blocks when it has produced the identical outcome
//! `criticalThreshold` times in a row (other calls in between do not break the streak).

use super::{last_done, same_call, Proposal};
use crate::config::Config;
use crate::history::Run;
use crate::verdict::{DetectorId, Finding, Level};

pub fn detect(run: &Run, proposal: &Proposal, config: &Config) -> Option<Finding> {
    if !config.detectors.generic_repeat || proposal.is_poll {
        return None;
    }
    let run_length = last_done(run, proposal).map_or(0, |r| r.same_outcome_run);
    if run_length >= config.critical_threshold {
        return Some(Finding {
            detector: DetectorId::GenericRepeat,
            level: Level::Critical,
            count: run_length,
            threshold: config.critical_threshold,
            partner_tool: None,
        });
    }
    let occurrences = u32::try_from(same_call(run, proposal).count())
        .unwrap_or(u32::MAX)
        .saturating_add(1);
    (occurrences >= config.warning_threshold).then_some(Finding {
        detector: DetectorId::GenericRepeat,
        level: Level::Warning,
        count: occurrences,
        threshold: config.warning_threshold,
        partner_tool: None,
    })
}
