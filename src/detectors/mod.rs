//! The detectors. Each is a pure function of (the run's window, the proposed call, the config)
//! returning at most one finding; `evaluate` picks the most severe, ties going to the order of
//! `ORDER`. Shared helpers (streak lookups, periodic tails, poll patience) and warning
//! de-duplication live here, so every detector's warnings behave alike.

mod cycle;
mod error_repeat;
mod generic_repeat;
mod global_circuit_breaker;
mod known_poll_no_progress;
mod max_turns;
mod ping_pong;
mod stall;
mod tool_cap;
mod unknown_tool_repeat;

use crate::canonical::Digest;
use crate::config::Config;
use crate::history::{CallRecord, Run};
use crate::tools::{Cap, ToolKind};
use crate::verdict::{DetectorId, Finding, Level};

/// The call being judged, with its per-tool settings resolved.
#[derive(Debug, Clone)]
pub struct Proposal<'a> {
    pub tool: &'a str,
    /// The tool's index in the run's table; `None` when the window has no call of this tool.
    pub tool_index: Option<u16>,
    pub args: Digest,
    pub kind: ToolKind,
    pub at: f64,
    pub warning_threshold: u32,
    pub critical_threshold: u32,
    pub cap: Option<Cap>,
}

/// A poll interval that grows by this factor (or more) counts as backing off.
const BACKOFF_FACTOR: f64 = 1.5 * (1.0 - 1e-9);
/// Polls closer together than this are never patient, whatever their growth.
const MIN_PATIENT_INTERVAL_MS: f64 = 1000.0;

type Detector = fn(&Run, &Proposal, &Config) -> Option<Finding>;

/// Evaluation order; on equal levels the earlier (more specific) detector wins.
const ORDER: [Detector; 10] = [
    global_circuit_breaker::detect,
    max_turns::detect,
    tool_cap::detect,
    unknown_tool_repeat::detect,
    known_poll_no_progress::detect,
    ping_pong::detect,
    cycle::detect,
    error_repeat::detect,
    stall::detect,
    generic_repeat::detect,
];

/// The finding that decides the verdict for `proposal`: the most severe one (ties go to the earlier
/// detector in `ORDER`); among warnings, the first one that is due (see `should_emit_warning`).
/// `None` when nothing fires or no warning is due.
pub fn decide(run: &Run, proposal: &Proposal, config: &Config) -> Option<Finding> {
    let findings: Vec<Finding> = ORDER
        .iter()
        .filter_map(|detect| detect(run, proposal, config))
        .collect();
    let top = findings.iter().map(|f| f.level).max()?;
    if top == Level::Warning {
        return findings
            .into_iter()
            .find(|f| should_emit_warning(run, proposal, f));
    }
    findings.into_iter().find(|f| f.level == top)
}

/// Records after the last host-reported progress.
fn since_progress(run: &Run) -> impl DoubleEndedIterator<Item = &CallRecord> {
    let floor = run.progress_floor;
    run.records().iter().filter(move |r| r.seq >= floor)
}

/// Records of the proposed fingerprint that count towards streaks, newest first.
fn same_call<'r>(run: &'r Run, proposal: &Proposal) -> impl Iterator<Item = &'r CallRecord> {
    let tool = proposal.tool_index;
    let args = proposal.args;
    since_progress(run)
        .rev()
        .filter(move |r| Some(r.tool) == tool && r.args == args)
}

/// The newest completed record of the proposed fingerprint.
fn last_done<'r>(run: &'r Run, proposal: &Proposal) -> Option<&'r CallRecord> {
    same_call(run, proposal).find(|r| r.outcome().is_some())
}

/// The newest completed records of the proposed tool (any args) that share the newest one's
/// outcome, newest first.
fn same_tool_outcome_streak<'r>(run: &'r Run, proposal: &Proposal) -> Vec<&'r CallRecord> {
    let Some(tool) = proposal.tool_index else {
        return Vec::new();
    };
    let mut completed = since_progress(run)
        .rev()
        .filter(|r| r.tool == tool && r.outcome().is_some());
    let Some(newest) = completed.next() else {
        return Vec::new();
    };
    let mut streak = vec![newest];
    streak.extend(completed.take_while(|r| r.outcome() == newest.outcome()));
    streak
}

/// The window's tail that repeats with period `period` and is continued by the proposed call,
/// as (tail records, count of calls in the pattern including the proposed one).
fn periodic_tail<'r>(
    records: &[&'r CallRecord],
    proposal: &Proposal,
    period: usize,
) -> Option<(Vec<&'r CallRecord>, u32)> {
    let n = records.len();
    let lap_start = *records.get(n.checked_sub(period)?)?;
    if Some(lap_start.tool) != proposal.tool_index || lap_start.args != proposal.args {
        return None;
    }
    let mut start = n - period;
    while start > 0 {
        let (Some(earlier), Some(later)) =
            (records.get(start - 1), records.get(start - 1 + period))
        else {
            break;
        };
        if !earlier.same_call(later.tool, &later.args) {
            break;
        }
        start -= 1;
    }
    let tail = records.get(start..)?.to_vec();
    let count = u32::try_from(tail.len() + 1).unwrap_or(u32::MAX);
    Some((tail, count))
}

