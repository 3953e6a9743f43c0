//! The guard: parses records, keeps the run table, runs the detectors and turns findings into
//! verdicts. This is the whole native API; the wasm bindings only translate to and from it.

use crate::config::tools::{kind_by_name, kind_of, ToolKind};
use crate::config::Config;
use crate::detectors::shared_cause;
use crate::detectors::{decide, NamedFiles, Proposal};
use crate::error::{ErrorCode, GuardError};
use crate::json::escape::write_string;
use crate::json::members::{fnv1a, FNV_START};
use crate::json::pointer::without_pointers;
use crate::json::scrub::RawContent;
use crate::openclaw::OpenClawEngine;
use crate::record::effects::{
    effect_of, effect_of_kind, file_operation_effect, named_files, reads_arguments, Effect, Writes,
    ARGUMENT_KEYS,
};
use crate::record::failure_class::{of_fields, of_value, FailureClass};
use crate::record::input::{parse_call, parse_outcome, CallFields, CallInput, OutcomeInput};
use crate::record::keys::tool_key;
use crate::record::missing_tool::carries_model_formatting;
use crate::record::outcome::{digest_outcome, OutcomeDigest, OutcomeParts};
use crate::record::outcome_fields::{digest_result_fields, ResultFields};
use crate::record::quote::{quote_fields, quote_value};
use crate::record::volatile_table::ToolVolatileKeys;
use crate::record::volatile_table::{is_send, SEND_VOLATILE_KEYS};
use crate::report::stats::{Counters, Stats};
use crate::run::call_record::{fingerprint, CallRecord, Fingerprint, RecordState};
use crate::run::history::{CompactionWatch, Run};
use crate::run::outages::Outage;
use crate::run::record_notes::Note;
use crate::run::snapshot;
use crate::run::table::RunTable;
use crate::verdict::{Action, Answer, Basis, DetectorId, Finding, Level, Verdict};
use serde_json::Value;

/// The guard: one config, the live runs and the counters. Every call takes a record (as JSON
/// text or field by field) and answers with a [`Verdict`] or a [`GuardError`] that leaves the guard
/// unchanged.
pub struct Guard {
    config: Config,
    runs: RunTable,
    stats: Counters,
    /// The runs under `preset: "openclaw"`, which has its own detection.
    openclaw: Option<OpenClawEngine>,
}

impl Guard {
    /// A guard with `config` (a JSON object; `null` for all defaults).
    pub fn new(config: &Value) -> Result<Guard, GuardError> {
        let config = Config::from_json(config)?;
        Ok(Guard {
            openclaw: config
                .openclaw
                .then(|| OpenClawEngine::new(config.max_runs)),
            runs: RunTable::new(config.max_runs),
            config,
            stats: Counters::default(),
        })
    }

