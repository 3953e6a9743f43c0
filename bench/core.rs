//! Native figures for the core alone (no wasm, no JS): ns per check+record of JSON records, on
//! workloads shaped like those of `npm run bench`. Prints figures; asserts nothing. Run: `cargo bench --bench core`.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::json;
use std::hint::black_box;
use std::time::Instant;
use tool_loop_guard::Guard;

/// (check JSON, record JSON) pairs for one workload.
fn small_mixed(n: usize) -> Vec<(String, String)> {
    let tools = [
        "read_file",
        "search",
        "list_dir",
        "grep",
        "fetch_url",
        "get_issue",
        "run_tests",
        "git_log",
    ];
    (0..n)
        .map(|i| {
            let tool = tools[i % tools.len()];
            let args = json!({"path": format!("src/module_{}/file_{}.rs", i % 13, i % 7), "limit": 200, "offset": i % 5, "recursive": i % 2 == 0});
            let result = json!({"content": [{"type": "text", "text": format!("{} lines matched in module {} — first match at line {}; nothing else changed since the previous call, see details for the counts", i % 17, i % 13, i % 29)}], "details": {"matches": i % 17, "durationMs": i}});
            let check = json!({"runId": format!("run-{}", i % 4), "tool": tool, "args": args, "callId": format!("call-{i}")});
            let mut record = check.clone();
            record["result"] = result;
            (check.to_string(), record.to_string())
        })
        .collect()
}

fn stuck_loop(n: usize) -> Vec<(String, String)> {
    let args = json!({"id": "T-1", "status": "done", "note": "finalise the task list and mark the item complete"});
    (0..n)
        .map(|i| {
            let check = json!({"runId": format!("run-{}", i / 25), "tool": "update_task", "args": args, "callId": format!("c{i}")});
            let mut record = check.clone();
            record["result"] = json!("Task T-1 updated: status=done. No further changes are needed; the task list is up to date.");
            (check.to_string(), record.to_string())
        })
        .collect()
}

fn text_results(n: usize, bytes: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|i| {
            let check = json!({"runId": format!("run-{i}"), "tool": "read_file", "args": {"path": format!("big_{i}.log")}});
            let text: String = std::iter::repeat_n("lorem ipsum dolor sit amet, ", bytes / 28 + 1).collect::<String>()[..bytes].to_owned();
            let mut record = check.clone();
            record["result"] = json!(text);
            (check.to_string(), record.to_string())
        })
        .collect()
}

fn measure(name: &str, calls: &[(String, String)], rounds: usize) {
    let mut best = f64::INFINITY;
    for _ in 0..rounds {
        let mut guard = Guard::new(&json!({"maxRuns": 1_000_000})).unwrap();
        let start = Instant::now();
        for (check, record) in calls {
            black_box(guard.check(check, 0.0).unwrap());
            black_box(guard.record(record, 0.0).unwrap());
        }
        best = best.min(start.elapsed().as_nanos() as f64 / calls.len() as f64);
    }
    println!("{name:<34} {best:>12.0} ns per check+record");
}

/// `cargo bench --bench core -- [substring]` runs the workloads whose name contains it.
fn main() {
    let filter = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .unwrap_or_default();
    let wanted = |name: &str| name.contains(filter.as_str());
    if wanted("small mixed records") {
        measure("small mixed records", &small_mixed(20_000), 5);
    }
    if wanted("stuck identical loop") {
        measure("stuck identical loop", &stuck_loop(20_000), 5);
    }
    if wanted("64 KB text results") {
        measure("64 KB text results", &text_results(200, 64 * 1024), 5);
    }
    if wanted("1 MB text results") {
        measure("1 MB text results", &text_results(20, 1024 * 1024), 3);
    }
}
