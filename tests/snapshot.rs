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
    verdicts(&mut guard, 1..=2);
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
    // The run is untouched: the 3rd identical update (the same change made a 3rd time, strict's
    // criticalThreshold) is still blocked.
    let (check, _) = call(3);
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

/// A version 2 snapshot (128-bit fingerprints) written by the previous format's encoder (commit
/// 6ae4237): run "r1" under `V2_CONFIG` after check+record c1, `compacted`, check+record c2, then
/// two pending checks c3a and c3b (the second one warned by generic_repeat), all identical calls.
const V2_SNAPSHOT: &str = "544c47530201020000007231040000000000000000000000000000000000000004000000010000000b0000007570646174655f7461736b00000000010200000001000000010b0000007570646174655f7461736bbc891ac6e62c711084f3aaa4c49e52038893fd0a125fd7db509d3da7e6a34e3c040000000000bc891ac6e62c711084f3aaa4c49e5203020000000000408f40028893fd0a125fd7db509d3da7e6a34e3c000001000000010000000000bc891ac6e62c711084f3aaa4c49e5203020000000000409f40028893fd0a125fd7db509d3da7e6a34e3c000002000000020000000000bc891ac6e62c711084f3aaa4c49e520302000000000070a7400044562a678905edcc16e4680d19067ff60000000000000000000000bc891ac6e62c711084f3aaa4c49e520302000000000070a7400044562a678905edcc63e2680d19057ff60400000000000000007eb374b097bfe0a668700a69e049b4753d1babd139e50096d30b0b0a4bb0a51d";

/// The same state as `V2_SNAPSHOT` written by the version 3 encoder (commit 4a25ec2): 64-bit
/// fingerprints, 40-bit call-id keys, no novelty or blank flags, no stale-call count.
const V3_SNAPSHOT: &str = "544c47530301020000007231040000000000000000000000000000000000000004000000010000000b0000007570646174655f7461736b00000000010200000001000000010b0000007570646174655f7461736bbc891ac6e62c71108893fd0a125fd7db040000000000bc891ac6e62c7110020000000000408f40028893fd0a125fd7db000001000000010000000000bc891ac6e62c7110020000000000409f40028893fd0a125fd7db000002000000020000000000bc891ac6e62c711002000000000070a74000101805f0df9955e416e4680d190000000000000000000000000000bc891ac6e62c711002000000000070a74000101805f0df9955e463e2680d19000000040000000000000000a76b4bc98744c5cab295a0d2ecc363d7b54e7e5398f77d7ff325b391bb83105f";

fn v2_config() -> serde_json::Value {
    json!({"warningThreshold": 4, "criticalThreshold": 6, "globalCircuitBreakerThreshold": 9})
}

fn identical_call(id: &str, result: bool) -> String {
    answered_call(id, result.then_some("Task T-1 updated."))
}

fn answered_call(id: &str, result: Option<&str>) -> String {
    let mut call =
        json!({"runId": "r1", "tool": "update_task", "args": {"id": "T-1"}, "callId": id});
    if let Some(result) = result {
        call["result"] = json!(result);
    }
    call.to_string()
}

/// Checks the identical call `id` at `at` and, when `completes`, records its outcome.
fn identical_step(guard: &mut Guard, id: &str, at: f64, completes: bool) {
    guard.check(&identical_call(id, false), at).unwrap();
    if completes {
        guard.record(&identical_call(id, true), at).unwrap();
    }
}

/// What the old snapshots' state continues as: a mutation's outcome is now digested with its
/// numbers masked, so the outcomes the old bytes hold (digested exactly) match none of the new
/// ones, as if the calls before the export had answered something else.
fn continue_after_old_digests() -> Vec<serde_json::Value> {
    let mut guard = Guard::new(&v2_config()).unwrap();
    let old = Some("an outcome digested the old way");
    guard.check(&identical_call("c1", false), 1000.0).unwrap();
    guard.record(&answered_call("c1", old), 1000.0).unwrap();
    guard.compacted(Some("r1"));
    guard.check(&identical_call("c2", false), 2000.0).unwrap();
    guard.record(&answered_call("c2", old), 2000.0).unwrap();
    identical_step(&mut guard, "c3a", 3000.0, false);
    identical_step(&mut guard, "c3b", 3000.0, false);
    continue_after_v2_state(&mut guard)
}

