//! What `preset: "openclaw"` does to the config: OpenClaw 2026.9.6's window and thresholds, and
//! an error for every field of this guard's own detectors, which OpenClaw's detection (the
//! `openclaw` engine) does not have.

use super::Config;
use super::OWN_DETECTION_KEYS;
use crate::config::detector_ids::{DetectorId, Switch};
use crate::error::GuardError;
use serde_json::{Map, Value};

/// OpenClaw's window, thresholds and post-compaction window; `Config::from_json` applies them
/// for `preset: "openclaw"` before explicit fields.
pub fn apply_preset(config: &mut Config) {
    config.openclaw = true;
    config.history_size = 30;
    config.warning_threshold = 10;
    config.critical_threshold = 20;
    config.global_circuit_breaker_threshold = 30;
    config.unknown_tool_threshold = 10;
    config.post_compaction_guard.window_size = 3;
    config.max_turns = None;
}

/// Under `preset: "openclaw"` a field that could not change any verdict is an error, not ignored.
pub fn reject_unused_fields(map: &Map<String, Value>) -> Result<(), GuardError> {
    let detectors = map.get("detectors").and_then(Value::as_object);
    let unused = |field: &str| {
        GuardError::config(
            field,
            format!(
                "{field} has no effect under preset \"openclaw\" (OpenClaw has no such setting)"
            ),
        )
    };
    for key in OWN_DETECTION_KEYS {
        if map.contains_key(*key) {
            return Err(unused(key));
        }
    }
    for id in DetectorId::ALL {
        let Switch::Own(key) = id.switch() else {
            continue;
        };
        if detectors.is_some_and(|d| d.contains_key(key)) {
            return Err(unused(&format!("detectors.{key}")));
        }
    }
    Ok(())
}
