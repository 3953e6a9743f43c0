//! `preset: "openclaw"`: OpenClaw 2026.9.6's tool-loop detection (its detector, its
//! before-tool-call admission and its post-compaction guard), verdict for verdict and count for
//! count. A run keeps OpenClaw's window of 30 records: a call is recorded when it is allowed or
//! warned, its outcome attaches to it later, and a refused call is recorded as a veto. A warning
//! is emitted once per bucket of `warningThreshold` counts of its pattern; a second refusal in one
//! run stops the run, as OpenClaw's dispatch loop does. Differences from OpenClaw are listed in
//! docs/openclaw.md.

mod detect;
mod markers;
mod outcome;
mod snapshot;
mod text;

use crate::config::tools::is_known_poll;
use crate::config::{Config, Policy};
use crate::error::GuardError;
use crate::json::canonical::{write_object_without, KeepAll};
use crate::json::digest::{Digest, HashSink};
use crate::record::input::{CallInput, ReceivedOutcome, Returned};
use crate::run::table::RunTable;
use crate::verdict::messages;
use crate::verdict::{
    Action, Answer, DetectorId, Level, Observed, OpenClawDetail, Refusal, Verdict,
};
use detect::{detect, Found, Limits, WarningKey};
use outcome::{outcome_of, outcome_of_fields, Outcome};
use serde_json::Value;

/// Most warning keys remembered per run (the oldest is forgotten first).
const MAX_WARNING_KEYS: usize = 256;

/// A call as the detectors compare it: the normalised tool name and the arguments' digest.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Signature {
    pub tool: Box<str>,
    pub args: Digest,
}

/// One call in a run's window; `outcome` is `None` while it runs.
#[derive(Debug, Clone)]
pub struct Entry {
    pub signature: Signature,
    /// The call id's lookup key (`CallInput::call_id_key`).
    pub call_id: Option<u64>,
    pub outcome: Option<Outcome>,
}

/// The post-compaction guard while it watches the calls after a compaction.
#[derive(Debug, Clone, Default)]
struct CompactionTail {
    remaining: u32,
    seen: Vec<(Signature, Option<Digest>)>,
}

#[derive(Debug, Default)]
pub(crate) struct OpenClawRun {
    records: Vec<Entry>,
    /// Per warning key, the highest count bucket warned about.
    warned: Vec<(WarningKey, u32)>,
    refused_before: bool,
    compaction: Option<CompactionTail>,
}

/// The runs of a guard under the `openclaw` preset, in the guard's run table (least recently
/// used evicted beyond `maxRuns`).
pub struct OpenClawEngine {
    /// Its runs; ending, exporting and importing one is the table's work (`engine::Engine`).
    pub(crate) runs: RunTable<OpenClawRun>,
}

/// OpenClaw's tool-name normalisation: lower case, and its aliases.
fn normalise_tool(tool: &str) -> Box<str> {
    let lower = tool.trim().to_ascii_lowercase();
    match lower.as_str() {
        "bash" => "exec".into(),
        "apply-patch" => "apply_patch".into(),
        "cron" => "automations".into(),
        _ => lower.into(),
    }
}

/// The call's signature. An `exec` call's `title` only labels it for display, so it is left out
/// (as OpenClaw's source does after 2026.9.6; issue 17 asks for it).
fn signature_of(call: &CallInput, tool: Box<str>, args: &Value) -> Result<Signature, GuardError> {
    let args = match args.as_object() {
        Some(map) if &*tool == "exec" && map.contains_key("title") => {
            let mut sink = HashSink::new();
            write_object_without(map, &["title"], &KeepAll, &mut sink);
            sink.finish()
        }
        _ => call.args_digest()?,
    };
    Ok(Signature { tool, args })
}

/// The call's arguments as a tree where its identity or outcome reads them (`exec` leaves its
/// `title` out, `process` has actions, `message` delivers or not); elsewhere `null`, and only
/// their digest is taken, streamed from their text.
fn args_of(tool: &str, call: &CallInput) -> Result<Value, GuardError> {
    match tool {
        "exec" | "process" | "message" => call.args(),
        _ => Ok(Value::Null),
    }
}

impl OpenClawEngine {
    pub fn new(max_runs: u32) -> Self {
        OpenClawEngine {
            runs: RunTable::new(max_runs),
        }
    }

