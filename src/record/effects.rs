//! What a call may change, read from its kind by name (`config::effect_table`) and its
//! arguments. A repeated call's result can only change when something that could change it
//! happened since it last ran: an edit, a command that writes, a change of directory, a mutation
//! through an API, a call the guard cannot tell is a read. Reads (a `view` through an editor
//! tool, `grep` or `cat` through a shell, a `SELECT`) change nothing, whatever they return; so the
//! guard knows which calls are edits, and which files an edit touched, to judge the runs after it
//! by their effect (docs/semantics.md, "What a call may change"). The words it reads are all in
//! `config::effect_table`; this module is the machinery that applies them to arguments.
//!
//! Files are named by the 32-bit FNV-1a hash of their last path component: an edit of
//! `/testbed/reproduce.py` touches what `python reproduce.py` runs. Nothing else of the arguments
//! is kept.

use crate::config::effect_table::{
    Arguments, EDITOR_READS, EDITOR_WRITES, GIT_READS, OWN_STATE, PATCH_FILE_LINES, PATCH_KEYS,
    PATH_KEYS, READ_ONLY_PROGRAMS, SHELLS, SHELL_KEYS, SQL_KEYS, SQL_READS, SQL_WRITES,
    WRITING_PROGRAMS,
};
use crate::config::tools::ToolKind;
use crate::json::members::{fnv1a, FNV_START};
use crate::json::top_strings::TopStrings;
use serde_json::Value;

/// What a call may have written, if it changed anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Writes {
    /// A read: it changes nothing.
    Nothing,
    /// These files (hashes of their last path component).
    Files(Vec<u32>),
    /// Something, but not which files (a mutation through an API, a program that may write).
    Unknown,
    /// The working directory: every later read may see something else.
    Everything,
}

/// A call's kind refined by its arguments, and what it may write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effect {
    pub kind: ToolKind,
    pub writes: Writes,
}

/// Whether a call of kind `kind` by its name, whose `TOOLS` line (if any) says `arguments`,
/// needs its arguments read to know its effect. Other calls' effects follow from their kind alone
/// (`effect_of_kind`).
pub fn reads_arguments(kind: ToolKind, arguments: Arguments) -> bool {
    matches!(
        kind,
        ToolKind::Command | ToolKind::Mutate | ToolKind::Unknown
    ) || arguments != Arguments::Kind
}

/// The effect of a call whose arguments are not read (`reads_arguments` is false), or say no
/// more than its kind.
pub fn effect_of_kind(kind: ToolKind) -> Effect {
    let writes = match kind {
        ToolKind::Poll | ToolKind::Read => Writes::Nothing,
        ToolKind::Mutate | ToolKind::Command | ToolKind::Unknown => Writes::Unknown,
    };
    Effect { kind, writes }
}

/// The effect of a call of kind `kind` by its name (`arguments`: what its `TOOLS` line says of
/// its arguments) whose arguments' top-level strings (`ARGUMENT_KEYS`) are `args`. `None` when
/// the effect depends on more than those strings (a file operation's every string, an argv
/// array): `effect_of_tree` then.
pub fn effect_of(kind: ToolKind, arguments: Arguments, args: &TopStrings) -> Option<Effect> {
    if let Some(effect) = editor_effect(args) {
        return Some(effect);
    }
    Some(match arguments {
        Arguments::Everything => Effect {
            kind,
            writes: Writes::Everything,
        },
        Arguments::FileOperation => return None,
        Arguments::OwnState => Effect {
            kind,
            writes: Writes::Files(vec![file_key(OWN_STATE)]),
        },
        Arguments::Patch => patch_effect(first_of(args, PATCH_KEYS)),
        Arguments::Sql => sql_effect(kind, first_of(args, SQL_KEYS)),
        Arguments::Shell => shell_effect(shell_text(args)?),
        Arguments::Kind => match kind {
            ToolKind::Command => shell_effect(shell_text(args)?),
            ToolKind::Mutate => {
                let path = first_of(args, PATH_KEYS);
                Effect {
                    kind,
                    writes: path.map_or(Writes::Unknown, |p| Writes::Files(vec![file_key(p)])),
                }
            }
            kind => effect_of_kind(kind),
        },
    })
}