    /// Whether record verdicts carry `sameAs`: config `sameAs: true`, and not under
    /// `preset: "openclaw"` (whose own detection keeps no call ids).
    pub fn reports_same_as(&self) -> bool {
        self.config.same_as && self.openclaw.is_none()
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
        if let Some(engine) = &mut self.openclaw {
            let answer = match self.config.enabled {
                true => engine.check(&self.config, call)?,
                false => Answer::Allow,
            };
            self.stats.checks += 1;
            self.stats.count_answer(&answer);
            return Ok(answer);
        }
        let facts = self.call_facts(call)?;
        self.stats.checks += 1;
        let answer = self.check_call(call, facts, now_ms);
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
        if let Some(engine) = &mut self.openclaw {
            let answer = match self.config.enabled {
                true => engine.record(&self.config, &input, side_text)?,
                false => Answer::Allow,
            };
            let call = &input.call;
            let verdict = self
                .recorded(answer)
                .into_verdict(&call.tool, call.run_id.as_deref());
            // Fingerprints only: the raw content is zeroed as it goes.
            input
                .result
                .into_iter()
                .chain(input.error)
                .for_each(crate::json::scrub::scrub);
            return Ok(verdict);
        }
        let (call, result, error) = raw_parts(input);
        let answer = if self.config.enabled {
            let found = match self.checked_call(&call) {
                Some(found) => found,
                None => self.computed_call(&call)?,
            };
            let digester = OutcomeDigester::new(&self.config, &call, found.kind);
            let outcome = digester.tree(&result, &error, side_text)?;
            let quote = || quote_value(result.0.as_ref(), error.0.as_ref());
            let class = match outcome.is_error {
                true => of_value(
                    result.0.as_ref(),
                    error.0.as_ref(),
                    self.runs_commands(&call),
                ),
                false => None,
            };
            self.settle_outcome(&call, &found, &outcome, class, now_ms, quote)
        } else {
            Answer::Allow
        };
        Ok(self
            .recorded(answer)
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
        let call = fields.call()?;
        if !self.config.enabled {
            return Ok(Some(self.recorded(Answer::Allow)));
        }
        if let Some(engine) = &mut self.openclaw {
            let answer = engine.record_fields(&self.config, &call, args_withheld, result)?;
            return Ok(answer.map(|answer| self.recorded(answer)));
        }
        let found = match self.checked_call(&call) {
            Some(found) => found,
            None if args_withheld => return Ok(None),
            None => self.computed_call(&call)?,
        };
        let outcome = OutcomeDigester::new(&self.config, &call, found.kind).fields(result)?;
        let class = match outcome.is_error {
            true => of_fields(result, self.runs_commands(&call)),
            false => None,
        };
        let answer = self.settle_outcome(&call, &found, &outcome, class, now_ms, || {
            quote_fields(result)
        });
        Ok(Some(self.recorded(answer)))
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
        let (call, result, error) = raw_parts(input);
        let facts = self.call_facts(&call)?;
        let outcome = if has_outcome {
            let digester = OutcomeDigester::new(&self.config, &call, facts.effect.kind);
            Some(fingerprint(
                &digester.tree(&result, &error, side_text)?.digest,
            ))
        } else {
            None
        };
        Ok(RecordFingerprints {
            args: facts.args,
            outcome,
        })
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
        if let Some(engine) = &mut self.openclaw {
            if self.config.enabled && self.config.post_compaction_guard.enabled {
                engine.compacted(&self.config, run_id);
            }
            return;
        }
        let guard = &self.config.post_compaction_guard;
        if !self.config.enabled || !guard.enabled {
            return;
        }
        let watch = CompactionWatch {
            remaining: guard.window_size,
            first: None,
            identical: 0,
        };
        self.runs.get_or_create(run_id).compaction = Some(Box::new(watch));
    }

    /// The host observed progress in the run: no-progress streaks restart.
    pub fn progress(&mut self, run_id: Option<&str>) {
        if let Some(run) = self.runs.get_mut(run_id) {
            run.mark_progress();
        }
    }

    /// Forget a run.
    pub fn end_run(&mut self, run_id: Option<&str>) {
        if let Some(engine) = &mut self.openclaw {
            engine.end_run(run_id);
        }
        self.runs.remove(run_id);
    }

    /// A snapshot of one run's state (fingerprints and counters only); an unknown run gives the
    /// snapshot of an empty run.
    pub fn export_run(&self, run_id: Option<&str>) -> Vec<u8> {
        if let Some(engine) = &self.openclaw {
            return engine.export_run(run_id);
        }
        match self.runs.peek(run_id) {
            Some(run) => snapshot::encode(run_id, run),
            None => snapshot::encode(run_id, &Run::default()),
        }
    }

    /// Restores a run from `export_run`'s bytes (replacing any run with that id); returns its id.
    /// The window is cut to this guard's `historySize`.
    pub fn import_run(&mut self, bytes: &[u8]) -> Result<Option<String>, GuardError> {
        if let Some(engine) = &mut self.openclaw {
            return engine.import_run(&self.config, bytes);
        }
        let (run_id, mut run) = snapshot::decode(bytes)?;
        run.keep_newest(self.config.history_size as usize);
        *self.runs.get_or_create(run_id.as_deref()) = run;
        Ok(run_id)
    }

    /// The live runs and the runs evicted so far, of whichever engine holds them.
    fn run_counts(&self) -> (u64, u64) {
        match &self.openclaw {
            Some(engine) => (engine.live_runs() as u64, engine.evicted_runs()),
            None => (self.runs.live_runs() as u64, self.runs.evicted()),
        }
    }

    /// The counters by action, level and detector, and the live and evicted runs.
    pub fn stats(&self) -> Stats {
        let (live, evicted) = self.run_counts();
        self.stats.report(live, evicted)
    }

    /// The counters in the Prometheus text exposition format (see `metrics`).
    pub fn metrics(&self) -> String {
        let (live, evicted) = self.run_counts();
        crate::report::metrics::prometheus_text(&self.stats, live, evicted)
    }

    /// The proposal for a call of `tool` (`tool_index`: its index in the run's table, if any), with
    /// its per-tool settings resolved.
    fn proposal<'a>(
        config: &Config,
        tool_index: Option<u16>,
        tool: &'a str,
        kind: ToolKind,
        args: Fingerprint,
        at: Option<f64>,
        names: &'a NamedFiles<'a>,
    ) -> Proposal<'a> {
        let settings = config.tools.get(tool);
        let (warning_threshold, critical_threshold) = config.thresholds(settings);
        Proposal {
            tool,
            tool_index,
            args,
            kind,
            at,
            names,
            warning_threshold,
            critical_threshold,
            cap: settings.and_then(|s| s.cap),
        }
    }

    /// Whether `call`'s tool runs arbitrary commands (by its name or its configured kind): a
    /// command's timeout is not an outage.
    fn runs_commands(&self, call: &CallInput) -> bool {
        let settings = self.config.tools.get(&*call.tool);
        kind_of(&call.tool, None, settings, &self.config.poll_tools) == ToolKind::Command
    }

    /// What the guard reads of a call: its fingerprint, its kind and what it may write (from
    /// its name, refined by its arguments where they say more: `record::effects`). Only calls
    /// whose effect depends on their arguments have them read, and then only the few top-level
    /// strings their effect depends on (every string for a file operation).
    fn call_facts(&self, call: &CallInput) -> Result<CallFacts, GuardError> {
        let settings = self.config.tools.get(&*call.tool);
        let poll_tools = &self.config.poll_tools;
        let configured = settings.and_then(|s| s.kind);
        let name_kind = kind_by_name(&call.tool, poll_tools);
        let needs_args = call.tool == "process"
            || configured.is_none() && reads_arguments(&call.tool, name_kind);
        let args = fingerprint(&call.args_digest()?);
        if !needs_args {
            let kind = configured.unwrap_or(name_kind);
            // A read's argument members say, when it stalls, which arguments it varied.
            let mut facts = CallFacts::new(args, effect_of_kind(kind));
            facts.has_members = kind == ToolKind::Read;
            return Ok(facts);
        }
        let strings = call.arg_strings(ARGUMENT_KEYS)?;
        let kind = kind_of(&call.tool, strings.get("action"), settings, poll_tools);
        if configured.is_some() || kind == ToolKind::Poll {
            return Ok(CallFacts::new(args, effect_of_kind(kind)));
        }
        let effect = match effect_of(&call.tool, kind, &strings) {
            Some(effect) => effect,
            None => {
                let parsed = RawContent(Some(call.args()?));
                file_operation_effect(parsed.0.as_ref().unwrap_or(&Value::Null))
            }
        };
        let mut facts = CallFacts::new(args, effect);
        facts.names_files = true;
        Ok(facts)
    }

    fn check_call(&mut self, call: &CallInput, facts: CallFacts, now_ms: f64) -> Answer {
        let CallFacts {
            args,
            effect: Effect { kind, writes },
            names_files,
            has_members,
        } = facts;
        let run_id = call.run_id.as_deref();
        if !self.config.enabled {
            return Answer::Allow;
        }
        let config = &self.config;
        let history_size = config.history_size as usize;
        let run = self.runs.get_or_create(run_id);
        let at = call.at.unwrap_or(now_ms);
        let known_tool = run.find_tool(&call.tool);
        let read_names = || named_files_of(call);
        let names = match names_files {
            true => NamedFiles::read_by(&read_names),
            false => NamedFiles::none(),
        };
        let proposal = Self::proposal(config, known_tool, &call.tool, kind, args, Some(at), &names);
        // A read's arguments are read and remembered only while a stall forms (its last two
        // results are one, for different arguments): most runs keep nothing.
        let stalling = has_members && known_tool.is_some_and(|tool| stall_forming(run, tool));
        let members = match stalling {
            true => call
                .args_digest_and_members()
                .map_or_else(|_| Vec::new(), |(_, m)| m),
            false => Vec::new(),
        };
        let differing = match members.is_empty() {
            true => Vec::new(),
            false => run
                .last_arguments
                .differing(fnv1a(FNV_START, call.tool.as_bytes()), members),
        };
        let (answer, warned) = match decide(run, &proposal, config) {
            None => (Answer::allow(config.policy, &call.tool, run_id), None),
            Some(mut found) => {
                if matches!(found.detector, DetectorId::Stall | DetectorId::ErrorRepeat) {
                    found.varied = argument_names(call, &differing);
                }
                if found.basis == Basis::Unavailable {
                    run.outages
                        .told_unavailable(tool_key(&call.tool), &proposal.args);
                }
                let warned = (found.level == Level::Warning).then_some(found.detector);
                let verdict = Verdict::from_finding(&found, &call.tool, run_id);
                (Answer::Verdict(verdict.under_policy(config.policy)), warned)
            }
        };
        let vetoed = matches!(answer.action(), Action::Block | Action::Stop);
        run.turns = run.turns.saturating_add(1);
        if let (Some(cap), false) = (proposal.cap, vetoed) {
            run.log_capped_call(&call.tool, at, cap.calls);
        }
        let tool = match known_tool {
            Some(index) => index,
            None => run.intern_tool(&call.tool, history_size),
        };
        let mut record =
            CallRecord::pending(tool, args, kind, at, call.args_text_hash, call.call_id_key);
        record.set_warned(warned);
        let index = run.push(record, history_size);
        run.notes
            .note_writes(run.seq_of(index), &writes, call_key(&args));
        if vetoed {
            run.settle(index, RecordState::Vetoed);
        }
        answer
    }

    /// An outcome's call when `check` saw it: the pending record with the outcome's call id (its
    /// arguments are then not read), or without a call id the pending record checked with the
    /// same argument text.
    fn checked_call(&self, call: &CallInput) -> Option<OutcomeCall> {
        let run = self.runs.peek(call.run_id.as_deref())?;
        let tool = run.find_tool(&call.tool)?;
        let index = match call.call_id_key {
            Some(id) => run.find_pending_by_call_id(id, tool)?,
            None => run.find_pending_by_text(tool, call.args_text_hash)?,
        };
        run.records().get(index).map(|r| OutcomeCall {
            args: r.args,
            kind: r.kind(),
            writes: Writes::Nothing,
            checked: Some((tool, index)),
        })
    }

    /// An outcome's call that `check` did not see (or whose record left the window).
    fn computed_call(&self, call: &CallInput) -> Result<OutcomeCall, GuardError> {
        let facts = self.call_facts(call)?;
        Ok(OutcomeCall {
            args: facts.args,
            kind: facts.effect.kind,
            writes: facts.effect.writes,
            checked: None,
        })
    }

    /// Attaches an outcome to its call in the window, then forecasts the identical next call
    /// (quoting the start of the result, `quote`, when it warns).
    fn settle_outcome(
        &mut self,
        call: &CallInput,
        found: &OutcomeCall,
        outcome: &OutcomeDigest,
        class: Option<FailureClass>,
        now_ms: f64,
        quote: impl FnOnce() -> Option<String>,
    ) -> Answer {
        let run_id = call.run_id.as_deref();
        let config = &self.config;
        let history_size = config.history_size as usize;
        let (args, kind) = (found.args, found.kind);
        let run = self.runs.get_or_create(run_id);
        // `check`'s pending record (the run and its tool table are as `checked_call` saw them).
        let (tool, from) = match found.checked {
            Some(checked) => checked,
            None => (run.intern_tool(&call.tool, history_size), 0),
        };
        let at = call.at.unwrap_or(now_ms);
        let index = match run.find_pending(call.call_id_key, tool, &args, from) {
            Some(index) => index,
            None => {
                let record = CallRecord::pending(
                    tool,
                    args,
                    kind,
                    at,
                    call.args_text_hash,
                    call.call_id_key,
                );
                let index = run.push(record, history_size);
                run.notes
                    .note_writes(run.seq_of(index), &found.writes, call_key(&args));
                index
            }
        };
        let transient = match class {
            Some(FailureClass::Transient { retry_after_ms }) => Some(retry_after_ms),
            _ => None,
        };
        if let (Some(asked_ms), true) = (transient, config.detectors.transient_failure) {
            // An outage, not a loop: the call leaves the window; only the wait is kept.
            run.withdraw(index);
            let outage = run.outages.failed(tool_key(&call.tool), args, at, asked_ms);
            let found = transient_warning(outage, config.transient_budget_ms);
            let verdict = Verdict::record_warning(&found, &call.tool, run_id, None);
            return Answer::Verdict(verdict.under_policy(config.policy));
        }
        run.outages.ended(tool_key(&call.tool), &args);
        let malformed_name = outcome.is_error && carries_model_formatting(&call.tool);
        run.settle(
            index,
            RecordState::Completed {
                outcome: fingerprint(&outcome.digest),
                is_error: outcome.is_error,
                missing_tool: outcome.missing_tool || malformed_name,
                blank: outcome.blank,
            },
        );
        if config.post_compaction_guard.enabled && run.compaction.is_some() {
            let triple = (call.tool.to_string(), args, fingerprint(&outcome.digest));
            if let Some(found) =
                post_compaction_step(run, triple, config.post_compaction_guard.window_size)
            {
                let verdict = Verdict::from_finding(&found, &call.tool, run_id);
                return Answer::Verdict(verdict.under_policy(config.policy));
            }
        }
        let same_as = match config.same_as {
            true => same_as(run, index, call.call_id.as_deref()),
            false => None,
        };
        let shared = match class {
            Some(FailureClass::Shared(cause)) => {
                run.notes.restore(run.seq_of(index), Note::Failed(cause));
                shared_cause::at_record(run, cause, config)
            }
            _ => None,
        };
        let no_names = NamedFiles::none();
        let next_identical =
            Self::proposal(config, Some(tool), &call.tool, kind, args, None, &no_names);
        let answer = match (decide(run, &next_identical, config), shared) {
            (Some(found), _) if found.level >= Level::Critical => {
                let verdict = Verdict::forecast(&found, &call.tool, run_id, quote().as_deref());
                Answer::Verdict(verdict.under_policy(config.policy))
            }
            (_, Some(shared)) => {
                let verdict = Verdict::record_warning(&shared, &call.tool, run_id, None);
                Answer::Verdict(verdict.under_policy(config.policy))
            }
            (Some(found), None)
                if matches!(
                    found.basis,
                    Basis::DespiteChanges | Basis::NothingChangedSince
                ) =>
            {
                // The record itself was the evidence: a later identical call is warned only once
                // `warningThreshold` more of them came.
                run.mark_warned(index, found.detector);
                let verdict =
                    Verdict::record_warning(&found, &call.tool, run_id, quote().as_deref());
                Answer::Verdict(verdict.under_policy(config.policy))
            }
            _ => Answer::allow(config.policy, &call.tool, run_id),
        };
        match same_as {
            None => answer,
            Some(id) => {
                let mut verdict = answer.into_verdict(&call.tool, run_id);
                verdict.same_as = Some(id);
                Answer::Verdict(verdict)
            }
        }
    }
}

