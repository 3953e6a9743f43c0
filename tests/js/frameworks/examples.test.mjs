// examples/frameworks/: each runnable example runs to completion under this Node and reports the
// guard's intervention (they resolve their frameworks through the link setup.sh makes to this
// package's node_modules).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "examples", "frameworks");
const examples = fs.readdirSync(dir).filter((f) => f.endsWith(".mjs")).sort();

test("there is one example per adapter", () => {
  assert.deepEqual(examples, ["ai-sdk.mjs", "langchain.mjs", "mastra.mjs", "mcp.mjs", "openai-agents.mjs", "openclaw.mjs"]);
});

for (const example of examples) {
  test(`examples/frameworks/${example} runs and shows the guard stepping in`, () => {
    const result = spawnSync(process.execPath, [path.join(dir, example)], { encoding: "utf8", timeout: 60_000 });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /stopped|blocked/i);
  });
}
