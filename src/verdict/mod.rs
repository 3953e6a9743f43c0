//! Verdicts: levels, actions, detector ids and the typed data handed back to the host.
//! The texts themselves live in `messages.rs`.

// The answer frame is the wasm host's form of a verdict (like the input frame, `record::frame`).
#[cfg(any(target_arch = "wasm32", test))]
pub(crate) mod answer_frame;
mod causes;
pub(crate) mod members;
pub(crate) mod messages;

pub use causes::SharedCause;

pub use crate::config::detector_ids::DetectorId;
use crate::config::Policy;

/// Severity, in escalation order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Nothing found (`ok`).
    Ok,
    /// A loop is forming: the call runs, the model gets a hint (`warning`).
    Warning,
    /// The call is refused (`critical`).
    Critical,
    /// The run must end (`circuit_break`).
    CircuitBreak,
}

/// What the host must do with the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Run the tool.
    Allow,
    /// Run the tool and put the verdict's `hint` into the model's next context.
    Warn,
    /// Do not run the tool; the `refusal` is the tool result.
    Block,
    /// End the run with a partial answer; the `message` says why.
    Stop,
}

impl Level {
    /// Every level, in escalation order.
    pub const ALL: [Level; 4] = [
        Level::Ok,
        Level::Warning,
        Level::Critical,
        Level::CircuitBreak,
    ];

    /// The level's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Ok => "ok",
            Level::Warning => "warning",
            Level::Critical => "critical",
            Level::CircuitBreak => "circuit_break",
        }
    }

    /// The action a verdict of this level asks for under the `enforce` policy.
    pub fn action(self) -> Action {
        match self {
            Level::Ok => Action::Allow,
            Level::Warning => Action::Warn,
            Level::Critical => Action::Block,
            Level::CircuitBreak => Action::Stop,
        }
    }
}

impl Action {
    /// Every action, in the order of the levels that lead to it.
    pub const ALL: [Action; 4] = [Action::Allow, Action::Warn, Action::Block, Action::Stop];

    /// The action's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Allow => "allow",
            Action::Warn => "warn",
            Action::Block => "block",
            Action::Stop => "stop",
        }
    }
}

/// What `preset: "openclaw"`'s texts name beside the count: the call a ping-pong alternates with,
/// the tool an error says is missing, or how many argument patterns a churn cycles through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenClawDetail {
    None,
    Partner(String),
    MissingTool(String),
    Variants(u32),
}

/// What one detector found about one call.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub detector: DetectorId,
    pub level: Level,
    pub count: u32,
    pub threshold: u32,
    /// What the evidence is (it chooses the message).
    pub basis: Basis,
    /// Of the calls counted, how many ran (the others were refused); 0 where the detector does
    /// not say.
    pub ran: u32,
    /// `Basis::DespiteChanges`: how many calls changed something while the results stayed the same.
    pub changes: u32,
    /// `stall`, `error_repeat`: the names of the arguments that differed from the tool's last call
    /// (at most three), when the call in hand says.
    pub varied: Vec<String>,
    /// The other tool of a ping-pong pair.
    pub partner_tool: Option<String>,
    /// `tool_cap`, `transient_failure`: how long until the call may be made again; `tool_cap`:
    /// the cap's window.
    pub retry_after_ms: Option<f64>,
    pub window_ms: Option<f64>,
    /// `transient_failure`: how long the call has been failing (ms).
    pub failing_ms: Option<f64>,
    /// `shared_cause`: the cause the tools failed with.
    pub cause: Option<SharedCause>,
}

impl Finding {
    pub fn new(detector: DetectorId, level: Level, count: u32, threshold: u32) -> Finding {
        Finding {
            detector,
            level,
            count,
            threshold,
            basis: Basis::Repeated,
            ran: 0,
            changes: 0,
            varied: Vec::new(),
            partner_tool: None,
            retry_after_ms: None,
            window_ms: None,
            failing_ms: None,
            cause: None,
        }
    }

    /// The same finding on another basis.
    pub fn on(self, basis: Basis) -> Finding {
        Finding { basis, ..self }
    }

