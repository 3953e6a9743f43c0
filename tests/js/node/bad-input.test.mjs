// Hostile and awkward input through the built package: every bad-input class raises LoopGuardError
// with its code and field, the guard keeps its state and keeps answering correctly, and the value
// rules (BigInt, Error, Date, dropped values) give the same fingerprints as their JSON equivalents.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { LoopGuard, LoopGuardError } from "tool-loop-guard";
import { verdictString } from "../scenario-runner.mjs";

const CALL = { tool: "update_task", args: { taskId: "T-1", status: "open" } };
const OUTCOME = { ...CALL, result: "updated" };
// Thresholds pinned so these bad-input checks do not move with the default preset.
const CONFIG = { warningThreshold: 10, criticalThreshold: 20, globalCircuitBreakerThreshold: 30 };
const WARNED = "warn/warning/generic_repeat/10";

/** check+record of each call; verdict strings, the record's null when the call was refused. */
function replay(guard, pairs) {
  return pairs.map(([call, outcome]) => {
    const checked = verdictString(guard.check(call));
    const refused = checked.startsWith("block") || checked.startsWith("stop");
    return [checked, refused ? null : verdictString(guard.record(outcome))];
  });
}

function expectError(fn, code, field) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof LoopGuardError, `not a LoopGuardError: ${error}`);
    assert.ok(error instanceof Error);
    assert.equal(error.name, "LoopGuardError");
    assert.equal(error.code, code, error.message);
    if (field !== undefined) assert.equal(error.field, field, error.message);
    assert.ok(error.message.length > 0);
    return true;
  });
}

function cyclic() {
  const value = { a: { b: {} } };
  value.a.b.loop = value;
  return value;
}

function nested(depth) {
  let value = { leaf: true };
  for (let i = 0; i < depth; i++) value = { next: value };
  return value;
}

const badRecords = [
  ["cyclic args", "check", { ...CALL, args: cyclic() }, "invalid_record", "args"],
  ["cyclic result", "record", { ...CALL, result: cyclic() }, "invalid_record", "result"],
  ["cyclic error", "record", { ...CALL, error: { cause: cyclic() } }, "invalid_record", "error"],
  ["10,000 levels of args (JS refuses)", "check", { ...CALL, args: nested(10_000) }, "too_deep", "args"],
  ["200 levels of result (the core refuses)", "record", { ...CALL, result: nested(200) }, "too_deep", "result"],
  ["tool is a number", "check", { tool: 42 }, "invalid_record", "tool"],
  ["tool is missing", "check", { args: {} }, "invalid_record", "tool"],
  ["tool is empty", "check", { tool: "" }, "invalid_record", "tool"],
  ["runId is a number", "check", { ...CALL, runId: 7 }, "invalid_record", "runId"],
  ["callId is an object", "record", { ...OUTCOME, callId: {} }, "invalid_record", "callId"],
  ["at is a string", "check", { ...CALL, at: "now" }, "invalid_record", "at"],
  ["unknown key", "check", { ...CALL, arguments: {} }, "invalid_record", "arguments"],
  ["result passed to check", "check", { ...OUTCOME }, "invalid_record", "result"],
  ["record is null", "check", null, "invalid_record", null],
  ["record is a string", "record", "update_task", "invalid_record", null],
  ["record is an array", "check", [CALL], "invalid_record", undefined],
];

describe("bad records", () => {
  for (const [name, op, record, code, field] of badRecords) {
    test(name, () => expectError(() => new LoopGuard(CONFIG)[op](record), code, field));
  }

  test("a record larger than maxRecordBytes is too_large", () => {
    const guard = new LoopGuard({ maxRecordBytes: 1000 });
    expectError(() => guard.record({ ...CALL, result: "x".repeat(2000) }), "too_large");
    guard.free();
  });

  test("runId and reason of compacted/progress/endRun must be strings", () => {
    const guard = new LoopGuard(CONFIG);
    expectError(() => guard.compacted(5), "invalid_record", "runId");
    expectError(() => guard.progress("run", {}), "invalid_record", "reason");
    expectError(() => guard.endRun(["run"]), "invalid_record", "runId");
    guard.free();
  });

  test("the same guard keeps its state and its verdicts through every bad record", () => {
    const guard = new LoopGuard(CONFIG);
    const control = new LoopGuard(CONFIG);
    const pairs = Array.from({ length: 12 }, () => [CALL, OUTCOME]);
    const got = [];
    pairs.forEach((pair, i) => {
      const [, op, record, code] = badRecords[i % badRecords.length];
      expectError(() => guard[op](record), code);
      got.push(...replay(guard, [pair]));
    });
    const want = replay(control, pairs);
    assert.deepEqual(got, want);
    assert.equal(want[9][0], WARNED, "the identical call is warned at its 10th check");
    assert.equal(guard.stats().checks, 12, "refused records are not counted");
  });
});

