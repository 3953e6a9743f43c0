//! Counters for metrics and logs: calls seen and verdicts by action, level and detector. Counted
//! in fixed arrays on every verdict; the name-keyed maps exist only in the `Stats` report.

use crate::verdict::{Action, DetectorId, Level, Verdict};
use serde::Serialize;
use std::collections::BTreeMap;

/// The report: counters by name (every name present, zero or not).
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

const ACTIONS: [&str; 4] = ["allow", "warn", "block", "stop"];
const LEVELS: [&str; 4] = ["ok", "warning", "critical", "circuit_break"];

/// The live counters.
#[derive(Debug, Clone, Default)]
pub struct Counters {
    pub checks: u64,
    pub records: u64,
    by_action: [u64; 4],
    by_level: [u64; 4],
    by_detector: [u64; DetectorId::ALL.len()],
}

impl Counters {
    pub fn count(&mut self, verdict: &Verdict) {
        let action = match verdict.action {
            Action::Allow => 0,
            Action::Warn => 1,
            Action::Block => 2,
            Action::Stop => 3,
        };
        let level = match verdict.level {
            Level::Ok => 0,
            Level::Warning => 1,
            Level::Critical => 2,
            Level::CircuitBreak => 3,
        };
        bump(&mut self.by_action, action);
        bump(&mut self.by_level, level);
        if let Some(id) = verdict.detector {
            let index = DetectorId::ALL.iter().position(|d| *d == id);
            if let Some(index) = index {
                bump(&mut self.by_detector, index);
            }
        }
    }

    /// The report, with the run table's figures.
    pub fn report(&self, live_runs: u64, evicted_runs: u64) -> Stats {
        // Inserted one by one: collecting into a BTreeMap would link a sort just for this.
        let named = |names: &[&'static str], counts: &[u64]| {
            let mut map = BTreeMap::new();
            for (name, count) in names.iter().zip(counts) {
                map.insert(*name, *count);
            }
            map
        };
        let detectors: Vec<&'static str> = DetectorId::ALL.iter().map(|d| d.as_str()).collect();
        Stats {
            checks: self.checks,
            records: self.records,
            by_action: named(&ACTIONS, &self.by_action),
            by_level: named(&LEVELS, &self.by_level),
            by_detector: named(&detectors, &self.by_detector),
            live_runs,
            evicted_runs,
        }
    }
}

fn bump(counts: &mut [u64], index: usize) {
    if let Some(count) = counts.get_mut(index) {
        *count += 1;
    }
}
