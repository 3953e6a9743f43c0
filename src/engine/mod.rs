//! The seam between the guard and its engines: `Engine` is the one place that knows there are two.
//! The default engine (`native`) runs the recalibrated detectors of `src/detectors/` over windows of
//! `src/run/`; `preset: "openclaw"` runs OpenClaw's own detection (`src/openclaw/`). Both keep their
//! runs in one `RunTable` (one eviction rule, one pair of counters) and answer every operation of
//! the API the same way: the guard parses and counts, the engine decides. A third engine is a
//! variant here and an arm in each method. Each check and record runs with its run's window hash in
//! scope (`json::window_hash`): the run's keyed digest of arguments and outcomes.

mod call_facts;
pub mod native;
mod stop_cause;

use crate::config::Config;
use crate::error::GuardError;
use crate::json::window_hash::{in_scope, WindowHash};
use crate::openclaw::OpenClawEngine;
use crate::record::input::{CallInput, ReceivedOutcome};
use crate::verdict::Answer;
use native::NativeEngine;

/// The engine a guard's config chose.
pub enum Engine {
    /// `preset` "default" or "strict" (or none).
    Native(NativeEngine),
    /// `preset: "openclaw"`.
    OpenClaw(OpenClawEngine),
}

impl Engine {
    /// The engine for `config`, keeping at most `maxRuns` runs.
    pub fn new(config: &Config) -> Engine {
        match config.openclaw {
            true => Engine::OpenClaw(OpenClawEngine::new(config.max_runs)),
            false => Engine::Native(NativeEngine::new(config.max_runs)),
        }
    }

    /// Whether the engine keeps call ids, to name the earlier call a result repeats (`sameAs`).
    pub fn keeps_call_ids(&self) -> bool {
        matches!(self, Engine::Native(_))
    }

    /// Before dispatch: may the call run? A disabled guard allows every call and keeps nothing.
    pub fn check(
        &mut self,
        config: &Config,
        call: &CallInput,
        now_ms: f64,
    ) -> Result<Answer, GuardError> {
        if !config.enabled {
            return Ok(Answer::Allow);
        }
        in_scope(self.window_hash(call.run_id.as_deref()), || match self {
            Engine::Native(engine) => engine.check(config, call, call.at.unwrap_or(now_ms)),
            Engine::OpenClaw(engine) => engine.check(config, call),
        })
    }

    /// After the tool returned or threw: `None` when the engine needs the JSON record (a result
    /// handed over field by field that it cannot place); a disabled guard allows and keeps nothing.
    pub fn record(
        &mut self,
        config: &Config,
        outcome: &ReceivedOutcome,
    ) -> Result<Option<Answer>, GuardError> {
        if !config.enabled {
            return Ok(Some(Answer::Allow));
        }
        in_scope(
            self.window_hash(outcome.call.run_id.as_deref()),
            || match self {
                Engine::Native(engine) => engine.record(config, outcome),
                Engine::OpenClaw(engine) => engine.record(config, outcome),
            },
        )
    }

    /// What the run's window digests with (`RunTable::window_hash`).
    fn window_hash(&self, run_id: Option<&str>) -> WindowHash {
        match self {
            Engine::Native(engine) => engine.runs.window_hash(run_id),
            Engine::OpenClaw(engine) => engine.runs.window_hash(run_id),
        }
    }

    /// The host compacted the run's context: the post-compaction guard watches what comes next.
    pub fn compacted(&mut self, config: &Config, run_id: Option<&str>) {
        if !config.enabled || !config.post_compaction_guard.enabled {
            return;
        }
        match self {
            Engine::Native(engine) => engine.compacted(config, run_id),
            Engine::OpenClaw(engine) => engine.compacted(config, run_id),
        }
    }

    /// The host observed progress: the default engine's no-progress streaks restart. OpenClaw's
    /// detection has no such signal (its counts only look at the window).
    pub fn progress(&mut self, run_id: Option<&str>) {
        match self {
            Engine::Native(engine) => engine.progress(run_id),
            Engine::OpenClaw(_) => {}
        }
    }

