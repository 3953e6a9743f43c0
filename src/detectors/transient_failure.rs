//! `transient_failure`: a call failing transiently (429, 503, an overloaded service, a reset
//! connection: `record::failure_class`) is an outage, not a loop. Its failures leave the window
//! (no repeat detector counts them) and `run::outages` keeps when a retry may come: a retry sooner
//! than the service asked for (`Retry-After`) or than the back-off (1 s, 2 s, 4 s, … 60 s) is
//! refused, saying when to retry. Once the call's failures in a row span `transientBudgetMs`, its
//! record says the service is unavailable and the next retry is refused once so (the model should
//! tell the user); later retries that wait as asked may try again. A record of a transient failure
//! warns with the wait (`at_record`: the record is gone from the window).

use super::{Proposal, Window};
use crate::config::Config;
use crate::record::keys::tool_key;
use crate::run::outages::Outage;
use crate::verdict::{Basis, DetectorId, Finding, Level};

pub fn detect(window: &Window, proposal: &Proposal, config: &Config) -> Option<Finding> {
    if !config.detectors.on(DetectorId::TransientFailure) {
        return None;
    }
    // A forecast assumes the next call waits as long as asked.
    let at = proposal.at?;
    let outage = window
        .run
        .outages
        .of(tool_key(proposal.tool), &proposal.args)?;
    let mut found = Finding::new(
        DetectorId::TransientFailure,
        Level::Critical,
        outage.failures,
        outage.failures,
    );
    let failing = outage.last_at - outage.first_at;
    if failing >= config.transient_budget_ms && !outage.told_unavailable {
        found.failing_ms = Some(failing);
        return Some(found.on(Basis::Unavailable));
    }
    let waited = at - outage.last_at;
    (waited < outage.wait_ms).then(|| {
        found.retry_after_ms = Some(outage.wait_ms - waited);
        found.on(Basis::TooSoon)
    })
}

/// The warning of a record that failed transiently: the wait before the next try, or the service
/// being unavailable once the call has failed for `budget_ms` in a row.
pub fn at_record(outage: &Outage, budget_ms: f64) -> Finding {
    let mut found = Finding::new(
        DetectorId::TransientFailure,
        Level::Warning,
        outage.failures,
        1,
    );
    found.retry_after_ms = Some(outage.wait_ms);
    let failing = outage.last_at - outage.first_at;
    if failing >= budget_ms {
        found.failing_ms = Some(failing);
        found = found.on(Basis::Unavailable);
    }
    found
}
