//! `known_poll_no_progress`: a poll tool (`command_status`, `process` poll/log, `pollTools`, or
//! `kind: "poll"`) whose outcome has not changed for `warningThreshold` / `criticalThreshold` polls
//! in a row. A poll whose output changes is progress and resets the streak, so it is never flagged.
//! Patient polling (backing off, or slow) stays at a warning until `pollBudgetMs` is spent.

use super::{polling_patiently, threshold_finding, warning_finding, Proposal, Window};
use crate::config::tools::ToolKind;
use crate::config::Config;
use crate::verdict::{DetectorId, Finding, Level};

pub fn detect(window: &Window, proposal: &Proposal, config: &Config) -> Option<Finding> {
    if !config.detectors.on(DetectorId::KnownPollNoProgress) || proposal.kind != ToolKind::Poll {
        return None;
    }
    let count = window.last_done()?.same_outcome_run() as usize;
    let ran = u32::try_from(count).unwrap_or(u32::MAX);
    let finding = threshold_finding(DetectorId::KnownPollNoProgress, count, proposal, 1)?;
    if finding.level == Level::Critical && polling_patiently(window, proposal, config) {
        return warning_finding(DetectorId::KnownPollNoProgress, count, proposal, 1)
            .map(|f| f.ran(ran));
    }
    Some(finding.ran(ran))
}
