//! `known_poll_no_progress`: a poll tool (`command_status`, `process` poll/log, Claude Code's
//! `BashOutput`/`TaskOutput`, `pollTools`, or `kind: "poll"`) whose outcome has not changed for
//! `warningThreshold` polls in a row (a poll's clock values never count as a change:
//! `record::clock_mask`) is told how long to wait before the next poll, and a poll that comes
//! sooner is refused, saying when it may come (`retryAfterMs`). A poll that waits as advised is
//! allowed; a poll whose outcome changes (new output, a finished process) is progress and starts
//! the streak afresh. Only when the streak has polled for `pollBudgetMs` is it refused at
//! `criticalThreshold` whatever it waits.
//!
//! The advised wait: the streak's shortest interval between polls that ran (at least 1 s), times
//! 1.5 for each unchanged poll from the `warningThreshold`-th on, at most `patientPollMs`. A model
//! polling every 3 s is asked to wait 4.5 s after the 3rd identical poll, then 6.75 s, 10.1 s, …
//! up to 30 s; a poll already `patientPollMs` apart is never refused.

use super::{threshold_finding, Proposal, Window};
use crate::config::tools::ToolKind;
use crate::config::Config;
use crate::verdict::{Basis, DetectorId, Finding, Level};

/// The advised wait grows by this factor with each further unchanged poll.
const WAIT_GROWTH: f64 = 1.5;
/// The interval the advice grows from is never taken as shorter than this.
const MIN_POLL_INTERVAL_MS: f64 = 1000.0;

pub fn detect(window: &Window, proposal: &Proposal, config: &Config) -> Option<Finding> {
    if !config.detectors.on(DetectorId::KnownPollNoProgress) || proposal.kind != ToolKind::Poll {
        return None;
    }
    let streak = PollStreak::of(window, proposal)?;
    let count = streak.unchanged as usize;
    let ran = streak.unchanged;
    if !streak.within_budget(proposal, config) {
        return threshold_finding(DetectorId::KnownPollNoProgress, count, proposal, 1)
            .map(|f| f.ran(ran));
    }
    let warning = proposal.warning_threshold;
    if streak.unchanged < warning {
        return None;
    }
    let Some(at) = proposal.at else {
        // The forecast of a record: the next poll, if it waits as advised.
        let mut found = Finding::new(DetectorId::KnownPollNoProgress, Level::Warning, ran, warning);
        found.retry_after_ms = Some(streak.advised_wait(0, proposal, config));
        return Some(found.ran(ran));
    };
    let waited = at - streak.last_at;
    let wait = streak.advised_wait(0, proposal, config);
    let found = if waited < wait {
        let mut found = Finding::new(DetectorId::KnownPollNoProgress, Level::Critical, ran, warning);
        found.retry_after_ms = Some(wait - waited);
        found.on(Basis::TooSoon)
    } else {
        // This poll waited: the next one, if this one returns the same, waits longer.
        let mut found = Finding::new(DetectorId::KnownPollNoProgress, Level::Warning, ran, warning);
        found.retry_after_ms = Some(streak.advised_wait(1, proposal, config));
        found
    };
    Some(found.ran(ran))
}

/// Whether the proposed poll is held to this detector alone: the detector is on and it is a poll
/// whose unchanged streak has not spent `pollBudgetMs` (the circuit breaker then waits for
/// `globalCircuitBreakerThreshold` refusals in a row: this detector refuses the polls that come
/// too soon).
pub fn polling_within_budget(window: &Window, proposal: &Proposal, config: &Config) -> bool {
    proposal.kind == ToolKind::Poll
        && config.detectors.on(DetectorId::KnownPollNoProgress)
        && match PollStreak::of(window, proposal) {
            Some(streak) => streak.within_budget(proposal, config),
            None => true,
        }
}

/// The proposed poll's newest completed records that returned one outcome (refusals in between
/// skipped), as far as the window holds them.
struct PollStreak {
    /// Its `sameOutcomeRun`: unchanged polls in a row.
    unchanged: u32,
    /// When the oldest of them in the window and the newest were made (ms).
    first_at: f64,
    last_at: f64,
    /// The shortest interval between two of them in a row (ms), if there are two.
    shortest_ms: Option<f64>,
}

impl PollStreak {
    fn of(window: &Window, proposal: &Proposal) -> Option<PollStreak> {
        let newest = window.last_done()?;
        let mut streak = PollStreak {
            unchanged: newest.same_outcome_run(),
            first_at: newest.at,
            last_at: newest.at,
            shortest_ms: None,
        };
        let polls = window
            .same_call(proposal)
            .filter(|r| r.outcome().is_some())
            .take_while(|r| r.outcome() == newest.outcome())
            .skip(1);
        for poll in polls {
            let interval = streak.first_at - poll.at;
            streak.shortest_ms = Some(streak.shortest_ms.map_or(interval, |s| s.min(interval)));
            streak.first_at = poll.at;
        }
        Some(streak)
    }

    /// Less than `pollBudgetMs` from the streak's first poll to the proposed one (for a forecast,
    /// to the newest).
    fn within_budget(&self, proposal: &Proposal, config: &Config) -> bool {
        proposal.at.unwrap_or(self.last_at) - self.first_at < config.poll_budget_ms
    }

    /// The wait advised after the newest poll (`later`: after that many more unchanged ones).
    fn advised_wait(&self, later: u32, proposal: &Proposal, config: &Config) -> f64 {
        let base = self
            .shortest_ms
            .unwrap_or(MIN_POLL_INTERVAL_MS)
            .max(MIN_POLL_INTERVAL_MS);
        let past_warning = self
            .unchanged
            .saturating_add(later)
            .saturating_sub(proposal.warning_threshold)
            .saturating_add(1)
            .min(64);
        let growth = WAIT_GROWTH.powi(i32::try_from(past_warning).unwrap_or(64));
        (base * growth).min(config.patient_poll_ms)
    }
}
