// Strings cut mid-emoji (lone UTF-16 surrogates) in long result texts: the wrapper neither hashes
// them with node:crypto nor passes them as side text (UTF-8 would replace the surrogate by U+FFFD),
// so the hashed (Node), side (other runtimes) and inline ways give the same verdicts and run
// snapshots byte for byte, distinct cuts keep distinct outcomes, and a loop of identical cut
// outputs is detected. The rule itself is the core's (docs/semantics.md, "Lone surrogates").
import assert from "node:assert/strict";
import { test } from "node:test";
import { LoopGuard } from "tool-loop-guard";
import { hashLargeTexts, sideLargeText } from "../../../pkg/encode.js";
import { assertWaysAgree, limit, textWays } from "./text-ways.mjs";

const emoji = "\u{1F600}"; // "\uD83D\uDE00"
/** A long text cut after `cut` UTF-16 units, as a host truncating by `.slice()` does. */
const cutText = (fill, cut) => (fill.repeat(limit) + emoji.repeat(8)).slice(0, cut);

const texts = [
  cutText("a", limit + 1), // ends in the lone high surrogate \uD83D
  cutText("a", limit + 3), // a whole emoji, then \uD83D
  "\uDE00" + "b".repeat(limit + 5), // a lone low surrogate at the start
  "c".repeat(limit) + "\uD83D\uD83D\uDE00" + "\uDE00", // beside a valid pair on both sides
  "\uFFFD".repeat(limit + 1), // well-formed: still goes out of line
];

test("long texts with lone surrogates stay inline; well-formed ones still go out of line", () => {
  const hash = (text) => `h${text.length}`;
  for (const text of texts) {
    const outcome = { tool: "t", result: text };
    const wellFormed = text.isWellFormed();
    assert.equal(hashLargeTexts(outcome, { hash, above: limit }) === outcome, !wellFormed);
    assert.equal(sideLargeText(outcome, limit)[1], wellFormed ? text : undefined);
    const parts = { tool: "t", result: { content: [{ type: "text", text }] } };
    assert.equal(sideLargeText(parts, limit)[1], wellFormed ? text : undefined);
  }
});

test("hashed, side and inline ways agree on long texts with lone surrogates", () => {
  const ways = textWays();
  for (let round = 0; round < 3; round++) {
    texts.forEach((text, i) => {
      for (const result of [text, { content: [{ type: "text", text }, { type: "text", text: "tail \uD83D" }] }]) {
        const at = 1000 * (round * texts.length + i);
        const call = { runId: "r", tool: "read_log", args: { file: `f${i}`, note: "\uDE00" }, at };
        const outcome = { ...call, result };
        assertWaysAgree(ways, (guard) => [guard.check(call), guard.record(outcome), guard.fingerprint(outcome)]);
      }
    });
  }
  assertWaysAgree(ways, (guard) => guard.exportRun("r"));
});

test("long outputs cut at different emoji, or replaced by U+FFFD, have different outcomes", () => {
  const guard = new LoopGuard();
  const base = "x".repeat(limit);
  const variants = [base + "\uD83D", base + "\uD83E", base + "\uFFFD", base + "\\ud83d", base + "\uDE00", base + emoji];
  const seen = new Set(variants.map((text) => guard.fingerprint({ tool: "t", result: text }).outcome));
  assert.equal(seen.size, variants.length);
  assert.equal(guard.fingerprint({ tool: "t", result: base + "\uD83D" }).outcome, guard.fingerprint({ tool: "t", result: base + "\uD83D" }).outcome);
});

test("ten identical long outputs cut mid-emoji are a loop", () => {
  const guard = new LoopGuard({ warningThreshold: 5, criticalThreshold: 10, globalCircuitBreakerThreshold: 20 });
  const actions = [];
  for (let i = 1; i <= 11; i++) {
    const call = { tool: "read_log", args: { file: "build.log" }, at: i };
    const verdict = guard.check(call);
    actions.push(verdict.action);
    if (verdict.action === "block") break;
    guard.record({ ...call, result: cutText("log line\n", limit + 1) });
  }
  assert.deepEqual(actions, ["allow", "allow", "allow", "allow", "warn", "allow", "allow", "allow", "allow", "warn", "block"]);
});
