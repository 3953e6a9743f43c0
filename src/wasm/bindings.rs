//! The wasm-bindgen surface: a thin translation layer. Records and the config arrive as JSON text
//! (the config too: serde-wasm-bindgen would cost ~25 KB of the size budget for a value read once);
//! `check`/`record` return a status code, 0 for the plain `allow` verdict the wrapper builds from the
//! record itself, 1 when `verdict()` holds the verdict as JSON text. Errors become JS `Error`s
//! carrying the core's stable `code` and `field`. No detection rule lives here.
//!
//! Text crosses in one of two ways: as JS strings (wasm-bindgen copies them in), or written by the
//! host with `TextEncoder.encodeInto` straight into the guard's reusable input buffer (`reserve`
//! hands out its address in `wasmMemory()`), which skips wasm-bindgen's per-character copy loop.
//!
//! Fingerprints only: the record text and any side text are raw content. The reusable input buffer
//! is zeroed after every call; every freed heap block (the strings wasm-bindgen copies in, and any
//! copy the core makes) is zeroed by the allocator (`zeroing_alloc`).

use crate::error::GuardError;
use crate::verdict::{Answer, Verdict};
use crate::{CallFields, Guard, ResultFields, TextField};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct WasmGuard {
    inner: Guard,
    /// The last verdict that was not a plain allow, as JSON.
    verdict: String,
    /// Where the host writes record text (and side text after it) for `checkInput`/`recordInput`.
    input: Vec<u8>,
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

/// `recordFields` args length: the outcome has arguments, not passed (see `Guard::record_fields`).
const ARGS_WITHHELD: i32 = -2;

/// `checkFields`/`recordFields` status: the host must send the JSON record instead.
const SEND_JSON: u32 = 2;

impl WasmGuard {
    /// The status of a fields call: 0 or 1 as for `check`, `SEND_JSON` when the core cannot
    /// answer from the fields (not an ordinary record, or too large to be sure), in which case the
    /// JSON record gives the answer or the exact error. Clears the input buffer.
    /// Infallible, so that the two hot exports return one plain number (no return pointer).
    fn fields_status(&mut self, used: usize, answer: Result<Option<Answer>, GuardError>) -> u32 {
        clear_input(&mut self.input, used);
        match answer {
            Ok(Some(Answer::Allow)) => 0,
            Ok(Some(Answer::Verdict(verdict))) => self.verdict_status(verdict),
            Ok(None) | Err(_) => SEND_JSON,
        }
    }

    fn status(&mut self, verdict: Result<Verdict, GuardError>) -> Result<u32, JsValue> {
        verdict
            .map(|verdict| self.verdict_status(verdict))
            .map_err(to_js_error)
    }

    /// 0 for a plain allow, else 1 with the verdict's JSON kept for `verdict()`.
    fn verdict_status(&mut self, verdict: Verdict) -> u32 {
        if verdict.is_plain_allow() {
            return 0;
        }
        self.verdict = verdict.to_json();
        1
    }
}

#[wasm_bindgen]
impl WasmGuard {
    /// `config`: JSON text of the config object; `undefined` for all defaults.
    #[wasm_bindgen(constructor)]
    pub fn new(config: Option<String>) -> Result<WasmGuard, JsValue> {
        let inner = match config {
            None => Guard::new(&serde_json::Value::Null),
            Some(text) => Guard::from_config_text(&text),
        };
        inner
            .map(|inner| WasmGuard {
                inner,
                verdict: String::new(),
                input: Vec::new(),
            })
            .map_err(to_js_error)
    }

    /// 0: allow (plain); 1: the verdict is in `verdict()`.
    pub fn check(&mut self, call_json: String, now_ms: f64) -> Result<u32, JsValue> {
        let verdict = self.inner.check(&call_json, now_ms);
        self.status(verdict)
    }

    /// Like `check`; `side_text` is the text of the outcome's `{"type":"text","textSide":true}` part.
    pub fn record(
        &mut self,
        outcome_json: String,
        now_ms: f64,
        side_text: Option<String>,
    ) -> Result<u32, JsValue> {
        let verdict = self.inner.record_with_side_text(
            &outcome_json,
            side_text.as_ref().map(String::as_bytes),
            now_ms,
        );
        self.status(verdict)
    }

    /// Makes the input buffer at least `len` bytes long; returns its address in `wasmMemory()`. The
    /// address stays valid until the next `reserve` (wasm memory may still grow and move the
    /// host's view of it, never the address).
    pub fn reserve(&mut self, len: usize) -> *mut u8 {
        if self.input.len() < len {
            self.input.resize(len, 0);
        }
        self.input.as_mut_ptr()
    }

    /// `check` of the record text in the first `json_len` bytes of the input buffer.
    #[wasm_bindgen(js_name = checkInput)]
    pub fn check_input(&mut self, json_len: usize, now_ms: f64) -> Result<u32, JsValue> {
        let verdict = match input_text(&self.input, 0, json_len) {
            Ok(json) => self.inner.check(json, now_ms),
            Err(e) => Err(e),
        };
        clear_input(&mut self.input, json_len);
        self.status(verdict)
    }

    /// `record` of the record text in the first `json_len` bytes of the input buffer and, when
    /// `side_len` is given, the side text in the `side_len` bytes after it.
    #[wasm_bindgen(js_name = recordInput)]
    pub fn record_input(
        &mut self,
        json_len: usize,
        side_len: Option<usize>,
        now_ms: f64,
    ) -> Result<u32, JsValue> {
        let side = side_len.map(|len| input_bytes(&self.input, json_len, len));
        let verdict = match (input_text(&self.input, 0, json_len), side) {
            (Err(e), _) | (_, Some(Err(e))) => Err(e),
            (Ok(json), side) => {
                let side = side.and_then(Result::ok);
                self.inner.record_with_side_text(json, side, now_ms)
            }
        };
        clear_input(
            &mut self.input,
            json_len.saturating_add(side_len.unwrap_or(0)),
        );
        self.status(verdict)
    }

    /// `check` of a call handed over field by field: the input buffer holds its runId, tool,
    /// callId and args JSON one after another, with these UTF-8 lengths (-1: absent). Returns 0 or
    /// 1 as `check`, 2 when the JSON record must be sent instead.
    #[wasm_bindgen(js_name = checkFields)]
    pub fn check_fields(
        &mut self,
        run_id_len: i32,
        tool_len: i32,
        call_id_len: i32,
        args_len: i32,
        at: f64,
        now_ms: f64,
    ) -> u32 {
        let mut pieces = Pieces::new(&self.input);
        let call = pieces.call(run_id_len, tool_len, call_id_len, args_len, at);
        let used = declared(&[run_id_len, tool_len, call_id_len, args_len], 0).max(pieces.pos);
        let answer = call.and_then(|call| self.inner.check_fields(&call, now_ms));
        self.fields_status(used, answer)
    }

    /// `record` of an outcome handed over field by field: after the call's fields (as for
    /// `checkFields`; `args_len` -2: the outcome has arguments, withheld because its call id
    /// should find its checked call) the input buffer holds the result's `details` JSON (`details_len`, -1:
    /// absent), then its texts: each a kind byte (0 text, 1 lowercase hex SHA-256 of a long text),
    /// a little-endian u32 length and the bytes, `texts_len` bytes in all. `result_mode`: 0 no
    /// result, 1 a string result (one text), 2 `{content: [text parts], details, isError}`;
    /// `is_error`: 0 absent, 1 false, 2 true. Returns as `checkFields`.
    #[wasm_bindgen(js_name = recordFields)]
    #[allow(clippy::too_many_arguments)]
    pub fn record_fields(
        &mut self,
        run_id_len: i32,
        tool_len: i32,
        call_id_len: i32,
        args_len: i32,
        result_mode: u32,
        details_len: i32,
        is_error: u32,
        texts_len: u32,
        at: f64,
        now_ms: f64,
    ) -> u32 {
        let mut pieces = Pieces::new(&self.input);
        let call = pieces.call(run_id_len, tool_len, call_id_len, args_len, at);
        let result = pieces.result(result_mode, details_len, is_error, texts_len);
        let lengths = [run_id_len, tool_len, call_id_len, args_len, details_len];
        let used = declared(&lengths, texts_len).max(pieces.pos);
        let answer = match (call, result) {
            (Ok(call), Ok(result)) => {
                let args_withheld = args_len == ARGS_WITHHELD;
                self.inner
                    .record_fields(&call, args_withheld, &result, now_ms)
            }
            (Err(e), _) | (_, Err(e)) => Err(e),
        };
        self.fields_status(used, answer)
    }

    /// `{"args": hex, "outcome": hex | null}`: the fingerprints `record` would give the record
    /// (see `Guard::fingerprint`); nothing is stored. `side_text` as for `record`.
    pub fn fingerprint(
        &self,
        record_json: String,
        side_text: Option<String>,
    ) -> Result<String, JsValue> {
        let found = self
            .inner
            .fingerprint(&record_json, side_text.as_ref().map(String::as_bytes));
        let found = found.map_err(to_js_error)?;
        let mut json = String::from("{\"args\":\"");
        push_hex(&mut json, &found.args);
        match found.outcome {
            Some(outcome) => {
                json.push_str("\",\"outcome\":\"");
                push_hex(&mut json, &outcome);
                json.push_str("\"}");
            }
            None => json.push_str("\",\"outcome\":null}"),
        }
        Ok(json)
    }

    /// The JSON of the last verdict for which `check` or `record` returned 1.
    pub fn verdict(&mut self) -> String {
        std::mem::take(&mut self.verdict)
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
        self.inner.stats().to_json()
    }

    /// The counters as Prometheus text exposition.
    pub fn metrics(&self) -> String {
        self.inner.metrics()
    }
}

/// Appends the lowercase hex of `bytes`.
fn push_hex(out: &mut String, bytes: &[u8]) {
    for byte in bytes {
        for nibble in [byte >> 4, byte & 15] {
            out.push(char::from_digit(u32::from(nibble), 16).unwrap_or('0'));
        }
    }
}

/// The bytes the host says it wrote: the pieces' lengths (negative: absent) plus `more`.
fn declared(lengths: &[i32], more: u32) -> usize {
    lengths
        .iter()
        .filter_map(|len| usize::try_from(*len).ok())
        .fold(more as usize, usize::saturating_add)
}

/// Reads the fields a host wrote one after another into the input buffer.
struct Pieces<'a> {
    input: &'a [u8],
    pos: usize,
}

