//! `known_poll_no_progress`: a poll tool (`command_status`, `process` poll/log, `pollTools`, or
//! `kind: "poll"`) whose outcome has not changed for `warningThreshold` / `criticalThreshold` polls
//! in a row. A poll whose output changes is progress and resets the streak, so it is never flagged.
//! Patient polling (backing off, or slow) stays at a warning until `pollBudgetMs` is spent.

use super::{last_done, polling_patiently, threshold_finding, Proposal};
use crate::config::Config;
use crate::history::Run;
use crate::tools::ToolKind;
use crate::verdict::{DetectorId, Finding, Level};

pub fn detect(run: &Run, proposal: &Proposal, config: &Config) -> Option<Finding> {
    if !config.detectors.known_poll_no_progress || proposal.kind != ToolKind::Poll {
        return None;
    }
    let count = last_done(run, proposal)?.same_outcome_run as usize;
    let finding = threshold_finding(DetectorId::KnownPollNoProgress, count, proposal)?;
    if finding.level == Level::Critical && polling_patiently(run, proposal, config) {
        return threshold_finding(
            DetectorId::KnownPollNoProgress,
            count,
            &Proposal {
                critical_threshold: u32::MAX,
                ..proposal.clone()
            },
        );
    }
    Some(finding)
}
