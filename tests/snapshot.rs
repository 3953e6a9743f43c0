//! Snapshots: a run exported and imported (into the same or another guard) gives the same verdicts
//! as the uninterrupted run; corrupt, truncated or foreign bytes are refused with `invalid_snapshot`
//! and leave the guard working.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::json;
use tool_loop_guard::{ErrorCode, Guard};

fn call(i: u32) -> (String, String) {
    let args = json!({"id": "T-1"});
    let check =
        json!({"runId": "r1", "tool": "update_task", "args": args, "callId": format!("c{i}")});
    let record = json!({"runId": "r1", "tool": "update_task", "args": args, "callId": format!("c{i}"), "result": "Task T-1 updated."});
    (check.to_string(), record.to_string())
}

fn verdicts(guard: &mut Guard, calls: std::ops::RangeInclusive<u32>) -> Vec<String> {
    calls
        .map(|i| {
            let (check, record) = call(i);
            let v = guard.check(&check, 0.0).unwrap();
            let action = serde_json::from_str::<serde_json::Value>(&v.to_json()).unwrap()["action"]
                .as_str()
                .unwrap()
                .to_owned();
            if action == "allow" || action == "warn" {
                guard.record(&record, 0.0).unwrap();
            }
            format!("{action}/{:?}", v.detector)
        })
        .collect()
}

#[test]
fn a_restored_run_continues_where_it_left_off() {
    let config = json!({"preset": "strict"});
    let mut straight = Guard::new(&config).unwrap();
    let expected = verdicts(&mut straight, 1..=7);

    let mut first = Guard::new(&config).unwrap();
    let mut got = verdicts(&mut first, 1..=2);
    let bytes = first.export_run(Some("r1"));
    let mut second = Guard::new(&config).unwrap();
    assert_eq!(second.import_run(&bytes).unwrap().as_deref(), Some("r1"));
    got.extend(verdicts(&mut second, 3..=7));
    assert_eq!(got, expected);
    assert!(expected.iter().any(|v| v.starts_with("block")));
}

#[test]
fn corrupt_snapshots_are_refused_and_the_guard_keeps_working() {
    let mut guard = Guard::new(&json!({"preset": "strict"})).unwrap();
    verdicts(&mut guard, 1..=3);
    let good = guard.export_run(Some("r1"));
    let mut flipped = good.clone();
    flipped[10] ^= 0x40;
    let mut wrong_version = good.clone();
    wrong_version[4] = 99;
    let cases: Vec<Vec<u8>> = vec![
        vec![],
        b"TLGS".to_vec(),
        good[..good.len() - 5].to_vec(),
        flipped,
        wrong_version,
        vec![0; 64],
    ];
    for bytes in cases {
        let err = guard.import_run(&bytes).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidSnapshot, "{}", err.message);
    }
    // The run is untouched: the 4th identical call (three identical outcomes) is still blocked.
    let (check, _) = call(4);
    let v = guard.check(&check, 0.0).unwrap();
    assert_eq!(v.count, 3);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&v.to_json()).unwrap()["action"],
        "block"
    );
    assert_eq!(guard.import_run(&good).unwrap().as_deref(), Some("r1"));
}

#[test]
fn snapshots_hold_no_raw_content() {
    let mut guard = Guard::new(&json!(null)).unwrap();
    let secret = "sk-live-SECRET-TOKEN-1234";
    let record =
        json!({"runId": "r", "tool": "fetch", "args": {"token": secret}, "result": secret});
    guard.record(&record.to_string(), 0.0).unwrap();
    let bytes = guard.export_run(Some("r"));
    let text = String::from_utf8_lossy(&bytes);
    assert!(!text.contains("SECRET"));
    assert!(text.contains("fetch"));
}
