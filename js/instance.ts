/**
 * The wasm runtime of this copy of the package, set once by the entry that initialised the glue:
 * at import in Node, Deno, Bun and workerd, by `await init()` in browsers.
 */
import { LoopGuardError } from "./errors.js";
import type { TextHasher } from "./encode.js";
import { type WasmBindings, WasmRuntime } from "./runtime.js";
import type { InitInput } from "./types.js";

let runtime: WasmRuntime | undefined;

/** Records the initialised glue (and a native text hasher, if any); later calls keep the first runtime. */
export function install(bindings: WasmBindings, hashText?: TextHasher): void {
  runtime ??= new WasmRuntime(bindings, hashText);
}

export function installed(): boolean {
  return runtime !== undefined;
}

/** The runtime, or LoopGuardError code `not_initialized` before `init()` has finished. */
export function currentRuntime(): WasmRuntime {
  if (runtime === undefined) {
    throw new LoopGuardError("not_initialized", "tool-loop-guard is not initialised yet: await init() before new LoopGuard()");
  }
  return runtime;
}

/** `init()` of the entries that are ready on import: nothing to wait for. */
export function alreadyInitialised(_input?: InitInput | Promise<InitInput>): Promise<void> {
  return Promise.resolve();
}
