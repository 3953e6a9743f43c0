//! Per-tool settings (`tools: {"<name>": {...}}` in the config: a tool's kind, cap, thresholds and
//! extra ignored fields), the tool kinds, and the one poll rule every preset reads. What a tool
//! is by its name is `config::effect_table`'s.

use crate::config::{
    describe, must_be, opt_choice, opt_count, opt_object, opt_string_list, reject_unknown_keys,
    MAX_COUNT,
};
use crate::error::GuardError;
use serde_json::{Map, Value};

/// What a tool does, as far as loop detection cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// Repeated identical outcomes are expected while waiting: judged by `known_poll_no_progress`.
    Poll,
    /// Reads or computes: the default.
    Read,
    /// Changes something; identical acknowledgements for different arguments are not a stall,
    /// and repeating an identical change is judged only while nothing else changes.
    Mutate,
    /// Runs arbitrary commands (`bash`, `exec`, `run_shell_command`): reads and writes alike, so
    /// identical output for different commands is not a stall (most writes print nothing).
    Command,
    /// Neither known to read nor known to write (`run_speed_test`, `toggle_roaming`): judged as a
    /// read when it repeats, but it may have changed anything, so its new results count as
    /// changes for the calls after it. A window record keeps it as `Command` (it may have read or
    /// written anything, as a command does): `run::record_meta::kind_code`.
    Unknown,
}

impl ToolKind {
    /// Whether a call of this kind is judged as a read when it repeats (`stall` asks).
    pub fn judged_as_read(self) -> bool {
        matches!(self, ToolKind::Read | ToolKind::Unknown)
    }
}

/// At most `calls` calls within any `window_ms`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cap {
    pub calls: u32,
    pub window_ms: f64,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolSettings {
    pub kind: Option<ToolKind>,
    pub cap: Option<Cap>,
    /// Extra volatile keys dropped at any depth of this tool's outcomes.
    pub ignore_keys: Vec<String>,
    /// JSON pointers (RFC 6901) removed from this tool's outcomes before hashing.
    pub ignore_pointers: Vec<String>,
    pub warning_threshold: Option<u32>,
    pub critical_threshold: Option<u32>,
}

impl ToolSettings {
    pub fn parse(name: &str, value: &Value) -> Result<ToolSettings, GuardError> {
        let prefix = format!("tools.{name}");
        let Value::Object(map) = value else {
            return Err(must_be(&prefix, "an object", value));
        };
        reject_unknown_keys(
            map,
            &[
                "kind",
                "cap",
                "ignore",
                "warningThreshold",
                "criticalThreshold",
            ],
            &format!("{prefix}."),
        )?;
        let mut settings = ToolSettings {
            kind: parse_kind(map, &prefix)?,
            ..ToolSettings::default()
        };
        if let Some(cap) = opt_object(map, "cap", &format!("{prefix}.cap"))? {
            settings.cap = Some(parse_cap(cap, &format!("{prefix}.cap"))?);
        }
        for entry in
            opt_string_list(map, "ignore", &format!("{prefix}.ignore"))?.unwrap_or_default()
        {
            if entry.starts_with('/') {
                settings.ignore_pointers.push(entry);
            } else {
                settings.ignore_keys.push(entry);
            }
        }
        let field = |key: &str| format!("{prefix}.{key}");
        settings.warning_threshold = opt_count(
            map,
            "warningThreshold",
            &field("warningThreshold"),
            MAX_COUNT,
        )?;
        settings.critical_threshold = opt_count(
            map,
            "criticalThreshold",
            &field("criticalThreshold"),
            MAX_COUNT,
        )?;
        Ok(settings)
    }
}

/// The values of `tools.<name>.kind`.
pub(crate) const TOOL_KINDS: [(&str, ToolKind); 4] = [
    ("poll", ToolKind::Poll),
    ("read", ToolKind::Read),
    ("mutate", ToolKind::Mutate),
    ("command", ToolKind::Command),
];

fn parse_kind(map: &Map<String, Value>, prefix: &str) -> Result<Option<ToolKind>, GuardError> {
    opt_choice(map, "kind", &format!("{prefix}.kind"), &TOOL_KINDS)
}

fn parse_cap(cap: &Map<String, Value>, prefix: &str) -> Result<Cap, GuardError> {
    reject_unknown_keys(cap, &["calls", "windowMs"], &format!("{prefix}."))?;
    let calls_field = format!("{prefix}.calls");
    let calls = opt_count(cap, "calls", &calls_field, 1_000_000)?
        .ok_or_else(|| GuardError::config(&calls_field, format!("{calls_field} is required")))?;
    let window_field = format!("{prefix}.windowMs");
    let window_ms = match cap.get("windowMs") {
        Some(Value::Number(n)) => n.as_f64().filter(|x| x.is_finite() && *x > 0.0),
        _ => None,
    }
    .ok_or_else(|| {
        GuardError::config(
            &window_field,
            format!(
                "{window_field} must be a positive number of milliseconds, got {}",
                cap.get("windowMs").map_or("nothing".to_owned(), describe)
            ),
        )
    })?;
    Ok(Cap { calls, window_ms })
}

/// The polls every preset knows (the one poll rule; `preset: "openclaw"` reads it too):
/// `command_status`, and `process` called with `action: "poll"` or `"log"` (a running process).
pub fn is_known_poll(tool: &str, action: Option<&str>) -> bool {
    tool == "command_status" || (tool == "process" && matches!(action, Some("poll" | "log")))
}
