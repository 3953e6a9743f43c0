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
use tool_loop_guard::{CallFields, Guard, GuardError, ResultFields, TextField, Verdict};

/// How records reach the guard: as JSON text, or field by field wherever the record is ordinary
/// (as the JS wrapper hands them over), falling back to JSON text where the guard asks for it.
#[derive(Clone, Copy, PartialEq)]
enum Transport {
    Json,
    Fields,
}

/// The record's fields, when it is one the JS wrapper would hand over field by field.
fn fields_of(record: &Value) -> Option<(CallFields<'_>, Option<ResultFields<'_>>)> {
    let object = record.as_object()?;
    const KEYS: [&str; 7] = ["runId", "tool", "args", "callId", "at", "result", "error"];
    if object.keys().any(|k| !KEYS.contains(&k.as_str())) {
        return None;
    }
    let text = |key: &str| match object.get(key) {
        None | Some(Value::Null) => Some(None),
        Some(Value::String(s)) => Some(Some(s.as_str())),
        Some(_) => None,
    };
    let at = match object.get("at") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => n.as_f64(),
        Some(_) => return None,
    };
    let call = CallFields {
        run_id: text("runId")?,
        tool: object.get("tool")?.as_str()?,
        call_id: text("callId")?,
        args: None,
        at,
    };
    if !matches!(object.get("error"), None | Some(Value::Null)) {
        return None;
    }
    let result = match object.get("result") {
        None => ResultFields::Absent,
        // The wrapper sends a null result as JSON (the openclaw preset hashes it as a value).
        Some(Value::Null) => return None,
        Some(Value::String(s)) => ResultFields::Text(TextField::Text(s)),
        Some(Value::Object(map)) => {
            if map
                .keys()
                .any(|k| !["content", "details", "isError"].contains(&k.as_str()))
            {
                return None;
            }
            let mut texts = Vec::new();
            for part in map.get("content")?.as_array()? {
                let part = part.as_object()?;
                if part.len() != 2 || part.get("type")? != "text" {
                    return None;
                }
                texts.push(TextField::Text(part.get("text")?.as_str()?));
            }
            let is_error = match map.get("isError") {
                None => None,
                Some(Value::Bool(b)) => Some(*b),
                Some(_) => return None,
            };
            ResultFields::Parts {
                texts,
                details: None,
                is_error,
            }
        }
        Some(_) => return None,
    };
    let with_result = object.contains_key("result") || object.contains_key("error");
    Some((call, with_result.then_some(result)))
}

/// `check` or `record` of a record's JSON text through `transport`. With the fields transport the
/// same record also goes as JSON text to `twin`, and the two guards must then hold the same
/// window (the same fingerprints, bit for bit) for the record's run.
fn submit(
    guard: &mut Guard,
    twin: &mut Guard,
    json: &str,
    record: bool,
    transport: Transport,
) -> Result<Verdict, GuardError> {
    let verdict = submit_once(guard, json, record, transport);
    if transport == Transport::Fields {
        let twin_verdict = submit_once(twin, json, record, Transport::Json);
        let run_id = serde_json::from_str::<Value>(json)
            .ok()
            .and_then(|v| v.get("runId").and_then(Value::as_str).map(str::to_owned));
        assert_eq!(
            verdict
                .as_ref()
                .map(verdict_string)
                .map_err(|e| e.to_string()),
            twin_verdict
                .as_ref()
                .map(verdict_string)
                .map_err(|e| e.to_string()),
            "fields and JSON verdicts differ for {json}"
        );
        assert!(
            guard.export_run(run_id.as_deref()) == twin.export_run(run_id.as_deref()),
            "fields and JSON windows differ after {json}"
        );
    }
    verdict
}

