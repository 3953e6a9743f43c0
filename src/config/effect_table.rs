//! The effect model's vocabulary, in one table: what a call is (a read, a poll, a mutation, a
//! command runner, or unknown) and which of its arguments say what it may change. To teach the
//! guard a tool or a verb, add a line here; docs/semantics.md ("Tool kinds", "What a call may
//! change") describes the same tables.
//!
//! Names are compared word by word, in any case: a name is split at `_ - . / : space` and where a
//! lower-case letter or digit is followed by an upper-case one, so `MultiEdit`, `multi_edit` and
//! `multi-edit` are all the words `multi edit`. A tool's kind by its name:
//! 1. a whole name of `TOOLS` (`BashOutput`, `apply_patch`, `Task`, …): its line decides;
//! 2. a word among `COMMAND_RUNNER_WORDS` anywhere in the name: a command runner;
//! 3. else the first word that is a known verb: `READ_VERBS` make a read, `MUTATING_VERBS` a
//!    mutation, `ACTING_VERBS` an unknown (`get_return_options` is a read, `MultiEdit` and
//!    `github_create_issue` mutations, `run_speed_test` unknown);
//! 4. no known verb: unknown. An unknown call is judged as a read when it repeats, but it may have
//!    changed anything, so its new results count as changes for the calls after it.
//!
//! The config's `tools.<name>.kind` overrides all of this; the polls every preset knows are
//! `config::tools::is_known_poll`'s. How the arguments refine a kind (the editor protocol, shell
//! text, patches, SQL) is `record::effects`; the order of the decisions is
//! `engine::call_facts::call_facts`.

use crate::config::tools::ToolKind;

/// What a call's arguments say of what it may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arguments {
    /// Nothing more than its kind: a read changes nothing, a mutation or an unknown call
    /// something only it names, a poll nothing.
    Kind,
    /// A command runner: the shell text of its `COMMAND_KEYS` argument (a string, or an argv
    /// array such as Codex's `["bash", "-lc", "…"]`).
    Shell,
    /// A patch in Codex's `apply_patch` format: the files of its `*** Update File:`, `*** Add
    /// File:` and `*** Delete File:` lines (in `PATCH_KEYS`).
    Patch,
    /// An SQL statement (in `SQL_KEYS`): a read when it only selects, a mutation when a
    /// statement writes; text that is not SQL leaves the kind by name.
    Sql,
    /// A file operation exposed as its own tool: every string argument names a file it writes.
    FileOperation,
    /// A change of working directory, or a sub-agent: every later call may see something else.
    Everything,
    /// The tool's own state, which no other call reads (a todo list): one target whatever the
    /// arguments, kept as the file `OWN_STATE`.
    OwnState,
}

/// The name a tool's own state is kept under in the change log (no path names it).
pub const OWN_STATE: &str = "(own state)";

