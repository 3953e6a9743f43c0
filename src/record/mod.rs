//! The host's records, from text to meaning: the input frame they arrive in, parsing call and
//! outcome records (as JSON or field by field) with field-named errors, and the digests of their
//! arguments and outcomes, including what makes two results the same (volatile keys, JSON inside
//! text, failures written as text, failures naming a missing tool; `digester` applies a tool's
//! profile and ignored pointers); the lookup keys that find a run, a tool or a pending call
//! again (`keys`).

pub(crate) mod ascii;
pub(crate) mod clock_mask;
pub(crate) mod digester;
pub(crate) mod effects;
pub(crate) mod failure_class;
pub(crate) mod failure_text;
// Only the wasm bindings read frames; natively the decoder is built for its own unit tests, which
// leave `Status` (the bindings' answer) unused.
#[cfg(any(target_arch = "wasm32", test))]
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) mod frame;
pub mod input;
pub(crate) mod json_text;
pub(crate) mod keys;
pub(crate) mod missing_tool;
pub mod outcome;
pub(crate) mod outcome_fields;
pub(crate) mod quote;
pub(crate) mod volatile_table;
