//! The names the core shares with JavaScript (detector ids, levels, actions, error codes and the
//! config's choice values), written out as `js/names.ts` so the wrapper's types and lists come
//! from the Rust definitions instead of copies. The file is checked in; this test fails when it is
//! stale, and `UPDATE_JS_NAMES=1 cargo test --lib js_names` rewrites it.

use crate::config::detector_ids::Switch;
use crate::config::tools::TOOL_KINDS;
use crate::config::{POLICIES, PRESETS};
use crate::error::ErrorCode;
use crate::verdict::members::Key;
use crate::verdict::{Action, DetectorId, Level, Verdict};
use std::fmt::Write;

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/js/names.ts");

/// One `export const NAME = [...] as const;` with its doc comment and type alias.
fn list(out: &mut String, doc: &str, constant: &str, type_name: &str, names: &[&str]) {
    let quoted: Vec<String> = names.iter().map(|name| format!("\"{name}\"")).collect();
    let _ = writeln!(out, "/** {doc} */");
    let _ = writeln!(
        out,
        "export const {constant} = [{}] as const;",
        quoted.join(", ")
    );
    let _ = writeln!(
        out,
        "export type {type_name} = (typeof {constant})[number];\n"
    );
}

/// The names of a config choice table.
fn names<T>(table: &[(&'static str, T)]) -> Vec<&'static str> {
    table.iter().map(|(name, _)| *name).collect()
}

fn generated() -> String {
    let mut out = String::from(
        "// Generated from the Rust core by src/js_names.rs: do not edit.\n\
         // `UPDATE_JS_NAMES=1 cargo test --lib js_names` rewrites it; `cargo test` fails when it is stale.\n\n",
    );
    let detectors: Vec<&str> = DetectorId::ALL.iter().map(|d| d.as_str()).collect();
    let levels: Vec<&str> = Level::ALL.iter().map(|l| l.as_str()).collect();
    let actions: Vec<&str> = Action::ALL.iter().map(|a| a.as_str()).collect();
    let errors: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    list(
        &mut out,
        "The core's detector ids.",
        "CORE_DETECTOR_IDS",
        "CoreDetectorId",
        &detectors,
    );
    list(
        &mut out,
        "Verdict levels, in escalation order.",
        "LEVELS",
        "Level",
        &levels,
    );
    list(
        &mut out,
        "Verdict actions, in the order of the levels that lead to them.",
        "ACTIONS",
        "Action",
        &actions,
    );
    list(
        &mut out,
        "The core's error codes.",
        "CORE_ERROR_CODES",
        "CoreErrorCode",
        &errors,
    );
    let switches: Vec<&str> = DetectorId::ALL
        .iter()
        .filter_map(|id| match id.switch() {
            Switch::OpenClaw(key) | Switch::Own(key) => Some(key),
            Switch::None => None,
        })
        .collect();
    list(
        &mut out,
        "The switches of the config's `detectors` block.",
        "DETECTOR_SWITCHES",
        "DetectorSwitch",
        &switches,
    );
    list(
        &mut out,
        "The values of the config's `preset`.",
        "PRESETS",
        "Preset",
        &names(&PRESETS),
    );
    list(
        &mut out,
        "The values of the config's `policy`.",
        "POLICIES",
        "Policy",
        &names(&POLICIES),
    );
    list(
        &mut out,
        "The values of `tools.<name>.kind`.",
        "TOOL_KINDS",
        "ToolKind",
        &names(&TOOL_KINDS),
    );
    let keys: Vec<&str> = Key::ALL.iter().map(|k| k.as_str()).collect();
    list(
        &mut out,
        "The names of a verdict's members, indexed by their code in an answer frame.",
        "VERDICT_KEYS",
        "VerdictKey",
        &keys,
    );
    plain_allow(&mut out);
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// The plain allow verdict as a function of its tool and run id: the JSON the core writes for
/// `Verdict::allow`, its two variable fields made parameters. The wrapper builds it for a
/// `Status.Allow` answer, so no verdict text crosses the boundary for the commonest answer.
fn plain_allow(out: &mut String) {
    const TOOL: &str = "\u{1}tool";
    const RUN_ID: &str = "\u{1}runId";
    let literal = Verdict::allow(TOOL, Some(RUN_ID))
        .to_json()
        .replace("\"\\u0001tool\"", "tool")
        .replace("\"\\u0001runId\"", "runId");
    assert!(literal.contains("\"tool\":tool") && literal.contains("\"runId\":runId"));
    let _ = writeln!(
        out,
        "/** The allow verdict the core writes (`Verdict::allow`), built in JS for `Status.Allow`. */"
    );
    let _ = writeln!(
        out,
        "export function plainAllow(tool: string, runId: string | null) {{\n  return {literal} as const;\n}}\n"
    );
}

#[test]
fn js_names_file_is_current() {
    let expected = generated();
    if std::env::var_os("UPDATE_JS_NAMES").is_some() {
        assert!(
            std::fs::write(PATH, &expected).is_ok(),
            "cannot write {PATH}"
        );
        return;
    }
    let found = std::fs::read_to_string(PATH).unwrap_or_default();
    assert!(
        found == expected,
        "{PATH} is stale: run `UPDATE_JS_NAMES=1 cargo test --lib js_names`"
    );
}
