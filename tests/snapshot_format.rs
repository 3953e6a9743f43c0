//! `docs/snapshot-format.md` checked against the bytes `export_run` writes: a reader written here
//! from the spec alone (not from `src/run/snapshot.rs`) decodes a small run of each engine, the
//! default one (`TLGS`, version 6) and `preset: "openclaw"`'s (`TLGO`, version 2), and finds in it
//! what the run must hold, consuming every byte. These runs are made with no window secret, so their
//! fingerprints are SHA-256's, which `fingerprint()` gives; a last test checks a keyed run's header
//! and fingerprints. Each run is also pinned as hex in
//! `tests/snapshots/`: export gives exactly those bytes and import of them exports them again.
//! `UPDATE_SNAPSHOTS=1 cargo test --test snapshot_format` rewrites the pinned files after a
//! deliberate format change (which also needs a new version and the spec updated).
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tool_loop_guard::internals::{set_window_secret, siphash13, to_canonical_string};
use tool_loop_guard::Guard;

/// A cursor over a snapshot's body, reading little-endian fields as the spec lists them.
struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Fields<'a> {
    fn take(&mut self, n: usize) -> &'a [u8] {
        assert!(self.rest.len() >= n, "snapshot ends inside a field");
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        head
    }
    fn u8(&mut self) -> u8 {
        self.take(1)[0]
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take(2).try_into().unwrap())
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take(4).try_into().unwrap())
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take(8).try_into().unwrap())
    }
    fn f64(&mut self) -> f64 {
        f64::from_le_bytes(self.take(8).try_into().unwrap())
    }
    fn fp8(&mut self) -> [u8; 8] {
        self.take(8).try_into().unwrap()
    }
    fn digest(&mut self) -> [u8; 32] {
        self.take(32).try_into().unwrap()
    }
    /// A count: u32, at most 1,000,000.
    fn count(&mut self) -> usize {
        let n = self.u32();
        assert!(n <= 1_000_000, "count {n} beyond the spec's limit");
        n as usize
    }
    fn str(&mut self) -> String {
        let n = self.count();
        String::from_utf8(self.take(n).to_vec()).unwrap()
    }
    /// A presence byte (0 or 1) and the value when 1.
    fn opt<T>(&mut self, get: impl FnOnce(&mut Self) -> T) -> Option<T> {
        match self.u8() {
            0 => None,
            1 => Some(get(self)),
            other => panic!("presence byte {other}"),
        }
    }
}

/// Splits `bytes` into its body after the 5-byte header, checking magic, version and the SHA-256
/// trailer.
fn open<'a>(bytes: &'a [u8], magic: &[u8; 4], version: u8) -> Fields<'a> {
    assert!(bytes.len() >= 4 + 1 + 32);
    let (body, checksum) = bytes.split_at(bytes.len() - 32);
    assert_eq!(&body[..4], magic);
    assert_eq!(body[4], version);
    assert_eq!(Sha256::digest(body).as_slice(), checksum, "SHA-256 trailer");
    Fields { rest: &body[5..] }
}

/// 64-bit FNV-1a (call-id keys).
fn fnv1a_64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// 32-bit FNV-1a (tool keys, file keys).
fn fnv1a_32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |h, b| {
        (h ^ u32::from(*b)).wrapping_mul(0x0100_0193)
    })
}

/// The call-id key of a default-engine pending record: FNV-1a's low 38 bits, 0 kept as 1.
fn call_id_key(id: &str) -> u64 {
    (fnv1a_64(id.as_bytes()) & ((1 << 38) - 1)).max(1)
}

