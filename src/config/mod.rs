//! The guard's configuration: OpenClaw's `tools.loopDetection` block (same names; defaults
//! recalibrated on real trajectories, and on unless `enabled: false`), the `strict` preset for
//! small models, and this guard's own options. Validation names the offending field and value; config is fixed at construction.

pub(crate) mod detector_ids;
pub(crate) mod effect_table;
mod openclaw_preset;
pub(crate) mod tools;
pub(crate) mod volatile_keys;

use crate::config::detector_ids::{DetectorId, DetectorSwitches, Switch};
use crate::config::tools::ToolSettings;
use crate::error::{ErrorCode, GuardError};
use serde_json::{Map, Value};
use std::collections::HashMap;
use volatile_keys::VolatileKeys;

/// What the host does with verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Warn, block and stop as the levels say.
    Enforce,
    /// Never block or stop: a refusal becomes a warning that carries its message as the hint.
    Inject,
    /// Always allow; verdicts carry `wouldBe` so false positives can be measured first.
    Shadow,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostCompactionGuard {
    pub enabled: bool,
    pub window_size: u32,
}

// A plain field list, alike in shape to other structs' (e.g. `Verdict`) and sharing nothing with them.
#[derive(Debug, Clone)]
pub struct Config {
    pub enabled: bool,
    pub history_size: u32,
    pub warning_threshold: u32,
    pub critical_threshold: u32,
    pub unknown_tool_threshold: u32,
    pub global_circuit_breaker_threshold: u32,
    pub detectors: DetectorSwitches,
    pub post_compaction_guard: PostCompactionGuard,
    /// Ping-pong and cycles turn critical after this many stable laps instead of
    /// `criticalThreshold` calls.
    pub critical_laps: Option<u32>,
    /// Longest cycle `cycle` looks for (periods 3..=this).
    pub max_cycle_period: u32,
    /// Calls per run; the call after the cap stops the run.
    pub max_turns: Option<u32>,
    /// The longest wait advised between unchanged polls (`known_poll_no_progress`).
    pub patient_poll_ms: f64,
    /// An unchanged poll streak waits as advised for this long; then it is refused at
    /// `criticalThreshold`.
    pub poll_budget_ms: f64,
    /// A call failing transiently (an outage) this long in a row is refused as unavailable.
    pub transient_budget_ms: f64,
    /// Record verdicts name the earlier call whose result a record repeats (`sameAs`); runs keep
    /// their completed calls' ids for it.
    pub same_as: bool,
    pub policy: Policy,
    pub volatile_keys: VolatileKeys,
    pub poll_tools: Vec<String>,
    pub tools: HashMap<String, ToolSettings>,
    pub max_runs: u32,
    pub max_record_bytes: u32,
    /// `preset: "openclaw"`: OpenClaw's own detection (`crate::openclaw`) instead of the detectors.
    pub openclaw: bool,
}

/// Largest accepted value for counts and thresholds: far beyond any sane setting, below the cap of
/// a record's streak counters (`record_meta::COUNTER_MAX`), small enough that arithmetic on it cannot
/// overflow.
pub(crate) const MAX_COUNT: u64 = 500_000;
const MAX_HISTORY: u64 = 10_000;

impl Default for Config {
    fn default() -> Self {
        Config {
            enabled: true,
            history_size: 30,
            warning_threshold: 3,
            critical_threshold: 5,
            unknown_tool_threshold: 3,
            global_circuit_breaker_threshold: 10,
            detectors: DetectorSwitches::default(),
            post_compaction_guard: PostCompactionGuard {
                enabled: true,
                window_size: 3,
            },
            critical_laps: Some(3),
            max_cycle_period: 16,
            max_turns: None,
            patient_poll_ms: 30_000.0,
            poll_budget_ms: 7_200_000.0,
            transient_budget_ms: 300_000.0,
            same_as: false,
            policy: Policy::Enforce,
            volatile_keys: VolatileKeys::default(),
            poll_tools: Vec::new(),
            tools: HashMap::new(),
            max_runs: 100_000,
            max_record_bytes: 32 * 1024 * 1024,
            openclaw: false,
        }
    }
}

/// What a preset changes in the defaults (explicit fields are applied after it).
type ApplyPreset = fn(&mut Config);

/// The values of `preset` and what each does to the defaults.
pub(crate) const PRESETS: [(&str, ApplyPreset); 3] = [
    ("default", |_| {}),
    ("strict", apply_strict),
    ("openclaw", openclaw_preset::apply_preset),
];

/// The values of `policy`.
pub(crate) const POLICIES: [(&str, Policy); 3] = [
    ("enforce", Policy::Enforce),
    ("inject", Policy::Inject),
    ("shadow", Policy::Shadow),
];

