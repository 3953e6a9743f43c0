//! `unknown_tool_repeat`: the model keeps calling a tool that does not exist. Counts the window's
//! calls of the tool that were reported missing, plus refused calls of it after the first report.

use super::{Proposal, Window};
use crate::config::Config;
use crate::verdict::{DetectorId, Finding, Level};

pub fn detect(window: &Window, proposal: &Proposal, config: &Config) -> Option<Finding> {
    let tool = proposal.tool_index?;
    let mut count = 0u32;
    let mut reported = false;
    for record in window.run.records().iter().filter(|r| r.tool() == tool) {
        if record.reported_missing() {
            reported = true;
            count += 1;
        } else if reported && record.is_vetoed() {
            count += 1;
        }
    }
    let threshold = config.unknown_tool_threshold;
    (reported && count >= threshold).then(|| {
        Finding::new(
            DetectorId::UnknownToolRepeat,
            Level::Critical,
            count,
            threshold,
        )
    })
}
