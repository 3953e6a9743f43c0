//! What a `global_circuit_breaker` stop ended, for the text the user reads: the breaker fires on
//! any loop that ran too long (identical calls, a ping-pong, an outage retried over and over), and
//! the user should be told which. The cause is the finding the stopped call meets from the other
//! detectors, or the outage the call is part of. Judged only when a run stops.

use crate::detectors::Proposal;
use crate::record::keys::tool_key;
use crate::run::state::Run;
use crate::verdict::{Basis, DetectorId, Finding, StopCause};

/// The loop behind a `global_circuit_breaker` stop of `proposal`, given `others`: what the other
/// detectors found (`detectors::decide_naming_breaker`); `None` when nothing but the breaker's own
/// count speaks against the call.
pub fn behind_breaker(
    run: &Run,
    proposal: &Proposal,
    others: Option<&Finding>,
) -> Option<StopCause> {
    if run
        .outages
        .of(tool_key(proposal.tool), &proposal.args)
        .is_some()
    {
        return Some(StopCause {
            detector: DetectorId::TransientFailure,
            basis: Basis::Unavailable,
            partner_tool: None,
        });
    }
    others.map(StopCause::of)
}
