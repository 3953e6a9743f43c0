//! What the model reads says only what the guard knows (issue 23): counts of calls that ran and
//! of calls refused, the argument that varied, "two calls of" one tool, the result in hand quoted
//! and cut, "although ... changed" only where changes came between. Verdict strings are pinned by
//! the scenario corpus; these tests pin the facts inside the texts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use serde_json::{json, Value};
use tool_loop_guard::Guard;

/// `check`, and unless refused `record` with `result`; both verdicts as JSON.
fn step(guard: &mut Guard, tool: &str, args: Value, result: &str) -> (Value, Option<Value>) {
    let call = json!({"tool": tool, "args": args}).to_string();
    let checked: Value = serde_json::from_str(&guard.check(&call, 0.0).unwrap().to_json()).unwrap();
    if checked["action"] == "block" || checked["action"] == "stop" {
        return (checked, None);
    }
    let outcome = json!({"tool": tool, "args": args, "result": result}).to_string();
    let recorded = serde_json::from_str(&guard.record(&outcome, 0.0).unwrap().to_json()).unwrap();
    (checked, Some(recorded))
}

fn text(verdict: &Value) -> &str {
    verdict["message"].as_str().unwrap_or("")
}

#[test]
fn a_stall_warning_names_the_argument_that_varied() {
    let mut guard = Guard::new(&json!(null)).unwrap();
    let mut warning = None;
    for day in 10..20 {
        let args = json!({"origin": "JFK", "destination": "SEA", "date": format!("2024-05-{day}")});
        let (checked, _) = step(&mut guard, "search_direct_flight", args, "[]");
        if checked["action"] == "warn" {
            warning.get_or_insert(checked);
        }
    }
    let warning = warning.expect("the enumeration is warned");
    assert_eq!(warning["detector"], "stall");
    assert!(
        text(&warning).contains("each with a different `date`"),
        "{}",
        text(&warning)
    );
    assert!(
        !text(&warning).contains("same arguments"),
        "{}",
        text(&warning)
    );
}

#[test]
fn a_refusal_counts_the_calls_that_ran_apart_from_those_refused() {
    let mut guard = Guard::new(&json!(null)).unwrap();
    let mut refusals = Vec::new();
    for _ in 0..7 {
        let (checked, _) = step(&mut guard, "get_task", json!({"id": 7}), "Task 7: open.");
        if checked["action"] == "block" {
            refusals.push(checked);
        }
    }
    assert!(text(&refusals[0]).contains("5 ran and returned the identical result each time"));
    assert!(
        !text(&refusals[0]).contains("refused)"),
        "{}",
        text(&refusals[0])
    );
    assert!(text(&refusals[1])
        .contains("5 ran and returned the identical result each time, 1 was refused"));
}

#[test]
fn the_same_change_made_again_is_named_for_what_it_did() {
    let mut guard = Guard::new(&json!(null)).unwrap();
    let mut verdicts = Vec::new();
    for lines in [55, 68, 81, 94, 107, 120] {
        let answer = format!("[File: /testbed/reproduce.java ({lines} lines total)]");
        verdicts.push(step(
            &mut guard,
            "insert",
            json!({"line": 74, "text": "x"}),
            &answer,
        ));
    }
    let (warned, _) = &verdicts[2];
    assert_eq!(warned["action"], "warn");
    assert!(
        text(warned).contains("these same arguments 2 times in a row"),
        "{}",
        text(warned)
    );
    let forecast = verdicts[3].1.as_ref().unwrap();
    assert!(
        text(forecast).contains("each making the same change again"),
        "{}",
        text(forecast)
    );
    let (refused, _) = &verdicts[4];
    assert_eq!(refused["action"], "block");
    assert_eq!(refused["count"], 5);
    assert!(
        text(refused).contains("4 times in a row"),
        "{}",
        text(refused)
    );
    assert!(
        text(refused).contains("made the same change again"),
        "{}",
        text(refused)
    );
}

