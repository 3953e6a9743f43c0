//! The docs name only what exists: every path that README.md, docs/ARCHITECTURE.md and
//! docs/semantics.md write in backticks (`src/…`, `js/…`, `tests/…`, `scripts/…`, `docs/…`,
//! `eval/…`, `bench/…`, `examples/…`, `pkg-template/…`, `fuzz/…`) is in the tree, and every
//! symbol they place next to its file (`` `kind_by_name` (`src/config/effect_table.rs`) ``) or
//! write as `Type::method` is defined there (or, for a method, somewhere in `src/`).
#![allow(clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]

use std::fs;
use std::path::{Path, PathBuf};

const DOCS: &[&str] = &["README.md", "docs/ARCHITECTURE.md", "docs/semantics.md"];
const TREES: &[&str] = &[
    "src/",
    "js/",
    "tests/",
    "scripts/",
    "docs/",
    "eval/",
    "bench/",
    "examples/",
    "pkg-template/",
    "fuzz/",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The texts between backticks of `text`, with the byte offset where each ends.
fn backticked(text: &str) -> Vec<(&str, usize)> {
    let mut found = Vec::new();
    let mut rest = text;
    let mut offset = 0;
    while let Some(open) = rest.find('`') {
        // Skip code fences and double backticks: only single-backtick spans are names.
        if rest[open..].starts_with("``") {
            let run = rest[open..].bytes().take_while(|b| *b == b'`').count();
            offset += open + run;
            rest = &rest[open + run..];
            continue;
        }
        let after = &rest[open + 1..];
        let Some(close) = after.find('`') else { break };
        let inner = &after[..close];
        let end = offset + open + 1 + close + 1;
        if !inner.contains('\n') {
            found.push((inner, end));
        }
        offset = end;
        rest = &after[close + 1..];
    }
    found
}

/// A backticked text as a path of the tree, when it is one that can be checked (no placeholder,
/// glob or elision in it).
fn as_path(inner: &str) -> Option<&str> {
    let path = inner.split_whitespace().next()?;
    let path = path.trim_end_matches([':', ',', '.', ';', ')']);
    let checkable = TREES.iter().any(|tree| path.starts_with(tree))
        && !path.contains(['<', '>', '*', '{', '}', '…', '$', '|']);
    checkable.then_some(path)
}

/// Whether a Rust file's text defines `name` (a function, constant, static, type, module or
/// macro); for other files, whether the name appears at all.
fn defines(file: &Path, text: &str, name: &str) -> bool {
    if file.extension().is_some_and(|e| e != "rs") {
        return text.contains(name);
    }
    let prefixes = [
        "fn ", "const ", "static ", "struct ", "enum ", "type ", "trait ", "mod ",
    ];
    let defined = prefixes.iter().any(|prefix| {
        text.match_indices(&format!("{prefix}{name}"))
            .any(|(at, _)| {
                let next = text[at + prefix.len() + name.len()..].chars().next();
                !next.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
    });
    defined
        || text.contains(&format!("macro_rules! {name}"))
        || text.contains(&format!("{name} = \""))
}

fn is_identifier(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
        && text
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
}

/// Every `.rs` file's text under `src/`.
fn sources(dir: &Path, texts: &mut String) {
    for entry in fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            sources(&path, texts);
        } else if path.extension().is_some_and(|e| e == "rs") {
            texts.push_str(&fs::read_to_string(&path).expect("a source file"));
        }
    }
}

#[test]
fn every_path_the_docs_name_exists() {
    let root = root();
    let mut missing = Vec::new();
    for doc in DOCS {
        let text = fs::read_to_string(root.join(doc)).expect("the doc is readable");
        for (inner, _) in backticked(&text) {
            if let Some(path) = as_path(inner) {
                if !root.join(path).exists() {
                    missing.push(format!("{doc}: `{path}`"));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "paths named but not in the tree:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_symbol_named_beside_its_file_is_defined_there() {
    let root = root();
    let mut all_sources = String::new();
    sources(&root.join("src"), &mut all_sources);
    let mut missing = Vec::new();
    let mut checked = 0;
    for doc in DOCS {
        let text = fs::read_to_string(root.join(doc)).expect("the doc is readable");
        let spans = backticked(&text);
        for (i, (inner, end)) in spans.iter().enumerate() {
            if !is_identifier(inner) {
                continue;
            }
            let name = inner.rsplit("::").next().unwrap_or(inner);
            // `Symbol` (`file`): the next span, right after " (", is its file.
            let beside = spans.get(i + 1).filter(|(next, next_end)| {
                text[*end..next_end - next.len() - 2] == *" (" && as_path(next).is_some()
            });
            if let Some((file, _)) = beside {
                let file = as_path(file).unwrap_or_default();
                let path = root.join(file);
                if path.is_file() {
                    checked += 1;
                    let source = fs::read_to_string(&path).expect("the file is readable");
                    if !defines(&path, &source, name) {
                        missing.push(format!("{doc}: `{inner}` is not defined in `{file}`"));
                    }
                }
            } else if inner.contains("::")
                && inner.starts_with(|c: char| c.is_ascii_uppercase())
                && name.starts_with(|c: char| c.is_ascii_lowercase())
            {
                checked += 1;
                if !defines(Path::new("x.rs"), &all_sources, name) {
                    missing.push(format!("{doc}: `{inner}`: no `fn {name}` in src/"));
                }
            }
        }
    }
    assert!(
        checked > 30,
        "only {checked} symbols checked: is the pattern still found?"
    );
    assert!(
        missing.is_empty(),
        "symbols named but not defined:\n{}",
        missing.join("\n")
    );
}
