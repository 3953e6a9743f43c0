// `npm run eval` runs on a small slice of the development set and prints its tables (the figures
// are measured, not asserted: see eval/eval.mjs and issue 23).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import test from "node:test";

const script = new URL("../../../eval/eval.mjs", import.meta.url).pathname;
const run = (...args) => execFileSync(process.execPath, [script, ...args], { encoding: "utf8" });

test("eval prints, per preset, a table by family and one by detector", () => {
  const out = run("--slice", "3");
  for (const preset of ["default", "strict", "openclaw"]) assert.match(out, new RegExp(`## preset: ${preset}\\n`));
  assert.match(out, /\| family \| runs \| solved \| vetoes \| costless \|/);
  assert.match(out, /\| \*\*all\*\* \| \d+ \|/);
  assert.match(out, /\| detector \| vetoes \| costless \| runs \|/);
});

test("eval --json gives the figures of every run it replayed", () => {
  const out = JSON.parse(run("--slice", "2", "--json"));
  assert.ok(out.runs > 0);
  for (const result of out.results) {
    assert.equal(result.total.runs, out.runs);
    const byFamily = Object.values(result.byFamily).reduce((sum, f) => sum + f.runs, 0);
    assert.equal(byFamily, out.runs);
    const vetoes = Object.values(result.byDetector).reduce((sum, d) => sum + d.vetoes, 0);
    assert.equal(vetoes, result.total.vetoes, "every veto has its detector");
  }
});

test("eval --vetoes samples would-be vetoes with the refused call's real result", () => {
  const out = run("--slice", "40", "--preset", "strict", "--vetoes", "2");
  assert.match(out, /## \d+ would-be vetoes under preset strict/);
  assert.match(out, /real result: /);
  assert.match(out, /message: Refused: |message: Stopped: /);
});
