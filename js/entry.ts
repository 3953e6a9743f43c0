/**
 * What every entry builds around its own way of getting the wasm runtime: the `LoopGuard` class
 * bound to it, `coreVersion()`, and (for the synchronous entries) `init()`. Each entry defines its
 * exports itself, so a bundler that drops re-exports never loses the runtime binding.
 */
import { LoopGuardCore } from "./guard.js";
import { readyNow } from "./instance.js";
import type { WasmRuntime } from "./runtime.js";
import type { InitInput, LoopGuardConfig } from "./types.js";

/** The base of an entry's `LoopGuard`: a guard on the runtime that `runtime()` returns when constructed. */
export function guardOn(runtime: () => WasmRuntime): new (config?: LoopGuardConfig) => LoopGuardCore {
  return class extends LoopGuardCore {
    constructor(config?: LoopGuardConfig) {
      super(runtime(), config);
    }
  };
}

/** `coreVersion()` for an entry: the version of the Rust core inside the `.wasm`. */
export function coreVersionOf(runtime: () => WasmRuntime): () => string {
  return () => runtime().bindings.coreVersion();
}

/** `init()` for a synchronous entry: instantiates the `.wasm` now; the input is ignored. */
export function syncInit(runtime: () => WasmRuntime): (input?: InitInput | Promise<InitInput>) => Promise<void> {
  return () => readyNow(runtime);
}