#[test]
fn a_ping_pong_within_one_tool_says_so() {
    let mut guard = Guard::new(&json!(null)).unwrap();
    let mut warned = None;
    for i in 0..8 {
        let path = if i % 2 == 0 { "/a.py" } else { "/b.py" };
        let (checked, _) = step(
            &mut guard,
            "str_replace_based_edit_tool",
            json!({"command": "view", "path": path}),
            path,
        );
        if checked["detector"] == "ping_pong" {
            warned.get_or_insert(checked);
        }
    }
    let warned = warned.expect("the alternation is warned");
    assert!(text(&warned)
        .contains("two calls of `str_replace_based_edit_tool` with different arguments"));
}

#[test]
fn a_forecast_quotes_the_result_in_hand_cut_to_120_characters() {
    let mut guard = Guard::new(&json!(null)).unwrap();
    let long = format!("status:   {}", "x".repeat(300));
    let mut forecast = None;
    for _ in 0..5 {
        let (_, recorded) = step(&mut guard, "get_status", json!({"job": 1}), &long);
        if recorded.as_ref().is_some_and(|r| r["action"] == "warn") {
            forecast = recorded;
        }
    }
    let forecast = forecast.expect("the record forecasts the refusal");
    let quoted = format!("It returned: \"status: {}…\"", "x".repeat(112));
    assert!(text(&forecast).contains(&quoted), "{}", text(&forecast));
    assert!(text(&forecast).starts_with(
        "Loop warning: calling `get_status` again with these same arguments will be refused"
    ));
}

#[test]
fn identical_runs_despite_edits_are_told_as_such_and_refused() {
    let mut guard = Guard::new(&json!(null)).unwrap();
    let traceback =
        "Traceback (most recent call last):\n  File \"reproduce.py\", line 3\nValueError: bad unit";
    let mut record_warning = None;
    let mut refusal = None;
    for i in 0..6 {
        let (checked, recorded) = step(
            &mut guard,
            "bash",
            json!({"command": "python reproduce.py"}),
            traceback,
        );
        if checked["action"] == "block" {
            refusal.get_or_insert(checked);
        }
        if let Some(recorded) = recorded.filter(|r| r["action"] == "warn") {
            record_warning.get_or_insert(recorded);
        }
        let edit = json!({"command": "str_replace", "path": "/repo/src/units.py", "old_str": format!("v{i}"), "new_str": format!("w{i}")});
        step(
            &mut guard,
            "str_replace_editor",
            edit,
            &format!("edited: w{i}"),
        );
    }
    let warning = record_warning.expect("the third identical run is warned");
    assert!(
        text(&warning).contains("although 2 other calls changed something in between"),
        "{}",
        text(&warning)
    );
    assert!(
        text(&warning).contains("It returned: \"Traceback (most recent call last): File"),
        "{}",
        text(&warning)
    );
    let refusal = refusal.expect("the fifth run is refused");
    assert_eq!(refusal["count"], 4);
    assert!(
        text(&refusal).contains("although 4 other calls changed something in between"),
        "{}",
        text(&refusal)
    );
    assert!(!text(&refusal).contains("cannot produce anything new"));
}

/// One call a driven agent makes: tool, arguments, what it returns (`{"result": …}` or
/// `{"error": …}`) and when.
struct Call {
    tool: String,
    args: Value,
    outcome: Value,
    at: f64,
}

fn call(tool: &str, args: Value, outcome: Value, at: f64) -> Call {
    Call {
        tool: tool.to_owned(),
        args,
        outcome,
        at,
    }
}

/// Drives an agent loop (`next(i)`: its i-th call, from 0) through `check` and, unless refused,
/// `record`, until the guard stops the run (at most 200 calls); the stop verdict as JSON.
fn stop_of(config: Value, compacted_after: Option<u32>, next: impl Fn(u32) -> Call) -> Value {
    drive(config, compacted_after, next).expect("the run is stopped within 200 calls")
}