/// The effect of a call whose arguments (`args`, parsed) `effect_of` could not judge from their
/// top-level strings: a file operation writes the files its string arguments name; a command
/// runner given an argv array (`["bash", "-lc", "…"]`) runs its shell text.
pub fn effect_of_tree(kind: ToolKind, arguments: Arguments, args: &Value) -> Effect {
    if arguments == Arguments::FileOperation {
        let mut files = Vec::new();
        strings_of(args, &mut |name| files.push(file_key(name)));
        return Effect {
            kind: ToolKind::Mutate,
            writes: Writes::Files(files),
        };
    }
    let argv = SHELL_KEYS.iter().find_map(|key| match args.get(key) {
        Some(Value::Array(items)) => items.iter().map(Value::as_str).collect::<Option<Vec<_>>>(),
        _ => None,
    });
    match argv {
        Some(argv) => shell_effect(&argv_text(&argv)),
        None => effect_of_kind(kind),
    }
}

/// The shell text an argv array runs: the script of `bash -lc "…"` (any shell, any flags ending
/// in `c`), else the words joined by spaces.
fn argv_text(argv: &[&str]) -> String {
    if let [shell, flags, script, ..] = argv {
        let program = match shell.rfind('/') {
            Some(slash) => shell.get(slash + 1..).unwrap_or_default(),
            None => shell,
        };
        if SHELLS.contains(&program) && flags.starts_with('-') && flags.ends_with('c') {
            return (*script).to_owned();
        }
    }
    let mut text = String::new();
    for word in argv {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(word);
    }
    text
}

/// The first of `keys` that `args` holds as a string, or the arguments themselves when they are
/// a string.
fn first_of<'s>(args: &'s TopStrings, keys: &[&str]) -> Option<&'s str> {
    keys.iter()
        .find_map(|key| args.get(key))
        .or_else(|| args.whole())
}

/// A patch in Codex's format writes the files its file lines name; without them, something.
fn patch_effect(patch: Option<&str>) -> Effect {
    let files: Vec<u32> = patch
        .unwrap_or_default()
        .as_bytes()
        .split(|b| *b == b'\n')
        .filter_map(|line| {
            PATCH_FILE_LINES
                .iter()
                .find_map(|start| line.strip_prefix(start.as_bytes()))
        })
        .map(|path| file_key_of(trim_bytes(path, |b| b.is_ascii_whitespace())))
        .collect();
    Effect {
        kind: ToolKind::Mutate,
        writes: match files.is_empty() {
            true => Writes::Unknown,
            false => Writes::Files(files),
        },
    }
}

/// What an SQL text does: a read when every statement starts with a reading keyword
/// (`SQL_READS`; a `WITH` holding no writing one), a mutation when one starts with a writing
/// keyword (`SQL_WRITES`) or is a `WITH` holding one; else (not SQL) the effect of `kind`, the
/// tool's kind by name.
fn sql_effect(kind: ToolKind, sql: Option<&str>) -> Effect {
    let one_of = |word: &[u8], table: &[&str]| {
        table
            .iter()
            .any(|known| known.as_bytes().eq_ignore_ascii_case(word))
    };
    let (mut reads, mut writes) = (true, false);
    for statement in sql.unwrap_or_default().as_bytes().split(|b| *b == b';') {
        let mut words = statement
            .split(|b| !b.is_ascii_alphanumeric() && *b != b'_')
            .filter(|w| !w.is_empty());
        match words.next() {
            None => {}
            Some(first) if first.eq_ignore_ascii_case(b"with") => {
                writes |= words.any(|w| one_of(w, SQL_WRITES));
            }
            Some(first) if one_of(first, SQL_READS) => {}
            Some(first) => {
                reads = false;
                writes |= one_of(first, SQL_WRITES);
            }
        }
    }
    match (sql, writes, reads) {
        (_, true, _) => effect_of_kind(ToolKind::Mutate),
        (Some(_), false, true) => Effect {
            kind: ToolKind::Read,
            writes: Writes::Nothing,
        },
        _ => effect_of_kind(kind),
    }
}

