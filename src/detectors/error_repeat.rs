//! `error_repeat`: the same tool keeps failing with the same error, whatever the arguments.
//! Counts the tool's newest completed calls that returned one identical error outcome (a thrown
//! error, `isError`, or a failure text) and warns at `WEAK_EVIDENCE_FACTOR` times the tool's
//! warning threshold. Different arguments failing alike may each have failed for their own reason
//! (a different gift card, a corrected request), and a call with new arguments asks a new question:
//! only a call that repeats one the streak already answered is refused, at `WEAK_EVIDENCE_FACTOR`
//! times the critical threshold. The same arguments failing alike with nothing changing in
//! between are `generic_repeat`'s, at the tool's own thresholds.

use super::{Proposal, Window};
use crate::config::Config;
use crate::verdict::{DetectorId, Finding};

pub fn detect(window: &Window, proposal: &Proposal, config: &Config) -> Option<Finding> {
    if !config.detectors.on(DetectorId::ErrorRepeat) {
        return None;
    }
    let streak = window.same_tool_outcome_streak()?;
    if !streak.newest_is_error {
        return None;
    }
    streak.weak_finding(DetectorId::ErrorRepeat, proposal)
}
