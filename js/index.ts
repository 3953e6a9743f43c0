/**
 * Portable entry (browsers and the `default` condition): no Node built-ins and nothing runs at
 * import. `await init()` once before `new LoopGuard()`; it loads the `.wasm` next to this file
 * unless given a URL, a fetch Response, the bytes or a compiled WebAssembly.Module.
 */
import { install, installed } from "./instance.js";
import initGlue, * as glue from "./tool_loop_guard.js";
import type { InitInput } from "./types.js";

export * from "./public.js";

let pending: Promise<void> | undefined;

/** Loads and instantiates the `.wasm` once; later calls return the same promise (their input is ignored). */
export function init(input?: InitInput | Promise<InitInput>): Promise<void> {
  if (installed()) return Promise.resolve();
  pending ??= initGlue({ module_or_path: input ?? new URL("./tool_loop_guard_bg.wasm", import.meta.url) }).then(
    () => install(glue),
    (error: unknown) => {
      pending = undefined;
      throw error;
    },
  );
  return pending;
}
