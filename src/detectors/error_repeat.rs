//! `error_repeat`: the same tool keeps failing with the same error, whatever the arguments.
//! Counts the tool's newest completed calls that returned one identical error outcome.

use super::{threshold_finding, Proposal, Window};
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
    threshold_finding(DetectorId::ErrorRepeat, streak.len, proposal)
}