    /// Before dispatch. Never inlined (nor is `record`): inlined into `Engine::check`, it made that
    /// function several times larger, and a fresh process compiles a wasm function whole on its
    /// first call, so a default guard's first verdict paid for compiling an engine it does not run.
    #[inline(never)]
    pub fn check(&mut self, config: &Config, call: &CallInput) -> Result<Answer, GuardError> {
        let tool = normalise_tool(&call.tool);
        let args = args_of(&tool, call)?;
        let signature = signature_of(call, tool, &args)?;
        let run_id = call.run_id.as_deref();
        let limits = Limits {
            warning: config.warning_threshold,
            critical: config.critical_threshold,
            global: config.global_circuit_breaker_threshold,
            unknown_tool: config.unknown_tool_threshold,
            generic_repeat: config.detectors.on(DetectorId::GenericRepeat),
            known_poll: config.detectors.on(DetectorId::KnownPollNoProgress),
            ping_pong: config.detectors.on(DetectorId::PingPong),
        };
        let history_size = config.history_size as usize;
        let run = self.runs.get_or_create(run_id);
        let action = args.get("action").and_then(Value::as_str);
        let known_poll = is_known_poll(&signature.tool, action);
        let call_id = call.call_id_key;
        let Some(found) = detect(&run.records, &signature, known_poll, &limits) else {
            run.push(signature, call_id, None, history_size);
            return Ok(Answer::allow(config.policy, &call.tool, run_id));
        };
        if found.level == Level::Warning {
            run.push(signature, call_id, None, history_size);
            if !run.warning_due(&found.key, found.count, limits.warning) {
                return Ok(Answer::allow(config.policy, &call.tool, run_id));
            }
            let verdict = verdict(&found, Action::Warn, &call.tool, run_id, "");
            return Ok(Answer::Verdict(verdict.under_policy(config.policy)));
        }
        let stops = found.level == Level::CircuitBreak || run.refused_before;
        let suffix = if found.level == Level::Critical && run.refused_before {
            messages::OPENCLAW_SECOND_CRITICAL
        } else {
            ""
        };
        run.refused_before = true;
        if config.policy == Policy::Enforce {
            run.attach(call_id, &signature, Outcome::veto(), history_size);
        } else {
            // Under `inject` and `shadow` the call runs after all: its outcome will attach.
            run.push(signature, call_id, None, history_size);
        }
        let action = if stops { Action::Stop } else { Action::Block };
        let verdict = verdict(&found, action, &call.tool, run_id, suffix);
        Ok(Answer::Verdict(verdict.under_policy(config.policy)))
    }

    /// After the tool returned or threw: the outcome attaches to its call; only the
    /// post-compaction guard answers anything but allow. A result handed over field by field (see
    /// `ResultFields`; `Absent` is a missing result) is hashed without the JSON record; `None`
    /// when its arguments were withheld and are needed (`process` and `message` outcomes depend on
    /// them), no running call has the call id, or a thrown error's message came hashed: `record`
    /// of the JSON record answers then.
    #[inline(never)]
    pub fn record(
        &mut self,
        config: &Config,
        outcome: &ReceivedOutcome,
    ) -> Result<Option<Answer>, GuardError> {
        let call = &outcome.call;
        let tool = normalise_tool(&call.tool);
        let (signature, args) = match outcome.returned {
            Returned::Fields {
                args_withheld: true,
                ..
            } => {
                let needs_args = matches!(&*tool, "process" | "message");
                match self.running_signature(call).filter(|_| !needs_args) {
                    Some(signature) => (signature, Value::Null),
                    None => return Ok(None),
                }
            }
            _ => {
                let args = args_of(&tool, call)?;
                (signature_of(call, tool, &args)?, args)
            }
        };
        let hashed = match &outcome.returned {
            Returned::Parsed {
                result,
                error,
                side_text,
            } => outcome_of(
                &signature.tool,
                &args,
                result.0.as_ref(),
                error.0.as_ref(),
                *side_text,
            ),
            // OpenClaw hashes an error's whole message: a hashed one is asked for as JSON.
            Returned::Fields { result, .. } if result.holds_hashed_error() => return Ok(None),
            Returned::Fields { result, .. } => outcome_of_fields(&signature.tool, &args, result)?,
        };
        Ok(Some(self.settle(config, call, signature, hashed)))
    }

    /// The signature of the newest running call with the call's id, in its run.
    fn running_signature(&self, call: &CallInput) -> Option<Signature> {
        let id = call.call_id_key?;
        let run = self.runs.peek(call.run_id.as_deref())?;
        run.records
            .iter()
            .rev()
            .find(|r| r.outcome.is_none() && r.call_id == Some(id))
            .map(|r| r.signature.clone())
    }

    /// Attaches an outcome to its call, then the post-compaction guard looks at it (one copy for
    /// both ways a record comes in).
    #[inline(never)]
    fn settle(
        &mut self,
        config: &Config,
        call: &CallInput,
        signature: Signature,
        outcome: Outcome,
    ) -> Answer {
        let run_id = call.run_id.as_deref();
        let history_size = config.history_size as usize;
        let window = config.post_compaction_guard.window_size;
        let run = self.runs.get_or_create(run_id);
        let hash = outcome.hash;
        if !outcome.is_empty() {
            run.attach(call.call_id_key, &signature, outcome, history_size);
        }
        let Some(count) = run.after_compaction(&signature, hash, window) else {
            return Answer::allow(config.policy, &call.tool, run_id);
        };
        let found = Found {
            detector: DetectorId::PostCompactionLoop,
            level: Level::CircuitBreak,
            count,
            threshold: window,
            key: WarningKey::None,
            detail: OpenClawDetail::None,
        };
        let verdict = verdict(&found, Action::Stop, &call.tool, run_id, "");
        Answer::Verdict(verdict.under_policy(config.policy))
    }