fn hex_bytes(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// What the run says after the state in `V2_SNAPSHOT`: the two pending calls complete (c3a by its
/// call id, although c3b is the newer pending record of the same call), then identical calls
/// c4..c9, each recorded when allowed.
fn continue_after_v2_state(guard: &mut Guard) -> Vec<serde_json::Value> {
    let mut seen = Vec::new();
    for id in ["c3a", "c3b"] {
        let v = guard.record(&identical_call(id, true), 4000.0).unwrap();
        seen.push(serde_json::from_str(&v.to_json()).unwrap());
    }
    for i in 4..=9 {
        let id = format!("c{i}");
        let checked = guard.check(&identical_call(&id, false), 5000.0).unwrap();
        let v: serde_json::Value = serde_json::from_str(&checked.to_json()).unwrap();
        let allowed = v["action"] == "allow" || v["action"] == "warn";
        seen.push(v);
        if allowed {
            let v = guard.record(&identical_call(&id, true), 5000.0).unwrap();
            seen.push(serde_json::from_str(&v.to_json()).unwrap());
        }
    }
    seen
}

#[test]
fn version_2_and_3_snapshots_import_and_refuse_as_before() {
    let mut straight = Guard::new(&v2_config()).unwrap();
    identical_step(&mut straight, "c1", 1000.0, true);
    straight.compacted(Some("r1"));
    identical_step(&mut straight, "c2", 2000.0, true);
    identical_step(&mut straight, "c3a", 3000.0, false);
    identical_step(&mut straight, "c3b", 3000.0, false);
    // The current format holds the same state: exporting now and importing that gives the
    // same continuation as the old bytes.
    let current = straight.export_run(Some("r1"));
    assert_eq!(current[4], 6, "the current format version");
    let expected = continue_after_v2_state(&mut straight);

    let details: Vec<String> = expected
        .iter()
        .map(|v| format!("{}/{}/{}", v["action"], v["detector"], v["count"]))
        .collect();
    assert!(
        details.iter().any(|d| d.contains("post_compaction_loop")),
        "the imported compaction watch fires: {details:?}"
    );
    assert!(
        details
            .iter()
            .any(|d| d.starts_with("\"block\"/\"generic_repeat\"/6")),
        "the imported streak blocks the 6th identical outcome: {details:?}"
    );

    let mut guard = Guard::new(&v2_config()).unwrap();
    assert_eq!(guard.import_run(&current).unwrap().as_deref(), Some("r1"));
    assert_eq!(continue_after_v2_state(&mut guard), expected);
    // The old bytes carry the warnings the old rules gave (c3b was warned at four occurrences;
    // today's quiet streak warns later), so only the refusals must agree. Version 3's pending
    // records are matched by their call ids cut to today's 38 bits. Their outcomes were digested
    // exactly, so they continue as a run whose outcomes before the export were other ones
    // (`continue_after_old_digests`).
    let refusals = |verdicts: &[serde_json::Value]| -> Vec<serde_json::Value> {
        verdicts
            .iter()
            .filter(|v| v["action"] == "block" || v["action"] == "stop")
            .cloned()
            .collect()
    };
    let expected = continue_after_old_digests();
    assert!(!refusals(&expected).is_empty());
    for (version, old) in [(2, V2_SNAPSHOT), (3, V3_SNAPSHOT)] {
        let bytes = hex_bytes(old);
        assert_eq!(bytes[4], version);
        let mut guard = Guard::new(&v2_config()).unwrap();
        assert_eq!(guard.import_run(&bytes).unwrap().as_deref(), Some("r1"));
        let continued = continue_after_v2_state(&mut guard);
        assert_eq!(
            refusals(&continued),
            refusals(&expected),
            "version {version}"
        );
    }
}

/// Rewrites the snapshot's trailing SHA-256 over its edited body.
fn reseal(bytes: &mut [u8]) {
    let body = bytes.len() - 32;
    let checksum = tool_loop_guard::internals::sha256(&bytes[..body]);
    bytes[body..].copy_from_slice(&checksum);
}

#[test]
fn unknown_versions_are_refused_by_number() {
    let mut guard = Guard::new(&json!(null)).unwrap();
    verdicts(&mut guard, 1..=2);
    let good = guard.export_run(Some("r1"));
    for version in [0u8, 1, 7, 255] {
        let mut bytes = good.clone();
        bytes[4] = version;
        // A valid checksum, so the version itself is what is refused.
        reseal(&mut bytes);
        let err = guard.import_run(&bytes).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidSnapshot);
        assert!(
            err.message
                .contains(&format!("format version is {version};")),
            "{}",
            err.message
        );
    }
    // A version 6 body read as version 2 (16-byte fingerprints) does not parse.
    let mut as_v2 = good.clone();
    as_v2[4] = 2;
    reseal(&mut as_v2);
    let err = guard.import_run(&as_v2).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidSnapshot, "{}", err.message);
}