/// What the window keeps of a record: the first 64 bits of its arguments' digest and, for an
/// outcome, of its outcome's digest ("the same call" and "the same outcome" compare these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordFingerprints {
    /// The arguments' fingerprint (of their canonical form); the tool is compared apart.
    pub args: [u8; 8],
    /// The outcome's fingerprint; `None` when the record has neither `result` nor `error`.
    pub outcome: Option<[u8; 8]>,
}

/// An outcome's call: its fingerprint and kind, what it may write (noted at `check` for a checked
/// call), and, when `check` saw it, its tool's index and the position of its pending record in
/// the run's window.
struct OutcomeCall {
    args: Fingerprint,
    kind: ToolKind,
    writes: Writes,
    checked: Option<(u16, usize)>,
}

/// What `Guard::call_facts` reads of a call.
struct CallFacts {
    args: Fingerprint,
    effect: Effect,
    /// Its arguments may name files (`effects::named_files`), read when a rule asks.
    names_files: bool,
    /// A read: its top-level argument members (`json::members`) are read when it stalls.
    has_members: bool,
}

impl CallFacts {
    fn new(args: Fingerprint, effect: Effect) -> CallFacts {
        CallFacts {
            args,
            effect,
            names_files: false,
            has_members: false,
        }
    }
}