fn drive(config: Value, compacted_after: Option<u32>, next: impl Fn(u32) -> Call) -> Option<Value> {
    let mut guard = Guard::new(&config).unwrap();
    for i in 0..200 {
        if compacted_after == Some(i) {
            guard.compacted(None);
        }
        let Call {
            tool,
            args,
            outcome,
            at,
        } = next(i);
        let proposed = json!({"tool": tool, "args": args, "at": at, "callId": format!("c{i}")});
        let checked: Value =
            serde_json::from_str(&guard.check(&proposed.to_string(), at).unwrap().to_json())
                .unwrap();
        match checked["action"].as_str() {
            Some("stop") => return Some(checked),
            Some("block") => continue,
            _ => {}
        }
        let mut done = proposed.clone();
        for (key, value) in outcome.as_object().unwrap() {
            done[key] = value.clone();
        }
        let recorded: Value =
            serde_json::from_str(&guard.record(&done.to_string(), at).unwrap().to_json()).unwrap();
        if recorded["action"] == "stop" {
            return Some(recorded);
        }
    }
    None
}

/// The stop's `userMessage`, after checking that the stop came from `detector`.
fn user_text(stop: &Value, detector: &str) -> String {
    assert_eq!(stop["detector"], detector, "{stop}");
    stop["userMessage"].as_str().unwrap().to_owned()
}

/// Advice that fits only a loop the model made up: never given for an outage, a cap or a missing tool.
const ASK_IN_SMALLER_STEPS: &str = "smaller steps";

#[test]
fn each_stop_tells_the_user_its_own_cause() {
    let result = |text: &str| json!({ "result": text });
    let second = |i: u32| f64::from(i) * 1000.0;

    // One call repeated with the same result.
    let repeat = stop_of(json!(null), None, |i| {
        call("update_task", json!({"id": 7}), result("ok"), second(i))
    });
    let text = user_text(&repeat, "global_circuit_breaker");
    assert!(
        text.contains("repeating the same `update_task` call"),
        "{text}"
    );

    // Two calls alternating, each with its same result: both are named, neither as "the same call".
    for config in [json!(null), json!({"preset": "openclaw"})] {
        let stop = stop_of(config.clone(), None, |i| {
            let tool = if i % 2 == 0 { "a" } else { "b" };
            call(
                tool,
                json!({}),
                result(&format!("{tool} says no")),
                second(i),
            )
        });
        let text = stop["userMessage"].as_str().unwrap();
        assert!(
            text.contains("back and forth between `a` and `b`")
                || text.contains("back and forth between `b` and `a`"),
            "{config}: {stop}"
        );
        assert!(!text.contains("the same `"), "{text}");
    }

    // Three calls going round.
    let round = stop_of(json!(null), None, |i| {
        let tool = ["list", "read", "check"][(i % 3) as usize];
        call(
            tool,
            json!({}),
            result(&format!("{tool}: nothing")),
            second(i),
        )
    });
    let text = user_text(&round, "global_circuit_breaker");
    assert!(
        text.contains("going round the same few tool calls"),
        "{text}"
    );

    // An outage: the tool fails with 503 and is retried at once, again and again.
    let outage = stop_of(json!(null), None, |i| {
        call(
            "fetch_weather",
            json!({"city": "Oslo"}),
            json!({"error": "503 Service Unavailable"}),
            f64::from(i) * 100.0,
        )
    });
    let text = user_text(&outage, "global_circuit_breaker");
    assert!(
        text.contains("`fetch_weather` kept failing with temporary errors")
            && text.contains("unavailable")
            && text.contains("try again later"),
        "{text}"
    );
    assert!(
        !text.contains(ASK_IN_SMALLER_STEPS) && !text.contains("repeating"),
        "{text}"
    );

    // A tool that does not exist.
    let missing = stop_of(json!(null), None, |i| {
        call(
            "get_wether",
            json!({"q": i}),
            json!({"error": "Tool get_wether not found"}),
            second(i),
        )
    });
    let text = user_text(&missing, "global_circuit_breaker");
    assert!(
        text.contains("a tool that is not available here (`get_wether`)"),
        "{text}"
    );
    assert!(!text.contains(ASK_IN_SMALLER_STEPS), "{text}");

    // A capped tool called past its cap.
    let capped = stop_of(
        json!({"tools": {"search": {"cap": {"calls": 2, "windowMs": 3_600_000}}}}),
        None,
        |i| {
            call(
                "search",
                json!({"q": i}),
                result(&format!("hit {i}")),
                second(i),
            )
        },
    );
    let text = user_text(&capped, "global_circuit_breaker");
    assert!(
        text.contains("`search` may only be used a limited number of times"),
        "{text}"
    );
    assert!(!text.contains(ASK_IN_SMALLER_STEPS), "{text}");

    // A poll whose status never changes.
    let poll = stop_of(
        json!({"tools": {"job_status": {"kind": "poll"}}}),
        None,
        |i| {
            call(
                "job_status",
                json!({"job": 1}),
                result("running"),
                second(i),
            )
        },
    );
    let text = poll["userMessage"].as_str().unwrap();
    assert!(
        text.contains("checking on `job_status`, whose status did not change"),
        "{poll}"
    );

    // The run's budget of calls.
    let budget = stop_of(json!({"maxTurns": 3}), None, |i| {
        call(
            "read",
            json!({"page": i}),
            result(&format!("page {i}")),
            second(i),
        )
    });
    let text = user_text(&budget, "max_turns");
    assert!(text.contains("its limit of 3 tool calls"), "{text}");

    // A loop that resumes after compaction.
    let resumed = stop_of(json!(null), Some(2), |i| {
        call("status", json!({}), result("same"), second(i))
    });
    let text = user_text(&resumed, "post_compaction_loop");
    assert!(
        text.contains("after its earlier conversation was condensed"),
        "{text}"
    );
}