    /// The same finding, saying how many of the counted calls ran.
    pub fn ran(self, ran: u32) -> Finding {
        Finding { ran, ..self }
    }
}

/// What a finding's evidence is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// The pattern repeated with nothing else changing in between (the usual case).
    Repeated,
    /// An identical call kept returning an identical result although other calls changed the
    /// world in between (edits, writing commands, mutations).
    DespiteChanges,
    /// An identical call kept returning an identical result, and only known reads ran since it
    /// last did (or changes of files it does not name): nothing could have changed its result.
    NothingChangedSince,
    /// A mutation that succeeded kept returning one result (numbers aside) with nothing else
    /// changing the world: each run made the same change again (`generic_repeat`).
    SameChange,
    /// An identical call kept returning an identical result, and nothing since returned anything
    /// new, but some calls in between may change things (a mutation, a command, a call the guard
    /// cannot tell is a read) and failed or repeated what they had returned: no text may say that
    /// nothing could change it.
    NothingNewSince,
    /// A stretch of calls that all returned only what their calls had returned before, going
    /// round a few calls (`ping_pong`, `cycle`).
    NothingNew,
    /// The run's last calls were all refused (`global_circuit_breaker` on trailing refusals).
    RefusedInARow,
    /// The tool's name carries a model's chat-template formatting (`unknown_tool_repeat`).
    ModelFormatting,
    /// A retry of a call failing transiently came sooner than it was asked to wait.
    TooSoon,
    /// A call has failed transiently for longer than `transientBudgetMs`: the service is down.
    Unavailable,
}

/// What the model is told and the numbers behind it, returned as the tool result when a call is
/// refused.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// Always `tool_loop_detected`.
    pub error: &'static str,
    /// The detector that refused the call.
    pub mode: DetectorId,
    /// The text for the model: what it did and what to do instead.
    pub message: String,
    /// The figures behind the refusal.
    pub observed: Observed,
}

/// `partnerTool`, `retryAfterMs` and `windowMs` are left out of the JSON when absent.
// The fields repeat `Finding`'s on purpose: this is their wire form in a refusal (plus the tool,
// minus the detector, which is the refusal's `mode`), and OpenClaw's findings fill it too.
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    /// The refused call's tool.
    pub tool: String,
    /// How many times the detector saw the pattern.
    pub count: u32,
    /// The count at which it refuses.
    pub threshold: u32,
    /// The verdict's level.
    pub level: Level,
    /// The other tool of a ping-pong pair.
    pub partner_tool: Option<String>,
    /// `tool_cap`: when the tool may be called again.
    pub retry_after_ms: Option<f64>,
    /// `tool_cap`: the window its calls are counted in.
    pub window_ms: Option<f64>,
}

/// Under the `shadow` policy: what the verdict would have been under `enforce`.
#[derive(Debug, Clone, PartialEq)]
pub struct WouldBe {
    /// The action under `enforce`.
    pub action: Action,
    /// The level under `enforce`.
    pub level: Level,
    /// The detector, if any found something.
    pub detector: Option<DetectorId>,
}

/// The verdict handed to the host as JSON (`to_json`): fields in camelCase, in this order;
/// `detector`, `threshold`, `runId` and `message` are `null` when absent, `hint`, `refusal`,
/// `wouldBe`, `retryAfterMs` and `sameAs` are left out. A `stop` verdict also carries `userMessage` (see
/// [`Verdict::user_message`]) after `message`.
// A plain field list, alike in shape to other structs' (e.g. `Config`) and sharing nothing with them.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// What the host must do.
    pub action: Action,
    /// How severe the finding is.
    pub level: Level,
    /// The detector behind the verdict; `None` for a plain allow.
    pub detector: Option<DetectorId>,
    /// How many times the detector saw the pattern (0 for a plain allow).
    pub count: u32,
    /// The count at which the detector acts at this level.
    pub threshold: Option<u32>,
    /// The record's tool.
    pub tool: String,
    /// The record's run; `None` for the default run.
    pub run_id: Option<String>,
    /// Why, in words written for the model (and the operator).
    pub message: Option<String>,
    /// `warn`: the text to inject into the model's next context.
    pub hint: Option<String>,
    /// `block` and `stop`: the tool result to hand to the model instead of running the tool.
    pub refusal: Option<Refusal>,
    /// Under `policy: "shadow"`: what the verdict would have been under `enforce`.
    pub would_be: Option<WouldBe>,
    /// `tool_cap`, `transient_failure`: how long until the call may be made again (ms).
    pub retry_after_ms: Option<f64>,
    /// A record's result repeats that of the earlier call with this id (config `sameAs`).
    pub same_as: Option<String>,
    /// `stop` verdicts: the loop the run was stopped for (its detector, basis and partner tool),
    /// which the user's text names; `None` where the verdict's own detector and partner tool say it.
    pub(crate) cause: Option<StopCause>,
}

