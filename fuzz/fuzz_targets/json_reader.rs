//! The core's JSON reader through every entry that parses host text: call and outcome records,
//! the fingerprint helper and config text. Any input gives a verdict or a typed error, never a
//! panic; and text serde_json rejects is never accepted as a call (lone surrogate escapes aside).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_loop_guard::Guard;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut guard = Guard::new(&serde_json::Value::Null).expect("default config");
    let checked = guard.check(text, 0.0);
    // The core also takes `\uD800`-`\uDFFF` escapes that pair with nothing (a JS string may hold
    // a lone surrogate, issue 18); serde_json refuses those, so they weaken this check.
    if checked.is_ok() && !has_surrogate_escape(text) {
        assert!(
            serde_json::from_str::<serde_json::Value>(text).is_ok(),
            "accepted text that is not JSON: {text:?}"
        );
    }
    let _ = guard.record(text, 1.0);
    let _ = guard.fingerprint(text, None);
    let _ = guard.fingerprint(text, Some(data));
    let _ = Guard::from_config_text(text);
    // Whatever happened, the guard still answers an ordinary call.
    guard
        .check(r#"{"tool":"read_file","args":{"path":"a"}}"#, 2.0)
        .expect("the guard still works");
});

/// Whether `text` holds a `\u` escape of a surrogate code unit (D800-DFFF).
fn has_surrogate_escape(text: &str) -> bool {
    text.as_bytes().windows(4).any(|w| {
        w[0] == b'\\'
            && w[1] == b'u'
            && matches!(w[2], b'd' | b'D')
            && w[3].is_ascii_hexdigit()
            && {
                let digit = (w[3] as char).to_digit(16).unwrap_or(0);
                digit >= 8
            }
    })
}
