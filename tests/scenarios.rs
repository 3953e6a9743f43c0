//! Runs every scenario in `tests/scenarios/*.json` natively (format: tests/scenarios/README.md).
//! The same files run through the built npm package in every JS runtime.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use serde_json::{json, Map, Value};
use std::fs;
use std::path::Path;
use tool_loop_guard::{Guard, GuardError, Verdict};

/// Step keys that drive the runner and are not part of the record.
const RUNNER_KEYS: [&str; 11] = [
    "op",
    "expect",
    "expectError",
    "about",
    "repeat",
    "cycle",
    "check",
    "record",
    "atStep",
    "atGrowth",
    "atStepMax",
];

fn verdict_string(v: &Verdict) -> String {
    let s = serde_json::from_str::<Value>(&v.to_json()).unwrap();
    let detector = s["detector"].as_str().unwrap_or("-");
    let text = format!(
        "{}/{}/{}/{}",
        s["action"].as_str().unwrap(),
        s["level"].as_str().unwrap(),
        detector,
        v.count
    );
    if text == "allow/ok/-/0" {
        "allow".to_owned()
    } else {
        text
    }
}

fn substitute(value: &Value, i: u64) -> Value {
    match value {
        Value::String(s) => Value::String(s.replace("{i}", &i.to_string())),
        Value::Array(items) => Value::Array(items.iter().map(|v| substitute(v, i)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), substitute(v, i)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The record JSON for a step: call keys (plus result/error for outcomes), `{i}` substituted.
/// The record JSON for a step or a `calls` entry: every key but the runner's own, `{i}`
/// substituted, `at` advanced per iteration. `with_outcome: false` leaves out result and error
/// (the check half of a `calls` iteration).
fn record_json(step: &Value, with_outcome: bool, i: u64) -> String {
    let mut map = Map::new();
    for (key, value) in step.as_object().unwrap() {
        let outcome_key = key == "result" || key == "error";
        if RUNNER_KEYS.contains(&key.as_str()) || (outcome_key && !with_outcome) {
            continue;
        }
        map.insert(key.clone(), substitute(value, i));
    }
    if let (Some(at), Some(step_ms)) = (
        step.get("at").and_then(Value::as_f64),
        step.get("atStep").and_then(Value::as_f64),
    ) {
        let growth = step.get("atGrowth").and_then(Value::as_f64).unwrap_or(1.0);
        let ceiling = step
            .get("atStepMax")
            .and_then(Value::as_f64)
            .unwrap_or(f64::INFINITY);
        let elapsed: f64 = (0..i - 1)
            .map(|j| (step_ms * growth.powi(j as i32)).min(ceiling))
            .sum();
        map.insert("at".to_owned(), json!(at + elapsed));
    }
    Value::Object(map).to_string()
}

fn expected_for(map: &Value, i: u64) -> Option<String> {
    let map = map.as_object()?;
    for (key, want) in map {
        let hit = match key.split_once('-') {
            Some((a, b)) => (a.parse::<u64>().unwrap()..=b.parse::<u64>().unwrap()).contains(&i),
            None if key == "*" => false,
            None => key.parse::<u64>().unwrap() == i,
        };
        if hit {
            return Some(want.as_str().unwrap().to_owned());
        }
    }
    map.get("*").map(|v| v.as_str().unwrap().to_owned())
}

fn error_matches(err: &GuardError, want: &Value) -> bool {
    err.code.as_str() == want["code"].as_str().unwrap()
        && want
            .get("field")
            .is_none_or(|f| f.as_str() == err.field.as_deref())
}

fn run_scenario(path: &Path, failures: &mut Vec<String>) {
    let text = fs::read_to_string(path).unwrap();
    let mut reader = serde_json::Deserializer::from_str(&text);
    reader.disable_recursion_limit();
    let scenario: Value = serde::Deserialize::deserialize(&mut reader)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = scenario["name"].as_str().unwrap_or("?").to_owned();
    let mut fail = |msg: String| {
        failures.push(format!(
            "{} [{name}]: {msg}",
            path.file_name().unwrap().to_string_lossy()
        ))
    };
    let config = scenario.get("config").cloned().unwrap_or(Value::Null);
    if let Some(want) = scenario.get("configError") {
        match Guard::new(&config) {
            Ok(_) => fail(format!("config accepted, expected error {want}")),
            Err(e) if error_matches(&e, want) => {}
            Err(e) => fail(format!(
                "config error {:?} field {:?}, expected {want}",
                e.code.as_str(),
                e.field
            )),
        }
        return;
    }
    let mut guard = match Guard::new(&config) {
        Ok(g) => g,
        Err(e) => return fail(format!("config rejected: {e}")),
    };
    for (n, step) in scenario["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .enumerate()
    {
        let n = n + 1;
        let run_id = step.get("runId").and_then(Value::as_str);
        match step["op"].as_str().unwrap() {
            op @ ("check" | "record") => {
                let json = record_json(step, true, 1);
                let got = if op == "check" {
                    guard.check(&json, 0.0)
                } else {
                    guard.record(&json, 0.0)
                };
                match (got, step.get("expectError")) {
                    (Err(e), Some(want)) if error_matches(&e, want) => {}
                    (Err(e), Some(want)) => fail(format!(
                        "step {n}: error {e} field {:?}, expected {want}",
                        e.field
                    )),
                    (Err(e), None) => fail(format!("step {n}: unexpected error {e}")),
                    (Ok(v), Some(want)) => fail(format!(
                        "step {n}: got {}, expected error {want}",
                        verdict_string(&v)
                    )),
                    (Ok(v), None) => {
                        let want = step["expect"].as_str().unwrap_or("allow");
                        if verdict_string(&v) != want {
                            fail(format!(
                                "step {n} ({op}): got {}, expected {want}",
                                verdict_string(&v)
                            ));
                        }
                    }
                }
            }
            "calls" => {
                let repeat = step.get("repeat").and_then(Value::as_u64).unwrap_or(1);
                let cycle: Vec<Value> = match step.get("cycle") {
                    Some(Value::Array(items)) => items.clone(),
                    _ => vec![step.clone()],
                };
                for i in 1..=repeat {
                    let call = &cycle[((i - 1) as usize) % cycle.len()];
                    let mut call = call.clone();
                    for key in ["runId", "at", "atStep", "atGrowth", "atStepMax"] {
                        if let (Some(v), Some(obj)) = (step.get(key), call.as_object_mut()) {
                            obj.entry(key.to_owned()).or_insert(v.clone());
                        }
                    }
                    let checked = guard.check(&record_json(&call, false, i), 0.0);
                    let checked = match checked {
                        Ok(v) => v,
                        Err(e) => {
                            fail(format!("step {n} call {i}: check error {e}"));
                            continue;
                        }
                    };
                    let got = verdict_string(&checked);
                    match step.get("check").and_then(|m| expected_for(m, i)) {
                        Some(want) if want == got => {}
                        Some(want) => fail(format!(
                            "step {n} call {i} check: got {got}, expected {want}"
                        )),
                        None => fail(format!("step {n} call {i}: no check expectation")),
                    }
                    if got.starts_with("block") || got.starts_with("stop") {
                        continue;
                    }
                    let recorded = match guard.record(&record_json(&call, true, i), 0.0) {
                        Ok(v) => verdict_string(&v),
                        Err(e) => {
                            fail(format!("step {n} call {i}: record error {e}"));
                            continue;
                        }
                    };
                    let want = step
                        .get("record")
                        .and_then(|m| expected_for(m, i))
                        .unwrap_or_else(|| "allow".to_owned());
                    if want != recorded {
                        fail(format!(
                            "step {n} call {i} record: got {recorded}, expected {want}"
                        ));
                    }
                }
            }
            "compacted" => guard.compacted(run_id),
            "progress" => guard.progress(run_id),
            "endRun" => guard.end_run(run_id),
            "roundTrip" => {
                let bytes = guard.export_run(run_id);
                guard.end_run(run_id);
                match guard.import_run(&bytes) {
                    Ok(id) if id.as_deref() == run_id => {}
                    Ok(id) => fail(format!("step {n}: snapshot restored run {id:?}")),
                    Err(e) => fail(format!("step {n}: snapshot rejected: {e}")),
                }
            }
            other => fail(format!("step {n}: unknown op {other}")),
        }
    }
}

#[test]
fn every_scenario_matches_its_expected_verdicts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for file in &files {
        run_scenario(file, &mut failures);
    }
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    eprintln!(
        "{} scenario files, {} failures",
        files.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} scenario expectations failed",
        failures.len()
    );
}
