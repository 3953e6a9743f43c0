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

pub mod canonical;
pub mod config;
mod detectors;
#[cfg(test)]
mod differential;
pub mod error;
mod failure_text;
mod float_parse;
mod guard;
mod history;
pub mod input;
mod json;
mod json_text;
mod json_writer;
mod keys;
mod messages;
pub mod metrics;
mod openclaw;
pub mod outcome;
mod outcome_fields;
mod runs;
mod snapshot;
mod snapshot_bytes;
pub mod stats;
mod tool_table;
mod tools;
pub mod verdict;
mod volatile_table;

#[cfg(target_arch = "wasm32")]
mod bindings;
#[cfg(target_arch = "wasm32")]
mod zeroing_alloc;

pub use config::Config;
pub use error::{ErrorCode, GuardError};
pub use guard::{Guard, RecordFingerprints};
pub use input::CallFields;
pub use outcome_fields::{ResultFields, TextField};
pub use stats::Stats;
pub use verdict::{Action, Answer, DetectorId, Level, Verdict};
