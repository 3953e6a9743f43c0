//! JSON text machinery, below the domain: a reader for records and the config, a float parser, the
//! RFC 8785 canonical form that fingerprints are taken of (streamed into SHA-256), and a small
//! writer for what the core hands back. Nothing here knows about tools, runs or verdicts.
//!
//! - `reader`: JSON text to `serde_json::Value`, or skimmed, or (as a `canonical::Source`) read
//!   straight into the canonical writer; `float_parse`: number text to the nearest double;
//!   `top_strings`: chosen top-level string members of a document, read without a tree.
//! - `canonical`: the one RFC 8785 writer, reading a parsed value or text; `canonical_text`:
//!   whether text is already canonical (then it is hashed as it is); `key_order`: member
//!   order; `escape`: string escaping; `number_format`: ECMAScript number text; `bignum`: the exact
//!   arithmetic of both number conversions.
//! - `digest`: where bytes go (`ByteSink`, the buffered `HashSink`); `window_hash`: what the sink
//!   digests with, a run's keyed SipHash or SHA-256; `members`: a sink
//!   that also hashes a canonical object's top-level members; `writer`: the JSON of verdicts and
//!   stats.
//! - `scrub`: parsed content zeroed as it is dropped (fingerprints only); `pointer`: RFC 6901
//!   pointers and a value without the members they name.

mod bignum;
pub mod canonical;
pub(crate) mod canonical_text;
#[cfg(test)]
mod differential;
pub mod digest;
pub(crate) mod escape;
pub(crate) mod float_parse;
mod key_order;
pub(crate) mod members;
pub mod number_format;
pub(crate) mod pointer;
pub(crate) mod reader;
pub(crate) mod scrub;
#[cfg(test)]
pub(crate) mod test_rng;
pub(crate) mod top_strings;
pub mod window_hash;
pub(crate) mod writer;
