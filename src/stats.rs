//! Counters for metrics and logs: calls seen and verdicts by action, level and detector.

use crate::verdict::{Action, DetectorId, Level, Verdict};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub checks: u64,
    pub records: u64,
    pub by_action: BTreeMap<&'static str, u64>,
    pub by_level: BTreeMap<&'static str, u64>,
    pub by_detector: BTreeMap<&'static str, u64>,
    pub live_runs: u64,
    pub evicted_runs: u64,
}

impl Stats {
    pub fn new() -> Self {
        let mut stats = Stats::default();
        for action in ["allow", "warn", "block", "stop"] {
            stats.by_action.insert(action, 0);
        }
        for level in ["ok", "warning", "critical", "circuit_break"] {
            stats.by_level.insert(level, 0);
        }
        for id in DetectorId::ALL {
            stats.by_detector.insert(id.as_str(), 0);
        }
        stats
    }

    pub fn count(&mut self, verdict: &Verdict) {
        let action = match verdict.action {
            Action::Allow => "allow",
            Action::Warn => "warn",
            Action::Block => "block",
            Action::Stop => "stop",
        };
        let level = match verdict.level {
            Level::Ok => "ok",
            Level::Warning => "warning",
            Level::Critical => "critical",
            Level::CircuitBreak => "circuit_break",
        };
        *self.by_action.entry(action).or_default() += 1;
        *self.by_level.entry(level).or_default() += 1;
        if let Some(id) = verdict.detector {
            *self.by_detector.entry(id.as_str()).or_default() += 1;
        }
    }
}