/// The files a call's arguments name (`effects::named_files`), read from their tree.
fn named_files_of(call: &CallInput) -> Vec<u32> {
    let parsed = RawContent(call.args().ok());
    parsed.0.as_ref().map_or_else(Vec::new, named_files)
}

/// The names of the top-level arguments of `call` whose canonical keys hash to one of `keys` (at
/// most three).
fn argument_names(call: &CallInput, keys: &[u32]) -> Vec<String> {
    if keys.is_empty() {
        return Vec::new();
    }
    let parsed = RawContent(call.args().ok());
    let Some(Value::Object(args)) = &parsed.0 else {
        return Vec::new();
    };
    let mut canonical = Vec::new();
    let mut names = Vec::new();
    for name in args.keys() {
        canonical.clear();
        write_string(name, &mut canonical);
        if keys.contains(&fnv1a(FNV_START, &canonical)) && names.len() < 3 {
            names.push(name.clone());
        }
    }
    names
}

/// Under `sameAs`: keeps the call id of the record at `index` and returns the id of the earlier
/// call whose result it repeats, if the window still holds one with an id.
fn same_as(run: &mut Run, index: usize, call_id: Option<&str>) -> Option<String> {
    if let Some(id) = call_id {
        run.call_ids.keep(run.seq_of(index), id);
    }
    let ids = &run.call_ids;
    let earlier = run.same_as(index, |seq| ids.of(seq).is_some())?;
    ids.of(earlier).map(str::to_owned)
}

