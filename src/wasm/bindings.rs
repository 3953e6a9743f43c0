//! The wasm-bindgen surface: a thin translation layer. The config arrives as JSON text
//! (serde-wasm-bindgen would cost ~25 KB of the size budget for a value read once).
//!
//! A record crosses one way: the host writes it into the guard's reusable input buffer (`reserve`
//! hands out its address in `wasmMemory()`) as a frame (`record::frame`: field by field for an
//! ordinary record, else as JSON text), with `TextEncoder.encodeInto`, which skips wasm-bindgen's
//! per-character string copy, and calls `check` or `record`. They return a `Status` as one plain
//! number (no return pointer): `Allow` for the plain allow verdict the wrapper builds from the
//! record itself, `Verdict` when `answer()` holds the verdict as an answer frame (bytes in wasm
//! memory, `verdict::answer_frame`: no JSON to write or parse), `SendJson` when the
//! core cannot answer from the fields (the JSON form gives the answer or the exact error),
//! `Error` when `takeError()` holds a JS `Error` carrying the core's stable `code` and `field`.
//! No detection rule lives here.
//!
//! A host with a native SHA-256 offers it once with `setHostSha256`: the core then has its long
//! inputs hashed there, reading and writing wasm memory by address (`json::digest` decides when).
//!
//! Fingerprints only: the record text and any side text are raw content. The input buffer is
//! zeroed after every call; every freed heap block (the strings wasm-bindgen copies in, and any
//! copy the core makes) is zeroed by the allocator (`zeroing_alloc`). The answer frame is zeroed
//! by the host once read, and by the core before the next answer.

