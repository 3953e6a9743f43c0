//! Property tests (proptest) of the core: key order never changes a fingerprint; canonical JSON is a
//! fixed point; interleaving runs never changes a run's verdicts; export, import and continue
//! equals the uninterrupted run; a long window's counts and links stay those of its records; a
//! run's window never holds more than `historySize` records. Ops
//! come from a small alphabet of runs, tools, arguments and results so that loops actually form.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use proptest::prelude::*;
use serde_json::{json, Value};
use tool_loop_guard::internals::to_canonical_string;
use tool_loop_guard::Guard;

/// A JSON tree whose objects keep their keys in a chosen order (serde_json's map would sort them).
#[derive(Debug, Clone)]
enum Tree {
    Null,
    Bool(bool),
    Number(f64),
    Text(String),
    List(Vec<Tree>),
    Object(Vec<(String, Tree)>),
}

fn text() -> impl Strategy<Value = String> {
    // ASCII, escapes, non-BMP and BMP characters whose UTF-16 order differs from their UTF-8 order.
    let pieces = prop::sample::select(vec![
        "a",
        "b",
        "Z",
        "0",
        " ",
        "\"",
        "\\",
        "\n",
        "\u{7f}",
        "\u{1}",
        "é",
        "€",
        "\u{ff61}",
        "😀",
        "\u{10ffff}",
        "key",
        "",
    ]);
    prop::collection::vec(pieces, 0..5).prop_map(|parts| parts.concat())
}

fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |x| x.is_finite()),
        prop::sample::select(vec![
            0.0,
            -0.0,
            1.0,
            5e-324,
            1e21,
            1e-7,
            9007199254740993.0,
            1.7976931348623157e308
        ]),
        (-1000i64..1000).prop_map(|n| n as f64),
    ]
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![
        Just(Tree::Null),
        any::<bool>().prop_map(Tree::Bool),
        number().prop_map(Tree::Number),
        text().prop_map(Tree::Text),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Tree::List),
            prop::collection::btree_map(text(), inner, 0..6)
                .prop_map(|entries| Tree::Object(entries.into_iter().collect())),
        ]
    })
}

impl Tree {
    /// JSON text with each object's keys in the order given by `order(len)` (a permutation).
    fn json(&self, order: &dyn Fn(usize) -> Vec<usize>) -> String {
        match self {
            Tree::Null => "null".into(),
            Tree::Bool(b) => b.to_string(),
            Tree::Number(x) => serde_json::to_string(x).unwrap(),
            Tree::Text(s) => serde_json::to_string(s).unwrap(),
            Tree::List(items) => {
                let items: Vec<String> = items.iter().map(|t| t.json(order)).collect();
                format!("[{}]", items.join(","))
            }
            Tree::Object(entries) => {
                let fields: Vec<String> = order(entries.len())
                    .into_iter()
                    .map(|i| {
                        let (key, value) = &entries[i];
                        format!(
                            "{}:{}",
                            serde_json::to_string(key).unwrap(),
                            value.json(order)
                        )
                    })
                    .collect();
                format!("{{{}}}", fields.join(","))
            }
        }
    }
}