describe("bad config", () => {
  const cases = [
    ["warningThreshold 0", { warningThreshold: 0 }, "warningThreshold"],
    ["warningThreshold negative", { warningThreshold: -1 }, "warningThreshold"],
    ["warningThreshold fractional", { warningThreshold: 1.5 }, "warningThreshold"],
    ["warningThreshold a string", { warningThreshold: "10" }, "warningThreshold"],
    ["thresholds out of order", { warningThreshold: 25 }, "criticalThreshold"],
    ["global not above critical", { criticalThreshold: 40 }, "globalCircuitBreakerThreshold"],
    ["unknown key", { warnThreshold: 5 }, "warnThreshold"],
    ["unknown detector", { detectors: { repeatForever: true } }, "detectors.repeatForever"],
    ["detector switch not boolean", { detectors: { pingPong: "yes" } }, "detectors.pingPong"],
    ["windowSize 0", { postCompactionGuard: { windowSize: 0 } }, "postCompactionGuard.windowSize"],
    ["unknown preset", { preset: "lenient" }, "preset"],
    ["pollTools not strings", { pollTools: [1] }, "pollTools"],
    ["onVerdict not a function", { onVerdict: 5 }, "onVerdict"],
    ["throwOnInternalError not boolean", { throwOnInternalError: "yes" }, "throwOnInternalError"],
  ];
  for (const [name, config, field] of cases) {
    test(name, () => expectError(() => new LoopGuard(config), "invalid_config", field));
  }
  test("a config that is not an object", () => expectError(() => new LoopGuard("strict"), "invalid_config"));
  test("JS-only options are not passed to the core", () => {
    const seen = [];
    const guard = new LoopGuard({ ...CONFIG, onVerdict: (v, op) => seen.push(`${op} ${verdictString(v)}`), throwOnInternalError: true });
    replay(guard, Array.from({ length: 10 }, () => [CALL, OUTCOME]));
    assert.deepEqual(seen, [`check ${WARNED}`]);
    guard.free();
  });
});