/// The smallest period (1..=max) whose pattern the proposed call continues with at least two laps
/// (the proposed call included), with its tail.
fn shortest_pattern<'r>(
    run: &'r Run,
    proposal: &Proposal,
    max_period: usize,
) -> Option<(usize, Vec<&'r CallRecord>, u32)> {
    let records: Vec<&CallRecord> = since_progress(run).collect();
    (1..=max_period).find_map(|period| {
        let (tail, count) = periodic_tail(&records, proposal, period)?;
        (count as usize >= 2 * period).then_some((period, tail, count))
    })
}

/// Every position of a periodic tail returned one outcome throughout (and each position has one).
fn laps_are_stable(tail: &[&CallRecord], period: usize) -> bool {
    (0..period).all(|position| {
        let mut outcomes = tail
            .iter()
            .skip(position)
            .step_by(period)
            .filter_map(|r| r.outcome());
        match outcomes.next() {
            Some(first) => outcomes.all(|o| o == first),
            None => false,
        }
    })
}

/// Identical polls that wait patiently (each interval at least 1.5× the previous, or at least
/// `patientPollMs`; never under a second) within `pollBudgetMs` of polling time are not escalated
/// past a warning.
fn polling_patiently(run: &Run, proposal: &Proposal, config: &Config) -> bool {
    let Some(newest) = last_done(run, proposal) else {
        return false;
    };
    let mut times: Vec<f64> = same_call(run, proposal)
        .filter(|r| r.outcome().is_some())
        .take_while(|r| r.outcome() == newest.outcome())
        .map(|r| r.at)
        .collect();
    times.reverse();
    times.push(proposal.at);
    let Some(first) = times.first() else {
        return false;
    };
    if proposal.at - first >= config.poll_budget_ms {
        return false;
    }
    let intervals: Vec<f64> = times
        .windows(2)
        .filter_map(|w| Some(w.get(1)? - w.first()?))
        .collect();
    intervals.windows(2).all(|w| match (w.first(), w.get(1)) {
        (Some(&previous), Some(&current)) => {
            current >= MIN_PATIENT_INTERVAL_MS
                && (current >= config.patient_poll_ms || current >= previous * BACKOFF_FACTOR)
        }
        _ => true,
    })
}

/// A warning is emitted when it first crosses its threshold and again once `threshold` further
/// calls of the same pattern were made since the last call it warned about.
fn should_emit_warning(run: &Run, proposal: &Proposal, finding: &Finding) -> bool {
    let detector = finding.detector;
    let scope: Box<dyn Iterator<Item = &CallRecord>> = match detector {
        DetectorId::PingPong | DetectorId::Cycle => Box::new(
            run.records()
                .iter()
                .rev()
                .take(finding.count.saturating_sub(1) as usize),
        ),
        DetectorId::Stall | DetectorId::ErrorRepeat => {
            let tool = proposal.tool_index;
            Box::new(
                run.records()
                    .iter()
                    .rev()
                    .filter(move |r| Some(r.tool) == tool),
            )
        }
        _ => Box::new(same_call(run, proposal)),
    };
    for (since, record) in scope.enumerate() {
        if record.warned == Some(detector) {
            return since + 1 >= finding.threshold as usize;
        }
    }
    true
}

/// Warning at `warningThreshold`, critical at `criticalThreshold` (the proposed tool's).
fn threshold_finding(detector: DetectorId, count: usize, proposal: &Proposal) -> Option<Finding> {
    let count = u32::try_from(count).unwrap_or(u32::MAX);
    let level = if count >= proposal.critical_threshold {
        Level::Critical
    } else if count >= proposal.warning_threshold {
        Level::Warning
    } else {
        return None;
    };
    let threshold = if level == Level::Critical {
        proposal.critical_threshold
    } else {
        proposal.warning_threshold
    };
    Some(Finding::new(detector, level, count, threshold))
}

/// The finding for a periodic pattern (`ping_pong`, `cycle`) of `count` calls: warning from two
/// laps and `warningThreshold` on; critical from `criticalThreshold` calls (or `criticalLaps`
/// laps) when every position's outcome is stable.
fn periodic_finding(
    detector: DetectorId,
    tail: &[&CallRecord],
    period: usize,
    count: u32,
    proposal: &Proposal,
    config: &Config,
    partner_tool: Option<String>,
) -> Option<Finding> {
    let period = u32::try_from(period).unwrap_or(u32::MAX);
    let critical = config
        .critical_laps
        .map_or(proposal.critical_threshold, |laps| {
            laps.saturating_mul(period).saturating_add(1)
        });
    let warning = proposal.warning_threshold.max(period.saturating_mul(2));
    let mut finding = if count >= critical && laps_are_stable(tail, period as usize) {
        Finding::new(detector, Level::Critical, count, critical)
    } else if count >= warning {
        Finding::new(detector, Level::Warning, count, warning)
    } else {
        return None;
    };
    finding.partner_tool = partner_tool;
    Some(finding)
}
