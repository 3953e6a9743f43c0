//! Dependencies point down: each top-level module of `src/` has a layer, and a module may use
//! only modules of lower layers (docs/ARCHITECTURE.md, "The layers"). This test reads every
//! source file, takes the `crate::<module>` paths its non-test code names, and fails naming each
//! path that reaches a module of its own layer or above. With one module per layer that also
//! means the import graph has no cycle larger than one folder.
#![allow(clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]

use std::fs;
use std::path::{Path, PathBuf};

/// The layers, lowest first. A module may use the modules listed before it.
const LAYERS: &[&str] = &[
    "error",     // the typed error every layer returns
    "codes",     // the macro that declares codes shared with the host
    "json",      // JSON reading, canonical writing, hashing: knows nothing of tools or runs
    "config",    // the config, presets, tool kinds, volatile keys
    "verdict",   // levels, actions, detector ids, findings, verdicts, every model-facing text
    "report",    // counters: stats() and metrics()
    "record",    // a record from text to meaning: frames, parsing, digests, failure classes
    "run",       // run state: the run table, windows, snapshots
    "detectors", // the detectors of the default engine
    "openclaw",  // preset "openclaw": OpenClaw's own detection
    "engine",    // the seam: the default engine, and the enum that holds one engine or the other
    "guard",     // the native API: parses, counts, and hands each record to its engine
    "wasm",      // the wasm-bindgen boundary
    "js_names",  // a test writing js/names.ts
    "lib",       // the crate root: re-exports
];

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`record` for `src/record/input.rs`).
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).expect("a file under src/");
    let first = relative.components().next().expect("a path");
    first
        .as_os_str()
        .to_string_lossy()
        .trim_end_matches(".rs")
        .to_owned()
}

/// The lines of a file's code before its test module (by convention the last item, after
/// `#[cfg(test)]`), numbered from 1, without comment lines: a path named in a doc comment is not
/// a dependency.
fn non_test_code(text: &str) -> Vec<(usize, &str)> {
    let code = text.split("#[cfg(test)]").next().unwrap_or(text);
    code.lines()
        .enumerate()
        .map(|(index, line)| (index + 1, line))
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .collect()
}

/// The modules named as `crate::<module>` in `line`.
fn named_modules(line: &str) -> Vec<&str> {
    line.match_indices("crate::")
        .filter(|(at, _)| {
            // `$crate::` in macros and longer identifiers ending in `crate` are not paths of this crate.
            !line[..*at].ends_with(|c: char| c == '$' || c.is_alphanumeric() || c == '_')
        })
        .map(|(at, prefix)| {
            let rest = &line[at + prefix.len()..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .collect()
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|m| *m == module)
}

#[test]
fn every_module_uses_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut unknown = Vec::new();
    let mut upward = Vec::new();
    for file in &files {
        let from = module_of(&src, file);
        let Some(from_layer) = layer_of(&from) else {
            unknown.push(format!("{} (module {from})", file.display()));
            continue;
        };
        let text = fs::read_to_string(file).expect("a readable source file");
        for (number, line) in non_test_code(&text) {
            for to in named_modules(line) {
                if to == from {
                    continue;
                }
                match layer_of(to) {
                    Some(to_layer) if to_layer < from_layer => {}
                    Some(_) => upward.push(format!(
                        "{}:{}: {from} uses {to}, a module of its own layer or above",
                        file.strip_prefix(&src).unwrap_or(file).display(),
                        number
                    )),
                    // Re-exports of the crate root, such as `crate::Guard`, are the root's.
                    None => upward.push(format!(
                        "{}:{}: {from} uses crate::{to}, not a module in the layer table",
                        file.strip_prefix(&src).unwrap_or(file).display(),
                        number
                    )),
                }
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "modules missing from LAYERS: {unknown:#?}"
    );
    assert!(
        upward.is_empty(),
        "dependencies that do not point down:\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_reader_of_paths_reads_paths() {
    assert_eq!(
        named_modules("use crate::json::reader::{parse, Value}; crate::run::keys::fnv1a(x)"),
        ["json", "run"]
    );
    assert_eq!(
        named_modules("$crate::json::x(); my_crate::run"),
        [] as [&str; 0]
    );
    assert_eq!(
        non_test_code("a\n// crate::run\nb\n#[cfg(test)]\nmod tests {}"),
        [(1, "a"), (3, "b")]
    );
}