/// The files a call's string arguments name (path-like tokens: with a `/` or an extension), as
/// `file_key`s: what `python reproduce.py` or `{"path": "/testbed/x.py"}` would read.
pub fn named_files(args: &Value) -> Vec<u32> {
    let mut files = Vec::new();
    strings_of(args, &mut |text| {
        let separator = |b: u8| b.is_ascii_whitespace() || b"'\"`;&|()<>=,".contains(&b);
        for token in split_unquoted(text.as_bytes(), separator, false) {
            if looks_like_path(token) {
                let key = file_key_of(token);
                if !files.contains(&key) {
                    files.push(key);
                }
            }
        }
    });
    files
}

/// The key of a file: the FNV-1a hash of its last path component.
pub fn file_key(path: &str) -> u32 {
    file_key_of(path.as_bytes())
}

/// `file_key` of a path given as bytes.
fn file_key_of(path: &[u8]) -> u32 {
    let bytes = trim_bytes(path, |b| b == b'/');
    let name = match bytes.iter().rposition(|b| *b == b'/') {
        Some(slash) => bytes.get(slash + 1..).unwrap_or_default(),
        None => bytes,
    };
    fnv1a(FNV_START, name)
}

/// An editor-protocol call (`{"command": "view" | "create" | …, "path": …}`), whatever the tool
/// is named.
fn editor_effect(args: &TopStrings) -> Option<Effect> {
    let command = args.get("command")?;
    let path = args.get("path")?;
    if EDITOR_READS.contains(&command) {
        return Some(Effect {
            kind: ToolKind::Read,
            writes: Writes::Nothing,
        });
    }
    EDITOR_WRITES.contains(&command).then(|| Effect {
        kind: ToolKind::Mutate,
        writes: Writes::Files(vec![file_key(path)]),
    })
}

/// The shell text of a command runner's arguments.
fn shell_text<'s>(args: &'s TopStrings) -> Option<&'s str> {
    args.whole()
        .or_else(|| SHELL_KEYS.iter().find_map(|key| args.get(key)))
}

/// The effect of shell text: a read when every simple command in it only reads; else what its
/// writing commands write (a lone `cd` changes the working directory). Commands are read one at
/// a time, and no further than the first that decides the answer.
fn shell_effect(text: &str) -> Effect {
    let mut commands = SimpleCommands::new(text);
    let (mut current, mut next) = (Vec::new(), Vec::new());
    let mut writes = Writes::Nothing;
    if commands.next_into(&mut current) {
        let lone_command = !commands.next_into(&mut next);
        loop {
            writes = combine(writes, command_writes(&current, lone_command));
            // Nothing changes these any more: `Everything` takes every other value, `Unknown` all
            // but `Everything`, which only a lone command gives.
            let decided =
                writes == Writes::Everything || (writes == Writes::Unknown && !lone_command);
            if decided || next.is_empty() {
                break;
            }
            std::mem::swap(&mut current, &mut next);
            commands.next_into(&mut next);
        }
    }
    let kind = match writes {
        Writes::Nothing => ToolKind::Read,
        _ => ToolKind::Command,
    };
    Effect { kind, writes }
}

fn combine(a: Writes, b: Writes) -> Writes {
    match (a, b) {
        (Writes::Everything, _) | (_, Writes::Everything) => Writes::Everything,
        (Writes::Unknown, _) | (_, Writes::Unknown) => Writes::Unknown,
        (Writes::Files(mut a), Writes::Files(b)) => {
            for file in b {
                if !a.contains(&file) {
                    a.push(file);
                }
            }
            Writes::Files(a)
        }
        (Writes::Files(a), Writes::Nothing) | (Writes::Nothing, Writes::Files(a)) => {
            Writes::Files(a)
        }
        (Writes::Nothing, Writes::Nothing) => Writes::Nothing,
    }
}

