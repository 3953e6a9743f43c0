//! `error_repeat`: the same tool keeps failing with the same error, whatever the arguments.
//! Counts the tool's newest completed calls that returned one identical error outcome (a thrown
//! error, `isError`, or a failure text). Different arguments failing alike may each have failed
//! for their own reason (a different gift card, a corrected request), so the thresholds are
//! `WEAK_EVIDENCE_FACTOR` times the tool's; the same arguments failing alike are
//! `generic_repeat`'s, at the tool's own thresholds.

use super::{threshold_finding, Proposal, Window, WEAK_EVIDENCE_FACTOR};
use crate::config::Config;
use crate::verdict::{DetectorId, Finding};

pub fn detect(window: &Window, proposal: &Proposal, config: &Config) -> Option<Finding> {
    if !config.detectors.error_repeat {
        return None;
    }
    let streak = window.same_tool_outcome_streak()?;
    if !streak.newest_is_error {
        return None;
    }
    threshold_finding(
        DetectorId::ErrorRepeat,
        streak.len,
        proposal,
        WEAK_EVIDENCE_FACTOR,
    )
}
