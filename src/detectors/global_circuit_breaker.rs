//! `global_circuit_breaker`: the last resort. Fires when the proposed call's fingerprint has gone
//! `globalCircuitBreakerThreshold` calls without progress (identical results or refusals), or when
//! that many calls in a row were refused. It cannot be switched off while the guard is enabled.

use super::{same_call, Proposal};
use crate::config::Config;
use crate::history::Run;
use crate::verdict::{DetectorId, Finding, Level};

pub fn detect(run: &Run, proposal: &Proposal, config: &Config) -> Option<Finding> {
    let streak = same_call(run, proposal)
        .find(|r| !r.is_pending())
        .map_or(0, |r| r.no_progress);
    let count = streak.max(run.trailing_vetoes);
    let threshold = config.global_circuit_breaker_threshold;
    (count >= threshold).then_some(Finding {
        detector: DetectorId::GlobalCircuitBreaker,
        level: Level::CircuitBreak,
        count,
        threshold,
        partner_tool: None,
    })
}
