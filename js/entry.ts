/**
 * What every entry (index.ts and entries/) builds around its own way of getting the wasm runtime:
 * the `LoopGuard` class bound to it, `coreVersion()`, and (for the synchronous entries) `init()`.
 * Each entry defines these exports itself, so a bundler that drops re-exports never loses the
 * runtime binding, and each entry's .d.ts declares `LoopGuard` as a documented class. That is why
 * the entries end with the same few lines (Deno's and workerd's differ only in their import of the
 * compiled module: `import source` in deno-wasm.js, a plain `.wasm` import in workerd.ts).
 */
import { LoopGuardCore } from "./guard.js";
import { readyNow } from "./instance.js";
import type { WasmRuntime } from "./runtime.js";
import type { InitInput, LoopGuardConfig } from "./types.js";

/** The base class of an entry's `LoopGuard`. */
export type GuardClass = new (config?: LoopGuardConfig) => LoopGuardCore;

/** An entry's `init()`. */
export type InitFunction = (input?: InitInput | Promise<InitInput>) => Promise<void>;

/** The base of an entry's `LoopGuard`: a guard on the runtime that `runtime()` returns when constructed. */
export function guardOn(runtime: () => WasmRuntime): GuardClass {
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
export function syncInit(runtime: () => WasmRuntime): InitFunction {
  return () => readyNow(runtime);
}
