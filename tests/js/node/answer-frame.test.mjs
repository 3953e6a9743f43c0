// Verdicts that are not a plain allow leave the core as an answer frame (src/verdict/answer_frame.rs,
// js/answer.ts): texts as UTF-8 with their places counted in UTF-16 units, a text repeated in the
// verdict written once. These cases are where such a frame could go wrong: names outside ASCII,
// astral characters (two UTF-16 units, four bytes), a byte-order mark, and the texts a refusal and
// a warning repeat.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { LoopGuard } from "tool-loop-guard";
import { currentRuntime } from "../../../pkg/instance.js";

const NAMES = [
  ["a byte-order mark first", "\uFEFFsearch"],
  ["non-ASCII and astral characters", "suche_é_工具_🙂"],
  ["plain ASCII", "update_task"],
];

for (const [label, tool] of NAMES) {
  test(`warn, block and stop verdicts carry the exact tool and run id: ${label}`, () => {
    const guard = new LoopGuard();
    const runId = `lauf-${tool}-ü`;
    const call = { runId, tool, args: { id: "T-1", note: "ü 🙂" } };
    const seen = new Map();
    for (let i = 0; i < 12 && !seen.has("stop"); i++) {
      const verdict = guard.check({ ...call, callId: `c${i}` });
      if (verdict.action !== "allow") seen.set(verdict.action, verdict);
      if (verdict.action === "allow" || verdict.action === "warn") guard.record({ ...call, callId: `c${i}`, result: "same result" });
    }
    assert.deepEqual([...seen.keys()], ["warn", "block", "stop"]);
    for (const verdict of seen.values()) {
      assert.equal(verdict.tool, tool);
      assert.equal(verdict.runId, runId);
      assert.ok(verdict.message.includes(tool), verdict.message);
    }
    const warned = seen.get("warn");
    assert.equal(warned.hint, warned.message);
    for (const refused of [seen.get("block"), seen.get("stop")]) {
      assert.equal(refused.refusal.message, refused.message);
      assert.equal(refused.refusal.observed.tool, tool);
      assert.equal(refused.refusal.observed.count, refused.count);
    }
    assert.ok(seen.get("stop").userMessage.includes(tool));
    guard.free();
  });
}

test("a verdict is a fresh object each time: changing one leaves the next intact", () => {
  const guard = new LoopGuard();
  const call = { runId: "fresh", tool: "poll", args: { q: 1 } };
  const verdicts = [];
  for (let i = 0; i < 8; i++) {
    const verdict = guard.check(call);
    verdicts.push(verdict);
    if (verdict.action === "allow" || verdict.action === "warn") guard.record({ ...call, result: "same" });
  }
  const refused = verdicts.filter((verdict) => verdict.refusal !== undefined);
  assert.ok(refused.length >= 2);
  refused[0].refusal.observed.count = -1;
  refused[0].message = "changed";
  assert.notEqual(refused[1].message, "changed");
  assert.equal(refused[1].refusal.observed.count, refused[1].count);
  guard.free();
});

test("a verdict's frame is zeroed once read: its run id is gone from wasm memory when the run ends", () => {
  const token = `afz${randomBytes(10).toString("hex")}`;
  const guard = new LoopGuard();
  const call = { runId: `run-${token}`, tool: "update_task", args: { id: 7 } };
  const actions = [];
  for (let i = 0; i < 12; i++) {
    const verdict = guard.check(call);
    actions.push(verdict.action);
    if (verdict.action === "allow" || verdict.action === "warn") guard.record({ ...call, result: "same" });
  }
  assert.ok(actions.includes("stop"), actions.join(" "));
  guard.endRun(call.runId);
  const memory = Buffer.from(currentRuntime().memory.buffer);
  assert.equal(memory.indexOf(Buffer.from(token, "utf8")), -1, "the run id is still in wasm memory");
  guard.free();
});
