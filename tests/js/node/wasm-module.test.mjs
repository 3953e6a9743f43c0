// The shipped .wasm's exports, checked for what keeps the package fast to load and to call: no
// exported function returns several values (V8 11, in Node 20, compiles a JS-to-wasm wrapper for
// every such signature while compiling the module, ~2.5 ms in all; see
// scripts/build.mjs), and the two per-call exports return their status as one number. The
// signatures are read with binaryen's JS API (the build's wasm-opt package).
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import binaryen from "binaryen";
import * as glue from "../../../pkg/tool_loop_guard.js";

const wasm = fs.readFileSync(new URL("../../../pkg/tool_loop_guard_bg.wasm", import.meta.url));

/** {name: number of results} of every exported function of the module. */
function exportedResultCounts(bytes) {
  const module = binaryen.readBinary(bytes);
  const counts = {};
  for (let i = 0; i < module.getNumExports(); i++) {
    const { kind, name, value } = binaryen.getExportInfo(module.getExportByIndex(i));
    if (kind !== binaryen.ExternalFunction) continue;
    counts[name] = binaryen.expandType(binaryen.getFunctionInfo(module.getFunction(value)).results).length;
  }
  module.dispose();
  return counts;
}
const results = exportedResultCounts(wasm);

test("binaryen sees the module's exported functions", () => {
  const exported = WebAssembly.Module.exports(new WebAssembly.Module(wasm)).filter((e) => e.kind === "function");
  assert.deepEqual(Object.keys(results).sort(), exported.map((e) => e.name).sort());
});

test("no exported function returns more than one value", () => {
  const multi = Object.entries(results).filter(([, count]) => count > 1);
  assert.deepEqual(multi, []);
});

test("check and record return their status directly", () => {
  assert.equal(results.wasmguard_check, 1);
  assert.equal(results.wasmguard_record, 1);
});

test("the glue carries the input frame's codes, and its header has one word per slot", () => {
  glue.initSync({ module: new WebAssembly.Module(wasm) });
  const names = (codes) => Object.keys(codes).filter((key) => Number.isNaN(Number(key)));
  for (const codes of [glue.Status, glue.Form, glue.Slot, glue.ResultShape, glue.Flag, glue.TextKind]) {
    assert.ok(Object.isFrozen(codes) && names(codes).length >= 2);
  }
  assert.equal(glue.frameHeaderBytes(), 4 * names(glue.Slot).length);
});