/// The warning of a record that failed transiently: the wait before the next try, or the service
/// being unavailable once the call has failed for `budget_ms` in a row.
fn transient_warning(outage: &Outage, budget_ms: f64) -> Finding {
    let mut found = Finding::new(
        DetectorId::TransientFailure,
        Level::Warning,
        outage.failures,
        1,
    );
    found.retry_after_ms = Some(outage.wait_ms);
    let failing = outage.last_at - outage.first_at;
    if failing >= budget_ms {
        found.failing_ms = Some(failing);
        found = found.on(Basis::Unavailable);
    }
    found
}

/// Whether the newest two completed records of `tool` returned one outcome for different
/// arguments: a stall is forming.
fn stall_forming(run: &Run, tool: u16) -> bool {
    let mut done = run
        .records()
        .iter()
        .rev()
        .filter(|r| r.tool() == tool && r.outcome().is_some());
    match (done.next(), done.next()) {
        (Some(newest), Some(before)) => {
            newest.outcome() == before.outcome() && newest.args != before.args
        }
        _ => false,
    }
}

/// A call's key in the change log: the first 32 bits of its argument fingerprint.
fn call_key(args: &Fingerprint) -> u32 {
    u32::from_le_bytes([args[0], args[1], args[2], args[3]])
}

/// How one call's outcome is digested: the tool's volatile keys and ignored JSON pointers, and
/// whether its profile is `exec`'s (`exec`, and `process` polls).
struct OutcomeDigester<'a> {
    tool: &'a str,
    exec_like: bool,
    /// A delivering call (`volatile_table::is_send`).
    send: bool,
    keys: ToolVolatileKeys<'a>,
    pointers: &'a [String],
}