fn args_fingerprint(guard: &Guard, args_json: &str) -> [u8; 8] {
    let record = format!(r#"{{"tool":"read_file","args":{args_json}}}"#);
    guard.fingerprint(&record, None).unwrap().args
}

/// One host step of a run: check the call, and record its outcome unless it was refused.
#[derive(Debug, Clone)]
struct Step {
    tool: &'static str,
    args: u8,
    outcome: u8,
}

fn step() -> impl Strategy<Value = Step> {
    (
        prop::sample::select(vec!["read_file", "exec", "process_poll"]),
        0u8..3,
        0u8..4,
    )
        .prop_map(|(tool, args, outcome)| Step {
            tool,
            args,
            outcome,
        })
}

/// The verdicts of one step of run `run` at time `at`, as JSON texts.
fn play(guard: &mut Guard, run: &str, step: &Step, at: f64) -> Vec<String> {
    let call = json!({"runId": run, "tool": step.tool, "args": {"n": step.args}});
    let checked = guard.check(&call.to_string(), at).unwrap();
    let mut verdicts = vec![checked.to_json()];
    if matches!(checked.to_json().as_str(), v if v.contains(r#""action":"allow""#) || v.contains(r#""action":"warn""#))
    {
        let mut outcome = call;
        match step.outcome {
            3 => outcome["error"] = json!("ENOENT: no such file"),
            n => outcome["result"] = json!(format!("result {n}")),
        }
        verdicts.push(guard.record(&outcome.to_string(), at).unwrap().to_json());
    }
    verdicts
}

fn strict() -> Guard {
    Guard::new(&json!({"preset": "strict"})).unwrap()
}

/// Steps a second apart.
fn at(i: usize) -> f64 {
    1_000.0 * i as f64
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn permuting_object_keys_never_changes_a_fingerprint(value in tree(), rotate in 0usize..7) {
        let guard = Guard::new(&Value::Null).unwrap();
        let given = value.json(&|n| (0..n).collect());
        let permuted = value.json(&|n| (0..n).rev().cycle().skip(rotate % n.max(1)).take(n).collect());
        prop_assert_eq!(args_fingerprint(&guard, &given), args_fingerprint(&guard, &permuted));
    }

    #[test]
    fn canonicalising_twice_is_the_identity(value in tree()) {
        let parsed: Value = serde_json::from_str(&value.json(&|n| (0..n).collect())).unwrap();
        let once = to_canonical_string(&parsed);
        let again = to_canonical_string(&serde_json::from_str(&once).unwrap());
        prop_assert_eq!(&once, &again);
        // The core reads its own output as the same arguments.
        let guard = Guard::new(&Value::Null).unwrap();
        prop_assert_eq!(args_fingerprint(&guard, &once), args_fingerprint(&guard, &value.json(&|n| (0..n).collect())));
    }

    #[test]
    fn interleaving_two_runs_never_changes_their_verdicts(
        a in prop::collection::vec(step(), 0..24),
        b in prop::collection::vec(step(), 0..24),
        picks in prop::collection::vec(any::<bool>(), 48),
    ) {
        let alone = |steps: &[Step], run: &str| {
            let mut guard = strict();
            steps.iter().enumerate().flat_map(|(i, s)| play(&mut guard, run, s, at(i))).collect::<Vec<_>>()
        };
        let (mut together, mut got_a, mut got_b) = (strict(), vec![], vec![]);
        let (mut i, mut j) = (0, 0);
        for pick in picks.iter().chain(std::iter::repeat(&true)) {
            match (i < a.len(), j < b.len()) {
                (false, false) => break,
                (true, false) | (true, true) if *pick || j == b.len() => {
                    got_a.extend(play(&mut together, "a", &a[i], at(i)));
                    i += 1;
                }
                _ => {
                    got_b.extend(play(&mut together, "b", &b[j], at(j)));
                    j += 1;
                }
            }
        }
        prop_assert_eq!(got_a, alone(&a, "a"));
        prop_assert_eq!(got_b, alone(&b, "b"));
    }

    #[test]
    fn export_import_continue_equals_the_uninterrupted_run(
        steps in prop::collection::vec(step(), 1..40),
        cut in 0usize..40,
    ) {
        let cut = cut % steps.len();
        let mut straight = strict();
        let expected: Vec<String> = steps.iter().enumerate().flat_map(|(i, s)| play(&mut straight, "r", s, at(i))).collect();
        let mut first = strict();
        let mut got: Vec<String> = steps[..cut].iter().enumerate().flat_map(|(i, s)| play(&mut first, "r", s, at(i))).collect();
        let mut second = strict();
        prop_assert_eq!(second.import_run(&first.export_run(Some("r"))).unwrap(), Some("r".to_owned()));
        got.extend(steps[cut..].iter().enumerate().flat_map(|(i, s)| play(&mut second, "r", s, at(cut + i))));
        prop_assert_eq!(got, expected);
    }

    /// Windows of 64 records or more are counted by call and outcome and linked to the previous
    /// record of each call; in a debug build every read of the counts and links checks them
    /// against the window (`Run::counts`, `Run::chain`), here across host-reported progress,
    /// compaction and a move to another guard, where the moved run answers as the one that stayed.
    #[test]
    fn long_windows_keep_their_counts_and_links(
        steps in prop::collection::vec(step(), 64..200),
        history in 64u32..80,
        ops in prop::collection::vec(0u8..32, 200),
        moved_at in 64usize..200,
    ) {
        let config = json!({"historySize": history});
        let (mut stayed, mut moved) = (Guard::new(&config).unwrap(), Guard::new(&config).unwrap());
        for (i, (s, op)) in steps.iter().zip(&ops).enumerate() {
            if i == moved_at {
                moved.import_run(&stayed.export_run(Some("r"))).unwrap();
            }
            let guards: &mut [&mut Guard] = if i >= moved_at { &mut [&mut stayed, &mut moved] } else { &mut [&mut stayed] };
            let mut answers = guards.iter_mut().map(|guard| match op {
                0 => { guard.compacted(Some("r")); vec![] }
                1 => { guard.progress(Some("r")); vec![] }
                _ => play(guard, "r", s, at(i)),
            });
            let first = answers.next();
            for other in answers {
                prop_assert_eq!(&other, first.as_ref().unwrap());
            }
        }
    }

    #[test]
    fn the_window_never_holds_more_than_history_size_records(
        steps in prop::collection::vec(step(), 0..80),
        history in 1u32..6,
        ops in prop::collection::vec(0u8..8, 80),
    ) {
        let mut guard = Guard::new(&json!({"historySize": history})).unwrap();
        let empty = guard.export_run(Some("r")).len();
        let mut largest = 0;
        for (i, (s, op)) in steps.iter().zip(&ops).enumerate() {
            match op {
                0 => guard.compacted(Some("r")),
                1 => guard.progress(Some("r")),
                _ => { play(&mut guard, "r", s, at(i)); }
            }
            largest = largest.max(guard.export_run(Some("r")).len());
        }
        // A snapshot holds the whole window: at most 42 bytes per record, plus the run's three
        // tool names and the cap log and compaction watch of a small run (well under 512 bytes).
        prop_assert!(largest <= empty + 512 + 42 * history as usize, "snapshot of {largest} bytes for historySize {history}");
    }
}
