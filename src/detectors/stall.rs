//! `stall`: the same tool, called with different arguments, keeps producing the identical outcome
//! (25 different searches, all "No results found."). Counts the tool's newest completed calls that
//! share one outcome, across at least two distinct argument sets. Mutating tools (identical
//! acknowledgements are normal) and poll tools (judged by `known_poll_no_progress`) are exempt.

use super::{threshold_finding, Proposal, Window};
use crate::config::Config;
use crate::tools::ToolKind;
use crate::verdict::{DetectorId, Finding};

pub fn detect(window: &Window, proposal: &Proposal, config: &Config) -> Option<Finding> {
    if !config.detectors.stall || proposal.kind != ToolKind::Read {
        return None;
    }
    let streak = window.same_tool_outcome_streak()?;
    if streak.one_args {
        return None;
    }
    threshold_finding(DetectorId::Stall, streak.len, proposal)
}