/// The simple commands of shell text, one at a time, each as its words (byte slices of the text,
/// quotes kept), split at `;`, `&`, `|` and newlines outside quotes (quotes do not span lines);
/// the bodies of here-documents are skipped. Shell text is read as bytes: every byte that matters
/// is ASCII. One pass over each line, tracking quotes once for commands and words alike.
struct SimpleCommands<'t> {
    lines: std::slice::Split<'t, u8, fn(&u8) -> bool>,
    /// The line being read, and where its next command starts.
    line: Option<(&'t [u8], usize)>,
    /// The end word of a here-document whose body the next lines are.
    heredoc_end: Option<&'t [u8]>,
}

impl<'t> SimpleCommands<'t> {
    fn new(text: &'t str) -> Self {
        let newline: fn(&u8) -> bool = |b| *b == b'\n';
        SimpleCommands {
            lines: text.as_bytes().split(newline),
            line: None,
            heredoc_end: None,
        }
    }

    /// Reads the next command's words into `words` (cleared first); false when there is none.
    fn next_into(&mut self, words: &mut Vec<&'t [u8]>) -> bool {
        words.clear();
        loop {
            let (line, start) = match self.line {
                Some(reading) => reading,
                None => {
                    let Some(line) = self.lines.next() else {
                        return false;
                    };
                    if let Some(end) = self.heredoc_end {
                        if !line.is_empty() && trim_bytes(line, |b| b.is_ascii_whitespace()) == end
                        {
                            self.heredoc_end = None;
                        }
                        continue;
                    }
                    (line, 0)
                }
            };
            let ended_at = command_words(line, start, words);
            self.line = ended_at.map(|next| (line, next));
            if !words.is_empty() {
                // A here-document's body starts on the line after the command that opens it.
                self.heredoc_end = heredoc_marker(words).or(self.heredoc_end);
                return true;
            }
        }
    }
}

/// Appends the words of the command of `line` that starts at byte `start` to `words`; returns
/// where the line's next command starts, or `None` when the command ends the line.
fn command_words<'t>(line: &'t [u8], start: usize, words: &mut Vec<&'t [u8]>) -> Option<usize> {
    let mut word: Option<usize> = None;
    let mut i = start;
    while let Some(&byte) = line.get(i) {
        let rest = line.get(i + 1..).unwrap_or_default();
        let ends_command = match byte {
            b'\'' | b'"' => {
                // Quoted text, up to the closing quote (or the end of the line), is a word's.
                word.get_or_insert(i);
                i += 2 + rest.iter().position(|b| *b == byte).unwrap_or(rest.len());
                continue;
            }
            b';' | b'&' | b'|' => true,
            _ if byte.is_ascii_whitespace() => false,
            _ => {
                word.get_or_insert(i);
                i += 1 + rest
                    .iter()
                    .position(|b| !is_word_byte(*b))
                    .unwrap_or(rest.len());
                continue;
            }
        };
        if let Some(start) = word.take() {
            words.extend(line.get(start..i));
        }
        i += 1;
        if ends_command {
            return Some(i);
        }
    }
    if let Some(start) = word {
        words.extend(line.get(start..));
    }
    None
}

/// A byte that neither quotes, separates commands nor separates words.
fn is_word_byte(byte: u8) -> bool {
    !matches!(byte, b'\'' | b'"' | b';' | b'&' | b'|') && !byte.is_ascii_whitespace()
}

/// `text` cut at the bytes `at` accepts (outside single or double quotes when `quoted`), empty
/// pieces dropped.
fn split_unquoted(text: &[u8], at: impl Fn(u8) -> bool, quoted: bool) -> Vec<&[u8]> {
    let mut pieces = Vec::new();
    let mut quote = None;
    let mut start = 0;
    for (i, &byte) in text.iter().enumerate() {
        match quote {
            Some(q) if byte == q => quote = None,
            Some(_) => {}
            None if quoted && (byte == b'\'' || byte == b'"') => quote = Some(byte),
            None if at(byte) => {
                pieces.extend(text.get(start..i).filter(|p| !p.is_empty()));
                start = i + 1;
            }
            None => {}
        }
    }
    pieces.extend(text.get(start..).filter(|p| !p.is_empty()));
    pieces
}

