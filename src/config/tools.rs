//! Per-tool settings (`tools: {"<name>": {...}}` in the config) and the built-in classification of
//! well-known gateway tools: which tools poll, which mutate, their caps and extra ignored fields.

use crate::config::{
    describe, must_be, opt_choice, opt_count, opt_object, opt_string_list, reject_unknown_keys,
    MAX_COUNT,
};
use crate::error::GuardError;
use serde_json::{Map, Value};

/// What a tool does, as far as loop detection cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// Repeated identical outcomes are expected while waiting: judged by `known_poll_no_progress`.
    Poll,
    /// Reads or computes: the default.
    Read,
    /// Changes something; identical acknowledgements for different arguments are not a stall,
    /// and repeating an identical change is judged only while nothing else changes.
    Mutate,
    /// Runs arbitrary commands (`bash`, `exec`, `run_shell_command`): reads and writes alike, so
    /// identical output for different commands is not a stall (most writes print nothing).
    Command,
}

/// At most `calls` calls within any `window_ms`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cap {
    pub calls: u32,
    pub window_ms: f64,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolSettings {
    pub kind: Option<ToolKind>,
    pub cap: Option<Cap>,
    /// Extra volatile keys dropped at any depth of this tool's outcomes.
    pub ignore_keys: Vec<String>,
    /// JSON pointers (RFC 6901) removed from this tool's outcomes before hashing.
    pub ignore_pointers: Vec<String>,
    pub warning_threshold: Option<u32>,
    pub critical_threshold: Option<u32>,
}

/// Tool-name prefixes (and whole names) of tools that change state and typically answer with a
/// fixed acknowledgement, such as `write`, `edit_file`, `update_task`, `sendMessage`.
const MUTATING_VERBS: &[&str] = &[
    "write", "edit", "apply", "update", "set", "create", "delete", "remove", "add", "insert",
    "send", "post", "put", "patch", "save", "move", "rename", "upload", "append", "commit", "push",
    "modify", "cancel", "exchange", "return", "transfer", "book", "reserve", "submit", "approve",
    "reject", "assign", "close", "merge", "deploy", "install", "reset", "archive", "publish",
    "schedule", "upsert", "register", "invite", "reply", "forward", "pay", "purchase", "refund",
];

/// Words that, anywhere in a tool's name, mark a runner of arbitrary commands (`bash`,
/// `exec`, `run_shell_command`, `execute_bash`, `terminal`).
const COMMAND_RUNNER_WORDS: &[&str] = &[
    "bash",
    "sh",
    "zsh",
    "shell",
    "terminal",
    "exec",
    "execute",
    "cmd",
    "command",
    "powershell",
];

/// Whether one of the words of `tool`'s name (split at `_`, `-`, `.`, `/`, spaces, `:` and where a
/// lower-case letter or digit is followed by an upper-case one: `runShellCommand` is run, Shell,
/// Command) is a command-runner word.
#[inline(never)]
fn named_like_command_runner(tool: &str) -> bool {
    tool.as_bytes()
        .split(|b| matches!(b, b'_' | b'-' | b'.' | b'/' | b' ' | b':'))
        .any(|part| {
            let mut start = 0;
            for i in 1..part.len() {
                let (Some(prev), Some(here)) = (part.get(i - 1), part.get(i)) else {
                    continue;
                };
                if (prev.is_ascii_lowercase() || prev.is_ascii_digit()) && here.is_ascii_uppercase()
                {
                    if is_command_runner_word(part.get(start..i).unwrap_or_default()) {
                        return true;
                    }
                    start = i;
                }
            }
            is_command_runner_word(part.get(start..).unwrap_or_default())
        })
}

/// Bit `n` set when a word of `COMMAND_RUNNER_WORDS` is `n` bytes long: most words of a tool's
/// name are passed over by their length alone.
const RUNNER_WORD_LENGTHS: u64 = runner_word_lengths();