/// The `strict` preset, for small models that loop early and often: an identical call with an
/// identical result, nothing else changing, is warned at its 2nd call, refused at its 4th and
/// stops the run at its 6th; other detectors scale with these. No turn cap: a budget is not loop
/// detection (`maxTurns` stays opt-in).
fn apply_strict(config: &mut Config) {
    config.warning_threshold = 2;
    config.critical_threshold = 3;
    config.global_circuit_breaker_threshold = 5;
}

/// The top-level keys OpenClaw's `tools.loopDetection` block has too: every preset honours them.
const OPENCLAW_KEYS: &[&str] = &[
    "enabled",
    "historySize",
    "warningThreshold",
    "criticalThreshold",
    "unknownToolThreshold",
    "globalCircuitBreakerThreshold",
    "detectors",
    "postCompactionGuard",
];

/// The settings of this guard's own detectors, which OpenClaw's detection does not have: an error
/// under `preset: "openclaw"` (`openclaw_preset`).
pub const OWN_DETECTION_KEYS: &[&str] = &[
    "criticalLaps",
    "maxCyclePeriod",
    "maxTurns",
    "patientPollMs",
    "pollBudgetMs",
    "transientBudgetMs",
    "sameAs",
    "tools",
    "volatileKeys",
    "pollTools",
];

/// How the guard runs, whatever its detection.
const GUARD_KEYS: &[&str] = &["preset", "policy", "maxRuns", "maxRecordBytes"];

/// Every key a config object may have at its top level; any other is `invalid_config`.
pub fn top_level_keys() -> Vec<&'static str> {
    [OPENCLAW_KEYS, OWN_DETECTION_KEYS, GUARD_KEYS].concat()
}

impl Config {
    /// Parses and validates a config object. `null` (or `{}`) means all defaults: those are taken
    /// without running the validation, which is kept out of line so that a fresh process's first
    /// `new LoopGuard()` does not have to compile it (wasm functions compile on first call).
    pub fn from_json(value: &Value) -> Result<Config, GuardError> {
        match value {
            Value::Null => Ok(Config::default()),
            Value::Object(map) if map.is_empty() => Ok(Config::default()),
            Value::Object(map) => Config::from_map(map),
            other => Err(not_an_object(other)),
        }
    }

    /// Parses and validates a non-empty config object.
    #[inline(never)]
    fn from_map(map: &Map<String, Value>) -> Result<Config, GuardError> {
        reject_unknown_keys(map, &top_level_keys(), "")?;

        let mut config = Config::default();
        if let Some(apply) = opt_choice(map, "preset", "preset", &PRESETS)? {
            apply(&mut config);
        }
        if let Some(v) = opt_bool(map, "enabled", "enabled")? {
            config.enabled = v;
        }
        if let Some(v) = opt_bool(map, "sameAs", "sameAs")? {
            config.same_as = v;
        }
        let counts: [(&str, &mut u32, u64); 7] = [
            ("historySize", &mut config.history_size, MAX_HISTORY),
            ("warningThreshold", &mut config.warning_threshold, MAX_COUNT),
            (
                "criticalThreshold",
                &mut config.critical_threshold,
                MAX_COUNT,
            ),
            (
                "unknownToolThreshold",
                &mut config.unknown_tool_threshold,
                MAX_COUNT,
            ),
            (
                "globalCircuitBreakerThreshold",
                &mut config.global_circuit_breaker_threshold,
                MAX_COUNT,
            ),
            ("maxRuns", &mut config.max_runs, 100_000_000),
            (
                "maxRecordBytes",
                &mut config.max_record_bytes,
                u64::from(u32::MAX),
            ),
        ];
        for (key, slot, max) in counts {
            if let Some(v) = opt_count(map, key, key, max)? {
                *slot = v;
            }
        }
        match map.get("criticalLaps") {
            None => {}
            Some(Value::Null) => config.critical_laps = None,
            Some(_) => {
                config.critical_laps = opt_count(map, "criticalLaps", "criticalLaps", MAX_COUNT)?
            }
        }
        match map.get("maxTurns") {
            None => {}
            Some(Value::Null) => config.max_turns = None,
            Some(_) => config.max_turns = opt_count(map, "maxTurns", "maxTurns", MAX_COUNT)?,
        }
        if let Some(period) = opt_count(map, "maxCyclePeriod", "maxCyclePeriod", MAX_CYCLE_PERIOD)?
        {
            if period < 3 {
                return Err(GuardError::config(
                    "maxCyclePeriod",
                    format!(
                        "maxCyclePeriod must be at least 3 (period 2 is ping_pong), got {period}"
                    ),
                ));
            }
            config.max_cycle_period = period;
        }
        for (key, slot) in [
            ("patientPollMs", &mut config.patient_poll_ms),
            ("pollBudgetMs", &mut config.poll_budget_ms),
            ("transientBudgetMs", &mut config.transient_budget_ms),
        ] {
            if let Some(ms) = opt_millis(map, key)? {
                *slot = ms;
            }
        }
        if let Some(policy) = opt_choice(map, "policy", "policy", &POLICIES)? {
            config.policy = policy;
        }
        if let Some(tools) = opt_object(map, "tools", "tools")? {
            for (name, value) in tools {
                config
                    .tools
                    .insert(name.clone(), ToolSettings::parse(name, value)?);
            }
        }
        if let Some(detectors) = opt_object(map, "detectors", "detectors")? {
            let switches: Vec<(DetectorId, &str)> = DetectorId::ALL
                .iter()
                .filter_map(|id| match id.switch() {
                    Switch::OpenClaw(key) | Switch::Own(key) => Some((*id, key)),
                    Switch::None => None,
                })
                .collect();
            let keys: Vec<&str> = switches.iter().map(|(_, key)| *key).collect();
            reject_unknown_keys(detectors, &keys, "detectors.")?;
            for (id, key) in switches {
                if let Some(on) = opt_bool(detectors, key, &format!("detectors.{key}"))? {
                    config.detectors.set(id, on);
                }
            }
        }
        if let Some(guard) = opt_object(map, "postCompactionGuard", "postCompactionGuard")? {
            reject_unknown_keys(guard, &["enabled", "windowSize"], "postCompactionGuard.")?;
            if let Some(v) = opt_bool(guard, "enabled", "postCompactionGuard.enabled")? {
                config.post_compaction_guard.enabled = v;
            }
            if let Some(v) = opt_count(
                guard,
                "windowSize",
                "postCompactionGuard.windowSize",
                MAX_COUNT,
            )? {
                config.post_compaction_guard.window_size = v;
            }
        }
        if let Some(keys) = opt_string_list(map, "volatileKeys", "volatileKeys")? {
            config.volatile_keys = VolatileKeys::with_extra(keys);
        }
        if let Some(tools) = opt_string_list(map, "pollTools", "pollTools")? {
            config.poll_tools = tools;
        }
        config.check_order()?;
        if config.openclaw {
            openclaw_preset::reject_unused_fields(map)?;
        }
        Ok(config)
    }