/// `word` without the quotes around it.
fn unquoted(word: &[u8]) -> &[u8] {
    trim_bytes(word, |b| b == b'\'' || b == b'"')
}

/// `bytes` without the leading and trailing bytes `drop` accepts.
fn trim_bytes(bytes: &[u8], drop: impl Fn(u8) -> bool) -> &[u8] {
    let start = bytes.iter().position(|b| !drop(*b)).unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !drop(*b))
        .map_or(start, |i| i + 1);
    bytes.get(start..end.max(start)).unwrap_or_default()
}

/// `bytes` without the leading bytes `drop` accepts.
fn trim_start_bytes(bytes: &[u8], drop: impl Fn(u8) -> bool) -> &[u8] {
    let start = bytes.iter().position(|b| !drop(*b)).unwrap_or(bytes.len());
    bytes.get(start..).unwrap_or_default()
}

/// The end word of a here-document the command opens (`<<EOF`, `<< 'EOF'`, `<<-"EOF"`).
fn heredoc_marker<'t>(words: &[&'t [u8]]) -> Option<&'t [u8]> {
    let at = words.iter().position(|w| w.starts_with(b"<<"))?;
    let inline = trim_start_bytes(words.get(at)?.get(2..)?, |b| b == b'-');
    let end = unquoted(if inline.is_empty() {
        words.get(at + 1)?
    } else {
        inline
    });
    (!end.is_empty()).then_some(end)
}

/// What one simple command writes. A lone `cd` (the whole call) changes the working directory;
/// a `cd` before other commands only sets where they run.
fn command_writes(words: &[&[u8]], lone_command: bool) -> Writes {
    // Leading assignments and wrappers (`FOO=1 timeout 60 python x.py`).
    let is_option = |w: &[u8]| w.first() == Some(&b'-');
    let mut args = PlainWords {
        words: words.iter(),
    }
    .skip_while(|w| w.contains(&b'=') && !is_option(w));
    let mut program: &[u8] = args.next().unwrap_or_default();
    while matches!(
        program,
        b"sudo" | b"time" | b"nohup" | b"env" | b"timeout" | b"command" | b"xargs"
    ) {
        // The wrapped program is the first word that is not an option or a duration.
        program = args
            .by_ref()
            .find(|w| !is_option(w) && !is_duration(w))
            .unwrap_or_default();
    }
    let program = match program.iter().rposition(|b| *b == b'/') {
        Some(slash) => program.get(slash + 1..).unwrap_or_default(),
        None => program,
    };
    // Collected only for the programs whose operands matter.
    let operands = || -> Vec<&[u8]> { args.clone().filter(|a| !is_option(a)).collect() };
    let in_place = || {
        words
            .iter()
            .any(|w| w.starts_with(b"-i") || *w == b"--in-place")
    };
    let files = |names: &[&[u8]]| Writes::Files(names.iter().map(|f| file_key_of(f)).collect());
    let named = |list: &[&str]| list.iter().any(|p| p.as_bytes() == program);
    let by_program = match program {
        b"" => Writes::Nothing,
        b"cd" | b"pushd" | b"popd" if lone_command => Writes::Everything,
        b"cd" | b"pushd" | b"popd" => Writes::Nothing,
        b"sed" if in_place() => files(operands().get(1..).unwrap_or_default()),
        b"cp" => files(
            operands()
                .last()
                .map(std::slice::from_ref)
                .unwrap_or_default(),
        ),
        b"git" => match operands().first() {
            Some(sub) if GIT_READS.iter().any(|g| g.as_bytes() == *sub) => Writes::Nothing,
            _ => Writes::Unknown,
        },
        _ if named(WRITING_PROGRAMS) => files(&operands()),
        _ if named(READ_ONLY_PROGRAMS) => Writes::Nothing,
        _ => Writes::Unknown,
    };
    combine(redirect_writes(words), by_program)
}