/// Tools known by their whole name (its words, as above, lower case): their kind, and what their
/// arguments say. Claude Code's, Codex's, MCP servers' SQL tools, and file-system APIs.
pub const TOOLS: &[(&[&str], ToolKind, Arguments)] = &[
    // Claude Code.
    (&["read"], ToolKind::Read, Arguments::Kind),
    (&["glob"], ToolKind::Read, Arguments::Kind),
    (&["grep"], ToolKind::Read, Arguments::Kind),
    (&["ls"], ToolKind::Read, Arguments::Kind),
    (&["edit"], ToolKind::Mutate, Arguments::Kind),
    (&["multi", "edit"], ToolKind::Mutate, Arguments::Kind),
    (&["notebook", "edit"], ToolKind::Mutate, Arguments::Kind),
    (&["write"], ToolKind::Mutate, Arguments::Kind),
    (&["bash"], ToolKind::Command, Arguments::Shell),
    (&["bash", "output"], ToolKind::Poll, Arguments::Kind),
    (&["task", "output"], ToolKind::Poll, Arguments::Kind),
    (&["kill", "shell"], ToolKind::Mutate, Arguments::Kind),
    (&["kill", "bash"], ToolKind::Mutate, Arguments::Kind),
    (&["todo", "write"], ToolKind::Mutate, Arguments::OwnState),
    (&["task"], ToolKind::Mutate, Arguments::Everything),
    // Codex.
    (&["shell"], ToolKind::Command, Arguments::Shell),
    (&["apply", "patch"], ToolKind::Mutate, Arguments::Patch),
    // SQL through MCP servers.
    (&["execute", "sql"], ToolKind::Mutate, Arguments::Sql),
    (&["run", "raw", "sql"], ToolKind::Mutate, Arguments::Sql),
    (&["run", "sql"], ToolKind::Mutate, Arguments::Sql),
    // A tool named `query` may take a search text: it stays a read unless its text is SQL that
    // writes.
    (&["query"], ToolKind::Read, Arguments::Sql),
    // OpenClaw's process tool: its polls are `is_known_poll`'s, the rest read as before.
    (&["process"], ToolKind::Read, Arguments::Kind),
    // Navigation.
    (&["cd"], ToolKind::Mutate, Arguments::Everything),
    (&["chdir"], ToolKind::Mutate, Arguments::Everything),
    (&["pushd"], ToolKind::Mutate, Arguments::Everything),
    (&["popd"], ToolKind::Mutate, Arguments::Everything),
    (
        &["change", "directory"],
        ToolKind::Mutate,
        Arguments::Everything,
    ),
    // File operations exposed as tools.
    (&["mkdir"], ToolKind::Mutate, Arguments::FileOperation),
    (&["touch"], ToolKind::Mutate, Arguments::FileOperation),
    (&["rm"], ToolKind::Mutate, Arguments::FileOperation),
    (&["rmdir"], ToolKind::Mutate, Arguments::FileOperation),
    (&["mv"], ToolKind::Mutate, Arguments::FileOperation),
    (&["cp"], ToolKind::Mutate, Arguments::FileOperation),
    (&["ln"], ToolKind::Mutate, Arguments::FileOperation),
    (&["chmod"], ToolKind::Mutate, Arguments::FileOperation),
    (&["chown"], ToolKind::Mutate, Arguments::FileOperation),
    (&["truncate"], ToolKind::Mutate, Arguments::FileOperation),
];

