// preset "openclaw" through the built package: OpenClaw-shaped results (Error objects, text parts
// and details) reach OpenClaw's hashing, cyclic values are a typed error instead of a "[Circular]"
// hash (a documented difference) and leave the run intact, and the texts carry OpenClaw's phrases.
// Verdict counts are pinned by the scenario corpus (tests/scenarios/openclaw_*.json).
import assert from "node:assert/strict";
import { test } from "node:test";
import { LoopGuard, LoopGuardError } from "tool-loop-guard";
import { verdictString } from "../scenario-runner.mjs";

const READ = { tool: "read", args: { path: "/same.txt" } };
const SAME = { content: [{ type: "text", text: "same output" }], details: { ok: true } };

test("cyclic arguments are invalid_record and the window is unchanged", () => {
  const guard = new LoopGuard({ preset: "openclaw" });
  const cyclic = { path: "/same.txt" };
  cyclic.self = cyclic;
  for (let i = 0; i < 10; i++) guard.check(READ);
  assert.throws(() => guard.check({ tool: "read", args: cyclic }), (e) => e instanceof LoopGuardError && e.code === "invalid_record" && e.field === "args");
  assert.equal(verdictString(guard.check(READ)), "warn/warning/generic_repeat/10");
  guard.free();
});

test("thrown Error objects are one outcome by message and name the missing tool", () => {
  const guard = new LoopGuard({ preset: "openclaw" });
  for (let i = 0; i < 10; i++) {
    const call = { tool: "Web_Search", args: { q: `q${i}` }, callId: `c${i}` };
    guard.check(call);
    guard.record({ ...call, error: new Error("Unknown tool: web_search") });
  }
  const verdict = guard.check({ tool: "Web_Search", args: { q: "again" } });
  assert.equal(verdictString(verdict), "block/critical/unknown_tool_repeat/10");
  assert.match(verdict.message, /^CRITICAL: .*web_search.*10 times/);
  assert.equal(verdict.refusal.error, "tool_loop_detected");
  guard.free();
});

test("the texts carry OpenClaw's phrases", () => {
  const guard = new LoopGuard({ preset: "openclaw" });
  const verdicts = [];
  for (let i = 0; i < 31; i++) {
    const verdict = guard.check(READ);
    verdicts.push(verdict);
    if (verdict.action === "allow" || verdict.action === "warn") guard.record({ ...READ, result: SAME });
  }
  assert.match(verdicts[10].hint, /^WARNING: .*10 times/);
  assert.match(verdicts[20].refusal.message, /^CRITICAL: .*identical outcomes 20 times/);
  assert.equal(verdictString(verdicts[21]), "stop/critical/generic_repeat/21");
  assert.match(verdicts[30].message, /global circuit breaker/);
  assert.equal(guard.stats().byDetector.global_circuit_breaker, 1);
  guard.free();
});