/// Why a run was stopped, as the text for the user tells it: the detector whose finding stands
/// behind the stop (for a `global_circuit_breaker` stop, the loop its call was part of, e.g. a
/// ping-pong or an outage), on what basis, and the other tool of a ping-pong.
#[derive(Debug, Clone, PartialEq)]
pub struct StopCause {
    pub detector: DetectorId,
    pub basis: Basis,
    pub partner_tool: Option<String>,
}

impl StopCause {
    /// The cause a finding states.
    pub fn of(finding: &Finding) -> StopCause {
        StopCause {
            detector: finding.detector,
            basis: finding.basis,
            partner_tool: finding.partner_tool.clone(),
        }
    }
}

impl Verdict {
    /// `stop` verdicts only: why the run ended, written for the person who asked the agent (the
    /// `userMessage` of the JSON); `message` and the refusal stay written for the model.
    pub fn user_message(&self) -> Option<String> {
        let detector = self.detector.filter(|_| self.action == Action::Stop)?;
        let partner_tool = self
            .refusal
            .as_ref()
            .and_then(|r| r.observed.partner_tool.clone());
        let cause = self.cause.clone().unwrap_or(StopCause {
            detector,
            basis: Basis::Repeated,
            partner_tool,
        });
        Some(messages::for_user(
            detector,
            &cause,
            &self.tool,
            self.count,
            self.threshold.unwrap_or(self.count),
        ))
    }

    /// The plain allow for a call of `tool` in `run_id`.
    pub fn allow(tool: &str, run_id: Option<&str>) -> Verdict {
        Verdict {
            action: Action::Allow,
            level: Level::Ok,
            detector: None,
            count: 0,
            threshold: None,
            tool: tool.to_owned(),
            run_id: run_id.map(str::to_owned),
            message: None,
            hint: None,
            refusal: None,
            would_be: None,
            retry_after_ms: None,
            same_as: None,
            cause: None,
        }
    }

    /// True when this is exactly `Verdict::allow(tool, run_id)` for the record's own tool and run:
    /// the host can build it from the record itself, so it need not cross the wasm boundary.
    pub fn is_plain_allow(&self) -> bool {
        self.action == Action::Allow
            && self.level == Level::Ok
            && self.detector.is_none()
            && self.would_be.is_none()
            && self.message.is_none()
            && self.same_as.is_none()
    }

    /// The verdict for a finding at `check` time.
    pub(crate) fn from_finding(finding: &Finding, tool: &str, run_id: Option<&str>) -> Verdict {
        let message = messages::for_finding(finding, tool);
        let action = finding.level.action();
        let hint = (action == Action::Warn).then(|| message.clone());
        let refusal = matches!(action, Action::Block | Action::Stop).then(|| Refusal {
            error: "tool_loop_detected",
            mode: finding.detector,
            message: message.clone(),
            observed: Observed {
                tool: tool.to_owned(),
                count: finding.count,
                threshold: finding.threshold,
                level: finding.level,
                partner_tool: finding.partner_tool.clone(),
                retry_after_ms: finding.retry_after_ms,
                window_ms: finding.window_ms,
            },
        });
        Verdict {
            action,
            level: finding.level,
            detector: Some(finding.detector),
            count: finding.count,
            threshold: Some(finding.threshold),
            tool: tool.to_owned(),
            run_id: run_id.map(str::to_owned),
            message: Some(message),
            hint,
            refusal,
            would_be: None,
            retry_after_ms: finding.retry_after_ms,
            same_as: None,
            cause: (action == Action::Stop).then(|| StopCause::of(finding)),
        }
    }

