//! Policies change only the action (and what the host is handed): `shadow` always allows and says
//! what enforcing would have done; `inject` turns refusals into warnings carrying the refusal text.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::{json, Value};
use tool_loop_guard::Guard;

/// The 4th identical call under the strict preset, as JSON.
fn fourth_identical_call(policy: &str) -> Value {
    let mut guard = Guard::new(&json!({"preset": "strict", "policy": policy})).unwrap();
    let call = json!({"tool": "update_task", "args": {"id": 1}}).to_string();
    let outcome =
        json!({"tool": "update_task", "args": {"id": 1}, "result": "updated"}).to_string();
    for _ in 0..3 {
        guard.check(&call, 0.0).unwrap();
        guard.record(&outcome, 0.0).unwrap();
    }
    serde_json::from_str::<Value>(&guard.check(&call, 0.0).unwrap().to_json()).unwrap()
}

#[test]
fn enforce_blocks_with_a_refusal() {
    let v = fourth_identical_call("enforce");
    assert_eq!(v["action"], "block");
    assert_eq!(v["refusal"]["error"], "tool_loop_detected");
    assert!(v.get("wouldBe").is_none());
}

#[test]
fn shadow_allows_and_reports_what_enforce_would_do() {
    let v = fourth_identical_call("shadow");
    assert_eq!(v["action"], "allow");
    assert_eq!(v["level"], "critical");
    assert_eq!(
        v["wouldBe"],
        json!({"action": "block", "level": "critical", "detector": "generic_repeat"})
    );
    assert!(v.get("refusal").is_none() && v.get("hint").is_none());
}

#[test]
fn inject_warns_with_the_refusal_text_as_hint() {
    let v = fourth_identical_call("inject");
    assert_eq!(v["action"], "warn");
    assert_eq!(v["level"], "critical");
    assert!(v["hint"].as_str().unwrap().starts_with("Refused:"));
    assert_eq!(v["hint"], v["message"]);
    assert!(v.get("refusal").is_none() && v.get("wouldBe").is_none());
}
