//! `tool_cap`: a per-tool rate cap (`tools.<name>.cap = {calls, windowMs}`). The (calls+1)-th call
//! within `windowMs` (by the calls' `at`) is refused, saying when the tool may be called again.
//! Refused calls do not use up the cap; caps are per run; the count reported is `calls`.

use super::{Proposal, Window};
use crate::config::Config;
use crate::verdict::{DetectorId, Finding, Level};

pub fn detect(window: &Window, proposal: &Proposal, _config: &Config) -> Option<Finding> {
    let cap = proposal.cap?;
    let at = proposal.at?;
    let (recent, oldest) = window.run.cap_times(proposal.tool)?.within(at, cap.window_ms);
    let count = u32::try_from(recent).unwrap_or(u32::MAX);
    if count < cap.calls {
        return None;
    }
    let mut finding = Finding::new(DetectorId::ToolCap, Level::Critical, count, cap.calls);
    finding.retry_after_ms = Some((oldest + cap.window_ms - at).max(0.0));
    finding.window_ms = Some(cap.window_ms);
    Some(finding)
}