// Evaluated at compile time: a runner word of 64 bytes or more fails the build.
#[allow(clippy::indexing_slicing)]
const fn runner_word_lengths() -> u64 {
    let mut bits = 0u64;
    let mut i = 0;
    while i < COMMAND_RUNNER_WORDS.len() {
        let len = COMMAND_RUNNER_WORDS[i].len();
        assert!(len < 64);
        bits |= 1 << len;
        i += 1;
    }
    bits
}

/// Whether `word` is one of `COMMAND_RUNNER_WORDS` (all lower-case), in any case.
#[inline(never)]
fn is_command_runner_word(word: &[u8]) -> bool {
    let len = word.len();
    if len >= 64 || RUNNER_WORD_LENGTHS & (1 << len) == 0 {
        return false;
    }
    COMMAND_RUNNER_WORDS
        .iter()
        .any(|runner| runner.len() == len && runner.as_bytes().eq_ignore_ascii_case(word))
}

/// Whether `tool`'s name starts with a mutating verb followed by nothing, `_`, `-`, `.` or an
/// upper-case letter. Only the verbs sharing the name's first letter are compared in full.
fn named_like_mutator(tool: &str) -> bool {
    let Some(first) = tool.bytes().next().map(|b| b.to_ascii_lowercase()) else {
        return false;
    };
    MUTATING_VERBS.iter().any(|verb| {
        if verb.as_bytes().first() != Some(&first) {
            return false;
        }
        let Some(rest) = tool
            .get(..verb.len())
            .filter(|head| head.eq_ignore_ascii_case(verb))
            .and_then(|_| tool.get(verb.len()..))
        else {
            return false;
        };
        rest.is_empty()
            || rest.starts_with(['_', '-', '.'])
            || rest.starts_with(|c: char| c.is_ascii_uppercase())
    })
}

impl ToolSettings {
    pub fn parse(name: &str, value: &Value) -> Result<ToolSettings, GuardError> {
        let prefix = format!("tools.{name}");
        let Value::Object(map) = value else {
            return Err(must_be(&prefix, "an object", value));
        };
        reject_unknown_keys(
            map,
            &[
                "kind",
                "cap",
                "ignore",
                "warningThreshold",
                "criticalThreshold",
            ],
            &format!("{prefix}."),
        )?;
        let mut settings = ToolSettings {
            kind: parse_kind(map, &prefix)?,
            ..ToolSettings::default()
        };
        if let Some(cap) = opt_object(map, "cap", &format!("{prefix}.cap"))? {
            settings.cap = Some(parse_cap(cap, &format!("{prefix}.cap"))?);
        }
        for entry in
            opt_string_list(map, "ignore", &format!("{prefix}.ignore"))?.unwrap_or_default()
        {
            if entry.starts_with('/') {
                settings.ignore_pointers.push(entry);
            } else {
                settings.ignore_keys.push(entry);
            }
        }
        let field = |key: &str| format!("{prefix}.{key}");
        settings.warning_threshold = opt_count(
            map,
            "warningThreshold",
            &field("warningThreshold"),
            MAX_COUNT,
        )?;
        settings.critical_threshold = opt_count(
            map,
            "criticalThreshold",
            &field("criticalThreshold"),
            MAX_COUNT,
        )?;
        Ok(settings)
    }
}

/// The values of `tools.<name>.kind`.
pub(crate) const TOOL_KINDS: [(&str, ToolKind); 4] = [
    ("poll", ToolKind::Poll),
    ("read", ToolKind::Read),
    ("mutate", ToolKind::Mutate),
    ("command", ToolKind::Command),
];

fn parse_kind(map: &Map<String, Value>, prefix: &str) -> Result<Option<ToolKind>, GuardError> {
    opt_choice(map, "kind", &format!("{prefix}.kind"), &TOOL_KINDS)
}