impl<'a> OutcomeDigester<'a> {
    fn new(config: &'a Config, call: &'a CallInput, kind: ToolKind) -> Self {
        let tool = &*call.tool;
        let settings = config.tools.get(tool);
        // Only `message` needs its arguments (its action) to tell whether it delivers.
        let args = match tool {
            "message" => call.args().unwrap_or_default(),
            _ => Value::Null,
        };
        let send = is_send(tool, &args);
        OutcomeDigester {
            tool,
            exec_like: tool == "exec" || (tool == "process" && kind == ToolKind::Poll),
            send,
            keys: ToolVolatileKeys {
                global: &config.volatile_keys,
                tool: settings.map_or(&[][..], |s| &s.ignore_keys),
                table: if send { SEND_VOLATILE_KEYS } else { &[] },
            },
            pointers: settings.map_or(&[][..], |s| &s.ignore_pointers),
        }
    }

    /// A result handed over field by field: framed directly when no profile or pointer applies.
    fn fields(&self, result: &ResultFields) -> Result<OutcomeDigest, GuardError> {
        if !self.exec_like && !self.send && self.tool != "write" && self.pointers.is_empty() {
            return digest_result_fields(result, &self.keys);
        }
        self.tree(&RawContent(result.tree()?), &RawContent(None), None)
    }