fn submit_once(
    guard: &mut Guard,
    json: &str,
    record: bool,
    transport: Transport,
) -> Result<Verdict, GuardError> {
    let exact = |guard: &mut Guard| {
        if record {
            guard.record(json, 0.0)
        } else {
            guard.check(json, 0.0)
        }
    };
    if transport == Transport::Json {
        return exact(guard);
    }
    let Ok(value) = serde_json::from_str::<Value>(json) else {
        return exact(guard);
    };
    let args = value.get("args").map(Value::to_string);
    let details = value
        .get("result")
        .and_then(|r| r.get("details"))
        .map(Value::to_string);
    let Some((mut call, result)) = fields_of(&value) else {
        return exact(guard);
    };
    // As the JS wrapper does: an outcome with a call id withholds its arguments.
    let args_withheld = record && call.call_id.is_some() && args.is_some();
    call.args = if args_withheld { None } else { args.as_deref() };
    let answer = match (record, result) {
        (false, _) => guard.check_fields(&call, 0.0),
        (true, result) => {
            let result = match result {
                Some(ResultFields::Parts {
                    texts, is_error, ..
                }) => ResultFields::Parts {
                    texts,
                    details: details.as_deref(),
                    is_error,
                },
                Some(other) => other,
                None => ResultFields::Absent,
            };
            guard.record_fields(&call, args_withheld, &result, 0.0)
        }
    };
    match answer {
        Ok(Some(answer)) => Ok(answer.into_verdict(call.tool, call.run_id)),
        Ok(None) | Err(_) => exact(guard),
    }
}

/// Step keys that drive the runner and are not part of the record.
const RUNNER_KEYS: [&str; 12] = [
    "op",
    "expect",
    "expectError",
    "expectFields",
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
    show_lone_surrogates(&Value::Object(map).to_string())
}

/// Stands for a lone surrogate escape while the scenario is a `serde_json::Value` (which cannot
/// hold one): this private-use character, then the unit's four hex digits.
const LONE_SURROGATE_STAND_IN: char = '\u{F0000}';

/// The scenario text with each escape of a lone UTF-16 surrogate (`"\ud83d"`, which JSON.parse
/// reads in the JS runners) replaced by its stand-in; escaped pairs stay as they are.
fn hide_lone_surrogates(text: &str) -> String {
    assert!(!text.contains(LONE_SURROGATE_STAND_IN));
    let unit_at = |at: usize| {
        let digits = text.get(at..at + 6)?.strip_prefix("\\u")?;
        u16::from_str_radix(digits, 16)
            .ok()
            .map(|unit| (unit, digits))
    };
    let (mut out, mut pos) = (String::new(), 0);
    while let Some(found) = text[pos..].find('\\') {
        let at = pos + found;
        out.push_str(&text[pos..at]);
        match unit_at(at) {
            Some((0xD800..=0xDBFF, _)) if matches!(unit_at(at + 6), Some((0xDC00..=0xDFFF, _))) => {
                out.push_str(&text[at..at + 12]);
                pos = at + 12;
            }
            Some((0xD800..=0xDFFF, digits)) => {
                out.push(LONE_SURROGATE_STAND_IN);
                out.push_str(digits);
                pos = at + 6;
            }
            // Any other escape: the backslash and the character after it.
            _ => {
                out.push_str(&text[at..at + 2]);
                pos = at + 2;
            }
        }
    }
    out.push_str(&text[pos..]);
    out
}

