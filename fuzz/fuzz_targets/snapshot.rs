//! The snapshot decoder. The input's head plays a short run into a guard and exports it; its tail
//! then truncates the snapshot and flips bytes in it at chosen places (or, with a leading 0xff, is
//! imported as it is). Every import gives a run or `invalid_snapshot` and leaves the guard
//! working; an unchanged snapshot always imports.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use tool_loop_guard::{ErrorCode, Guard};

fuzz_target!(|data: &[u8]| {
    let mut guard = Guard::new(&json!({"preset": "strict"})).expect("strict preset");
    let snapshot = if data.first() == Some(&0xff) {
        data[1..].to_vec()
    } else {
        let (head, tail) = data.split_at(data.len().min(16));
        for (i, b) in head.iter().enumerate() {
            let tool = ["read_file", "exec", "poll"][usize::from(b & 3) % 3];
            let result = ["same", "other"][usize::from(b >> 7)];
            let record = json!({
                "runId": "r",
                "tool": tool,
                "args": {"n": (b >> 2) & 1},
                "callId": format!("c{i}"),
                "result": result,
            });
            let _ = guard.check(&record.to_string(), i as f64 * 1000.0);
            let _ = guard.record(&record.to_string(), i as f64 * 1000.0);
        }
        let mut bytes = guard.export_run(Some("r"));
        assert!(
            guard.import_run(&bytes).is_ok(),
            "an unchanged snapshot imports"
        );
        for pair in tail.chunks(2) {
            let at = usize::from(pair[0]) * 7 % bytes.len().max(1);
            match pair.get(1) {
                Some(0) => bytes.truncate(at),
                Some(flip) => {
                    if let Some(byte) = bytes.get_mut(at) {
                        *byte ^= flip;
                    }
                }
                None => bytes.push(pair[0]),
            }
        }
        bytes
    };
    if let Err(error) = guard.import_run(&snapshot) {
        assert_eq!(error.code, ErrorCode::InvalidSnapshot, "{}", error.message);
    }
    guard
        .check(r#"{"runId":"r","tool":"read_file","args":{"n":0}}"#, 1e6)
        .expect("the guard still works");
});
