//! The seam between the guard and its engines: `Engine` is the one place that knows there are two.
//! The default engine (`native`) runs the recalibrated detectors of `src/detectors/` over windows of
//! `src/run/`; `preset: "openclaw"` runs OpenClaw's own detection (`src/openclaw/`). Both keep their
//! runs in one `RunTable` (one eviction rule, one pair of counters) and answer every operation of
//! the API the same way: the guard parses and counts, the engine decides. A third engine is a
//! variant here and an arm in each method.

mod call_facts;
pub mod native;
mod stop_cause;

use crate::config::Config;
use crate::error::GuardError;
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
        match self {
            Engine::Native(engine) => engine.check(config, call, call.at.unwrap_or(now_ms)),
            Engine::OpenClaw(engine) => engine.check(config, call),
        }
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
        match self {
            Engine::Native(engine) => engine.record(config, outcome),
            Engine::OpenClaw(engine) => engine.record(config, outcome),
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