impl<'a> Pieces<'a> {
    fn new(input: &'a [u8]) -> Self {
        Pieces { input, pos: 0 }
    }

    fn bytes(&mut self, len: usize) -> Result<&'a [u8], GuardError> {
        let bytes = input_bytes(self.input, self.pos, len)?;
        self.pos += len;
        Ok(bytes)
    }

    fn text(&mut self, len: usize) -> Result<&'a str, GuardError> {
        let text = input_text(self.input, self.pos, len)?;
        self.pos += len;
        Ok(text)
    }

    /// A text of `len` bytes; a negative length means absent.
    fn optional(&mut self, len: i32) -> Result<Option<&'a str>, GuardError> {
        usize::try_from(len)
            .ok()
            .map(|len| self.text(len))
            .transpose()
    }

    fn call(
        &mut self,
        run_id_len: i32,
        tool_len: i32,
        call_id_len: i32,
        args_len: i32,
        at: f64,
    ) -> Result<CallFields<'a>, GuardError> {
        let run_id = self.optional(run_id_len)?;
        let tool = self
            .optional(tool_len)?
            .ok_or_else(|| GuardError::record(Some("tool"), "tool is required"))?;
        Ok(CallFields {
            run_id,
            tool,
            call_id: self.optional(call_id_len)?,
            args: self.optional(args_len)?,
            at: Some(at),
        })
    }

    fn result(
        &mut self,
        mode: u32,
        details_len: i32,
        is_error: u32,
        texts_len: u32,
    ) -> Result<ResultFields<'a>, GuardError> {
        let details = self.optional(details_len)?;
        let end = self.pos.saturating_add(texts_len as usize);
        let mut texts = Vec::new();
        while self.pos < end {
            let [kind] = *self.bytes(1)? else {
                return Err(GuardError::record(None, "bad text entry"));
            };
            let len = self.bytes(4)?;
            let len = u32::from_le_bytes(len.try_into().unwrap_or_default()) as usize;
            let text = self.text(len)?;
            texts.push(if kind == 1 {
                TextField::Sha256Hex(text)
            } else {
                TextField::Text(text)
            });
        }
        let is_error = match is_error {
            0 => None,
            flag => Some(flag == 2),
        };
        match (mode, texts.as_slice()) {
            (0, []) => Ok(ResultFields::Absent),
            (1, [text]) => Ok(ResultFields::Text(*text)),
            (2, _) => Ok(ResultFields::Parts {
                texts,
                details,
                is_error,
            }),
            _ => Err(GuardError::record(Some("result"), "bad result fields")),
        }
    }
}