/// Words that, anywhere in a tool's name, mark a runner of arbitrary commands (`bash`, `exec`,
/// `run_shell_command`, `execute_bash`, `terminal`).
pub const COMMAND_RUNNER_WORDS: &[&str] = &[
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

/// Verbs of calls that change nothing: they read, look up, compute or think. Taken from the tool
/// names of the development set (`get_order_details`, `search_direct_flight`, `calculate`,
/// `think`, `inspect_…`, `click`, …); a browser's navigation is a read of the page it shows.
pub const READ_VERBS: &[&str] = &[
    "get",
    "list",
    "search",
    "find",
    "read",
    "view",
    "show",
    "fetch",
    "lookup",
    "query",
    "describe",
    "check",
    "calculate",
    "compute",
    "count",
    "think",
    "inspect",
    "review",
    "retrieve",
    "locate",
    "trace",
    "assess",
    "compare",
    "verify",
    "validate",
    "resolve",
    "identify",
    "classify",
    "summarize",
    "preview",
    "estimate",
    "sort",
    "filter",
    "suggest",
    "match",
    "map",
    "explain",
    "analyze",
    "audit",
    "browse",
    "open",
    "click",
    "scroll",
    "goto",
    "navigate",
    "cat",
    "grep",
    "glob",
    "ls",
    "decompile",
    "disassemble",
    "look",
    "status",
    "ping",
    "parse",
    "render",
    "probe",
];

/// Verbs of calls that change something and typically answer with a fixed acknowledgement
/// (`write`, `edit_file`, `update_task`, `sendMessage`).
pub const MUTATING_VERBS: &[&str] = &[
    "write", "edit", "apply", "update", "set", "create", "delete", "remove", "add", "insert",
    "send", "post", "put", "patch", "save", "move", "rename", "upload", "append", "commit", "push",
    "modify", "cancel", "exchange", "return", "transfer", "book", "reserve", "submit", "approve",
    "reject", "assign", "close", "merge", "deploy", "install", "reset", "archive", "publish",
    "schedule", "upsert", "register", "invite", "reply", "forward", "pay", "purchase", "refund",
];

/// Verbs of calls that do something the guard cannot judge (`run_speed_test`, `toggle_roaming`):
/// named, so that a later word does not decide (`run_sql_query` is not a query); unknown.
pub const ACTING_VERBS: &[&str] = &[
    "run",
    "toggle",
    "enable",
    "disable",
    "turn",
    "start",
    "stop",
    "restart",
    "reboot",
    "grant",
    "revoke",
    "refuel",
    "trigger",
    "perform",
    "activate",
    "deactivate",
    "make",
    "do",
    "call",
];

/// Editor-protocol commands (`{"command": …, "path": …}`, whatever the tool is named:
/// `str_replace_editor`, `str_replace_based_edit_tool`, a tool named `files`) that only read.
pub const EDITOR_READS: &[&str] = &["view"];
/// Editor-protocol commands that write the file at `path`.
pub const EDITOR_WRITES: &[&str] = &[
    "create",
    "str_replace",
    "insert",
    "undo_edit",
    "write",
    "append",
];

/// Arguments that name the file a mutation writes (Claude Code's `file_path`, `notebook_path`).
pub const PATH_KEYS: &[&str] = &[
    "path",
    "file_path",
    "filepath",
    "filename",
    "file_name",
    "file",
    "target_file",
    "notebook_path",
];
/// Arguments that hold a command runner's shell text (a string, or an argv array).
pub const SHELL_KEYS: &[&str] = &["command", "cmd", "script", "commands"];
/// Arguments that hold a patch (`apply_patch`).
pub const PATCH_KEYS: &[&str] = &["input", "patch"];
/// Arguments that hold an SQL statement.
pub const SQL_KEYS: &[&str] = &["sql", "query"];
/// The top-level arguments whose string values a call's effect depends on: the keys above, and
/// `action`, which tells a poll of `process` (`config::tools::is_known_poll`).
pub const ARGUMENT_KEYS: &[&str] = &[
    "command",
    "cmd",
    "script",
    "commands",
    "action",
    "path",
    "file_path",
    "filepath",
    "filename",
    "file_name",
    "file",
    "target_file",
    "notebook_path",
    "input",
    "patch",
    "sql",
    "query",
];

/// The lines of a Codex patch that name a file it writes.
pub const PATCH_FILE_LINES: &[&str] = &[
    "*** Update File: ",
    "*** Add File: ",
    "*** Delete File: ",
    "*** Move to: ",
];
/// The first words of SQL statements that only read.
pub const SQL_READS: &[&str] = &["select", "show", "explain", "describe", "desc", "with"];
/// The first words of SQL statements that write; inside a `WITH` statement, any of them makes
/// it write.
pub const SQL_WRITES: &[&str] = &[
    "insert", "update", "delete", "merge", "create", "drop", "alter", "truncate", "grant",
    "revoke", "replace", "upsert", "copy", "call", "set", "vacuum",
];

/// Shell programs that only read (when they do not redirect their output into a file).
pub const READ_ONLY_PROGRAMS: &[&str] = &[
    "cat", "head", "tail", "less", "more", "ls", "ll", "tree", "find", "grep", "egrep", "fgrep",
    "rg", "ag", "ack", "wc", "sort", "uniq", "cut", "awk", "sed", "nl", "file", "stat", "du", "df",
    "pwd", "echo", "printf", "which", "type", "whereis", "env", "printenv", "date", "diff", "cmp",
    "jq", "xxd", "hexdump", "od", "basename", "dirname", "realpath", "readlink", "true", "false",
    "test", "[", "sleep", "id", "whoami", "uname", "ps",
];
/// `git` subcommands that only read.
pub const GIT_READS: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "grep",
    "blame",
    "rev-parse",
    "ls-files",
    "branch",
];
/// Programs whose arguments are the files they write.
pub const WRITING_PROGRAMS: &[&str] = &[
    "touch", "rm", "rmdir", "mkdir", "mv", "ln", "chmod", "chown", "truncate", "tee", "cp",
];
/// Shells whose `-c` (`-lc`, …) argument of an argv array is the shell text it runs.
pub const SHELLS: &[&str] = &["bash", "sh", "zsh", "dash"];

/// Whether `word` is one of `table`'s (lower-case) words, in any case.
#[inline(never)]
fn word_in(word: &[u8], table: &[&str]) -> bool {
    table
        .iter()
        .any(|known| known.as_bytes().eq_ignore_ascii_case(word))
}

/// The words of a tool's name (see the module docs), in order.
pub fn name_words(name: &str) -> Vec<&[u8]> {
    let mut words = Vec::new();
    for part in name
        .as_bytes()
        .split(|b| matches!(b, b'_' | b'-' | b'.' | b'/' | b' ' | b':'))
    {
        // Cut where a lower-case letter or digit is followed by an upper-case one
        // (`runShellCommand`: run, Shell, Command).
        let mut start = 0;
        for (i, pair) in part.windows(2).enumerate() {
            if let [prev, here] = pair {
                if (prev.is_ascii_lowercase() || prev.is_ascii_digit()) && here.is_ascii_uppercase()
                {
                    words.extend(part.get(start..=i));
                    start = i + 1;
                }
            }
        }
        words.extend(part.get(start..).filter(|w| !w.is_empty()));
    }
    words
}