/// What a word of a command is to its redirections.
enum RedirectWord<'w> {
    /// Not a redirection.
    No,
    /// `>file`, `2>>file`: the target is in the word.
    To(&'w [u8]),
    /// `>` alone: the next word is the target.
    ToNext,
    /// `2>&1`: to a descriptor, not a file.
    Duplicate,
}

/// What an (unquoted) word is to its command's redirections.
fn redirect_word(word: &[u8]) -> RedirectWord<'_> {
    let stripped = trim_start_bytes(word, |b| matches!(b, b'1' | b'2' | b'&'));
    match stripped
        .strip_prefix(b">>")
        .or_else(|| stripped.strip_prefix(b">"))
    {
        None => RedirectWord::No,
        Some([]) => RedirectWord::ToNext,
        Some([b'&', ..]) => RedirectWord::Duplicate,
        Some(target) => RedirectWord::To(target),
    }
}

/// What a command's redirections write, in the order they come.
fn redirect_writes(words: &[&[u8]]) -> Writes {
    let mut writes = Writes::Nothing;
    let mut words = words.iter().map(|w| unquoted(w));
    while let Some(word) = words.next() {
        let target = match redirect_word(word) {
            RedirectWord::To(target) => target,
            RedirectWord::ToNext => match words.next() {
                Some(target) => target,
                None => break,
            },
            RedirectWord::No | RedirectWord::Duplicate => continue,
        };
        writes = combine(writes, redirect_target(target));
    }
    writes
}

/// A command's words without their quotes, redirections left out (nothing is collected).
#[derive(Clone)]
struct PlainWords<'a, 't> {
    words: std::slice::Iter<'a, &'t [u8]>,
}

impl<'t> Iterator for PlainWords<'_, 't> {
    type Item = &'t [u8];

    fn next(&mut self) -> Option<&'t [u8]> {
        loop {
            let word = unquoted(self.words.next()?);
            match redirect_word(word) {
                RedirectWord::No => return Some(word),
                RedirectWord::ToNext => {
                    self.words.next();
                }
                RedirectWord::To(_) | RedirectWord::Duplicate => {}
            }
        }
    }
}

/// `timeout`'s duration argument: digits with an optional fraction and unit (`60`, `1.5m`).
/// (Not `str::parse::<f64>`: the standard float parser costs kilobytes of `.wasm`.)
fn is_duration(word: &[u8]) -> bool {
    let number = match word.last() {
        Some(b's' | b'm' | b'h' | b'd') => word.get(..word.len() - 1).unwrap_or_default(),
        _ => word,
    };
    let dots = number.iter().filter(|b| **b == b'.').count();
    number.first().is_some_and(u8::is_ascii_digit)
        && dots <= 1
        && number.iter().all(|b| b.is_ascii_digit() || *b == b'.')
}

/// A redirection's target: a file, or nothing for `/dev/null`.
fn redirect_target(target: &[u8]) -> Writes {
    if target == b"/dev/null" {
        Writes::Nothing
    } else {
        Writes::Files(vec![file_key_of(target)])
    }
}

/// Whether a token names a file: it holds a `/` (with a letter or digit) or ends in a short
/// extension with a letter.
fn looks_like_path(token: &[u8]) -> bool {
    let token = trim_bytes(token, |b| matches!(b, b':' | b'.' | b','));
    let is_url = token.windows(3).any(|w| w == b"://");
    if token.is_empty() || token.first() == Some(&b'-') || is_url {
        return false;
    }
    if token.contains(&b'/') {
        return token.iter().any(u8::is_ascii_alphanumeric);
    }
    match token.iter().rposition(|b| *b == b'.') {
        Some(dot) if dot > 0 => {
            let ext = token.get(dot + 1..).unwrap_or_default();
            (1..=8).contains(&ext.len())
                && ext.iter().all(u8::is_ascii_alphanumeric)
                && ext.iter().any(u8::is_ascii_alphabetic)
        }
        _ => false,
    }
}

