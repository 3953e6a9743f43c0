//! `ping_pong`: the window's tail alternates between exactly two calls (A B A B …) and the proposed
//! call continues the pattern. Warns at `max(warningThreshold, 4)` calls in the pattern; blocks at
//! `criticalThreshold` calls (or `2 × criticalLaps + 1`) only when each side keeps returning the
//! same outcome: alternation whose results change is progress.

use super::Proposal;
use crate::canonical::Digest;
use crate::config::Config;
use crate::history::{CallRecord, Run};
use crate::verdict::{DetectorId, Finding, Level};

/// The shortest tail that establishes a pattern: A B A, continued by the proposed B.
const MIN_TAIL: usize = 3;

pub fn detect(run: &Run, proposal: &Proposal, config: &Config) -> Option<Finding> {
    if !config.detectors.ping_pong {
        return None;
    }
    let floor = run.progress_floor;
    let records: Vec<&CallRecord> = run.records().iter().filter(|r| r.seq >= floor).collect();
    let n = records.len();
    let last = *records.last()?;
    let before_last = *records.get(n.checked_sub(2)?)?;
    if last.same_call(before_last.tool, &before_last.args) {
        return None;
    }
    if Some(before_last.tool) != proposal.tool_index || before_last.args != proposal.args {
        return None;
    }
    let mut start = n - 2;
    while start > 0 {
        let (Some(candidate), Some(two_later)) = (records.get(start - 1), records.get(start + 1))
        else {
            break;
        };
        if !candidate.same_call(two_later.tool, &two_later.args) {
            break;
        }
        start -= 1;
    }
    let tail = records.get(start..)?;
    if tail.len() < MIN_TAIL {
        return None;
    }
    let count = u32::try_from(tail.len() + 1).unwrap_or(u32::MAX);
    let critical = config
        .critical_laps
        .map_or(config.critical_threshold, |laps| {
            laps.saturating_mul(2).saturating_add(1)
        });
    let warning = config.warning_threshold.max(4);
    let partner_tool = Some(run.tool_name(last.tool).to_owned());
    if count >= critical && side_is_stable(tail, last) && side_is_stable(tail, before_last) {
        return Some(Finding {
            detector: DetectorId::PingPong,
            level: Level::Critical,
            count,
            threshold: critical,
            partner_tool,
        });
    }
    (count >= warning).then_some(Finding {
        detector: DetectorId::PingPong,
        level: Level::Warning,
        count,
        threshold: warning,
        partner_tool,
    })
}

/// All completed records of `side`'s call in the tail share one outcome (and there is at least one).
fn side_is_stable(tail: &[&CallRecord], side: &CallRecord) -> bool {
    let mut outcomes = tail
        .iter()
        .filter(|r| r.same_call(side.tool, &side.args))
        .filter_map(|r| r.outcome());
    let Some(first): Option<&Digest> = outcomes.next() else {
        return false;
    };
    outcomes.all(|o| o == first)
}