    /// Forget a run.
    pub fn end_run(&mut self, run_id: Option<&str>) {
        match self {
            Engine::Native(engine) => engine.runs.remove(run_id),
            Engine::OpenClaw(engine) => engine.runs.remove(run_id),
        }
    }

    /// A snapshot of one run, in the engine's format (docs/snapshot-format.md).
    pub fn export_run(&self, run_id: Option<&str>) -> Vec<u8> {
        match self {
            Engine::Native(engine) => engine.runs.export(run_id),
            Engine::OpenClaw(engine) => engine.runs.export(run_id),
        }
    }

    /// Restores a run from `export_run`'s bytes, its window cut to `historySize`; returns its id.
    pub fn import_run(
        &mut self,
        config: &Config,
        bytes: &[u8],
    ) -> Result<Option<String>, GuardError> {
        let history_size = config.history_size as usize;
        match self {
            Engine::Native(engine) => engine.runs.import(bytes, history_size),
            Engine::OpenClaw(engine) => engine.runs.import(bytes, history_size),
        }
    }

    /// The live runs and the runs evicted so far.
    pub fn run_counts(&self) -> (u64, u64) {
        match self {
            Engine::Native(engine) => engine.runs.counts(),
            Engine::OpenClaw(engine) => engine.runs.counts(),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use crate::guard::Guard;
    use crate::json::window_hash::{self, WindowHash};
    use crate::openclaw::OpenClawRun;
    use crate::run::state::Run;
    use crate::run::table::RunSnapshot;
    use serde_json::json;

    /// The `n`th identical `get_task` call of run `r`, and its outcome.
    fn call(n: usize, outcome: bool) -> String {
        let mut call = json!({"runId": "r", "tool": "get_task", "args": {"id": "T-1"}, "callId": format!("c{n}")});
        if outcome {
            call["result"] = json!("Task T-1 updated.");
        }
        call.to_string()
    }

    /// The actions of calls `from..to` (check, then record when allowed).
    fn actions(guard: &mut Guard, calls: std::ops::Range<usize>) -> Vec<String> {
        let mut seen = Vec::new();
        for n in calls {
            let checked = guard.check(&call(n, false), 1000.0 * n as f64).unwrap();
            let action = format!("{:?}", checked.action);
            let refused = action == "Block" || action == "Stop";
            seen.push(action);
            if !refused {
                let recorded = guard.record(&call(n, true), 1000.0 * n as f64).unwrap();
                seen.push(format!("{:?}", recorded.action));
            }
        }
        seen
    }

    #[test]
    fn a_run_moved_to_an_instance_with_another_secret_keeps_its_key() {
        for config in [json!(null), json!({"preset": "openclaw"})] {
            window_hash::set_secret(Some([11, 12]));
            let mut straight = Guard::new(&config).unwrap();
            let expected = actions(&mut straight, 0..30);
            assert!(expected.iter().any(|a| a == "Block"), "{expected:?}");

            let mut first = Guard::new(&config).unwrap();
            actions(&mut first, 0..3);
            let bytes = first.export_run(Some("r"));
            window_hash::set_secret(Some([21, 22]));
            let mut second = Guard::new(&config).unwrap();
            assert_eq!(second.import_run(&bytes).unwrap().as_deref(), Some("r"));
            assert_eq!(actions(&mut second, 3..30), expected[6..], "{config}");
            // The moved run's snapshot carries the key it came with; a new run of that id gets
            // this instance's own.
            let moved = second.export_run(Some("r"));
            assert_eq!(window_hash_of(&moved), window_hash_of(&bytes));
            assert!(matches!(window_hash_of(&moved), WindowHash::Keyed(_)));
            second.end_run(Some("r"));
            let fresh = second.export_run(Some("r"));
            assert_ne!(window_hash_of(&fresh), window_hash_of(&bytes), "{config}");
        }
        window_hash::set_secret(None);
    }

    /// The window hash a snapshot holds, by the decoder of its format.
    fn window_hash_of(bytes: &[u8]) -> WindowHash {
        let default = <Run as RunSnapshot>::decode(bytes).map(|(_, _, hash)| hash);
        default
            .or_else(|_| <OpenClawRun as RunSnapshot>::decode(bytes).map(|(_, _, hash)| hash))
            .unwrap()
    }
}
