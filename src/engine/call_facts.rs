//! What the default engine reads of a call before it decides: its fingerprint, its kind and what
//! it may write (from its name, refined by its arguments where they say more: `record::effects`),
//! whether its arguments may name files, and the proposal the detectors judge.

use crate::config::tools::{kind_by_name, kind_of, refined_kind, ToolKind};
use crate::config::Config;
use crate::detectors::{NamedFiles, Proposal};
use crate::error::GuardError;
use crate::json::escape::write_string;
use crate::json::members::{fnv1a, FNV_START};
use crate::json::scrub::RawContent;
use crate::record::effects::{
    effect_of, effect_of_kind, file_operation_effect, named_files, reads_arguments, Effect,
    ARGUMENT_KEYS,
};
use crate::record::input::CallInput;
use crate::run::call_record::{fingerprint, Fingerprint};
use serde_json::Value;

/// The proposal for a call of `tool` (`tool_index`: its index in the run's table, if any), with
/// its per-tool settings resolved.
pub fn proposal<'a>(
    config: &Config,
    tool_index: Option<u16>,
    tool: &'a str,
    kind: ToolKind,
    args: Fingerprint,
    at: Option<f64>,
    names: &'a NamedFiles<'a>,
) -> Proposal<'a> {
    let settings = config.tools.get(tool);
    let (warning_threshold, critical_threshold) = config.thresholds(settings);
    Proposal {
        tool,
        tool_index,
        args,
        kind,
        at,
        names,
        warning_threshold,
        critical_threshold,
        cap: settings.and_then(|s| s.cap),
    }
}

/// Whether `call`'s tool runs arbitrary commands (by its name or its configured kind): a
/// command's timeout is not an outage.
pub fn runs_commands(config: &Config, call: &CallInput) -> bool {
    let settings = config.tools.get(&*call.tool);
    kind_of(&call.tool, None, settings, &config.poll_tools) == ToolKind::Command
}

/// What the guard reads of a call: its fingerprint, its kind and what it may write (from
/// its name, refined by its arguments where they say more: `record::effects`). Only calls
/// whose effect depends on their arguments have them read, and then only the few top-level
/// strings their effect depends on (every string for a file operation).
pub fn call_facts(config: &Config, call: &CallInput) -> Result<CallFacts, GuardError> {
    let settings = config.tools.get(&*call.tool);
    let poll_tools = &config.poll_tools;
    let configured = settings.and_then(|s| s.kind);
    let name_kind = kind_by_name(&call.tool, poll_tools);
    let needs_args =
        call.tool == "process" || configured.is_none() && reads_arguments(&call.tool, name_kind);
    let args = fingerprint(&call.args_digest()?);
    if !needs_args {
        let kind = configured.unwrap_or(name_kind);
        // A read's argument members say, when it stalls, which arguments it varied.
        let mut facts = CallFacts::new(args, effect_of_kind(kind));
        facts.has_members = kind == ToolKind::Read;
        return Ok(facts);
    }
    let strings = call.arg_strings(&ARGUMENT_KEYS)?;
    let kind = refined_kind(&call.tool, strings.get("action"), settings, || name_kind);
    if configured.is_some() || kind == ToolKind::Poll {
        return Ok(CallFacts::new(args, effect_of_kind(kind)));
    }
    let effect = match effect_of(&call.tool, kind, &strings) {
        Some(effect) => effect,
        None => {
            let parsed = RawContent(Some(call.args()?));
            file_operation_effect(parsed.0.as_ref().unwrap_or(&Value::Null))
        }
    };
    let mut facts = CallFacts::new(args, effect);
    facts.names_files = true;
    Ok(facts)
}

/// What `call_facts` reads of a call.
pub struct CallFacts {
    pub args: Fingerprint,
    pub effect: Effect,
    /// Its arguments may name files (`effects::named_files`), read when a rule asks.
    pub names_files: bool,
    /// A read: its top-level argument members (`json::members`) are read when it stalls.
    pub has_members: bool,
}

impl CallFacts {
    fn new(args: Fingerprint, effect: Effect) -> CallFacts {
        CallFacts {
            args,
            effect,
            names_files: false,
            has_members: false,
        }
    }
}

/// The files a call's arguments name (`effects::named_files`), read from their tree.
pub fn named_files_of(call: &CallInput) -> Vec<u32> {
    let parsed = RawContent(call.args().ok());
    parsed.0.as_ref().map_or_else(Vec::new, named_files)
}

/// The names of the top-level arguments of `call` whose canonical keys hash to one of `keys` (at
/// most three).
pub fn argument_names(call: &CallInput, keys: &[u32]) -> Vec<String> {
    if keys.is_empty() {
        return Vec::new();
    }
    let parsed = RawContent(call.args().ok());
    let Some(Value::Object(args)) = &parsed.0 else {
        return Vec::new();
    };
    let mut canonical = Vec::new();
    let mut names = Vec::new();
    for name in args.keys() {
        canonical.clear();
        write_string(name, &mut canonical);
        if keys.contains(&fnv1a(FNV_START, &canonical)) && names.len() < 3 {
            names.push(name.clone());
        }
    }
    names
}

/// A call's key in the change log: the first 32 bits of its argument fingerprint.
pub fn call_key(args: &Fingerprint) -> u32 {
    u32::from_le_bytes([args[0], args[1], args[2], args[3]])
}
