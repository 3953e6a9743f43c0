// guard.fingerprint(record) returns the fingerprints the guard itself compares: computed by the
// core under the guard's config, the same bytes whichever way a large text crosses into wasm, and
// equal exactly when the detectors count two outcomes as the same. Nothing is stored.
import assert from "node:assert/strict";
import { test } from "node:test";
import { init, LoopGuard, LoopGuardError } from "tool-loop-guard";
import { assertWaysAgree, limit, textWays } from "./text-ways.mjs";

await init();
const HEX16 = /^[0-9a-f]{16}$/;

const execResult = (stdout, durationMs) => ({ content: [{ type: "text", text: stdout }], details: { exitCode: 0, durationMs } });

test("two outcomes differing only in a volatile key give the same hex", () => {
  const guard = new LoopGuard();
  const a = guard.fingerprint({ tool: "run_tests", args: { suite: "unit" }, result: execResult("2 failed", 812) });
  const b = guard.fingerprint({ tool: "run_tests", args: { suite: "unit" }, result: execResult("2 failed", 9140) });
  const c = guard.fingerprint({ tool: "run_tests", args: { suite: "unit" }, result: execResult("all passed", 812) });
  assert.match(a.args, HEX16);
  assert.match(a.outcome, HEX16);
  assert.deepEqual(a, b);
  assert.notEqual(c.outcome, a.outcome);
  assert.equal(c.args, a.args);
  guard.free();
});

test("the guard's config counts: volatileKeys and a tool's ignore list", () => {
  const record = (elapsed) => ({ tool: "query", result: { rows: 3, elapsed } });
  const plain = new LoopGuard();
  assert.notEqual(plain.fingerprint(record(1)).outcome, plain.fingerprint(record(2)).outcome);
  const configured = new LoopGuard({ volatileKeys: ["elapsed"] });
  assert.equal(configured.fingerprint(record(1)).outcome, configured.fingerprint(record(2)).outcome);
  const perTool = new LoopGuard({ tools: { query: { ignore: ["/elapsed"] } } });
  assert.equal(perTool.fingerprint(record(1)).outcome, perTool.fingerprint(record(2)).outcome);
});

test("equal fingerprints are what the guard counts as the same outcome", () => {
  const call = { runId: "r", tool: "read_status", args: { id: 1 } };
  const nextAction = (results) => {
    const guard = new LoopGuard({ preset: "strict" });
    for (const result of results) {
      guard.check(call);
      guard.record({ ...call, result });
    }
    return guard.check(call).action;
  };
  const probe = new LoopGuard({ preset: "strict" });
  const outcome = (result) => probe.fingerprint({ ...call, result }).outcome;
  const alike = [execResult("idle", 1), execResult("idle", 2), execResult("idle", 3)];
  const apart = [execResult("idle", 1), execResult("busy", 2), execResult("idle", 3)];
  assert.equal(new Set(alike.map(outcome)).size, 1);
  assert.equal(new Set(apart.map(outcome)).size, 2);
  assert.equal(nextAction(alike), "block");
  assert.notEqual(nextAction(apart), "block");
});

test("a call without result or error has no outcome; an error is not the same outcome as that text returned", () => {
  const guard = new LoopGuard();
  assert.equal(guard.fingerprint({ tool: "t", args: { b: 1, a: 2 } }).outcome, null);
  assert.equal(guard.fingerprint({ tool: "t", args: { a: 2, b: 1.0 } }).args, guard.fingerprint({ tool: "t", args: { b: 1, a: 2 } }).args);
  assert.equal(guard.fingerprint({ tool: "t" }).args, guard.fingerprint({ tool: "t", args: {} }).args);
  const failed = guard.fingerprint({ tool: "t", error: "boom" }).outcome;
  assert.match(failed, HEX16);
  assert.notEqual(failed, guard.fingerprint({ tool: "t", result: "boom" }).outcome);
  assert.equal(guard.fingerprint({ tool: "t", error: { message: "boom", stack: "at x" } }).outcome, failed);
});

test("a long text fingerprints alike hashed by node:crypto, passed as side text or inline", () => {
  const long = "x".repeat(limit + 10);
  const record = { tool: "read_file", args: { path: "big.log" }, result: long };
  const ways = textWays();
  assertWaysAgree(ways, (guard) => guard.fingerprint(record));
  assert.deepEqual(new LoopGuard().fingerprint({ ...record, result: { content: [{ type: "text", text: long }] } }), ways.inline.fingerprint(record));
});

test("nothing is stored, and bad input throws LoopGuardError leaving the guard working", () => {
  const guard = new LoopGuard();
  for (let i = 0; i < 3; i++) guard.fingerprint({ runId: "r", tool: "t", result: "same" });
  const stats = guard.stats();
  assert.deepEqual([stats.checks, stats.records, stats.liveRuns], [0, 0, 0]);
  assert.throws(() => guard.fingerprint({ tool: "" }), (e) => e instanceof LoopGuardError && e.code === "invalid_record" && e.field === "tool");
  const cyclic = { tool: "t" };
  cyclic.result = cyclic;
  assert.throws(() => guard.fingerprint(cyclic), (e) => e instanceof LoopGuardError && e.code === "invalid_record");
  assert.equal(guard.check({ tool: "t" }).action, "allow");
});
