// Fail-open after a wasm trap, tested on the package's own modules (pkg/guard.js, pkg/runtime.js
// and the generated glue) with bindings that make the real wasm instance trap on request.
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { LoopGuardError } from "../../../pkg/errors.js";
import { LoopGuardCore } from "../../../pkg/guard.js";
import { WasmRuntime } from "../../../pkg/runtime.js";
import * as glue from "../../../pkg/tool_loop_guard.js";
import { verdictString } from "../scenario-runner.mjs";

glue.initSync({ module: new WebAssembly.Module(fs.readFileSync(new URL("../../../pkg/tool_loop_guard_bg.wasm", import.meta.url))) });

/** The core's guard, except that `checkTrapping` makes the instance trap (an invalid allocation aborts). */
let trapNext = false;
class TrappingGuard extends glue.WasmGuard {
  check(form, nowMs) {
    if (trapNext) {
      trapNext = false;
      glue.initSync().__wbindgen_malloc(0xfffffff0, 1);
    }
    return super.check(form, nowMs);
  }
}
const bindings = { ...glue, WasmGuard: TrappingGuard };

const CALL = { tool: "update_task", args: { taskId: "T-1" } };
const OUTCOME = { ...CALL, result: "updated" };
const TRAPPING = { tool: "update_task", args: { taskId: "T-1" }, runId: "r1" };

/** `guard.check(TRAPPING)`, during which the instance traps. */
function checkTrapping(guard) {
  trapNext = true;
  return guard.check(TRAPPING);
}

function repeat(guard, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    out.push(verdictString(guard.check(CALL)));
    guard.record(OUTCOME);
  }
  return out;
}

test("the trap is real", () => {
  assert.throws(() => glue.initSync().__wbindgen_malloc(0xfffffff0, 1), WebAssembly.RuntimeError);
});

// Thresholds pinned so these checks of the wrapper do not move with the default preset.
const PINNED = { warningThreshold: 10, criticalThreshold: 20, globalCircuitBreakerThreshold: 30 };

test("a trap gives an allow verdict with detector internal_error and a fresh instance", () => {
  const runtime = new WasmRuntime(bindings);
  const seen = [];
  const guard = new LoopGuardCore(runtime, { ...PINNED, onVerdict: (v) => seen.push(v.detector) });
  const other = new LoopGuardCore(runtime, PINNED);
  repeat(guard, 9);
  repeat(other, 9);

  const verdict = checkTrapping(guard);
  assert.deepEqual(verdict, {
    action: "allow",
    level: "ok",
    detector: "internal_error",
    count: 0,
    threshold: null,
    tool: "update_task",
    runId: "r1",
    message: null,
  });
  assert.deepEqual(seen, ["internal_error"]);
  assert.equal(runtime.generation, 1);

  // Run state is lost for every guard of the instance: the 10th identical call is now the 1st.
  assert.equal(verdictString(guard.check(CALL)), "allow");
  assert.equal(guard.stats().checks, 1);
  assert.deepEqual(repeat(other, 10).slice(8), ["allow", "warn/warning/generic_repeat/10"]);
  // That call was never recorded, so it shows no result repeating: ten more make the warning.
  assert.equal(repeat(guard, 10).at(-1), "warn/warning/generic_repeat/10");
  guard.free();
  other.free();
});

test("throwOnInternalError throws LoopGuardError code internal, and the guard keeps working", () => {
  const runtime = new WasmRuntime(bindings);
  const guard = new LoopGuardCore(runtime, { ...PINNED, throwOnInternalError: true });
  assert.throws(
    () => checkTrapping(guard),
    (error) =>
      error instanceof LoopGuardError &&
      error.code === "internal" &&
      error.field === null &&
      error.cause instanceof WebAssembly.RuntimeError,
  );
  assert.equal(runtime.generation, 1);
  assert.equal(repeat(guard, 10).at(-1), "warn/warning/generic_repeat/10");
  guard.free();
});

test("coded core errors are not internal failures", () => {
  const runtime = new WasmRuntime(bindings);
  const guard = new LoopGuardCore(runtime);
  assert.throws(() => guard.check({ tool: 1 }), (error) => error instanceof LoopGuardError && error.code === "invalid_record");
  assert.equal(runtime.generation, 0);
  guard.free();
});

test("any other error from the glue (a handle of a replaced instance) is handled the same way", () => {
  const a = new WasmRuntime(bindings);
  const b = new WasmRuntime(bindings);
  const guardA = new LoopGuardCore(a);
  const guardB = new LoopGuardCore(b);
  checkTrapping(guardA); // a replaces the instance behind b's back: guardB's handle is stale
  assert.equal(guardB.check(CALL).detector, "internal_error");
  assert.equal(b.generation, 1);
  assert.equal(verdictString(guardB.check(CALL)), "allow");
});
