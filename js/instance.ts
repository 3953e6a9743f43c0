/**
 * The wasm runtime of this copy of the glue, shared by the entries of one module graph. Entries
 * create it lazily, on the first `new LoopGuard()`, `coreVersion()` or `init()`, never at import:
 * importing the package has no side effects (`sideEffects: false` is true), so bundlers may drop
 * or reorder it freely, and each entry defines its own `LoopGuard` so that using it keeps the
 * entry's loader in the bundle.
 */
import { LoopGuardError } from "./errors.js";
import type { BytesHasher, TextHasher } from "./encode.js";
import { type RandomFill, type WasmBindings, WasmRuntime } from "./runtime.js";

let runtime: WasmRuntime | undefined;

/** The runtime, if some entry has instantiated the glue already. */
export function currentRuntime(): WasmRuntime | undefined {
  return runtime;
}

/**
 * Records the instantiated glue (and the runtime's native hashers and random source, if it offers
 * them); later calls keep the first runtime.
 */
export function setRuntime(bindings: WasmBindings, hashText?: TextHasher, hashBytes?: BytesHasher, randomFill?: RandomFill): WasmRuntime {
  runtime ??= new WasmRuntime(bindings, hashText, hashBytes, randomFill);
  return runtime;
}

/** LoopGuardError code `not_initialized`: the browser entry before `await init()` has finished. */
export function notInitialized(): never {
  throw new LoopGuardError("not_initialized", "tool-loop-guard is not initialised yet: await init() before new LoopGuard()");
}

/** `init()` of the synchronous entries: instantiates now (errors reject) and resolves. */
export function readyNow(load: () => WasmRuntime): Promise<void> {
  try {
    load();
    return Promise.resolve();
  } catch (error) {
    return Promise.reject(error);
  }
}
