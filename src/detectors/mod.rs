//! The detectors. Each is a pure function of (the run's window, the proposed call, the config)
//! returning at most one finding; `evaluate` picks the most severe, ties going to the order of
//! `ORDER`. Warning de-duplication lives here too, so every detector's warnings behave alike.

mod generic_repeat;
mod global_circuit_breaker;
mod known_poll_no_progress;
mod ping_pong;
mod unknown_tool_repeat;

use crate::canonical::Digest;
use crate::config::Config;
use crate::history::{CallRecord, Run};
use crate::verdict::{DetectorId, Finding};

/// The call being judged.
#[derive(Debug, Clone)]
pub struct Proposal {
    /// The tool's index in the run's table; `None` when the window has no call of this tool.
    pub tool_index: Option<u16>,
    pub args: Digest,
    pub is_poll: bool,
}

type Detector = fn(&Run, &Proposal, &Config) -> Option<Finding>;

/// Evaluation order; on equal levels the earlier detector wins.
const ORDER: [Detector; 5] = [
    global_circuit_breaker::detect,
    unknown_tool_repeat::detect,
    known_poll_no_progress::detect,
    ping_pong::detect,
    generic_repeat::detect,
];

/// The most severe finding for `proposal`, if any detector fires.
pub fn evaluate(run: &Run, proposal: &Proposal, config: &Config) -> Option<Finding> {
    let mut best: Option<Finding> = None;
    for detect in ORDER {
        if let Some(found) = detect(run, proposal, config) {
            if best.as_ref().is_none_or(|b| found.level > b.level) {
                best = Some(found);
            }
        }
    }
    best
}

/// Records of the proposed fingerprint that count towards streaks, newest first.
fn same_call<'r>(run: &'r Run, proposal: &Proposal) -> impl Iterator<Item = &'r CallRecord> {
    let floor = run.progress_floor;
    let tool = proposal.tool_index;
    let args = proposal.args;
    run.records()
        .iter()
        .rev()
        .filter(move |r| r.seq >= floor && Some(r.tool) == tool && r.args == args)
}

/// The newest completed record of the proposed fingerprint.
fn last_done<'r>(run: &'r Run, proposal: &Proposal) -> Option<&'r CallRecord> {
    same_call(run, proposal).find(|r| r.outcome().is_some())
}

/// A warning is emitted when it first crosses its threshold and again once `threshold` further
/// calls of the same pattern were made since the last call it warned about.
pub fn should_emit_warning(run: &Run, proposal: &Proposal, finding: &Finding) -> bool {
    let detector = finding.detector;
    let scope: Box<dyn Iterator<Item = &CallRecord>> = match detector {
        DetectorId::PingPong => Box::new(
            run.records()
                .iter()
                .rev()
                .take(finding.count.saturating_sub(1) as usize),
        ),
        _ => Box::new(same_call(run, proposal)),
    };
    for (since, record) in scope.enumerate() {
        if record.warned == Some(detector) {
            return since + 1 >= finding.threshold as usize;
        }
    }
    true
}
