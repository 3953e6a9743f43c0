// `tool-loop-guard/inline` under Node: the base64-embedded .wasm, compiled synchronously on first
// use, runs every scenario with the expected verdicts. Its own process: no other entry has
// instantiated the shared glue first, so the embedded bytes are really used.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as inline from "tool-loop-guard/inline";
import { runCorpus } from "../scenario-runner.mjs";
import { loadCorpus } from "../runtimes/support.mjs";

test("tool-loop-guard/inline resolves to inline.js and is ready without init()", async () => {
  assert.match(import.meta.resolve("tool-loop-guard/inline"), /\/inline\.js$/);
  assert.deepEqual(Object.keys(inline).sort(), ["LoopGuard", "LoopGuardError", "coreVersion", "init"]);
  assert.match(inline.coreVersion(), /^\d+\.\d+\.\d+/);
  await inline.init();
});

test("tool-loop-guard/inline runs every scenario with the expected verdicts", () => {
  const corpus = loadCorpus();
  const failed = runCorpus(corpus, inline).filter((r) => r.failures.length > 0);
  assert.deepEqual(failed, []);
});
