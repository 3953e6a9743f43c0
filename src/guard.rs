//! The guard: parses records, keeps the run table, runs the detectors and turns findings into
//! verdicts. This is the whole native API; the wasm bindings only translate to and from it.

use crate::canonical::{digest_json, Digest, KeepAll};
use crate::config::Config;
use crate::detectors::{decide, Proposal};
use crate::error::GuardError;
use crate::history::{CallRecord, CompactionWatch, RecordState, Run};
use crate::input::{parse_call, parse_outcome, CallInput};
use crate::outcome::{digest_outcome, without_pointers, OutcomeDigest, ToolVolatileKeys};
use crate::runs::RunTable;
use crate::snapshot;
use crate::stats::Stats;
use crate::tools::kind_of;
use crate::verdict::{Action, DetectorId, Finding, Level, Verdict};
use serde_json::Value;

pub struct Guard {
    config: Config,
    runs: RunTable,
    stats: Stats,
}

impl Guard {
    /// A guard with `config` (a JSON object; `null` for all defaults).
    pub fn new(config: &Value) -> Result<Guard, GuardError> {
        let config = Config::from_json(config)?;
        Ok(Guard {
            runs: RunTable::new(config.max_runs),
            config,
            stats: Stats::new(),
        })
    }

    /// A guard from config JSON text.
    pub fn from_config_text(text: &str) -> Result<Guard, GuardError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| GuardError::config("", format!("config is not valid JSON: {e}")))?;
        Guard::new(&value)
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Before dispatch: may the call run? `now_ms` is used when the call has no `at`.
    pub fn check(&mut self, call_json: &str, now_ms: f64) -> Result<Verdict, GuardError> {
        let call = parse_call(call_json, self.config.max_record_bytes)?;
        self.stats.checks += 1;
        let verdict = self.check_call(&call, now_ms);
        self.stats.count(&verdict);
        Ok(verdict)
    }

    /// After the tool returned or threw: records the outcome and says whether to warn the model.
    pub fn record(&mut self, outcome_json: &str, now_ms: f64) -> Result<Verdict, GuardError> {
        let input = parse_outcome(outcome_json, self.config.max_record_bytes)?;
        self.stats.records += 1;
        let verdict = self.record_outcome(
            &input.call,
            input.result.as_ref(),
            input.error.as_ref(),
            now_ms,
        );
        self.stats.count(&verdict);
        Ok(verdict)
    }

    /// The host compacted the run's context: arm the post-compaction guard.
    pub fn compacted(&mut self, run_id: Option<&str>) {
        let guard = &self.config.post_compaction_guard;
        if !self.config.enabled || !guard.enabled {
            return;
        }
        let watch = CompactionWatch {
            remaining: guard.window_size,
            first: None,
            identical: 0,
        };
        self.runs.get_or_create(run_id).compaction = Some(watch);
    }

    /// The host observed progress in the run: no-progress streaks restart.
    pub fn progress(&mut self, run_id: Option<&str>) {
        if let Some(run) = self.runs.get_mut(run_id) {
            run.mark_progress();
        }
    }

    /// Forget a run.
    pub fn end_run(&mut self, run_id: Option<&str>) {
        self.runs.remove(run_id);
    }

    /// A snapshot of one run's state (fingerprints and counters only); an unknown run gives the
    /// snapshot of an empty run.
    pub fn export_run(&self, run_id: Option<&str>) -> Vec<u8> {
        match self.runs.peek(run_id) {
            Some(run) => snapshot::encode(run_id, run),
            None => snapshot::encode(run_id, &Run::default()),
        }
    }

    /// Restores a run from `export_run`'s bytes (replacing any run with that id); returns its id.
    /// The window is cut to this guard's `historySize`.
    pub fn import_run(&mut self, bytes: &[u8]) -> Result<Option<String>, GuardError> {
        let (run_id, mut run) = snapshot::decode(bytes)?;
        while run.records.len() > self.config.history_size as usize {
            run.records.pop_front();
        }
        *self.runs.get_or_create(run_id.as_deref()) = run;
        Ok(run_id)
    }

    pub fn stats(&self) -> Stats {
        let mut stats = self.stats.clone();
        stats.live_runs = self.runs.live_runs() as u64;
        stats.evicted_runs = self.runs.evicted();
        stats
    }

    /// The proposal for `call`, with its per-tool settings resolved.
    fn proposal<'a>(
        config: &Config,
        run: &Run,
        call: &'a CallInput,
        args: Digest,
        now_ms: f64,
    ) -> Proposal<'a> {
        let settings = config.tools.get(&call.tool);
        let (warning_threshold, critical_threshold) = config.thresholds_for(&call.tool);
        Proposal {
            tool: &call.tool,
            tool_index: run.find_tool(&call.tool),
            args,
            kind: kind_of(&call.tool, &call.args, settings, &config.poll_tools),
            at: call.at.unwrap_or(now_ms),
            warning_threshold,
            critical_threshold,
            cap: settings.and_then(|s| s.cap),
        }
    }

    fn check_call(&mut self, call: &CallInput, now_ms: f64) -> Verdict {
        let run_id = call.run_id.as_deref();
        if !self.config.enabled {
            return Verdict::allow(&call.tool, run_id);
        }
        let args = digest_json(&call.args, &KeepAll);
        let config = &self.config;
        let history_size = config.history_size as usize;
        let run = self.runs.get_or_create(run_id);
        let proposal = Self::proposal(config, run, call, args, now_ms);
        let (verdict, warned) = match decide(run, &proposal, config) {
            None => (Verdict::allow(&call.tool, run_id), None),
            Some(found) => {
                let warned = (found.level == Level::Warning).then_some(found.detector);
                (Verdict::from_finding(&found, &call.tool, run_id), warned)
            }
        };
        let verdict = verdict.under_policy(config.policy);
        let vetoed = matches!(verdict.action, Action::Block | Action::Stop);
        run.turns = run.turns.saturating_add(1);
        if let (Some(cap), false) = (proposal.cap, vetoed) {
            run.log_capped_call(&call.tool, proposal.at, cap.calls);
        }
        let record = CallRecord {
            seq: 0,
            tool: run.intern_tool(&call.tool, history_size),
            args,
            call_id: call.call_id.as_deref().map(call_id_hash),
            at: proposal.at,
            state: RecordState::Pending,
            warned,
            same_outcome_run: 0,
            no_progress: 0,
        };
        let index = run.push(record, history_size);
        if vetoed {
            run.settle(index, RecordState::Vetoed);
        }
        verdict
    }

    fn record_outcome(
        &mut self,
        call: &CallInput,
        result: Option<&Value>,
        error: Option<&Value>,
        now_ms: f64,
    ) -> Verdict {
        let run_id = call.run_id.as_deref();
        if !self.config.enabled {
            return Verdict::allow(&call.tool, run_id);
        }
        let config = &self.config;
        let args = digest_json(&call.args, &KeepAll);
        let outcome = digest_tool_outcome(config, call, result, error);
        let history_size = config.history_size as usize;
        let run = self.runs.get_or_create(run_id);
        let tool = run.intern_tool(&call.tool, history_size);
        let call_id = call.call_id.as_deref().map(call_id_hash);
        let pending = call_id
            .and_then(|id| run.find_pending(Some(id), tool, &args))
            .or_else(|| run.find_pending(None, tool, &args));
        let index = match pending {
            Some(index) => index,
            None => run.push(
                CallRecord {
                    seq: 0,
                    tool,
                    args,
                    call_id,
                    at: call.at.unwrap_or(now_ms),
                    state: RecordState::Pending,
                    warned: None,
                    same_outcome_run: 0,
                    no_progress: 0,
                },
                history_size,
            ),
        };
        run.settle(
            index,
            RecordState::Completed {
                outcome: outcome.digest,
                is_error: outcome.is_error,
                missing_tool: outcome.missing_tool,
            },
        );
        if config.post_compaction_guard.enabled {
            let triple = (call.tool.clone(), args, outcome.digest);
            if let Some(found) =
                post_compaction_step(run, triple, config.post_compaction_guard.window_size)
            {
                return Verdict::from_finding(&found, &call.tool, run_id)
                    .under_policy(config.policy);
            }
        }
        let next_identical = Self::proposal(config, run, call, args, now_ms);
        let verdict = match decide(run, &next_identical, config) {
            Some(found) if found.level >= Level::Critical => {
                Verdict::forecast(&found, &call.tool, run_id)
            }
            _ => Verdict::allow(&call.tool, run_id),
        };
        verdict.under_policy(config.policy)
    }
}