/// Every text of `verdicts` (checks and records) that names a detector.
fn texts(verdicts: &[(Value, Option<Value>)]) -> Vec<String> {
    verdicts
        .iter()
        .flat_map(|(checked, recorded)| [Some(checked), recorded.as_ref()])
        .flatten()
        .map(|v| text(v).to_owned())
        .filter(|t| !t.is_empty())
        .collect()
}

#[test]
fn nothing_could_change_it_is_said_only_after_known_reads() {
    // An unknown verb (`toggle_roaming`) failing between identical speed tests, and known reads
    // showing new things: refused, but never "nothing could change it".
    let mut guard = Guard::new(&json!({"preset": "strict"})).unwrap();
    let mut verdicts = Vec::new();
    for i in 0..5 {
        verdicts.push(step(
            &mut guard,
            "run_speed_test",
            json!({}),
            "Speed test failed: No Connection.",
        ));
        verdicts.push(step(
            &mut guard,
            "toggle_roaming",
            json!({}),
            "Error: roaming is locked on this line",
        ));
        verdicts.push(step(
            &mut guard,
            "get_line_details",
            json!({"line": i}),
            &format!("line {i}: active"),
        ));
    }
    let said = texts(&verdicts);
    assert!(
        said.iter()
            .any(|t| t.contains("no call since returned anything new")),
        "{said:?}"
    );
    assert!(
        said.iter().all(|t| !t.contains("nothing could change it")),
        "{said:?}"
    );
    assert!(
        said.iter()
            .all(|t| !t.contains("nothing that could change it")),
        "{said:?}"
    );
    assert!(
        said.iter()
            .all(|t| !t.contains("nothing since could change it")),
        "{said:?}"
    );

    // Only known reads in between: the texts may say it.
    let mut guard = Guard::new(&json!({"preset": "strict"})).unwrap();
    let mut verdicts = Vec::new();
    for i in 0..5 {
        verdicts.push(step(
            &mut guard,
            "run_speed_test",
            json!({}),
            "Speed test failed: No Connection.",
        ));
        verdicts.push(step(
            &mut guard,
            "get_line_details",
            json!({"line": i}),
            &format!("line {i}: active"),
        ));
    }
    let said = texts(&verdicts);
    assert!(
        said.iter()
            .any(|t| t.contains("nothing that could change it")),
        "{said:?}"
    );
}

#[test]
fn an_unknown_verb_with_a_new_result_lets_the_same_test_run_again() {
    let mut guard = Guard::new(&json!({"preset": "strict"})).unwrap();
    for _ in 0..2 {
        step(
            &mut guard,
            "run_speed_test",
            json!({}),
            "Speed test failed: No Connection.",
        );
    }
    step(
        &mut guard,
        "toggle_roaming",
        json!({}),
        "Data Roaming is now ON.",
    );
    let (checked, _) = step(
        &mut guard,
        "run_speed_test",
        json!({}),
        "Speed Test Result: 275.00 Mbps",
    );
    assert_eq!(checked["action"], "allow", "{checked}");
}
