#![doc = include_str!("../README.md")]
//!
//! # The Rust core
//!
//! This crate is the core of the npm package: pure Rust, no JavaScript types. The host calls
//! [`Guard::check`] before dispatching a tool call (the [`Verdict`] may refuse it) and
//! [`Guard::record`] after the result or error arrives. The guard fingerprints the tool, the
//! arguments (RFC 8785 canonical JSON, SHA-256) and the outcome (normalised, SHA-256), keeps a
//! bounded window per run, and runs independent detectors that escalate from a warning (a hint for
//! the model) to a refusal to a circuit break. A loop is stuck when results stop changing. Under
//! the strict preset the same update returning the same text is warned about at the second call
//! and refused at the third (the same change made again):
//!
//! ```
//! use serde_json::json;
//! use tool_loop_guard::{Action, DetectorId, Guard};
//!
//! let mut guard = Guard::new(&json!({"preset": "strict"}))?;
//! let call = json!({"runId": "r1", "tool": "update_task", "args": {"id": 7}});
//! let outcome = json!({"runId": "r1", "tool": "update_task", "args": {"id": 7},
//!                      "result": "Task 7 updated."});
//! let mut actions = Vec::new();
//! for step in 0..3 {
//!     let now_ms = f64::from(step) * 1000.0;
//!     let verdict = guard.check(&call.to_string(), now_ms)?;
//!     actions.push(verdict.action);
//!     if verdict.action == Action::Block {
//!         assert_eq!(verdict.detector, Some(DetectorId::GenericRepeat));
//!         break; // the refusal, not the tool, answers the model
//!     }
//!     guard.record(&outcome.to_string(), now_ms)?;
//! }
//! assert_eq!(actions, [Action::Allow, Action::Warn, Action::Block]);
//! # Ok::<(), tool_loop_guard::GuardError>(())
//! ```
//!
//! On wasm32 a private module of wasm-bindgen exports translates between JavaScript and this
//! API. The layers, and the walk of one record from `guard.check()` to a verdict, are in
//! `docs/ARCHITECTURE.md`.
#![deny(unsafe_code)]
#![warn(missing_docs)]

// Only the frames declare shared codes, and only wasm builds (and the tests) have frames.
#[cfg(any(target_arch = "wasm32", test))]
mod codes;
mod config;
mod detectors;
mod engine;
mod error;
mod guard;
#[cfg(test)]
mod js_names;
mod json;
mod openclaw;
mod record;
mod report;
mod run;
mod verdict;
#[cfg(target_arch = "wasm32")]
mod wasm;

pub use error::{ErrorCode, GuardError};
pub use guard::{Guard, RecordFingerprints};
pub use record::input::CallFields;
pub use record::outcome_fields::{ResultFields, TextField};
pub use report::stats::Stats;
pub use verdict::{Action, Answer, DetectorId, Level, Observed, Refusal, Verdict, WouldBe};

/// Not part of the API: the internals that `fuzz/fuzz_targets/` and `tests/` drive directly.
#[doc(hidden)]
pub mod internals {
    pub use crate::config::top_level_keys;
    pub use crate::json::canonical::{to_canonical_string, KeepAll};
    pub use crate::json::digest::sha256;
    pub use crate::json::number_format::format_number;
    pub use crate::json::window_hash::{set_secret as set_window_secret, siphash13};
    pub use crate::record::outcome::{digest_outcome, OutcomeParts, ResultMasking};
}
