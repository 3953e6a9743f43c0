//! Stats: the counters a gateway exports as metrics (by action, level and detector), runs alive
//! and evicted.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::json;
use tool_loop_guard::Guard;

#[test]
fn counters_follow_the_verdicts() {
    let mut guard = Guard::new(&json!({"preset": "strict", "maxRuns": 2})).unwrap();
    let call = json!({"runId": "a", "tool": "update_task", "args": {}}).to_string();
    let outcome =
        json!({"runId": "a", "tool": "update_task", "args": {}, "result": "ok"}).to_string();
    for _ in 0..6 {
        let v =
            serde_json::from_str::<serde_json::Value>(&guard.check(&call, 0.0).unwrap().to_json())
                .unwrap();
        if v["action"] == "allow" || v["action"] == "warn" {
            guard.record(&outcome, 0.0).unwrap();
        }
    }
    for run in ["b", "c"] {
        guard
            .check(&json!({"runId": run, "tool": "t"}).to_string(), 0.0)
            .unwrap();
    }
    let stats = serde_json::from_str::<serde_json::Value>(&guard.stats().to_json()).unwrap();
    // Checks: allow, warn, block, block, block, stop (the same change made a 3rd time is refused);
    // records: allow, warn (forecast).
    assert_eq!(stats["checks"], 8);
    assert_eq!(stats["records"], 2);
    assert_eq!(
        stats["byAction"],
        json!({"allow": 4, "warn": 2, "block": 3, "stop": 1})
    );
    assert_eq!(stats["byLevel"]["critical"], 3);
    assert_eq!(stats["byDetector"]["generic_repeat"], 5);
    assert_eq!(stats["byDetector"]["global_circuit_breaker"], 1);
    assert_eq!(stats["liveRuns"], 2);
    assert_eq!(stats["evictedRuns"], 1);
}

#[test]
fn both_engines_keep_runs_in_one_table_with_one_eviction_rule() {
    for preset in ["default", "openclaw"] {
        let mut guard = Guard::new(&json!({"preset": preset, "maxRuns": 2})).unwrap();
        let check = |guard: &mut Guard, run: &str| {
            let call = json!({"runId": run, "tool": "read", "args": {"n": 1}});
            guard.check(&call.to_string(), 0.0).unwrap();
        };
        check(&mut guard, "a");
        check(&mut guard, "b");
        // `a` is used again, so `b` is now the least recently used: `c` evicts it, not `a`.
        check(&mut guard, "a");
        check(&mut guard, "c");
        let stats = serde_json::from_str::<serde_json::Value>(&guard.stats().to_json()).unwrap();
        assert_eq!(
            (stats["liveRuns"].clone(), stats["evictedRuns"].clone()),
            (json!(2), json!(1)),
            "{preset}"
        );
        let metrics = guard.metrics();
        assert!(
            metrics.contains("tool_loop_guard_live_runs 2"),
            "{preset}: {metrics}"
        );
        let exported = guard.export_run(Some("a"));
        let fresh = Guard::new(&json!({"preset": preset}))
            .unwrap()
            .export_run(Some("a"));
        assert_ne!(exported, fresh, "{preset}: a was kept");
        let b = guard.export_run(Some("b"));
        let empty = Guard::new(&json!({"preset": preset}))
            .unwrap()
            .export_run(Some("b"));
        assert_eq!(b, empty, "{preset}: b was evicted");
    }
}
