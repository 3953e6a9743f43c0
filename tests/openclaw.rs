//! `preset: "openclaw"`: the texts carry the phrases OpenClaw's prompts and log scrapers key on
//! (verdict levels and counts are pinned by the scenario corpus, `tests/scenarios/openclaw_*`),
//! refusals carry their numbers, and the `inject` policy still applies.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::{json, Value};
use tool_loop_guard::Guard;

fn guard(extra: Value) -> Guard {
    let mut config = json!({"preset": "openclaw"});
    config
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    Guard::new(&config).unwrap()
}

fn check(guard: &mut Guard, tool: &str, args: &Value) -> Value {
    let call = json!({"tool": tool, "args": args}).to_string();
    serde_json::from_str(&guard.check(&call, 0.0).unwrap().to_json()).unwrap()
}

fn record(guard: &mut Guard, tool: &str, args: &Value, outcome: (&str, Value)) {
    let mut record = json!({"tool": tool, "args": args});
    record[outcome.0] = outcome.1;
    guard.record(&record.to_string(), 0.0).unwrap();
}

fn text(s: &str) -> (&'static str, Value) {
    (
        "result",
        json!({"content": [{"type": "text", "text": s}], "details": {"ok": true}}),
    )
}

/// The verdicts of `n` identical calls, each checked and (unless refused) recorded.
fn repeat(guard: &mut Guard, n: usize, tool: &str, args: &Value, result: &str) -> Vec<Value> {
    (0..n)
        .map(|_| {
            let verdict = check(guard, tool, args);
            if verdict["action"] == "allow" || verdict["action"] == "warn" {
                record(guard, tool, args, text(result));
            }
            verdict
        })
        .collect()
}

fn message(verdict: &Value) -> &str {
    verdict["message"].as_str().unwrap()
}

#[test]
fn identical_calls_warn_then_refuse_then_trip_the_global_breaker_in_openclaw_words() {
    let mut g = guard(json!({}));
    let args = json!({"path": "/same.txt"});
    let verdicts = repeat(&mut g, 31, "read", &args, "same output");
    let warned = message(&verdicts[10]);
    assert!(
        warned.starts_with("WARNING") && warned.contains("10 times"),
        "{warned}"
    );
    assert_eq!(verdicts[10]["hint"], verdicts[10]["message"]);
    let refused = &verdicts[20];
    assert!(message(refused).starts_with("CRITICAL"));
    assert!(message(refused).contains("identical outcomes"));
    assert_eq!(refused["refusal"]["observed"]["count"], 20);
    assert_eq!(refused["refusal"]["observed"]["threshold"], 20);
    let stopped = &verdicts[21];
    assert_eq!(stopped["action"], "stop");
    assert!(message(stopped).contains("already refused"), "{stopped}");
    let breaker = message(&verdicts[30]);
    assert!(breaker.contains("global circuit breaker") && breaker.contains("30 times"));
}

#[test]
fn polls_ping_pong_churn_and_missing_tools_in_openclaw_words() {
    let mut g = guard(json!({}));
    let poll = json!({"action": "poll", "sessionId": "s"});
    let verdicts = repeat(&mut g, 21, "process", &poll, "still running");
    assert!(message(&verdicts[10]).contains("no progress"));
    assert!(message(&verdicts[20]).starts_with("CRITICAL"));

    let mut g = guard(json!({}));
    let (a, b) = (json!({"path": "/a"}), json!({"dir": "/"}));
    for i in 0..19 {
        let (tool, args) = if i % 2 == 0 {
            ("read", &a)
        } else {
            ("list", &b)
        };
        record(&mut g, tool, args, text(tool));
    }
    let pong = check(&mut g, "list", &b);
    assert!(message(&pong).contains("ping-pong loop") && message(&pong).contains("CRITICAL"));
    assert_eq!(pong["refusal"]["observed"]["partnerTool"], "read");

    let mut g = guard(json!({}));
    for i in 0..10 {
        let path = if i % 5 == 1 || i % 5 == 4 { "/b" } else { "/a" };
        let unchanged = json!({"content": [], "details": {"changed": false}});
        record(
            &mut g,
            "write",
            &json!({"path": path}),
            ("result", unchanged),
        );
    }
    let churn = check(&mut g, "write", &json!({"path": "/a"}));
    assert_eq!(churn["detector"], "argument_churn");
    assert!(message(&churn).contains("tool call remains allowed"));
    assert!(message(&churn).contains("2 repeated argument patterns"));

    let mut g = guard(json!({}));
    for i in 0..10 {
        let error = json!({"message": "Unknown tool: web_search"});
        record(&mut g, "web_search", &json!({"q": i}), ("error", error));
    }
    let missing = check(&mut g, "web_search", &json!({"q": "x"}));
    assert_eq!(missing["detector"], "unknown_tool_repeat");
    assert!(message(&missing).contains("unavailable tool web_search"));
}