    /// The verdict of a `record` whose identical next call would be refused: a warning that says
    /// so, quoting the start of the result in hand (`quote`), which is not kept.
    pub(crate) fn forecast(
        finding: &Finding,
        tool: &str,
        run_id: Option<&str>,
        quote: Option<&str>,
    ) -> Verdict {
        let message = messages::forecast(finding, tool, quote);
        Verdict {
            action: Action::Warn,
            level: Level::Warning,
            detector: Some(finding.detector),
            count: finding.count,
            threshold: Some(finding.threshold),
            tool: tool.to_owned(),
            run_id: run_id.map(str::to_owned),
            message: Some(message.clone()),
            hint: Some(message),
            refusal: None,
            would_be: None,
            retry_after_ms: None,
            same_as: None,
            cause: None,
        }
    }

    /// A warning found when a record came back (the record's own call was the evidence), quoting
    /// the start of the result in hand (`quote`), which is not kept.
    pub(crate) fn record_warning(
        finding: &Finding,
        tool: &str,
        run_id: Option<&str>,
        quote: Option<&str>,
    ) -> Verdict {
        let message = messages::record_warning(finding, tool, quote);
        Verdict {
            hint: Some(message.clone()),
            message: Some(message),
            retry_after_ms: finding.retry_after_ms,
            ..Verdict::forecast(finding, tool, run_id, None)
        }
    }

    /// Adapts an `enforce` verdict to the configured policy.
    pub(crate) fn under_policy(mut self, policy: Policy) -> Verdict {
        match policy {
            Policy::Enforce => {}
            Policy::Inject => {
                if matches!(self.action, Action::Block | Action::Stop) {
                    self.action = Action::Warn;
                    self.hint = self.message.clone();
                    self.refusal = None;
                }
            }
            Policy::Shadow => {
                self.would_be = Some(WouldBe {
                    action: self.action,
                    level: self.level,
                    detector: self.detector,
                });
                self.action = Action::Allow;
                self.hint = None;
                self.refusal = None;
            }
        }
        self
    }
}

/// What the guard answers a `check` or `record`: the plain allow (no detector, nothing for the
/// model), not built until someone asks for it, or any other verdict. Most calls are plain allows,
/// and the wasm bindings answer those with a status code alone.
// An answer only passes from the guard to its caller on the stack; boxing the verdict would cost
// an allocation for every verdict that is not a plain allow.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Answer {
    /// The plain allow, not built yet.
    Allow,
    /// Any other verdict.
    Verdict(Verdict),
}

impl Answer {
    /// The allow under `policy` for a call of `tool` in `run_id` (under `shadow` it carries
    /// `wouldBe`, so it is built).
    pub(crate) fn allow(policy: Policy, tool: &str, run_id: Option<&str>) -> Answer {
        match policy {
            Policy::Shadow => Answer::Verdict(Verdict::allow(tool, run_id).under_policy(policy)),
            Policy::Enforce | Policy::Inject => Answer::Allow,
        }
    }

    /// The verdict; a plain allow is built for `tool` in `run_id`.
    pub fn into_verdict(self, tool: &str, run_id: Option<&str>) -> Verdict {
        match self {
            Answer::Allow => Verdict::allow(tool, run_id),
            Answer::Verdict(verdict) => verdict,
        }
    }

