/**
 * Node.js entry for `import` (also used by Bun): synchronous. The `.wasm` shipped next to this file
 * is read and compiled on the first `new LoopGuard()` (or `coreVersion()`, `init()`), not at import.
 * Large result texts are hashed with node:crypto.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { LoopGuardCore } from "./guard.js";
import { currentRuntime, readyNow, setRuntime } from "./instance.js";
import type { WasmRuntime } from "./runtime.js";
import * as glue from "./tool_loop_guard.js";
import type { InitInput, LoopGuardConfig } from "./types.js";

export * from "./public.js";

function runtime(): WasmRuntime {
  const ready = currentRuntime();
  if (ready !== undefined) return ready;
  glue.initSync({ module: new WebAssembly.Module(readFileSync(new URL("./tool_loop_guard_bg.wasm", import.meta.url))) });
  return setRuntime(glue, (text) => createHash("sha256").update(text).digest("hex"));
}

/**
 * A loop guard: `check()` before each tool call, `record()` after it. Guards are independent; each
 * keeps the state of its runs in wasm memory until `free()` (or garbage collection).
 */
export class LoopGuard extends LoopGuardCore {
  /** Throws LoopGuardError code `invalid_config` naming the field when the config is invalid. */
  constructor(config?: LoopGuardConfig) {
    super(runtime(), config);
  }
}

/** The version of the Rust core inside the `.wasm`. */
export function coreVersion(): string {
  return runtime().bindings.coreVersion();
}

/** Not needed here (the entry is synchronous); instantiates the `.wasm` now. The input is ignored. */
export function init(_input?: InitInput | Promise<InitInput>): Promise<void> {
  return readyNow(runtime);
}
