// The rest of issue 14's bad-input list through the built package (bad-input.test.mjs has the
// record shapes and config values): JS values JSON has no form for, toJSON / getters / Proxy traps
// that throw, prototype-named keys, huge texts, ended runs, a wrong type for every config field,
// snapshots cut or flipped at every byte or from another config, and onVerdict callbacks that
// throw, re-enter or free. Each has a LoopGuardError code or a defined handling, and the guard
// gives the same verdicts afterwards as a guard that never saw it.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { LoopGuard, LoopGuardError } from "tool-loop-guard";
import { verdictString } from "../scenario-runner.mjs";
import { CALL, OUTCOME, stuckSteps } from "../hostile-cases.mjs";

const STRICT = { preset: "strict" };

function expectError(fn, code, field) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof LoopGuardError, `not a LoopGuardError: ${error}`);
    assert.equal(error.code, code, error.message);
    if (field !== undefined) assert.equal(error.field, field, error.message);
    return true;
  });
}

const steps = stuckSteps;

/** Runs `bad` between the steps of a stuck run; the verdicts must equal an undisturbed guard's. */
function assertUndisturbed(bad, config = STRICT) {
  const guard = new LoopGuard(config);
  const got = [];
  for (let i = 0; i < 4; i++) {
    bad(guard);
    got.push(...steps(guard, 1));
  }
  assert.deepEqual(got, steps(new LoopGuard(config), 4));
  assert.ok(got.some((v) => !v.startsWith("allow")), "the stuck run escalated");
  guard.free();
}

const fingerprint = (args) => new LoopGuard().fingerprint({ tool: "t", args }).args;

describe("values JSON has no form for follow JSON.stringify", () => {
  test("NaN and ±Infinity are null; -0 is 0", () => {
    assert.equal(fingerprint({ x: NaN }), fingerprint({ x: null }));
    assert.equal(fingerprint({ x: Infinity }), fingerprint({ x: null }));
    assert.equal(fingerprint({ x: -Infinity }), fingerprint({ x: null }));
    assert.equal(fingerprint({ x: -0 }), fingerprint({ x: 0 }));
  });
  test("Map, Set and ArrayBuffer are {}; typed arrays are index objects; Date is its ISO text", () => {
    assert.equal(fingerprint({ x: new Map([["k", 1]]) }), fingerprint({ x: {} }));
    assert.equal(fingerprint({ x: new Set([1]) }), fingerprint({ x: {} }));
    assert.equal(fingerprint({ x: new ArrayBuffer(8) }), fingerprint({ x: {} }));
    assert.equal(fingerprint({ x: new Uint8Array([7, 9]) }), fingerprint({ x: { 0: 7, 1: 9 } }));
    assert.equal(fingerprint({ x: new Date(0) }), fingerprint({ x: "1970-01-01T00:00:00.000Z" }));
  });
  test("a Proxy without traps is its target", () => {
    assert.equal(fingerprint(new Proxy({ a: 1, b: [2] }, {})), fingerprint({ a: 1, b: [2] }));
  });
  test("__proto__ and constructor are ordinary keys in args; the prototype is untouched", () => {
    const args = JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"prototype": 2}}');
    assert.notEqual(fingerprint(args), fingerprint({}));
    assert.equal(fingerprint(args), fingerprint(JSON.parse('{"constructor": {"prototype": 2}, "__proto__": {"polluted": 1}}')));
    assert.equal({}.polluted, undefined);
  });
});

describe("values that throw give invalid_record and leave the guard as it was", () => {
  const throwing = () => {
    throw new Error("boom");
  };
  const cases = [
    ["toJSON of args throws", "check", () => ({ ...CALL, args: { toJSON: throwing } }), "args"],
    ["toJSON of the result throws", "record", () => ({ ...CALL, result: { toJSON: throwing } }), "result"],
    ["a getter of args throws", "check", () => ({ runId: "r", tool: "read_file", get args() { return throwing(); } }), null],
    ["a getter of tool throws", "check", () => ({ get tool() { return throwing(); } }), null],
    ["a getter inside the result throws", "record", () => ({ ...CALL, result: { content: [{ type: "text", get text() { return throwing(); } }] } }), null],
    ["a Proxy record whose ownKeys trap throws", "check", () => new Proxy({ ...CALL }, { ownKeys: throwing }), null],
    ["a Proxy in args whose get trap throws", "check", () => ({ ...CALL, args: new Proxy({ a: 1 }, { get: throwing }) }), "args"],
    ["__proto__ as a record key", "check", () => JSON.parse('{"tool": "read_file", "__proto__": {}}'), "__proto__"],
    ["constructor as a record key", "check", () => ({ tool: "read_file", constructor: 1 }), "constructor"],
    ["a 1 MB tool name", "check", () => ({ tool: "t".repeat(1 << 20) }), "tool"],
  ];
  for (const [name, op, record, field] of cases) {
    test(name, () => {
      expectError(() => new LoopGuard()[op](record()), "invalid_record", field);
      assertUndisturbed((guard) => expectError(() => guard[op](record()), "invalid_record", field));
    });
  }
});

