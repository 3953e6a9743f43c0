//! The outcome digester: any JSON value as a tool's result or error, through `digest_outcome`
//! (plain, exec, delivering-call and poll profiles) and through a guard's record (its own JSON reader,
//! exec and plain tools). Never a panic, and a record's outcome fingerprint does not depend on what
//! the guard has seen.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use tool_loop_guard::internals::{digest_outcome, KeepAll, OutcomeParts, ResultMasking};
use tool_loop_guard::Guard;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    for (exec_like, send, masking) in [
        (false, false, ResultMasking::Nothing),
        (true, false, ResultMasking::Nothing),
        (false, true, ResultMasking::Nothing),
        (false, false, ResultMasking::Numbers),
        (false, false, ResultMasking::Clock),
    ] {
        for (result, error) in [(Some(&value), None), (None, Some(&value))] {
            let parts = OutcomeParts {
                tool: "exec",
                exec_like,
                result,
                error,
                side_text: Some(data),
                send,
                masking,
            };
            let _ = digest_outcome(&parts, &KeepAll);
        }
    }
    let mut guard = Guard::new(&json!({"preset": "strict"})).expect("strict preset");
    for tool in ["exec", "read_file"] {
        for key in ["result", "error"] {
            let record = json!({"tool": tool, "args": {}, key: value.clone()}).to_string();
            let first = guard.fingerprint(&record, None);
            let _ = guard.record(&record, 0.0);
            let again = guard.fingerprint(&record, None);
            assert_eq!(first.is_ok(), again.is_ok());
            if let (Ok(a), Ok(b)) = (first, again) {
                assert_eq!(
                    a.outcome, b.outcome,
                    "a fingerprint changed with guard state"
                );
            }
        }
    }
});