    /// The tree path: the parsed outcome, its ignored pointers removed, digested by `outcome.rs`.
    fn tree(
        &self,
        result: &RawContent,
        error: &RawContent,
        side_text: Option<&[u8]>,
    ) -> Result<OutcomeDigest, GuardError> {
        let digest = |result: Option<&Value>, error: Option<&Value>| {
            let parts = OutcomeParts {
                tool: self.tool,
                exec_like: self.exec_like,
                result,
                error,
                side_text,
                send: self.send,
            };
            digest_outcome(&parts, &self.keys)
        };
        if self.pointers.is_empty() {
            return digest(result.0.as_ref(), error.0.as_ref());
        }
        let strip = |raw: &RawContent| {
            RawContent(raw.0.as_ref().map(|v| without_pointers(v, self.pointers)))
        };
        let (result, error) = (strip(result), strip(error));
        digest(result.0.as_ref(), error.0.as_ref())
    }
}

/// An outcome's call, and its result and error as `RawContent`. Fingerprints only: the parsed
/// result and error hold raw content, zeroed when dropped.
fn raw_parts(input: OutcomeInput) -> (CallInput, RawContent, RawContent) {
    (
        input.call,
        RawContent(input.result),
        RawContent(input.error),
    )
}

/// Feeds one completion to an armed post-compaction watch; fires when all `window` completions
/// after compaction are the same (tool, args, outcome) triple.
fn post_compaction_step(
    run: &mut Run,
    triple: (String, Fingerprint, Fingerprint),
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