use crate::error::GuardError;
use crate::guard::Guard;
use crate::record::frame::{self, Fields, Form, Status, HEADER_BYTES};
use crate::verdict::answer_frame::AnswerFrame;
use crate::verdict::{Answer, Verdict};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct WasmGuard {
    inner: Guard,
    /// The last verdict that was not a plain allow.
    answer: AnswerFrame,
    /// The last error of a `Form::Json` frame.
    error: Option<GuardError>,
    /// Where the host writes the frame of each `check`/`record`.
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

impl WasmGuard {
    /// The status of an answer to a `form` frame, after zeroing the input buffer. A fields frame's
    /// error is `SendJson`: the JSON form names the exact error. Infallible, so that the two hot
    /// exports return one plain number.
    fn status(&mut self, form: Form, answer: Result<Option<Answer>, GuardError>) -> Status {
        self.clear_input(form);
        match answer {
            Ok(Some(Answer::Allow)) => Status::Allow,
            Ok(Some(Answer::Verdict(verdict))) => self.verdict_status(verdict),
            Ok(None) => Status::SendJson,
            Err(_) if form == Form::Fields => Status::SendJson,
            Err(error) => {
                self.error = Some(error);
                Status::Error
            }
        }
    }

    /// Zeroes the frame of `form` that the host wrote into the input buffer.
    fn clear_input(&mut self, form: Form) {
        let used = frame::used_len(&self.input, form);
        if let Some(written) = self.input.get_mut(..used) {
            written.fill(0);
        }
    }

    /// `Allow` for a plain allow, else `Verdict` with the verdict's frame kept for `answer()`. Not
    /// inlined into `status`, whose first call (an allow, as most are) a fresh process compiles
    /// whole.
    #[inline(never)]
    fn verdict_status(&mut self, verdict: Verdict) -> Status {
        if verdict.is_plain_allow() {
            return Status::Allow;
        }
        self.answer.write(&verdict);
        Status::Verdict
    }
}

/// A JSON frame's verdict as the answer a fields frame gives.
fn answered(verdict: Result<Verdict, GuardError>) -> Result<Option<Answer>, GuardError> {
    verdict.map(|verdict| Some(Answer::Verdict(verdict)))
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
                answer: AnswerFrame::default(),
                error: None,
                input: Vec::new(),
            })
            .map_err(to_js_error)
    }

    /// Makes the input buffer at least `len` bytes long; returns its address in `wasmMemory()`. The
    /// address stays valid until the next `reserve` (wasm memory may still grow and move the
    /// host's view of it, never the address).
    pub fn reserve(&mut self, len: usize) -> *mut u8 {
        let len = len.max(HEADER_BYTES);
        if self.input.len() < len {
            self.input.resize(len, 0);
        }
        self.input.as_mut_ptr()
    }

    /// `check` of the call in the input buffer's frame; `now_ms` is used when the call has no `at`.
    pub fn check(&mut self, form: Form, now_ms: f64) -> Status {
        let input = &self.input;
        let inner = &mut self.inner;
        let answer = match form {
            Form::Json => {
                frame::read_json(input).and_then(|json| answered(inner.check(json.text, now_ms)))
            }
            Form::Fields => frame::read_fields(input, now_ms)
                .and_then(|fields| inner.check_fields(&fields.call, now_ms)),
        };
        self.status(form, answer)
    }

    /// `record` of the outcome in the input buffer's frame.
    pub fn record(&mut self, form: Form, now_ms: f64) -> Status {
        let input = &self.input;
        let inner = &mut self.inner;
        let answer = match form {
            Form::Json => frame::read_json(input).and_then(|json| {
                answered(inner.record_with_side_text(json.text, json.side, now_ms))
            }),
            Form::Fields => frame::read_fields(input, now_ms).and_then(|fields| {
                let call = fields.call;
                let outcome = Fields::outcome(fields)?;
                inner.record_fields(&call, outcome.args_withheld, &outcome.result, now_ms)
            }),
        };
        self.status(form, answer)
    }

    /// The error for which `check` or `record` returned `Status::Error`, as a JS `Error`.
    #[wasm_bindgen(js_name = takeError)]
    pub fn take_error(&mut self) -> JsValue {
        let error = self.error.take();
        to_js_error(error.unwrap_or_else(|| GuardError::record(None, "no error is pending")))
    }

    /// `{"args": hex, "outcome": hex | null}`: the fingerprints `record` would give the record in
    /// the input buffer's `Form::Json` frame (see `Guard::fingerprint`); nothing is stored.
    pub fn fingerprint(&mut self) -> Result<String, JsValue> {
        let found = frame::read_json(&self.input)
            .and_then(|json| self.inner.fingerprint(json.text, json.side));
        self.clear_input(Form::Json);
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

    /// The address in `wasmMemory()` of the answer frame of the last verdict for which `check` or
    /// `record` returned `Status::Verdict`; valid until the next `check` or `record`.
    pub fn answer(&self) -> *const u8 {
        self.answer.bytes().as_ptr()
    }

    /// Whether record verdicts carry `sameAs` (see `Guard::reports_same_as`).
    #[wasm_bindgen(js_name = reportsSameAs)]
    pub fn reports_same_as(&self) -> bool {
        self.inner.reports_same_as()
    }

    /// The model-facing text standing for a result that repeats call `call_id`'s.
    #[wasm_bindgen(js_name = sameAsReference)]
    pub fn same_as_reference(&self, call_id: &str) -> String {
        self.inner.same_as_reference(call_id)
    }

    pub fn compacted(&mut self, run_id: Option<String>) {
        self.inner.compacted(run_id.as_deref());
    }

    pub fn progress(&mut self, run_id: Option<String>) {
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

/// Bytes of an input frame's header, where its pieces begin (see `record::frame`).
#[wasm_bindgen(js_name = frameHeaderBytes)]
pub fn frame_header_bytes() -> u32 {
    HEADER_BYTES as u32
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

#[wasm_bindgen]
extern "C" {
    /// The host's SHA-256, as `setHostSha256` receives it.
    pub type HostSha256;

    /// Writes the SHA-256 of the `len` bytes at `at` in `wasmMemory()` to the 32 bytes at `out`.
    #[wasm_bindgen(method, structural, catch)]
    fn digest(this: &HostSha256, at: u32, len: u32, out: u32) -> Result<(), JsValue>;
}

thread_local! {
    static HOST_SHA256: std::cell::RefCell<Option<HostSha256>> = const { std::cell::RefCell::new(None) };
}

/// The core's long inputs (arguments, outcomes) hashed by the host's `hasher.digest(at, len, out)`
/// (see `HostSha256`); `undefined` hashes everything in wasm again. Digests are the same.
#[wasm_bindgen(js_name = setHostSha256)]
pub fn set_host_sha256(hasher: Option<HostSha256>) {
    let offered = hasher.is_some();
    HOST_SHA256.with(|host| *host.borrow_mut() = hasher);
    crate::json::digest::set_host_sha256(offered.then_some(host_sha256 as _));
}

/// The digest of `bytes` by the host's SHA-256; `None` when it threw (then wasm hashes them).
fn host_sha256(bytes: &[u8]) -> Option<crate::json::digest::Digest> {
    let mut out = [0u8; 32];
    let at = bytes.as_ptr() as u32;
    let len = bytes.len() as u32;
    let out_at = out.as_mut_ptr() as u32;
    let done = HOST_SHA256.with(|host| host.borrow().as_ref().map(|h| h.digest(at, len, out_at)));
    // The host wrote `out` through its address.
    std::hint::black_box(&mut out);
    matches!(done, Some(Ok(()))).then_some(out)
}

/// Sets the instance's secret, from which each run's window key is derived (`json::window_hash`):
/// 16 random bytes, which the JS runtime draws from its random source (`js/runtime.ts`) when it
/// instantiates the module, before any guard exists. Any other length withdraws it: windows then
/// digest with SHA-256, as they do until a secret is set.
#[wasm_bindgen(js_name = setWindowSecret)]
pub fn set_window_secret(bytes: &[u8]) {
    let secret = bytes.split_first_chunk::<8>().and_then(|(k0, rest)| {
        let k1 = rest.first_chunk::<8>().filter(|_| rest.len() == 8)?;
        Some([u64::from_le_bytes(*k0), u64::from_le_bytes(*k1)])
    });
    crate::json::window_hash::set_secret(secret);
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