/// The argument-text key of a default-engine pending record (the spec's word-mix).
fn text_key(text: &[u8]) -> u64 {
    const SEED: u64 = 0x517c_c1b7_2722_0a95;
    let mix = |h: u64, word: u64| (h.rotate_left(5) ^ word).wrapping_mul(SEED);
    let chunks = text.chunks_exact(8);
    let tail = chunks.remainder();
    let h = chunks.fold(0, |h, c| mix(h, u64::from_le_bytes(c.try_into().unwrap())));
    let mut last = [0u8; 8];
    last[..tail.len()].copy_from_slice(tail);
    mix(h, u64::from_le_bytes(last) ^ ((tail.len() as u64) << 56))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of a pinned hex file (whitespace ignored), or rewrites it under `UPDATE_SNAPSHOTS`.
fn pinned(name: &str, exported: &[u8]) -> Vec<u8> {
    let path = format!("{}/tests/snapshots/{name}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        let text = hex(exported);
        let lines: Vec<&str> = (0..text.len())
            .step_by(96)
            .map(|i| &text[i..text.len().min(i + 96)])
            .collect();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    }
    let text: String = std::fs::read_to_string(&path)
        .unwrap()
        .split_whitespace()
        .collect();
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// Export equals the pinned bytes; importing them into a fresh guard exports them again.
fn assert_pinned(config: &Value, run_id: &str, name: &str, exported: &[u8]) {
    let fixed = pinned(name, exported);
    assert_eq!(hex(exported), hex(&fixed), "export differs from {name}");
    let mut other = Guard::new(config).unwrap();
    assert_eq!(other.import_run(&fixed).unwrap().as_deref(), Some(run_id));
    assert_eq!(hex(&other.export_run(Some(run_id))), hex(&fixed));
}

fn call(tool: &str, args: &Value, call_id: &str, at: f64) -> Value {
    json!({"runId": "r1", "tool": tool, "args": args, "callId": call_id, "at": at})
}

fn with(mut record: Value, key: &str, value: Value) -> Value {
    record[key] = value;
    record
}

/// Checks `call` and records it with `outcome` (`("result" | "error", value)`) at `at`.
fn run_call(guard: &mut Guard, call: &Value, outcome: (&str, Value), at: f64) -> Value {
    let verdict = guard.check(&call.to_string(), 0.0).unwrap();
    assert!(
        matches!(verdict.to_json().as_str(), v if v.contains("\"allow\"")),
        "{call} was not allowed"
    );
    let record = with(with(call.clone(), outcome.0, outcome.1), "at", json!(at));
    serde_json::from_str(&guard.record(&record.to_string(), 0.0).unwrap().to_json()).unwrap()
}

const DEFAULT_CONFIG: &str =
    r#"{"sameAs": true, "tools": {"fetch": {"cap": {"calls": 3, "windowMs": 60000}}}}"#;

struct DefaultRun {
    guard: Guard,
    /// (tool, args) of each call, in order.
    calls: Vec<(&'static str, Value)>,
}

/// Reads, an edit that fails for a shared cause (401), a repeated read (`sameAs`), a compaction,
/// a transient failure of a capped tool, a read after the compaction and a read still pending.
fn default_run() -> DefaultRun {
    set_window_secret(None);
    let config: Value = serde_json::from_str(DEFAULT_CONFIG).unwrap();
    let mut guard = Guard::new(&config).unwrap();
    let read_a = ("read_file", json!({"path": "src/a.rs"}));
    let edit_a = (
        "edit_file",
        json!({"path": "src/a.rs", "old": "a", "new": "b"}),
    );
    let fetch = ("fetch", json!({"url": "https://api.example.com/x"}));
    let read_b = ("read_file", json!({"path": "src/b.rs"}));
    let read_c = ("read_file", json!({"path": "src/c.rs"}));
    let text = |s: &str| ("result", json!(s));
    run_call(
        &mut guard,
        &call(read_a.0, &read_a.1, "c1", 1000.0),
        text("fn a() {}"),
        1100.0,
    );
    let denied = json!({"message": "401 Unauthorized", "status": 401});
    run_call(
        &mut guard,
        &call(edit_a.0, &edit_a.1, "c2", 2000.0),
        ("error", denied),
        2100.0,
    );
    let repeat = run_call(
        &mut guard,
        &call(read_a.0, &read_a.1, "c3", 3000.0),
        text("fn a() {}"),
        3100.0,
    );
    assert_eq!(repeat["sameAs"], "c1");
    guard.compacted(Some("r1"));
    let outage = run_call(
        &mut guard,
        &call(fetch.0, &fetch.1, "c4", 4000.0),
        ("error", json!("503 Service Unavailable")),
        4100.0,
    );
    assert_eq!(outage["detector"], "transient_failure");
    run_call(
        &mut guard,
        &call(read_b.0, &read_b.1, "c5", 5000.0),
        text("fn b() {}"),
        5100.0,
    );
    let pending = call(read_c.0, &read_c.1, "c6", 6000.0);
    guard.check(&pending.to_string(), 0.0).unwrap();
    DefaultRun {
        guard,
        calls: vec![read_a.clone(), edit_a, read_a, fetch, read_b, read_c],
    }
}

/// The fingerprints the guard gives `tool(args)` and, when given, its outcome.
fn fingerprints(
    guard: &Guard,
    tool: &str,
    args: &Value,
    outcome: Option<(&str, Value)>,
) -> ([u8; 8], Option<[u8; 8]>) {
    let mut record = json!({"tool": tool, "args": args});
    if let Some((key, value)) = outcome {
        record[key] = value;
    }
    let f = guard.fingerprint(&record.to_string(), None).unwrap();
    (f.args, f.outcome)
}

#[test]
fn the_default_engine_writes_version_6_as_specified() {
    let DefaultRun { guard, calls } = default_run();
    let bytes = guard.export_run(Some("r1"));
    let mut f = open(&bytes, b"TLGS", 6);
    assert_eq!(f.opt(Fields::str).as_deref(), Some("r1"), "run id");
    assert_eq!(f.u8(), 0, "window hash: SHA-256 (no secret)");

    // Counters: five records entered the window (the failed fetch left it again), six checks.
    let next_seq = f.u64();
    assert_eq!(next_seq, 5);
    assert_eq!(f.u32(), 0, "trailing vetoes");
    assert_eq!(f.u64(), 0, "progress floor");
    assert_eq!(f.u32(), 6, "turns");
    assert_eq!(f.u32(), 0, "stale calls: the newest outcome was new");

    let tools: Vec<String> = (0..f.count()).map(|_| f.str()).collect();
    assert_eq!(tools, ["read_file", "edit_file", "fetch"]);

    // Cap log: fetch is capped; its one allowed call at 4000.
    assert_eq!(f.count(), 1);
    assert_eq!(f.str(), "fetch");
    let times: Vec<f64> = (0..f.count()).map(|_| f.f64()).collect();
    assert_eq!(times, [4000.0]);

    // Compaction watch: armed (window 3 by default), one completion seen since (read of b.rs).
    let (read_b_args, read_b_out) = fingerprints(
        &guard,
        "read_file",
        &calls[4].1,
        Some(("result", json!("fn b() {}"))),
    );
    let watch = f.opt(|f| (f.u32(), f.u32(), f.opt(|f| (f.str(), f.fp8(), f.fp8()))));
    assert_eq!(
        watch,
        Some((
            2,
            1,
            Some(("read_file".to_owned(), read_b_args, read_b_out.unwrap()))
        ))
    );

    // Records: tool u16, args, kind, at, state (+ state fields), warned, two counters.
    let outcomes = [
        Some(("result", json!("fn a() {}"))),
        Some((
            "error",
            json!({"message": "401 Unauthorized", "status": 401}),
        )),
        Some(("result", json!("fn a() {}"))),
        Some(("result", json!("fn b() {}"))),
        None,
    ];
    let window = [0, 1, 2, 4, 5].map(|i| &calls[i]);
    let expected_tools = [0u16, 1, 0, 0, 0];
    // Read = 1, mutate = 2.
    let kinds = [1u8, 2, 1, 1, 1];
    let ats = [1000.0, 2000.0, 3000.0, 5000.0, 6000.0];
    // Completed: (flags, same-outcome run, no-progress). Novel = 4, error = 1.
    let settled = [(4u8, 1u32, 1u32), (5, 1, 1), (0, 2, 2), (4, 1, 1)];
    assert_eq!(f.count(), 5);
    for i in 0..5 {
        let (tool, args) = window[i];
        let (args_fp, outcome_fp) = fingerprints(&guard, tool, args, outcomes[i].clone());
        assert_eq!(f.u16(), expected_tools[i], "record {i}'s tool");
        assert_eq!(f.fp8(), args_fp, "record {i}'s arguments");
        assert_eq!(f.u8(), kinds[i], "record {i}'s kind");
        assert_eq!(f.f64(), ats[i], "record {i}'s time is its check's");
        match f.u8() {
            0 => {
                assert_eq!(i, 4, "only the last call is pending");
                assert_eq!(f.u64(), text_key(args.to_string().as_bytes()));
                assert_eq!(f.u64(), call_id_key("c6"));
            }
            2 => {
                assert_eq!(f.fp8(), outcome_fp.unwrap(), "record {i}'s outcome");
                assert_eq!(f.u8(), settled[i].0, "record {i}'s flags");
            }
            state => panic!("record {i} in state {state}"),
        }
        assert_eq!(f.u8(), 0, "no detector warned");
        let counters = (f.u32(), f.u32());
        match i {
            4 => assert_eq!(counters, (0, 0)),
            _ => assert_eq!(
                counters,
                (settled[i].1, settled[i].2),
                "record {i}'s counters"
            ),
        }
    }

    // Notes: the edit (history position 1) may have written a.rs, and failed as unauthorized.
    let notes: Vec<(u64, u8, u32)> = (0..f.count()).map(|_| (f.u64(), f.u8(), f.u32())).collect();
    assert_eq!(notes, [(1, 0, fnv1a_32(b"a.rs")), (1, 3, 1)]);
    // Last arguments: no read stalled, so none kept.
    assert_eq!(f.count(), 0);
    // Outages: the fetch, failed once at 4100, asked to wait the first back-off (1 s).
    assert_eq!(f.count(), 1);
    let (fetch_args, _) = fingerprints(&guard, "fetch", &calls[3].1, None);
    assert_eq!(f.u32(), fnv1a_32(b"fetch"));
    assert_eq!(f.fp8(), fetch_args);
    assert_eq!((f.f64(), f.f64()), (4100.0, 4100.0));
    assert_eq!(f.u32(), 1, "failures");
    assert_eq!(f.f64(), 1000.0, "wait");
    assert_eq!(f.u8(), 0, "not told unavailable");
    assert_eq!(
        f.u8(),
        0,
        "no shared cause warned (one tool failed with it)"
    );
    // Call ids of the completed records, by history position.
    let ids: Vec<(u64, String)> = (0..f.count()).map(|_| (f.u64(), f.str())).collect();
    let expected: Vec<(u64, String)> = [(0, "c1"), (1, "c2"), (2, "c3"), (3, "c5")]
        .map(|(seq, id)| (seq, id.to_owned()))
        .to_vec();
    assert_eq!(ids, expected);
    assert!(f.rest.is_empty(), "{} bytes left unread", f.rest.len());
}

#[test]
fn a_small_default_run_exports_the_pinned_bytes_and_round_trips() {
    let DefaultRun { guard, .. } = default_run();
    let config: Value = serde_json::from_str(DEFAULT_CONFIG).unwrap();
    assert_pinned(&config, "r1", "v6-small.hex", &guard.export_run(Some("r1")));
}

const OPENCLAW_CONFIG: &str =
    r#"{"preset": "openclaw", "warningThreshold": 2, "criticalThreshold": 5}"#;

/// Under `preset: "openclaw"`: a read repeated three times (the third check warns, so one warned
/// bucket), a failing `exec`, a compaction, a read under a capitalised tool name, and a read
/// still pending.
fn openclaw_run() -> Guard {
    set_window_secret(None);
    let config: Value = serde_json::from_str(OPENCLAW_CONFIG).unwrap();
    let mut guard = Guard::new(&config).unwrap();
    let read_a = json!({"path": "/a.txt"});
    let text = |s: &str| ("result", json!({"content": [{"type": "text", "text": s}]}));
    for i in 1..=2 {
        let at = f64::from(i) * 1000.0;
        run_call(
            &mut guard,
            &call("read", &read_a, &format!("k{i}"), at),
            text("alpha"),
            at,
        );
    }
    let third = call("read", &read_a, "k3", 3000.0);
    let verdict = guard.check(&third.to_string(), 0.0).unwrap();
    assert!(verdict.to_json().contains("\"generic_repeat\""));
    let record = with(third, text("alpha").0, text("alpha").1);
    guard.record(&record.to_string(), 0.0).unwrap();
    let failed = ("error", json!("Command exited with code 1\nboom"));
    run_call(
        &mut guard,
        &call("exec", &json!({"command": "false"}), "k4", 4000.0),
        failed,
        4000.0,
    );
    guard.compacted(Some("r1"));
    let read_b = call("Read", &json!({"path": "/b.txt"}), "k5", 5000.0);
    run_call(&mut guard, &read_b, text("beta"), 5000.0);
    let pending = call("read", &json!({"path": "/c.txt"}), "k6", 6000.0);
    guard.check(&pending.to_string(), 0.0).unwrap();
    guard
}

/// An openclaw call signature: tool name, then the SHA-256 of the canonical arguments.
fn signature(f: &mut Fields) -> (String, [u8; 32]) {
    (f.str(), f.digest())
}

fn args_digest(canonical: &str) -> [u8; 32] {
    Sha256::digest(canonical.as_bytes()).into()
}

/// One decoded openclaw outcome: (hash, kind, failure identity, no progress, unknown tool).
type OpenClawOutcome = (Option<[u8; 32]>, u8, Option<[u8; 32]>, bool, Option<String>);

#[test]
fn the_openclaw_engine_writes_its_version_2_as_specified() {
    let guard = openclaw_run();
    let bytes = guard.export_run(Some("r1"));
    let mut f = open(&bytes, b"TLGO", 2);
    assert_eq!(f.opt(Fields::str).as_deref(), Some("r1"), "run id");
    assert_eq!(f.u8(), 0, "window hash: SHA-256 (no secret)");
    assert_eq!(f.u8(), 0, "no call refused yet");

    let a = ("read".to_owned(), args_digest(r#"{"path":"/a.txt"}"#));
    // The tool name is stored lower-cased: "Read" is the read tool.
    let b = ("read".to_owned(), args_digest(r#"{"path":"/b.txt"}"#));
    let c = ("read".to_owned(), args_digest(r#"{"path":"/c.txt"}"#));
    let exec = ("exec".to_owned(), args_digest(r#"{"command":"false"}"#));

    // The watch: 3 completions to look at, one seen since (the read of b.txt and its outcome).
    let (remaining, seen) = f
        .opt(|f| {
            let remaining = f.u32();
            let seen: Vec<_> = (0..f.count())
                .map(|_| (signature(f), f.opt(Fields::digest)))
                .collect();
            (remaining, seen)
        })
        .unwrap();
    assert_eq!(remaining, 2);
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].0, b);
    let beta = seen[0].1.unwrap();

    // Warned buckets: the repeated read warned once (key 5, generic repeat; bucket 1).
    assert_eq!(f.count(), 1);
    assert_eq!(f.u8(), 5, "generic-repeat key");
    assert_eq!(signature(&mut f), a);
    assert_eq!(f.u32(), 1, "bucket");

    let records: Vec<_> = (0..f.count())
        .map(|_| {
            let signature = signature(&mut f);
            let call_id = f.opt(Fields::u64);
            let outcome: Option<OpenClawOutcome> = f.opt(|f| {
                let hash = f.opt(Fields::digest);
                let kind = f.u8();
                let identity = f.opt(Fields::digest);
                let no_progress = match f.u8() {
                    0 => false,
                    1 => true,
                    other => panic!("flag byte {other}"),
                };
                (hash, kind, identity, no_progress, f.opt(Fields::str))
            });
            (signature, call_id, outcome)
        })
        .collect();
    assert!(f.rest.is_empty(), "{} bytes left unread", f.rest.len());

    assert_eq!(records.len(), 6);
    let signatures: Vec<_> = records.iter().map(|r| r.0.clone()).collect();
    assert_eq!(signatures, [a.clone(), a.clone(), a, exec, b, c]);
    // Call ids are stored as their full 64-bit FNV-1a key.
    let ids: Vec<_> = records.iter().map(|r| r.1).collect();
    let keys = ["k1", "k2", "k3", "k4", "k5", "k6"].map(|k| Some(fnv1a_64(k.as_bytes())));
    assert_eq!(ids, keys);
    let outcomes: Vec<_> = records.iter().map(|r| r.2.clone()).collect();
    let alpha = outcomes[0].clone().unwrap().0.unwrap();
    assert_ne!(alpha, beta);
    let plain = |hash| Some((Some(hash), 0, None, false, None));
    assert_eq!(outcomes[..3], [plain(alpha), plain(alpha), plain(alpha)]);
    // The failed exec: a plain outcome, no progress whatever the arguments.
    let failed = outcomes[3].clone().unwrap();
    assert_eq!(
        (failed.1, failed.2, failed.3, failed.4),
        (0, None, true, None)
    );
    assert!(failed.0.is_some_and(|h| h != alpha && h != beta));
    assert_eq!(outcomes[4], plain(beta));
    assert_eq!(outcomes[5], None, "the read of c.txt is still pending");
}

#[test]
fn a_small_openclaw_run_exports_the_pinned_bytes_and_round_trips() {
    let config: Value = serde_json::from_str(OPENCLAW_CONFIG).unwrap();
    let bytes = openclaw_run().export_run(Some("r1"));
    assert_pinned(&config, "r1", "openclaw-v2-small.hex", &bytes);
}

/// A run with a secret: the header holds marker 1 and the run's 128-bit key, the fingerprints are
/// SipHash-1-3 under it of the bytes SHA-256 took before (for arguments, their canonical JSON), and
/// one secret gives one run id the same key in every guard.
#[test]
fn a_keyed_run_carries_its_key_and_keyed_fingerprints() {
    set_window_secret(Some([7, 8]));
    let config: Value = serde_json::from_str(DEFAULT_CONFIG).unwrap();
    let mut guard = Guard::new(&config).unwrap();
    let args = json!({"path": "src/a.rs"});
    run_call(
        &mut guard,
        &call("read_file", &args, "c1", 1000.0),
        ("result", json!("fn a() {}")),
        1100.0,
    );
    let bytes = guard.export_run(Some("r1"));
    let mut f = open(&bytes, b"TLGS", 6);
    assert_eq!(f.opt(Fields::str).as_deref(), Some("r1"));
    assert_eq!(f.u8(), 1, "window hash: keyed");
    let key = [f.u64(), f.u64()];
    let canonical = to_canonical_string(&args);
    let fingerprint = siphash13(key, canonical.as_bytes()).to_le_bytes();
    assert!(
        bytes.windows(8).any(|w| w == fingerprint),
        "the record's arguments fingerprint is the keyed one"
    );
    let (sha, _) = fingerprints(&guard, "read_file", &args, None);
    assert!(!bytes.windows(8).any(|w| w == sha), "and not SHA-256's");
    let mut other = Guard::new(&config).unwrap();
    run_call(
        &mut other,
        &call("read_file", &args, "c1", 1000.0),
        ("result", json!("fn a() {}")),
        1100.0,
    );
    assert_eq!(hex(&other.export_run(Some("r1"))), hex(&bytes));
    set_window_secret(Some([9, 8]));
    let third = Guard::new(&config).unwrap();
    assert_ne!(hex(&third.export_run(Some("r1"))[..30]), hex(&bytes[..30]));
}
