// toolLoopEvent (tool-loop-guard/openclaw): every verdict of the scenario corpus, as `onVerdict`
// receives it, mapped to OpenClaw's `tool.loop` diagnostic event. The shape against OpenClaw's own
// events is checked inside the real gateway (tests/js/openclaw/diagnostic.test.mjs).
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import * as api from "tool-loop-guard";
import { toolLoopEvent } from "tool-loop-guard/openclaw";
import { runScenario } from "../scenario-runner.mjs";

/** OpenClaw 2026.9.6's DiagnosticToolLoopEvent fields (before its dispatcher adds ts, seq, trace). */
const FIELDS = ["type", "sessionId", "sessionKey", "toolName", "level", "action", "detector", "count", "message", "pairedToolName"];

/** Every verdict `onVerdict` gets while the corpus runs. */
function corpusVerdicts() {
  const dir = new URL("../../scenarios/", import.meta.url);
  const verdicts = [];
  class Observed extends api.LoopGuard {
    constructor(config) {
      super(typeof config === "object" && config !== null ? { ...config, onVerdict: (v) => verdicts.push(v) } : config);
    }
  }
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".json"))) {
    runScenario(JSON.parse(fs.readFileSync(new URL(file, dir), "utf8")), { ...api, LoopGuard: Observed });
  }
  return verdicts;
}

test("every corpus verdict that intervenes maps to OpenClaw's tool.loop fields; an allow maps to nothing", () => {
  const verdicts = corpusVerdicts();
  const seen = new Set();
  for (const verdict of verdicts) {
    const event = toolLoopEvent(verdict);
    if (verdict.action === "allow") {
      assert.equal(event, undefined, "an allow (shadow, fail-open) is no detection to OpenClaw");
      continue;
    }
    seen.add(`${verdict.action}/${verdict.level}`);
    assert.deepEqual(Object.keys(event), FIELDS, "OpenClaw's fields, absent ones present as undefined");
    assert.equal(event.type, "tool.loop");
    assert.equal(event.level, verdict.level === "warning" ? "warning" : "critical", "OpenClaw has no circuit-break level");
    assert.equal(event.action, verdict.action === "warn" ? "warn" : "block", "OpenClaw ends no run itself: a stop is a block");
    assert.equal(event.detector, verdict.detector);
    assert.equal(event.toolName, verdict.tool);
    assert.equal(event.count, verdict.count);
    assert.equal(event.message, verdict.message);
    assert.equal(event.sessionKey, verdict.runId ?? undefined, "the run id stands for the session key");
    assert.equal(event.sessionId, undefined);
    assert.equal(event.pairedToolName, verdict.refusal?.observed.partnerTool);
  }
  for (const kind of ["warn/warning", "block/critical", "stop/circuit_break"]) assert.ok(seen.has(kind), `the corpus has a ${kind} verdict`);
  assert.ok(verdicts.some((v) => toolLoopEvent(v)?.pairedToolName !== undefined), "a ping-pong refusal names its partner");
});

test("the session OpenClaw names is used when given", () => {
  const guard = new api.LoopGuard({ preset: "strict" });
  let verdict;
  for (let i = 0; i < 10 && verdict?.action !== "block"; i += 1) {
    verdict = guard.check({ runId: "r", tool: "ls", args: {}, callId: `c${i}` });
    guard.record({ runId: "r", tool: "ls", args: {}, callId: `c${i}`, result: "same" });
  }
  const event = toolLoopEvent(verdict, { sessionKey: "agent:main:main", sessionId: "s-1" });
  assert.equal(event.sessionKey, "agent:main:main");
  assert.equal(event.sessionId, "s-1");
  guard.free();
});
