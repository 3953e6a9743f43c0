//! Counters for metrics and logs: calls seen and verdicts by action, level and detector. Counted
//! in fixed arrays on every verdict; the names are attached only in the `Stats` report.

use crate::json::writer::JsonObject;
use crate::verdict::{Action, Answer, DetectorId, Level, Verdict};

/// Tool names counted under their own name in the per-tool call counters; calls of any further
/// tool are counted under [`OTHER_TOOLS`]. Tool names come from the model (which may invent
/// them), so this bounds the number of metric series.
pub const MAX_TOOL_NAMES: usize = 100;
/// The name the per-tool counters use for tools beyond the first [`MAX_TOOL_NAMES`].
pub const OTHER_TOOLS: &str = "_other";

/// The report: counters by name (every name present, zero or not, names in sorted order). In
/// JSON (`to_json`) the fields are camelCase and the named counts objects.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// `check` calls answered.
    pub checks: u64,
    /// `record` calls answered.
    pub records: u64,
    /// Verdicts by action name.
    pub by_action: Vec<(&'static str, u64)>,
    /// Verdicts by level name.
    pub by_level: Vec<(&'static str, u64)>,
    /// Verdicts by detector id.
    pub by_detector: Vec<(&'static str, u64)>,
    /// Runs in memory now.
    pub live_runs: u64,
    /// Runs evicted to keep `maxRuns`.
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
/// Every detector in the sorted order of their names, the order reports list them in (the counters
/// follow `DetectorId::ALL`).
fn detectors_by_name() -> [DetectorId; DetectorId::ALL.len()] {
    let mut ids = DetectorId::ALL;
    ids.sort_unstable_by_key(|id| id.as_str());
    ids
}

/// The live counters.
#[derive(Debug, Clone, Default)]
pub struct Counters {
    pub checks: u64,
    pub records: u64,
    by_action: [u64; 4],
    by_level: [u64; 4],
    by_detector: [u64; DetectorId::ALL.len()],
    /// Check verdicts by action index, per tool name (sorted by name; a Vec, not a map: at most
    /// `MAX_TOOL_NAMES + 1` entries, and a map's code would cost the `.wasm` kilobytes).
    calls_by_tool: Vec<(Box<str>, [u64; 4])>,
    /// Verdicts naming a detector, by detector (index in `DetectorId::ALL`), level and action.
    interventions: [[[u64; 4]; 4]; DetectorId::ALL.len()],
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

    #[inline(never)]
    pub fn count(&mut self, verdict: &Verdict) {
        let action = action_index(verdict.action);
        let level = level_index(verdict.level);
        bump(&mut self.by_action, action);
        bump(&mut self.by_level, level);
        if let Some(id) = verdict.detector {
            let index = DetectorId::ALL.iter().position(|d| *d == id);
            if let Some(index) = index {
                bump(&mut self.by_detector, index);
                let counts = self.interventions.get_mut(index);
                if let Some(counts) = counts.and_then(|by_level| by_level.get_mut(level)) {
                    bump(counts, action);
                }
            }
        }
    }

    /// Counts a check's answer under the call's tool name (or [`OTHER_TOOLS`] once
    /// [`MAX_TOOL_NAMES`] names are counted).
    pub fn count_call(&mut self, tool: &str, answer: &Answer) {
        let action = match answer {
            Answer::Allow => 0,
            Answer::Verdict(verdict) => action_index(verdict.action),
        };
        let find = |calls: &[(Box<str>, [u64; 4])], name: &str| {
            calls.binary_search_by(|(n, _)| (**n).cmp(name))
        };
        let mut position = find(&self.calls_by_tool, tool);
        let mut name = tool;
        if position.is_err() && self.calls_by_tool.len() >= MAX_TOOL_NAMES {
            name = OTHER_TOOLS;
            position = find(&self.calls_by_tool, name);
        }
        let index = match position {
            Ok(index) => index,
            Err(index) => {
                self.calls_by_tool.insert(index, (name.into(), [0; 4]));
                index
            }
        };
        if let Some((_, counts)) = self.calls_by_tool.get_mut(index) {
            bump(counts, action);
        }
    }

    /// Calls `f(tool, action, count)` for each non-zero check count, by tool name (sorted) and
    /// action name.
    pub fn for_each_call(&self, mut f: impl FnMut(&str, &'static str, u64)) {
        for (tool, counts) in &self.calls_by_tool {
            for (action, index) in ACTIONS {
                let count = count_at(counts, index);
                if count > 0 {
                    f(tool, action, count);
                }
            }
        }
    }

    /// Calls `f(detector, level, action, count)` for each non-zero count of verdicts naming a
    /// detector, in the sorted order of the names.
    pub fn for_each_intervention(
        &self,
        mut f: impl FnMut(&'static str, &'static str, &'static str, u64),
    ) {
        for id in detectors_by_name() {
            let index = DetectorId::ALL.iter().position(|d| *d == id);
            let Some(by_level) = index.and_then(|i| self.interventions.get(i)) else {
                continue;
            };
            for (level, l) in LEVELS {
                for (action, a) in ACTIONS {
                    let count = by_level.get(l).map_or(0, |counts| count_at(counts, a));
                    if count > 0 {
                        f(id.as_str(), level, action, count);
                    }
                }
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
        let by_detector = detectors_by_name()
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

fn action_index(action: Action) -> usize {
    match action {
        Action::Allow => 0,
        Action::Warn => 1,
        Action::Block => 2,
        Action::Stop => 3,
    }
}

fn level_index(level: Level) -> usize {
    match level {
        Level::Ok => 0,
        Level::Warning => 1,
        Level::Critical => 2,
        Level::CircuitBreak => 3,
    }
}

fn count_at(counts: &[u64], index: usize) -> u64 {
    counts.get(index).copied().unwrap_or(0)
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
        let detectors: Vec<&str> = detectors_by_name().iter().map(|d| d.as_str()).collect();
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
            assert!(detectors_by_name().contains(&id));
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
             \"ping_pong\":0,\"post_compaction_loop\":0,\"shared_cause\":0,\"stall\":0,\
             \"tool_cap\":0,\"transient_failure\":0,\"unknown_tool_repeat\":0},\"liveRuns\":3,\
             \"evictedRuns\":4}"
        );
    }
}
