//! `cycle`: the window's tail repeats a cycle of 3 to `maxCyclePeriod` calls (A B C A B C …) and the
//! proposed call continues it. Warns at `max(warningThreshold, 2 × period)` calls in the cycle;
//! blocks at `criticalThreshold` calls (or `criticalLaps × period + 1`) only when every position of
//! the cycle keeps returning the same outcome. Period 2 is `ping_pong`, period 1 `generic_repeat`.
//! Stability is judged on the newest laps the critical count spans, whatever the kinds of the
//! calls (a round of edits that restores what it undid is stuck too). Without a clean cycle, the
//! stale rule (`stale_finding`) refuses a stretch of calls that returned nothing new while going
//! round three or more calls.

use super::{periodic_finding, periodic_or_stale, stale_finding, Proposal, Window};
use crate::config::Config;
use crate::verdict::{DetectorId, Finding};

const MIN_PERIOD: usize = 3;

pub fn detect(window: &Window, proposal: &Proposal, config: &Config) -> Option<Finding> {
    if !config.detectors.on(DetectorId::Cycle) {
        return None;
    }
    let max_period = config.max_cycle_period as usize;
    let periodic = window
        .pattern_in(MIN_PERIOD..=max_period)
        .and_then(|(period, tail, count)| {
            periodic_finding(
                DetectorId::Cycle,
                tail,
                period,
                count,
                proposal,
                config,
                None,
            )
        });
    periodic_or_stale(periodic, || {
        stale_finding(DetectorId::Cycle, window, proposal, MIN_PERIOD..=usize::MAX)
    })
}