    fn check_order(&self) -> Result<(), GuardError> {
        check_pair("", self.warning_threshold, self.critical_threshold)?;
        for (name, tool) in &self.tools {
            let prefix = format!("tools.{name}.");
            let warning = tool.warning_threshold.unwrap_or(self.warning_threshold);
            let critical = tool.critical_threshold.unwrap_or(self.critical_threshold);
            check_pair(&prefix, warning, critical)?;
            if critical >= self.global_circuit_breaker_threshold {
                return Err(GuardError::config(
                    &format!("{prefix}criticalThreshold"),
                    format!(
                        "{prefix}criticalThreshold must be less than globalCircuitBreakerThreshold ({}), got {critical}",
                        self.global_circuit_breaker_threshold
                    ),
                ));
            }
        }
        if self.global_circuit_breaker_threshold <= self.critical_threshold {
            return Err(GuardError::config(
                "globalCircuitBreakerThreshold",
                format!(
                    "globalCircuitBreakerThreshold must be greater than criticalThreshold ({}), got {}",
                    self.critical_threshold, self.global_circuit_breaker_threshold
                ),
            ));
        }
        Ok(())
    }

    /// Warning and critical thresholds of a tool with these per-tool `settings` (if any).
    pub fn thresholds(&self, settings: Option<&ToolSettings>) -> (u32, u32) {
        (
            settings
                .and_then(|s| s.warning_threshold)
                .unwrap_or(self.warning_threshold),
            settings
                .and_then(|s| s.critical_threshold)
                .unwrap_or(self.critical_threshold),
        )
    }
}

const MAX_CYCLE_PERIOD: u64 = 32;

/// `warning < critical`, reported against the critical field under `prefix`.
fn check_pair(prefix: &str, warning: u32, critical: u32) -> Result<(), GuardError> {
    if critical > warning {
        return Ok(());
    }
    Err(GuardError::config(
        &format!("{prefix}criticalThreshold"),
        format!("{prefix}criticalThreshold must be greater than {prefix}warningThreshold ({warning}), got {critical}"),
    ))
}

fn opt_millis(map: &Map<String, Value>, key: &str) -> Result<Option<f64>, GuardError> {
    match given(map, key) {
        None => Ok(None),
        Some(Value::Number(n)) if n.as_f64().is_some_and(|x| x.is_finite() && x > 0.0) => {
            Ok(n.as_f64())
        }
        Some(other) => Err(must_be(key, "a positive number of milliseconds", other)),
    }
}

