//! The default engine: the run table of the recalibrated detection (`preset` "default" and
//! "strict"). A check reads the call's facts (`call_facts`), asks the detectors, and leaves a
//! pending record in the run's window; a record attaches the outcome's digest to it, keeps an
//! outage's wait, feeds the post-compaction guard and forecasts the identical next call.

use super::call_facts::{
    argument_names, call_facts, call_key, kind_by_name_or_config, named_files_of, proposal,
    CallFacts, NameKind, NameKinds,
};
use super::stop_cause::behind_breaker;
use crate::config::tools::ToolKind;
use crate::config::Config;
use crate::detectors::{
    decide, decide_naming_breaker, post_compaction_loop, shared_cause, stall, transient_failure,
    NamedFiles, Proposal,
};
use crate::error::GuardError;
use crate::json::members::{fnv1a, FNV_START};
use crate::json::scrub::RawContent;
use crate::record::digester::OutcomeDigester;
use crate::record::effects::{Effect, Writes};
use crate::record::failure_class::{of_fields, of_value, FailureClass};
use crate::record::input::{CallInput, ReceivedOutcome, Returned};
use crate::record::keys::tool_key;
use crate::record::missing_tool::carries_model_formatting;
use crate::record::outcome::OutcomeDigest;
use crate::record::quote::{quote_fields, quote_value};
use crate::run::call_record::{fingerprint, CallRecord, Fingerprint, RecordState};
use crate::run::record_notes::Note;
use crate::run::state::Run;
use crate::run::table::RunTable;
use crate::verdict::{Action, Answer, Basis, DetectorId, Finding, Level, Verdict};

/// The default engine's runs.
pub struct NativeEngine {
    /// Its runs; ending, exporting and importing one is the table's work (`Engine`).
    pub(super) runs: RunTable,
    /// Each tool name's kind by the config or the name, read once.
    kinds: NameKinds,
}

impl NativeEngine {
    /// An engine keeping at most `max_runs` runs (the least recently used is evicted).
    pub fn new(max_runs: u32) -> Self {
        NativeEngine {
            runs: RunTable::new(max_runs),
            kinds: NameKinds::default(),
        }
    }

    /// After the tool returned or threw: the outcome attaches to its call. `None` only for an
    /// outcome handed over field by field whose arguments were withheld when no checked call has
    /// its call id, or whose hashed error message a profile needs whole (the JSON record answers
    /// then).
    pub fn record(
        &mut self,
        config: &Config,
        outcome: &ReceivedOutcome,
    ) -> Result<Option<Answer>, GuardError> {
        let (call, now_ms) = (&outcome.call, outcome.now_ms);
        let found = match (self.checked_call(call), &outcome.returned) {
            (Some(found), _) => found,
            (None, Returned::Fields { args_withheld, .. }) if *args_withheld => return Ok(None),
            (None, _) => computed_call(call, self.kinds.of(config, &call.tool))?,
        };
        let digester = OutcomeDigester::new(config, call, found.kind);
        // A command runner's timeout is not an outage (asked of failures only).
        let kinds = &mut self.kinds;
        let mut commands = || kinds.of(config, &call.tool).kind == ToolKind::Command;
        let answer = match &outcome.returned {
            Returned::Parsed {
                result,
                error,
                side_text,
            } => {
                let digest = digester.tree(result, error, *side_text)?;
                let (result, error) = (result.0.as_ref(), error.0.as_ref());
                let class = digest.is_error.then(|| of_value(result, error, commands()));
                let quote = || quote_value(result, error);
                let settled = (&digest, class.flatten());
                self.settle_outcome(config, call, &found, settled, now_ms, &quote)
            }
            Returned::Fields { result, .. } => {
                let Some(digest) = digester.fields(result)? else {
                    return Ok(None);
                };
                let class = digest.is_error.then(|| of_fields(result, commands()));
                let quote = || quote_fields(result);
                let settled = (&digest, class.flatten());
                self.settle_outcome(config, call, &found, settled, now_ms, &quote)
            }
        };
        Ok(Some(answer))
    }

    /// The host compacted the run's context: arm the post-compaction guard.
    pub fn compacted(&mut self, config: &Config, run_id: Option<&str>) {
        let run = self.runs.get_or_create(run_id);
        post_compaction_loop::arm(run, config.post_compaction_guard.window_size);
    }

    /// The host observed progress in the run: no-progress streaks restart.
    pub fn progress(&mut self, run_id: Option<&str>) {
        if let Some(run) = self.runs.get_mut(run_id) {
            run.mark_progress();
        }
    }

    /// The fingerprints `record` would give a record under `config`: its call's, and its
    /// outcome's when it has one. Nothing is stored.
    pub fn fingerprints(
        config: &Config,
        call: &CallInput,
        outcome: Option<(&RawContent, &RawContent)>,
        side_text: Option<&[u8]>,
    ) -> Result<RecordFingerprints, GuardError> {
        let facts = call_facts(call, kind_by_name_or_config(config, &call.tool))?;
        let outcome = match outcome {
            Some((result, error)) => {
                let digester = OutcomeDigester::new(config, call, facts.effect.kind);
                Some(fingerprint(
                    &digester.tree(result, error, side_text)?.digest,
                ))
            }
            None => None,
        };
        Ok(RecordFingerprints {
            args: facts.args,
            outcome,
        })
    }

