//! `known_poll_no_progress`: a poll tool (`command_status`, `process` poll/log, `pollTools`) whose
//! outcome has not changed for `warningThreshold` / `criticalThreshold` polls in a row. A poll whose
//! output changes is progress and resets the streak, so it is never flagged.

use super::{last_done, Proposal};
use crate::config::Config;
use crate::history::Run;
use crate::verdict::{DetectorId, Finding, Level};

pub fn detect(run: &Run, proposal: &Proposal, config: &Config) -> Option<Finding> {
    if !config.detectors.known_poll_no_progress || !proposal.is_poll {
        return None;
    }
    let count = last_done(run, proposal)?.same_outcome_run;
    let (level, threshold) = if count >= config.critical_threshold {
        (Level::Critical, config.critical_threshold)
    } else if count >= config.warning_threshold {
        (Level::Warning, config.warning_threshold)
    } else {
        return None;
    };
    Some(Finding {
        detector: DetectorId::KnownPollNoProgress,
        level,
        count,
        threshold,
        partner_tool: None,
    })
}
