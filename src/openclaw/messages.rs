//! The `openclaw` preset's texts. They carry the phrases OpenClaw's prompts and log scrapers key
//! on ("WARNING", "CRITICAL", the count as "N times", "identical outcomes", "no progress",
//! "ping-pong loop", "global circuit breaker", "tool call remains allowed").

use super::detect::{Detail, Found};
use crate::verdict::{DetectorId, Level};

/// The text for a finding about a call to `tool`.
pub fn for_found(found: &Found, tool: &str) -> String {
    let n = found.count;
    let critical = found.level != Level::Warning;
    let partner = match &found.detail {
        Detail::Partner(partner) => partner.as_str(),
        _ => "another call",
    };
    match (found.detector, critical) {
        (DetectorId::GenericRepeat, false) => format!(
            "WARNING: {tool} has now been called {n} times with identical arguments. If nothing is \
             changing, stop repeating it and report the task as failed."
        ),
        (DetectorId::GenericRepeat, true) => format!(
            "CRITICAL: {tool} gave identical outcomes {n} times for identical arguments. This call is \
             blocked so the loop cannot run on; take a different approach."
        ),
        (DetectorId::KnownPollNoProgress, false) => format!(
            "WARNING: {tool} was polled {n} times with identical arguments and no progress. Wait \
             longer between checks, or report the process as stuck."
        ),
        (DetectorId::KnownPollNoProgress, true) => format!(
            "CRITICAL: {tool} was polled {n} times with identical arguments and no progress. This \
             polling loop is stuck, so the call is blocked."
        ),
        (DetectorId::PingPong, false) => format!(
            "WARNING: {tool} and {partner} have alternated {n} times in a row. That is a ping-pong \
             loop; stop retrying and report the task as failed."
        ),
        (DetectorId::PingPong, true) => format!(
            "CRITICAL: {tool} and {partner} alternated {n} times in a row with no progress. This \
             ping-pong loop is stuck, so the call is blocked."
        ),
        (DetectorId::UnknownToolRepeat, _) => {
            let missing = match &found.detail {
                Detail::MissingTool(name) => name.as_str(),
                _ => tool,
            };
            format!(
                "CRITICAL: the unavailable tool {missing} was attempted {n} times. Stop calling it \
                 and answer without it."
            )
        }
        (DetectorId::ArgumentChurn, _) => {
            let variants = match found.detail {
                Detail::Variants(v) => v,
                _ => 0,
            };
            format!(
                "WARNING: {tool} has cycled through {variants} repeated argument patterns with one \
                 unchanging outcome, {n} times in all. This churn counts as stalled work, but this \
                 tool call remains allowed."
            )
        }
        (DetectorId::PostCompactionLoop, _) => format!(
            "CRITICAL: after the context was compacted, {tool} repeated identical arguments with \
             identical results {n} times. Compaction did not break the loop, so the run stops."
        ),
        _ => format!(
            "CRITICAL: {tool} repeated identical no-progress outcomes {n} times. The global circuit \
             breaker stops this run."
        ),
    }
}

/// Added when a refusal stops the run because an earlier one already did not break the loop.
pub const SECOND_CRITICAL: &str =
    " A critical loop was already refused earlier in this run, so the run stops now.";
