/**
 * Node.js entry for `import` (also used by Bun): synchronous. The package's `.wasm` (one folder up)
 * is read and compiled on the first `new LoopGuard()` (or `coreVersion()`, `init()`), not at import.
 * Large result texts, and the core's long inputs, are hashed with node:crypto, which also draws the
 * instance's window secret (node-crypto.ts).
 * The build bundles this entry with the wrapper's private modules into one (see
 * scripts/node-entry-bundle.mjs): each module costs a fresh process's import time.
 */
import { coreVersionOf, guardOn, syncInit } from "../entry.js";
import { glueRuntime } from "./glue-runtime.js";
import { randomFill, sha256Bytes, sha256Hex } from "./node-crypto.js";

export * from "../public.js";

// node:fs through `process.getBuiltinModule`, not an ESM import: see node-crypto.ts.
const readWasm = (): Uint8Array<ArrayBuffer> =>
  process.getBuiltinModule("node:fs").readFileSync(new URL("../tool_loop_guard_bg.wasm", import.meta.url));

const runtime = glueRuntime(
  () => new WebAssembly.Module(readWasm()),
  sha256Hex,
  sha256Bytes,
  randomFill,
);

/**
 * A loop guard: `check()` before each tool call, `record()` after it. Guards are independent; each
 * keeps the state of its runs in wasm memory until `free()` (or garbage collection). The
 * constructor throws LoopGuardError code `invalid_config`, naming the field, for an invalid config.
 */
export class LoopGuard extends guardOn(runtime) {}

/** The version of the Rust core inside the `.wasm`. */
export const coreVersion = coreVersionOf(runtime);

/** Not needed with this entry (it is synchronous); instantiates the `.wasm` now. The input is ignored. */
export const init = syncInit(runtime);
