//! Verdicts: levels, actions, detector ids and the typed data handed back to the host.
//! The texts themselves live in `messages.rs`.

use crate::config::Policy;
use crate::messages;
use serde::Serialize;

/// Severity, in escalation order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Ok,
    Warning,
    Critical,
    CircuitBreak,
}

/// What the host must do with the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Allow,
    Warn,
    Block,
    Stop,
}

impl Level {
    pub fn action(self) -> Action {
        match self {
            Level::Ok => Action::Allow,
            Level::Warning => Action::Warn,
            Level::Critical => Action::Block,
            Level::CircuitBreak => Action::Stop,
        }
    }
}

/// Stable detector ids (snake_case on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DetectorId {
    GlobalCircuitBreaker,
    UnknownToolRepeat,
    KnownPollNoProgress,
    GenericRepeat,
    PingPong,
    PostCompactionLoop,
    Cycle,
    Stall,
    ErrorRepeat,
    MaxTurns,
    ToolCap,
}

impl DetectorId {
    pub const ALL: [DetectorId; 11] = [
        DetectorId::GlobalCircuitBreaker,
        DetectorId::UnknownToolRepeat,
        DetectorId::KnownPollNoProgress,
        DetectorId::GenericRepeat,
        DetectorId::PingPong,
        DetectorId::PostCompactionLoop,
        DetectorId::Cycle,
        DetectorId::Stall,
        DetectorId::ErrorRepeat,
        DetectorId::MaxTurns,
        DetectorId::ToolCap,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DetectorId::GlobalCircuitBreaker => "global_circuit_breaker",
            DetectorId::UnknownToolRepeat => "unknown_tool_repeat",
            DetectorId::KnownPollNoProgress => "known_poll_no_progress",
            DetectorId::GenericRepeat => "generic_repeat",
            DetectorId::PingPong => "ping_pong",
            DetectorId::PostCompactionLoop => "post_compaction_loop",
            DetectorId::Cycle => "cycle",
            DetectorId::Stall => "stall",
            DetectorId::ErrorRepeat => "error_repeat",
            DetectorId::MaxTurns => "max_turns",
            DetectorId::ToolCap => "tool_cap",
        }
    }
}

/// What one detector found about one call.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub detector: DetectorId,
    pub level: Level,
    pub count: u32,
    pub threshold: u32,
    /// The other tool of a ping-pong pair.
    pub partner_tool: Option<String>,
    /// `tool_cap`: how long until the tool may be called again, and the cap's window.
    pub retry_after_ms: Option<f64>,
    pub window_ms: Option<f64>,
}

impl Finding {
    pub fn new(detector: DetectorId, level: Level, count: u32, threshold: u32) -> Finding {
        Finding {
            detector,
            level,
            count,
            threshold,
            partner_tool: None,
            retry_after_ms: None,
            window_ms: None,
        }
    }
}

/// What the model is told and the numbers behind it, returned as the tool result when a call is
/// refused.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refusal {
    pub error: &'static str,
    pub mode: DetectorId,
    pub message: String,
    pub observed: Observed,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Observed {
    pub tool: String,
    pub count: u32,
    pub threshold: u32,
    pub level: Level,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partner_tool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_ms: Option<f64>,
}

/// Under the `shadow` policy: what the verdict would have been under `enforce`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WouldBe {
    pub action: Action,
    pub level: Level,
    pub detector: Option<DetectorId>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    pub action: Action,
    pub level: Level,
    pub detector: Option<DetectorId>,
    pub count: u32,
    pub threshold: Option<u32>,
    pub tool: String,
    pub run_id: Option<String>,
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refusal: Option<Refusal>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub would_be: Option<WouldBe>,
}

impl Verdict {
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
    }

    /// The verdict for a finding at `check` time.
    pub fn from_finding(finding: &Finding, tool: &str, run_id: Option<&str>) -> Verdict {
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
        }
    }

    /// The verdict of a `record` whose identical next call would be refused: a warning that says so.
    pub fn forecast(finding: &Finding, tool: &str, run_id: Option<&str>) -> Verdict {
        let message = messages::forecast(finding, tool);
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
        }
    }

    /// Adapts an `enforce` verdict to the configured policy.
    pub fn under_policy(mut self, policy: Policy) -> Verdict {
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
