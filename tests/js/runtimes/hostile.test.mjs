// Bad input and non-retention in Deno and Bun: tests/js/hostile-cases.mjs run through the package
// each runtime resolves (hostile-cli.mjs) must give the outcomes Node gives (every bad input a
// LoopGuardError code or its defined handling, the guard right afterwards), and no marker may be
// left in the instance's memory, a snapshot or stats().
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { binary, root, runJson } from "./support.mjs";

const cli = path.join(root, "tests", "js", "runtimes", "hostile-cli.mjs");
const reference = runJson(process.execPath, [cli]);

test(`node reference (${reference.runtime}): no marker retained`, () => {
  assert.deepEqual(reference.retained, []);
  assert.ok(reference.cases.length >= 14);
});

const runtimes = {
  deno: () => [binary("deno"), ["run", "--no-prompt", "--no-lock", "--no-remote", "--node-modules-dir=manual", `--allow-read=${root}`, cli]],
  bun: () => [binary("bun"), ["--no-install", cli]],
};
for (const [name, command] of Object.entries(runtimes)) {
  test(`${name}: the bad-input outcomes equal Node's, and no marker is retained`, () => {
    const report = runJson(...command());
    assert.deepEqual(report.cases, reference.cases, report.runtime);
    assert.deepEqual(report.retained, [], report.runtime);
  });
}
