//! What the default engine reads of a call before it decides: its fingerprint, its kind and what
//! it may write (from its name, `config::effect_table`, refined by its arguments where they say
//! more, `record::effects`), whether its arguments may name files, and the proposal the
//! detectors judge. `call_facts` is the order of those decisions.

use crate::config::effect_table::{kind_by_name, Arguments, ARGUMENT_KEYS};
use crate::config::tools::{is_known_poll, ToolKind};
use crate::config::Config;
use crate::detectors::{NamedFiles, Proposal};
use crate::error::GuardError;
use crate::json::escape::write_string;
use crate::json::members::{fnv1a, FNV_START};
use crate::json::scrub::RawContent;
use crate::record::effects::{
    effect_of, effect_of_kind, effect_of_tree, named_files, reads_arguments, Effect,
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

/// A tool's kind by the config or its name (`kind_by_name_or_config`): what its arguments may
/// add, and whether the config or a known poll decided it (its arguments are then not read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameKind {
    pub kind: ToolKind,
    arguments: Arguments,
    decided: bool,
}

/// A tool's kind from the config (`tools.<name>.kind`, `pollTools`), else from the polls every
/// preset knows and the effect table; and what its arguments may add (nothing when the config
/// or a poll decides). Whether `process` polls depends on its `action`: `call_facts` asks.
pub fn kind_by_name_or_config(config: &Config, tool: &str) -> NameKind {
    let configured = config.tools.get(tool).and_then(|s| s.kind);
    let decided = |kind| NameKind {
        kind,
        arguments: Arguments::Kind,
        decided: true,
    };
    if let Some(kind) = configured {
        return decided(kind);
    }
    if is_known_poll(tool, None) || config.poll_tools.iter().any(|t| t == tool) {
        return decided(ToolKind::Poll);
    }
    let (kind, arguments) = kind_by_name(tool);
    NameKind {
        kind,
        arguments,
        decided: false,
    }
}

/// Tool names kept by `NameKinds` (more names are read again on each call).
const MAX_KEPT_NAMES: usize = 256;

/// Each tool name's `NameKind`, read once: a guard's config never changes, so neither does the
/// kind of a name. Sorted by name; at most `MAX_KEPT_NAMES` names.
#[derive(Default)]
pub struct NameKinds(Vec<(Box<str>, NameKind)>);

impl NameKinds {
    /// The kind of `tool` under `config` (the config the guard was made with).
    pub fn of(&mut self, config: &Config, tool: &str) -> NameKind {
        let index = match self.0.binary_search_by(|(name, _)| (**name).cmp(tool)) {
            Ok(index) => return self.0.get(index).map_or(NO_KIND, |(_, kind)| *kind),
            Err(index) => index,
        };
        let kind = kind_by_name_or_config(config, tool);
        if self.0.len() < MAX_KEPT_NAMES {
            self.0.insert(index, (tool.into(), kind));
        }
        kind
    }
}

/// Never returned: `of` reads an index `binary_search_by` just found.
const NO_KIND: NameKind = NameKind {
    kind: ToolKind::Unknown,
    arguments: Arguments::Kind,
    decided: false,
};

/// What the guard reads of a call, in this order:
/// 1. its fingerprint;
/// 2. its kind by the config or a known poll, final: its arguments are not read;
/// 3. else its kind by name (`config::effect_table::kind_by_name`): a read, or a poll, by name is
///    final too, and its effect follows from the kind (`effect_of_kind`);
/// 4. else (a mutation, a command runner, an unknown call, a tool whose `TOOLS` line reads its
///    arguments, `process`) the few top-level strings its effect depends on: `process` with a
///    polling `action` is a poll; else `record::effects::effect_of` (the editor protocol whatever
///    the tool is named, shell text, a patch, SQL, a path), or `effect_of_tree` when that needs
///    every string (a file operation, an argv array).
///
/// `name_kind` is step 2's and 3's answer (`NameKinds::of` keeps it per tool name).
pub fn call_facts(call: &CallInput, name_kind: NameKind) -> Result<CallFacts, GuardError> {
    let args = fingerprint(&call.args_digest()?);
    let NameKind {
        kind: name_kind,
        arguments,
        decided,
    } = name_kind;
    let is_process = call.tool == "process";
    if decided || !(is_process || reads_arguments(name_kind, arguments)) {
        // A read's argument members say, when it stalls, which arguments it varied.
        let mut facts = CallFacts::new(args, effect_of_kind(name_kind));
        facts.has_members = name_kind == ToolKind::Read && !is_process;
        return Ok(facts);
    }
    facts_from_arguments(call, args, (name_kind, arguments), is_process)
}

/// Step 4 of `call_facts`: a call whose effect its arguments tell. Not inlined into `call_facts`,
/// whose first call a fresh process compiles whole, though reads (most calls) never come here.
#[inline(never)]
fn facts_from_arguments(
    call: &CallInput,
    args: Fingerprint,
    (name_kind, arguments): (ToolKind, Arguments),
    is_process: bool,
) -> Result<CallFacts, GuardError> {
    let strings = call.arg_strings(ARGUMENT_KEYS)?;
    if is_process && is_known_poll(&call.tool, strings.get("action")) {
        return Ok(CallFacts::new(args, effect_of_kind(ToolKind::Poll)));
    }
    let effect = match effect_of(name_kind, arguments, &strings) {
        Some(effect) => effect,
        None => {
            let parsed = RawContent(Some(call.args()?));
            let tree = parsed.0.as_ref().unwrap_or(&Value::Null);
            effect_of_tree(name_kind, arguments, tree)
        }
    };
    let mut facts = CallFacts::new(args, effect);
    facts.names_files = true;
    // An unknown call judged as a read is, when it stalls, named by its arguments as a read is.
    facts.has_members = name_kind == ToolKind::Unknown && facts.effect.kind.judged_as_read();
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

/// A call's key in the change log: the FNV-1a hash of its tool's name and its argument
/// fingerprint, so the same call again is the same target, and two tools called with the same
/// arguments (`toggle_roaming {}`, `refuel_data {}`) are not.
pub fn call_key(tool: &str, args: &Fingerprint) -> u32 {
    fnv1a(fnv1a(FNV_START, tool.as_bytes()), args)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;

    #[test]
    fn kept_kinds_are_the_derived_ones_and_bounded() {
        let config = Config::from_json(
            &json!({"tools": {"lookup": {"kind": "mutate"}}, "pollTools": ["wait_for"]}),
        )
        .unwrap();
        let mut kinds = NameKinds::default();
        let names = [
            "lookup",
            "wait_for",
            "bash",
            "get_order",
            "update_task",
            "think",
            "lookup",
        ];
        for name in names {
            assert_eq!(
                kinds.of(&config, name),
                kind_by_name_or_config(&config, name),
                "{name}"
            );
        }
        assert_eq!(kinds.of(&config, "lookup").kind, ToolKind::Mutate);
        assert_eq!(kinds.of(&config, "wait_for").kind, ToolKind::Poll);
        assert_eq!(kinds.0.len(), 6);
        for i in 0..2 * MAX_KEPT_NAMES {
            let name = format!("run_shell_{i}");
            assert_eq!(kinds.of(&config, &name).kind, ToolKind::Command);
        }
        assert_eq!(kinds.0.len(), MAX_KEPT_NAMES);
        assert!(kinds.0.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