describe("value rules give the fingerprint of the equivalent JSON", () => {
  // Alternating the two forms of one call must behave exactly like repeating the plain form.
  function sameAs(plain, other) {
    const mixed = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? plain : other));
    const want = replay(new LoopGuard(CONFIG), Array.from({ length: 12 }, () => plain));
    assert.deepEqual(replay(new LoopGuard(CONFIG), mixed), want);
    assert.equal(want[9][0], WARNED);
  }
  const withArgs = (args) => [{ ...CALL, args }, { ...OUTCOME, args }];
  const withResult = (result) => [CALL, { ...CALL, result }];
  const withError = (error) => [CALL, { ...CALL, error }];

  test("BigInt is its decimal string", () => {
    sameAs(withArgs({ n: "12345678901234567890" }), withArgs({ n: 12345678901234567890n }));
  });
  test("an Error result is {name, message}, without the stack", () => {
    const plain = { name: "TypeError", message: "bad id" };
    sameAs(withResult({ failed: plain }), withResult({ failed: new TypeError("bad id") }));
  });
  test("an Error as error is {name, message}; two throws with different stacks are the same", () => {
    const thrown = () => new Error("task not found");
    sameAs(withError(thrown()), withError((() => thrown())()));
    sameAs(withError({ name: "Error", message: "task not found" }), withError(thrown()));
  });
  test("an Error hands over its status, code (else its cause's) and Retry-After header: a thrown 429 is transient", () => {
    const guard = new LoopGuard(CONFIG);
    let at = 0;
    const recorded = (error) => {
      const call = { ...CALL, runId: `r${at}`, at: (at += 1000) };
      guard.check(call);
      const verdict = guard.record({ ...call, error });
      return [verdict.detector, verdict.retryAfterMs];
    };
    const rateLimited = Object.assign(new Error("Rate limited"), { status: 429, headers: new Headers({ "Retry-After": "7", "x-request-id": "r1" }) });
    assert.deepEqual(recorded(rateLimited), ["transient_failure", 7000]);
    const node = Object.assign(new Error("boom"), { statusCode: 503, headers: { "Retry-After": "2" } });
    assert.deepEqual(recorded(node), ["transient_failure", 2000]);
    const fetchFailed = new TypeError("fetch failed", { cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }) });
    assert.deepEqual(recorded(fetchFailed), ["transient_failure", 1000], "no Retry-After: the first back-off");
    assert.deepEqual(recorded(new Error("boom")), [null, undefined]);
    // An error is hashed as its name and message: what it carries beside them is read, not hashed.
    assert.deepEqual(guard.fingerprint({ ...CALL, error: node }), guard.fingerprint({ ...CALL, error: new Error("boom") }));
    guard.free();
  });
  test("Date uses toJSON", () => {
    sameAs(withArgs({ due: "2026-01-02T03:04:05.000Z" }), withArgs({ due: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)) }));
  });
  test("undefined, functions and symbols are dropped as JSON drops them", () => {
    sameAs(
      withArgs({ a: 1, list: [1, null] }),
      withArgs({ a: 1, b: undefined, c: () => 1, d: Symbol("s"), list: [1, undefined] }),
    );
  });
  test("key order does not matter", () => {
    sameAs(withArgs({ a: 1, b: { c: 2, d: 3 } }), withArgs({ b: { d: 3, c: 2 }, a: 1 }));
  });
});

describe("lifecycle", () => {
  test("a freed guard refuses calls with code freed; free twice is harmless", () => {
    const guard = new LoopGuard(CONFIG);
    guard.check(CALL);
    guard.free();
    guard.free();
    expectError(() => guard.check(CALL), "freed");
    expectError(() => guard.stats(), "freed");
  });
  test("guards are independent", () => {
    const a = new LoopGuard(CONFIG);
    const b = new LoopGuard(CONFIG);
    const pairs = Array.from({ length: 10 }, () => [CALL, OUTCOME]);
    replay(a, pairs);
    assert.equal(replay(b, [[CALL, OUTCOME]])[0][0], "allow");
    assert.equal(a.stats().checks, 10);
    assert.equal(b.stats().checks, 1);
  });
  test("exportRun/importRun move a run to another guard; bad snapshots are invalid_snapshot", () => {
    const from = new LoopGuard(CONFIG);
    const call = { ...CALL, runId: "r1" };
    replay(from, Array.from({ length: 9 }, () => [call, { ...OUTCOME, runId: "r1" }]));
    const bytes = from.exportRun("r1");
    assert.ok(bytes instanceof Uint8Array && bytes.length > 0);
    const to = new LoopGuard(CONFIG);
    assert.equal(to.importRun(bytes), "r1");
    assert.equal(verdictString(to.check(call)), WARNED);
    assert.equal(to.importRun(to.exportRun()), null, "the default run's id is null");
    const corrupt = bytes.slice();
    corrupt[corrupt.length - 1] ^= 0xff;
    for (const bad of [corrupt, new Uint8Array([1, 2, 3]), "r1", [1, 2]]) {
      expectError(() => to.importRun(bad), "invalid_snapshot");
    }
    assert.equal(verdictString(to.check(call)), "allow", "the run survived the bad imports");
  });
  test("at defaults to the clock but an explicit at is used", () => {
    const guard = new LoopGuard(CONFIG);
    assert.equal(guard.check({ ...CALL, at: 1_000 }).action, "allow");
    assert.equal(guard.record({ ...OUTCOME, at: 1_500 }).action, "allow");
  });
});