/// JSON text with each stand-in turned back into its escape, as JSON.stringify writes it.
fn show_lone_surrogates(json: &str) -> String {
    let mut parts = json.split(LONE_SURROGATE_STAND_IN);
    let mut out = parts.next().unwrap_or_default().to_owned();
    for part in parts {
        out.push_str("\\u");
        out.push_str(&part.to_ascii_lowercase()[..4]);
        out.push_str(&part[4..]);
    }
    out
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

fn run_scenario(path: &Path, transport: Transport, failures: &mut Vec<String>) {
    let text = hide_lone_surrogates(&fs::read_to_string(path).unwrap());
    let mut reader = serde_json::Deserializer::from_str(&text);
    reader.disable_recursion_limit();
    let scenario: Value = serde::Deserialize::deserialize(&mut reader)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = scenario["name"].as_str().unwrap_or("?").to_owned();
    let mut fail = |msg: String| {
        failures.push(format!(
            "{} [{name}]{}: {msg}",
            path.file_name().unwrap().to_string_lossy(),
            if transport == Transport::Fields {
                " (fields)"
            } else {
                ""
            }
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
    let mut twin = Guard::new(&config).unwrap();
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
                let got = submit(&mut guard, &mut twin, &json, op == "record", transport);
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
                        let json: Value = serde_json::from_str(&v.to_json()).unwrap();
                        for (key, want) in step
                            .get("expectFields")
                            .and_then(Value::as_object)
                            .into_iter()
                            .flatten()
                        {
                            if json.get(key).unwrap_or(&Value::Null) != want {
                                fail(format!(
                                    "step {n} ({op}): {key} is {}, expected {want}",
                                    json.get(key).unwrap_or(&Value::Null)
                                ));
                            }
                        }
                    }
                }
            }
            "fingerprint" => {
                let json = record_json(step, true, 1);
                let hex =
                    |bytes: &[u8]| -> String { bytes.iter().map(|b| format!("{b:02x}")).collect() };
                match guard.fingerprint(&json, None) {
                    Ok(found) => {
                        let got = json!({
                            "args": hex(&found.args),
                            "outcome": found.outcome.as_ref().map(|o| hex(o)),
                        });
                        if got != step["expect"] {
                            fail(format!(
                                "step {n}: fingerprints {got}, expected {}",
                                step["expect"]
                            ));
                        }
                    }
                    Err(e) => fail(format!("step {n}: unexpected error {e}")),
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
                    let checked = submit(
                        &mut guard,
                        &mut twin,
                        &record_json(&call, false, i),
                        false,
                        transport,
                    );
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
                    let recorded = match submit(
                        &mut guard,
                        &mut twin,
                        &record_json(&call, true, i),
                        true,
                        transport,
                    ) {
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
            "compacted" => {
                guard.compacted(run_id);
                twin.compacted(run_id);
            }
            "progress" => {
                guard.progress(run_id);
                twin.progress(run_id);
            }
            "endRun" => {
                guard.end_run(run_id);
                twin.end_run(run_id);
            }
            "roundTrip" => {
                let bytes = guard.export_run(run_id);
                guard.end_run(run_id);
                let twin_bytes = twin.export_run(run_id);
                twin.end_run(run_id);
                twin.import_run(&twin_bytes).unwrap();
                match guard.import_run(&bytes) {
                    Ok(id) if id.as_deref() == run_id => {}
                    Ok(id) => fail(format!("step {n}: snapshot restored run {id:?}")),
                    Err(e) => fail(format!("step {n}: snapshot rejected: {e}")),
                }
            }
            "importRun" => {
                let hex = step["snapshot"].as_str().unwrap();
                let bytes: Vec<u8> = (0..hex.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                    .collect();
                let twin_got = twin.import_run(&bytes);
                match (guard.import_run(&bytes), step.get("expectError")) {
                    (Err(e), Some(want)) if error_matches(&e, want) && twin_got.is_err() => {}
                    (Err(e), want) => fail(format!(
                        "step {n}: snapshot rejected: {e}, expected {want:?}"
                    )),
                    (Ok(_), Some(want)) => {
                        fail(format!("step {n}: imported, expected error {want}"))
                    }
                    (Ok(id), None) if id.as_deref() == run_id && twin_got.is_ok() => {}
                    (Ok(id), None) => fail(format!("step {n}: snapshot restored run {id:?}")),
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
    for transport in [Transport::Json, Transport::Fields] {
        for file in &files {
            run_scenario(file, transport, &mut failures);
        }
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