pub(crate) fn reject_unknown_keys(
    map: &Map<String, Value>,
    known: &[&str],
    prefix: &str,
) -> Result<(), GuardError> {
    match map.keys().find(|k| !known.contains(&k.as_str())) {
        None => Ok(()),
        Some(key) => {
            let field = format!("{prefix}{key}");
            Err(GuardError::config(
                &field,
                format!(
                    "unknown config key \"{field}\"; known keys: {}",
                    known.join(", ")
                ),
            ))
        }
    }
}

/// The value at `key`; `None` when it is absent or `null` (both mean "keep the default").
fn given<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    map.get(key).filter(|value| !value.is_null())
}

/// The `invalid_config` error of a `field` whose value `got` is not `expected`.
pub(crate) fn must_be(field: &str, expected: &str, got: &Value) -> GuardError {
    GuardError::config(
        field,
        format!("{field} must be {expected}, got {}", describe(got)),
    )
}

fn opt_bool(map: &Map<String, Value>, key: &str, field: &str) -> Result<Option<bool>, GuardError> {
    match given(map, key) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(must_be(field, "true or false", other)),
    }
}

/// One of a fixed set of strings, mapped to its value; the error lists the allowed strings.
pub(crate) fn opt_choice<T: Copy>(
    map: &Map<String, Value>,
    key: &str,
    field: &str,
    choices: &[(&str, T)],
) -> Result<Option<T>, GuardError> {
    let Some(value) = given(map, key) else {
        return Ok(None);
    };
    if let Some((_, chosen)) = choices
        .iter()
        .find(|(name, _)| value.as_str() == Some(name))
    {
        return Ok(Some(*chosen));
    }
    let names: Vec<String> = choices
        .iter()
        .map(|(name, _)| format!("\"{name}\""))
        .collect();
    let allowed = match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    Err(must_be(field, &allowed, value))
}

pub(crate) fn opt_count(
    map: &Map<String, Value>,
    key: &str,
    field: &str,
    max: u64,
) -> Result<Option<u32>, GuardError> {
    let Some(value) = given(map, key) else {
        return Ok(None);
    };
    let n = value
        .as_f64()
        .filter(|n| n.fract() == 0.0 && *n >= 1.0 && *n <= max as f64);
    match n {
        Some(n) => Ok(Some(n as u32)),
        None => Err(must_be(
            field,
            &format!("a positive integer no larger than {max}"),
            value,
        )),
    }
}

pub(crate) fn opt_object<'a>(
    map: &'a Map<String, Value>,
    key: &str,
    field: &str,
) -> Result<Option<&'a Map<String, Value>>, GuardError> {
    match given(map, key) {
        None => Ok(None),
        Some(Value::Object(inner)) => Ok(Some(inner)),
        Some(other) => Err(must_be(field, "an object", other)),
    }
}

pub(crate) fn opt_string_list(
    map: &Map<String, Value>,
    key: &str,
    field: &str,
) -> Result<Option<Vec<String>>, GuardError> {
    let items = match given(map, key) {
        None => return Ok(None),
        Some(Value::Array(items)) => items,
        Some(other) => return Err(must_be(field, "an array of strings", other)),
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) if !s.is_empty() => Ok(s.clone()),
            other => Err(GuardError::config(
                field,
                format!(
                    "{field}[{i}] must be a non-empty string, got {}",
                    describe(other)
                ),
            )),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// The error for a config that is neither an object nor `null`.
#[cold]
#[inline(never)]
fn not_an_object(value: &Value) -> GuardError {
    GuardError::new(
        ErrorCode::InvalidConfig,
        None,
        format!("config must be an object, got {}", describe(value)),
    )
}

/// A short, bounded description of a JSON value for error messages.
pub fn describe(value: &Value) -> String {
    let text = match value {
        Value::Object(_) => "an object".to_owned(),
        Value::Array(_) => "an array".to_owned(),
        // Scalars as JSON text (numbers in the `Number#toString` form the host's JSON had).
        other => crate::json::canonical::to_canonical_string(other),
    };
    if text.chars().count() > 60 {
        let short: String = text.chars().take(57).collect();
        format!("{short}...")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `null` and `{}` skip the validation: the defaults they take must be what validating an
    /// empty object gives.
    #[test]
    fn empty_config_is_the_validated_defaults() -> Result<(), GuardError> {
        let validated = format!("{:?}", Config::from_map(&Map::new())?);
        assert_eq!(format!("{:?}", Config::from_json(&Value::Null)?), validated);
        let empty = Value::Object(Map::new());
        assert_eq!(format!("{:?}", Config::from_json(&empty)?), validated);
        Ok(())
    }

    #[test]
    fn a_config_that_is_not_an_object_is_refused() {
        let error = Config::from_json(&Value::Bool(true))
            .err()
            .map(|e| e.message);
        assert_eq!(error.as_deref(), Some("config must be an object, got true"));
    }
}
