//! JSON text machinery, below the domain: a reader for records and the config, a float parser, the
//! RFC 8785 canonical form that fingerprints are taken of (streamed into SHA-256), and a small
//! writer for what the core hands back. Nothing here knows about tools, runs or verdicts.

mod bignum;
pub mod canonical;
#[cfg(test)]
mod differential;
pub mod digest;
pub(crate) mod escape;
mod float_parse;
mod key_order;
pub mod number_format;
pub(crate) mod reader;
#[cfg(test)]
pub(crate) mod test_rng;
pub(crate) mod writer;
