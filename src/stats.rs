//! Counters for metrics and logs: calls seen and verdicts by action, level and detector. Counted
//! in fixed arrays on every verdict; the names are attached only in the `Stats` report.

use crate::json_writer::JsonObject;
use crate::verdict::{Action, Answer, DetectorId, Level, Verdict};

/// The report: counters by name (every name present, zero or not, names in sorted order). In
/// JSON (`to_json`) the fields are camelCase and the named counts objects.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    pub checks: u64,
    pub records: u64,
    pub by_action: Vec<(&'static str, u64)>,
    pub by_level: Vec<(&'static str, u64)>,
    pub by_detector: Vec<(&'static str, u64)>,
    pub live_runs: u64,
    pub evicted_runs: u64,
}

impl Stats {
    /// The JSON text the host receives.
    pub fn to_json(&self) -> String {
        let named = |counts: &[(&'static str, u64)]| {
            let mut o = JsonObject::new();
            for (name, count) in counts {
                o.uint(name, *count);
            }
            o
        };
        let mut o = JsonObject::new();
        o.uint("checks", self.checks);
        o.uint("records", self.records);
        o.object("byAction", named(&self.by_action));
        o.object("byLevel", named(&self.by_level));
        o.object("byDetector", named(&self.by_detector));
        o.uint("liveRuns", self.live_runs);
        o.uint("evictedRuns", self.evicted_runs);
        o.finish()
    }
}

/// Names in sorted order, each with its counter's index in `Counters`.
const ACTIONS: [(&str, usize); 4] = [("allow", 0), ("block", 2), ("stop", 3), ("warn", 1)];
const LEVELS: [(&str, usize); 4] = [
    ("circuit_break", 3),
    ("critical", 2),
    ("ok", 0),
    ("warning", 1),
];
/// Detectors in the sorted order of their names (the counters follow `DetectorId::ALL`).
const DETECTORS: [DetectorId; 12] = [
    DetectorId::ArgumentChurn,
    DetectorId::Cycle,
    DetectorId::ErrorRepeat,
    DetectorId::GenericRepeat,
    DetectorId::GlobalCircuitBreaker,
    DetectorId::KnownPollNoProgress,
    DetectorId::MaxTurns,
    DetectorId::PingPong,
    DetectorId::PostCompactionLoop,
    DetectorId::Stall,
    DetectorId::ToolCap,
    DetectorId::UnknownToolRepeat,
];

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
    pub fn count_answer(&mut self, answer: &Answer) {
        match answer {
            Answer::Allow => {
                bump(&mut self.by_action, 0);
                bump(&mut self.by_level, 0);
            }
            Answer::Verdict(verdict) => self.count(verdict),
        }
    }

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
        let named = |names: &[(&'static str, usize)], counts: &[u64]| {
            names
                .iter()
                .map(|(name, index)| (*name, counts.get(*index).copied().unwrap_or(0)))
                .collect()
        };
        let by_detector = DETECTORS
            .iter()
            .map(|id| {
                let index = DetectorId::ALL.iter().position(|d| d == id);
                let count = index.and_then(|i| self.by_detector.get(i)).copied();
                (id.as_str(), count.unwrap_or(0))
            })
            .collect();
        Stats {
            checks: self.checks,
            records: self.records,
            by_action: named(&ACTIONS, &self.by_action),
            by_level: named(&LEVELS, &self.by_level),
            by_detector,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_tables_are_sorted_and_complete() {
        let sorted = |names: &[&str]| names.windows(2).all(|w| w.first() < w.last());
        let actions: Vec<&str> = ACTIONS.iter().map(|(n, _)| *n).collect();
        let levels: Vec<&str> = LEVELS.iter().map(|(n, _)| *n).collect();
        let detectors: Vec<&str> = DETECTORS.iter().map(|d| d.as_str()).collect();
        assert!(sorted(&actions) && sorted(&levels) && sorted(&detectors));
        for action in [Action::Allow, Action::Warn, Action::Block, Action::Stop] {
            let mut counters = Counters::default();
            let mut verdict = Verdict::allow("t", None);
            verdict.action = action;
            counters.count(&verdict);
            let report = counters.report(0, 0);
            assert!(report.by_action.contains(&(action.as_str(), 1)));
        }
        for level in [
            Level::Ok,
            Level::Warning,
            Level::Critical,
            Level::CircuitBreak,
        ] {
            let mut counters = Counters::default();
            let mut verdict = Verdict::allow("t", None);
            verdict.level = level;
            counters.count(&verdict);
            assert!(counters
                .report(0, 0)
                .by_level
                .contains(&(level.as_str(), 1)));
        }
        for id in DetectorId::ALL {
            assert!(DETECTORS.contains(&id));
            let mut counters = Counters::default();
            let mut verdict = Verdict::allow("t", None);
            verdict.detector = Some(id);
            counters.count(&verdict);
            assert!(counters
                .report(0, 0)
                .by_detector
                .contains(&(id.as_str(), 1)));
        }
    }

    #[test]
    fn json_has_every_name_in_sorted_order() {
        let mut counters = Counters {
            checks: 2,
            records: 1,
            ..Counters::default()
        };
        let mut stop = Verdict::allow("t", None);
        stop.action = Action::Stop;
        stop.level = Level::CircuitBreak;
        stop.detector = Some(DetectorId::MaxTurns);
        counters.count(&stop);
        counters.count(&Verdict::allow("t", None));
        assert_eq!(
            counters.report(3, 4).to_json(),
            "{\"checks\":2,\"records\":1,\
             \"byAction\":{\"allow\":1,\"block\":0,\"stop\":1,\"warn\":0},\
             \"byLevel\":{\"circuit_break\":1,\"critical\":0,\"ok\":1,\"warning\":0},\
             \"byDetector\":{\"argument_churn\":0,\"cycle\":0,\"error_repeat\":0,\"generic_repeat\":0,\
             \"global_circuit_breaker\":0,\"known_poll_no_progress\":0,\"max_turns\":1,\
             \"ping_pong\":0,\"post_compaction_loop\":0,\"stall\":0,\"tool_cap\":0,\
             \"unknown_tool_repeat\":0},\"liveRuns\":3,\"evictedRuns\":4}"
        );
    }
}
