//! The guard: parses records, keeps the run table, runs the detectors and turns findings into
//! verdicts. This is the whole native API; the wasm bindings only translate to and from it.

use crate::config::Config;
use crate::engine::native::NativeEngine;
use crate::engine::Engine;
use crate::error::{ErrorCode, GuardError};
use crate::json::scrub::RawContent;
use crate::record::input::{
    parse_call, parse_outcome, CallFields, CallInput, ReceivedOutcome, Returned,
};
use crate::record::outcome_fields::ResultFields;
use crate::report::stats::{Counters, Stats};
use crate::verdict::{Answer, Verdict};
use serde_json::Value;

pub use crate::engine::native::RecordFingerprints;

/// The guard: one config, the live runs and the counters. Every call takes a record (as JSON
/// text or field by field) and answers with a [`Verdict`] or a [`GuardError`] that leaves the guard
/// unchanged.
pub struct Guard {
    config: Config,
    /// The engine the config chose (`engine::Engine`): it holds the runs and decides.
    engine: Engine,
    stats: Counters,
}

impl Guard {
    /// A guard with `config` (a JSON object; `null` for all defaults).
    pub fn new(config: &Value) -> Result<Guard, GuardError> {
        let config = Config::from_json(config)?;
        Ok(Guard {
            engine: Engine::new(&config),
            config,
            stats: Counters::default(),
        })
    }

    /// Whether record verdicts carry `sameAs`: config `sameAs: true`, and not under
    /// `preset: "openclaw"` (whose own detection keeps no call ids).
    pub fn reports_same_as(&self) -> bool {
        self.config.same_as && self.engine.keeps_call_ids()
    }

    /// The model-facing text a host may put in place of a result that repeats, identically, the
    /// result of the earlier call `call_id` (a record verdict's `sameAs`).
    pub fn same_as_reference(&self, call_id: &str) -> String {
        crate::verdict::messages::same_result_as(call_id)
    }

    /// A guard from config JSON text.
    pub fn from_config_text(text: &str) -> Result<Guard, GuardError> {
        let value =
            crate::json::reader::parse(text, crate::record::input::MAX_DEPTH).map_err(|e| {
                let what = match e {
                    crate::json::reader::JsonError::Syntax(what) => what,
                    crate::json::reader::JsonError::TooDeep => "nested too deep".to_owned(),
                };
                GuardError::new(
                    ErrorCode::InvalidConfig,
                    None,
                    format!("config is not valid JSON: {what}"),
                )
            })?;
        Guard::new(&value)
    }

    /// Before dispatch: may the call run? `now_ms` is used when the call has no `at`.
    pub fn check(&mut self, call_json: &str, now_ms: f64) -> Result<Verdict, GuardError> {
        let call = parse_call(call_json, self.config.max_record_bytes)?;
        let answer = self.check_input(&call, now_ms)?;
        Ok(answer.into_verdict(&call.tool, call.run_id.as_deref()))
    }

    /// `check` of a call handed over field by field. `Ok(None)`: the call is too large to be sure
    /// its JSON record would fit `maxRecordBytes`; an error: the call is not an ordinary one. In
    /// both cases `check` of the JSON record gives the answer (and the exact error).
    pub fn check_fields(
        &mut self,
        fields: &CallFields,
        now_ms: f64,
    ) -> Result<Option<Answer>, GuardError> {
        if !self.fits_any_record(fields.byte_len(), 0) {
            return Ok(None);
        }
        let call = fields.call()?;
        self.check_input(&call, now_ms).map(Some)
    }

    fn check_input(&mut self, call: &CallInput, now_ms: f64) -> Result<Answer, GuardError> {
        let answer = self.engine.check(&self.config, call, now_ms)?;
        self.stats.checks += 1;
        self.stats.count_answer(&answer);
        self.stats.count_call(&call.tool, &answer);
        Ok(answer)
    }

    /// After the tool returned or threw: records the outcome and says whether to warn the model.
    pub fn record(&mut self, outcome_json: &str, now_ms: f64) -> Result<Verdict, GuardError> {
        self.record_with_side_text(outcome_json, None, now_ms)
    }

