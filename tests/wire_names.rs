//! The wire names that the package's public TypeScript declarations spell out (`js/types.ts`:
//! `DetectorId`, `Action`, `Level`) are the core's own: the unions must list exactly the names
//! the Rust enums write. The declarations cannot be generated from the glue's (they must compile
//! without DOM or WebAssembly types), so this test holds the two together.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::BTreeSet;
use tool_loop_guard::{Action, DetectorId, Level};

/// The string literals of `export type <name> = ... ;` in js/types.ts (comments skipped).
fn union(name: &str) -> BTreeSet<String> {
    let types =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/js/types.ts")).unwrap();
    let start = format!("export type {name} =");
    let body = types.split(&start).nth(1).expect("the type is declared");
    let body = &body[..body.find(';').expect("the declaration ends")];
    body.lines()
        .map(|line| line.split("/*").next().unwrap_or_default())
        .flat_map(|line| line.split('"').skip(1).step_by(2))
        .map(str::to_owned)
        .collect()
}

fn names(names: impl IntoIterator<Item = &'static str>) -> BTreeSet<String> {
    names.into_iter().map(str::to_owned).collect()
}

#[test]
fn detector_ids_are_the_cores() {
    let mut expected = names(DetectorId::ALL.iter().map(|id| id.as_str()));
    // Set only by the JS wrapper, when the wasm core failed and the call was allowed (fail-open).
    expected.insert("internal_error".to_owned());
    assert_eq!(union("DetectorId"), expected);
}

#[test]
fn levels_and_actions_are_the_cores() {
    let levels = [
        Level::Ok,
        Level::Warning,
        Level::Critical,
        Level::CircuitBreak,
    ];
    // Adding a level without listing it above fails to compile here.
    for level in levels {
        match level {
            Level::Ok | Level::Warning | Level::Critical | Level::CircuitBreak => {}
        }
    }
    assert_eq!(union("Level"), names(levels.map(Level::as_str)));
    let actions = levels.map(Level::action);
    for action in actions {
        match action {
            Action::Allow | Action::Warn | Action::Block | Action::Stop => {}
        }
    }
    assert_eq!(union("Action"), names(actions.map(Action::as_str)));
}
