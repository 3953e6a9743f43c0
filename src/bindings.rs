//! The wasm-bindgen surface: a thin translation layer. Records arrive as JSON text, the config as a
//! plain object, verdicts and stats leave as JSON text; errors become JS `Error`s carrying the
//! core's stable `code` and `field`. No detection rule lives here.

use crate::error::{ErrorCode, GuardError};
use crate::Guard;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct WasmGuard {
    inner: Guard,
}

fn to_js_error(error: GuardError) -> JsValue {
    let js = js_sys::Error::new(&error.message);
    let field = error.field.map_or(JsValue::NULL, |f| JsValue::from_str(&f));
    // Setting own properties on a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(
        &js,
        &JsValue::from_str("code"),
        &JsValue::from_str(error.code.as_str()),
    );
    let _ = js_sys::Reflect::set(&js, &JsValue::from_str("field"), &field);
    js.into()
}

fn to_json(value: &impl serde::Serialize) -> String {
    // Verdicts and stats are plain structs of strings and numbers: serialisation cannot fail.
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned())
}

#[wasm_bindgen]
impl WasmGuard {
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<WasmGuard, JsValue> {
        let value: serde_json::Value = if config.is_undefined() || config.is_null() {
            serde_json::Value::Null
        } else {
            serde_wasm_bindgen::from_value(config).map_err(|e| {
                to_js_error(GuardError::new(
                    ErrorCode::InvalidConfig,
                    None,
                    format!("config is not a plain JSON object: {e}"),
                ))
            })?
        };
        Guard::new(&value)
            .map(|inner| WasmGuard { inner })
            .map_err(to_js_error)
    }

    pub fn check(&mut self, call_json: &str, now_ms: f64) -> Result<String, JsValue> {
        self.inner
            .check(call_json, now_ms)
            .map(|v| to_json(&v))
            .map_err(to_js_error)
    }

    pub fn record(&mut self, outcome_json: &str, now_ms: f64) -> Result<String, JsValue> {
        self.inner
            .record(outcome_json, now_ms)
            .map(|v| to_json(&v))
            .map_err(to_js_error)
    }

    pub fn compacted(&mut self, run_id: Option<String>) {
        self.inner.compacted(run_id.as_deref());
    }

    pub fn progress(&mut self, run_id: Option<String>, _reason: Option<String>) {
        self.inner.progress(run_id.as_deref());
    }

    #[wasm_bindgen(js_name = endRun)]
    pub fn end_run(&mut self, run_id: Option<String>) {
        self.inner.end_run(run_id.as_deref());
    }

    #[wasm_bindgen(js_name = exportRun)]
    pub fn export_run(&self, run_id: Option<String>) -> Vec<u8> {
        self.inner.export_run(run_id.as_deref())
    }

    /// Returns the restored run's id (`undefined` for the default run).
    #[wasm_bindgen(js_name = importRun)]
    pub fn import_run(&mut self, bytes: &[u8]) -> Result<Option<String>, JsValue> {
        self.inner.import_run(bytes).map_err(to_js_error)
    }

    pub fn stats(&self) -> String {
        to_json(&self.inner.stats())
    }
}

/// Text parts longer than this many UTF-8 bytes may be handed over as `textSha256` digests (or as
/// side text) with verdicts identical to passing them inline.
#[wasm_bindgen(js_name = maxScannedTextBytes)]
pub fn max_scanned_text_bytes() -> u32 {
    crate::outcome::MAX_SCANNED_TEXT_BYTES as u32
}

#[wasm_bindgen(js_name = coreVersion)]
pub fn core_version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