    /// The action, without building the verdict.
    pub fn action(&self) -> Action {
        match self {
            Answer::Allow => Action::Allow,
            Answer::Verdict(verdict) => verdict.action,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_names_fields_in_camel_case_and_leaves_out_absent_extras() {
        let mut finding = Finding::new(DetectorId::ToolCap, Level::Critical, 3, 3);
        finding.retry_after_ms = Some(1500.5);
        finding.window_ms = Some(60_000.0);
        let refused = Verdict::from_finding(&finding, "se\"arch", Some("r1"));
        let message = messages::for_finding(&finding, "se\"arch").replace('"', "\\\"");
        assert_eq!(
            refused.to_json(),
            format!(
                "{{\"action\":\"block\",\"level\":\"critical\",\"detector\":\"tool_cap\",\
                 \"count\":3,\"threshold\":3,\"tool\":\"se\\\"arch\",\"runId\":\"r1\",\
                 \"message\":\"{message}\",\"refusal\":{{\"error\":\"tool_loop_detected\",\
                 \"mode\":\"tool_cap\",\"message\":\"{message}\",\"observed\":{{\
                 \"tool\":\"se\\\"arch\",\"count\":3,\"threshold\":3,\"level\":\"critical\",\
                 \"retryAfterMs\":1500.5,\"windowMs\":60000}}}},\"retryAfterMs\":1500.5}}"
            )
        );

        let mut finding = Finding::new(DetectorId::PingPong, Level::Warning, 6, 6);
        finding.partner_tool = Some("b".to_owned());
        let warned = Verdict::from_finding(&finding, "a", None);
        let message = messages::for_finding(&finding, "a");
        assert_eq!(
            warned.to_json(),
            format!(
                "{{\"action\":\"warn\",\"level\":\"warning\",\"detector\":\"ping_pong\",\
                 \"count\":6,\"threshold\":6,\"tool\":\"a\",\"runId\":null,\
                 \"message\":\"{message}\",\"hint\":\"{message}\"}}"
            )
        );

        assert_eq!(
            Verdict::allow("t", None).to_json(),
            "{\"action\":\"allow\",\"level\":\"ok\",\"detector\":null,\"count\":0,\
             \"threshold\":null,\"tool\":\"t\",\"runId\":null,\"message\":null}"
        );
    }

    #[test]
    fn shadow_json_carries_would_be_and_no_refusal() {
        let finding = Finding::new(DetectorId::GenericRepeat, Level::CircuitBreak, 9, 9);
        let shadowed = Verdict::from_finding(&finding, "t", None).under_policy(Policy::Shadow);
        let json = shadowed.to_json();
        assert!(json.starts_with("{\"action\":\"allow\",\"level\":\"circuit_break\","));
        assert!(json.ends_with(
            ",\"wouldBe\":{\"action\":\"stop\",\"level\":\"circuit_break\",\
             \"detector\":\"generic_repeat\"}}"
        ));
        assert!(!json.contains("\"hint\"") && !json.contains("\"refusal\""));
    }

    #[test]
    fn only_stop_verdicts_carry_a_user_message_written_for_the_user() {
        let finding = Finding::new(
            DetectorId::GlobalCircuitBreaker,
            Level::CircuitBreak,
            10,
            10,
        );
        let stopped = Verdict::from_finding(&finding, "status", Some("r"));
        let text = stopped.user_message().unwrap_or_default();
        assert!(!text.is_empty(), "a stop explains itself to the user");
        assert!(text.contains("`status`") && !text.contains("final answer"));
        assert_ne!(Some(&text), stopped.message.as_ref());
        let json = stopped.to_json();
        let message = stopped.message.as_deref().unwrap_or_default();
        assert!(json.contains(&format!(
            "\"message\":\"{message}\",\"userMessage\":\"{text}\""
        )));
        for policy in [Policy::Inject, Policy::Shadow] {
            let adapted = stopped.clone().under_policy(policy);
            assert_eq!(adapted.user_message(), None);
            assert!(!adapted.to_json().contains("userMessage"));
        }
        let blocked = Finding::new(DetectorId::GenericRepeat, Level::Critical, 5, 5);
        assert_eq!(
            Verdict::from_finding(&blocked, "t", None).user_message(),
            None
        );
        let budget = Finding::new(DetectorId::MaxTurns, Level::CircuitBreak, 40, 40);
        let budget_text = Verdict::from_finding(&budget, "t", None).user_message();
        assert!(budget_text.is_some_and(|text| text.contains("40")));
    }
}
