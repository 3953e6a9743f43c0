//! `stall`: the same tool, called with different arguments, keeps producing the identical outcome
//! (25 different searches, all "No results found."). Counts the tool's newest completed calls that
//! share one outcome, across at least two distinct argument sets, and warns at
//! `WEAK_EVIDENCE_FACTOR` times the tool's warning threshold. New arguments ask a new question (the
//! eleventh date may have the flight), so a new call is never refused: only a call that repeats
//! one the streak already answered, once the streak reaches `WEAK_EVIDENCE_FACTOR` times the
//! critical threshold. Only reads (and calls the guard cannot tell are reads), and only streaks of
//! them (a multi-command tool's edits among its views break it): mutations answer with fixed
//! acknowledgements, command runners print nothing for most writes, polls are
//! `known_poll_no_progress`'s. Blank outcomes (a `think` tool's empty answer) say nothing either
//! way, and a shared error is `error_repeat`'s.

use super::{Proposal, Window};
use crate::config::Config;
use crate::run::state::Run;
use crate::verdict::{DetectorId, Finding};

pub fn detect(window: &Window, proposal: &Proposal, config: &Config) -> Option<Finding> {
    if !config.detectors.on(DetectorId::Stall) {
        return None;
    }
    let streak = window.same_tool_outcome_streak()?;
    if streak.one_args || !streak.weighed_by_stall(proposal) {
        return None;
    }
    streak.weak_finding(DetectorId::Stall, proposal)
}

/// Whether the newest two completed records of `tool` returned one outcome for different
/// arguments: a stall is forming.
pub fn forming(run: &Run, tool: u16) -> bool {
    let mut done = run
        .records()
        .iter()
        .rev()
        .filter(|r| r.tool() == tool && r.outcome().is_some());
    match (done.next(), done.next()) {
        (Some(newest), Some(before)) => {
            newest.outcome() == before.outcome() && newest.args != before.args
        }
        _ => false,
    }
}