describe("huge texts and ended runs", () => {
  test("a 50 MB string result is hashed, not refused; the same text gives the same fingerprint", () => {
    const text = "y".repeat(50 * 1024 * 1024);
    const guard = new LoopGuard();
    const first = guard.fingerprint({ tool: "t", result: text }).outcome;
    assert.equal(guard.record({ tool: "t", result: text }).action, "allow");
    assert.equal(guard.fingerprint({ tool: "t", result: { content: [{ type: "text", text }] } }).outcome, first);
    assert.notEqual(guard.fingerprint({ tool: "t", result: `${text}z` }).outcome, first);
    guard.free();
  });
  test("a 50 MB error or args is too_large (over the default maxRecordBytes)", () => {
    const text = "y".repeat(50 * 1024 * 1024);
    assertUndisturbed((guard) => {
      expectError(() => guard.record({ ...CALL, error: text }), "too_large");
      expectError(() => guard.check({ ...CALL, args: { text } }), "too_large");
    });
  });
  test("a record for an ended run starts that run afresh", () => {
    const guard = new LoopGuard(STRICT);
    steps(guard, 3);
    guard.endRun("r");
    assert.deepEqual(steps(guard, 4), steps(new LoopGuard(STRICT), 4));
  });
});

describe("config fields of the wrong type", () => {
  // Every top-level field the core reads, with a value of a type it never takes.
  const fields = {
    enabled: "yes",
    preset: 3,
    historySize: "30",
    warningThreshold: true,
    criticalThreshold: [5],
    unknownToolThreshold: {},
    globalCircuitBreakerThreshold: "9",
    detectors: 1,
    postCompactionGuard: "on",
    criticalLaps: "2",
    maxCyclePeriod: "3",
    maxTurns: "many",
    patientPollMs: [],
    pollBudgetMs: false,
    policy: 7,
    tools: "all",
    volatileKeys: "id",
    pollTools: { poll: true },
    maxRuns: -1,
    maxRecordBytes: "1MB",
  };
  for (const [field, value] of Object.entries(fields)) {
    test(`${field}: ${JSON.stringify(value)}`, () => expectError(() => new LoopGuard({ [field]: value }), "invalid_config", field));
  }
});

describe("snapshots", () => {
  const exported = () => {
    const guard = new LoopGuard(STRICT);
    steps(guard, 2);
    return guard.exportRun("r");
  };

  test("cut at every byte or with any bit flipped in any byte: invalid_snapshot, guard unchanged", () => {
    const snapshot = exported();
    const guard = new LoopGuard(STRICT);
    steps(guard, 1);
    const before = guard.exportRun("r");
    for (let length = 0; length < snapshot.length; length++) expectError(() => guard.importRun(snapshot.subarray(0, length)), "invalid_snapshot");
    for (let i = 0; i < snapshot.length; i++) {
      for (const bit of [0x01, 0x80]) {
        const flipped = snapshot.slice();
        flipped[i] ^= bit;
        expectError(() => guard.importRun(flipped), "invalid_snapshot");
      }
    }
    assert.deepEqual(guard.exportRun("r"), before, "refused snapshots leave the run as it was");
  });

  test("a snapshot from another config imports and continues under the importing guard's config", () => {
    const snapshot = exported();
    const lenient = new LoopGuard({ historySize: 3 });
    assert.equal(lenient.importRun(snapshot), "r");
    const control = new LoopGuard({ historySize: 3 });
    control.importRun(snapshot);
    assert.deepEqual(steps(lenient, 4), steps(control, 4));
    assert.ok(lenient.exportRun("r").length < snapshot.length + 200, "the window was cut to historySize 3");
  });

  test("not bytes at all: invalid_snapshot", () => {
    const guard = new LoopGuard();
    for (const bad of ["TLGS", [1, 2], null, undefined, 5, new Uint16Array(4)]) expectError(() => guard.importRun(bad), "invalid_snapshot");
  });
});

describe("onVerdict callbacks", () => {
  test("a throwing callback's error reaches the caller; the verdict was counted and the run goes on", () => {
    const seen = [];
    const guard = new LoopGuard({
      ...STRICT,
      onVerdict(verdict) {
        seen.push(verdictString(verdict));
        throw new Error("callback failed");
      },
    });
    const got = [];
    for (let i = 0; i < 4; i++) {
      try {
        got.push(verdictString(guard.check(CALL)));
      } catch (error) {
        assert.equal(error.message, "callback failed");
        got.push(seen.at(-1));
      }
      if (got.at(-1).startsWith("allow") || got.at(-1).startsWith("warn")) {
        try {
          got.push(verdictString(guard.record(OUTCOME)));
        } catch (error) {
          assert.equal(error.message, "callback failed");
          got.push(seen.at(-1));
        }
      }
    }
    assert.deepEqual(got, steps(new LoopGuard(STRICT), 4));
    assert.ok(seen.length > 0);
  });

  test("a callback that re-enters the guard (another run) does not change this run's verdicts", () => {
    let depth = 0;
    const guard = new LoopGuard({
      ...STRICT,
      onVerdict() {
        depth += 1;
        if (depth < 3) guard.check({ runId: "other", tool: "list_dir", args: { depth } });
        depth -= 1;
      },
    });
    assert.deepEqual(steps(guard, 4), steps(new LoopGuard(STRICT), 4));
    assert.equal(guard.stats().liveRuns, 2);
  });

  test("a callback that frees the guard: the verdict is returned, later calls are freed", () => {
    const guard = new LoopGuard({ ...STRICT, onVerdict: () => guard.free() });
    const got = [];
    assert.throws(() => {
      for (;;) got.push(...steps(guard, 1));
    }, (error) => error instanceof LoopGuardError && error.code === "freed");
    const verdicts = steps(new LoopGuard(STRICT), 4);
    const first = verdicts.findIndex((v) => !v.startsWith("allow/ok/-"));
    assert.deepEqual(got.slice(0, first), verdicts.slice(0, first));
  });
});