    /// Before dispatch: may the call run? `at`: the call's time (its own, else the host's now).
    pub fn check(
        &mut self,
        config: &Config,
        call: &CallInput,
        at: f64,
    ) -> Result<Answer, GuardError> {
        let CallFacts {
            args,
            effect: Effect { kind, writes },
            names_files,
            has_members,
        } = call_facts(call, self.kinds.of(config, &call.tool))?;
        let run_id = call.run_id.as_deref();
        let history_size = config.history_size as usize;
        let run = self.runs.get_or_create(run_id);
        let known_tool = run.find_tool(&call.tool);
        let read_names = || named_files_of(call);
        let names = match names_files {
            true => NamedFiles::read_by(&read_names),
            false => NamedFiles::none(),
        };
        let proposal = proposal(config, known_tool, &call.tool, kind, args, Some(at), &names);
        // A read's arguments are read and remembered only while a stall forms (its last two
        // results are one, for different arguments): most runs keep nothing.
        let stalling = has_members && known_tool.is_some_and(|tool| stall::forming(run, tool));
        let members = match stalling {
            true => call.arg_members().unwrap_or_default(),
            false => Vec::new(),
        };
        let differing = match members.is_empty() {
            true => Vec::new(),
            false => run
                .last_arguments
                .differing(fnv1a(FNV_START, call.tool.as_bytes()), members),
        };
        let (found, others) = decide_naming_breaker(run, &proposal, config);
        let (answer, warned) = match found {
            None => (Answer::allow(config.policy, &call.tool, run_id), None),
            Some(found) => {
                let warned = (found.level == Level::Warning).then_some(found.detector);
                let named = (found, others.as_ref());
                let verdict = check_verdict(config, call, run, &proposal, named, &differing);
                (Answer::Verdict(verdict), warned)
            }
        };
        let vetoed = matches!(answer.action(), Action::Block | Action::Stop);
        run.turns = run.turns.saturating_add(1);
        if let (Some(cap), false) = (proposal.cap, vetoed) {
            run.log_capped_call(&call.tool, at, cap);
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
            .note_writes(run.seq_of(index), &writes, call_key(&call.tool, &args));
        if vetoed {
            run.settle(index, RecordState::Vetoed);
        }
        Ok(answer)
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

    /// Attaches an outcome (its digest and, for a failure, its class) to its call in the window,
    /// then forecasts the identical next call (quoting the start of the result, `quote`, when it
    /// warns). One function for both forms of outcome, not inlined into `record`: a fresh process
    /// compiles a wasm function whole on its first call, and `record` held a copy per form.
    #[inline(never)]
    fn settle_outcome(
        &mut self,
        config: &Config,
        call: &CallInput,
        found: &OutcomeCall,
        (outcome, class): (&OutcomeDigest, Option<FailureClass>),
        now_ms: f64,
        quote: &dyn Fn() -> Option<String>,
    ) -> Answer {
        let run_id = call.run_id.as_deref();
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
                run.notes.note_writes(
                    run.seq_of(index),
                    &found.writes,
                    call_key(&call.tool, &args),
                );
                index
            }
        };
        let transient = match class {
            Some(FailureClass::Transient { retry_after_ms }) => Some(retry_after_ms),
            _ => None,
        };
        if let (Some(asked_ms), true) =
            (transient, config.detectors.on(DetectorId::TransientFailure))
        {
            // An outage, not a loop: the call leaves the window; only the wait is kept.
            run.withdraw(index);
            let outage = run.outages.failed(tool_key(&call.tool), args, at, asked_ms);
            let found = transient_failure::at_record(outage, config.transient_budget_ms);
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
            if let Some(found) = post_compaction_loop::at_record(
                run,
                triple,
                config.post_compaction_guard.window_size,
            ) {
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
        let next_identical = proposal(config, Some(tool), &call.tool, kind, args, None, &no_names);
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
                    Basis::DespiteChanges | Basis::NothingChangedSince | Basis::NothingNewSince
                ) || found.detector == DetectorId::KnownPollNoProgress =>
            {
                // The record itself was the evidence (a poll's: the wait before the next poll): a
                // later identical call is warned only once `warningThreshold` more of them came.
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

/// The verdict on a checked call that a detector found (`found`; `others`, the finding a stop of
/// the circuit breaker names its loop by), under the config's policy; `differing`: the argument
/// members that changed since the tool's last call. Not inlined into `check`, whose first call
/// (an allow, as most are) a fresh process compiles whole.
#[inline(never)]
fn check_verdict(
    config: &Config,
    call: &CallInput,
    run: &mut Run,
    proposal: &Proposal,
    (mut found, others): (Finding, Option<&Finding>),
    differing: &[u32],
) -> Verdict {
    let run_id = call.run_id.as_deref();
    if matches!(found.detector, DetectorId::Stall | DetectorId::ErrorRepeat) {
        found.varied = argument_names(call, differing);
    }
    if found.basis == Basis::Unavailable {
        run.outages
            .told_unavailable(tool_key(&call.tool), &proposal.args);
    }
    let mut verdict = Verdict::from_finding(&found, &call.tool, run_id);
    if found.detector == DetectorId::GlobalCircuitBreaker {
        let behind = behind_breaker(run, proposal, others);
        verdict.cause = behind.or(verdict.cause);
    }
    verdict.under_policy(config.policy)
}

/// An outcome's call that `check` did not see (or whose record left the window).
fn computed_call(call: &CallInput, name_kind: NameKind) -> Result<OutcomeCall, GuardError> {
    let facts = call_facts(call, name_kind)?;
    Ok(OutcomeCall {
        args: facts.args,
        kind: facts.effect.kind,
        writes: facts.effect.writes,
        checked: None,
    })
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
