//! The config parser: any text as config JSON, and any JSON value as the config object or as a
//! field of it (any of the top-level keys). Valid or `invalid_config`, never a panic; a guard that
//! was built answers a call.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use tool_loop_guard::internals::top_level_keys;
use tool_loop_guard::{ErrorCode, Guard};

fn exercise(built: Result<Guard, tool_loop_guard::GuardError>) {
    match built {
        Ok(mut guard) => {
            let _ = guard.check(r#"{"tool":"exec","args":{"cmd":"ls"}}"#, 0.0);
        }
        Err(error) => assert_eq!(error.code, ErrorCode::InvalidConfig, "{}", error.message),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = Guard::from_config_text(text);
    if let Err(error) = &parsed {
        assert_eq!(error.code, ErrorCode::InvalidConfig, "{}", error.message);
    }
    exercise(parsed);
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        exercise(Guard::new(&value));
        let keys = top_level_keys();
        let field = keys[data.len() % keys.len()];
        exercise(Guard::new(&json!({ field: value })));
    }
});