/// Calls `visit` with every string in `value` (keys left out).
fn strings_of(value: &Value, visit: &mut dyn FnMut(&str)) {
    match value {
        Value::String(text) => visit(text),
        Value::Array(items) => items.iter().for_each(|item| strings_of(item, visit)),
        Value::Object(map) => map.values().for_each(|item| strings_of(item, visit)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::config::effect_table::{kind_by_name, ARGUMENT_KEYS};
    use serde_json::json;

    /// `effect_of`, or `effect_of_tree` where it says `None`, of a call of `tool` whose
    /// arguments are given as a value.
    fn effect(tool: &str, args: &Value) -> Effect {
        let (kind, arguments) = kind_by_name(tool);
        let text = args.to_string();
        let strings = TopStrings::read(&text, ARGUMENT_KEYS, 16).unwrap();
        effect_of(kind, arguments, &strings)
            .unwrap_or_else(|| effect_of_tree(kind, arguments, args))
    }

    fn shell(text: &str) -> Effect {
        effect("bash", &json!({ "command": text }))
    }

    fn files(names: &[&str]) -> Writes {
        Writes::Files(names.iter().map(|n| file_key(n)).collect())
    }

    #[test]
    fn shell_reads_are_reads() {
        for text in [
            "grep -n \"def get_ordering\" /testbed/django/db/models/query.py",
            "cd /testbed && cat setup.py | head -20",
            "find /testbed -name \"*.py\" | xargs grep -l foo 2>/dev/null",
            "git diff",
            "timeout 30 xargs ls",
            "ls -la /testbed > /dev/null",
            "sed -n '10,20p' x.py",
        ] {
            let effect = shell(text);
            assert_eq!(effect.kind, ToolKind::Read, "{text}");
            assert_eq!(effect.writes, Writes::Nothing, "{text}");
        }
    }

    #[test]
    fn shell_writes_name_their_files() {
        assert_eq!(
            shell("sed -i 's/a/b/' /testbed/src/x.py").writes,
            files(&["x.py"])
        );
        assert_eq!(shell("echo hi > /tmp/out.txt").writes, files(&["out.txt"]));
        assert_eq!(shell("echo hi >> notes.md").writes, files(&["notes.md"]));
        assert_eq!(
            shell("cat <<'EOF' > /testbed/reproduce.py\nimport os\nrm -rf /\nEOF").writes,
            files(&["reproduce.py"])
        );
        assert_eq!(shell("cp a.py b.py").writes, files(&["b.py"]));
        assert_eq!(shell("mkdir -p temp").writes, files(&["temp"]));
        assert_eq!(shell("cd document").writes, Writes::Everything);
        assert_eq!(shell("python reproduce.py").writes, Writes::Unknown);
        assert_eq!(shell("git apply fix.patch").writes, Writes::Unknown);
        assert_eq!(
            shell("cd /testbed && python reproduce.py").kind,
            ToolKind::Command
        );
    }

    #[test]
    fn editor_protocol_calls_whatever_the_tool_is_named() {
        let view = json!({"command": "view", "path": "/testbed/a.py"});
        let edit = json!({"command": "str_replace", "path": "/testbed/a.py", "old_str": "x", "new_str": "y"});
        let mutation = Effect {
            kind: ToolKind::Mutate,
            writes: files(&["a.py"]),
        };
        for tool in ["str_replace_editor", "str_replace_based_edit_tool", "files"] {
            assert_eq!(effect(tool, &view).kind, ToolKind::Read, "{tool}");
            assert_eq!(effect(tool, &edit), mutation, "{tool}");
        }
    }

    #[test]
    fn claude_code_and_codex_tools() {
        let edit = json!({"file_path": "/repo/src/app.py", "old_string": "a", "new_string": "b"});
        for tool in ["Edit", "MultiEdit", "Write"] {
            assert_eq!(effect(tool, &edit).writes, files(&["app.py"]), "{tool}");
        }
        let notebook = json!({"notebook_path": "/repo/n.ipynb", "new_source": "x"});
        assert_eq!(
            effect("NotebookEdit", &notebook).writes,
            files(&["n.ipynb"])
        );
        assert_eq!(
            effect("Task", &json!({"prompt": "fix it"})).writes,
            Writes::Everything
        );
        let todos = |n: u32| effect("TodoWrite", &json!({"todos": [n]}));
        assert_eq!(todos(1).kind, ToolKind::Mutate);
        assert_eq!(
            todos(1).writes,
            todos(2).writes,
            "one list, whatever it holds"
        );
        let argv = json!({"command": ["bash", "-lc", "cat a.py | head"]});
        assert_eq!(effect("shell", &argv).kind, ToolKind::Read);
        let argv = json!({"command": ["bash", "-lc", "echo x > out.txt"]});
        assert_eq!(effect("shell", &argv).writes, files(&["out.txt"]));
        let argv = json!({"command": ["pytest", "-q"]});
        assert_eq!(effect("shell", &argv).writes, Writes::Unknown);
        let patch = "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** Add File: b.py\n+z\n*** End Patch";
        assert_eq!(
            effect("apply_patch", &json!({ "input": patch })).writes,
            files(&["a.py", "b.py"])
        );
        assert_eq!(
            effect("apply_patch", &json!(patch)).writes,
            files(&["a.py", "b.py"])
        );
    }

    #[test]
    fn sql_reads_only_select() {
        for sql in [
            "SELECT * FROM users",
            "  explain select 1; show tables",
            "WITH t AS (SELECT 1) SELECT * FROM t",
        ] {
            assert_eq!(
                effect("execute_sql", &json!({ "sql": sql })).kind,
                ToolKind::Read,
                "{sql}"
            );
            assert_eq!(
                effect("query", &json!({ "query": sql })).kind,
                ToolKind::Read,
                "{sql}"
            );
        }
        for sql in [
            "UPDATE users SET a = 1",
            "select 1; drop table x",
            "WITH t AS (DELETE FROM x RETURNING *) SELECT * FROM t",
        ] {
            assert_eq!(
                effect("run-raw-sql", &json!({ "sql": sql })),
                effect_of_kind(ToolKind::Mutate),
                "{sql}"
            );
            assert_eq!(
                effect("query", &json!({ "query": sql })).kind,
                ToolKind::Mutate
            );
        }
        // Not SQL: a tool named `query` searching stays a read; `execute_sql` stays a mutation.
        let search = json!({"query": "weather in Paris"});
        assert_eq!(effect("query", &search).kind, ToolKind::Read);
        assert_eq!(
            effect("execute_sql", &json!({"sql": "vacuum analyze"})).kind,
            ToolKind::Mutate
        );
        assert_eq!(
            effect("execute_sql", &json!({"sql": "pragma x"})),
            effect_of_kind(ToolKind::Mutate)
        );
    }

    #[test]
    fn unknown_calls_may_change_something() {
        assert_eq!(
            effect("toggle_roaming", &json!({})),
            effect_of_kind(ToolKind::Unknown)
        );
        assert_eq!(
            effect("get_order", &json!({"id": 1})).writes,
            Writes::Nothing
        );
    }

    #[test]
    fn file_system_tools_and_navigation() {
        assert_eq!(
            effect("cd", &json!({"folder": "document"})).writes,
            Writes::Everything
        );
        assert_eq!(
            effect("mkdir", &json!({"dir_name": "temp"})).kind,
            ToolKind::Mutate
        );
        assert_eq!(
            effect("write_file", &json!({"path": "/a/b.txt", "content": "x"})).writes,
            files(&["b.txt"])
        );
        assert_eq!(
            effect("update_order", &json!({"order_id": "#W1"})).writes,
            Writes::Unknown
        );
    }

    #[test]
    fn named_files_are_path_like_tokens() {
        let named =
            named_files(&json!({"command": "cd /testbed && python reproduce_issue.py --x 1.5"}));
        assert_eq!(
            named,
            vec![file_key("testbed"), file_key("reproduce_issue.py")]
        );
        assert_eq!(file_key("/testbed/reproduce.py"), file_key("reproduce.py"));
        assert!(named_files(&json!({"q": "version 1.5 of http://x.org"})).is_empty());
    }
}
