//! `unknown_tool_repeat`: the model keeps calling a tool that does not exist. Counts the window's
//! calls of the tool that were reported missing, plus refused calls of it after the first report.
//! A failed call of a tool whose name carries model formatting reports it missing (see
//! `outcome::carries_model_formatting`), and the refusal says so.

use super::{Proposal, Window};
use crate::config::Config;
use crate::record::missing_tool::carries_model_formatting;
use crate::verdict::{Basis, DetectorId, Finding, Level};

pub fn detect(window: &Window, proposal: &Proposal, config: &Config) -> Option<Finding> {
    let tool = proposal.tool_index?;
    // Nearly always no tool was reported missing: the run's count says so without a scan.
    if !window.run.has_missing_reports() {
        return None;
    }
    let records = window.run.records();
    let first = records
        .iter()
        .position(|r| r.tool() == tool && r.reported_missing())?;
    let count = records
        .get(first..)?
        .iter()
        .filter(|r| r.tool() == tool && (r.reported_missing() || r.is_vetoed()))
        .count();
    let count = u32::try_from(count).unwrap_or(u32::MAX);
    let threshold = config.unknown_tool_threshold;
    (count >= threshold).then(|| {
        let found = Finding::new(
            DetectorId::UnknownToolRepeat,
            Level::Critical,
            count,
            threshold,
        );
        match carries_model_formatting(proposal.tool) {
            true => found.on(Basis::ModelFormatting),
            false => found,
        }
    })
}