/// The `len` bytes of input at `start` (side text is only hashed, so it is not checked to be
/// UTF-8; the host's `encodeInto` writes nothing else).
fn input_bytes(input: &[u8], start: usize, len: usize) -> Result<&[u8], GuardError> {
    start
        .checked_add(len)
        .and_then(|end| input.get(start..end))
        .ok_or_else(|| GuardError::record(None, "the input text is outside the input buffer"))
}

/// The `len` bytes of input text at `start`, checked to be UTF-8.
fn input_text(input: &[u8], start: usize, len: usize) -> Result<&str, GuardError> {
    std::str::from_utf8(input_bytes(input, start, len)?)
        .map_err(|_| GuardError::record(None, "the input text is not UTF-8"))
}

/// Zeroes the first `len` bytes of the input buffer.
fn clear_input(input: &mut [u8], len: usize) {
    let len = len.min(input.len());
    if let Some(used) = input.get_mut(..len) {
        used.fill(0);
    }
}

/// The wasm instance's memory, for the host's view of the input buffer.
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

/// SHA-256 of `bytes`, computed in wasm (the same hasher the core uses for text parts).
#[wasm_bindgen]
pub fn sha256(bytes: &[u8]) -> Vec<u8> {
    crate::json::digest::sha256(bytes).to_vec()
}

/// Text parts longer than this many UTF-8 bytes may be handed over as `textSha256` digests (or as
/// side text) with verdicts identical to passing them inline.
#[wasm_bindgen(js_name = maxScannedTextBytes)]
pub fn max_scanned_text_bytes() -> u32 {
    crate::record::outcome::MAX_SCANNED_TEXT_BYTES as u32
}

#[wasm_bindgen(js_name = coreVersion)]
pub fn core_version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
