//! `stall`: the same tool, called with different arguments, keeps producing the identical outcome
//! (25 different searches, all "No results found."). Counts the tool's newest completed calls that
//! share one outcome, across at least two distinct argument sets. Weak evidence (a fourth query
//! is often the one that finds something), so its thresholds are `WEAK_EVIDENCE_FACTOR` times the
//! tool's. Only read tools: mutations answer with fixed acknowledgements, command runners print
//! nothing for most writes, polls are `known_poll_no_progress`'s. Blank outcomes (a `think` tool's
//! empty answer) say nothing either way, and a shared error is `error_repeat`'s.

use super::{threshold_finding, Proposal, Window, WEAK_EVIDENCE_FACTOR};
use crate::config::tools::ToolKind;
use crate::config::Config;
use crate::verdict::{DetectorId, Finding};

pub fn detect(window: &Window, proposal: &Proposal, config: &Config) -> Option<Finding> {
    if !config.detectors.stall || proposal.kind != ToolKind::Read {
        return None;
    }
    let streak = window.same_tool_outcome_streak()?;
    if streak.one_args || streak.blank || streak.newest_is_error {
        return None;
    }
    threshold_finding(
        DetectorId::Stall,
        streak.len,
        proposal,
        WEAK_EVIDENCE_FACTOR,
    )
}