    /// The host compacted the run's context: watch the next `windowSize` outcomes.
    pub fn compacted(&mut self, config: &Config, run_id: Option<&str>) {
        let window = config.post_compaction_guard.window_size;
        self.runs.get_or_create(run_id).compaction = Some(CompactionTail {
            remaining: window,
            seen: Vec::new(),
        });
    }
}

impl OpenClawRun {
    /// Appends a record (`outcome: None` while the call runs), dropping the oldest past
    /// `history_size`.
    fn push(
        &mut self,
        signature: Signature,
        call_id: Option<u64>,
        outcome: Option<Outcome>,
        history_size: usize,
    ) {
        self.records.push(Entry {
            signature,
            call_id,
            outcome,
        });
        let excess = self.records.len().saturating_sub(history_size);
        self.records.drain(..excess);
    }

    /// Attaches an outcome to the newest running record of the same call (and call id, when the
    /// outcome has one); with none, the outcome becomes a record of its own.
    fn attach(
        &mut self,
        call_id: Option<u64>,
        signature: &Signature,
        outcome: Outcome,
        history_size: usize,
    ) {
        let running = self.records.iter_mut().rev().find(|r| {
            r.outcome.is_none()
                && r.signature == *signature
                && (call_id.is_none() || r.call_id == call_id)
        });
        match running {
            Some(record) => record.outcome = Some(outcome),
            None => self.push(signature.clone(), call_id, Some(outcome), history_size),
        }
    }

    /// Whether a warning of `count` is due: the first of each bucket of `bucket` counts per key.
    fn warning_due(&mut self, key: &WarningKey, count: u32, bucket: u32) -> bool {
        let bucket = count / bucket.max(1);
        match self.warned.iter_mut().find(|(k, _)| k == key) {
            Some((_, seen)) if bucket <= *seen => false,
            Some((_, seen)) => {
                *seen = bucket;
                true
            }
            None if bucket == 0 => false,
            None => {
                self.warned.push((key.clone(), bucket));
                let excess = self.warned.len().saturating_sub(MAX_WARNING_KEYS);
                self.warned.drain(..excess);
                true
            }
        }
    }

    /// The post-compaction guard: `Some(count)` when `window` calls after a compaction repeated
    /// one call with one result.
    fn after_compaction(
        &mut self,
        signature: &Signature,
        hash: Option<Digest>,
        window: u32,
    ) -> Option<u32> {
        let watch = self.compaction.as_mut()?;
        watch.remaining = watch.remaining.saturating_sub(1);
        watch.seen.push((signature.clone(), hash));
        let same = watch
            .seen
            .iter()
            .filter(|(s, h)| s == signature && *h == hash)
            .count();
        let same = u32::try_from(same).unwrap_or(u32::MAX);
        if same >= window || watch.remaining == 0 {
            self.compaction = None;
        }
        (same >= window).then_some(same)
    }
}

/// The verdict for a finding, with `action` (a second refusal stops the run).
fn verdict(
    found: &Found,
    action: Action,
    tool: &str,
    run_id: Option<&str>,
    suffix: &str,
) -> Verdict {
    let message = format!(
        "{}{suffix}",
        messages::openclaw(
            found.detector,
            found.level,
            found.count,
            &normalise_tool(tool),
            &found.detail
        )
    );
    let refusal = matches!(action, Action::Block | Action::Stop).then(|| Refusal {
        error: "tool_loop_detected",
        mode: found.detector,
        message: message.clone(),
        observed: Observed {
            tool: tool.to_owned(),
            count: found.count,
            threshold: found.threshold,
            level: found.level,
            partner_tool: match &found.detail {
                OpenClawDetail::Partner(p) => Some(p.clone()),
                _ => None,
            },
            retry_after_ms: None,
            window_ms: None,
        },
    });
    Verdict {
        action,
        level: found.level,
        detector: Some(found.detector),
        count: found.count,
        threshold: Some(found.threshold),
        tool: tool.to_owned(),
        run_id: run_id.map(str::to_owned),
        message: Some(message.clone()),
        hint: (action == Action::Warn).then_some(message),
        refusal,
        would_be: None,
        retry_after_ms: None,
        same_as: None,
        // The detector and its partner tool say why a run stopped.
        cause: None,
    }
}