#[test]
fn inject_policy_turns_openclaw_refusals_into_warnings() {
    let mut g = guard(json!({"policy": "inject"}));
    let verdicts = repeat(&mut g, 21, "read", &json!({"p": 1}), "same");
    assert_eq!(verdicts[20]["action"], "warn");
    assert_eq!(verdicts[20]["level"], "critical");
    assert!(verdicts[20].get("refusal").is_none());
    // The warned-through call ran and its outcome attached to it: one record per call, so the
    // 31st call trips the global breaker at 30 (a warning under inject) exactly as under enforce.
    let more = repeat(&mut g, 10, "read", &json!({"p": 1}), "same");
    assert_eq!(more[9]["detector"], "global_circuit_breaker");
    assert_eq!(more[9]["count"], 30);
    assert_eq!(more[8]["count"], 29);
}

#[test]
fn snapshots_of_the_two_engines_are_not_interchangeable() {
    let mut openclaw = guard(json!({}));
    let mut default = Guard::new(&json!({})).unwrap();
    repeat(&mut openclaw, 3, "read", &json!({"p": 1}), "same");
    repeat(&mut default, 3, "read", &json!({"p": 1}), "same");
    let from_openclaw = openclaw.export_run(None);
    let from_default = default.export_run(None);
    assert_eq!(
        default
            .import_run(&from_openclaw)
            .unwrap_err()
            .code
            .as_str(),
        "invalid_snapshot"
    );
    assert_eq!(
        openclaw
            .import_run(&from_default)
            .unwrap_err()
            .code
            .as_str(),
        "invalid_snapshot"
    );
    let mut corrupt = from_openclaw.clone();
    corrupt[10] ^= 1;
    assert!(openclaw.import_run(&corrupt).is_err());
    assert_eq!(openclaw.import_run(&from_openclaw).unwrap(), None);
}

#[test]
fn a_snapshot_carries_every_part_of_the_window_to_a_fresh_guard() {
    let mut g = guard(json!({}));
    let poll = json!({"action": "poll", "sessionId": "s1"});
    let polled = repeat(&mut g, 12, "process", &poll, "still running");
    record(
        &mut g,
        "nope",
        &json!({}),
        ("error", json!("Tool nope not found")),
    );
    let read = repeat(&mut g, 21, "read", &json!({"p": 1}), "same");
    g.compacted(None);
    record(&mut g, "read", &json!({"p": 3}), ("result", json!("same")));
    let seen: Vec<&Value> = polled.iter().chain(&read).map(|v| &v["action"]).collect();
    assert!(seen.contains(&&json!("warn")) && seen.contains(&&json!("block")));
    let bytes = g.export_run(None);
    let mut twin = guard(json!({}));
    assert_eq!(twin.import_run(&bytes).unwrap(), None);
    assert_eq!(
        twin.export_run(None),
        bytes,
        "the import holds exactly what was exported"
    );
    // Both guards answer alike from here on: the third identical outcome since the compaction
    // stops the run.
    let step = |g: &mut Guard, tool: &str| {
        let call = json!({"tool": tool, "args": {"p": 3}}).to_string();
        let before = g.check(&call, 0.0).unwrap().to_json();
        let done = json!({"tool": tool, "args": {"p": 3}, "result": "same"}).to_string();
        (before, g.record(&done, 0.0).unwrap().to_json())
    };
    let ahead = ["read", "read"].map(|tool| step(&mut g, tool));
    assert!(
        ahead[1].1.contains("post_compaction_loop"),
        "{}",
        ahead[1].1
    );
    assert_eq!(["read", "read"].map(|tool| step(&mut twin, tool)), ahead);
}