/// The outcome digest of `call`, after the tool's own ignored keys and JSON pointers.
fn digest_tool_outcome(
    config: &Config,
    call: &CallInput,
    result: Option<&Value>,
    error: Option<&Value>,
) -> OutcomeDigest {
    let settings = config.tools.get(&call.tool);
    let keys = ToolVolatileKeys {
        global: &config.volatile_keys,
        tool: settings.map_or(&[][..], |s| &s.ignore_keys),
    };
    match settings.filter(|s| !s.ignore_pointers.is_empty()) {
        None => digest_outcome(&call.tool, &call.args, result, error, &keys),
        Some(settings) => {
            let strip = |v: &Value| without_pointers(v, &settings.ignore_pointers);
            let (result, error) = (result.map(strip), error.map(strip));
            digest_outcome(
                &call.tool,
                &call.args,
                result.as_ref(),
                error.as_ref(),
                &keys,
            )
        }
    }
}

/// Feeds one completion to an armed post-compaction watch; fires when all `window` completions
/// after compaction are the same (tool, args, outcome) triple.
fn post_compaction_step(
    run: &mut Run,
    triple: (String, Digest, Digest),
    window: u32,
) -> Option<Finding> {
    let watch = run.compaction.as_mut()?;
    match &watch.first {
        None => {
            watch.first = Some(triple);
            watch.identical = 1;
        }
        Some(first) if *first == triple => watch.identical += 1,
        Some(_) => {}
    }
    watch.remaining = watch.remaining.saturating_sub(1);
    let identical = watch.identical;
    if identical >= window {
        run.compaction = None;
        return Some(Finding::new(
            DetectorId::PostCompactionLoop,
            Level::CircuitBreak,
            identical,
            window,
        ));
    }
    if watch.remaining == 0 {
        run.compaction = None;
    }
    None
}

/// FNV-1a: a call id is only matched, never shown, so a small fast hash is enough.
fn call_id_hash(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
