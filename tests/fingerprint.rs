//! `Guard::fingerprint` gives the fingerprints the guard itself compares: outcomes that differ only
//! in volatile keys fingerprint alike and are "the same outcome" to the detectors, outcomes that
//! fingerprint apart are not; nothing is stored.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::{json, Value};
use tool_loop_guard::{ErrorCode, Guard, RecordFingerprints};

fn fingerprints(guard: &Guard, record: &Value) -> RecordFingerprints {
    guard.fingerprint(&record.to_string(), None).unwrap()
}

fn exec_result(stdout: &str, duration_ms: u32) -> Value {
    json!({"content": [{"type": "text", "text": stdout}], "details": {"exitCode": 0, "durationMs": duration_ms}})
}

#[test]
fn volatile_keys_do_not_change_the_outcome_fingerprint() {
    let guard = Guard::new(&Value::Null).unwrap();
    let a = fingerprints(
        &guard,
        &json!({"tool": "t", "result": exec_result("ok", 5)}),
    );
    let b = fingerprints(
        &guard,
        &json!({"tool": "t", "result": exec_result("ok", 900)}),
    );
    let c = fingerprints(
        &guard,
        &json!({"tool": "t", "result": exec_result("changed", 5)}),
    );
    assert_eq!(a, b);
    assert!(a.outcome.is_some());
    assert_ne!(a.outcome, c.outcome);
    assert_eq!(a.args, c.args);
}

#[test]
fn the_config_s_volatile_keys_count_too() {
    let record = |elapsed: u32| json!({"tool": "t", "result": {"rows": 3, "elapsed": elapsed}});
    let plain = Guard::new(&Value::Null).unwrap();
    assert_ne!(
        fingerprints(&plain, &record(1)).outcome,
        fingerprints(&plain, &record(2)).outcome
    );
    let configured = Guard::new(&json!({"volatileKeys": ["elapsed"]})).unwrap();
    assert_eq!(
        fingerprints(&configured, &record(1)),
        fingerprints(&configured, &record(2))
    );
}

#[test]
fn arguments_fingerprint_canonically_and_a_call_has_no_outcome() {
    let guard = Guard::new(&Value::Null).unwrap();
    let a = fingerprints(
        &guard,
        &json!({"tool": "t", "args": {"b": 1, "a": [1.0, "x"]}}),
    );
    let b = fingerprints(
        &guard,
        &json!({"tool": "t", "args": {"a": [1, "x"], "b": 1}}),
    );
    assert_eq!(a, b);
    assert_eq!(a.outcome, None);
    let absent = fingerprints(&guard, &json!({"tool": "t"}));
    let empty = fingerprints(&guard, &json!({"tool": "t", "args": {}}));
    assert_eq!(absent.args, empty.args);
    assert_ne!(absent.args, a.args);
    let failed = fingerprints(&guard, &json!({"tool": "t", "error": "boom"}));
    let returned = fingerprints(&guard, &json!({"tool": "t", "result": "boom"}));
    assert!(failed.outcome.is_some());
    assert_ne!(failed.outcome, returned.outcome);
}

/// Checks and records `results` as outcomes of one identical call under the strict preset, then
/// returns the action of the next identical check.
fn next_action_after(results: &[Value]) -> String {
    let mut guard = Guard::new(&json!({"preset": "strict"})).unwrap();
    let call = json!({"tool": "read_status", "args": {"id": 1}}).to_string();
    for result in results {
        guard.check(&call, 0.0).unwrap();
        let outcome = json!({"tool": "read_status", "args": {"id": 1}, "result": result});
        guard.record(&outcome.to_string(), 0.0).unwrap();
    }
    let verdict: Value = serde_json::from_str(&guard.check(&call, 0.0).unwrap().to_json()).unwrap();
    verdict["action"].as_str().unwrap().to_owned()
}

#[test]
fn equal_fingerprints_are_what_the_guard_counts_as_the_same_outcome() {
    let guard = Guard::new(&json!({"preset": "strict"})).unwrap();
    let alike = [
        exec_result("idle", 1),
        exec_result("idle", 2),
        exec_result("idle", 3),
    ];
    let apart = [
        exec_result("idle", 1),
        exec_result("busy", 2),
        exec_result("idle", 3),
    ];
    let outcome = |result: &Value| {
        fingerprints(&guard, &json!({"tool": "read_status", "result": result})).outcome
    };
    assert!(alike.iter().all(|r| outcome(r) == outcome(&alike[0])));
    assert_ne!(outcome(&apart[1]), outcome(&apart[0]));
    // Three identical outcomes: strict refuses the fourth identical call; one differing: it does not.
    assert_eq!(next_action_after(&alike), "block");
    assert_ne!(next_action_after(&apart), "block");
}

#[test]
fn nothing_is_stored_and_bad_input_is_a_typed_error() {
    let mut guard = Guard::new(&Value::Null).unwrap();
    for _ in 0..3 {
        fingerprints(
            &guard,
            &json!({"runId": "r", "tool": "t", "result": "same"}),
        );
    }
    let stats: Value = serde_json::from_str(&guard.stats().to_json()).unwrap();
    assert_eq!(
        (stats["checks"].as_u64(), stats["records"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(stats["liveRuns"].as_u64(), Some(0));
    let error = guard.fingerprint(r#"{"tool": ""}"#, None).unwrap_err();
    assert_eq!(
        (error.code, error.field.as_deref()),
        (ErrorCode::InvalidRecord, Some("tool"))
    );
    let error = guard.fingerprint("[1]", None).unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidRecord);
    // The guard still works.
    let call = json!({"tool": "t"}).to_string();
    assert!(guard.check(&call, 0.0).is_ok());
}
