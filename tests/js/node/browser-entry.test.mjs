// The portable entry (pkg/index.js: `browser` and `default` conditions) under Node: nothing works
// before init(); init() accepts a Response (or bytes, a URL, a Module), is idempotent and can be
// retried after a failure. Runs in its own process, so no other entry has initialised the package.
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { coreVersion, init, LoopGuard, LoopGuardError } from "../../../pkg/index.js";

const wasmUrl = new URL("../../../pkg/tool_loop_guard_bg.wasm", import.meta.url);

test("before init(), LoopGuard and coreVersion throw not_initialized", () => {
  for (const fn of [() => new LoopGuard(), () => coreVersion()]) {
    assert.throws(fn, (error) => error instanceof LoopGuardError && error.code === "not_initialized");
  }
});

test("a failed init() can be retried; init() is idempotent", async () => {
  await assert.rejects(init(new Uint8Array([0, 0x61, 0x73, 0x6d, 9, 9, 9, 9])));
  const response = new Response(fs.readFileSync(wasmUrl), { headers: { "content-type": "application/wasm" } });
  const first = init(response);
  assert.equal(init(), first, "a second call while loading returns the same promise");
  await first;
  await init();
  assert.match(coreVersion(), /^\d+\.\d+\.\d+/);
  const guard = new LoopGuard({ preset: "strict" });
  assert.equal(guard.check({ tool: "t" }).action, "allow");
  guard.free();
});
