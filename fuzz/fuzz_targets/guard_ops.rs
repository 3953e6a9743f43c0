//! A guard driven by arbitrary sequences of check / record / compacted / progress / endRun /
//! exportRun / importRun over a small alphabet of runs, tools, arguments and results, so that
//! loops, refusals, evictions and restored runs all happen. Never a panic; every snapshot the guard
//! exports imports back, and re-exports byte for byte.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use tool_loop_guard::Guard;

const RUNS: [Option<&str>; 3] = [None, Some("a"), Some("b")];
const TOOLS: [&str; 4] = ["read_file", "exec", "process_poll", "no_such_tool"];
const RESULTS: [&str; 4] = ["same", "other", "Error: ENOENT", ""];

fuzz_target!(|data: &[u8]| {
    let config = match data.first().map(|b| b % 3) {
        Some(0) => json!({"preset": "strict"}),
        Some(1) => json!({"historySize": 3, "maxRuns": 2}),
        _ => json!(null),
    };
    let mut guard = Guard::new(&config).expect("valid config");
    let mut other = Guard::new(&config).expect("valid config");
    let mut now = 0.0;
    for op in data.chunks(2).skip(1) {
        let (a, b) = (op[0], op.get(1).copied().unwrap_or(0));
        let run = RUNS[usize::from(a >> 5) % RUNS.len()];
        let tool = TOOLS[usize::from(b & 3)];
        let args = json!({"n": (b >> 2) & 3});
        now += f64::from(b >> 4) * 500.0;
        let mut record = json!({"tool": tool, "args": args, "callId": format!("c{}", b >> 6)});
        if let Some(run) = run {
            record["runId"] = json!(run);
        }
        match a & 7 {
            0 | 1 => {
                guard.check(&record.to_string(), now).expect("a valid call");
            }
            2 | 3 => {
                let key = if b & 0x80 == 0 { "result" } else { "error" };
                record[key] = json!(RESULTS[usize::from(b >> 5) & 3]);
                guard
                    .record(&record.to_string(), now)
                    .expect("a valid outcome");
            }
            4 => guard.compacted(run),
            5 => guard.progress(run),
            6 => guard.end_run(run),
            _ => {
                let snapshot = guard.export_run(run);
                let restored = other
                    .import_run(&snapshot)
                    .expect("an exported run imports");
                assert_eq!(restored.as_deref(), run);
                assert_eq!(
                    other.export_run(run),
                    snapshot,
                    "a restored run re-exports the same bytes"
                );
                if b & 1 == 1 {
                    std::mem::swap(&mut guard, &mut other);
                }
            }
        }
    }
    let stats = guard.stats();
    assert!(stats.live_runs <= RUNS.len() as u64);
});