/// The kind of `tool` from its name alone (no config, no arguments), and what its arguments say
/// (module docs, steps 1 to 4). The polls by name (`is_known_poll`, `pollTools`) are the caller's.
pub fn kind_by_name(tool: &str) -> (ToolKind, Arguments) {
    let words = name_words(tool);
    let known = TOOLS.iter().find(|(name, _, _)| {
        name.len() == words.len()
            && name
                .iter()
                .zip(&words)
                .all(|(known, word)| known.as_bytes().eq_ignore_ascii_case(word))
    });
    if let Some((_, kind, arguments)) = known {
        return (*kind, *arguments);
    }
    if words.iter().any(|word| word_in(word, COMMAND_RUNNER_WORDS)) {
        return (ToolKind::Command, Arguments::Shell);
    }
    for word in &words {
        if word_in(word, READ_VERBS) {
            return (ToolKind::Read, Arguments::Kind);
        }
        if word_in(word, MUTATING_VERBS) {
            return (ToolKind::Mutate, Arguments::Kind);
        }
        if word_in(word, ACTING_VERBS) {
            break;
        }
    }
    (ToolKind::Unknown, Arguments::Kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(name: &str) -> ToolKind {
        kind_by_name(name).0
    }

    #[test]
    fn names_split_into_words() {
        let words = name_words("mcp__github__runShellCommand.v2 x");
        let expected: [&[u8]; 7] = [b"mcp", b"github", b"run", b"Shell", b"Command", b"v2", b"x"];
        assert_eq!(words, expected);
        let expected: [&[u8]; 2] = [b"Multi", b"Edit"];
        assert_eq!(name_words("MultiEdit"), expected);
    }

    #[test]
    fn command_runners() {
        for name in [
            "bash",
            "exec",
            "run_shell_command",
            "execute_bash",
            "runShellCommand",
            "terminal",
            "shell.exec",
            "execute_command",
            "Bash",
        ] {
            assert_eq!(kind(name), ToolKind::Command, "{name}");
        }
        for name in ["shellfish_lookup", "read_file", "cashback", "commander"] {
            assert_ne!(kind(name), ToolKind::Command, "{name}");
        }
    }

    #[test]
    fn mutations() {
        for name in [
            "write",
            "edit_file",
            "update_task",
            "sendMessage",
            "cancel_pending_order",
            "book_reservation",
            "apply_patch",
            "commit",
            "MultiEdit",
            "multi_edit",
            "NotebookEdit",
            "Edit",
            "Write",
            "TodoWrite",
            "KillShell",
            "github_create_issue",
            "CreateBulkOrder",
        ] {
            assert_eq!(kind(name), ToolKind::Mutate, "{name}");
        }
    }

    #[test]
    fn reads_polls_and_unknowns() {
        for name in [
            "read_file",
            "search",
            "get_return_refund_options",
            "address_lookup",
            "GetInfoFromDb",
            "web_search",
            "Read",
            "Glob",
            "Grep",
            "think",
            "calculate",
            "inspect_charge_notice",
        ] {
            assert_eq!(kind(name), ToolKind::Read, "{name}");
        }
        assert_eq!(kind("BashOutput"), ToolKind::Poll);
        for name in [
            "run_speed_test",
            "toggle_roaming",
            "refuel_data",
            "grant_app_permission",
            "toggle_wifi_calling",
            "run_sql_query",
            "settings",
            "updates",
            "poster",
            "files",
        ] {
            assert_eq!(kind(name), ToolKind::Unknown, "{name}");
        }
        assert_eq!(
            kind_by_name("Task"),
            (ToolKind::Mutate, Arguments::Everything)
        );
        assert_eq!(
            kind_by_name("execute_sql"),
            (ToolKind::Mutate, Arguments::Sql)
        );
    }

    #[test]
    fn every_argument_key_is_read() {
        for key in PATH_KEYS
            .iter()
            .chain(SHELL_KEYS)
            .chain(PATCH_KEYS)
            .chain(SQL_KEYS)
        {
            assert!(ARGUMENT_KEYS.contains(key), "{key}");
        }
        assert!(ARGUMENT_KEYS.len() <= crate::json::top_strings::MAX_KEYS);
    }
}