fn parse_cap(cap: &Map<String, Value>, prefix: &str) -> Result<Cap, GuardError> {
    reject_unknown_keys(cap, &["calls", "windowMs"], &format!("{prefix}."))?;
    let calls_field = format!("{prefix}.calls");
    let calls = opt_count(cap, "calls", &calls_field, 1_000_000)?
        .ok_or_else(|| GuardError::config(&calls_field, format!("{calls_field} is required")))?;
    let window_field = format!("{prefix}.windowMs");
    let window_ms = match cap.get("windowMs") {
        Some(Value::Number(n)) => n.as_f64().filter(|x| x.is_finite() && *x > 0.0),
        _ => None,
    }
    .ok_or_else(|| {
        GuardError::config(
            &window_field,
            format!(
                "{window_field} must be a positive number of milliseconds, got {}",
                cap.get("windowMs").map_or("nothing".to_owned(), describe)
            ),
        )
    })?;
    Ok(Cap { calls, window_ms })
}

/// The kind of `tool` called with an `action` argument (a string, if it has one), from the config
/// or the built-in list.
pub fn kind_of(
    tool: &str,
    action: Option<&str>,
    settings: Option<&ToolSettings>,
    poll_tools: &[String],
) -> ToolKind {
    refined_kind(tool, action, settings, || kind_by_name(tool, poll_tools))
}

/// `kind_of`, given the kind by name (`by_name`, asked only when the config does not decide).
pub fn refined_kind(
    tool: &str,
    action: Option<&str>,
    settings: Option<&ToolSettings>,
    by_name: impl FnOnce() -> ToolKind,
) -> ToolKind {
    if let Some(kind) = settings.and_then(|s| s.kind) {
        return kind;
    }
    match by_name() {
        _ if is_known_poll(tool, action) => ToolKind::Poll,
        kind => kind,
    }
}

/// The kind of `tool` from its name alone (no config, no arguments).
pub fn kind_by_name(tool: &str, poll_tools: &[String]) -> ToolKind {
    let polls = is_known_poll(tool, None) || BACKGROUND_OUTPUT_POLLS.contains(&tool);
    if polls || poll_tools.iter().any(|t| t == tool) {
        ToolKind::Poll
    } else if named_like_command_runner(tool) {
        ToolKind::Command
    } else if named_like_mutator(tool) {
        ToolKind::Mutate
    } else {
        ToolKind::Read
    }
}

/// Tools that read a background command's output and status, polled while it runs: Claude Code's
/// `BashOutput` (2.0) and `TaskOutput` (2.1). Polls for the default and strict presets only:
/// `is_known_poll`, OpenClaw's own rule, stays as OpenClaw has it.
const BACKGROUND_OUTPUT_POLLS: &[&str] = &["BashOutput", "TaskOutput"];

/// The polls every preset knows (the one poll rule; `preset: "openclaw"` reads it too):
/// `command_status`, and `process` called with `action: "poll"` or `"log"` (a running process).
pub fn is_known_poll(tool: &str, action: Option<&str>) -> bool {
    tool == "command_status" || (tool == "process" && matches!(action, Some("poll" | "log")))
}

#[cfg(test)]
mod tests {
    use super::{named_like_command_runner, named_like_mutator};

    #[test]
    fn command_runner_names() {
        for name in [
            "bash",
            "exec",
            "run_shell_command",
            "execute_bash",
            "runShellCommand",
            "terminal",
            "shell.exec",
            "execute_command",
        ] {
            assert!(named_like_command_runner(name), "{name}");
        }
        for name in [
            "search",
            "shellfish_lookup",
            "read_file",
            "cashback",
            "commander",
        ] {
            assert!(!named_like_command_runner(name), "{name}");
        }
    }

    #[test]
    fn mutator_names() {
        for name in [
            "write",
            "edit_file",
            "update_task",
            "sendMessage",
            "cancel_pending_order",
            "book_reservation",
            "apply_patch",
            "git.commit".trim_start_matches("git."),
        ] {
            assert!(named_like_mutator(name), "{name}");
        }
        for name in [
            "read_file",
            "search",
            "settings",
            "updates",
            "address_lookup",
            "poster",
        ] {
            assert!(!named_like_mutator(name), "{name}");
        }
    }
}
