//! `ping_pong`: the window's tail alternates between exactly two calls (A B A B …) and the proposed
//! call continues the pattern. Warns at `max(warningThreshold, 4)` calls in the pattern; blocks at
//! `criticalThreshold` calls (or `2 × criticalLaps + 1`) only when each side keeps returning the
//! same outcome: alternation whose results change is progress. Without a clean alternation, the
//! stale rule (`stale_finding`) refuses a stretch of calls that returned nothing new while going
//! round two calls.

use super::{periodic_finding, periodic_or_stale, stale_finding, Proposal, Window};
use crate::config::Config;
use crate::verdict::{DetectorId, Finding};

const PERIOD: usize = 2;

pub fn detect(window: &Window, proposal: &Proposal, config: &Config) -> Option<Finding> {
    if !config.detectors.on(DetectorId::PingPong) {
        return None;
    }
    let periodic = window
        .pattern_in(PERIOD..=PERIOD)
        .and_then(|(_, tail, count)| {
            let partner = tail
                .last()
                .map(|r| window.run.tool_name(r.tool()).to_owned());
            periodic_finding(
                DetectorId::PingPong,
                tail,
                PERIOD,
                count,
                proposal,
                config,
                partner,
            )
        });
    periodic_or_stale(periodic, || {
        stale_finding(DetectorId::PingPong, window, proposal, PERIOD..=PERIOD)
    })
}
