//! `ping_pong`: the window's tail alternates between exactly two calls (A B A B …) and the proposed
//! call continues the pattern. Warns at `max(warningThreshold, 4)` calls in the pattern; blocks at
//! `criticalThreshold` calls (or `2 × criticalLaps + 1`) only when each side keeps returning the
//! same outcome: alternation whose results change is progress.

use super::{periodic_finding, Proposal, Window};
use crate::config::Config;
use crate::verdict::{DetectorId, Finding};

const PERIOD: usize = 2;

pub fn detect(window: &Window, proposal: &Proposal, config: &Config) -> Option<Finding> {
    if !config.detectors.ping_pong {
        return None;
    }
    let (_, tail, count) = window.pattern_in(PERIOD..=PERIOD)?;
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
}
