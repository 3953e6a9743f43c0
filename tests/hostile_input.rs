//! Hostile input never panics and never corrupts state: truncated, mutated and random records,
//! absurd nesting and odd values all end in `Ok` or a typed error, and the guard's verdicts for a
//! normal trace are unchanged afterwards.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::json;
use tool_loop_guard::Guard;

#[path = "../src/json/test_rng.rs"]
mod test_rng;
use test_rng::Rng;

fn trace_verdicts(guard: &mut Guard) -> Vec<String> {
    let call = json!({"runId": "probe", "tool": "update_task", "args": {"id": 7}}).to_string();
    let outcome =
        json!({"runId": "probe", "tool": "update_task", "args": {"id": 7}, "result": "ok"})
            .to_string();
    (0..6)
        .map(|_| {
            let v = serde_json::from_str::<serde_json::Value>(
                &guard.check(&call, 0.0).unwrap().to_json(),
            )
            .unwrap();
            if v["action"] == "allow" || v["action"] == "warn" {
                guard.record(&outcome, 0.0).unwrap();
            }
            format!("{}/{}", v["action"], v["detector"])
        })
        .collect()
}

#[test]
fn mutated_and_random_records_end_in_ok_or_a_typed_error() {
    let config = json!({"preset": "strict"});
    let expected = trace_verdicts(&mut Guard::new(&config).unwrap());
    let mut guard = Guard::new(&config).unwrap();
    let seeds = [
        json!({"runId": "r", "tool": "exec", "args": {"command": "ls", "n": [1, 2.5, -0.0, 1e300]}, "callId": "c1", "at": 5}),
        json!({"tool": "process", "args": {"action": "poll"}, "result": {"content": [{"type": "text", "text": "x"}], "details": {"status": "running", "tail": "t"}}}),
        json!({"tool": "search", "error": {"name": "Error", "message": "Unknown tool: search", "stack": "s"}}),
        json!({"tool": "read", "result": {"content": [{"type": "text", "textSha256": "00"}, {"type": "image", "data": "AAAA"}]}}),
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let alphabet = b"{}[]\":,0123456789.eE+-truefalsnul\\u\x00\xff \"tool\"\"args\"\"result\"";
    for i in 0..20_000 {
        let base = seeds[i % seeds.len()].to_string().into_bytes();
        let mut bytes = base.clone();
        match rng.below(4) {
            0 => bytes.truncate(rng.below(base.len() + 1)),
            1 => {
                for _ in 0..1 + rng.below(4) {
                    let at = rng.below(bytes.len());
                    bytes[at] = alphabet[rng.below(alphabet.len())];
                }
            }
            2 => {
                let at = rng.below(bytes.len());
                let insert: Vec<u8> = (0..rng.below(16))
                    .map(|_| alphabet[rng.below(alphabet.len())])
                    .collect();
                bytes.splice(at..at, insert);
            }
            _ => {
                bytes = (0..rng.below(64))
                    .map(|_| alphabet[rng.below(alphabet.len())])
                    .collect()
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        let _ = guard.check(&text, 0.0);
        let _ = guard.record(&text, 0.0);
    }
    // The probe run was never touched by the noise above; its verdicts are as in a fresh guard.
    assert_eq!(trace_verdicts(&mut guard), expected);
}

#[test]
fn absurd_nesting_and_sizes_are_refused_with_their_codes() {
    let mut guard = Guard::new(&json!({"maxRecordBytes": 1_000_000})).unwrap();
    let deep = format!(
        "{{\"tool\":\"t\",\"args\":{}{}}}",
        "[".repeat(1_000_000),
        "]".repeat(1_000_000)
    );
    assert_eq!(
        guard.check(&deep, 0.0).unwrap_err().code.as_str(),
        "too_large"
    );
    let deep = format!(
        "{{\"tool\":\"t\",\"result\":{}1{}}}",
        "{\"a\":".repeat(50_000),
        "}".repeat(50_000)
    );
    let err = guard.record(&deep, 0.0).unwrap_err();
    assert_eq!(err.code.as_str(), "too_deep", "{}", err.message);
    let unclosed = format!("{{\"tool\":\"t\",\"args\":{}", "[".repeat(200_000));
    assert_eq!(
        guard.check(&unclosed, 0.0).unwrap_err().code.as_str(),
        "invalid_record"
    );
}

/// Random fields (the way a fields frame hands records over) end in a verdict, a
/// request for the JSON record, or a typed error, and leave the guard's verdicts unchanged.
#[test]
fn random_fields_end_in_ok_or_a_typed_error() {
    use tool_loop_guard::{CallFields, ResultFields, TextField};
    let config = json!({"preset": "strict", "tools": {"t2": {"ignore": ["/details/x", "k"]}}});
    let expected = trace_verdicts(&mut Guard::new(&config).unwrap());
    let mut guard = Guard::new(&config).unwrap();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let texts = [
        "",
        "t",
        "t2",
        "exec",
        "process",
        "write",
        "Unknown tool: x",
        "{\"a\":1}",
        "[1,2",
        "{\"x\":",
        "null",
        "1e400",
        "{\"durationMs\":1,\"k\":[{}]}",
        "\"s\"",
        "{\"action\":\"poll\"}",
        "{\"changed\":false}",
        "{\"status\":\"running\",\"tail\":\"z\"}",
        "é😀",
        "0123456789abcdef",
    ];
    let hex = "ab".repeat(32);
    let pick = |rng: &mut Rng| texts[rng.below(texts.len())];
    let maybe = |rng: &mut Rng| (rng.below(3) > 0).then(|| texts[rng.below(texts.len())]);
    for _ in 0..20_000 {
        let call = CallFields {
            run_id: maybe(&mut rng),
            tool: pick(&mut rng),
            call_id: maybe(&mut rng),
            args: maybe(&mut rng),
            at: [None, Some(f64::NAN), Some(1.0), Some(-1e300)][rng.below(4)],
        };
        if rng.below(2) == 0 {
            let _ = guard.check_fields(&call, 0.0);
            continue;
        }
        let text = |rng: &mut Rng| match rng.below(4) {
            0 => TextField::Sha256Hex(&hex),
            1 => TextField::Sha256Hex(pick(rng)),
            _ => TextField::Text(pick(rng)),
        };
        let result = match rng.below(3) {
            0 => ResultFields::Absent,
            1 => ResultFields::Text(text(&mut rng)),
            _ => ResultFields::Parts {
                texts: (0..rng.below(4)).map(|_| text(&mut rng)).collect(),
                details: maybe(&mut rng),
                is_error: [None, Some(true), Some(false)][rng.below(3)],
            },
        };
        let _ = guard.record_fields(&call, rng.below(2) == 0, &result, 0.0);
    }
    assert_eq!(trace_verdicts(&mut guard), expected);
}

/// A value out of range or too deep is refused the same way whether its member is kept, the
/// earlier of two equal keys, or a volatile key that the fingerprint drops (issue 18).
#[test]
fn skipped_members_are_refused_like_kept_ones() {
    use tool_loop_guard::{CallFields, ErrorCode, GuardError, ResultFields, TextField, Verdict};
    /// A call of tool `t` with these arguments and nothing else.
    fn call_of_t(args: Option<&str>) -> CallFields<'_> {
        CallFields {
            run_id: None,
            tool: "t",
            call_id: None,
            args,
            at: None,
        }
    }
    /// `answer` is a `code` error on `field` (`input` is shown when it is not).
    fn assert_refused(
        answer: Result<Verdict, GuardError>,
        code: ErrorCode,
        field: &str,
        input: &str,
    ) {
        let err = answer.unwrap_err();
        assert_eq!(
            (err.code, err.field.as_deref()),
            (code, Some(field)),
            "{input}"
        );
    }
    let config = json!({});
    let mut guard = Guard::new(&config).unwrap();
    let expected = trace_verdicts(&mut Guard::new(&config).unwrap());
    let deep = format!("{}1{}", "[".repeat(130), "]".repeat(130));
    let cases = [
        ("1e400", ErrorCode::InvalidRecord),
        ("-1e309", ErrorCode::InvalidRecord),
        (deep.as_str(), ErrorCode::TooDeep),
    ];
    for (bad, code) in cases {
        // Arguments: kept, or the earlier of two equal keys.
        for args in [
            format!(r#"{{"a":{bad}}}"#),
            format!(r#"{{"a":{bad},"a":1}}"#),
            format!(r#"{{"b":[{{"a":{bad},"a":1}}]}}"#),
        ] {
            let call = format!(r#"{{"tool":"t","args":{args}}}"#);
            assert_refused(guard.check(&call, 0.0), code, "args", &call);
            let fields = call_of_t(Some(&args));
            assert!(guard.check_fields(&fields, 0.0).is_err(), "{args}");
        }
        // Result details: kept, or volatile (dropped from the fingerprint).
        for details in [
            format!(r#"{{"note":{bad}}}"#),
            format!(r#"{{"durationMs":{bad},"note":1}}"#),
            format!(r#"{{"note":1,"note":{bad}}}"#),
        ] {
            let outcome = format!(
                r#"{{"tool":"t","result":{{"content":[{{"type":"text","text":"x"}}],"details":{details}}}}}"#
            );
            assert_refused(guard.record(&outcome, 0.0), code, "result", &outcome);
            let result = ResultFields::Parts {
                texts: vec![TextField::Text("x")],
                details: Some(&details),
                is_error: None,
            };
            // The fields way declines; the JSON way then gives the error above.
            assert!(
                guard
                    .record_fields(&call_of_t(None), false, &result, 0.0)
                    .is_err(),
                "{details}"
            );
        }
    }
    assert_eq!(trace_verdicts(&mut guard), expected);
}