    /// `record`, with the text (UTF-8 bytes) of the outcome's `textSide` part passed beside the
    /// JSON (so a large text is neither JSON-escaped nor parsed; it is only hashed).
    pub fn record_with_side_text(
        &mut self,
        outcome_json: &str,
        side_text: Option<&[u8]>,
        now_ms: f64,
    ) -> Result<Verdict, GuardError> {
        let input = parse_outcome(outcome_json, self.config.max_record_bytes)?;
        let outcome = ReceivedOutcome {
            call: input.call,
            // Fingerprints only: the parsed result and error are zeroed when dropped.
            returned: Returned::Parsed {
                result: RawContent(input.result),
                error: RawContent(input.error),
                side_text,
            },
            now_ms,
        };
        // Every engine places a parsed outcome (`None` is for one handed over field by field).
        let answer = self.engine.record(&self.config, &outcome)?;
        let call = &outcome.call;
        Ok(self
            .recorded(answer.unwrap_or(Answer::Allow))
            .into_verdict(&call.tool, call.run_id.as_deref()))
    }

    /// `record` of an outcome handed over field by field (a result without an error). `Ok(None)`
    /// and errors as for `check_fields`: `record` of the JSON record gives the answer.
    /// `args_withheld`: the outcome has arguments the host did not pass, trusting the call id to
    /// find its checked call; without one, `Ok(None)` asks for the JSON record.
    pub fn record_fields(
        &mut self,
        fields: &CallFields,
        args_withheld: bool,
        result: &ResultFields,
        now_ms: f64,
    ) -> Result<Option<Answer>, GuardError> {
        let bytes = fields.byte_len() + result.byte_len();
        if !self.fits_any_record(bytes, result.part_count()) {
            return Ok(None);
        }
        let outcome = ReceivedOutcome {
            call: fields.call()?,
            returned: Returned::Fields {
                result,
                args_withheld,
            },
            now_ms,
        };
        let answer = self.engine.record(&self.config, &outcome)?;
        Ok(answer.map(|answer| self.recorded(answer)))
    }

    /// The fingerprints `record` would give this record under this guard's config (volatile keys,
    /// ignored pointers, tool profiles): the call's, and the outcome's when the record has a
    /// `result` or an `error`. Nothing is stored and no counter changes; `side_text` as for
    /// `record_with_side_text`.
    pub fn fingerprint(
        &self,
        record_json: &str,
        side_text: Option<&[u8]>,
    ) -> Result<RecordFingerprints, GuardError> {
        let input = parse_outcome(record_json, self.config.max_record_bytes)?;
        let has_outcome = input.result.is_some() || input.error.is_some();
        let (call, result, error) = (
            input.call,
            RawContent(input.result),
            RawContent(input.error),
        );
        let outcome = has_outcome.then_some((&result, &error));
        NativeEngine::fingerprints(&self.config, &call, outcome, side_text)
    }

    /// Counts a `record` answer.
    fn recorded(&mut self, answer: Answer) -> Answer {
        self.stats.records += 1;
        self.stats.count_answer(&answer);
        answer
    }

    /// Whether any JSON record holding `bytes` of field text in `parts` text parts is within
    /// `maxRecordBytes` (JSON escaping at most sextuples a byte; keys and framing are bounded).
    fn fits_any_record(&self, bytes: usize, parts: usize) -> bool {
        let worst = bytes
            .saturating_mul(6)
            .saturating_add(512)
            .saturating_add(parts.saturating_mul(64));
        worst <= self.config.max_record_bytes as usize
    }

    /// The host compacted the run's context: arm the post-compaction guard.
    pub fn compacted(&mut self, run_id: Option<&str>) {
        self.engine.compacted(&self.config, run_id);
    }

    /// The host observed progress in the run: no-progress streaks restart.
    pub fn progress(&mut self, run_id: Option<&str>) {
        self.engine.progress(run_id);
    }

    /// Forget a run.
    pub fn end_run(&mut self, run_id: Option<&str>) {
        self.engine.end_run(run_id);
    }

    /// A snapshot of one run's state (fingerprints and counters only); an unknown run gives the
    /// snapshot of an empty run.
    pub fn export_run(&self, run_id: Option<&str>) -> Vec<u8> {
        self.engine.export_run(run_id)
    }

    /// Restores a run from `export_run`'s bytes (replacing any run with that id); returns its id.
    /// The window is cut to this guard's `historySize`.
    pub fn import_run(&mut self, bytes: &[u8]) -> Result<Option<String>, GuardError> {
        self.engine.import_run(&self.config, bytes)
    }

    /// The counters by action, level and detector, and the live and evicted runs.
    pub fn stats(&self) -> Stats {
        let (live, evicted) = self.engine.run_counts();
        self.stats.report(live, evicted)
    }

    /// The counters in the Prometheus text exposition format (see `metrics`).
    pub fn metrics(&self) -> String {
        let (live, evicted) = self.engine.run_counts();
        crate::report::metrics::prometheus_text(&self.stats, live, evicted)
    }
}
