//! tool-loop-guard: a content-aware guard against AI agents stuck in tool-calling loops.
//!
//! The host calls [`Guard::check`] before dispatching a tool call (the verdict may refuse it) and
//! [`Guard::record`] after the result or error arrives. The guard fingerprints the tool, the
//! arguments (RFC 8785 canonical JSON, SHA-256) and the outcome (normalised, SHA-256), keeps a
//! bounded window per run, and runs independent detectors that escalate from a warning (a hint for
//! the model) to a refusal to a circuit break. A loop is stuck when results stop changing.
//!
//! The core is pure Rust; `bindings` (wasm32 only) exposes it to JavaScript.
#![deny(unsafe_code)]

pub mod config;
mod detectors;
pub mod error;
mod guard;
#[cfg(test)]
mod js_names;
pub mod json;
mod openclaw;
pub mod record;
pub mod report;
mod run;
pub mod verdict;
#[cfg(target_arch = "wasm32")]
mod wasm;

pub use config::Config;
pub use error::{ErrorCode, GuardError};
pub use guard::{Guard, RecordFingerprints};
pub use record::input::CallFields;
pub use record::outcome_fields::{ResultFields, TextField};
pub use report::stats::Stats;
pub use verdict::{Action, Answer, DetectorId, Level, Verdict};
