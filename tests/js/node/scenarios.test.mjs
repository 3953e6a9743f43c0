// Runs every scenario of tests/scenarios/ through the built package (pkg/, imported by name) and
// compares every verdict with the expected one.
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import * as api from "tool-loop-guard";
import { runScenario } from "../scenario-runner.mjs";

const dir = new URL("../../scenarios/", import.meta.url);
const files = fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort();

test("the scenario corpus is not empty", () => {
  assert.ok(files.length > 0, "no tests/scenarios/*.json files");
});

for (const file of files) {
  test(`scenario ${file}`, () => {
    const scenario = JSON.parse(fs.readFileSync(new URL(file, dir), "utf8"));
    const { failures } = runScenario(scenario, api);
    assert.deepEqual(failures, [], `${scenario.name}: ${failures.length} failures`);
  });
}
