//! The canonicaliser and the number formatter. Canonical JSON is a fixed point (canonicalising its
//! parse gives it back); every finite f64 is formatted in a form that parses back to the same bits
//! (the first 8 bytes of each input are also taken as an f64).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_loop_guard::internals::{format_number, to_canonical_string};

fuzz_target!(|data: &[u8]| {
    if let Some(bytes) = data.get(..8) {
        let x = f64::from_le_bytes(bytes.try_into().expect("8 bytes"));
        if x.is_finite() {
            let text = format_number(x);
            let back: f64 = text.parse().expect("the formatted number parses");
            assert!(
                back == x,
                "{x:e} formatted as {text} reads back as {back:e}"
            );
        }
    }
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let once = to_canonical_string(&value);
    let reparsed: serde_json::Value = serde_json::from_str(&once).expect("canonical JSON parses");
    assert_eq!(once, to_canonical_string(&reparsed));
});
