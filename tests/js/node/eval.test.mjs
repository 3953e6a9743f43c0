// `npm run eval` runs on a small slice of the development set and prints its tables (the figures
// are measured, not asserted: see eval/eval.mjs and issue 11).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import test from "node:test";

const script = new URL("../../../eval/eval.mjs", import.meta.url).pathname;

test("eval prints a table per preset on a slice of the development set", () => {
  const out = execFileSync(process.execPath, [script, "--slice", "3"], { encoding: "utf8" });
  assert.match(out, /## preset: default/);
  assert.match(out, /## preset: strict/);
  assert.match(out, /\| source \| runs \|/);
});

test("eval --json gives the figures of every run it replayed", () => {
  const out = JSON.parse(execFileSync(process.execPath, [script, "--slice", "2", "--json"], { encoding: "utf8" }));
  assert.ok(out.runs > 0);
  for (const result of out.results) assert.equal(result.perRun.length, out.runs);
});
