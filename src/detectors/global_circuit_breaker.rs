//! `global_circuit_breaker`: the last resort. Fires when the proposed call's fingerprint has gone
//! `globalCircuitBreakerThreshold` calls without progress (identical results or refusals, nothing
//! else changing in between), or when
//! that many calls in a row were refused. It cannot be switched off while the guard is enabled;
//! only a poll within its budget holds it back (`known_poll_no_progress` refuses the polls that
//! come sooner than it advised; that many refusals in a row still stop the run).

use super::known_poll_no_progress::polling_within_budget;
use super::{Proposal, Window};
use crate::config::Config;
use crate::verdict::{Basis, DetectorId, Finding, Level};

pub fn detect(window: &Window, proposal: &Proposal, config: &Config) -> Option<Finding> {
    let streak = window.quiet_no_progress();
    let refused_in_a_row = window.run.trailing_vetoes;
    let threshold = config.global_circuit_breaker_threshold;
    if streak.max(refused_in_a_row) < threshold {
        return None;
    }
    let patient =
        refused_in_a_row < threshold && polling_within_budget(window, proposal, config);
    if patient {
        return None;
    }
    let found = if refused_in_a_row > streak {
        Finding::new(
            DetectorId::GlobalCircuitBreaker,
            Level::CircuitBreak,
            refused_in_a_row,
            threshold,
        )
        .on(Basis::RefusedInARow)
    } else {
        Finding::new(
            DetectorId::GlobalCircuitBreaker,
            Level::CircuitBreak,
            streak,
            threshold,
        )
        .ran(window.quiet_ran(proposal, streak))
    };
    Some(found)
}
