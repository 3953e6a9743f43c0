//! `max_turns`: a hard cap on calls per run (`maxTurns`, off in every preset). The call
//! after the cap stops the run; host-reported progress does not reset it.

use super::{Proposal, Window};
use crate::config::Config;
use crate::verdict::{DetectorId, Finding, Level};

pub fn detect(window: &Window, _proposal: &Proposal, config: &Config) -> Option<Finding> {
    let threshold = config.max_turns?;
    (window.run.turns >= threshold).then(|| {
        Finding::new(
            DetectorId::MaxTurns,
            Level::CircuitBreak,
            window.run.turns,
            threshold,
        )
    })
}
