//! How one call's outcome is digested: the tool's volatile keys and ignored JSON pointers, its
//! profile (`exec`'s, a delivering `message`'s, `write`'s), a mutation's numbers or a poll's
//! clock values masked, by the
//! field-by-field framing when no profile or pointer applies, else from its parsed tree
//! (`record::outcome`).

use crate::config::tools::ToolKind;
use crate::config::Config;
use crate::error::GuardError;
use crate::json::pointer::without_pointers;
use crate::json::scrub::RawContent;
use crate::record::input::CallInput;
use crate::record::outcome::{digest_outcome, OutcomeDigest, OutcomeParts, ResultMasking};
use crate::record::outcome_fields::{digest_result_fields, ResultFields};
use crate::record::volatile_table::{is_send, ToolVolatileKeys, SEND_VOLATILE_KEYS};
use serde_json::Value;

/// How one call's outcome is digested: the tool's volatile keys and ignored JSON pointers, and
/// whether its profile is `exec`'s (`exec`, and `process` polls).
pub struct OutcomeDigester<'a> {
    tool: &'a str,
    exec_like: bool,
    /// A delivering call (`volatile_table::is_send`).
    send: bool,
    /// What its results' texts have masked: a mutation's numbers, a poll's clock values.
    masking: ResultMasking,
    keys: ToolVolatileKeys<'a>,
    pointers: &'a [String],
}

impl<'a> OutcomeDigester<'a> {
    pub fn new(config: &'a Config, call: &'a CallInput, kind: ToolKind) -> Self {
        let tool = &*call.tool;
        let settings = config.tools.get(tool);
        // Only `message` needs its arguments (its action) to tell whether it delivers.
        let args = match tool {
            "message" => call.args().unwrap_or_default(),
            _ => Value::Null,
        };
        let send = is_send(tool, &args);
        OutcomeDigester {
            tool,
            exec_like: tool == "exec" || (tool == "process" && kind == ToolKind::Poll),
            send,
            masking: ResultMasking::of_kind(kind),
            keys: ToolVolatileKeys {
                global: &config.volatile_keys,
                tool: settings.map_or(&[][..], |s| &s.ignore_keys),
                table: if send { SEND_VOLATILE_KEYS } else { &[] },
            },
            pointers: settings.map_or(&[][..], |s| &s.ignore_pointers),
        }
    }

    /// A result handed over field by field: framed directly when no profile or pointer applies;
    /// `None` when one does and the fields lack what it reads (a thrown error's message the host
    /// hashed): the JSON record is needed.
    pub fn fields(&self, result: &ResultFields) -> Result<Option<OutcomeDigest>, GuardError> {
        if !self.exec_like && !self.send && self.tool != "write" && self.pointers.is_empty() {
            return digest_result_fields(result, &self.keys, self.masking).map(Some);
        }
        if result.holds_hashed_error() {
            return Ok(None);
        }
        self.tree(
            &RawContent(result.tree()?),
            &RawContent(result.error_tree()),
            None,
        )
        .map(Some)
    }

    /// The tree path: the parsed outcome, its ignored pointers removed, digested by `outcome.rs`.
    pub fn tree(
        &self,
        result: &RawContent,
        error: &RawContent,
        side_text: Option<&[u8]>,
    ) -> Result<OutcomeDigest, GuardError> {
        let digest = |result: Option<&Value>, error: Option<&Value>| {
            let parts = OutcomeParts {
                tool: self.tool,
                exec_like: self.exec_like,
                result,
                error,
                side_text,
                send: self.send,
                masking: self.masking,
            };
            digest_outcome(&parts, &self.keys)
        };
        if self.pointers.is_empty() {
            return digest(result.0.as_ref(), error.0.as_ref());
        }
        let strip = |raw: &RawContent| {
            RawContent(raw.0.as_ref().map(|v| without_pointers(v, self.pointers)))
        };
        let (result, error) = (strip(result), strip(error));
        digest(result.0.as_ref(), error.0.as_ref())
    }
}
